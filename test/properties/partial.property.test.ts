/**
 * The partial-value invariants (packages/core/src/engines/partial-value.ts), as properties over
 * arbitrary JSON documents (any root) written with arbitrary spacing and split at arbitrary
 * points, over broken JSON-like text, through the Node and Web streams in every mode, and
 * `applyChanges` over hostile change lists.
 */
import { test as fcTest } from '@fast-check/vitest';
import { applyChanges, type Change, createPartialBuilder, type Diagnostic } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints, utf8 } from '../support/chunking.js';
import {
  buildPartial,
  expectNoPollution,
  grows,
  nodePartial,
  prototypeKeys,
  replay,
  webPartial,
} from '../support/partial.js';

// Any JSON document: mostly objects and arrays (with hostile keys), sometimes a bare string,
// number or literal.
const document = fc
  .oneof(
    {
      weight: 3,
      arbitrary: fc.dictionary(
        fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype')),
        fc.jsonValue({ maxDepth: 3 }),
        {
          maxKeys: 5,
        },
      ),
    },
    { weight: 3, arbitrary: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string({ unit: 'grapheme' }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        fc.constantFrom(true, false, null),
      ),
    },
  )
  .chain((value) =>
    fc.record({
      value: fc.constant(value),
      text: fc.constantFrom(0, 1, 2).map((space) => JSON.stringify(value, null, space)),
    }),
  );

describe('partial values', () => {
  fcTest.prop([document.chain((d) => fc.tuple(fc.constant(d), splitPoints(d.text.length)))], { numRuns })(
    'the final snapshot equals JSON.parse; the changes reproduce every snapshot; chunking does not matter',
    ([doc, points]) => {
      const run = buildPartial(splitAt(doc.text, points));
      expect(run.final).toEqual(JSON.parse(doc.text));
      expect(run.complete).toBe(true);
      expect(run.diagnostics).toEqual([]);
      let applied: unknown;
      run.changes.forEach((list, i) => {
        applied = applyChanges(applied, list);
        expect(applied).toEqual(run.snapshots[i]);
      });
      expect(buildPartial([doc.text]).final).toEqual(run.final);
    },
  );

  fcTest.prop([document, fc.integer({ min: 1, max: 7 })], { numRuns })(
    'strings only grow, arrays only append, scalars appear complete, unchanged subtrees keep their identity',
    (doc, size) => {
      const chunks: string[] = [];
      for (let i = 0; i < doc.text.length; i += size) chunks.push(doc.text.slice(i, i + size));
      const frozen: string[] = [];
      const run = buildPartial(chunks);
      // A snapshot handed out is never mutated afterwards.
      for (const snapshot of run.snapshots) frozen.push(JSON.stringify(snapshot));
      run.snapshots.forEach((snapshot, i) => {
        expect(JSON.stringify(snapshot)).toBe(frozen[i]);
        if (i > 0) grows(run.snapshots[i - 1], snapshot, false);
      });
    },
  );

  fcTest.prop([document, fc.nat()], { numRuns })(
    'a cut document yields snapshots that the whole one extends',
    (doc, n) => {
      const cut = n % (doc.text.length + 1);
      const run = buildPartial([doc.text.slice(0, cut)]);
      // A number root cut off is a whole, shorter number: nothing in the text says otherwise.
      const numberRoot = typeof doc.value === 'number';
      if (run.final !== undefined && !numberRoot) grows(run.final, JSON.parse(doc.text), false, false);
      expect(run.diagnostics.length).toBeLessThanOrEqual(1);
      // Only a whole document is complete.
      if (cut < doc.text.length && !numberRoot) expect(run.complete).toBe(false);
      expect(run.complete).toBe(run.diagnostics.length === 0);
    },
  );

  // Text that is JSON-like but mostly broken: prose, words, brackets, escapes, control characters.
  const jsonish = fc
    .array(
      fc.constantFrom(
        '{',
        '}',
        '[',
        ']',
        '"',
        '\\',
        'u',
        '00e9',
        ',',
        ':',
        ' ',
        '\n',
        '\u0001',
        '-',
        '0',
        '12',
        '.',
        'e',
        'true',
        'nul',
        'f',
        'x',
        'é',
        '😀',
        '"a": ',
        'Sure! ',
        '```json\n',
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join(''));

  fcTest.prop([jsonish.chain((t) => fc.tuple(fc.constant(t), splitPoints(t.length)))], { numRuns })(
    'any text, broken or not: chunking does not change the value, complete or the diagnostics',
    ([text, points]) => {
      const whole = buildPartial([text]);
      const split = buildPartial(splitAt(text, points));
      expect(split.final).toEqual(whole.final);
      expect(split.complete).toBe(whole.complete);
      expect(split.diagnostics.map((d) => [d.reason, d.offset])).toEqual(
        whole.diagnostics.map((d) => [d.reason, d.offset]),
      );
      expect(replay(split.changes)).toEqual(whole.final);
      if (whole.complete) expect(whole.diagnostics.filter((d) => d.reason !== 'schema')).toEqual([]);
    },
  );

  test('prose and a fence before the document are skipped; __proto__ keys are data', () => {
    const run = buildPartial(['Sure!\n```json\n{"__proto__": {"polluted": true}, "a": [1', ', "x"]}\n```']);
    expect(run.final).toEqual(JSON.parse('{"__proto__": {"polluted": true}, "a": [1, "x"]}'));
    expect(Object.getPrototypeOf(run.final)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('changes per chunk: add, append, complete', () => {
    const run = buildPartial(['{"title": "Hel', 'lo", "items": [{"id": 1}', ']}']);
    expect(run.changes).toEqual([
      [
        { op: 'add', path: [], value: {} },
        { op: 'add', path: ['title'], value: '' },
        { op: 'append', path: ['title'], value: 'Hel' },
      ],
      [
        { op: 'append', path: ['title'], value: 'lo' },
        { op: 'complete', path: ['title'] },
        { op: 'add', path: ['items'], value: [] },
        { op: 'add', path: ['items', 0], value: {} },
        { op: 'add', path: ['items', 0, 'id'], value: 1 },
        { op: 'complete', path: ['items', 0, 'id'] },
        { op: 'complete', path: ['items', 0] },
      ],
      [
        { op: 'complete', path: ['items'] },
        { op: 'complete', path: [] },
      ],
    ]);
    // The completed item kept its identity across the last snapshot.
    const [, second, third] = run.snapshots as { items: unknown[] }[];
    expect(third?.items[0]).toBe(second?.items[0]);
  });

  fcTest.prop([document, fc.integer({ min: 1, max: 9 })], { numRuns })(
    'snapshots: false gives the same changes without copying',
    (doc, size) => {
      const chunks: string[] = [];
      for (let i = 0; i < doc.text.length; i += size) chunks.push(doc.text.slice(i, i + size));
      const lists: Change[][] = [];
      const builder = createPartialBuilder(
        { snapshots: false },
        { update: (_value, list) => lists.push([...list]), diagnostic: () => {} },
      );
      for (const chunk of chunks) builder.write(chunk);
      builder.end();
      expect(lists).toEqual(buildPartial(chunks).changes);
      expect(builder.value).toEqual(JSON.parse(doc.text));
    },
  );

  test('a key and a number spanning many chunks are carried without copying them again', () => {
    const key = 'k'.repeat(20_000);
    const text = `{"${key}": ${'9'.repeat(300)}}`;
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 4) chunks.push(text.slice(i, i + 4));
    expect(buildPartial(chunks).final).toEqual(JSON.parse(text));
  });

  test('an escape split across chunks is held back until complete', () => {
    const run = buildPartial(['["a\\', 'u00', 'e9b\\', '"c"]']);
    expect(run.snapshots).toEqual([['a'], ['aéb'], ['aéb"c']]);
  });

  test('guards: depth, length, syntax', () => {
    expect(buildPartial([`${'['.repeat(600)}`]).diagnostics.map((d) => d.reason)).toEqual(['too-deep']);
    const long = buildPartial(['{"a": "', 'x'.repeat(100)]);
    expect(long.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
    const limited = createPartialBuilder(
      { maxValueLength: 10 },
      { update() {}, diagnostic: (d) => expect(d.reason).toBe('too-long') },
    );
    limited.write('{"a": "');
    limited.write('x'.repeat(20));
    expect(limited.stats.diagnostics).toEqual({ 'too-long': 1 });
    expect(buildPartial(['{"a": 1 "b"}']).diagnostics.map((d) => d.reason)).toEqual(['syntax']);
  });
});

describe('partial values with a schema', () => {
  const schema = {
    $defs: {
      item: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id'] },
    },
    type: 'object',
    properties: {
      title: { type: 'string', maxLength: 5 },
      items: { type: 'array', items: { $ref: '#/$defs/item' } },
      mode: { oneOf: [{ const: 'a' }, { const: 'b' }] },
    },
    required: ['title', 'items'],
  };

  function diagnose(text: string, size: number, prefixCheck?: boolean): Diagnostic[] {
    const diagnostics: Diagnostic[] = [];
    const builder = createPartialBuilder(
      { schema, compileJsonSchema: compileSchema, ...(prefixCheck === undefined ? {} : { prefixCheck }) },
      { update() {}, diagnostic: (d) => diagnostics.push(d) },
    );
    for (let i = 0; i < text.length; i += size) builder.write(text.slice(i, i + size));
    builder.end();
    return diagnostics;
  }

  test('each completed subtree is checked against its sub-schema as it closes, then the document', () => {
    const text = '{"title": "too long", "items": [{"id": 1}, {"id": "x"}, {"name": "n"}], "mode": "c"}';
    // A prefix-check violation as `[reason, path, rule, offset]`, a subtree or document check as
    // `[reason, message up to its first colon]`.
    const summary = (d: Diagnostic) =>
      d.reason === 'violation' ? [d.reason, d.path, d.rule, d.offset] : [d.reason, d.message.split(':')[0]];
    for (const size of [1, 4, text.length]) {
      const diagnostics = diagnose(text, size);
      expect(diagnostics.map(summary)).toEqual([
        // The sixth character of "too long" breaks maxLength 5; the value is checked when it closes.
        ['violation', '/title', 'maxLength', 16],
        ['schema', 'the value at /title does not match its schema'],
        // A string can never be an integer: certain at its opening quote.
        ['violation', '/items/1/id', 'type', 50],
        ['schema', 'the value at /items/1/id does not match its schema'],
        ['schema', 'the value at /items/1 does not match its schema'],
        // Not prefix-checked: a missing required key (certain only at close) and a oneOf of
        // constants without a discriminator (compared at the first character only).
        ['schema', 'the value at /items/2 does not match its schema'],
        // A container that closes with invalid members is itself invalid: it is reported too.
        ['schema', 'the value at /items does not match its schema'],
        ['schema', 'the value at /mode does not match its schema'],
        ['schema', 'the complete document does not match the schema'],
      ]);
      const idCheck = diagnostics.find((d) => d.message.startsWith('the value at /items/1/id does not match'));
      expect(idCheck?.errors?.[0]?.path).toBe('/items/1/id');
      // The subtree and document checks do not depend on the prefix check.
      expect(diagnose(text, size, false)).toEqual(diagnostics.filter((d) => d.reason === 'schema'));
    }
  });

  test('a valid document has no diagnostics', () => {
    expect(diagnose('{"title": "ok", "items": [{"id": 1, "name": "a"}], "mode": "a"}', 3)).toEqual([]);
  });
});

describe('partial streams, Node and Web', () => {
  const modes = ['snapshots', 'changes', 'both'] as const;

  fcTest.prop([document, fc.integer({ min: 1, max: 8 }), fc.constantFrom(...modes)], {
    numRuns: Math.ceil(numRuns / 4),
  })(
    'whole documents of any root end with their JSON.parse value in every mode; snapshots never repeat',
    async (doc, size, emit) => {
      const bytes = utf8.encode(doc.text);
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const expected: unknown = JSON.parse(doc.text);
      const core = buildPartial([doc.text]);
      for (const [name, run] of [
        ['node', await nodePartial(chunks, { emit })],
        ['web', await webPartial(chunks, { emit })],
      ] as const) {
        expect(run.complete, name).toBe(true);
        expect(run.value, name).toEqual(expected);
        if (emit === 'changes') {
          expect(replay(run.out as Change[][]), name).toEqual(expected);
        } else if (emit === 'both') {
          expect((run.out.at(-1) as { value: unknown }).value, name).toEqual(expected);
        } else if (expected === null && name === 'node') {
          // A Node object-mode stream cannot push null (decision 004).
          expect(run.out, name).toEqual([]);
          expect(
            run.diagnostics.map((d) => d.reason),
            name,
          ).toEqual(['null-value']);
          continue;
        } else {
          expect(run.out.at(-1), name).toEqual(expected);
          run.out.forEach((snapshot, i) => {
            if (i > 0) expect(snapshot, `${name} item ${i}`).not.toBe(run.out[i - 1]);
          });
        }
        expect(run.diagnostics, name).toEqual(core.diagnostics);
      }
    },
  );
});

describe('applyChanges on hostile change lists', () => {
  const segment = fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'toString', 'length', 'valueOf'),
    fc.integer({ min: -1, max: 3 }),
    fc.string({ maxLength: 3 }),
  );
  const change: fc.Arbitrary<Change> = fc.oneof(
    fc.record({
      op: fc.constant('add' as const),
      path: fc.array(segment, { maxLength: 4 }),
      value: fc.jsonValue({ maxDepth: 1 }),
    }),
    fc.record({ op: fc.constant('append' as const), path: fc.array(segment, { maxLength: 4 }), value: fc.string() }),
    fc.record({ op: fc.constant('complete' as const), path: fc.array(segment, { maxLength: 4 }) }),
  );

  fcTest.prop([fc.option(document, { nil: undefined }), fc.array(change, { maxLength: 12 })], { numRuns })(
    'never pollutes a prototype; refuses with a TypeError, or applies',
    (doc, changes) => {
      const before = prototypeKeys();
      // Start from a real state (with hostile keys as own members) or from nothing.
      let state: unknown = doc === undefined ? undefined : replay(buildPartial([doc.text]).changes);
      try {
        state = applyChanges(state, changes);
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        expect((error as Error).message).toMatch(/^applyChanges: /);
      }
      expectNoPollution(before);
    },
  );
});
