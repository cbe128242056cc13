/**
 * @llmjson/react server-rendered in plain Node, as installed from its tarball: a page using
 * useJsonStream (a function source) and useJsonlStream (a stream source) renders the idle state,
 * and nothing starts — the function is never called, the stream never read. Prints one JSON
 * report on stdout for test/packaging/react.test.ts.
 */

import { useJsonlStream, useJsonStream } from '@llmjson/react';
import { createElement as h, version } from 'react';
import { renderToString } from 'react-dom/server';

let called = 0;
const request = (_signal) => {
  called += 1;
  return new Response('{"never":true}');
};
const lines = new ReadableStream();

function Page() {
  const answer = useJsonStream(request);
  const list = useJsonlStream(lines);
  return h(
    'main',
    null,
    h('p', null, `${answer.status}:${answer.value === undefined ? '-' : 'value'}`),
    h('p', null, `${list.status}:${list.items.length}`),
  );
}

const html = renderToString(h(Page));
await new Promise((resolve) => setTimeout(resolve, 20));
console.log(JSON.stringify({ react: version, window: typeof window, html, called, locked: lines.locked }));
