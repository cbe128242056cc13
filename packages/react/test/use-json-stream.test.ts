// @vitest-environment happy-dom
/**
 * `useJsonStream` (packages/react/src): the value while it streams and at the end, abort() and
 * unmount reaching the request, StrictMode's double effects making one request, what restarts a
 * run (a new source, a new `key`, not a new inline function), completed parts keeping their
 * identity for `memo` children, and commits at most one per frame with a fast source. Elements are
 * made with createElement (the tests are .ts files).
 */

import { type UseJsonStreamResult, useJsonStream } from '@llmjson/react';
import { act, cleanup, render } from '@testing-library/react';
import {
  Activity,
  type ComponentProps,
  createElement as h,
  memo,
  Profiler,
  type ReactElement,
  StrictMode,
} from 'react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { bytes, manualFrames, outsideAct, pushable, tick } from './helpers.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** Lets the stream pipes run inside act(), so React renders what they published. */
const drain = () =>
  act(async () => {
    await tick();
    await tick();
  });

type Source = Parameters<typeof useJsonStream>[0];

/** `<Activity mode>` around one element (its props type asks for children as a prop). */
const activity = (mode: 'visible' | 'hidden', child: ReactElement) =>
  h(Activity, { mode } as ComponentProps<typeof Activity>, child);

type Options = Parameters<typeof useJsonStream>[1];

interface ProbeProps {
  readonly source: Source;
  readonly hookKey?: unknown;
  readonly options: Options;
  readonly seen: UseJsonStreamResult<unknown>[];
}

/** Renders nothing; records each hook result. */
function Probe({ source, hookKey, options, seen }: ProbeProps) {
  seen.push(useJsonStream(source, { ...options, key: hookKey }));
  return null;
}

/** Probe elements that share one record of results. */
function probe(options: Options = { throttle: 0 }) {
  const seen: UseJsonStreamResult<unknown>[] = [];
  return {
    seen,
    /** A Probe element reading `source`. */
    probeOf: (source: Source, hookKey?: unknown) => h(Probe, { source, hookKey, options, seen }),
    latest: () => seen.at(-1) as UseJsonStreamResult<unknown>,
  };
}

describe('useJsonStream: the value', () => {
  test('appears while it streams and equals the answer at the end', async () => {
    const source = pushable();
    const { probeOf, latest } = probe();
    render(probeOf(source.stream));
    expect(latest().status).toBe('streaming');
    source.push('{"title":"Hel');
    await drain();
    expect(latest()).toMatchObject({ status: 'streaming', complete: false, value: { title: 'Hel' } });
    source.push('lo","tags":["a","b"]}');
    source.close();
    await drain();
    expect(latest()).toMatchObject({
      status: 'done',
      complete: true,
      value: { title: 'Hello', tags: ['a', 'b'] },
      error: undefined,
      diagnostics: [],
    });
  });

  test('no source: idle, nothing starts; a source given later starts', async () => {
    const request = vi.fn((_signal: AbortSignal) => bytes('{"a":1}'));
    const { probeOf, latest } = probe();
    const view = render(probeOf(null));
    await drain();
    expect(latest()).toMatchObject({ status: 'idle', value: undefined });
    latest().abort(); // harmless
    view.rerender(probeOf(request));
    await drain();
    expect(request).toHaveBeenCalledTimes(1);
    expect(latest()).toMatchObject({ status: 'done', value: { a: 1 } });
  });
});

describe('useJsonStream: stopping the request', () => {
  test("abort(): status aborted, the function's signal fires, the body is cancelled", async () => {
    const body = pushable();
    let signal: AbortSignal | undefined;
    const { probeOf, latest } = probe();
    render(
      probeOf((s: AbortSignal) => {
        signal = s;
        return new Response(body.stream);
      }),
    );
    await drain();
    act(() => latest().abort('stop'));
    expect(latest().status).toBe('aborted');
    expect(signal?.aborted).toBe(true);
    await drain();
    expect(body.cancel).toHaveBeenCalled();
  });

  test("unmount: the function's signal fires; a ReadableStream source is cancelled", async () => {
    let signal: AbortSignal | undefined;
    const { probeOf } = probe();
    const first = render(
      probeOf((s: AbortSignal) => {
        signal = s;
        return pushable().stream;
      }),
    );
    await drain();
    first.unmount();
    await tick();
    expect(signal?.aborted).toBe(true);

    const stream = pushable();
    const second = render(probeOf(stream.stream));
    await drain();
    second.unmount();
    await tick();
    expect(stream.cancel).toHaveBeenCalled();
  });

  test('StrictMode (double render, double effects): one request for a function source, a Response body not cancelled', async () => {
    const body = pushable();
    const request = vi.fn((_signal: AbortSignal) => new Response(body.stream));
    const { probeOf, latest } = probe();
    render(h(StrictMode, null, probeOf(request)));
    await drain();
    expect(request).toHaveBeenCalledTimes(1);
    expect(request.mock.calls[0]?.[0].aborted).toBe(false);
    body.push('{"a":[1,2]}');
    body.close();
    await drain();
    expect(body.cancel).not.toHaveBeenCalled();
    expect(latest()).toMatchObject({ status: 'done', value: { a: [1, 2] } });

    const response = pushable();
    const direct = probe();
    render(h(StrictMode, null, direct.probeOf(new Response(response.stream))));
    await drain();
    response.push('{"b":true}');
    response.close();
    await drain();
    expect(response.cancel).not.toHaveBeenCalled();
    expect(direct.latest()).toMatchObject({ status: 'done', value: { b: true } });
  });
});

describe('useJsonStream: what restarts a run', () => {
  test('hidden by <Activity> while it streams, then shown: the cut run starts again', async () => {
    const calls: AbortSignal[] = [];
    const { probeOf, latest } = probe();
    const source = (signal: AbortSignal) => {
      calls.push(signal);
      return calls.length === 1 ? pushable().stream : bytes('{"again":true}');
    };
    const view = render(activity('visible', probeOf(source)));
    await drain();
    view.rerender(activity('hidden', probeOf(source)));
    await drain();
    expect(calls[0]?.aborted).toBe(true);
    view.rerender(activity('visible', probeOf(source)));
    await drain();
    expect(calls.length).toBe(2);
    expect(latest()).toMatchObject({ status: 'done', value: { again: true } });
  });

  test('a new stream restarts (the previous one is cancelled)', async () => {
    const a = pushable();
    const b = pushable();
    const { probeOf, latest } = probe();
    const view = render(probeOf(a.stream));
    a.push('{"from":"a"');
    await drain();
    view.rerender(probeOf(b.stream));
    b.push('{"from":"b"}');
    b.close();
    await drain();
    expect(a.cancel).toHaveBeenCalled();
    expect(latest()).toMatchObject({ status: 'done', value: { from: 'b' } });
  });

  test('a new inline function does not restart; a new key does', async () => {
    const signals: AbortSignal[] = [];
    const calls: string[] = [];
    const source = (name: string) => (signal: AbortSignal) => {
      calls.push(name);
      signals.push(signal);
      return name === 'second' ? bytes('{"run":2}') : pushable().stream;
    };
    const { probeOf, latest } = probe();
    const view = render(probeOf(source('first'), 'x'));
    await drain();
    view.rerender(probeOf(source('again'), 'x'));
    await drain();
    expect(calls).toEqual(['first']);
    expect(latest().status).toBe('streaming');
    view.rerender(probeOf(source('second'), 'y'));
    await drain();
    expect(calls).toEqual(['first', 'second']);
    expect(signals[0]?.aborted).toBe(true);
    expect(latest()).toMatchObject({ status: 'done', value: { run: 2 } });
  });
});

type Item = { readonly id?: number; readonly text?: string };
const itemsSchema = z.object({ items: z.array(z.object({ id: z.number(), text: z.string() })) });
/** Renders of each row, by item id. */
const rowRenders = new Map<number | undefined, number>();
const listRenders = { count: 0 };

const Row = memo(function Row({ item }: { item: Item }) {
  rowRenders.set(item.id, (rowRenders.get(item.id) ?? 0) + 1);
  return null;
});

function List({ source, schema }: { source: Source; schema: typeof itemsSchema }) {
  const { value } = useJsonStream(source, { schema, throttle: 0 });
  listRenders.count += 1;
  return h(
    'ul',
    null,
    (value?.items ?? []).map((item, index) => h(Row, { key: index, item })),
  );
}

describe('useJsonStream: rendering', () => {
  test('a completed item keeps its identity: memo item components render once', async () => {
    rowRenders.clear();
    listRenders.count = 0;
    const source = pushable();
    render(h(List, { source: source.stream, schema: itemsSchema }));
    source.push('{"items":[{"id":1,"text":"one"},{"id":2,"text":"tw');
    await drain();
    source.push('o"},{"id":3,"text":"th');
    await drain();
    source.push('ree"}]}');
    source.close();
    await drain();
    expect(listRenders.count).toBeGreaterThanOrEqual(4);
    expect(rowRenders.get(1)).toBe(1);
    expect(rowRenders.get(2)).toBe(2);
    expect(rowRenders.get(3)).toBe(2);
  });

  test('a fast source (2 000 chunks): at most one commit per animation frame, the last state committed', async () => {
    const frames = manualFrames();
    const source = pushable();
    let commits = 0;
    const { probeOf, latest } = probe({}); // the default throttle: 'frame'
    await outsideAct(async () => {
      render(
        h(
          Profiler,
          {
            id: 'answer',
            onRender: () => {
              commits += 1;
            },
          },
          probeOf(source.stream),
        ),
      );
      const mounted = commits;
      source.push('[');
      for (let n = 0; n < 2000; n++) {
        source.push(`{"n":${n}},`);
        if (n % 100 === 99) {
          await tick();
          frames.frame();
          await tick();
        }
      }
      expect((latest().value as unknown[]).length).toBeGreaterThan(1900);
      source.push('{"n":2000}]');
      source.close();
      await tick();
      await tick();
      // Mount and `streaming`, one per frame at most, and `done`.
      expect(commits - mounted).toBeLessThanOrEqual(frames.ran + 2);
    });
    expect(latest()).toMatchObject({ status: 'done', complete: true });
    expect((latest().value as unknown[]).length).toBe(2001);
  });
});
