/**
 * Hostile generator: wide objects in paced snapshots (decision 020 and its addendum of
 * 2026-11-27). Objects of up to 2 000 keys (past the floor of 64 members and the timer's
 * limit of 512) — flat, nested in objects and arrays, side by side, with `__proto__`,
 * `constructor`, `prototype` and other prototype-named keys, empty and numeric-looking keys —
 * go through the default Node and Web `createPartialStream()` (snapshots, paced) as bytes
 * split anywhere (UTF-8 sequences included) or in chunks of 8 to 512 bytes. Whatever the
 * chunking:
 * - the last snapshot, and the stream's `value`, are `JSON.parse` of the document (own
 *   `__proto__` members included), and the document is `complete`;
 * - every snapshot still serialises as it did when it was handed out (snapshots are never
 *   mutated: they are not frozen, the module promises they are not changed), has plain
 *   prototypes, and the next one extends it with unchanged members identical;
 * - no prototype is polluted;
 * - the copying the snapshots cause, counted from them (copiedBetween: array elements, and
 *   object members at 32 slots each), stays within `snapshotBudget` (4) slots per character,
 *   plus the floor of 64 members (2 048 slots) per write, plus 3 members per member of the
 *   document (the updates paid for by the open containers doubling).
 * The stream's timer is set beyond the run (`maxSnapshotDelay`), so which snapshots go out
 * depends on the chunking alone.
 *
 * Runs: 300 per property on CI, 60 locally; `HOSTILE_RUNS` overrides.
 */
import { Readable } from 'node:stream';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { splitAt, utf8 } from '../support/chunking.js';
import { hostileRuns } from '../support/hostile.js';
import { copiedBetween, expectNoPollution, prototypeKeys } from '../support/partial.js';

/** Keys that name what a prototype holds, and other awkward ones. */
const hostileKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '__defineGetter__',
    '',
    '0',
    '42',
    '-1',
    'k1',
    'é',
    '😀',
    'a\u0000b',
    'line\nbreak',
  ),
  // Never `m` and digits: those are the generated keys, and a repeated key is not growth.
  fc.string({ maxLength: 6 }).filter((key) => !/^m\d+$/.test(key)),
);

/**
 * A wide object as JSON text: up to `max` generated members, hostile keys spliced in anywhere
 * (each key once: a repeated key replaces its value, as in `JSON.parse`, which no snapshot
 * sequence can show as growing).
 */
function wideObject(max: number): fc.Arbitrary<string> {
  return fc
    .record({
      size: fc.oneof(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 60, max })),
      hostile: fc.uniqueArray(hostileKey, { maxLength: 10 }),
      at: fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
      values: fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 1, maxLength: 5 }),
      spaced: fc.boolean(),
    })
    .map(({ size, hostile, at, values, spaced }) => {
      // Generated keys are `m0`, `m1`…: never one of the hostile ones.
      const keys = Array.from({ length: size }, (_, i) => `m${i}`);
      hostile.forEach((key, i) => {
        keys.splice((at[i] ?? 0) % (keys.length + 1), 0, key);
      });
      const sep = spaced ? ', ' : ',';
      const colon = spaced ? ': ' : ':';
      return `{${keys.map((key, i) => `${JSON.stringify(key)}${colon}${JSON.stringify(values[i % values.length])}`).join(sep)}}`;
    });
}

/** Documents: a wide object alone, wide objects nested in objects and arrays, or side by side. */
const wideDocument: fc.Arbitrary<string> = fc.oneof(
  wideObject(2000),
  fc
    .tuple(wideObject(400), wideObject(400), wideObject(400))
    .map(([a, b, c]) => `{"a": ${a}, "list": [${b}, {"inner": ${c}}], "__proto__": ${b}, "constructor": ${a}}`),
  fc.array(wideObject(400), { minLength: 1, maxLength: 3 }).map((objects) => `[${objects.join(',')}]`),
  fc.tuple(wideObject(400), wideObject(400)).map(([a, b]) => `{"outer": {"mid": {"deep": ${a}}, "next": ${b}}}`),
);

/** The document's bytes split anywhere, or in chunks of one size. */
const chunked = wideDocument.chain((text) => {
  const bytes = utf8.encode(text);
  return fc.record({
    text: fc.constant(text),
    chunks: fc.oneof(
      fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 100 }).map((points) => splitAt(bytes, points)),
      fc.integer({ min: 8, max: 512 }).map((size) => {
        const out: Uint8Array[] = [];
        for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
        return out;
      }),
    ),
  });
});

/** A snapshot as handed out: the value and its serialisation at that moment. */
interface Seen {
  readonly value: unknown;
  readonly json: string;
}

/** Node: each chunk written as it comes, each snapshot serialised as it is emitted. */
async function viaNode(chunks: readonly Uint8Array[]): Promise<{ seen: Seen[]; value: unknown; complete: boolean }> {
  const stream = node.createPartialStream({ maxSnapshotDelay: 600_000 });
  const seen: Seen[] = [];
  stream.on('data', (value: unknown) => seen.push({ value, json: JSON.stringify(value) }));
  const ended = new Promise((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  Readable.from(chunks, { objectMode: false }).pipe(stream);
  await ended;
  return { seen, value: stream.value, complete: stream.complete };
}

/** Web: each chunk written in turn; each snapshot serialised as it is read. */
async function viaWeb(chunks: readonly Uint8Array[]): Promise<{ seen: Seen[]; value: unknown; complete: boolean }> {
  const stream = web.createPartialStream({ maxSnapshotDelay: 600_000 });
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const seen: Seen[] = [];
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen.push({ value, json: JSON.stringify(value) });
    }
  })();
  for (const chunk of chunks) await writer.write(chunk);
  await writer.close();
  await reading;
  return { seen, value: stream.value, complete: stream.complete };
}

/**
 * Where `later` fails to extend `earlier` as the partial-value invariants allow (strings only
 * grow, arrays only append with their earlier elements but the last identical, keys never
 * disappear, scalars never change), or `undefined`. Identical subtrees are not walked, so the
 * check costs what the copies cost (`grows` of test/support/partial.ts, without an `expect`
 * per member: a thousand-key object in a hundred snapshots).
 */
function notExtending(earlier: unknown, later: unknown): string | undefined {
  const stack: [unknown, unknown, string][] = [[earlier, later, '']];
  while (stack.length > 0) {
    const [a, b, at] = stack.pop() as [unknown, unknown, string];
    if (a === b) continue;
    if (typeof a === 'string') {
      if (typeof b !== 'string' || !b.startsWith(a)) return `${at}: a string that did not grow`;
    } else if (Array.isArray(a)) {
      if (!Array.isArray(b) || b.length < a.length) return `${at}: an array that did not only append`;
      for (let i = 0; i < a.length - 1; i++) if (a[i] !== b[i]) return `${at}/${i}: an element that changed`;
      if (a.length > 0) stack.push([a[a.length - 1], b[a.length - 1], `${at}/${a.length - 1}`]);
    } else if (typeof a === 'object' && a !== null) {
      if (typeof b !== 'object' || b === null || Array.isArray(b)) return `${at}: an object replaced`;
      for (const key of Object.keys(a)) {
        if (!Object.hasOwn(b, key)) return `${at}/${key}: a key that disappeared`;
        stack.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}/${key}`]);
      }
    } else {
      return `${at}: a scalar that changed`;
    }
  }
  return undefined;
}

/** Array elements and object members in `value`, all levels (a loop). */
function membersOf(value: unknown): number {
  let count = 0;
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null) continue;
    const names = Object.keys(item);
    count += names.length;
    for (const name of names) stack.push((item as Record<string, unknown>)[name]);
  }
  return count;
}

/** Every container of `value` has the plain prototype (a loop: nothing recurses on the value). */
function expectPlain(value: unknown): void {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null) continue;
    expect(Object.getPrototypeOf(item)).toBe(Array.isArray(item) ? Array.prototype : Object.prototype);
    for (const key of Object.keys(item)) stack.push((item as Record<string, unknown>)[key]);
  }
}

function check(text: string, chunks: readonly Uint8Array[], run: Awaited<ReturnType<typeof viaNode>>): void {
  const expected = JSON.stringify(JSON.parse(text));
  const { seen } = run;
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.at(-1)?.json).toBe(expected);
  expect(JSON.stringify(run.value)).toBe(expected);
  expect(run.complete).toBe(true);
  // Never mutated by the chunks that came after it; each extends the one before.
  const changed = seen.findIndex((s) => JSON.stringify(s.value) !== s.json);
  expect(changed).toBe(-1);
  const broken = seen.map((s, i) => (i === 0 ? undefined : notExtending(seen[i - 1]?.value, s.value)));
  expect(broken.filter((b) => b !== undefined)).toEqual([]);
  expectPlain(seen.at(-1)?.value);
  const copied = copiedBetween(seen.map((s) => s.value));
  // snapshotBudget (4) slots per character, plus the floor (64 members, at most 2 048 slots) per
  // write, plus 3 members (at most 96 slots) per member for the updates the doubling rule pays.
  const budget = 4 * text.length + 2048 * chunks.length + 96 * membersOf(JSON.parse(text));
  expect(copied.elements + 32 * copied.keys).toBeLessThanOrEqual(budget);
}

describe('a repeated key in paced snapshots (Node and Web streams)', () => {
  // The property's generator once produced `m0` as a hostile key beside the generated `m0`: the
  // repeated key replaces the array (as JSON.parse does), so the next snapshot does not extend
  // the one before; what must hold is that no snapshot handed out changes afterwards.
  const text = '{"m0":[false],"m0":[false]}';
  const chunks = [
    [123, 34, 109, 48, 34, 58, 91, 102, 97, 108, 115, 101],
    [93, 44, 34, 109, 48, 34, 58, 91],
    [102, 97, 108, 115, 101, 93, 125],
  ].map((bytes) => Uint8Array.from(bytes));
  for (const [name, via] of [
    ['Node', viaNode],
    ['Web', viaWeb],
  ] as const) {
    test(`${name}: the replaced array is a new one; no snapshot handed out changes`, async () => {
      const run = await via(chunks);
      expect(run.seen.map((s) => s.json)).toEqual(['{"m0":[false]}', '{"m0":[]}', '{"m0":[false]}']);
      expect(run.seen.map((s) => JSON.stringify(s.value))).toEqual(run.seen.map((s) => s.json));
      expect(JSON.stringify(run.value)).toBe(JSON.stringify(JSON.parse(text)));
      expect(run.complete).toBe(true);
    });
  }
});

describe('hostile: wide objects in paced snapshots (Node and Web streams, any chunking)', () => {
  test('the last snapshot is JSON.parse; snapshots never change and share members; copies within budget', async () => {
    const before = prototypeKeys();
    await fc.assert(
      fc.asyncProperty(chunked, async ({ text, chunks }) => {
        check(text, chunks, await viaNode(chunks));
        check(text, chunks, await viaWeb(chunks));
        expectNoPollution(before);
      }),
      { numRuns: hostileRuns },
    );
    // A bound on a hang, not a speed limit: 300 runs through two kinds of stream took 15 s here.
  }, 600_000);
});
