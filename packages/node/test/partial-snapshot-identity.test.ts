/**
 * Paced snapshots (decision 020: `snapshots: 'paced'`, the default of `createPartialStream()`):
 * a snapshot handed out — to `update`, through a stream, or read from `value` — is never
 * mutated; complete items keep their identity from one snapshot to the next; the change lists
 * applied in order reproduce every snapshot; the last value is always delivered; and the
 * copying that snapshots cause stays within `snapshotBudget` slots per input character (the
 * linear-time bound, counted rather than timed). Arbitrary documents with long arrays, split
 * at arbitrary points.
 */
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { test as fcTest } from '@fast-check/vitest';
import { applyChanges, type Change, createPartialBuilder, type PartialOptions } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { createPartialStream, type PartialStreamOptions } from '@llmjson/node';
import { createPartialStream as createWebPartialStream } from '@llmjson/web';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunkText, numRuns, splitAt, splitPoints, utf8 } from '../../../test/support/chunking.js';
import { buildPartial, grows, nodePartial, webPartial } from '../../../test/support/partial.js';

// Documents whose arrays are long enough for pacing to defer snapshots: an `items` array of
// up to 300 values next to arbitrary JSON, hostile keys included, written with any spacing.
const documentValue = fc.oneof(
  fc.record({
    title: fc.string(),
    items: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 300 }),
    rest: fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor')),
      fc.jsonValue({ maxDepth: 3 }),
      {
        maxKeys: 4,
      },
    ),
  }),
  fc.array(fc.oneof(fc.integer(), fc.string(), fc.array(fc.integer(), { maxLength: 80 })), { maxLength: 300 }),
  fc.jsonValue({ maxDepth: 4 }),
);
const document = documentValue.chain((value) =>
  fc.record({
    value: fc.constant(value),
    text: fc.constantFrom(0, 1).map((space) => JSON.stringify(value, null, space)),
  }),
);

/** What a paced builder run handed out, in order: each update's value, and each value read. */
interface Handed {
  readonly value: unknown;
  /** Its serialisation when it was handed out. */
  readonly frozen: string | undefined;
  /** The changes delivered with it (an update), or undefined (a read of `value`). */
  readonly changes: readonly Change[] | undefined;
}

function pacedRun(
  chunks: readonly string[],
  options: PartialOptions,
  reads: readonly boolean[],
): { handed: Handed[]; final: unknown; complete: boolean; writes: number } {
  const handed: Handed[] = [];
  const builder = createPartialBuilder(options, {
    update: (value, changes) => handed.push({ value, frozen: JSON.stringify(value), changes }),
    diagnostic: () => {},
  });
  chunks.forEach((chunk, i) => {
    builder.write(chunk);
    // Materialised on read: a value read between writes is a snapshot too.
    if (reads[i % Math.max(1, reads.length)] === true) {
      const value = builder.value;
      // Before the document starts there is no value yet.
      if (value !== undefined) handed.push({ value, frozen: JSON.stringify(value), changes: undefined });
    }
    // A flush (what a stream's timer does) delivers a deferred update at once.
    if (reads[(i + 1) % Math.max(1, reads.length)] === true && builder.deferred) {
      builder.flush();
      expect(builder.deferred).toBe(false);
    }
  });
  builder.end();
  return { handed, final: builder.value, complete: builder.complete, writes: chunks.length };
}

describe('paced snapshots (builder)', () => {
  fcTest.prop(
    [
      document.chain((d) => fc.tuple(fc.constant(d), splitPoints(d.text.length))),
      fc.constantFrom(0, 0.25, 1, 4, 16),
      fc.array(fc.boolean(), { maxLength: 7 }),
    ],
    { numRuns },
  )(
    'never mutated, complete items keep identity, changes reproduce each snapshot, the last value is delivered',
    ([doc, points], snapshotBudget, reads) => {
      const chunks = splitAt(doc.text, points);
      const run = pacedRun(chunks, { snapshots: 'paced', snapshotBudget }, reads);
      const expected: unknown = JSON.parse(doc.text);
      expect(run.final).toEqual(expected);
      expect(run.complete).toBe(true);
      let applied: unknown;
      let updates = 0;
      run.handed.forEach((h, i) => {
        // Never mutated since it was handed out.
        expect(JSON.stringify(h.value)).toBe(h.frozen);
        // Strings grow, arrays append, and complete elements are the same objects.
        if (i > 0) grows(run.handed[i - 1]?.value, h.value, false);
        if (h.changes !== undefined) {
          updates++;
          applied = applyChanges(applied, h.changes);
          expect(applied).toEqual(h.value);
        }
      });
      // The last update carries the whole document; at most one update per write.
      const last = run.handed.filter((h) => h.changes !== undefined).at(-1);
      expect(last?.value).toEqual(expected);
      expect(updates).toBeLessThanOrEqual(run.writes + 1);
      // The same values as a snapshot per write, where both deliver (chunking does not matter).
      expect(buildPartial(chunks).final).toEqual(run.final);
    },
  );

  test('small containers (up to 64 slots): an update for every write, as with snapshots: true', () => {
    const text = '{"title": "Café ☕", "items": [{"id": 1}, {"id": 2, "tags": ["日本", "😀"]}], "done": true}';
    for (let size = 1; size <= 8; size++) {
      const chunks = chunkText(text, size);
      const paced = buildPartial(chunks, { snapshots: 'paced' });
      const each = buildPartial(chunks);
      expect(paced.snapshots, `size ${size}`).toEqual(each.snapshots);
      expect(paced.changes, `size ${size}`).toEqual(each.changes);
    }
  });

  test('long arrays: the copying snapshots cause stays within snapshotBudget slots per character', () => {
    const items = Array.from({ length: 4000 }, (_, id) => ({ id, name: `item ${id}`, done: id % 2 === 0 }));
    const text = JSON.stringify({ title: 'long', items });
    const chunks = chunkText(text, 4);
    for (const snapshotBudget of [1, 4, 16]) {
      let copied = 0;
      let updates = 0;
      const builder = createPartialBuilder(
        { snapshots: 'paced', snapshotBudget },
        {
          update(value) {
            updates++;
            // What the next write copies, at least: the `items` array.
            copied += (value as { items?: unknown[] }).items?.length ?? 0;
          },
          diagnostic() {},
        },
      );
      for (const chunk of chunks) builder.write(chunk);
      builder.end();
      expect(builder.value).toEqual(JSON.parse(text));
      // Up to 64 slots per write always; more when the characters since the last one pay for it.
      const paidFor = snapshotBudget * text.length + 64 * chunks.length;
      expect(copied, `budget ${snapshotBudget}`).toBeLessThanOrEqual(paidFor + items.length);
      expect(updates).toBeGreaterThan(1);
      expect(updates).toBeLessThan(chunks.length / 2);
    }
  });

  test('an update is deferred, then delivered by flush, by a later write, or at the end (a cut document too)', () => {
    const updates: unknown[] = [];
    const builder = createPartialBuilder(
      { snapshots: 'paced', snapshotBudget: 0 },
      { update: (value) => updates.push(value), diagnostic: () => {} },
    );
    // More than 64 slots open (the root's member, 70 elements), and no budget: deferred.
    const numbers = Array.from({ length: 70 }, (_, i) => i);
    builder.write(`{"a": [${numbers.join(', ')}, 70`);
    expect(updates).toEqual([]);
    expect(builder.deferred).toBe(true);
    builder.flush();
    expect(updates).toEqual([{ a: numbers }]);
    expect(builder.deferred).toBe(false);
    builder.write(', 71, "x');
    expect(builder.deferred).toBe(true);
    const read = builder.value;
    expect(read).toEqual({ a: [...numbers, 70, 71, 'x'] });
    builder.write('yz');
    // The value read was a snapshot: the write copied what it touched.
    expect(read).toEqual({ a: [...numbers, 70, 71, 'x'] });
    builder.end();
    expect(updates).toEqual([{ a: numbers }, { a: [...numbers, 70, 71, 'xyz'] }]);
    const [first, last] = updates as { a: unknown[] }[];
    expect(first?.a).not.toBe(last?.a);
  });

  test('snapshots and snapshotBudget are checked', () => {
    const sink = { update() {}, diagnostic() {} };
    expect(() => createPartialBuilder({ snapshots: 'lazy' as never }, sink)).toThrow(/snapshots must be/);
    expect(() => createPartialBuilder({ snapshots: 'paced', snapshotBudget: -1 }, sink)).toThrow(/snapshotBudget/);
    expect(() => createPartialBuilder({ snapshots: 'paced', snapshotBudget: Number.NaN }, sink)).toThrow(
      /snapshotBudget/,
    );
  });
});

describe('snapshots without change lists (trackChanges: false), and values read during a write', () => {
  fcTest.prop(
    [
      document.chain((d) => fc.tuple(fc.constant(d), splitPoints(d.text.length))),
      fc.constantFrom<'paced' | boolean>('paced', true, false),
      fc.constantFrom<'changes' | 'values'>('changes', 'values'),
    ],
    { numRuns },
  )(
    'the same updates with the same values as with change lists, each list empty, stats.changes the same',
    ([doc, points], snapshots, updateOn) => {
      const chunks = splitAt(doc.text, points);
      const run = (trackChanges: boolean) => {
        const updates: { value: unknown; frozen: string; changes: readonly Change[] }[] = [];
        const builder = createPartialBuilder(
          { snapshots, updateOn, trackChanges },
          {
            update: (value, changes) => updates.push({ value, frozen: JSON.stringify(value), changes }),
            diagnostic: () => {},
          },
        );
        for (const chunk of chunks) builder.write(chunk);
        builder.end();
        return { updates, stats: builder.stats, final: builder.value };
      };
      const tracked = run(true);
      const untracked = run(false);
      // The tracked run's changes reproduce each of its snapshots (so both runs are checked
      // against something other than each other).
      let applied: unknown;
      for (const update of tracked.updates) {
        applied = applyChanges(applied, update.changes);
        expect(JSON.stringify(applied)).toBe(update.frozen);
      }
      expect(untracked.final).toEqual(JSON.parse(doc.text));
      expect(untracked.updates.map((u) => u.frozen)).toEqual(tracked.updates.map((u) => u.frozen));
      for (const update of untracked.updates) {
        expect(update.changes).toEqual([]);
        expect(Object.isFrozen(update.changes)).toBe(true);
        // A snapshot handed out is never mutated (with snapshots: false the one live tree is).
        if (snapshots !== false) expect(JSON.stringify(update.value)).toBe(update.frozen);
      }
      expect(untracked.stats.changes).toBe(tracked.stats.changes);
      expect(untracked.stats.updates).toBe(tracked.stats.updates);
    },
  );

  test('a value read inside a callback while a write is under way is a snapshot: never mutated afterwards', () => {
    // A violation reported in the middle of a string in flight; the callback reads the value.
    const schema = { type: 'object', properties: { a: { type: 'string', maxLength: 3 }, b: { type: 'array' } } };
    const text = '{"b": [1, 2], "a": "abcdefgh", "c": [3]}';
    for (const snapshots of ['paced', true] as const) {
      // Up to the whole text in one write: the read then comes before the rest of that write.
      for (let size = 1; size <= text.length; size++) {
        const read: { value: unknown; frozen: string }[] = [];
        const builder = createPartialBuilder(
          { schema, compileJsonSchema: compileSchema, snapshots },
          {
            update: () => {},
            diagnostic: () => {
              const value = builder.value;
              read.push({ value, frozen: JSON.stringify(value) });
            },
          },
        );
        for (const chunk of chunkText(text, size)) builder.write(chunk);
        builder.end();
        expect(read.length, `size ${size}`).toBeGreaterThan(0);
        // The violation's read shows the string in flight up to the character that broke it.
        expect((read[0]?.value as { a?: string } | undefined)?.a, `size ${size}`).toMatch(/^abcd/);
        for (const r of read) expect(JSON.stringify(r.value), `size ${size}`).toBe(r.frozen);
        expect(builder.value).toEqual({ b: [1, 2], a: 'abcdefgh', c: [3] });
      }
    }
  });

  test('the Node and Web streams refuse a stray trackChanges (not a stream option), so it cannot empty the change lists', () => {
    for (const emit of ['changes', 'both'] as const) {
      // A JavaScript caller, or a spread PartialOptions object: refused, naming the option (decision 031).
      const options = { emit, trackChanges: false } as unknown as PartialStreamOptions;
      expect(() => createPartialStream(options)).toThrow(/createPartialStream has no option "trackChanges"/);
      expect(() => createWebPartialStream(options as never)).toThrow(
        /createPartialStream has no option "trackChanges"/,
      );
    }
  });

  test('trackChanges is checked', () => {
    expect(() => createPartialBuilder({ trackChanges: 'no' as never }, { update() {}, diagnostic() {} })).toThrow(
      /trackChanges must be true or false/,
    );
  });
});

/** The Node stream fed each chunk on its own: a write, then the next job (no burst to batch). */
async function oneByOne(chunks: readonly string[], options: PartialStreamOptions): Promise<unknown[]> {
  const stream = createPartialStream(options);
  const out: unknown[] = [];
  stream.on('data', (value: unknown) => out.push(value));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  for (const chunk of chunks) {
    if (!stream.write(chunk)) await once(stream, 'drain');
    else await Promise.resolve();
  }
  stream.end();
  await ended;
  return out;
}

describe('paced snapshots (streams, the default)', () => {
  fcTest.prop([document.chain((d) => fc.tuple(fc.constant(d), splitPoints(utf8.encode(d.text).length)))], {
    numRuns: Math.ceil(numRuns / 4),
  })(
    'Node and Web: snapshots never mutated, complete items keep identity, the last one is the document',
    async ([doc, points]) => {
      const bytes = splitAt(utf8.encode(doc.text), points);
      const expected: unknown = JSON.parse(doc.text);
      for (const run of [await nodePartial(bytes), await webPartial(bytes)]) {
        const frozen = run.out.map((s) => JSON.stringify(s));
        expect(run.complete).toBe(true);
        expect(run.value).toEqual(expected);
        if (expected !== null) expect(run.out.at(-1)).toEqual(expected);
        run.out.forEach((snapshot, i) => {
          if (i > 0) grows(run.out[i - 1], snapshot, false);
          if (i > 0) expect(snapshot).not.toBe(run.out[i - 1]);
        });
        // Still as they were when emitted, after the whole run.
        expect(run.out.map((s) => JSON.stringify(s))).toEqual(frozen);
        expect(run.out.length).toBeLessThanOrEqual(bytes.length + 1);
      }
      // emit 'both' paced: the change lists reproduce every value.
      const both = await nodePartial(bytes, { emit: 'both', snapshots: 'paced' });
      let applied: unknown;
      for (const item of both.out as { value: unknown; changes: Change[] }[]) {
        applied = applyChanges(applied, item.changes);
        expect(applied).toEqual(item.value);
      }
      expect(applied).toEqual(expected);
    },
  );

  test('a long array in 4-character chunks: far fewer snapshots than chunks, the last one whole', async () => {
    const text = JSON.stringify({ items: Array.from({ length: 3000 }, (_, id) => ({ id, ok: true })) });
    const chunks = chunkText(text, 4);
    // Node: each chunk written on its own (a token per turn; a burst would be batched, decision 022).
    const node = await oneByOne(chunks, {});
    for (const out of [node, (await webPartial(chunks)).out]) {
      expect(out.at(-1)).toEqual(JSON.parse(text));
      expect(out.length).toBeLessThan(chunks.length / 4);
    }
    // A snapshot per chunk on request.
    expect((await oneByOne(chunks, { snapshots: true })).length).toBeGreaterThan(chunks.length / 2);
  });

  test('a deferred snapshot goes out after maxSnapshotDelay when no chunk comes (Node and Web)', async () => {
    const long = `{"items": [${Array.from({ length: 200 }, (_, i) => i).join(',')}, "tail`;
    const node = createPartialStream({ maxSnapshotDelay: 5 });
    const seen: unknown[] = [];
    node.on('data', (v) => seen.push(v));
    node.write(long.slice(0, long.length - 8));
    node.write(long.slice(long.length - 8));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((seen.at(-1) as { items: unknown[] }).items.at(-1)).toBe('tail');
    node.end();
    await new Promise((resolve) => node.on('end', resolve));

    const web = createWebPartialStream({ maxSnapshotDelay: 5 });
    const writer = web.writable.getWriter();
    const reader = web.readable.getReader();
    const read: unknown[] = [];
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        read.push(value);
      }
    })();
    await writer.write(long.slice(0, long.length - 8));
    await writer.write(long.slice(long.length - 8));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((read.at(-1) as { items: unknown[] }).items.at(-1)).toBe('tail');
    await writer.close();
    await reading;
  });

  test('maxSnapshotDelay is checked', () => {
    for (const options of [{ maxSnapshotDelay: -1 }, { maxSnapshotDelay: Number.POSITIVE_INFINITY }]) {
      expect(() => createPartialStream(options)).toThrow(/maxSnapshotDelay/);
      expect(() => createWebPartialStream(options)).toThrow(/maxSnapshotDelay/);
    }
  });

  test('Readable.from of many chunks: the stream ends with the document', async () => {
    const text = JSON.stringify({ items: Array.from({ length: 500 }, (_, id) => `item ${id}`) });
    const stream = Readable.from(chunkText(text, 3)).pipe(createPartialStream());
    let last: unknown;
    for await (const value of stream) last = value;
    expect(last).toEqual(JSON.parse(text));
  });
});
