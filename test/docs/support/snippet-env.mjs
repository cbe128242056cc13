// Loaded with `node --import` before every README snippet that test/docs/readme-snippets.test.ts
// runs: routes `fetch` to the local fake model server (LLMJSON_SNIPPET_SERVER), so a snippet
// runs as written without the network. A relative URL (`fetch('/api/extract')`, as a page
// would write it) and any URL on this machine (`http://127.0.0.1:8080/v1`, a local model
// server) go to the fake server, path and query kept; any other URL is refused.
const origin = process.env.LLMJSON_SNIPPET_SERVER;
if (origin === undefined) throw new Error('snippet-env.mjs: LLMJSON_SNIPPET_SERVER is not set');
const realFetch = globalThis.fetch;

globalThis.fetch = (input, init) => {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const url = new URL(href, origin);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    return Promise.reject(new Error(`a README snippet tried the network: ${href}`));
  }
  const local = new URL(`${url.pathname}${url.search}`, origin);
  return realFetch(local, typeof input === 'string' || input instanceof URL ? init : new Request(input, init));
};
