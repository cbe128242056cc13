/**
 * @llmjson/vue mounted in happy-dom, as installed from its tarball: three components read
 * recorded answers to their end — model text (a fenced, pretty-printed JSON array) with
 * useJsonStream, the same answer as the llmjson wire (toEventStream of @llmjson/web, as a
 * server sends it), and a JSONL answer in prose with useJsonlStream. Prints one JSON report on
 * stdout for test/packaging/vue.test.ts. It runs in a folder of its own (dom/), where happy-dom is
 * installed, so that the project above it, whose types are checked, has no @types/node (happy-dom
 * depends on it). The recorded answers: ../answer.txt, ../lines.txt.
 */

import { readFileSync } from 'node:fs';
import { Window } from 'happy-dom';

const window = new Window({ url: 'http://localhost/' });
globalThis.window = window;
globalThis.document = window.document;
// What Vue's DOM renderer reads besides `document` (the container's kind, its namespace).
for (const name of ['Node', 'Element', 'HTMLElement', 'SVGElement', 'MathMLElement']) {
  if (window[name] !== undefined) globalThis[name] = window[name];
}
globalThis.requestAnimationFrame = window.requestAnimationFrame.bind(window);
globalThis.cancelAnimationFrame = window.cancelAnimationFrame.bind(window);

// Vue's DOM renderer looks for `document` when it loads: imported after the globals are set.
const { createApp, defineComponent, h, nextTick } = await import('vue');
const { useJsonlStream, useJsonStream } = await import('@llmjson/vue');
const { createPartialStream, toEventStream } = await import('@llmjson/web');

const encoder = new TextEncoder();
/** A recorded answer in 7-byte chunks, as a model streams it. */
const chunks = (text) => {
  const bytes = encoder.encode(text);
  const out = [];
  for (let at = 0; at < bytes.length; at += 7) out.push(bytes.slice(at, at + 7));
  return out;
};
const answer = readFileSync('../answer.txt', 'utf8');
const lines = readFileSync('../lines.txt', 'utf8');

const textResponse = (text) =>
  new Response(ReadableStream.from(chunks(text)), { headers: { 'content-type': 'text/plain' } });
function wireResponse(text) {
  const partial = createPartialStream({ emit: 'changes' });
  ReadableStream.from(chunks(text))
    .pipeTo(partial.writable)
    .catch(() => {});
  return new Response(toEventStream(partial), { headers: { 'content-type': 'text/event-stream' } });
}

const results = {};
/** A line per answer: its status and how many elements (or items) it shows. */
const show = (name, live) => {
  results[name] = live;
  return () => h('pre', { id: name }, `${live.status.value}:${(live.items ?? live.value).value?.length ?? 0}`);
};
const App = defineComponent({
  setup() {
    const text = useJsonStream((_signal) => textResponse(answer));
    const wire = useJsonStream((_signal) => wireResponse(answer));
    const list = useJsonlStream((_signal) => textResponse(lines));
    const parts = [show('text', text), show('wire', wire), show('jsonl', list)];
    return () =>
      h(
        'main',
        parts.map((part) => part()),
      );
  },
});

const root = document.createElement('div');
document.body.appendChild(root);
const app = createApp(App);
app.mount(root);
const settled = () =>
  Object.values(results).every((live) => live.status.value !== 'idle' && live.status.value !== 'streaming');
// Polled up to 30 s: a bound for a loaded machine, not a timing assertion.
for (let turn = 0; turn < 3000 && !settled(); turn++) await new Promise((resolve) => setTimeout(resolve, 10));
await nextTick();
const report = {
  html: root.innerHTML,
  text: { status: results.text.status.value, complete: results.text.complete.value, value: results.text.value.value },
  wire: {
    status: results.wire.status.value,
    complete: results.wire.complete.value,
    value: results.wire.value.value,
    end: results.wire.end.value?.type,
  },
  jsonl: {
    status: results.jsonl.status.value,
    items: results.jsonl.items.value,
    diagnostics: results.jsonl.diagnostics.value.map((d) => ({ reason: d.reason, line: d.line })),
  },
};
app.unmount();
await window.happyDOM.close();
console.log(JSON.stringify(report));
