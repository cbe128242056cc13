/**
 * Salvage hardening: the trailing-comma recovery (a fenced answer whose object ends with
 * `,\n}` must be that object, never the first array inside it) and the depth guard (a value
 * nested deeper than `maxDepth` is a `too-deep` diagnostic, never a value that crashes
 * whoever prints it). Every case runs through the one-shot `extractAllJson`, the core scanner
 * whole, at every chunk size 1..64 and under arbitrary split points, and the Node and Web
 * salvage streams fed UTF-8 bytes; all must agree.
 */
import { test as fcTest } from '@fast-check/vitest';
import {
  ConfigurationError,
  createSalvageScanner,
  type Diagnostic,
  extractAllJson,
  extractJson,
  type JsonSchema,
  type SalvagedValue,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';
import { chunkBytes, everyChunkSize, numRuns, splitAt, splitPoints, utf8 } from '../support/chunking.js';
import {
  type Salvaged,
  type SalvageRunOptions,
  salvageChunks,
  salvageOneShot,
  salvageStreamChunks,
} from '../support/salvage.js';
import { webSalvageChunks } from '../support/web.js';

/** The answer of the bug report: a fenced object whose last member is followed by `,\n`. */
const TRAILING_COMMA_ANSWER = 'Here you go:\n```json\n{"title": "x", "tags": ["a", "b"],\n}\n```\n';

/** One-shot result, checked to be what the scanner gives at every chunk size 1..64. */
function salvage(text: string, options: SalvageRunOptions = {}): Salvaged {
  const reference = salvageOneShot(text, options);
  for (const [label, chunks] of everyChunkSize(text)) {
    const run = salvageChunks(chunks, options);
    expect(run.values, label).toEqual(reference.values);
    expect(run.diagnostics, label).toEqual(reference.diagnostics);
  }
  for (const v of reference.values) expect(() => JSON.stringify(v.value)).not.toThrow();
  return reference;
}

/** The Node and Web streams, fed the text's UTF-8 bytes in small chunks, give the one-shot result. */
async function expectStreamsAgree(text: string, options: SalvageRunOptions = {}): Promise<void> {
  const reference = salvageOneShot(text, options);
  const bytes = utf8.encode(text);
  for (const size of [1, 3, 7, 64]) {
    const node = await salvageStreamChunks(chunkBytes(bytes, size), options);
    expect(node.values, `Node, ${size}-byte chunks`).toEqual(reference.values);
    expect(node.diagnostics, `Node, ${size}-byte chunks`).toEqual(reference.diagnostics);
    const web = await webSalvageChunks(chunkBytes(bytes, size), options);
    expect(web.values, `Web, ${size}-byte chunks`).toEqual(reference.values);
    expect(web.diagnostics, `Web, ${size}-byte chunks`).toEqual(reference.diagnostics);
  }
}

const reasons = (run: Salvaged) => run.diagnostics.map((d) => d.reason);
const brief = (values: readonly SalvagedValue[]) => values.map((v) => [v.source, v.value]);

describe('trailing comma recovery', () => {
  test('fenced-object-with-trailing-comma: the object, recovered and reported, never its inner array', async () => {
    const run = salvage(TRAILING_COMMA_ANSWER);
    const start = TRAILING_COMMA_ANSWER.indexOf('{');
    const end = TRAILING_COMMA_ANSWER.indexOf('}') + 1;
    expect(run.values).toEqual([
      { value: { title: 'x', tags: ['a', 'b'] }, source: 'fence', start, end, fence: 'json', recovered: true },
    ]);
    expect(run.diagnostics).toEqual([
      {
        reason: 'recovered',
        offset: TRAILING_COMMA_ANSWER.indexOf('],') + 1,
        excerpt: expect.any(String),
        message: expect.stringContaining('trailing comma'),
      },
    ]);
    await expectStreamsAgree(TRAILING_COMMA_ANSWER);
  });

  fcTest.prop([splitPoints(TRAILING_COMMA_ANSWER.length)], { numRuns })(
    'fenced-object-with-trailing-comma: any split (empty chunks included) gives the one-shot result',
    (points) => {
      const whole = salvageOneShot(TRAILING_COMMA_ANSWER);
      const run = salvageChunks(splitAt(TRAILING_COMMA_ANSWER, points));
      expect(run.values).toEqual(whole.values);
      expect(run.diagnostics).toEqual(whole.diagnostics);
    },
  );

  test('fenced-object-with-trailing-comma: extractJson returns the object, marked recovered', () => {
    const diagnostics: Diagnostic[] = [];
    const found = extractJson(TRAILING_COMMA_ANSWER, { onDiagnostic: (d) => diagnostics.push(d) });
    expect(found).toMatchObject({ value: { title: 'x', tags: ['a', 'b'] }, source: 'fence', recovered: true });
    expect(found?.repaired).toBeUndefined();
    expect(diagnostics.map((d) => d.reason)).toEqual(['recovered']);
    // The same with repair asked for: the scanner's recovery comes first, repair is not needed.
    expect(extractJson(TRAILING_COMMA_ANSWER, { repair: true })).toEqual(found);
  });

  test('strict: true turns recovery off (values are exactly what JSON.parse accepts)', () => {
    const run = salvage(TRAILING_COMMA_ANSWER, { strict: true });
    expect(brief(run.values)).toEqual([['fence', ['a', 'b']]]);
    expect(reasons(run)).toEqual([]);
    expect(brief(salvage('{"a": 1,}', { strict: true }).values)).toEqual([]);
    expect(brief(salvage('{"a": 1},', { strict: true }).values)).toEqual([['embedded', { a: 1 }]]);
  });

  test('the whole text with a trailing comma, inside or after the value, is the document', () => {
    expect(salvage('{"a": 1,}').values).toEqual([
      { value: { a: 1 }, source: 'document', start: 0, end: 9, recovered: true },
    ]);
    expect(salvage(' [1, [2, 3,],]\n').values).toEqual([
      { value: [1, [2, 3]], source: 'document', start: 1, end: 14, recovered: true },
    ]);
    const after = salvage('{"a": 1},\n');
    expect(after.values).toEqual([{ value: { a: 1 }, source: 'document', start: 0, end: 8, recovered: true }]);
    expect(after.diagnostics).toMatchObject([{ reason: 'recovered', offset: 8 }]);
    const both = salvage('{"a": [1,]},');
    expect(both.values).toMatchObject([{ value: { a: [1] }, source: 'document', recovered: true }]);
    expect(reasons(both)).toEqual(['recovered']);
    // More than one comma, or anything else after it, and the value is embedded as written.
    expect(salvage('{"a": 1},,').values).toEqual([{ value: { a: 1 }, source: 'embedded', start: 0, end: 8 }]);
    expect(salvage('{"a": 1}, ok').values).toEqual([{ value: { a: 1 }, source: 'embedded', start: 0, end: 8 }]);
    expect(reasons(salvage('{"a": 1}, {"b": 2}'))).toEqual([]);
  });

  test('one note per value, at its first dropped comma; commas in strings are text', () => {
    const text = 'Result: {"a": [1, 2,], "b": {"c": "x,]",},} done';
    const run = salvage(text);
    expect(brief(run.values)).toEqual([['embedded', { a: [1, 2], b: { c: 'x,]' } }]]);
    expect(run.values[0]?.recovered).toBe(true);
    expect(run.diagnostics).toMatchObject([
      { reason: 'recovered', offset: text.indexOf('2,') + 1, message: expect.stringContaining('3 trailing commas') },
    ]);
  });

  test('only a comma after a value is trailing: empty members and doubled commas are not JSON', () => {
    for (const text of ['[,]', '{,}', '[1,,]', '{"a":,}', '{"a" ,}', '[1.,]', '[tru,]', 'x [, 1] y']) {
      const run = salvage(text);
      expect(run.values, text).toEqual([]);
      expect(reasons(run), text).not.toContain('recovered');
    }
  });

  test('a recovered value nested in a failed candidate is still found, and reported', () => {
    const text = 'Got {"a": [1, 2,], "b": {"c": 3}, oops} back';
    const run = salvage(text);
    expect(run.values).toEqual([
      { value: [1, 2], source: 'embedded', start: 10, end: 17, recovered: true },
      { value: { c: 3 }, source: 'embedded', start: 24, end: 32 },
    ]);
    expect(reasons(run)).toEqual(['recovered']);
  });

  test('a recovered value the schema rejects is a schema diagnostic, not a value', () => {
    const schema: JsonSchema = { type: 'object', required: ['name'] };
    const run = salvage('```json\n{"id": 1,}\n```\n then {"name": "x",}', { schema, compileJsonSchema: compileSchema });
    expect(brief(run.values)).toEqual([['embedded', { name: 'x' }]]);
    expect(reasons(run)).toEqual(['schema', 'recovered']);
  });

  test('truncation yields a prefix: every cut of the answer gives a prefix of its values', () => {
    const text = `${TRAILING_COMMA_ANSWER}and {"k": [1,],} then [2]`;
    const whole = salvageOneShot(text).values;
    for (let cut = 0; cut <= text.length; cut++) {
      const values = salvageOneShot(text.slice(0, cut)).values;
      if (values.length === 1 && values[0]?.source === 'document') continue;
      expect(values.length, `cut at ${cut}`).toBeLessThanOrEqual(whole.length);
      values.forEach((v, i) => {
        expect(v.value, `cut at ${cut}`).toEqual(whole[i]?.value);
        expect(v.start, `cut at ${cut}`).toBe(whole[i]?.start);
      });
    }
  });

  test('linear work: one value with 20,000 trailing commas, each candidate rescanned at most once', () => {
    const text = `[${'[1,],'.repeat(20_000)}] then {"end": true}`;
    for (const chunks of [[text], splitAt(text, [1, 7, 1000, 60_001])]) {
      const run = salvageChunks(chunks);
      expect(run.values.map((v) => v.source)).toEqual(['embedded', 'embedded']);
      expect(run.values[0]?.value).toHaveLength(20_000);
      expect(run.values[1]?.value).toEqual({ end: true });
      expect(run.diagnostics).toMatchObject([{ reason: 'recovered', message: expect.stringContaining('20001') }]);
      expect(run.stats).toMatchObject({ characters: text.length, candidates: 2 });
    }
  });
});

describe('depth guard', () => {
  const deepArray = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  test('prose-with-closed-deep-array: a too-deep diagnostic at the bracket past maxDepth; values around are found', async () => {
    const text = `First {"before": 1}, then ${deepArray(3000)} and {"after": 2} [3]`;
    const run = salvage(text);
    expect(brief(run.values)).toEqual([
      ['embedded', { before: 1 }],
      ['embedded', { after: 2 }],
      ['embedded', [3]],
    ]);
    const start = text.indexOf('[');
    expect(run.diagnostics).toEqual([
      {
        reason: 'too-deep',
        offset: start + 512,
        excerpt: expect.stringContaining('[[['),
        message: 'value nested deeper than maxDepth (512 levels); the value was dropped',
      },
    ]);
    await expectStreamsAgree(text);
  });

  test('fenced-deep-array: reported once, nothing nested in it is a value, no syntax note for the fence', async () => {
    const text = `Here:\n\`\`\`json\n${deepArray(3000)}\n\`\`\`\nDone: {"ok": true}`;
    const run = salvage(text);
    expect(brief(run.values)).toEqual([['embedded', { ok: true }]]);
    expect(reasons(run)).toEqual(['too-deep']);
    expect(extractJson(text)?.value).toEqual({ ok: true });
    await expectStreamsAgree(text);
  });

  test('a too-deep whole text is no document and yields nothing', () => {
    for (const text of [deepArray(3000), deepObject(3000), `\`\`\`\n${deepObject(1000)}\n\`\`\``]) {
      const run = salvage(text);
      expect(run.values).toEqual([]);
      expect(reasons(run)).toEqual(['too-deep']);
      expect(extractJson(text)).toBeUndefined();
    }
  });

  test('maxDepth levels are accepted, one more is not; the option is checked', () => {
    expect(brief(salvage(deepArray(512)).values)).toHaveLength(1);
    expect(reasons(salvage(deepArray(513)))).toEqual(['too-deep']);
    expect(brief(salvage('x [[1]] y [[[1]]] z {"a": {"b": {}}}', { maxDepth: 2 }).values)).toEqual([
      ['embedded', [[1]]],
    ]);
    expect(reasons(salvage('x [[[1]]] y', { maxDepth: 2 }))).toEqual(['too-deep']);
    for (const maxDepth of [0, -1, 1.5, Number.NaN]) {
      expect(() => createSalvageScanner({ maxDepth }, { value() {}, diagnostic() {} }), String(maxDepth)).toThrow(
        ConfigurationError,
      );
      expect(() => extractAllJson('[]', { maxDepth })).toThrow(/maxDepth must be a positive integer/);
    }
  });

  test('a too-deep value cut off by the end of input is only truncated', () => {
    expect(reasons(salvage(`Answer: ${'['.repeat(3000)}1`))).toEqual(['truncated']);
  });

  test('recursive schema and a 10,000-deep answer: the guard comes before validation, nothing throws', () => {
    const tree: JsonSchema = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
    };
    const list: JsonSchema = { type: 'array', items: { $ref: '#' } };
    const deepTree = `${'{"children":['.repeat(10_000)}{}${']}'.repeat(10_000)}`;
    for (const [schema, text] of [
      [tree, deepTree],
      [list, deepArray(10_000).replace('1', '')],
      [tree, `Sure:\n\`\`\`json\n${deepTree}\n\`\`\`\nand {"name": "leaf"}`],
    ] as const) {
      const run = salvage(text, { schema, compileJsonSchema: compileSchema });
      expect(reasons(run)).toContain('too-deep');
      expect(reasons(run)).not.toContain('schema');
      expect(() => extractJson(text, { schema, compileJsonSchema: compileSchema })).not.toThrow();
      expect(() => extractJson(text, { schema, compileJsonSchema: compileSchema, repair: true })).not.toThrow();
    }
  });
});
