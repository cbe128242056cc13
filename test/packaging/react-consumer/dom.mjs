/**
 * @llmjson/react mounted in happy-dom with react-dom/client, as installed from its tarball: three
 * components read recorded answers to their end — model text (a fenced, pretty-printed JSON array)
 * with useJsonStream, the same answer as the llmjson wire (toEventStream of @llmjson/web, as a
 * server sends it), and a JSONL answer in prose with useJsonlStream — inside StrictMode, counting
 * the requests each function source made. Prints one JSON report on stdout for
 * test/packaging/react.test.ts. happy-dom is installed in the folder above the project (it depends
 * on @types/node, which the project, whose types are checked, must not have). Arguments: the
 * answer file and the JSONL file.
 */

import { readFileSync } from 'node:fs';
import { Window } from 'happy-dom';

const window = new Window({ url: 'http://localhost/' });
globalThis.window = window;
globalThis.document = window.document;
for (const name of ['Node', 'Element', 'HTMLElement', 'HTMLIFrameElement', 'Event', 'navigator']) {
  if (window[name] !== undefined && !(name in globalThis)) globalThis[name] = window[name];
}
globalThis.requestAnimationFrame = window.requestAnimationFrame.bind(window);
globalThis.cancelAnimationFrame = window.cancelAnimationFrame.bind(window);
// Renders scheduled by React itself, as in an app (no act()).
globalThis.IS_REACT_ACT_ENVIRONMENT = false;

// react-dom decides whether it can use the DOM when it loads: imported after the globals are set.
const { createElement: h, StrictMode, version } = await import('react');
const { createRoot } = await import('react-dom/client');
const { useJsonlStream, useJsonStream } = await import('@llmjson/react');
const { createPartialStream, toEventStream } = await import('@llmjson/web');

const encoder = new TextEncoder();
/** A recorded answer in 7-byte chunks, as a model streams it. */
const chunks = (text) => {
  const bytes = encoder.encode(text);
  const out = [];
  for (let at = 0; at < bytes.length; at += 7) out.push(bytes.slice(at, at + 7));
  return out;
};
const answer = readFileSync(process.argv[2], 'utf8');
const lines = readFileSync(process.argv[3], 'utf8');

const textResponse = (text) =>
  new Response(ReadableStream.from(chunks(text)), { headers: { 'content-type': 'text/plain' } });
function wireResponse(text) {
  const partial = createPartialStream({ emit: 'changes' });
  ReadableStream.from(chunks(text))
    .pipeTo(partial.writable)
    .catch(() => {});
  return new Response(toEventStream(partial), { headers: { 'content-type': 'text/event-stream' } });
}

const requests = { text: 0, wire: 0, jsonl: 0 };
const results = {};
const sources = {
  text: () => {
    requests.text += 1;
    return textResponse(answer);
  },
  wire: () => {
    requests.wire += 1;
    return wireResponse(answer);
  },
  jsonl: () => {
    requests.jsonl += 1;
    return textResponse(lines);
  },
};

function Answer({ name }) {
  const live = name === 'jsonl' ? useJsonlStream(sources[name]) : useJsonStream(sources[name]);
  results[name] = live;
  return h('pre', { id: name }, `${live.status}:${(live.items ?? live.value)?.length ?? 0}`);
}

const container = document.createElement('div');
document.body.appendChild(container);
const root = createRoot(container);
root.render(
  h(
    StrictMode,
    null,
    h('main', null, h(Answer, { name: 'text' }), h(Answer, { name: 'wire' }), h(Answer, { name: 'jsonl' })),
  ),
);

const over = () => Object.keys(sources).every((name) => ['done', 'error', 'aborted'].includes(results[name]?.status));
for (let waited = 0; !over() && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
// One more frame, so the last commit is in the document.
await new Promise((resolve) => setTimeout(resolve, 50));

const { text, wire, jsonl } = results;
console.log(
  JSON.stringify({
    react: version,
    requests,
    text: { status: text.status, complete: text.complete, value: text.value },
    wire: { status: wire.status, complete: wire.complete, value: wire.value, end: wire.end?.type },
    jsonl: {
      status: jsonl.status,
      items: jsonl.items,
      diagnostics: jsonl.diagnostics.map((d) => ({ reason: d.reason, line: d.line })),
    },
    html: container.innerHTML,
  }),
);
root.unmount();
await window.happyDOM.close();
