/**
 * `createPartialStore` (packages/web/src/partial-store.ts): the store a UI binding wraps —
 * immutable snapshots with structural sharing, one notification per `apply`, listeners that
 * throw contained, bad changes as diagnostics, fed by a browser partial stream or by
 * `fromEventStream`.
 */
import type { Change } from '@llmjson/core';
import { createPartialStore, createPartialStream, fromEventStream, toEventStream } from '@llmjson/web';
import { describe, expect, test, vi } from 'vitest';
import { expectNoPollution, prototypeKeys } from '../../../test/support/partial.js';

const doc: Change[][] = [
  [
    { op: 'add', path: [], value: {} },
    { op: 'add', path: ['items'], value: [] },
    { op: 'add', path: ['items', 0], value: {} },
    { op: 'add', path: ['items', 0, 'name'], value: 'a' },
    { op: 'complete', path: ['items', 0, 'name'] },
    { op: 'complete', path: ['items', 0] },
  ],
  [
    { op: 'add', path: ['items', 1], value: {} },
    { op: 'add', path: ['items', 1, 'name'], value: 'b' },
  ],
  [{ op: 'append', path: ['items', 1, 'name'], value: 'cd' }],
];

describe('createPartialStore', () => {
  test('apply, getSnapshot, subscribe: one notification per apply, whatever the number of changes', () => {
    const store = createPartialStore();
    const listener = vi.fn();
    store.subscribe(listener);
    expect(store.getSnapshot()).toBeUndefined();
    store.apply(doc[0] as Change[]);
    expect(listener).toHaveBeenCalledTimes(1);
    store.apply([]);
    expect(listener).toHaveBeenCalledTimes(1);
    for (const list of doc.slice(1)) store.apply(list);
    expect(listener).toHaveBeenCalledTimes(3);
    expect(store.getSnapshot()).toEqual({ items: [{ name: 'a' }, { name: 'bcd' }] });
  });

  test('snapshots are frozen, never change, and share what the changes did not write', () => {
    const store = createPartialStore<{ items: { name: string }[] }>();
    store.apply(doc[0] as Change[]);
    const first = store.getSnapshot();
    const copy = structuredClone(first);
    store.apply(doc[1] as Change[]);
    const second = store.getSnapshot();
    store.apply(doc[2] as Change[]);
    expect(first).toEqual(copy);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.items)).toBe(true);
    expect(second).not.toBe(first);
    expect(second?.items?.[0]).toBe(first?.items?.[0]); // the completed item kept its identity
    expect(store.getSnapshot()?.items?.[0]).toBe(first?.items?.[0]);
    expect(store.getSnapshot()?.items?.[1]).not.toBe(second?.items?.[1]);
    expect(() => {
      (first as { items: unknown[] }).items.push(1);
    }).toThrow(TypeError);
  });

  test('a listener that throws: reported, the others still notified, the store intact', () => {
    const errors: unknown[] = [];
    const store = createPartialStore({ onListenerError: (e) => errors.push(e) });
    const after = vi.fn();
    store.subscribe(() => {
      throw new Error('render failed');
    });
    store.subscribe(after);
    store.apply(doc[0] as Change[]);
    store.apply(doc[1] as Change[]);
    expect(after).toHaveBeenCalledTimes(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(['render failed', 'render failed']);
    expect(store.getSnapshot()).toEqual({ items: [{ name: 'a' }, { name: 'b' }] });
  });

  test('unsubscribe stops the listener, and is idempotent', () => {
    const store = createPartialStore();
    const listener = vi.fn();
    const stop = store.subscribe(listener);
    stop();
    stop();
    store.apply(doc[0] as Change[]);
    expect(listener).not.toHaveBeenCalled();
  });

  test('changes applyChanges would refuse become diagnostics; nothing throws or reaches a prototype', () => {
    const before = prototypeKeys();
    const store = createPartialStore();
    const hostile = [
      { op: 'add', path: [], value: {} },
      { op: 'add', path: ['__proto__', 'polluted'], value: 1 },
      { op: 'add', path: ['constructor', 'prototype', 'polluted'], value: 1 },
      { op: 'append', path: ['x'], value: 'y' },
      { op: 'remove', path: [] },
      null,
      { op: 'add', path: ['__proto__'], value: {} },
      { op: 'add', path: ['__proto__', 'polluted'], value: 1 },
    ] as unknown as Change[];
    expect(() => store.apply(hostile)).not.toThrow();
    expect(store.diagnostics.map((d) => d.reason)).toEqual(Array(5).fill('unrecognized'));
    expect(Object.hasOwn(store.getSnapshot() as object, '__proto__')).toBe(true);
    expectNoPollution(before);
  });

  test('a refused change that cannot be shown as text is still a diagnostic, never a throw', () => {
    const store = createPartialStore();
    const cyclic: Record<string, unknown> = { op: 'nonsense', path: [], toString: null };
    cyclic.self = cyclic;
    expect(() => store.apply([cyclic as unknown as Change])).not.toThrow();
    expect(store.diagnostics.map((d) => [d.reason, d.excerpt])).toEqual([
      ['unrecognized', '(an object that cannot be shown as text)'],
    ]);
  });

  test('complete when the root closes; reset clears everything with one notification', () => {
    const store = createPartialStore();
    store.apply([{ op: 'add', path: [], value: 'x' }]);
    expect(store.complete).toBe(false);
    store.apply([{ op: 'complete', path: [] }]);
    expect(store.complete).toBe(true);
    const listener = vi.fn();
    store.subscribe(listener);
    store.reset();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.getState()).toMatchObject({ value: undefined, complete: false, diagnostics: [] });
  });

  test('fed by a browser partial stream parsing model text', async () => {
    const store = createPartialStore();
    const partial = createPartialStream({ emit: 'changes', onDiagnostic: (d) => store.report(d) });
    await store.feed(ReadableStream.from(['{"a":[1,', '{"b":"c"}]}', ' trailing']).pipeThrough(partial));
    expect(store.getSnapshot()).toEqual({ a: [1, { b: 'c' }] });
    expect(store.complete).toBe(true);
  });

  test('fed by fromEventStream: changes, relayed diagnostics and the end event', async () => {
    const store = createPartialStore();
    async function* source() {
      yield* doc;
      yield [{ op: 'complete', path: [] }] as Change[];
    }
    const events = toEventStream(source());
    events.diagnostic({ reason: 'recovered', offset: 0, excerpt: '', message: 'joined' });
    await store.feed(fromEventStream(events));
    expect(store.getSnapshot()).toEqual({ items: [{ name: 'a' }, { name: 'bcd' }] });
    expect(store.diagnostics.map((d) => d.message)).toEqual(['joined']);
    expect(store.getState().end).toMatchObject({ complete: true, valid: true });
  });

  test('feed stops at abort: the source is cancelled and the promise rejects with the reason', async () => {
    let cancelled = false;
    const source = new ReadableStream<Change[]>({
      pull(controller) {
        controller.enqueue([{ op: 'add', path: [], value: 1 }]);
      },
      cancel() {
        cancelled = true;
      },
    });
    const store = createPartialStore();
    const controller = new AbortController();
    store.subscribe(() => controller.abort(new Error('unmounted')));
    await expect(store.feed(source, { signal: controller.signal })).rejects.toThrow('unmounted');
    expect(cancelled).toBe(true);
  });

  test('feed stops at abort while the source is silent (a generator waiting for the network)', async () => {
    async function* silent(): AsyncGenerator<Change[]> {
      yield [{ op: 'add', path: [], value: 1 }];
      await new Promise(() => {}); // the server sends nothing more
    }
    const store = createPartialStore();
    const controller = new AbortController();
    const feeding = store.feed(silent(), { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.getSnapshot()).toBe(1);
    controller.abort(new Error('unmounted'));
    await expect(feeding).rejects.toThrow('unmounted');
  });

  test('options are checked', () => {
    expect(() => createPartialStore({ onListenerErrors: () => {} } as never)).toThrow(/did you mean onListenerError/);
  });
});
