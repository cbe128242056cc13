/**
 * The page script of the `live-client` scenario's React part (bundled by esbuild with React's
 * profiling build, run in Chromium): one answer streamed into a React root at a fixed token
 * rate, while `<Profiler onRender>` counts the commits and a `requestAnimationFrame` loop counts
 * the frames of the same wall time.
 *
 * Three ways to render the answer, the same component tree below the state:
 * - `hook`: `useJsonStream(source)` from `@llmjson/react`, its defaults (at most one publish per
 *   animation frame);
 * - `hook-every`: the same with `throttle: 0` (a publish after every change list);
 * - `naive`: the AI SDK's `useObject` way, written by hand — the text so far re-parsed with
 *   `parsePartialJson` after every token and `setState` whenever the value differs
 *   (`isDeepEqualData`), so React gets one update per token that changed the value.
 *
 * Invariant: a run ends only once the final value is committed, and returns that value, which
 * the scenario checks against `JSON.parse` of the answer. The window is the stream's own
 * duration (tokens ÷ rate), so commits and frames are counted over the same wall time.
 */

import { useJsonStream } from '@llmjson/react';
import { isDeepEqualData, parsePartialJson } from 'ai';
import { createElement, memo, Profiler, type ReactNode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

/** Page globals this script uses (the benchmarks compile without the DOM library). */
declare const document: { getElementById(id: string): unknown };
declare function requestAnimationFrame(callback: (time: number) => void): number;
declare function cancelAnimationFrame(handle: number): void;

export type RenderWay = 'hook' | 'hook-every' | 'naive';

export interface ReactRun {
  readonly commits: number;
  /**
   * Commits that showed a new status ('idle' at mount, 'streaming', 'done'): published at once
   * by design (the live controller's invariant 2), not throttled; the rest carry new tokens.
   */
  readonly statusCommits: number;
  readonly frames: number;
  /** From the first token offered to the final commit. */
  readonly ms: number;
  /** Sum of the Profiler's `actualDuration` over the commits: React's rendering work. */
  readonly renderMs: number;
  readonly value: unknown;
}

interface Item {
  readonly id?: number;
  readonly name?: string;
  readonly text?: string;
  readonly score?: number;
  readonly done?: boolean;
}

interface Answer {
  readonly title?: string;
  readonly items?: readonly (Item | undefined)[];
}

/** One item; memoised, so an item whose object kept its identity is not rendered again. */
const ItemRow = memo(function ItemRow({ item }: { item: Item | undefined }) {
  return createElement('li', null, `${item?.name ?? ''} — ${item?.text ?? ''} (${item?.score ?? ''})`);
});

function AnswerView({ value }: { value: Answer | undefined }): ReactNode {
  const items = value?.items ?? [];
  return createElement(
    'section',
    null,
    createElement('h1', null, value?.title ?? ''),
    createElement(
      'ul',
      null,
      items.map((item, i) => createElement(ItemRow, { key: i, item })),
    ),
  );
}

/**
 * The tokens offered at `rate` per second from the moment the stream is first read: every
 * token due is enqueued at once (each its own chunk, as a network read delivers several), then
 * a timer waits for the next one.
 */
function pacedStream(tokens: readonly string[], rate: number, started: { at: number }): ReadableStream<string> {
  let sent = 0;
  return new ReadableStream<string>({
    start() {
      started.at = performance.now();
    },
    async pull(controller) {
      for (;;) {
        const due = Math.min(tokens.length, Math.floor(((performance.now() - started.at) * rate) / 1000) + 1);
        if (due > sent) {
          while (sent < due) controller.enqueue(tokens[sent++] as string);
          if (sent === tokens.length) controller.close();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, ((sent - due + 1) * 1000) / rate));
      }
    },
  });
}

interface Probe {
  readonly done: (value: unknown) => void;
}

/** The status the latest render showed; the Profiler's next commit is that render's. */
let renderedStatus: string | undefined;

function HookAnswer({
  source,
  throttle,
  probe,
}: {
  source: ReadableStream<string>;
  throttle: 'frame' | 0;
  probe: Probe;
}): ReactNode {
  const { value, status } = useJsonStream(source, { throttle });
  renderedStatus = status;
  useEffect(() => {
    if (status === 'done') probe.done(value);
  }, [status, value, probe]);
  return createElement(AnswerView, { value: value as Answer | undefined });
}

function NaiveAnswer({ source, probe }: { source: ReadableStream<string>; probe: Probe }): ReactNode {
  const [state, setState] = useState<{ value: unknown; done: boolean }>({ value: undefined, done: false });
  renderedStatus = state.done ? 'done' : state.value === undefined ? 'idle' : 'streaming';
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const reader = source.getReader();
      let accumulated = '';
      let latest: unknown;
      for (;;) {
        const { done, value: token } = await reader.read();
        if (cancelled) return;
        if (done) break;
        accumulated += token;
        const { value } = await parsePartialJson(accumulated);
        if (value !== undefined && !isDeepEqualData(latest, value)) {
          latest = value;
          setState({ value, done: false });
        }
      }
      setState({ value: latest, done: true });
    })();
    return () => {
      cancelled = true;
    };
  }, [source]);
  useEffect(() => {
    if (state.done) probe.done(state.value);
  }, [state, probe]);
  return createElement(AnswerView, { value: state.value as Answer | undefined });
}

let runs = 0;

const api = {
  /** Streams `tokens` at `rate` per second into a fresh root rendered `way`; resolves after the final commit. */
  run(way: RenderWay, tokens: readonly string[], rate: number): Promise<ReactRun> {
    const container = document.getElementById('root');
    if (container === null) throw new Error('the page has no #root element to render into');
    const root = createRoot(container as Parameters<typeof createRoot>[0]);
    let commits = 0;
    let statusCommits = 0;
    let committedStatus: string | undefined;
    let renderMs = 0;
    let frames = 0;
    let frame = 0;
    const started = { at: performance.now() };
    const countFrame = () => {
      frames++;
      frame = requestAnimationFrame(countFrame);
    };
    return new Promise<ReactRun>((resolve) => {
      const probe: Probe = {
        done(value) {
          const ms = performance.now() - started.at;
          cancelAnimationFrame(frame);
          // Unmounting is outside the window: the counts are already taken.
          const result = { commits, statusCommits, frames, ms, renderMs, value };
          setTimeout(() => {
            root.unmount();
            resolve(result);
          }, 0);
        },
      };
      const source = pacedStream(tokens, rate, started);
      const onRender = (_id: string, _phase: string, actualDuration: number) => {
        commits++;
        if (renderedStatus !== committedStatus) statusCommits++;
        committedStatus = renderedStatus;
        renderMs += actualDuration;
      };
      const child =
        way === 'naive'
          ? createElement(NaiveAnswer, { source, probe })
          : createElement(HookAnswer, { source, throttle: way === 'hook' ? 'frame' : 0, probe });
      frame = requestAnimationFrame(countFrame);
      root.render(createElement(Profiler, { id: `run-${++runs}`, onRender }, child));
    });
  },
};

export type LiveReact = typeof api;

(globalThis as { liveReact?: LiveReact }).liveReact = api;
