/**
 * `agUiRun`: events framed as one AG-UI run (RUN_STARTED, the events of each source in order,
 * RUN_FINISHED), accepted by @ag-ui/core's schema; a source that throws ends the run with
 * RUN_ERROR and nothing is read after it; `fromAgUi` writes events as the lines `input: 'ag-ui'` reads.
 */
import { agUiRun, fromAgUi, fromAgUiState, toAgUiState } from '@llmjson/ag-ui';
import type { Change } from '@llmjson/core';
import { expect, test } from 'vitest';
import { collect, expectAgUiEvents } from './helpers.js';

const lists: Change[][] = [[{ op: 'add', path: [], value: {} }], [{ op: 'add', path: ['a'], value: 1 }]];

test('several sources in one run, finished with its result', async () => {
  const out = await collect(
    agUiRun([toAgUiState(lists, { throttle: 0 }), toAgUiState(lists, { throttle: 0 })], {
      threadId: 't',
      runId: 'r',
      parentRunId: 'p',
      result: { ok: true },
    }),
  );
  expectAgUiEvents(out);
  expect(out.map((e) => e.type)).toEqual([
    'RUN_STARTED',
    'STATE_SNAPSHOT',
    'STATE_DELTA',
    'STATE_SNAPSHOT',
    'STATE_DELTA',
    'RUN_FINISHED',
  ]);
  expect(out[0]).toEqual({ type: 'RUN_STARTED', threadId: 't', runId: 'r', parentRunId: 'p' });
  expect(out.at(-1)).toEqual({ type: 'RUN_FINISHED', threadId: 't', runId: 'r', result: { ok: true } });
});

test('a source that throws: RUN_ERROR with its message, and the next source is never read', async () => {
  let readSecond = false;
  async function* failing() {
    yield* toAgUiState(lists, { throttle: 0 });
    throw new RangeError('model stream reset');
  }
  async function* second() {
    readSecond = true;
    yield* toAgUiState(lists, { throttle: 0 });
  }
  const out = await collect(agUiRun([failing(), second()], { threadId: 't', runId: 'r' }));
  expectAgUiEvents(out);
  expect(out.at(-1)).toEqual({ type: 'RUN_ERROR', message: 'model stream reset', code: 'RangeError' });
  expect(readSecond).toBe(false);
});

test('ids are required, options are checked by name', async () => {
  await expect(collect(agUiRun([], { threadId: 't' } as never))).rejects.toThrow(/threadId and runId must be strings/);
  await expect(collect(agUiRun([], { threadId: 't', runId: 'r', runID: 'x' } as never))).rejects.toThrow(/runID/);
});

test('fromAgUi: one JSON line per event', async () => {
  const lines = await collect(
    fromAgUi([
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ]),
  );
  expect(lines).toEqual([
    '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n',
    '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n',
  ]);
});

/** A minimal Observable, as AG-UI's `agent.run(input)` returns (rxjs): emits `events` when subscribed. */
function observable(events: readonly object[], fail?: Error) {
  const log: string[] = [];
  return {
    log,
    subscribe(observer: { next(value: object): void; error(error: unknown): void; complete(): void }) {
      log.push('subscribe');
      let stopped = false;
      queueMicrotask(() => {
        for (const event of events) if (!stopped) observer.next(event);
        if (stopped) return;
        if (fail === undefined) observer.complete();
        else observer.error(fail);
      });
      return {
        unsubscribe() {
          stopped = true;
          log.push('unsubscribe');
        },
      };
    },
  };
}

test('fromAgUi and fromAgUiState read an Observable: subscribed at the first read, unsubscribed when the reader stops early, its error passed on', async () => {
  const events = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    { type: 'STATE_SNAPSHOT', snapshot: { a: 'x' } },
    { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/a', value: 'xy' }] },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ];
  const whole = observable(events);
  const lines = fromAgUi(whole);
  expect(whole.log).toEqual([]);
  expect((await collect(lines)).length).toBe(4);
  const state = await collect(fromAgUiState(observable(events)));
  expect(state.map((i) => i.type)).toEqual(['changes', 'changes']);
  const early = observable(events);
  for await (const line of fromAgUi(early)) {
    expect(line).toContain('RUN_STARTED');
    break;
  }
  expect(early.log).toEqual(['subscribe', 'unsubscribe']);
  await expect(collect(fromAgUi(observable(events.slice(0, 1), new Error('agent failed'))))).rejects.toThrow(
    'agent failed',
  );
});
