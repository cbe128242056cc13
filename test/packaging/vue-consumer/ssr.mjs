/**
 * @llmjson/vue under Vue's server renderer, as installed from its tarball, in plain Node (no
 * window): a page using both composables renders its idle state and starts nothing. Prints one
 * JSON report on stdout for test/packaging/vue.test.ts.
 */

import { useJsonlStream, useJsonStream } from '@llmjson/vue';
import { createSSRApp, defineComponent, h } from 'vue';
import { renderToString } from 'vue/server-renderer';

let called = 0;
const stream = new ReadableStream();
const Page = defineComponent({
  setup() {
    const answer = useJsonStream((signal) => {
      called += 1;
      return fetch('http://127.0.0.1:9/never', { signal });
    });
    const list = useJsonlStream(stream);
    return () =>
      h('main', [
        h('p', `${answer.status.value}:${answer.value.value ?? '-'}`),
        h('p', `${list.status.value}:${list.items.value.length}`),
      ]);
  },
});

const html = await renderToString(createSSRApp(Page));
await new Promise((resolve) => setTimeout(resolve, 50));
console.log(JSON.stringify({ window: typeof window, html, called, locked: stream.locked }));
