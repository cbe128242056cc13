/**
 * Server rendering (Node environment: no `window`, no `document`, no `requestAnimationFrame`):
 * `createSSRApp` + `renderToString` of components using `useJsonStream` and `useJsonlStream`
 * render the idle state and start nothing — the source function is never called, a stream
 * source is never read — since runs start on mount, which the server never does.
 */

import { useJsonlStream, useJsonStream } from '@llmjson/vue';
import { describe, expect, test, vi } from 'vitest';
import { createSSRApp, defineComponent, h } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { tick } from './helpers.js';

describe('server rendering', () => {
  test('there is no window here', () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
    expect(typeof (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame).toBe('undefined');
  });

  test('renderToString renders the idle state and starts nothing', async () => {
    const request = vi.fn((_signal: AbortSignal) => new Response('{"title":"never"}'));
    const stream = new ReadableStream<Uint8Array>();
    const Page = defineComponent({
      setup() {
        const answer = useJsonStream(request);
        const items = useJsonlStream(stream);
        return () =>
          h('main', [
            h('p', `${answer.status.value}:${JSON.stringify(answer.value.value) ?? '-'}`),
            h('p', `${items.status.value}:${items.items.value.length}`),
          ]);
      },
    });
    const html = await renderToString(createSSRApp(Page));
    expect(html).toBe('<main><p>idle:-</p><p>idle:0</p></main>');
    await tick();
    expect(request).not.toHaveBeenCalled();
    expect(stream.locked).toBe(false);
  });
});
