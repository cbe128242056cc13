/**
 * SalvageJsonOutputParser: the JSON value of a whole answer out of fences (```` ```JSON ````
 * and ```` ```jsonl ```` included, which LangChain's JsonOutputParser misses) and prose; with a
 * schema the first candidate that validates; an answer with no JSON, or none valid, is an
 * OutputParserException with llmjson's diagnostic; at the end of an invoked or streamed chain.
 */

import { JsonOutputParser, OutputParserException } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { type LlmjsonOutputParserException, SalvageJsonOutputParser } from '@llmjson/langchain';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chain, rejection, streamed } from './helpers.js';

const Answer = z.object({ city: z.string(), population: z.number() });
const VALUE = { city: 'Lyon', population: 522_250 };
const JSON_TEXT = JSON.stringify(VALUE);

describe('SalvageJsonOutputParser', () => {
  test.each([
    ['```JSON', `Here it is:\n\`\`\`JSON\n${JSON_TEXT}\n\`\`\`\nAnything else?`],
    ['```jsonl', `\`\`\`jsonl\n${JSON_TEXT}\n\`\`\``],
    ['inline code', `The answer is \`${JSON_TEXT}\`.`],
    ['prose', `I found ${JSON_TEXT} in the census.`],
  ])('%s: the value', async (_, text) => {
    expect(await new SalvageJsonOutputParser({ schema: Answer }).invoke(text)).toEqual(VALUE);
  });

  test('LangChain’s JsonOutputParser misses the ```JSON fence that the salvage parser reads', async () => {
    const text = `Here it is:\n\`\`\`JSON\n${JSON_TEXT}\n\`\`\`\nAnything else?`;
    await expect(new JsonOutputParser().invoke(text)).rejects.toThrow(/JSON/);
    expect(await new SalvageJsonOutputParser().invoke(text)).toEqual(VALUE);
  });

  test('with a schema, the first candidate that validates wins over an earlier one that does not', async () => {
    const text = `Example: \`{"city": "X"}\`. The answer:\n\`\`\`json\n${JSON_TEXT}\n\`\`\``;
    expect(await new SalvageJsonOutputParser({ schema: Answer }).invoke(text)).toEqual(VALUE);
  });

  test('no valid value: an OutputParserException with the schema diagnostic; no JSON at all: says so', async () => {
    const error = await rejection(() =>
      new SalvageJsonOutputParser({ schema: Answer }).invoke('```json\n{"city": 1}\n```'),
    );
    expect(error).toBeInstanceOf(OutputParserException);
    expect((error as LlmjsonOutputParserException).diagnostic.reason).toBe('schema');
    expect((error as LlmjsonOutputParserException).llmOutput).toBe('```json\n{"city": 1}\n```');
    await expect(new SalvageJsonOutputParser().invoke('No idea, sorry.')).rejects.toThrow(/holds no JSON value/);
  });

  test('repair: true reads near-JSON and reports the repair', async () => {
    const reasons: string[] = [];
    const parser = new SalvageJsonOutputParser({ repair: true, onDiagnostic: (d) => reasons.push(d.reason) });
    expect(await parser.invoke("{'city': 'Lyon', 'population': 522250}")).toEqual(VALUE);
    expect(reasons).toContain('recovered');
  });

  test('at the end of an invoked chain, and of a streamed one (the value once, at the end)', async () => {
    const prompt = ChatPromptTemplate.fromTemplate('Population of {topic}?');
    const text = `Sure:\n\`\`\`JSON\n${JSON_TEXT}\n\`\`\``;
    const parser = new SalvageJsonOutputParser({ schema: Answer });
    expect(
      await prompt
        .pipe(new FakeListChatModel({ responses: [text] }))
        .pipe(parser)
        .invoke({ topic: 'Lyon' }),
    ).toEqual(VALUE);
    expect(await streamed(chain([text.slice(0, 10), text.slice(10)], parser))).toEqual([VALUE]);
  });
});
