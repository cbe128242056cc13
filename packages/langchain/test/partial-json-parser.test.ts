/**
 * PartialJsonOutputParser in LangChain chains (prompt → FakeStreamingChatModel → parser):
 * partial values in order under any chunking, ending with JSON.parse of the answer; change lists
 * and RFC 6902 patches that rebuild it (applied with llmjson's applyChanges and with LangChain's
 * own applyPatch); structural sharing; fences and prose; schema violations as
 * OutputParserExceptions carrying llmjson's diagnostic (zod, valibot, arktype, JSON Schema);
 * the diagnostics' custom event; `invoke`; and linear work, counted in characters read.
 */

import { test as fcTest } from '@fast-check/vitest';
import type { BaseMessage } from '@langchain/core/messages';
import { JsonOutputParser, OutputParserException } from '@langchain/core/output_parsers';
import type { ChatGeneration, Generation } from '@langchain/core/outputs';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { applyPatch, type Operation } from '@langchain/core/utils/json_patch';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { withCoercion } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { applyChanges, type Change, LlmjsonOutputParserException, PartialJsonOutputParser } from '@llmjson/langchain';
import { type } from 'arktype';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chain, growsInto, rejection, streamed } from './helpers.js';

const ANSWER =
  '{"title": "Planets \\"inner\\" — ☀️", "meta": {"source": "NASA", "year": 2024}, ' +
  '"planets": [{"name": "Mercury", "moons": 0, "rocky": true}, {"name": "Venus", "moons": 0, "rocky": true}, ' +
  '{"name": "Earth", "moons": 1, "rocky": true, "note": null}], "done": false}';
const VALUE = JSON.parse(ANSWER);
const numRuns = process.env.CI ? 200 : 60;

const planets = z.object({
  title: z.string(),
  meta: z.object({ source: z.string(), year: z.number() }),
  planets: z.array(
    z.object({ name: z.string(), moons: z.number().int(), rocky: z.boolean(), note: z.null().optional() }),
  ),
  done: z.boolean(),
});

/** Split points of the answer, as the fake model's chunks (empty chunks included). */
const splits = fc.array(fc.integer({ min: 0, max: ANSWER.length }), { maxLength: 40 });
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

describe('PartialJsonOutputParser: values', () => {
  test('prompt.pipe(model).pipe(parser).stream() yields growing partials, ending with JSON.parse of the answer', async () => {
    const values = await streamed(
      chain(splitAnswer(ANSWER, [5, 20, 40, 41, 60, 100, 150, 200]), new PartialJsonOutputParser()),
    );
    expect(values.length).toBeGreaterThan(5);
    expect(values.at(-1)).toEqual(VALUE);
    for (const value of values) expect(growsInto(value, VALUE), JSON.stringify(value)).toBe(true);
    for (let i = 1; i < values.length; i++) expect(values[i]).not.toBe(values[i - 1]);
  });

  fcTest.prop([splits], { numRuns })('any chunking: partials in order, the last equals JSON.parse', async (points) => {
    const values = await streamed(chain(splitAnswer(ANSWER, points), new PartialJsonOutputParser({ schema: planets })));
    expect(values.at(-1)).toEqual(VALUE);
    for (let i = 0; i < values.length; i++) {
      expect(growsInto(values[i], VALUE)).toBe(true);
      if (i > 0) expect(growsInto(values[i - 1], values[i])).toBe(true);
    }
  });

  test('structural sharing: a subtree that closed is the same object in every later value', async () => {
    const chunks = splitAnswer(
      ANSWER,
      Array.from({ length: 30 }, (_, i) => i * 8),
    );
    const values = (await streamed(chain(chunks, new PartialJsonOutputParser({ schema: planets })))) as {
      meta?: unknown;
      planets?: unknown[];
    }[];
    const closed = values.findIndex((value) => JSON.stringify(value.meta) === JSON.stringify(VALUE.meta));
    expect(closed).toBeGreaterThan(0);
    for (const value of values.slice(closed)) expect(value.meta).toBe(values[closed]?.meta);
    const last = values.at(-1)?.planets;
    const firstPlanetDone = values.findIndex((value) => (value.planets?.length ?? 0) >= 2);
    for (const value of values.slice(firstPlanetDone)) expect(value.planets?.[0]).toBe(last?.[0]);
  });

  test.each([
    ['```json', '```json\n'],
    ['```JSON (which LangChain misses)', '```JSON\n'],
    ['```jsonl', '```jsonl\n'],
    ['a bare fence', '```\n'],
  ])('a %s fence with prose around it', async (_, opener) => {
    const text = `Sure! Here is the answer:\n\n${opener}${ANSWER}\n\`\`\`\nHope this helps.`;
    const values = await streamed(chain(splitAnswer(text, [3, 30, 31, 90, 200]), new PartialJsonOutputParser()));
    expect(values.at(-1)).toEqual(VALUE);
    expect(await new PartialJsonOutputParser().invoke(text)).toEqual(VALUE);
  });

  test('a message whose content is a list of text blocks is read by its text', async () => {
    const parser = new PartialJsonOutputParser();
    const { AIMessage } = await import('@langchain/core/messages');
    const message = new AIMessage({
      content: [
        { type: 'text', text: '{"a": [1, ' },
        { type: 'text', text: '2]}' },
      ],
    });
    expect(await parser.invoke(message)).toEqual({ a: [1, 2] });
  });
});

describe('PartialJsonOutputParser: changes and patches', () => {
  fcTest.prop([splits], { numRuns })(
    "emit: 'changes': the lists, applied in order, rebuild the answer; invoke gives one list that does too",
    async (points) => {
      const lists = await streamed(
        chain(splitAnswer(ANSWER, points), new PartialJsonOutputParser({ emit: 'changes' })),
      );
      let state: unknown;
      for (const list of lists) state = applyChanges(state, list);
      expect(state).toEqual(VALUE);
      const whole = await new PartialJsonOutputParser({ emit: 'changes' }).invoke(ANSWER);
      expect(applyChanges(undefined, whole)).toEqual(VALUE);
    },
  );

  fcTest.prop([splits], { numRuns })(
    "emit: 'patch': RFC 6902 operations, applied with LangChain's applyPatch, rebuild the answer",
    async (points) => {
      const patches = await streamed(
        chain(splitAnswer(ANSWER, points), new PartialJsonOutputParser({ emit: 'patch' })),
      );
      let document: unknown = {};
      for (const operations of patches) {
        expect(operations.length).toBeGreaterThan(0);
        document = applyPatch(document, operations as Operation[]).newDocument;
      }
      expect(document).toEqual(VALUE);
      const whole = await new PartialJsonOutputParser({ emit: 'patch' }).invoke(ANSWER);
      expect(applyPatch({}, whole as Operation[]).newDocument).toEqual(VALUE);
    },
  );

  test("emit: 'patch' sends the change, not the whole object: no operation of a later chunk restates a closed subtree", async () => {
    const chunks = splitAnswer(
      ANSWER,
      Array.from({ length: 60 }, (_, i) => i * 4),
    );
    const patches = await streamed(chain(chunks, new PartialJsonOutputParser({ emit: 'patch' })));
    const operations = patches.flat();
    // Every operation is an add or a replace of one path; the root is added once, empty.
    expect(operations.filter((op) => op.path === '')).toEqual([{ op: 'add', path: '', value: {} }]);
    expect(operations.every((op) => op.op === 'add' || op.op === 'replace')).toBe(true);
    // Only strings are replaced (a string that grew): a closed object or array never comes again.
    for (const op of operations) if (op.op === 'replace') expect(typeof op.value).toBe('string');
  });
});

describe('PartialJsonOutputParser: schemas', () => {
  const wrongType = '{"title": "Planets", "meta": {"source": "NASA", "year": "2024"}, "planets": [], "done": false}';

  test.each([
    ['zod', () => planets],
    [
      'valibot',
      () =>
        v.object({
          title: v.string(),
          meta: v.object({ source: v.string(), year: v.number() }),
          planets: v.array(v.unknown()),
          done: v.boolean(),
        }),
    ],
    [
      'arktype',
      () =>
        type({ title: 'string', meta: { source: 'string', year: 'number' }, planets: 'unknown[]', done: 'boolean' }),
    ],
  ])(
    '%s: a value of the wrong type ends the stream with an OutputParserException carrying the diagnostic',
    async (_, schema) => {
      const seen: unknown[] = [];
      const parser = new PartialJsonOutputParser({ schema: schema() });
      const error = await rejection(async () => {
        for await (const value of await chain(splitAnswer(wrongType, [10, 50, 60, 70]), parser).stream({
          topic: 'x',
        })) {
          seen.push(value);
        }
      });
      expect(error).toBeInstanceOf(OutputParserException);
      expect(error).toBeInstanceOf(LlmjsonOutputParserException);
      const { diagnostic, message, llmOutput } = error as LlmjsonOutputParserException;
      expect(['violation', 'schema']).toContain(diagnostic.reason);
      expect(message).toContain(diagnostic.message);
      expect(message).toContain('/meta/year');
      expect(llmOutput).toBe(wrongType.slice(0, llmOutput?.length));
      // The partial values before the violation came out.
      expect(seen.length).toBeGreaterThan(0);
    },
  );

  test('zod: the violation is reported while the answer streams, and the model stream is closed there', async () => {
    const tail = Array.from({ length: 200 }, (_, i) => `{"name": "P${i}", "moons": ${i}, "rocky": false}`).join(', ');
    const answer = `{"title": "T", "meta": {"source": "S", "year": "soon"}, "planets": [${tail}], "done": true}`;
    const chunks = splitAnswer(
      answer,
      Array.from({ length: Math.ceil(answer.length / 16) }, (_, i) => i * 16),
    );
    let tokens = 0;
    const error = await rejection(async () => {
      const stream = await chain(chunks, new PartialJsonOutputParser({ schema: planets })).stream(
        { topic: 'x' },
        { callbacks: [{ handleLLMNewToken: () => void tokens++ }] },
      );
      for await (const _ of stream) {
      }
    });
    expect((error as LlmjsonOutputParserException).diagnostic).toMatchObject({
      reason: 'violation',
      path: '/meta/year',
    });
    expect(tokens).toBeLessThan(chunks.length / 4);
  });

  test('the complete document is validated at the end (a missing required key)', async () => {
    const answer = '{"title": "T", "meta": {"source": "S", "year": 1}, "planets": []}';
    const error = await rejection(() =>
      streamed(chain([answer.slice(0, 20), answer.slice(20)], new PartialJsonOutputParser({ schema: planets }))),
    );
    expect((error as LlmjsonOutputParserException).diagnostic.reason).toBe('schema');
    expect((error as Error).message).toContain('done');
    await expect(new PartialJsonOutputParser({ schema: planets }).invoke(answer)).rejects.toBeInstanceOf(
      LlmjsonOutputParserException,
    );
  });

  test('a JSON Schema, with the ajv compiler', async () => {
    const schema = {
      type: 'object',
      properties: { year: { type: 'integer' } },
      required: ['year'],
      additionalProperties: false,
    } as const;
    const parser = new PartialJsonOutputParser({ schema, compileJsonSchema: compileSchema });
    expect(await parser.invoke('{"year": 2024}')).toEqual({ year: 2024 });
    const error = await rejection(() => streamed(chain(['{"year": 2024, "extra', '": 1}'], parser)));
    expect((error as LlmjsonOutputParserException).diagnostic).toMatchObject({ reason: 'violation' });
    expect(parser.getFormatInstructions()).toContain('"additionalProperties":false');
  });

  test('a cut-off answer ends with the exception after its partial values; so does an answer with no JSON', async () => {
    const seen: unknown[] = [];
    const error = await rejection(async () => {
      for await (const value of await chain([ANSWER.slice(0, 70)], new PartialJsonOutputParser()).stream({
        topic: 'x',
      })) {
        seen.push(value);
      }
    });
    expect((error as LlmjsonOutputParserException).diagnostic.reason).toBe('truncated');
    expect(seen.length).toBe(1);
    await expect(new PartialJsonOutputParser().invoke('I cannot answer that.')).rejects.toThrow(
      /no complete JSON document|truncated/,
    );
  });

  test('options are checked by name, with a suggestion', () => {
    expect(() => new PartialJsonOutputParser({ emmit: 'values' } as never)).toThrow(/emit/);
    expect(() => new PartialJsonOutputParser({ emit: 'diff' } as never)).toThrow(/'values', 'changes' or 'patch'/);
  });
});

describe('PartialJsonOutputParser: diagnostics and invoke', () => {
  test('diagnostics reach onDiagnostic and streamEvents as the custom event llmjson_diagnostic', async () => {
    const seen: unknown[] = [];
    const parser = new PartialJsonOutputParser({
      schema: planets,
      coerce: true,
      coerceWith: withCoercion,
      onDiagnostic: (d) => seen.push(d),
    });
    const answer = ANSWER.replace('"moons": 1', '"moons": "1"');
    const events: { event: string; name: string; data: unknown }[] = [];
    for await (const event of chain([answer], parser).streamEvents({ topic: 'x' }, { version: 'v2' })) {
      if (event.event === 'on_custom_event') events.push(event);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(events.map((event) => event.name)).toEqual(seen.map(() => 'llmjson_diagnostic'));
    expect(events.map((event) => event.data)).toEqual(seen);
  });

  test('invoke: the parser alone and at the end of a chain give JSON.parse of the answer', async () => {
    const parser = new PartialJsonOutputParser({ schema: planets });
    expect(await parser.invoke(ANSWER)).toEqual(VALUE);
    // FakeStreamingChatModel answers invoke with the prompt: FakeListChatModel answers with its response.
    const prompt = ChatPromptTemplate.fromTemplate('Answer about {topic} in JSON.');
    const model = new FakeListChatModel({ responses: [ANSWER, `\`\`\`JSON\n${ANSWER}\n\`\`\``] });
    expect(await prompt.pipe(model).pipe(parser).invoke({ topic: 'x' })).toEqual(VALUE);
    expect(await prompt.pipe(model).pipe(parser).invoke({ topic: 'x' })).toEqual(VALUE);
    // FakeListChatModel streams one character per chunk.
    expect((await streamed(prompt.pipe(new FakeListChatModel({ responses: [ANSWER] })).pipe(parser))).at(-1)).toEqual(
      VALUE,
    );
  });
});

describe('PartialJsonOutputParser: linear work', () => {
  /** Counts the characters of the message chunks the parser reads. */
  class Counted extends PartialJsonOutputParser {
    read = 0;
    protected override _baseMessageToString(message: BaseMessage): string {
      const text = super._baseMessageToString(message);
      this.read += text.length;
      return text;
    }
  }
  /** LangChain's JsonOutputParser, counting the characters of each text it parses. */
  class CountedLangChain extends JsonOutputParser {
    read = 0;
    override async parsePartialResult(generations: ChatGeneration[] | Generation[]) {
      this.read += generations[0]?.text.length ?? 0;
      return super.parsePartialResult(generations);
    }
  }
  const items = Array.from({ length: 150 }, (_, i) => `{"id": ${i}, "name": "item ${i}"}`).join(', ');
  const long = `{"items": [${items}]}`;
  const tokens = splitAnswer(
    long,
    Array.from({ length: Math.ceil(long.length / 4) }, (_, i) => i * 4),
  );

  test('the parser reads each character of the answer once, in 4-character chunks (LangChain re-reads it per chunk)', async () => {
    const ours = new Counted();
    const values = await streamed(chain(tokens, ours));
    expect(values.at(-1)).toEqual(JSON.parse(long));
    expect(ours.read).toBe(long.length);

    const theirs = new CountedLangChain();
    await streamed(chain(tokens, theirs));
    // The counter sees re-reading when there is some: about n²/2 / 4 characters for LangChain.
    expect(theirs.read).toBeGreaterThan(50 * long.length);
  });

  test.each(['changes', 'patch'] as const)("emit: '%s' reads each character once too", async (emit) => {
    const ours = new Counted({ emit } as never);
    const lists = (await streamed(chain(tokens, ours))) as unknown as Change[][];
    expect(lists.length).toBeGreaterThan(100);
    expect(ours.read).toBe(long.length);
  });
});

describe('PartialJsonOutputParser: where the document starts', () => {
  const citation = `Here are the [3] planets, see {ref}:\n\`\`\`json\n${ANSWER}\n\`\`\`\nThat is all [1].`;

  fcTest.prop([fc.array(fc.integer({ min: 0, max: citation.length }), { maxLength: 30 })], { numRuns })(
    'brackets inside prose lines never start the document: a fenced answer after "[3]" and "{ref}", any chunking',
    async (points) => {
      const values = await streamed(
        chain(splitAnswer(citation, points), new PartialJsonOutputParser({ schema: planets })),
      );
      expect(values.at(-1)).toEqual(VALUE);
      for (const value of values) expect(growsInto(value, VALUE)).toBe(true);
    },
  );

  test('a line of prose, then a line that starts the document (no fence)', async () => {
    const text = `The [draft] answer:\n  ${ANSWER}\nbye`;
    expect((await streamed(chain(splitAnswer(text, [4, 5, 22, 30]), new PartialJsonOutputParser()))).at(-1)).toEqual(
      VALUE,
    );
  });

  test.each(['values', 'changes', 'patch'] as const)(
    "JSON inside a prose line is salvaged at the end, validated (emit: '%s')",
    async (emit) => {
      const text = `Sure, here it is: ${ANSWER} Anything else?`;
      const outputs = await streamed(
        chain(splitAnswer(text, [7, 30, 90]), new PartialJsonOutputParser({ schema: planets, emit })),
      );
      if (emit === 'values') expect(outputs).toEqual([VALUE]);
      if (emit === 'changes') expect(applyChanges(undefined, outputs.flat() as Change[])).toEqual(VALUE);
      if (emit === 'patch') expect(applyPatch({}, outputs.flat() as Operation[]).newDocument).toEqual(VALUE);
      expect(await new PartialJsonOutputParser({ emit }).invoke(text)).toBeDefined();
    },
  );

  test("a violation's offset is an offset of the answer, prose before the document included", async () => {
    const text = `Note [1]:\n\`\`\`json\n{"title": "T", "meta": {"source": "S", "year": "soon"}}\n\`\`\``;
    const error = await rejection(() =>
      streamed(chain([text.slice(0, 12), text.slice(12)], new PartialJsonOutputParser({ schema: planets }))),
    );
    const { offset } = (error as LlmjsonOutputParserException).diagnostic;
    expect(text.slice(offset)).toMatch(/^"soon"/);
  });
});
