/**
 * Paced snapshots of wide objects (decision 020, addendum of 2026-11-27): an object's member
 * costs the builder's copies about 32 array elements in time (V8 keeps a wide object as a hash
 * table and a copy inserts every key again), so pacing counts it at 32 slots, and the keys that
 * paced snapshots make the builder copy stay linear in the input: at most 3 per key of the
 * document at 10^4 and 10^5 keys, in 16-character and 4 KB chunks, as a long array's elements
 * stay within `snapshotBudget` per character. Counted, not timed: the copies are read from the
 * snapshots (a container that the next snapshot holds as a different object was copied).
 * The snapshots stay what they were: every earlier one unchanged, unchanged members identical,
 * the last one `JSON.parse` of the document.
 */
import { createPartialBuilder, type PartialOptions } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { copiedBetween, grows } from '../../../test/support/partial.js';

/** How the Node and Web snapshot streams configure the builder. */
const STREAM: PartialOptions = { snapshots: 'paced', updateOn: 'values', trackChanges: false };

function wideObject(n: number): string {
  const members: string[] = [];
  for (let i = 0; i < n; i++) members.push(`"key${i}":${i}`);
  return `{${members.join(',')}}`;
}

function longArray(n: number): string {
  return `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;
}

/** Runs the builder over `text` in `size`-character chunks; the snapshots it handed out. */
function snapshotsOf(text: string, size: number, options: PartialOptions = STREAM): unknown[] {
  const snapshots: unknown[] = [];
  const builder = createPartialBuilder(options, { update: (value) => snapshots.push(value), diagnostic() {} });
  for (const chunk of chunkText(text, size)) builder.write(chunk);
  builder.end();
  return snapshots;
}

describe('wide objects in paced snapshots: copies linear in the input', () => {
  for (const n of [10_000, 100_000]) {
    for (const size of [16, 4096]) {
      test(`an object of ${n} keys in ${size}-character chunks: at most 3 keys copied per key`, () => {
        const text = wideObject(n);
        const snapshots = snapshotsOf(text, size);
        expect(snapshots.at(-1)).toEqual(JSON.parse(text));
        const copied = copiedBetween(snapshots);
        expect(copied.keys).toBeLessThanOrEqual(3 * n);
        // Still paced, not held back to the end: the object shows as it grows.
        expect(snapshots.length).toBeGreaterThan(4);
      });

      test(`an array of ${n} elements in ${size}-character chunks: within snapshotBudget per character`, () => {
        const text = longArray(n);
        const snapshots = snapshotsOf(text, size);
        expect(snapshots.at(-1)).toEqual(JSON.parse(text));
        const copied = copiedBetween(snapshots);
        // 4 slots per character, 64 per write while the array holds at most 64 elements.
        expect(copied.elements).toBeLessThanOrEqual(4 * text.length + 64 * 64);
        expect(copied.elements).toBeLessThanOrEqual(30 * n);
      });
    }
  }

  test('a wide object of short members (8 characters, 32 slots at budget 4: what a key costs) still shows as it grows', () => {
    const n = 20_000;
    const members: string[] = [];
    for (let i = 0; i < n; i++) members.push(`"${(i + 1296).toString(36)}":0`);
    const text = `{${members.join(',')}}`;
    for (const size of [16, 4096]) {
      const snapshots = snapshotsOf(text, size);
      expect(snapshots.at(-1)).toEqual(JSON.parse(text));
      // Past the floor of 64 members, each time the object has doubled at least.
      const sizes = snapshots.map((s) => Object.keys(s as object).length).filter((k) => k > 64 && k < n);
      expect(sizes.length, `size ${size}`).toBeGreaterThanOrEqual(5);
      expect(copiedBetween(snapshots).keys).toBeLessThanOrEqual(3 * n);
    }
  });

  test('a wide object nested in objects and arrays: the copies of every open container count', () => {
    const n = 20_000;
    const text = `{"meta": {"id": 1, "rows": [{"cells": ${wideObject(n)}}]}, "after": true}`;
    for (const size of [16, 4096]) {
      const snapshots = snapshotsOf(text, size);
      expect(snapshots.at(-1)).toEqual(JSON.parse(text));
      expect(copiedBetween(snapshots).keys).toBeLessThanOrEqual(3 * n);
    }
  });

  test('snapshots handed out never change, and members keep their identity', () => {
    const text = `{"__proto__": {"constructor": 1}, "wide": ${wideObject(3000)}, "tail": "end"}`;
    const snapshots = snapshotsOf(text, 7);
    const seen = snapshots.map((s) => JSON.stringify(s));
    expect(snapshots.length).toBeGreaterThan(5);
    snapshots.forEach((s, i) => {
      expect(JSON.stringify(s)).toBe(seen[i]);
      expect(Object.getPrototypeOf(s)).toBe(Object.prototype);
      if (i > 0) grows(snapshots[i - 1], s, false);
    });
    const last = snapshots.at(-1) as Record<string, unknown>;
    expect(JSON.stringify(last)).toBe(JSON.stringify(JSON.parse(text)));
    expect(Object.hasOwn(last, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  test('a snapshot per write while the object is small (up to 64 members), as with snapshots: true', () => {
    const text = wideObject(40);
    for (const size of [1, 3, 8]) {
      const paced = snapshotsOf(text, size);
      const each = snapshotsOf(text, size, { ...STREAM, snapshots: true });
      expect(paced).toEqual(each);
    }
  });
});

describe('flush(limit): a timer delivers only a snapshot that costs at most limit slots', () => {
  test('a deferred wide object waits past the limit, goes out within it, and always at flush()', () => {
    const updates: unknown[] = [];
    const builder = createPartialBuilder(
      { snapshots: 'paced', snapshotBudget: 0 },
      { update: (value) => updates.push(value), diagnostic() {} },
    );
    const text = wideObject(1000);
    builder.write(text.slice(0, -1));
    expect(builder.deferred).toBe(true);
    // 1 000 keys cost 32 000 slots: more than 16 384.
    expect(builder.flush(16_384)).toBe(false);
    expect(updates).toEqual([]);
    expect(builder.deferred).toBe(true);
    expect(builder.flush(40_000)).toBe(true);
    expect(updates).toHaveLength(1);
    expect(builder.flush()).toBe(false);
    builder.write(',"more":1');
    expect(builder.deferred).toBe(true);
    expect(builder.flush()).toBe(true);
    expect(updates).toHaveLength(2);
    builder.write('}');
    builder.end();
    expect(updates.at(-1)).toEqual(JSON.parse(`${text.slice(0, -1)},"more":1}`));
  });

  test('an update the input pays for goes out whatever the limit', () => {
    const updates: unknown[] = [];
    const builder = createPartialBuilder(
      { snapshots: 'paced', snapshotBudget: 1e9 },
      { update: (value) => updates.push(value), diagnostic() {} },
    );
    const numbers = Array.from({ length: 100 }, (_, i) => i);
    builder.write(`[${numbers.join(',')}`);
    expect(updates).toHaveLength(1);
    expect(builder.deferred).toBe(false);
    expect(builder.flush(0)).toBe(false);
  });
});
