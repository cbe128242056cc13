/**
 * Properties of the live wire (packages/web/src: to-event-stream.ts, from-event-stream.ts,
 * json-patch.ts, partial-store.ts), over the change lists the partial builder makes for
 * generated JSON documents (prototype-named keys included) chunked anywhere:
 * - `fromEventStream(toEventStream(x, { throttle: 0 }))` yields `x`, SSE and NDJSON, whatever
 *   the chunking of the bytes (UTF-8 sequences and `\r\n` split included), with no diagnostic
 *   of its own; with a throttle, whatever the source's pace, each event leaves the state that a
 *   prefix of `x` leaves (in order), and the last leaves `x`'s;
 * - `fromJsonPatch(toJsonPatch(c, s), s)` applied to `s` equals `applyChanges(s, c)`, and the
 *   patches applied by an RFC 6902 reference (add and replace, written here from the RFC) give
 *   the same state;
 * - a hostile event stream (fuzzed bytes, well-framed events with random ops, paths and
 *   values in both the whole-path and the compact form, prototype-named keys among them, or a
 *   real document's changes with such changes spliced in) never throws and never pollutes a prototype, and
 *   what it yields applies with `applyChanges` and a store without a refusal;
 * - a store's snapshots never change once handed out, and a subtree keeps its identity from
 *   the apply that completed it on (unless a repeated key of the document replaces it: the last
 *   one wins, as in `JSON.parse`).
 */
import { test as fcTest } from '@fast-check/vitest';
import { applyChanges, type Change, type PathSegment } from '@llmjson/core';
import {
  createPartialStore,
  fromEventStream,
  fromJsonPatch,
  type JsonPatchOperation,
  toEventStream,
  toJsonPatch,
  type WireEvent,
} from '@llmjson/web';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { hostileKeys, jsonValueText } from '../support/arbitraries.js';
import { numRuns, splitAt, splitPoints } from '../support/chunking.js';
import { hostileBytes, hostileRuns } from '../support/hostile.js';
import { buildPartial, expectNoPollution, prototypeKeys } from '../support/partial.js';
import { readAll } from '../support/web.js';

/** A change as it travels: an added container is empty (toEventStream writes it so), a number is JSON's (-0 is 0). */
function travelled(change: Change): Change {
  if (change.op !== 'add') return change;
  const { value } = change;
  if (typeof value === 'number') return { op: 'add', path: change.path, value: JSON.parse(JSON.stringify(value)) };
  if (typeof value !== 'object' || value === null) return change;
  return { op: 'add', path: change.path, value: Array.isArray(value) ? [] : {} };
}

/** A generated document, cut into chunks anywhere: the builder's change lists for it. */
const changeLists = jsonValueText
  .chain((text) => fc.tuple(fc.constant(text), splitPoints(text.length)))
  .map(([text, points]) => buildPartial(splitAt(text, points)).changes.map((list) => list.map(travelled)));

async function* iterate<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

async function collect(bytes: readonly Uint8Array[]): Promise<WireEvent[]> {
  const out: WireEvent[] = [];
  for await (const event of fromEventStream(ReadableStream.from(bytes))) out.push(event);
  return out;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

describe('the wire round trip', () => {
  fcTest.prop(
    [
      changeLists.chain((lists) =>
        fc.tuple(
          fc.constant(lists),
          fc.constantFrom('sse' as const, 'ndjson' as const),
          fc.array(fc.nat(), { maxLength: 64 }),
        ),
      ),
    ],
    { numRuns },
  )(
    'fromEventStream(toEventStream(x, { throttle: 0 })) yields x, whatever the chunking of the bytes',
    async ([lists, format, cuts]) => {
      const bytes = concat(await readAll(toEventStream(iterate(lists), { format, throttle: 0 })));
      const events = await collect(
        splitAt(
          bytes,
          cuts.map((c) => c % (bytes.length + 1)),
        ),
      );
      expect(events.filter((e) => e.type === 'diagnostic')).toEqual([]);
      expect(events.flatMap((e) => (e.type === 'changes' ? [e.changes] : []))).toEqual(
        lists.filter((l) => l.length > 0),
      );
      expect(events.at(-1)).toMatchObject({
        type: 'end',
        stats: { updates: lists.filter((l) => l.length > 0).length },
      });
    },
  );
});

/** The source yields `lists` with a pause before some (a timer of `pauses[i]` ms; 0: none). */
async function* paced<T>(items: readonly T[], pauses: readonly number[]): AsyncGenerator<T> {
  for (let i = 0; i < items.length; i++) {
    const pause = pauses[i % Math.max(1, pauses.length)] ?? 0;
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    yield items[i] as T;
  }
}

describe('the wire round trip, throttled', () => {
  fcTest.prop(
    [
      changeLists,
      fc.constantFrom(1, 3, 50),
      fc.array(fc.constantFrom(0, 0, 0, 1, 4), { maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 16 }),
    ],
    { numRuns: Math.min(numRuns, 40) },
  )(
    'each event leaves the state a prefix of the change lists leaves, the last one all of them',
    async (lists, throttle, pauses, cuts) => {
      const bytes = concat(await readAll(toEventStream(paced(lists, pauses), { throttle })));
      const events = await collect(
        splitAt(
          bytes,
          cuts.map((c) => c % (bytes.length + 1)),
        ),
      );
      expect(events.filter((e) => e.type === 'diagnostic')).toEqual([]);
      const prefixes = [JSON.stringify(undefined)];
      let expected: unknown;
      for (const list of lists) {
        expected = applyChanges(expected, list);
        prefixes.push(JSON.stringify(expected));
      }
      let state: unknown;
      let from = 0;
      for (const event of events) {
        if (event.type !== 'changes') continue;
        state = applyChanges(state, event.changes);
        const at = prefixes.indexOf(JSON.stringify(state), from);
        expect(at).toBeGreaterThanOrEqual(from);
        from = at;
      }
      expect(state).toEqual(expected);
    },
  );
});

/** RFC 6902 `add` and `replace`, from the RFC's text, on a copy: the reference for toJsonPatch. */
function applyPatch(document: unknown, ops: readonly JsonPatchOperation[]): unknown {
  let root = structuredClone(document);
  for (const op of ops) {
    if (op.op !== 'add' && op.op !== 'replace') throw new Error(`unexpected ${op.op}`);
    const tokens =
      op.path === ''
        ? []
        : op.path
            .slice(1)
            .split('/')
            .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const value = structuredClone(op.value);
    if (tokens.length === 0) {
      root = value;
      continue;
    }
    let parent = root as Record<string, unknown>;
    for (const token of tokens.slice(0, -1)) parent = parent[token] as Record<string, unknown>;
    const last = tokens.at(-1) as string;
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(index, 0, value);
      else parent[index] = value;
    } else Object.defineProperty(parent, last, { value, writable: true, enumerable: true, configurable: true });
  }
  return root;
}

describe('JSON Patch', () => {
  fcTest.prop([changeLists], { numRuns })(
    'fromJsonPatch(toJsonPatch(c, s), s) applied to s equals applyChanges(s, c); so do the patches themselves',
    (lists) => {
      let state: unknown;
      for (const list of lists) {
        const ops = toJsonPatch(list, state);
        expect(ops.every((op) => op.op === 'add' || op.op === 'replace')).toBe(true);
        const back = fromJsonPatch(ops, state);
        const expected = applyChanges(structuredClone(state), list);
        expect(applyChanges(structuredClone(state), back)).toEqual(expected);
        expect(applyPatch(state, ops)).toEqual(expected);
        state = expected;
      }
    },
  );
});

const key = fc.oneof(fc.constantFrom(...hostileKeys), fc.constantFrom('a', 'b', '0'), fc.string({ maxLength: 3 }));
const segment = fc.oneof(key, fc.integer({ min: -1, max: 3 }), fc.constantFrom(0.5, null, true, [], {}));
const hostileChange = fc.record({
  op: fc.constantFrom('add', 'append', 'complete', 'remove', '__proto__', undefined),
  path: fc.oneof(fc.array(segment, { maxLength: 4 }), fc.constantFrom('/a', null, { length: 1 })),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom({}, [], '', 'x', { __proto__: null, polluted: 1 }, JSON.parse('{"__proto__":{"polluted":1}}')),
  ),
});
/** A change in the compact form (wire-changes.ts), or what looks like one: levels out of range, bad segments. */
const levels = fc.oneof(fc.integer({ min: -1, max: 4 }), fc.constantFrom(0.5, 1e300, '0', null));
const hostileMember = fc.oneof(
  hostileChange,
  fc.string({ maxLength: 3 }),
  levels,
  fc.tuple(
    levels,
    segment,
    hostileChange.map((c) => c.value),
  ),
  fc.tuple(
    levels,
    hostileChange.map((c) => c.value),
  ),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
);
/** Well-framed events with random payloads: change lists, diagnostics, ends, starts and junk. */
const hostileEvents = fc
  .tuple(
    fc.constantFrom('sse' as const, 'ndjson' as const),
    fc.boolean(),
    fc.array(
      fc.oneof(
        { weight: 5, arbitrary: fc.array(hostileMember, { maxLength: 6 }) },
        fc.record({
          type: fc.constantFrom('diagnostic', 'end', 'start', '__proto__'),
          diagnostic: fc.anything(),
          v: fc.anything(),
        }),
        fc.anything(),
      ),
      { maxLength: 10 },
    ),
  )
  .map(([format, start, payloads]) => {
    const all = start ? [{ type: 'start', v: 2 }, ...payloads] : payloads;
    const lines = all.map((p) => JSON.stringify(p) ?? 'undefined');
    return new TextEncoder().encode(
      format === 'ndjson' ? lines.join('\n') : lines.map((l) => `data: ${l}\n\n`).join(''),
    );
  });

/** A real document's change lists with hostile changes spliced in: attacks on a state that exists. */
const splicedEvents = fc
  .tuple(changeLists, fc.array(fc.tuple(fc.nat(), fc.nat(), hostileMember), { maxLength: 8 }))
  .map(([lists, splices]) => {
    const payloads: unknown[][] = lists.map((l) => [...l]);
    for (const [list, at, change] of splices) {
      const target = payloads[list % Math.max(1, payloads.length)];
      target?.splice(at % (target.length + 1), 0, change);
    }
    const lines = [{ type: 'start', v: 1 }, ...payloads].map((p) => `data: ${JSON.stringify(p)}\n\n`);
    return new TextEncoder().encode(lines.join(''));
  });

describe('a hostile event stream', () => {
  fcTest.prop([fc.oneof(hostileBytes, hostileEvents, splicedEvents), fc.array(fc.nat(), { maxLength: 16 })], {
    numRuns: hostileRuns,
  })(
    'never throws, never pollutes; what it yields applies with applyChanges and a store without a refusal',
    async (bytes, cuts) => {
      const before = prototypeKeys();
      const events = await collect(
        splitAt(
          bytes,
          cuts.map((c) => c % (bytes.length + 1)),
        ),
      );
      let state: unknown;
      const store = createPartialStore();
      for (const event of events) {
        if (event.type !== 'changes') continue;
        state = applyChanges(state, event.changes);
        store.apply(event.changes);
      }
      expect(store.diagnostics).toEqual([]);
      expect(store.getSnapshot()).toEqual(state);
      for (const event of events)
        if (event.type === 'diagnostic') expect(typeof event.diagnostic.message).toBe('string');
      expectNoPollution(before);
    },
  );
});

function at(value: unknown, path: readonly PathSegment[]): unknown {
  let node = value;
  for (const s of path) node = (node as Record<PathSegment, unknown>)[s];
  return node;
}

describe('the store', () => {
  fcTest.prop([changeLists], { numRuns })(
    'snapshots never change once handed out; a completed subtree keeps its identity from then on',
    (lists) => {
      const store = createPartialStore();
      const handedOut: [unknown, string][] = [];
      const completed: [readonly PathSegment[], unknown][] = [];
      for (const list of lists) {
        store.apply(list);
        const snapshot = store.getSnapshot();
        handedOut.push([snapshot, JSON.stringify(snapshot) ?? '']);
        const closed: (readonly PathSegment[])[] = [];
        for (const change of list) {
          if (change.op === 'complete') closed.push(change.path);
          // A repeated key (the last one wins, as in JSON.parse) replaces what it names, closed or not.
          if (change.op === 'add') {
            const under = (path: readonly PathSegment[]) => change.path.every((s, i) => path[i] === s);
            for (let i = completed.length - 1; i >= 0; i--)
              if (under((completed[i] as [readonly PathSegment[], unknown])[0])) completed.splice(i, 1);
            for (let i = closed.length - 1; i >= 0; i--)
              if (under(closed[i] as readonly PathSegment[])) closed.splice(i, 1);
          }
        }
        for (const path of closed) completed.push([path, at(snapshot, path)]);
        for (const [path, value] of completed) expect(at(snapshot, path)).toBe(value);
      }
      for (const [snapshot, text] of handedOut) expect(JSON.stringify(snapshot) ?? '').toBe(text);
      expect(store.diagnostics).toEqual([]);
      expect(store.getSnapshot()).toEqual(lists.reduce<unknown>((s, l) => applyChanges(s, l), undefined));
    },
  );
});
