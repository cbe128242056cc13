/**
 * The partial-value invariants (packages/core/src/partial-value.ts), as properties over
 * arbitrary JSON documents written with arbitrary spacing and split at arbitrary points.
 */
import { test as fcTest } from '@fast-check/vitest';
import { applyChanges, type Change, createPartialBuilder, type Diagnostic } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints } from '../support/chunking.js';
import { grows } from '../support/partial.js';

interface Run {
  snapshots: unknown[];
  changes: Change[][];
  diagnostics: Diagnostic[];
  final: unknown;
  complete: boolean;
}

function build(chunks: readonly string[]): Run {
  const snapshots: unknown[] = [];
  const changes: Change[][] = [];
  const diagnostics: Diagnostic[] = [];
  const builder = createPartialBuilder(
    {},
    {
      update: (value, list) => {
        snapshots.push(value);
        changes.push([...list]);
      },
      diagnostic: (d) => diagnostics.push(d),
    },
  );
  for (const chunk of chunks) builder.write(chunk);
  builder.end();
  return { snapshots, changes, diagnostics, final: builder.value, complete: builder.complete };
}

const document = fc
  .oneof(
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor')), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 5,
    }),
    fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }),
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
      const run = build(splitAt(doc.text, points));
      expect(run.final).toEqual(JSON.parse(doc.text));
      expect(run.complete).toBe(true);
      expect(run.diagnostics).toEqual([]);
      let applied: unknown;
      run.changes.forEach((list, i) => {
        applied = applyChanges(applied, list);
        expect(applied).toEqual(run.snapshots[i]);
      });
      expect(build([doc.text]).final).toEqual(run.final);
    },
  );

  fcTest.prop([document, fc.integer({ min: 1, max: 7 })], { numRuns })(
    'strings only grow, arrays only append, scalars appear complete, unchanged subtrees keep their identity',
    (doc, size) => {
      const chunks: string[] = [];
      for (let i = 0; i < doc.text.length; i += size) chunks.push(doc.text.slice(i, i + size));
      const frozen: string[] = [];
      const run = build(chunks);
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
      const run = build([doc.text.slice(0, cut)]);
      if (run.final !== undefined) grows(run.final, JSON.parse(doc.text), false, false);
      expect(run.diagnostics.length).toBeLessThanOrEqual(1);
    },
  );

  test('prose and a fence before the document are skipped; __proto__ keys are data', () => {
    const run = build(['Sure!\n```json\n{"__proto__": {"polluted": true}, "a": [1', ', "x"]}\n```']);
    expect(run.final).toEqual(JSON.parse('{"__proto__": {"polluted": true}, "a": [1, "x"]}'));
    expect(Object.getPrototypeOf(run.final)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('changes per chunk: add, append, complete', () => {
    const run = build(['{"title": "Hel', 'lo", "items": [{"id": 1}', ']}']);
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
      expect(lists).toEqual(build(chunks).changes);
      expect(builder.value).toEqual(JSON.parse(doc.text));
    },
  );

  test('a key and a number spanning many chunks are carried without copying them again', () => {
    const key = 'k'.repeat(20_000);
    const text = `{"${key}": ${'9'.repeat(300)}}`;
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 4) chunks.push(text.slice(i, i + 4));
    expect(build(chunks).final).toEqual(JSON.parse(text));
  });

  test('an escape split across chunks is held back until complete', () => {
    const run = build(['["a\\', 'u00', 'e9b\\', '"c"]']);
    expect(run.snapshots).toEqual([['a'], ['aéb'], ['aéb"c']]);
  });

  test('guards: depth, length, syntax', () => {
    expect(build([`${'['.repeat(600)}`]).diagnostics.map((d) => d.reason)).toEqual(['too-deep']);
    const long = build(['{"a": "', 'x'.repeat(100)]);
    expect(long.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
    const limited = createPartialBuilder(
      { maxValueLength: 10 },
      { update() {}, diagnostic: (d) => expect(d.reason).toBe('too-long') },
    );
    limited.write('{"a": "');
    limited.write('x'.repeat(20));
    expect(limited.stats.diagnostics).toEqual({ 'too-long': 1 });
    expect(build(['{"a": 1 "b"}']).diagnostics.map((d) => d.reason)).toEqual(['syntax']);
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

  function diagnose(text: string, size: number): Diagnostic[] {
    const diagnostics: Diagnostic[] = [];
    const builder = createPartialBuilder({ schema }, { update() {}, diagnostic: (d) => diagnostics.push(d) });
    for (let i = 0; i < text.length; i += size) builder.write(text.slice(i, i + size));
    builder.end();
    return diagnostics;
  }

  test('each completed subtree is checked against its sub-schema as it closes, then the document', () => {
    const text = '{"title": "too long", "items": [{"id": 1}, {"id": "x"}, {"name": "n"}], "mode": "c"}';
    for (const size of [1, 4, text.length]) {
      const diagnostics = diagnose(text, size);
      expect(diagnostics.map((d) => d.message.split(':')[0])).toEqual([
        'the value at /title does not match its schema',
        'the value at /items/1/id does not match its schema',
        'the value at /items/1 does not match its schema',
        'the value at /items/2 does not match its schema',
        // A container that closes with invalid members is itself invalid: it is reported too.
        'the value at /items does not match its schema',
        'the value at /mode does not match its schema',
        'the complete document does not match the schema',
      ]);
      expect(diagnostics[1]?.errors?.[0]?.path).toBe('/items/1/id');
    }
  });

  test('a valid document has no diagnostics', () => {
    expect(diagnose('{"title": "ok", "items": [{"id": 1, "name": "a"}], "mode": "a"}', 3)).toEqual([]);
  });
});
