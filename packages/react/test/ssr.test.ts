/**
 * Server rendering (Node environment: no `window`, no `document`, no `requestAnimationFrame`):
 * `renderToString` of a component using `useJsonStream` and `useJsonlStream` renders the idle
 * state and starts nothing — the source function is never called, a stream is never read —
 * since runs start in an effect, which the server never runs.
 */

import { useJsonlStream, useJsonStream } from '@llmjson/react';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, test, vi } from 'vitest';
import { pushable, tick } from './helpers.js';

const request = vi.fn((_signal: AbortSignal) => new Response('{"title":"never"}'));
const lines = pushable();

function Page() {
  const answer = useJsonStream(request);
  const items = useJsonlStream(lines.stream);
  return h('p', null, `${answer.status} ${items.status} ${String(answer.value)} ${items.items.length}`);
}

describe('server rendering', () => {
  test('there is no window here', () => {
    expect('window' in globalThis).toBe(false);
    expect('requestAnimationFrame' in globalThis).toBe(false);
  });

  test('renderToString renders the idle state and fetches nothing', async () => {
    expect(renderToString(h(Page))).toBe('<p>idle idle undefined 0</p>');
    await tick();
    expect(request).not.toHaveBeenCalled();
    expect(lines.stream.locked).toBe(false);
  });
});
