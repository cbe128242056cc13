/**
 * Hardening of the partial-value builder (packages/core/src/engines/partial-value.ts): `complete` only
 * for a whole document, scalar roots, updates only on change for snapshot readers, a `null`
 * document on a sink that cannot carry it, hostile change lists in `applyChanges`, and deep
 * values within the depth guard. Every decoding test runs whole and at chunk sizes 1 to 64.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { applyChanges, type Change, ConfigurationError, createPartialBuilder, DEFAULT_MAX_DEPTH } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';
import { everyChunkSize } from '../../../test/support/chunking.js';
import {
  buildPartial,
  expectNoPollution,
  grows,
  prototypeKeys,
  replay,
  SCALAR_DOCUMENTS,
} from '../../../test/support/partial.js';

/** Whole, then every chunk size from 1 to 64. */
const chunkings = (text: string) => [...everyChunkSize(text)];

describe('complete: only a whole document', () => {
  test.each([
    ['truncated', '{"items": [{"id": 1}, {"id": 2, "na', {}],
    ['syntax', '{"a": 1 "b": 2}', {}],
    ['too-deep', `{"a": ${'['.repeat(DEFAULT_MAX_DEPTH + 10)}`, {}],
    ['too-long', `{"a": "${'x'.repeat(40)}`, { maxValueLength: 10 }],
    ['truncated', '"a string root cut off', {}],
    ['syntax', '["a" "b"]', {}],
  ] as const)('false after a %s diagnostic (%s)', (reason, text, options) => {
    for (const [label, chunks] of chunkings(text)) {
      const run = buildPartial(chunks, options);
      expect(
        run.diagnostics.map((d) => d.reason),
        label,
      ).toEqual([reason]);
      expect(run.final, label).not.toBeUndefined();
      expect(run.complete, label).toBe(false);
      expect(run.completeAfter.some(Boolean), label).toBe(false);
    }
  });

  test.each([
    ['{"a": [1, "x"]}', 14],
    ['  [true]\n', 7],
    ['Sure:\n```json\n{"a": 1}\n```\nAnything else?', 21],
    ['{"a": 1}}{', 7],
  ] as const)('true from the write that closes the document (%s); text after it changes nothing', (text, closeAt) => {
    for (const [label, chunks] of chunkings(text)) {
      const run = buildPartial(chunks);
      expect(run.diagnostics, label).toEqual([]);
      expect(run.complete, label).toBe(true);
      let end = 0;
      const expected = chunks.map((chunk) => {
        end += chunk.length;
        return end > closeAt;
      });
      expect(run.completeAfter, label).toEqual([...expected, true]);
    }
  });

  test('a syntax error inside a string: its text up to the error shows at every chunk size', () => {
    for (const [text, value] of [
      ['{"a": "hello\\m"}', { a: 'hello' }],
      ['"hello\nworld"', 'hello'],
      ['[" \u0012"]', [' ']],
      ['"a\\u12x"', 'a'],
    ] as const) {
      for (const [label, chunks] of chunkings(text)) {
        const run = buildPartial(chunks);
        expect(run.final, `${JSON.stringify(text)} ${label}`).toEqual(value);
        expect(run.diagnostics.map((d) => d.reason)).toEqual(['syntax']);
        expect(run.complete).toBe(false);
      }
    }
  });

  test('a schema mismatch does not make a whole document incomplete', () => {
    const run = buildPartial(['{"a": 1}'], {
      schema: { type: 'object', required: ['b'] },
      compileJsonSchema: compileSchema,
    });
    expect(run.diagnostics.map((d) => d.reason)).toEqual(['schema']);
    expect(run.complete).toBe(true);
  });

  test('no document at all: no value, not complete', () => {
    for (const text of ['', '   \n', 'Just prose, no JSON here.']) {
      const run = buildPartial([text]);
      expect(run.final).toBeUndefined();
      expect(run.complete).toBe(false);
      expect(run.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
    }
  });
});

describe('scalar roots', () => {
  test.each(SCALAR_DOCUMENTS.map((text) => [JSON.stringify(text), text]))(
    '%s ends with its JSON.parse value, complete, in snapshots and in changes',
    (_name, text) => {
      const expected: unknown = JSON.parse(text);
      for (const [label, chunks] of chunkings(text)) {
        const run = buildPartial(chunks);
        expect(run.final, label).toEqual(expected);
        expect(run.snapshots.at(-1), label).toEqual(expected);
        expect(run.complete, label).toBe(true);
        expect(run.diagnostics, label).toEqual([]);
        expect(replay(run.changes), label).toEqual(expected);
        const lean = buildPartial(chunks, { snapshots: false });
        expect(lean.changes, label).toEqual(run.changes);
        expect(lean.final, label).toEqual(expected);
        // Strings only grow; a number or literal appears once, complete, at the end of input.
        run.snapshots.forEach((snapshot, i) => {
          if (i > 0) grows(run.snapshots[i - 1], snapshot, false);
        });
        if (typeof expected !== 'string') {
          expect(run.snapshots, label).toEqual([expected]);
          expect(run.changes, label).toEqual([
            [
              { op: 'add', path: [], value: expected },
              { op: 'complete', path: [] },
            ],
          ]);
          expect(run.completeAfter.slice(0, -1).some(Boolean), label).toBe(false);
        }
      }
    },
  );

  test('a string root grows: appended text at the empty path', () => {
    expect(buildPartial(['"Hel', 'lo \\u00', 'e9', '!"']).changes).toEqual([
      [
        { op: 'add', path: [], value: '' },
        { op: 'append', path: [], value: 'Hel' },
      ],
      [{ op: 'append', path: [], value: 'lo ' }],
      [{ op: 'append', path: [], value: 'é' }],
      [
        { op: 'append', path: [], value: '!' },
        { op: 'complete', path: [] },
      ],
    ]);
  });

  test('a cut scalar root: a string shows what arrived; a number or literal shows nothing', () => {
    for (const [text, value] of [
      ['"abc', 'abc'],
      ['12.', undefined],
      ['-', undefined],
      ['tru', undefined],
      ['nul', undefined],
    ] as const) {
      for (const [label, chunks] of chunkings(text)) {
        const run = buildPartial(chunks);
        expect(run.final, `${text} ${label}`).toEqual(value);
        expect(run.complete, label).toBe(false);
        expect(run.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
      }
    }
  });

  test('prose before a document is skipped as before: a word that starts like a scalar is prose when more text follows', () => {
    for (const [text, value] of [
      ['Sure! {"a": 1}', { a: 1 }],
      ['1. First item: [1, 2]', [1, 2]],
      ['true story: {"a": 1}', { a: 1 }],
      ['nullable {"a": 1}', { a: 1 }],
      ['42 [1]', [1]],
      ['1[2]', [2]],
      ['- item\n- ["x"]', ['x']],
      ['---\n{"front": "matter"}', { front: 'matter' }],
    ] as const) {
      for (const [label, chunks] of chunkings(text)) {
        const run = buildPartial(chunks);
        expect(run.final, `${text} ${label}`).toEqual(value);
        expect(run.complete, label).toBe(true);
        expect(run.diagnostics, label).toEqual([]);
      }
    }
  });

  test('a bare number or word followed by prose, or a fenced scalar, is no document', () => {
    for (const text of ['42 is the answer', 'null\n```', '```json\n"plain"\n```', 'Answer: 42', 'true.']) {
      for (const [label, chunks] of chunkings(text)) {
        const run = buildPartial(chunks);
        expect(run.final, `${text} ${label}`).toBeUndefined();
        expect(run.snapshots).toEqual([]);
        expect(run.complete).toBe(false);
        expect(run.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
      }
    }
  });

  test('a string root commits at its opening quote; text after it is ignored like after any document', () => {
    for (const [label, chunks] of chunkings('"quoted" then {"a": 1}')) {
      const run = buildPartial(chunks);
      expect(run.final, label).toBe('quoted');
      expect(run.complete, label).toBe(true);
      expect(run.diagnostics, label).toEqual([]);
    }
  });

  test('a scalar root is checked against the schema', () => {
    const run = buildPartial(['4', '2'], { schema: { type: 'string' }, compileJsonSchema: compileSchema });
    expect(run.final).toBe(42);
    expect(run.complete).toBe(true);
    // The prefix check first (a number can never be a string), then the complete document. A
    // bare number is the document only once the input ends (more text would make it prose), so
    // the violation becomes certain there, at offset 2, not at the first digit.
    expect(run.diagnostics).toMatchObject([
      { reason: 'violation', path: '', rule: 'type', offset: 2 },
      { reason: 'schema', offset: 2 },
    ]);
    expect(run.stats.diagnostics).toEqual({ violation: 1, schema: 1 });
    // The same reasons without the prefix check: the document check does not depend on it.
    expect(
      buildPartial(['4', '2'], {
        schema: { type: 'string' },
        compileJsonSchema: compileSchema,
        prefixCheck: false,
      }).diagnostics.map((d) => d.reason),
    ).toEqual(['schema']);
    expect(buildPartial(['"x"'], { schema: { type: 'string' }, compileJsonSchema: compileSchema }).diagnostics).toEqual(
      [],
    );
  });
});

describe("updateOn: 'values' (for sinks that read the snapshot only)", () => {
  const text = '{"title": "Hi", "items": [{"id": 1}, {"id": 2}]}';

  test('an update only when the value changed: never the same snapshot twice', () => {
    for (const [label, chunks] of chunkings(text)) {
      const all = buildPartial(chunks);
      const values = buildPartial(chunks, { updateOn: 'values' });
      const changed = all.snapshots.filter((s, i) => i === 0 || s !== all.snapshots[i - 1]);
      expect(values.snapshots, label).toEqual(changed);
      values.snapshots.forEach((s, i) => {
        if (i > 0) expect(s, `${label}, update ${i}`).not.toBe(values.snapshots[i - 1]);
      });
      expect(values.stats.updates, label).toBe(values.snapshots.length);
      expect(values.final, label).toEqual(JSON.parse(text));
      expect(values.complete, label).toBe(true);
    }
  });

  test('with the default, a write that only closes values is an update of its `complete` changes', () => {
    const run = buildPartial(['{"a": ["x"', ']', '}']);
    expect(run.changes.slice(1)).toEqual([[{ op: 'complete', path: ['a'] }], [{ op: 'complete', path: [] }]]);
    expect(buildPartial(['{"a": ["x"', ']', '}'], { updateOn: 'values' }).snapshots).toEqual([{ a: ['x'] }]);
  });
});

describe("nullValue: 'report' (for sinks that cannot carry null)", () => {
  test('a null document is reported, not delivered; the builder still holds it, complete', () => {
    for (const [label, chunks] of chunkings(' null ')) {
      const run = buildPartial(chunks, { nullValue: 'report' });
      expect(run.snapshots, label).toEqual([]);
      expect(
        run.diagnostics.map((d) => d.reason),
        label,
      ).toEqual(['null-value']);
      expect(run.diagnostics[0]?.message).toMatch(/emit 'both' or 'changes'/);
      expect(run.final, label).toBeNull();
      expect(run.complete, label).toBe(true);
      expect(buildPartial(chunks).snapshots, label).toEqual([null]);
    }
  });

  test('a null inside a document is delivered as usual', () => {
    expect(buildPartial(['[null]'], { nullValue: 'report' }).final).toEqual([null]);
  });

  test('bad option values are configuration errors', () => {
    const sink = { update() {}, diagnostic() {} };
    expect(() => createPartialBuilder({ nullValue: 'drop' as 'report' }, sink)).toThrow(ConfigurationError);
    expect(() => createPartialBuilder({ updateOn: 'never' as 'values' }, sink)).toThrow(ConfigurationError);
  });
});

describe('applyChanges on untrusted change lists', () => {
  const hostile: { name: string; changes: Change[]; segment: string }[] = [
    {
      name: 'through __proto__',
      changes: [
        { op: 'add', path: [], value: {} },
        { op: 'add', path: ['__proto__', 'polluted'], value: true },
      ],
      segment: '__proto__',
    },
    {
      name: 'through constructor.prototype',
      changes: [
        { op: 'add', path: [], value: {} },
        { op: 'add', path: ['constructor', 'prototype', 'polluted'], value: true },
      ],
      segment: 'constructor',
    },
    {
      name: 'through an array’s __proto__',
      changes: [
        { op: 'add', path: [], value: [] },
        { op: 'add', path: ['__proto__', 'polluted'], value: true },
      ],
      segment: '__proto__',
    },
    {
      name: 'an append to an inherited member',
      changes: [
        { op: 'add', path: [], value: {} },
        { op: 'append', path: ['toString'], value: 'x' },
      ],
      segment: 'toString',
    },
    {
      name: 'a key on an array',
      changes: [
        { op: 'add', path: [], value: [] },
        { op: 'add', path: ['length'], value: 5 },
      ],
      segment: 'length',
    },
    {
      name: 'a hole in an array',
      changes: [
        { op: 'add', path: [], value: [] },
        { op: 'add', path: [3], value: 1 },
      ],
      segment: '3',
    },
    {
      name: 'through a scalar',
      changes: [
        { op: 'add', path: [], value: { a: 1 } },
        { op: 'add', path: ['a'], value: 1 },
        { op: 'add', path: ['a', 'b'], value: 1 },
      ],
      segment: 'a',
    },
    {
      name: 'into a missing root',
      changes: [{ op: 'add', path: ['prototype', 'polluted'], value: true }],
      segment: 'prototype',
    },
  ];

  test.each(hostile)('refuses a path $name, naming the segment', ({ changes, segment }) => {
    const before = prototypeKeys();
    expect(() => applyChanges(undefined, changes)).toThrow(TypeError);
    expect(() => applyChanges(undefined, changes)).toThrow(`"${segment}"`);
    expectNoPollution(before);
  });

  test('refuses a change that is not one of the three ops or carries the wrong value', () => {
    const before = prototypeKeys();
    expect(() => applyChanges({}, [{ op: 'merge', path: ['a'], value: 1 } as unknown as Change])).toThrow(TypeError);
    expect(() => applyChanges('', [{ op: 'append', path: [], value: 5 } as unknown as Change])).toThrow(TypeError);
    expect(() => applyChanges({ a: 1 }, [{ op: 'append', path: ['a'], value: 'x' }])).toThrow(TypeError);
    expect(() => applyChanges({}, [{ op: 'add', path: 'a', value: 1 } as unknown as Change])).toThrow(TypeError);
    expectNoPollution(before);
  });

  test('a long segment is quoted, not copied whole into the message', () => {
    const segment = 'k'.repeat(100_000);
    expect(() => applyChanges({}, [{ op: 'add', path: [segment, 'x'], value: 1 }])).toThrow(/… \(100000 characters\)/);
    try {
      applyChanges({}, [{ op: 'add', path: [segment, 'x'], value: 1 }]);
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(1000);
    }
  });

  test('__proto__, constructor and prototype keys in the data round-trip through the changes as own members', () => {
    const text =
      '{"__proto__": {"polluted": true, "__proto__": [1]}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": "p"}';
    const before = prototypeKeys();
    for (const [label, chunks] of chunkings(text)) {
      const run = buildPartial(chunks);
      const state = replay(run.changes) as Record<string, unknown>;
      expect(state, label).toEqual(JSON.parse(text));
      expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
      expect(Object.keys(state)).toEqual(['__proto__', 'constructor', 'prototype']);
      const inner = Object.getOwnPropertyDescriptor(state, '__proto__')?.value as Record<string, unknown>;
      expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
      expect(Object.hasOwn(inner, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(run.final)).toBe(Object.prototype);
    }
    expectNoPollution(before);
  });
});

describe('depth', () => {
  test('the default guard is DEFAULT_MAX_DEPTH', () => {
    const within = `${'['.repeat(DEFAULT_MAX_DEPTH)}${']'.repeat(DEFAULT_MAX_DEPTH)}`;
    expect(buildPartial([within]).complete).toBe(true);
    expect(buildPartial([`[${within}]`]).diagnostics.map((d) => d.reason)).toEqual(['too-deep']);
  });

  test('a deep value within a raised guard never recurses on the call stack (snapshot copies included)', () => {
    // A child process with a small stack (--stack-size, in KB): a copy that recursed once per
    // open container overflowed here between 1 000 and 2 000 levels.
    const core = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const script = `
      const { createPartialBuilder } = await import(${JSON.stringify(core)});
      const depth = 4000;
      const text = '['.repeat(depth) + '"x"' + ']'.repeat(depth);
      let updates = 0;
      const b = createPartialBuilder({ maxDepth: depth }, { update() { updates++; }, diagnostic(d) { throw new Error(d.message); } });
      for (let i = 0; i < text.length; i += 1000) b.write(text.slice(i, i + 1000));
      b.end();
      let v = b.value, levels = 0;
      while (Array.isArray(v)) { v = v[0]; levels++; }
      console.log(JSON.stringify({ complete: b.complete, levels, leaf: v, updates }));
    `;
    const out = execFileSync(process.execPath, ['--stack-size=200', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ complete: true, levels: 4000, leaf: 'x', updates: 9 });
  });
});

describe('keys: remembered ones and the rest', () => {
  test('the same key plain and escaped, __proto__, long keys and more distinct keys than are remembered', () => {
    const long = `k${'x'.repeat(80)}`;
    const items = Array.from({ length: 700 }, (_, i) => ({
      [`key${i}`]: i,
      name: `n${i}`,
      [long]: true,
      ['__proto__']: { polluted: i },
    }));
    // The same key once plain and once escaped: one key, the later value wins.
    const text = JSON.stringify({ items }).replace('"name":"n3"', '"\\u006eame":"n3"');
    const expected = JSON.parse(text);
    for (const size of [1, 4, 7, 64, 4096]) {
      const label = `size ${size}`;
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      const builder = createPartialBuilder({ snapshots: 'paced' }, { update() {}, diagnostic() {} });
      for (const chunk of chunks) builder.write(chunk);
      builder.end();
      expect(builder.value, label).toEqual(expected);
      const first = (builder.value as { items: Record<string, unknown>[] }).items[0] as Record<string, unknown>;
      expect(Object.hasOwn(first, '__proto__'), label).toBe(true);
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    }
  });
});
