// @vitest-environment happy-dom
/**
 * `useJsonlStream` (packages/vue/src/use-jsonl-stream.ts) mounted with Vue Test Utils in
 * happy-dom: each item appears the moment its line completes, a dropped line is a diagnostic
 * with its line number and reason, items already shown keep their identity (their row component
 * is not re-rendered), a schema drops what does not match, and unmount / abort stop the run.
 */

import { DiagnosticReason } from '@llmjson/core';
import { type LiveSourceInput, type UseJsonlStream, useJsonlStream } from '@llmjson/vue';
import { mount } from '@vue/test-utils';
import { describe, expect, test } from 'vitest';
import { defineComponent, h, nextTick } from 'vue';
import { z } from 'zod';
import { pushable, tick } from './helpers.js';

const settle = async () => {
  await tick();
  await nextTick();
};

/** A list of `useJsonlStream(source, options)`'s items, one row component each, counting each row's renders. */
function listView(source: LiveSourceInput, options: Parameters<typeof useJsonlStream>[1] = {}) {
  const rowRenders: number[] = [];
  let result: UseJsonlStream<unknown> | undefined;
  const Row = defineComponent({
    props: { item: { type: Object, required: true }, index: { type: Number, required: true } },
    setup(props) {
      return () => {
        rowRenders[props.index] = (rowRenders[props.index] ?? 0) + 1;
        return h('li', JSON.stringify(props.item));
      };
    },
  });
  const List = defineComponent({
    setup() {
      const live = useJsonlStream(source, options);
      result = live;
      return () =>
        h('div', [
          h('p', `${live.status.value}:${live.diagnostics.value.map((d) => `${d.reason}@${d.line}`).join(',')}`),
          h(
            'ul',
            live.items.value.map((item, index) => h(Row, { item: item as object, index, key: index })),
          ),
        ]);
    },
  });
  const live = () => {
    if (result === undefined) throw new Error('the component was not set up');
    return result;
  };
  return { List, rowRenders, live };
}

describe('useJsonlStream', () => {
  test('each item appears as its line completes; a dropped line is a diagnostic; shown items keep their identity', async () => {
    const source = pushable();
    const { List, rowRenders, live } = listView(source.stream, { throttle: 0 });
    const wrapper = mount(List);
    const rows = () => wrapper.findAll('li').map((li) => li.text());

    source.push('{"name":"ATP","role":"en');
    await settle();
    expect(rows()).toEqual([]);
    source.push('ergy"}\n{"name":"chloro');
    await settle();
    expect(rows()).toEqual(['{"name":"ATP","role":"energy"}']);
    const first = live().items.value[0];

    source.push('phyll","role":"light"}\n{"name" "no colon"}\n');
    await settle();
    expect(rows()).toHaveLength(2);
    expect(live().diagnostics.value).toMatchObject([{ reason: DiagnosticReason.syntax, line: 3 }]);
    expect(wrapper.find('p').text()).toBe('streaming:syntax@3');

    source.push('{"name":"stomata","role":"gas exchange"}\n{"name":"cut');
    source.close();
    await settle();
    expect(rows()).toEqual([
      '{"name":"ATP","role":"energy"}',
      '{"name":"chlorophyll","role":"light"}',
      '{"name":"stomata","role":"gas exchange"}',
    ]);
    expect(live().status.value).toBe('done');
    expect(live().diagnostics.value.map((d) => [d.reason, d.line])).toEqual([
      [DiagnosticReason.syntax, 3],
      [DiagnosticReason.truncated, 5],
    ]);
    expect(live().items.value[0]).toBe(first);
    expect(rowRenders[0]).toBe(1);
  });

  test('with a schema, a line that does not match is dropped and reported as schema', async () => {
    const schema = z.object({ name: z.string(), role: z.string() });
    const text = '{"name":"ATP","role":"energy"}\n{"name":42}\n{"name":"NADPH","role":"electrons"}\n';
    const { List, live } = listView((_signal: AbortSignal) => new Response(text), { schema, throttle: 0 });
    mount(List);
    await settle();
    expect(live().status.value).toBe('done');
    expect(live().items.value).toEqual([
      { name: 'ATP', role: 'energy' },
      { name: 'NADPH', role: 'electrons' },
    ]);
    expect(live().diagnostics.value).toMatchObject([{ reason: DiagnosticReason.schema, line: 2 }]);
  });

  test('unmounting aborts the run (the signal fires, the stream is cancelled); abort() sets aborted and keeps the items', async () => {
    const source = pushable();
    let signal: AbortSignal | undefined;
    const { List } = listView((s: AbortSignal) => {
      signal = s;
      return source.stream;
    });
    const wrapper = mount(List);
    await settle();
    wrapper.unmount();
    expect(signal?.aborted).toBe(true);
    await tick();
    expect(source.cancel).toHaveBeenCalled();

    const other = pushable();
    const view = listView(other.stream, { throttle: 0 });
    mount(view.List);
    other.push('{"a":1}\n');
    await settle();
    view.live().abort();
    expect(view.live().status.value).toBe('aborted');
    expect(view.live().items.value).toEqual([{ a: 1 }]);
  });
});
