/**
 * `toAgUiState` and `fromAgUiState`: a partial stream's changes as STATE_SNAPSHOT then
 * STATE_DELTA (RFC 6902) events, every one accepted by @ag-ui/core's own schema, whose deltas a
 * plain RFC 6902 applier (helpers.ts, not ours) turns into the same values the partial stream
 * held, under arbitrary chunking; deltas coalesced by the throttle; and the round trip back to
 * change lists. Hostile state events become diagnostics, never exceptions.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { DIAGNOSTIC_EVENT, fromAgUiState, mergeChanges, type StateEvent, toAgUiState } from '@llmjson/ag-ui';
import { applyChanges, type Change } from '@llmjson/core';
import { createPartialStore, createPartialStream } from '@llmjson/web';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { applyPatch, bytes, collect, collectUntilError, expectAgUiEvents } from './helpers.js';

const DOCUMENT = JSON.stringify({
  title: 'How cells make energy ☕',
  summary: 'Glycolysis splits glucose; the Krebs cycle and oxidative phosphorylation follow.',
  items: [
    { stage: 'Glycolysis', atp: 2 },
    { stage: 'Krebs cycle', atp: 2, notes: ['in the matrix', 'CO₂ out'] },
  ],
  done: true,
  ratio: -0.5,
  missing: null,
});
const schema = z.object({
  title: z.string(),
  summary: z.string(),
  items: z.array(z.object({ stage: z.string(), atp: z.number() })),
});

/** The document split into `chunks`, through a partial stream and toAgUiState; also the change lists it made. */
function run(chunks: readonly string[], throttle = 0) {
  const lists: Change[][] = [];
  const partial = createPartialStream({ emit: 'changes', onDiagnostic: (d) => events.diagnostic(d) });
  const events = toAgUiState(
    partial.readable.pipeThrough(
      new TransformStream<readonly Change[], readonly Change[]>({
        transform(changes, controller) {
          lists.push([...changes]);
          controller.enqueue(changes);
        },
      }),
    ),
    { throttle },
  );
  bytes(chunks)
    .pipeTo(partial.writable)
    .catch(() => {});
  return { events, lists };
}

/** The values a client holds after each event, by a plain RFC 6902 applier. */
function clientValues(events: readonly StateEvent[]): unknown[] {
  let state: unknown;
  const values: unknown[] = [];
  for (const e of events) {
    if (e.type === 'STATE_SNAPSHOT') state = structuredClone(e.snapshot);
    else if (e.type === 'STATE_DELTA') state = applyPatch(state, e.delta);
    else continue;
    values.push(state);
  }
  return values;
}

/** The values the partial stream held after each change list, consecutive repeats left out. */
function streamValues(lists: readonly Change[][]): string[] {
  let value: unknown;
  const out: string[] = [];
  for (const changes of lists) {
    value = applyChanges(value, changes);
    const text = JSON.stringify(value);
    if (value !== undefined && out.at(-1) !== text) out.push(text);
  }
  return out;
}

describe('out: STATE_SNAPSHOT, then STATE_DELTA', () => {
  fcTest.prop([splitPoints(DOCUMENT.length)], { numRuns: Math.ceil(numRuns / 2) })(
    'throttle 0, any split points: AG-UI accepts every event, and the client holds every value the stream held',
    async (points) => {
      const { events, lists } = run(splitAt(DOCUMENT, points));
      const out = await collect(events);
      expectAgUiEvents(out);
      expect(out[0]?.type).toBe('STATE_SNAPSHOT');
      expect(out.slice(1).every((e) => e.type === 'STATE_DELTA')).toBe(true);
      const values = clientValues(out).map((v) => JSON.stringify(v));
      expect(values).toEqual(streamValues(lists));
      expect(JSON.parse(values.at(-1) as string)).toEqual(JSON.parse(DOCUMENT));
    },
  );

  test('deltas are coalesced per throttle interval: a fast stream is a snapshot and a few deltas, not one per token', async () => {
    const chunks = DOCUMENT.match(/[\s\S]{1,3}/g) as string[];
    const fast = await collect(run(chunks, 60_000).events);
    expectAgUiEvents(fast);
    // Within one interval everything after the snapshot is one delta (the source never waits here).
    expect(fast.map((e) => e.type)).toEqual(['STATE_SNAPSHOT', 'STATE_DELTA']);
    expect(clientValues(fast).at(-1)).toEqual(JSON.parse(DOCUMENT));
    const each = await collect(run(chunks, 0).events);
    expect(each.length).toBeGreaterThan(50);
    expect(clientValues(each).at(-1)).toEqual(JSON.parse(DOCUMENT));
  });

  test('appends become whole-string replaces, merged within a delta', () => {
    const changes: Change[] = [
      { op: 'add', path: ['s'], value: '' },
      { op: 'append', path: ['s'], value: 'ab' },
      { op: 'append', path: ['s'], value: 'cd' },
      { op: 'complete', path: ['s'] },
      { op: 'append', path: ['t'], value: 'x' },
      { op: 'append', path: ['t'], value: 'y' },
    ];
    expect(mergeChanges(changes)).toEqual([
      { op: 'add', path: ['s'], value: 'abcd' },
      { op: 'append', path: ['t'], value: 'xy' },
    ]);
  });

  test('diagnostics are CUSTOM llmjson.diagnostic events, before the state event that follows them', async () => {
    const lists: string[] = [];
    const partial = createPartialStream({ emit: 'changes', schema, onDiagnostic: (d) => events.diagnostic(d) });
    const events = toAgUiState(partial, { throttle: 0 });
    bytes(['{"title": 7, "summary": "s", "items": []}'])
      .pipeTo(partial.writable)
      .catch(() => {});
    const out = await collect(events);
    expectAgUiEvents(out);
    for (const e of out)
      lists.push(e.type === 'CUSTOM' ? `${e.name} ${(e.value as { reason: string }).reason}` : e.type);
    expect(lists).toContain(`${DIAGNOSTIC_EVENT} violation`);
    expect(lists.indexOf(`${DIAGNOSTIC_EVENT} violation`)).toBeLessThan(lists.length - 1);
  });

  test('a source that fails: the state so far, then its error', async () => {
    async function* broken() {
      yield [{ op: 'add', path: [], value: {} }] as Change[];
      yield [{ op: 'add', path: ['a'], value: 1 }] as Change[];
      throw new Error('model connection reset');
    }
    const { items, error } = await collectUntilError(toAgUiState(broken(), { throttle: 60_000 }));
    expect((error as Error).message).toBe('model connection reset');
    expect(clientValues(items).at(-1)).toEqual({ a: 1 });
  });

  test('configuration mistakes say what to fix', () => {
    expect(() => toAgUiState([], { throttle: -1 })).toThrow(/throttle must be a whole number of milliseconds/);
    expect(() => toAgUiState([], { throtle: 5 } as never)).toThrow(/throtle/);
    expect(() => toAgUiState(42 as never)).toThrow(/the source must be/);
  });
});

describe('in: fromAgUiState', () => {
  fcTest.prop([splitPoints(DOCUMENT.length)], { numRuns: Math.ceil(numRuns / 2) })(
    'round trip: our events read back give the values the partial stream held',
    async (points) => {
      const { events, lists } = run(splitAt(DOCUMENT, points));
      const out = await collect(events);
      const store = createPartialStore();
      const seen: string[] = [];
      store.subscribe(() => seen.push(JSON.stringify(store.getSnapshot())));
      await store.feed(fromAgUiState(out));
      expect(store.diagnostics).toEqual([]);
      expect(seen.filter((v, i) => v !== seen[i - 1])).toEqual(streamValues(lists));
    },
  );

  test('hostile state events are diagnostics, never exceptions, and reach no prototype', async () => {
    const events: unknown[] = [
      'not an event',
      null,
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/a', value: 1 }] },
      { type: 'STATE_SNAPSHOT', snapshot: { list: [1], text: 'ab' } },
      { type: 'STATE_DELTA', delta: 'nope' },
      { type: 'STATE_DELTA', delta: [{ op: 'remove', path: '/list/0' }] },
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/__proto__/polluted', value: true }] },
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/missing/deep', value: 1 }] },
      { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/text', value: 'abc' }] },
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/list/-', value: { __proto__: { x: 1 } } }] },
      { type: 'RUN_ERROR', message: 'agent crashed' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'x', delta: '{' },
    ];
    const store = createPartialStore();
    const items = await collect(fromAgUiState(events));
    await store.feed(fromAgUiState(events));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(store.getSnapshot())).toBe('{"list":[1,{}],"text":"abc"}');
    const reasons = items.flatMap((i) => (i.type === 'diagnostic' ? [[i.diagnostic.reason, i.diagnostic.line]] : []));
    expect(reasons).toEqual([
      ['unrecognized', 1],
      ['unrecognized', 2],
      ['unrecognized', 3],
      ['unrecognized', 5],
      ['unrecognized', 6],
      ['unrecognized', 7],
      ['unrecognized', 8],
      ['provider-error', 11],
    ]);
  });

  test('values that cannot be shown as text are described in the diagnostic, never thrown', async () => {
    const cyclic: unknown[] = [{ toString: null }];
    cyclic.push(cyclic);
    const throwing = {
      toJSON() {
        throw new Error('toJSON');
      },
      toString() {
        throw new Error('toString');
      },
    };
    const events: unknown[] = [
      { type: 'RUN_ERROR', message: { toString: null } },
      { type: 'RUN_ERROR', message: 12n },
      { type: 'RUN_ERROR', message: throwing },
      { type: 'RUN_ERROR', message: cyclic },
      cyclic,
      12n,
    ];
    const items = await collect(fromAgUiState(events));
    const diagnostics = items.flatMap((i) => (i.type === 'diagnostic' ? [i.diagnostic] : []));
    expect(diagnostics.map((d) => [d.reason, d.line, d.message])).toEqual([
      ['provider-error', 1, 'RUN_ERROR: {"toString":null}'],
      ['provider-error', 2, 'RUN_ERROR: 12'],
      ['provider-error', 3, 'RUN_ERROR: (an object that cannot be shown as text)'],
      ['provider-error', 4, 'RUN_ERROR: (an array that cannot be shown as text)'],
      ['unrecognized', 5, 'event 5 is not an object; ignored'],
      ['unrecognized', 6, 'event 6 is not an object; ignored'],
    ]);
    expect(diagnostics[5]?.excerpt).toContain('12');
  });
});

describe('in: fromAgUiState on arbitrary events', () => {
  const pointer = fc.oneof(
    fc.constantFrom('', '/a', '/a/0', '/a/-', '/__proto__', '/__proto__/x', '/constructor/prototype', '/b~1c', '/~2'),
    fc.string({ maxLength: 12 }),
  );
  const op = fc.record(
    {
      op: fc.constantFrom('add', 'replace', 'remove', 'move', 'copy', 'test', 'append', 42),
      path: fc.oneof(pointer, fc.jsonValue({ maxDepth: 1 })),
      value: fc.jsonValue({ maxDepth: 3 }),
      from: pointer,
    },
    { requiredKeys: ['op'] },
  );
  const event = fc.oneof(
    fc.record({ type: fc.constant('STATE_SNAPSHOT'), snapshot: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: [] }),
    fc.record({
      type: fc.constant('STATE_DELTA'),
      delta: fc.oneof(fc.array(op, { maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
    }),
    fc.record({
      type: fc.constantFrom('RUN_ERROR', 'CUSTOM', 'TOOL_CALL_ARGS'),
      message: fc.oneof(
        fc.jsonValue({ maxDepth: 1 }),
        fc.anything({ maxDepth: 2, withBigInt: true, withNullPrototype: true, withBoxedValues: true, withMap: true }),
      ),
    }),
    fc.jsonValue({ maxDepth: 2 }),
  );

  fcTest.prop([fc.array(event, { maxLength: 12 })], { numRuns })(
    'never throws: every event is changes that apply, a diagnostic, or ignored; no prototype is touched',
    async (events) => {
      const items = await collect(fromAgUiState(events));
      const store = createPartialStore();
      await store.feed(fromAgUiState(events));
      // The store refuses nothing: every change list fromAgUiState let through applies.
      expect(store.diagnostics.filter((d) => d.reason === 'unrecognized' && d.line === undefined)).toEqual([]);
      expect(items.filter((i) => i.type === 'diagnostic').length).toBe(store.diagnostics.length);
      expect(Object.getPrototypeOf({})).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    },
  );
});
