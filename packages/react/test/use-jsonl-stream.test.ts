// @vitest-environment happy-dom
/**
 * `useJsonlStream` (packages/react/src): the items as the lines arrive, each item object the same
 * in every later render (so `memo` rows render once), a line that fails the schema reported and
 * skipped, and unmount aborting the request.
 */

import { type UseJsonlStreamResult, useJsonlStream } from '@llmjson/react';
import { act, cleanup, render } from '@testing-library/react';
import { createElement as h, memo } from 'react';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { pushable, tick } from './helpers.js';

afterEach(cleanup);

const drain = () =>
  act(async () => {
    await tick();
    await tick();
  });

const lineSchema = z.object({ id: z.number(), name: z.string() });
type Line = z.infer<typeof lineSchema>;
const rowRenders = new Map<number, number>();
const seen: UseJsonlStreamResult<Line>[] = [];

const Row = memo(function Row({ line }: { line: Line }) {
  rowRenders.set(line.id, (rowRenders.get(line.id) ?? 0) + 1);
  return null;
});

function Lines({ source }: { source: ReadableStream<Uint8Array> }) {
  const result = useJsonlStream(source, { schema: lineSchema, throttle: 0 });
  seen.push(result);
  return h(
    'ul',
    null,
    result.items.map((line) => h(Row, { key: line.id, line })),
  );
}

describe('useJsonlStream', () => {
  test('items appear line by line; earlier items keep their identity and their memo rows render once', async () => {
    rowRenders.clear();
    seen.length = 0;
    const source = pushable();
    render(h(Lines, { source: source.stream }));
    source.push('{"id":1,"name":"one"}\n{"id":2,');
    await drain();
    const first = seen.at(-1);
    expect(first?.items).toEqual([{ id: 1, name: 'one' }]);
    source.push('"name":"two"}\n{"id":"three"}\n{"id":3,"name":"three"}\n');
    source.close();
    await drain();
    const last = seen.at(-1);
    expect(last).toMatchObject({ status: 'done', error: undefined });
    expect(last?.items.map((line) => line.id)).toEqual([1, 2, 3]);
    expect(last?.items[0]).toBe(first?.items[0]);
    expect(last?.diagnostics.map((d) => d.reason)).toEqual(['schema']);
    expect([...rowRenders.values()]).toEqual([1, 1, 1]);
  });

  test('unmount cancels the stream', async () => {
    const source = pushable();
    const view = render(h(Lines, { source: source.stream }));
    await drain();
    view.unmount();
    await tick();
    expect(source.cancel).toHaveBeenCalled();
  });
});
