/**
 * JsonlOutputParser in LangChain chains: each validated object comes out as its line ends (as
 * `[object]`, LangChain's list-parser chunks), in order, under any chunking of a fenced
 * ```` ```jsonl ```` answer with prose and a bad line; the dropped lines reach `onDiagnostic`
 * and the run's `llmjson_diagnostic` custom event; `invoke` returns every object; each chunk's
 * text is read once.
 */

import { test as fcTest } from '@fast-check/vitest';
import type { BaseMessage } from '@langchain/core/messages';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { type Diagnostic, JsonlOutputParser } from '@llmjson/langchain';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chain, streamed } from './helpers.js';

const Fact = z.object({ planet: z.string(), moons: z.number().int() });
const LINES = [
  '{"planet": "Mercury", "moons": 0}',
  '{"planet": "Venus", "moons": 0}',
  '{"planet": "Earth", "moons": "one"}',
  '{"planet": "Mars", "moons": 2}',
  '{"planet": "Jupiter", "moons": 95',
  '{"planet": "Saturn", "moons": 146}',
];
const ANSWER = `Here are the facts:\n\`\`\`jsonl\n${LINES.join('\n')}\n\`\`\`\n`;
const VALID = [0, 1, 3, 5].map((i) => JSON.parse(LINES[i] as string));
const numRuns = process.env.CI ? 200 : 60;

function splitAnswer(text: string, points: readonly number[]): string[] {
  const sorted = [...points].sort((a, b) => a - b);
  const chunks: string[] = [];
  let last = 0;
  for (const p of sorted) {
    chunks.push(text.slice(last, p));
    last = p;
  }
  chunks.push(text.slice(last));
  return chunks;
}

describe('JsonlOutputParser', () => {
  fcTest.prop([fc.array(fc.integer({ min: 0, max: ANSWER.length }), { maxLength: 40 })], { numRuns })(
    'a fenced ```jsonl answer under any chunking: the valid objects, one per chunk, in order; the dropped lines reported',
    async (points) => {
      const diagnostics: Diagnostic[] = [];
      const parser = new JsonlOutputParser({ schema: Fact, onDiagnostic: (d) => diagnostics.push(d) });
      const chunks = await streamed(chain(splitAnswer(ANSWER, points), parser));
      expect(chunks).toEqual(VALID.map((value) => [value]));
      expect(diagnostics.map((d) => [d.reason, d.line])).toEqual([
        ['prose', 1],
        ['schema', 5],
        ['syntax', 7],
      ]);
    },
  );

  test('each object comes out when its line ends, before the rest of the answer is read', async () => {
    const read: string[] = [];
    class Watched extends JsonlOutputParser<typeof Fact> {
      protected override _baseMessageToString(message: BaseMessage): string {
        const text = super._baseMessageToString(message);
        read.push(text);
        return text;
      }
    }
    const lines = `${LINES[0]}\n${LINES[1]}\n`;
    const seenAfter: number[] = [];
    for await (const _ of await chain([lines.slice(0, 40), lines.slice(40), ''], new Watched({ schema: Fact })).stream({
      topic: 'x',
    })) {
      seenAfter.push(read.length);
    }
    // Mercury's line ends in the first chunk (40 characters), Venus's at the end of the second.
    expect(seenAfter).toEqual([1, 2]);
    expect(read.join('')).toBe(lines);
  });

  test('dropped lines are custom events llmjson_diagnostic in streamEvents, beside the objects', async () => {
    const events: { event: string; name: string; data: unknown }[] = [];
    const outputs: unknown[] = [];
    const parser = new JsonlOutputParser({ schema: Fact });
    for await (const event of chain([ANSWER], parser).streamEvents({ topic: 'x' }, { version: 'v2' })) {
      if (event.event === 'on_custom_event') events.push(event);
      if (event.event === 'on_parser_stream') outputs.push(event.data.chunk);
    }
    expect(events.map((event) => [event.name, (event.data as Diagnostic).reason])).toEqual([
      ['llmjson_diagnostic', 'prose'],
      ['llmjson_diagnostic', 'schema'],
      ['llmjson_diagnostic', 'syntax'],
    ]);
    expect(outputs).toEqual(VALID.map((value) => [value]));
  });

  test('invoke returns every valid object; a chain ending in the parser too', async () => {
    const diagnostics: Diagnostic[] = [];
    const parser = new JsonlOutputParser({ schema: Fact, onDiagnostic: (d) => diagnostics.push(d) });
    expect(await parser.invoke(ANSWER)).toEqual(VALID);
    expect(diagnostics).toHaveLength(3);
    const prompt = ChatPromptTemplate.fromTemplate('Facts about {topic}, as JSONL.');
    expect(
      await prompt
        .pipe(new FakeListChatModel({ responses: [ANSWER] }))
        .pipe(parser)
        .invoke({ topic: 'x' }),
    ).toEqual(VALID);
    expect(parser.getFormatInstructions()).toContain('one JSON object per line');
  });

  test('options are checked by name', () => {
    expect(() => new JsonlOutputParser({ maxLineLenght: 10 } as never)).toThrow(/maxLineLength/);
  });
});
