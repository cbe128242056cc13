/**
 * Coercion in the partial builder (packages/core/src/engines/partial-value.ts, `coerce`): the coerced
 * document as the final snapshot, its changes, its `recovered` diagnostics, quiet subtree checks;
 * and prefix checks that never report what a turned-on coercion repairs (prefix-check.ts,
 * invariant 5) — each under every chunking.
 */
import {
  type CoercionRule,
  ConfigurationError,
  type Diagnostic,
  type JsonSchema,
  type PartialOptions,
  withCoercion,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { PrefixChecker } from '@llmjson/core/internal';
import * as web from '@llmjson/web';
import { compileSchema as compileWebSchema } from '@llmjson/web/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chunkText, everyChunkSize, numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { buildPartial, nodePartial, type PartialRun, replay, webPartial } from '../../../test/support/partial.js';

type Options = Omit<PartialOptions, 'compileJsonSchema' | 'coerceWith'>;

/** The builder with ajv and the coercion implementation, fed `chunks`. */
function run(chunks: readonly string[], options: Options): PartialRun {
  return buildPartial(chunks, { compileJsonSchema: compileSchema, coerceWith: withCoercion, ...options });
}

const of = (diagnostics: readonly Diagnostic[], reason: Diagnostic['reason']) =>
  diagnostics.filter((d) => d.reason === reason);

/** What a run must show for a document that coercion repairs: `expected`, its fixes, nothing else. */
function expectCoerced(
  result: PartialRun,
  expected: unknown,
  fixes: readonly { path: string; rule: CoercionRule }[],
  documentFrom: number,
  label: string,
): void {
  expect(result.final, label).toEqual(expected);
  expect(result.snapshots.at(-1), label).toBe(result.final);
  expect(result.complete, label).toBe(true);
  // Invariant 5: the changes, applied in order to `undefined`, reproduce the snapshot.
  expect(replay(result.changes), label).toEqual(result.final);
  // As the builder's own: a container is added empty, its members by changes of their own.
  for (const change of result.changes.flat()) {
    if (change.op === 'add' && typeof change.value === 'object' && change.value !== null) {
      expect(Object.keys(change.value), label).toEqual([]);
    }
  }
  const recovered = of(result.diagnostics, 'recovered');
  expect(
    recovered.map((d) => ({ path: d.path, rule: d.rule })),
    label,
  ).toEqual(fixes);
  for (const d of recovered) expect(d.offset, label).toBe(documentFrom);
  expect(result.stats.diagnostics.recovered, label).toBe(fixes.length);
  expect(of(result.diagnostics, 'schema'), label).toEqual([]);
  expect(of(result.diagnostics, 'violation'), label).toEqual([]);
  expect(result.diagnostics.length, label).toBe(fixes.length);
}

/** One coercion through the builder: the schema, the answer, what it becomes, the fixes. */
interface Case {
  readonly name: string;
  readonly rules: readonly CoercionRule[];
  readonly schema: JsonSchema;
  readonly text: string;
  readonly expected: unknown;
  readonly fixes: readonly { path: string; rule: CoercionRule }[];
  /** Offset where the document starts (after prose). */
  readonly from?: number;
}

const CASES: readonly Case[] = [
  {
    name: 'string-to-number',
    rules: ['string-to-number'],
    schema: { type: 'object', properties: { n: { type: 'number' }, m: { type: 'integer' } } },
    text: '{"n": "-1.5e3", "m": "7", "keep": [1, {"x": "y"}]}',
    expected: { n: -1500, m: 7, keep: [1, { x: 'y' }] },
    fixes: [
      { path: '/n', rule: 'string-to-number' },
      { path: '/m', rule: 'string-to-number' },
    ],
  },
  {
    name: 'float-to-integer',
    rules: ['string-to-number', 'float-to-integer'],
    schema: { type: 'object', properties: { i: { type: 'integer' } } },
    text: '{"i": "5.0"}',
    expected: { i: 5 },
    fixes: [{ path: '/i', rule: 'float-to-integer' }],
  },
  {
    name: 'string-to-boolean',
    rules: ['string-to-boolean'],
    schema: { type: 'object', properties: { b: { type: 'boolean' }, c: { type: 'boolean' } } },
    text: 'Sure: {"b": "false", "c": true}',
    expected: { b: false, c: true },
    fixes: [{ path: '/b', rule: 'string-to-boolean' }],
    from: 6,
  },
  {
    name: 'enum-case',
    rules: ['enum-case'],
    schema: {
      type: 'object',
      properties: { color: { enum: ['red', 'Blue'] }, kind: { const: 'Person' }, list: { items: { enum: ['a'] } } },
    },
    text: '{"color": "  bLUE ", "kind": "person", "list": ["a", " A"]}',
    expected: { color: 'Blue', kind: 'Person', list: ['a', 'a'] },
    fixes: [
      { path: '/color', rule: 'enum-case' },
      { path: '/kind', rule: 'enum-case' },
      { path: '/list/1', rule: 'enum-case' },
    ],
  },
  {
    name: 'single-to-array',
    rules: ['single-to-array'],
    schema: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' } },
        points: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } },
      },
    },
    text: '{"tags": "one", "points": {"x": 1}}',
    expected: { tags: ['one'], points: [{ x: 1 }] },
    fixes: [
      { path: '/tags', rule: 'single-to-array' },
      { path: '/points', rule: 'single-to-array' },
    ],
  },
  {
    name: 'single-to-array at a root number (a word document)',
    rules: ['single-to-array'],
    schema: { type: 'array', items: { type: 'number' } },
    text: ' 42 ',
    expected: [42],
    fixes: [{ path: '', rule: 'single-to-array' }],
    from: 1,
  },
  {
    name: 'default',
    rules: ['default'],
    schema: {
      type: 'object',
      required: ['a', 'b'],
      properties: { a: { type: 'number' }, b: { type: 'array', default: ['x'] } },
    },
    text: '{"a": 1}',
    expected: { a: 1, b: ['x'] },
    fixes: [{ path: '/b', rule: 'default' }],
  },
  {
    name: 'null-to-absent',
    rules: ['null-to-absent'],
    schema: {
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'number' }, o: { type: 'string' }, in: { type: 'object', properties: { p: false } } },
    },
    text: '{"a": 1, "o": null, "in": {"p": null, "q": [true]}}',
    expected: { a: 1, in: { q: [true] } },
    fixes: [
      { path: '/o', rule: 'null-to-absent' },
      { path: '/in/p', rule: 'null-to-absent' },
    ],
  },
];

describe('the coerced document is the final snapshot', () => {
  for (const c of CASES) {
    for (const coerce of [c.rules, true] as const) {
      const label = `${c.name}, coerce ${coerce === true ? 'true' : `[${coerce.join(', ')}]`}`;
      test(`${label}: every chunk size gives the coerced value, its changes and its fixes`, () => {
        const whole = run([c.text], { schema: c.schema, coerce });
        expectCoerced(whole, c.expected, c.fixes, c.from ?? 0, `${label}, whole`);
        for (const [size, chunks] of everyChunkSize(c.text)) {
          const result = run(chunks, { schema: c.schema, coerce });
          expectCoerced(result, c.expected, c.fixes, c.from ?? 0, `${label}, ${size}`);
          expect(result.diagnostics, `${label}, ${size}`).toEqual(whole.diagnostics);
        }
      });
    }
    test(`${c.name}: without coerce, the raw document and its schema diagnostic (unchanged)`, () => {
      const result = run([c.text], { schema: c.schema });
      expect(result.final).toEqual(JSON.parse(c.text.slice(c.from ?? 0)));
      expect(of(result.diagnostics, 'recovered')).toEqual([]);
      expect(of(result.diagnostics, 'schema').at(-1)?.message).toMatch(/^the complete document does not match/);
    });
  }

  test('every split point: the same final snapshot and the same diagnostics', () => {
    const schema = {
      type: 'object',
      required: ['id', 'tags', 'status'],
      properties: {
        id: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
        status: { enum: ['open', 'closed'] },
        done: { type: 'boolean' },
        note: { type: 'string' },
        items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'number' } } } },
        label: { type: 'string', default: 'none' },
      },
    };
    const text =
      'Answer:\n```json\n{"id": "12", "tags": "urgent", "status": " Open", "done": "true", "note": null, ' +
      '"items": [{"qty": "2"}, {"qty": 3}, {"name": "\\u00e9t\\u00e9 ✓"}]}\n```';
    const whole = run([text], { schema, coerce: true });
    const expected = {
      id: 12,
      tags: ['urgent'],
      status: 'open',
      done: true,
      items: [{ qty: 2 }, { qty: 3 }, { name: 'été ✓' }],
    };
    expectCoerced(
      whole,
      expected,
      [
        { path: '/id', rule: 'string-to-number' },
        { path: '/tags', rule: 'single-to-array' },
        { path: '/status', rule: 'enum-case' },
        { path: '/done', rule: 'string-to-boolean' },
        { path: '/note', rule: 'null-to-absent' },
        { path: '/items/0/qty', rule: 'string-to-number' },
      ],
      text.indexOf('{'),
      'whole',
    );
    fc.assert(
      fc.property(splitPoints(text.length), (points) => {
        const result = run(splitAt(text, points), { schema, coerce: true });
        expect(result.final).toEqual(whole.final);
        expect(result.diagnostics).toEqual(whole.diagnostics);
        expect(replay(result.changes)).toEqual(result.final);
      }),
      { numRuns },
    );
  });

  test('the final update keeps unrepaired subtrees (structural sharing) and changes only what was repaired', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    const result = run(['{"keep": {"deep": [1, {"x": 2}]}, "list": [1, 2], "n": "', '5"}'], {
      schema,
      coerce: true,
    });
    const [before, after] = result.snapshots.slice(-2) as Record<string, unknown>[];
    expect(after).toEqual({ keep: { deep: [1, { x: 2 }] }, list: [1, 2], n: 5 });
    expect(after?.keep).toBe(before?.keep);
    expect(after?.list).toBe(before?.list);
    expect(before?.n).toBe(''); // the raw string so far: snapshots stay raw until the end
    // The last write's changes: the raw text, the raw document closing, then the repair.
    expect(result.changes.at(-1)).toEqual([
      { op: 'append', path: ['n'], value: '5' },
      { op: 'complete', path: ['n'] },
      { op: 'complete', path: [] },
      { op: 'add', path: ['n'], value: 5 },
      { op: 'complete', path: ['n'] },
    ]);
  });

  test('a removed key replaces its object (there is no remove change), keeping the object’s unrepaired members', () => {
    const schema = { type: 'object', properties: { o: { type: 'object', properties: { gone: { type: 'string' } } } } };
    const result = run(['{"other": [1], "o": {"kept": {"a": 1}, "gone": null}}'], { schema, coerce: true });
    expect(result.final).toEqual({ other: [1], o: { kept: { a: 1 } } });
    expect(replay(result.changes)).toEqual(result.final);
    expect(result.changes.at(-1)?.slice(-6)).toEqual([
      { op: 'add', path: ['o'], value: {} },
      { op: 'add', path: ['o', 'kept'], value: {} },
      { op: 'add', path: ['o', 'kept', 'a'], value: 1 },
      { op: 'complete', path: ['o', 'kept', 'a'] },
      { op: 'complete', path: ['o', 'kept'] },
      { op: 'complete', path: ['o'] },
    ]);
  });

  test('snapshots: false and updateOn: values deliver the coerced value too', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    for (const options of [{ snapshots: false }, { updateOn: 'values' as const }]) {
      for (const [size, chunks] of everyChunkSize('{"n": "5", "s": "x"}', 8)) {
        const result = run(chunks, { schema, coerce: true, ...options });
        expect(result.final, size).toEqual({ n: 5, s: 'x' });
        expect(replay(result.changes), size).toEqual({ n: 5, s: 'x' });
      }
    }
  });

  test('a document coercion cannot repair: the schema diagnostic, the raw value, no recovered', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' }, m: { type: 'number' } } };
    const text = '{"m": "5", "n": "five"}';
    for (const [size, chunks] of everyChunkSize(text, 8)) {
      const result = run(chunks, { schema, coerce: true });
      expect(result.final, size).toEqual({ m: '5', n: 'five' });
      expect(of(result.diagnostics, 'recovered'), size).toEqual([]);
      // The subtree /n is checked (with coercion) as it closes; then the document.
      expect(
        of(result.diagnostics, 'schema').map((d) => d.message.split(':')[0]),
        size,
      ).toEqual(['the value at /n does not match its schema', 'the complete document does not match the schema']);
      expect(of(result.diagnostics, 'violation'), size).toEqual([]);
    }
  });

  test('a Standard Schema (zod) with coerce: its export guides, zod decides', () => {
    const schema = z.object({ n: z.number(), tags: z.array(z.string()), ok: z.boolean().optional() });
    for (const [size, chunks] of everyChunkSize('{"n": "3", "tags": "t", "ok": null}', 8)) {
      const result = run(chunks, { schema, coerce: true });
      expectCoerced(
        result,
        { n: 3, tags: ['t'] },
        [
          { path: '/n', rule: 'string-to-number' },
          { path: '/tags', rule: 'single-to-array' },
          { path: '/ok', rule: 'null-to-absent' },
        ],
        0,
        size,
      );
    }
  });

  test('configuration: coerce needs coerceWith in core, a schema, and a known rule', () => {
    const schema = { type: 'object' };
    expect(() => buildPartial(['{}'], { schema, compileJsonSchema: compileSchema, coerce: true })).toThrow(
      expect.objectContaining({ code: 'NO_COERCER' }),
    );
    expect(() => buildPartial(['{}'], { coerce: true, coerceWith: withCoercion })).toThrow(ConfigurationError);
    expect(() => run(['{}'], { schema, coerce: ['no-such-rule' as CoercionRule] })).toThrow(/unknown coercion/);
  });
});

describe('subtree checks under coerce', () => {
  const schema = {
    type: 'object',
    properties: {
      inner: { type: 'object', required: ['x'], properties: { x: { type: 'number' }, y: { type: 'string' } } },
      list: { type: 'array', items: { type: 'integer' } },
      flag: { type: 'boolean' },
    },
  };
  const text = '{"inner": {"x": "1", "y": null}, "list": ["2", 3], "flag": "false"}';

  test('a subtree coercion repairs under its sub-schema is not reported; the fixes come once, at the end', () => {
    const without = run([text], { schema, prefixCheck: false });
    // Without coerce, the subtrees are reported as they close (this is what coerce quiets).
    expect(of(without.diagnostics, 'schema').length).toBeGreaterThan(3);
    for (const [size, chunks] of everyChunkSize(text)) {
      const result = run(chunks, { schema, coerce: true });
      expectCoerced(
        result,
        { inner: { x: 1 }, list: [2, 3], flag: false },
        [
          { path: '/inner/x', rule: 'string-to-number' },
          { path: '/inner/y', rule: 'null-to-absent' },
          { path: '/list/0', rule: 'string-to-number' },
          { path: '/flag', rule: 'string-to-boolean' },
        ],
        0,
        size,
      );
    }
  });

  test('a subtree no coercion repairs is still reported as it closes', () => {
    const result = run(['{"inner": {"x": "one"}, "list": [1]}'], { schema, coerce: true });
    expect(of(result.diagnostics, 'schema').map((d) => d.message.split(':')[0])).toEqual([
      'the value at /inner/x does not match its schema',
      'the value at /inner does not match its schema',
      'the complete document does not match the schema',
    ]);
  });

  test('only the rules turned on count: a string boolean is reported without string-to-boolean', () => {
    const result = run(['{"flag": "false", "list": ["2"]}'], { schema, coerce: ['string-to-number'] });
    expect(of(result.diagnostics, 'schema').map((d) => d.message.split(':')[0])).toEqual([
      'the value at /flag does not match its schema',
      'the complete document does not match the schema',
    ]);
    expect(of(result.diagnostics, 'violation').map((d) => [d.path, d.rule])).toEqual([['/flag', 'type']]);
    expect(of(result.diagnostics, 'recovered')).toEqual([]);
  });
});

describe('prefix checks never fight coercion', () => {
  const schema = {
    type: 'object',
    required: ['status'],
    properties: {
      n: { type: 'number', maximum: 10 },
      i: { type: 'integer' },
      b: { type: 'boolean' },
      status: { enum: ['open', 'closed'] },
      code: { enum: [1, 2] },
      kind: { const: 'Item' },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
      name: { type: 'string', maxLength: 4 },
      short: { enum: ['ab'], maxLength: 2 },
      opt: { type: 'string' },
      status2: { enum: ['é'] },
    },
    additionalProperties: false,
  };

  /** The `[path, rule, offset]` of each violation, and the run. */
  function violations(text: string, coerce?: Options['coerce']): [string | undefined, string | undefined, number][] {
    const runs = [...everyChunkSize(text, 16)].map(([, chunks]) =>
      of(run(chunks, coerce === undefined ? { schema } : { schema, coerce }).diagnostics, 'violation').map(
        (d): [string | undefined, string | undefined, number] => [d.path, d.rule, d.offset],
      ),
    );
    for (const other of runs) expect(other).toEqual(runs[0]);
    return runs[0] ?? [];
  }

  const REPAIRABLE: readonly [string, string, readonly CoercionRule[], string][] = [
    ['a string where a number is required', '{"status": "open", "n": "5"}', ['string-to-number'], '/n'],
    ['a string where an integer is required', '{"status": "open", "i": "5"}', ['string-to-number'], '/i'],
    ['a string where an enum holds numbers', '{"status": "open", "code": "2"}', ['string-to-number'], '/code'],
    ['a string where a boolean is required', '{"status": "open", "b": "true"}', ['string-to-boolean'], '/b'],
    ['an enum string in another case', '{"status": "OPEN"}', ['enum-case'], '/status'],
    ['an enum string with spaces around it', '{"status": "\\t closed  "}', ['enum-case'], '/status'],
    ['a const string in another case', '{"status": "open", "kind": "iTEM"}', ['enum-case'], '/kind'],
    ['a non-ASCII enum string in another case', '{"status": "open", "status2": "É"}', ['enum-case'], '/status2'],
    [
      'a string longer than maxLength that trims to an enum value',
      '{"status": "open", "short": " ab "}',
      ['enum-case'],
      '/short',
    ],
    ['a string where an array is required', '{"status": "open", "tags": "t"}', ['single-to-array'], '/tags'],
    ['null for an optional property', '{"status": "open", "opt": null}', ['null-to-absent'], '/opt'],
  ];

  for (const [name, text, rules, path] of REPAIRABLE) {
    test(`${name}: reported without coerce, not with ${rules.join(', ')} (nor with coerce: true)`, () => {
      expect(violations(text).map(([p]) => p)).toEqual([path]);
      expect(violations(text, rules)).toEqual([]);
      expect(violations(text, true)).toEqual([]);
      // And the coerced document is valid: what was not reported was indeed repaired.
      const result = run([text], { schema, coerce: rules });
      expect(of(result.diagnostics, 'schema')).toEqual([]);
      expect(of(result.diagnostics, 'recovered').length).toBeGreaterThan(0);
    });
  }

  const CERTAIN: readonly [string, string, [string, string]][] = [
    ['a forbidden key', '{"status": "open", "extra": 1}', ['/extra', 'additionalProperties']],
    ['a forbidden key with a null value', '{"status": "open", "extra": null}', ['/extra', 'additionalProperties']],
    ['a number above its maximum', '{"status": "open", "n": 11}', ['/n', 'maximum']],
    ['a JSON number that is not an integer', '{"status": "open", "i": 1.5}', ['/i', 'type']],
    ['an enum string no case or spacing makes allowed', '{"status": "opex"}', ['/status', 'enum']],
    ['an enum string with text after the spaces', '{"status": "open x"}', ['/status', 'enum']],
    ['a non-ASCII enum string, decided once complete', '{"status": "open", "status2": "éé"}', ['/status2', 'enum']],
    ['null for a required property', '{"status": null}', ['/status', 'enum']],
    ['a number where a string is required', '{"status": "open", "opt": 5}', ['/opt', 'type']],
    ['a boolean where a number is required', '{"status": "open", "n": true}', ['/n', 'type']],
    ['too many items', '{"status": "open", "tags": ["a", "b", "c"]}', ['/tags', 'maxItems']],
    ['a string past maxLength with no allowed values', '{"status": "open", "name": "abcde"}', ['/name', 'maxLength']],
  ];

  for (const [name, text, [path, rule]] of CERTAIN) {
    test(`${name}: still reported with coerce: true`, () => {
      const found = violations(text, true);
      expect(found.map(([p, r]) => [p, r])).toEqual([[path, rule]]);
      // The same offset as without coerce, where the check is the same one.
      const plain = violations(text);
      if (plain.length === 1 && !name.includes('enum string')) expect(found).toEqual(plain);
    });
  }

  test('enum-case: the violation is at the first character no allowed value can follow', () => {
    const text = '{"status": "  CLOx"}';
    expect(violations(text, ['enum-case'])).toEqual([['/status', 'enum', text.indexOf('x')]]);
    // Whitespace after a whole match, then more text: certain at that text.
    const spaced = '{"status": "open  z"}';
    expect(violations(spaced, ['enum-case'])).toEqual([['/status', 'enum', spaced.indexOf('z')]]);
    // Exactly one allowed value must match: two that differ only in case make the string ambiguous.
    const ambiguous = { type: 'object', properties: { s: { enum: ['ab', 'AB'] } } };
    const result = run(['{"s": "Ab"}'], { schema: ambiguous, coerce: ['enum-case'] });
    expect(of(result.diagnostics, 'violation').map((d) => [d.path, d.rule])).toEqual([['/s', 'enum']]);
    // The subtree /s as it closes, then the document: no coercion repairs it.
    expect(of(result.diagnostics, 'schema').length).toBe(2);
  });

  test('only the turned-on rules relax: a string number is reported under enum-case alone', () => {
    expect(violations('{"status": "open", "n": "5"}', ['enum-case'])).toEqual([['/n', 'type', 24]]);
  });

  test('null-to-absent: a key forbidden here but declared by another allOf member waits for its value', () => {
    const allOf = {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } } },
        { type: 'object', properties: { b: {} }, additionalProperties: false },
      ],
    };
    const quiet = run(['{"a": null}'], { schema: allOf, coerce: ['null-to-absent'] });
    expect(quiet.final).toEqual({});
    expect(of(quiet.diagnostics, 'violation')).toEqual([]);
    expect(of(quiet.diagnostics, 'recovered').map((d) => d.path)).toEqual(['/a']);
    for (const [size, chunks] of everyChunkSize('{"a": "x"}', 8)) {
      const loud = run(chunks, { schema: allOf, coerce: ['null-to-absent'] });
      // Reported once the value shows it is not null, at the key as without coerce.
      expect(
        of(loud.diagnostics, 'violation').map((d) => [d.path, d.rule, d.offset]),
        size,
      ).toEqual([['/a', 'additionalProperties', 3]]);
    }
    expect(of(run(['{"a": "x"}'], { schema: allOf }).diagnostics, 'violation').map((d) => d.offset)).toEqual([3]);
  });

  test('a discriminator in another case picks its branch under enum-case, whose checks then apply', () => {
    const shapes = {
      oneOf: [
        { type: 'object', required: ['type', 'r'], properties: { type: { const: 'circle' }, r: { type: 'number' } } },
        { type: 'object', required: ['type', 'w'], properties: { type: { const: 'square' }, w: { type: 'number' } } },
      ],
    };
    const repaired = run(['{"type": "Circle", "r": 2}'], { schema: shapes, coerce: ['enum-case'] });
    expect(repaired.final).toEqual({ type: 'circle', r: 2 });
    expect(of(repaired.diagnostics, 'violation')).toEqual([]);
    expect(of(repaired.diagnostics, 'schema')).toEqual([]);
    const wrong = run(['{"type": "CIRCLE", "r": "big"}'], { schema: shapes, coerce: ['enum-case'] });
    expect(of(wrong.diagnostics, 'violation').map((d) => [d.path, d.rule])).toEqual([['/r', 'type']]);
    const unknown = run(['{"type": "Triangle"}'], { schema: shapes, coerce: true });
    expect(of(unknown.diagnostics, 'violation').map((d) => [d.path, d.rule])).toEqual([['/type', 'discriminator']]);
  });

  test('a union nested without end is walked within a budget: fast, and silent where a coercion may apply', () => {
    // Ten branches, each the union again: an unbounded walk would visit 10^n branches.
    const branches = Array.from({ length: 10 }, () => ({ $ref: '#/$defs/u' }));
    const schema = {
      $ref: '#/$defs/u',
      $defs: { u: { anyOf: [...branches, { type: 'array', items: { type: 'number' } }] } },
    };
    const found: unknown[] = [];
    const checker = new PrefixChecker(schema, (v) => found.push(v), false, {
      repairable: new Set<CoercionRule>(['string-to-number', 'single-to-array']),
    });
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      checker.start(0, 0x22, 0, []);
      checker.append('5', '5', '5', 1);
      checker.endString('5', 2);
    }
    expect(performance.now() - started).toBeLessThan(2000);
    expect(found).toEqual([]);
  });

  test('property: with coerce, a document coercion repairs is never reported, under any split', () => {
    const shape = {
      type: 'object',
      required: ['n', 'status'],
      properties: {
        n: { type: 'integer' },
        ok: { type: 'boolean' },
        status: { enum: ['open', 'Closed'] },
        tags: { type: 'array', items: { type: 'string' } },
        note: { type: 'string' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['qty'],
            properties: { qty: { type: 'number' }, unit: { enum: ['kg', 'g'] } },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    };
    const validator = withCoercion(
      compileSchema(shape),
      shape,
      new Set<CoercionRule>([
        'string-to-number',
        'string-to-boolean',
        'enum-case',
        'single-to-array',
        'null-to-absent',
        'float-to-integer',
        'default',
      ]),
    );
    const variant = (values: readonly string[]) =>
      fc
        .tuple(fc.constantFrom(...values), fc.constantFrom('', ' ', '\t'), fc.constantFrom('', ' '), fc.boolean())
        .map(([v, before, after, upper]) => `${before}${upper ? v.toUpperCase() : v}${after}`);
    /** Mostly `good` (values coercion repairs, or valid ones), now and then `bad` (what it cannot repair). */
    const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
      fc.oneof({ arbitrary: good, weight: 15 }, { arbitrary: bad, weight: 1 });
    const numberish = mostly(
      fc.oneof(
        fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
        fc.integer().map(String),
        fc.constantFrom('1.5', '-0', '2e3'),
      ),
      fc.constantFrom(' 1', 'x', '0x10'),
    );
    const item = fc.record(
      { qty: numberish, unit: mostly(fc.oneof(variant(['kg', 'g']), fc.constant(null)), fc.constant('lb')) },
      { requiredKeys: ['qty'] },
    );
    const fields = fc.record(
      {
        n: mostly(
          fc.oneof(
            fc.integer({ min: -99, max: 99 }),
            fc.integer({ min: -99, max: 99 }).map(String),
            fc.constant('5.0'),
          ),
          fc.constantFrom('x', '5.5', 1.5),
        ),
        ok: mostly(fc.oneof(fc.boolean(), fc.constantFrom('true', 'false'), fc.constant(null)), fc.constant('yes')),
        status: mostly(variant(['open', 'Closed']), fc.constantFrom('opened', 'o', 'open x')),
        tags: mostly(
          fc.oneof(fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }), fc.string({ maxLength: 3 })),
          fc.integer(),
        ),
        note: mostly(fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null)), fc.constant(false)),
        items: fc.oneof(fc.array(item, { maxLength: 3 }), item),
      },
      { requiredKeys: ['n', 'status'] },
    );
    // Now and then a key that no coercion removes, or a required one missing.
    const document = fc.tuple(fields, fc.integer({ min: 0, max: 29 })).map(([value, dice]): Record<string, unknown> => {
      if (dice === 0) return { ...value, extra: 1 };
      if (dice === 1) {
        const { n: _, ...rest } = value;
        return rest;
      }
      return value;
    });
    let valid = 0;
    fc.assert(
      fc.property(document, fc.integer({ min: 0, max: 8 }), (generated, pretty) => {
        const text = JSON.stringify(generated, null, pretty);
        // What the engines see is the text: -0 is written `0` and comes back as 0.
        const value: unknown = JSON.parse(text);
        const verdict = validator.validate(value);
        const whole = run([text], { schema: shape, coerce: true });
        const split = run(splitAt(text, [pretty * 3, text.length >> 1, text.length - pretty]), {
          schema: shape,
          coerce: true,
        });
        expect(split.diagnostics).toEqual(whole.diagnostics);
        expect(split.final).toEqual(whole.final);
        expect(replay(whole.changes)).toEqual(whole.final);
        if (verdict.valid) {
          valid++;
          expect(of(whole.diagnostics, 'violation')).toEqual([]);
          expect(of(whole.diagnostics, 'schema')).toEqual([]);
          expect(whole.final).toEqual(verdict.value ?? value);
          expect(of(whole.diagnostics, 'recovered').length).toBe(verdict.fixes?.length ?? 0);
        } else {
          expect(of(whole.diagnostics, 'schema').at(-1)?.message).toMatch(/^the complete document/);
          expect(whole.final).toEqual(value);
        }
      }),
      { numRuns: numRuns * 3 },
    );
    // The property is about documents that coercion repairs: enough of them are generated.
    expect(valid).toBeGreaterThan(numRuns * 0.6);
  });
});

describe('the streams', () => {
  const schema = {
    type: 'object',
    properties: { n: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
    additionalProperties: false,
  };
  const text = '{"n": "4", "tags": "x"}';
  const expected = { n: 4, tags: ['x'] };

  test('Node: coerce: true needs no coerceWith (the Node streams default it), every emit', async () => {
    for (let size = 1; size <= text.length; size += 5) {
      const chunks = chunkText(text, size);
      const snapshots = await nodePartial(chunks, { schema, coerce: true });
      expect(snapshots.out.at(-1)).toEqual(expected);
      expect(snapshots.value).toEqual(expected);
      expect(snapshots.complete).toBe(true);
      expect(snapshots.diagnostics.map((d) => [d.reason, d.path, d.rule])).toEqual([
        ['recovered', '/n', 'string-to-number'],
        ['recovered', '/tags', 'single-to-array'],
      ]);
      expect(snapshots.stats.diagnostics.recovered).toBe(2);
      const both = await nodePartial(chunks, { schema, coerce: true, emit: 'both' });
      const items = both.out as { value: unknown; changes: readonly never[] }[];
      expect(items.at(-1)?.value).toEqual(expected);
      expect(replay(items.map((i) => i.changes))).toEqual(expected);
      const changes = await nodePartial(chunks, { schema, coerce: true, emit: 'changes' });
      expect(replay(changes.out as never[])).toEqual(expected);
    }
  });

  test('Node: failFast does not stop an answer that coercion repairs, and still stops one it cannot', async () => {
    const repaired = await nodePartial([text.slice(0, 9), text.slice(9)], { schema, coerce: true, failFast: true });
    expect(repaired.out.at(-1)).toEqual(expected);
    await expect(nodePartial(['{"n": "4", "zz": 1}'], { schema, coerce: true, failFast: true })).rejects.toThrow(/zz/);
  });

  test('Web: coerce with coerceWith: withCoercion (and a compiler), the same result', async () => {
    const options = {
      schema,
      coerce: true,
      coerceWith: web.withCoercion,
      compileJsonSchema: compileWebSchema,
    } as const;
    for (const [size, chunks] of everyChunkSize(text, 8)) {
      const result = await webPartial(chunks, options);
      expect(result.out.at(-1), size).toEqual(expected);
      expect(result.value, size).toEqual(expected);
      expect(
        result.diagnostics.map((d) => [d.reason, d.path, d.rule]),
        size,
      ).toEqual([
        ['recovered', '/n', 'string-to-number'],
        ['recovered', '/tags', 'single-to-array'],
      ]);
    }
    const both = await webPartial([text], { ...options, emit: 'both' });
    expect(replay((both.out as { changes: never[] }[]).map((i) => i.changes))).toEqual(expected);
  });

  test('Web: coerce without coerceWith is a configuration error naming the fix', () => {
    expect(() => web.createPartialStream({ schema, coerce: true, compileJsonSchema: compileWebSchema })).toThrow(
      /coerceWith: withCoercion/,
    );
  });
});
