import { test as fcTest } from '@fast-check/vitest';
import {
  ConfigurationError,
  createElementScanner,
  type Diagnostic,
  type ElementOptions,
  type ElementRecord,
  extractElements,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { JsonScanner, SCAN_ERROR, type ScanEvents } from '@llmjson/core/internal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonValueText } from '../../../test/support/arbitraries.js';
import { everyChunkSize, numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';

function run(chunks: readonly string[], options: ElementOptions = {}) {
  const records: ElementRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  const scanner = createElementScanner(options, {
    value: (r) => records.push(r),
    diagnostic: (d) => diagnostics.push(d),
  });
  for (const chunk of chunks) scanner.write(chunk);
  scanner.end();
  return { values: records.map((r) => r.value), records, diagnostics };
}

/** Whole and at every chunk size 1..64; asserts they agree and that offsets slice the element JSON. */
function elements(text: string, options: ElementOptions = {}) {
  const whole = run([text], options);
  for (const [label, chunks] of everyChunkSize(text)) expect(run(chunks, options), label).toEqual(whole);
  expect(extractElements(text, options)).toEqual(whole);
  for (const r of whole.records) expect(JSON.parse(text.slice(r.start, r.end))).toEqual(r.value);
  return whole;
}

/**
 * The element scanner's semantics for the top-level array, written the plain way: the checking
 * scanner reads every character of the whole text, elements are cut at its value events, and the
 * first problem in text order is reported (a syntax error or nesting past maxDepth at its index;
 * `too-long` once an element passes maxElementLength characters; `truncated` at the end). The
 * element scanner skims elements instead and must be indistinguishable from this.
 */
function reference(text: string, maxDepth: number, maxElementLength: number) {
  const values: unknown[] = [];
  const problems: [reason: string, offset: number, message?: string][] = [];
  const first = text.search(/[[{]/);
  if (first < 0) return { values, problems: [['truncated', text.length]] };
  let start = -1;
  let stopped = false;
  const events: ScanEvents = {
    valueStart(depth, at) {
      if (depth === 1 && !stopped) start = at;
    },
    valueEnd(depth, end) {
      if (depth !== 1 || stopped || start < 0) return;
      if (end - start > maxElementLength) {
        problems.push(['too-long', start]);
        stopped = true;
        return;
      }
      values.push(JSON.parse(text.slice(start, end)));
      start = -1;
    },
    key() {},
  };
  const scanner = new JsonScanner({ maxDepth, events, eventDepth: 1 });
  const end = scanner.scan(text.slice(first), 0, first);
  if (stopped) return { values, problems };
  if (end === SCAN_ERROR) {
    const at = first + scanner.errorIndex;
    if (start >= 0 && at - start > maxElementLength) problems.push(['too-long', start]);
    else problems.push([scanner.depthExceeded ? 'too-deep' : 'syntax', at, scanner.errorMessage]);
  } else if (end >= 0) {
    if (text[first] !== '[') problems.push(['schema', first + end]);
  } else if (start >= 0 && text.length - start > maxElementLength) {
    problems.push(['too-long', start]);
  } else {
    problems.push(['truncated', start >= 0 ? start : text.length]);
  }
  return { values, problems };
}

/** An array of JSON values, then one edit that usually breaks it (never at its first `[`). */
const brokenArray = fc
  .tuple(
    fc.array(jsonValueText, { maxLength: 6 }),
    fc.nat(),
    fc.constantFrom('', '"', '\\', '{', '}', '[', ']', ',', ':', 'x', '\n', '\u0001', '1', ' '),
    fc.nat({ max: 2 }),
  )
  .map(([elements, at, insert, remove]) => {
    const text = `[${elements.join(', ')}]`;
    const i = 1 + (at % text.length);
    return text.slice(0, i) + insert + text.slice(i + remove);
  });

describe('element scanner', () => {
  test('each element of the top-level array, as it completes', () => {
    const r = elements('[{"a": 1}, 2, "three", [4], null, {"b": {"c": [5]}}]');
    expect(r.values).toEqual([{ a: 1 }, 2, 'three', [4], null, { b: { c: [5] } }]);
    expect(r.records.map((x) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(r.diagnostics).toEqual([]);
  });

  test('an element is delivered in the write that completes it, before the array closes', () => {
    const seen: unknown[] = [];
    const scanner = createElementScanner({}, { value: (r) => seen.push(r.value), diagnostic: () => {} });
    scanner.write('[{"a": 1}, {"b"');
    expect(seen).toEqual([{ a: 1 }]);
    scanner.write(': 2}');
    expect(seen).toEqual([{ a: 1 }, { b: 2 }]);
  });

  test('a truncated array yields its complete elements and one truncated diagnostic', () => {
    const r = elements('Here you go:\n```json\n[\n  {"id": 1},\n  {"id": 2},\n  {"id": 3, "na');
    expect(r.values).toEqual([{ id: 1 }, { id: 2 }]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
    expect(r.diagnostics[0]?.message).toMatch(/inside element 2/);
  });

  test('the array at a path of keys; other arrays are ignored', () => {
    const text = '{"meta": [9, 9], "title": "x", "items": [{"n": 1}, {"n": [2, 3]}], "after": [7]}';
    expect(elements(text, { path: '$.items' }).values).toEqual([{ n: 1 }, { n: [2, 3] }]);
    const nested = '{"data": {"rows": [1, 2], "other": [3]}, "rows": [4]}';
    expect(elements(nested, { path: '$.data.rows' }).values).toEqual([1, 2]);
  });

  test('elements are validated against the items schema at the path, with dispatch', () => {
    const schema = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            oneOf: [
              { type: 'object', properties: { type: { const: 'a' }, n: { type: 'integer' } }, required: ['type', 'n'] },
              { type: 'object', properties: { type: { const: 'b' } }, required: ['type'] },
            ],
          },
        },
      },
    };
    const r = elements('{"items": [{"type": "a", "n": 1}, {"type": "a", "n": "x"}, {"type": "b"}]}', {
      path: '$.items',
      schema,
      compileJsonSchema: compileSchema,
    });
    expect(r.values).toEqual([{ type: 'a', n: 1 }, { type: 'b' }]);
    expect(r.records.map((x) => [x.index, x.branch])).toEqual([
      [0, 'a'],
      [2, 'b'],
    ]);
    expect(r.diagnostics).toMatchObject([
      { reason: 'schema', branch: 'a', message: 'element 1: branch "a": at /n: must be integer' },
    ]);
  });

  test('a syntax error stops the scan; the elements before it stand', () => {
    const r = elements('[1, 2, oops, 3]');
    expect(r.values).toEqual([1, 2]);
    expect(r.diagnostics.map((d) => [d.reason, d.offset])).toEqual([['syntax', 7]]);
  });

  test('an empty array is an array: no elements and no diagnostic', () => {
    expect(elements('[]')).toMatchObject({ values: [], diagnostics: [] });
    expect(elements('{"items": [ ], "n": 1}', { path: '$.items' })).toMatchObject({ values: [], diagnostics: [] });
    expect(elements('{"other": [], "items": 2}', { path: '$.items' }).diagnostics.map((d) => d.reason)).toEqual([
      'schema',
    ]);
  });

  test('no array where the path says', () => {
    expect(elements('{"a": 1}').diagnostics.map((d) => d.reason)).toEqual(['schema']);
    expect(elements('no json here').diagnostics.map((d) => d.reason)).toEqual(['truncated']);
    expect(elements('{"items": 3}', { path: '$.items' }).diagnostics.map((d) => d.reason)).toEqual(['schema']);
  });

  test('a too-long element stops the scan', () => {
    const r = elements(`[1, "${'x'.repeat(100)}", 3]`, { maxElementLength: 50 });
    expect(r.values).toEqual([1]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['too-long']);
  });

  test('nesting deeper than maxDepth stops the scan with too-deep, never a stack overflow', () => {
    const deep = `[1, ${'['.repeat(600)}${']'.repeat(600)}, 3]`;
    const r = elements(deep);
    expect(r.values).toEqual([1]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['too-deep']);
    expect(r.diagnostics[0]?.message).toMatch(/maxDepth \(512\)/);
    expect(elements(deep, { maxDepth: 1000 }).values).toHaveLength(3);
    expect(elements(`[${'['.repeat(200_000)}`, { maxDepth: 1_000_000 }).diagnostics.map((d) => d.reason)).toEqual([
      'truncated',
    ]);
  });

  test('configuration errors', () => {
    expect(() => createElementScanner({ path: 'items' }, { value() {}, diagnostic() {} })).toThrow(ConfigurationError);
    expect(() =>
      createElementScanner(
        { path: '$.a', schema: { type: 'object' }, compileJsonSchema: compileSchema },
        { value() {}, diagnostic() {} },
      ),
    ).toThrow(/no "properties" entry for "a"/);
  });

  fcTest.prop([fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 })], { numRuns })(
    'elements equal JSON.parse of the whole array under any chunking, and a cut yields a prefix',
    (array) => {
      const text = JSON.stringify(array, null, 1);
      const expected = JSON.parse(text) as unknown[];
      const whole = run([text]);
      expect(whole.values).toEqual(expected);
      fc.assert(
        fc.property(splitPoints(text.length), fc.nat({ max: text.length }), (points, cut) => {
          expect(run(splitAt(text, points))).toEqual(whole);
          const cutValues = run([text.slice(0, cut)]).values;
          expect(cutValues).toEqual(expected.slice(0, cutValues.length));
        }),
        { numRuns: 10 },
      );
    },
  );

  fcTest.prop(
    [
      brokenArray,
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 400 }),
      fc.array(fc.nat(), { maxLength: 12 }),
    ],
    { numRuns },
  )(
    'skimming elements is indistinguishable from checking every character: values, and the first problem with its offset and message, under any chunking',
    (text, maxDepth, maxElementLength, points) => {
      const expected = reference(text, maxDepth, maxElementLength);
      for (const chunks of [
        [text],
        splitAt(
          text,
          points.map((p) => p % (text.length + 1)),
        ),
      ]) {
        const r = run(chunks, { maxDepth, maxElementLength });
        expect(r.values).toEqual(expected.values);
        expect(
          r.diagnostics.map((d, i) =>
            expected.problems[i]?.[2] === undefined ? [d.reason, d.offset] : [d.reason, d.offset, d.message],
          ),
        ).toEqual(
          expected.problems.map(([reason, offset, message]) =>
            message === undefined
              ? [reason, offset]
              : [reason, offset, expect.stringContaining(`at offset ${offset}: ${message};`)],
          ),
        );
      }
    },
  );
});

describe('skimming strings in long texts (the native search for quotes)', () => {
  /** Elements whose strings end in runs of backslashes of every length, padded past 64 characters. */
  const pad = 'x'.repeat(70);
  const strings = [0, 1, 2, 3, 4, 5].flatMap((n) => [
    `${pad}${'\\'.repeat(n)}`,
    `${'\\'.repeat(n)}"${pad}`,
    `${pad}${'\\'.repeat(n)}"${'\\'.repeat(n)}`,
  ]);
  const items = strings.map((s, i) => ({ i, s, nested: [{ t: s }, '}]"[{'] }));
  const text = JSON.stringify({ items, after: '"]' });

  function elements(chunks: readonly string[]): unknown[] {
    const values: unknown[] = [];
    const scanner = createElementScanner(
      { path: '$.items' },
      { value: (record) => values.push(record.value), diagnostic: (d) => values.push(d.reason) },
    );
    for (const chunk of chunks) scanner.write(chunk);
    scanner.end();
    return values;
  }

  test('every run of backslashes before a quote, cut anywhere, at chunk sizes that take the search', () => {
    expect(elements([text])).toEqual(items);
    for (const size of [63, 64, 65, 66, 67, 70, 71, 72, 73, 97, 128, 200, 1000]) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      expect(elements(chunks), `size ${size}`).toEqual(items);
    }
  });

  fcTest.prop(
    [
      fc.array(fc.string({ unit: fc.constantFrom('\\', '"', 'a', 'é', '}', ']', '{', '\n'), maxLength: 200 }), {
        minLength: 1,
        maxLength: 8,
      }),
      fc.array(fc.nat(), { maxLength: 12 }),
    ],
    { numRuns },
  )('strings of quotes, backslashes and brackets: the elements JSON.parse gives, however cut', (values, cuts) => {
    const array = values.map((s) => ({ s, t: [s] }));
    const document = JSON.stringify({ items: array });
    const points = [...new Set(cuts.map((c) => c % (document.length + 1)))].sort((a, b) => a - b);
    const chunks: string[] = [];
    let at = 0;
    for (const point of points) {
      chunks.push(document.slice(at, point));
      at = point;
    }
    chunks.push(document.slice(at));
    expect(elements(chunks)).toEqual(array);
  });
});
