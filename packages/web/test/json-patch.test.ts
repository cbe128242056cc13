/**
 * `toJsonPatch` / `fromJsonPatch` (packages/web/src/json-patch.ts): the RFC 6902 mapping as the
 * guide states it — appends become replaces of the whole string, `complete` has no equivalent,
 * and back, a replace that extends a string becomes an append again; what a growing value
 * cannot express is a TypeError that says so.
 */
import { applyChanges, type Change } from '@llmjson/core';
import { fromJsonPatch, type JsonPatchOperation, toJsonPatch, toJsonPointer } from '@llmjson/web';
import { describe, expect, test } from 'vitest';

describe('toJsonPatch', () => {
  test('adds, appends as whole-string replaces, completes dropped', () => {
    const changes: Change[] = [
      { op: 'add', path: [], value: {} },
      { op: 'add', path: ['title'], value: '' },
      { op: 'append', path: ['title'], value: 'Hel' },
      { op: 'append', path: ['title'], value: 'lo' },
      { op: 'complete', path: ['title'] },
      { op: 'add', path: ['items'], value: [] },
      { op: 'add', path: ['items', 0], value: 1 },
    ];
    expect(toJsonPatch(changes)).toEqual([
      { op: 'add', path: '', value: {} },
      { op: 'add', path: '/title', value: '' },
      { op: 'replace', path: '/title', value: 'Hel' },
      { op: 'replace', path: '/title', value: 'Hello' },
      { op: 'add', path: '/items', value: [] },
      { op: 'add', path: '/items/0', value: 1 },
    ]);
  });

  test('an append reads the string so far from the state it is given, which it does not modify', () => {
    const state = { a: { 'b/c~': 'so far' } };
    const ops = toJsonPatch([{ op: 'append', path: ['a', 'b/c~'], value: '!' }], state);
    expect(ops).toEqual([{ op: 'replace', path: '/a/b~1c~0', value: 'so far!' }]);
    expect(state).toEqual({ a: { 'b/c~': 'so far' } });
  });

  test('an add at an index the array already has is a replace (coercion replaces values)', () => {
    const ops = toJsonPatch([{ op: 'add', path: [0], value: 2 }], [1]);
    expect(ops).toEqual([{ op: 'replace', path: '/0', value: 2 }]);
  });

  test('an append to what is not a string: a TypeError that asks for the state', () => {
    expect(() => toJsonPatch([{ op: 'append', path: ['a'], value: 'x' }])).toThrow(
      /pass the state the changes apply to/,
    );
  });

  test('pointers escape ~ and / (RFC 6901)', () => {
    expect(toJsonPointer(['a/b', '~', 3])).toBe('/a~1b/~0/3');
  });
});

describe('fromJsonPatch', () => {
  test('a replace that extends a string is an append again; containers are added empty, then member by member', () => {
    const state = { title: 'Hel', items: [] as unknown[] };
    const ops: JsonPatchOperation[] = [
      { op: 'replace', path: '/title', value: 'Hello' },
      { op: 'add', path: '/items/-', value: { tags: ['x'] } },
      { op: 'test', path: '/title', value: 'Hello' },
      { op: 'add', path: '/items/0/tags/-', value: 'y' },
    ];
    const changes = fromJsonPatch(ops, state);
    expect(changes).toEqual([
      { op: 'append', path: ['title'], value: 'lo' },
      { op: 'add', path: ['items', 0], value: {} },
      { op: 'add', path: ['items', 0, 'tags'], value: [] },
      { op: 'add', path: ['items', 0, 'tags', 0], value: 'x' },
      { op: 'add', path: ['items', 0, 'tags', 1], value: 'y' },
    ]);
    expect(state).toEqual({ title: 'Hel', items: [] });
    expect(applyChanges(structuredClone(state), changes)).toEqual({ title: 'Hello', items: [{ tags: ['x', 'y'] }] });
  });

  test('"0" is an index under an array and a key under an object', () => {
    expect(fromJsonPatch([{ op: 'add', path: '/0', value: 1 }], {})).toEqual([{ op: 'add', path: ['0'], value: 1 }]);
    expect(fromJsonPatch([{ op: 'add', path: '/0', value: 1 }], [])).toEqual([{ op: 'add', path: [0], value: 1 }]);
  });

  const refused: [string, JsonPatchOperation, unknown, RegExp][] = [
    ['remove', { op: 'remove', path: '/a' }, { a: 1 }, /only grows/],
    ['move', { op: 'move', path: '/b', from: '/a' }, { a: 1 }, /only grows/],
    ['an insert before the end of an array', { op: 'add', path: '/0', value: 0 }, [1], /only appends/],
    ['a replace of what does not exist', { op: 'replace', path: '/a', value: 0 }, {}, /does not exist/],
    ['a path that does not resolve', { op: 'add', path: '/a/b', value: 0 }, {}, /does not resolve/],
    ['a pointer without its slash', { op: 'add', path: 'a', value: 0 }, {}, /JSON Pointer/],
    ['an index with a leading zero', { op: 'add', path: '/01', value: 0 }, [1], /not an index/],
  ];
  test.each(refused)('%s: a TypeError that says why', (_, op, state, message) => {
    expect(() => fromJsonPatch([op], state)).toThrow(TypeError);
    expect(() => fromJsonPatch([op], state)).toThrow(message);
  });
});
