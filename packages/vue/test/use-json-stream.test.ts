// @vitest-environment happy-dom
/**
 * `useJsonStream` (packages/vue/src/use-json-stream.ts, live-binding.ts) mounted with Vue Test
 * Utils in happy-dom: the value while it streams and at the end, abort on unmount and by
 * `abort()`, restarts by source and by `key` (and none by a getter read again to the same
 * source), a completed subtree keeping its identity so its child component is not re-rendered,
 * one update per animation frame, the run outside a component, and the option checks.
 */

import { ConfigurationError } from '@llmjson/core';
import { type LiveSource, type LiveSourceInput, type UseJsonStream, useJsonStream } from '@llmjson/vue';
import { mount } from '@vue/test-utils';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { defineComponent, effectScope, h, KeepAlive, nextTick, ref, watch } from 'vue';
import { manualFrames, pushable, tick } from './helpers.js';

const recipe = {
  title: 'Phở bò',
  steps: [{ text: 'char the onions' }, { text: 'simmer the bones' }, { text: 'slice the beef' }],
  minutes: 240,
};
const answer = JSON.stringify(recipe);

/** Stream pipes, then Vue's render. */
const settle = async () => {
  await tick();
  await nextTick();
};

/** A component showing `status:value` of `useJsonStream(source, options)`, its render count, and the composable's result. */
function answerView(source: LiveSourceInput, options: Parameters<typeof useJsonStream>[1] = {}) {
  const seen = { renders: 0, live: undefined as UseJsonStream<unknown> | undefined };
  const Answer = defineComponent({
    setup() {
      const live = useJsonStream(source, options);
      seen.live = live;
      return () => {
        seen.renders += 1;
        return h('p', `${live.status.value}:${JSON.stringify(live.value.value) ?? '-'}`);
      };
    },
  });
  const live = () => {
    if (seen.live === undefined) throw new Error('the component was not set up');
    return seen.live;
  };
  return { Answer, seen, live };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('useJsonStream: the value', () => {
  test('appears while the answer streams and equals the answer at the end', async () => {
    const source = pushable();
    const { Answer, live } = answerView(source.stream, { throttle: 0 });
    const wrapper = mount(Answer);
    await settle();
    expect(wrapper.text()).toBe('streaming:-');
    source.push(answer.slice(0, 13));
    await settle();
    expect(wrapper.text()).toBe('streaming:{"title":"Phở"}');
    expect(live().complete.value).toBe(false);
    source.push(answer.slice(13, 60));
    await settle();
    expect(live().value.value).toMatchObject({ title: 'Phở bò', steps: [{ text: 'char the onions' }, {}] });
    source.push(answer.slice(60));
    source.close();
    await settle();
    expect(wrapper.text()).toBe(`done:${answer}`);
    expect(live().value.value).toEqual(recipe);
    expect(live().complete.value).toBe(true);
    expect(live().diagnostics.value).toEqual([]);
    expect(live().error.value).toBeUndefined();
    wrapper.unmount();
  });

  test("with the default throttle (happy-dom's animation frames) the last state is the whole answer", async () => {
    const { Answer, live } = answerView((_signal: AbortSignal) => new Response(answer));
    const wrapper = mount(Answer);
    // A generous bound, not a timing assertion: the suite may run on a loaded machine.
    await vi.waitFor(() => expect(live().status.value).toBe('done'), { timeout: 20_000 });
    await nextTick();
    expect(live().value.value).toEqual(recipe);
    expect(wrapper.text()).toBe(`done:${answer}`);
  });

  test('a source that fails: status error, the error in its ref', async () => {
    const failure = new Error('connection reset');
    const { Answer, live } = answerView((_signal: AbortSignal) => Promise.reject(failure));
    const wrapper = mount(Answer);
    await settle();
    expect(live().status.value).toBe('error');
    expect(live().error.value).toBe(failure);
    expect(wrapper.text()).toBe('error:-');
  });

  test('the refs are read-only views: writing one changes nothing', async () => {
    const { Answer, live } = answerView(null);
    mount(Answer);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    (live().status as { value: string }).value = 'done';
    warn.mockRestore();
    expect(live().status.value).toBe('idle');
  });
});

describe('useJsonStream: abort', () => {
  test("unmounting aborts: the function's AbortSignal fires and the stream it returned is cancelled", async () => {
    const source = pushable();
    let signal: AbortSignal | undefined;
    const { Answer } = answerView((s: AbortSignal) => {
      signal = s;
      return source.stream;
    });
    const wrapper = mount(Answer);
    source.push('{"title":"Ph');
    await settle();
    expect(signal?.aborted).toBe(false);
    wrapper.unmount();
    expect(signal?.aborted).toBe(true);
    await tick();
    expect(source.cancel).toHaveBeenCalled();
  });

  test('unmounting aborts a ReadableStream source: it is cancelled', async () => {
    const source = pushable();
    const { Answer } = answerView(source.stream);
    const wrapper = mount(Answer);
    await settle();
    wrapper.unmount();
    await tick();
    expect(source.cancel).toHaveBeenCalled();
  });

  test("abort() sets status 'aborted' at once, fires the signal with its reason, keeps the value so far", async () => {
    const source = pushable();
    let signal: AbortSignal | undefined;
    const { Answer, live } = answerView(
      (s: AbortSignal) => {
        signal = s;
        return source.stream;
      },
      { throttle: 0 },
    );
    const wrapper = mount(Answer);
    source.push('{"title":"Ph');
    await settle();
    live().abort('stop pressed');
    expect(live().status.value).toBe('aborted');
    expect(signal?.reason).toBe('stop pressed');
    await settle();
    expect(wrapper.text()).toBe('aborted:{"title":"Ph"}');
    expect(source.cancel).toHaveBeenCalledWith('stop pressed');
  });
});

describe('useJsonStream: restarts', () => {
  test('a changed source ref aborts the previous run and starts the new source', async () => {
    const first = pushable();
    const second = pushable();
    const source = ref<LiveSource>(first.stream);
    const { Answer, live } = answerView(source, { throttle: 0 });
    const wrapper = mount(Answer);
    first.push('{"n":1,');
    await settle();
    expect(wrapper.text()).toBe('streaming:{"n":1}');
    source.value = second.stream;
    await settle();
    expect(first.cancel).toHaveBeenCalled();
    expect(wrapper.text()).toBe('streaming:-');
    second.push('{"n":2}');
    second.close();
    await settle();
    expect(wrapper.text()).toBe('done:{"n":2}');
    expect(live().value.value).toEqual({ n: 2 });
  });

  test('a getter that builds the request from a ref restarts when the ref changes (a new function)', async () => {
    const asked: string[] = [];
    const topic = ref('atp');
    const { Answer } = answerView(
      () => {
        const current = topic.value;
        return (_signal: AbortSignal) => {
          asked.push(current);
          return new Response(JSON.stringify({ topic: current }));
        };
      },
      { throttle: 0 },
    );
    const wrapper = mount(Answer);
    await settle();
    expect(wrapper.text()).toBe('done:{"topic":"atp"}');
    topic.value = 'nadph';
    await settle();
    expect(asked).toEqual(['atp', 'nadph']);
    expect(wrapper.text()).toBe('done:{"topic":"nadph"}');
  });

  test('a null source is idle and starts nothing; a source set later starts', async () => {
    const request = vi.fn((_signal: AbortSignal) => new Response('{"ok":true}'));
    const source = ref<LiveSource | null>(null);
    const { Answer } = answerView(source, { throttle: 0 });
    const wrapper = mount(Answer);
    await settle();
    expect(wrapper.text()).toBe('idle:-');
    expect(request).not.toHaveBeenCalled();
    source.value = request;
    await settle();
    expect(request).toHaveBeenCalledTimes(1);
    expect(wrapper.text()).toBe('done:{"ok":true}');
    source.value = null;
    await settle();
    expect(wrapper.text()).toBe('idle:-');
  });

  test('a changed key restarts the same function source; a getter read again to the same source does not', async () => {
    const signals: AbortSignal[] = [];
    const streams: ReturnType<typeof pushable>[] = [];
    const request = (signal: AbortSignal) => {
      signals.push(signal);
      const stream = pushable();
      streams.push(stream);
      return stream.stream;
    };
    const id = ref(1);
    const other = ref(0);
    const { Answer } = answerView(() => (other.value >= 0 ? request : null), { key: id, throttle: 0 });
    const wrapper = mount(Answer);
    await settle();
    expect(signals).toHaveLength(1);
    other.value = 5; // the getter runs again and gives the same function: no restart
    await settle();
    expect(signals).toHaveLength(1);
    id.value = 2;
    await settle();
    expect(signals).toHaveLength(2);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[1]?.aborted).toBe(false);
    streams[1]?.push('{"id":2}');
    streams[1]?.close();
    await settle();
    expect(wrapper.text()).toBe('done:{"id":2}');
  });
});

describe('useJsonStream: identity and frames', () => {
  test('a completed step keeps its identity, so the child given it as a prop is not re-rendered', async () => {
    const source = pushable();
    const stepRenders: number[] = [];
    let parentRenders = 0;
    const Step = defineComponent({
      props: { step: { type: Object, required: true }, index: { type: Number, required: true } },
      setup(props) {
        return () => {
          stepRenders[props.index] = (stepRenders[props.index] ?? 0) + 1;
          return h('li', String((props.step as { text?: string }).text));
        };
      },
    });
    let live!: UseJsonStream<unknown>;
    const Steps = defineComponent({
      setup() {
        live = useJsonStream(source.stream, { throttle: 0 });
        return () => {
          parentRenders += 1;
          const steps = (live.value.value as { steps?: object[] } | undefined)?.steps ?? [];
          return h(
            'ol',
            steps.map((step, index) => h(Step, { step, index, key: index })),
          );
        };
      },
    });
    const wrapper = mount(Steps);
    source.push('{"steps":[{"text":"char');
    await settle();
    source.push(' the onions"},');
    await settle();
    const first = (live.value.value as { steps: object[] }).steps[0];
    const firstRenders = stepRenders[0];
    const parentBefore = parentRenders;
    for (const chunk of ['{"text":"sim', 'mer the', ' bones"},{"te', 'xt":"slice the beef"}]}']) {
      source.push(chunk);
      await settle();
    }
    source.close();
    await settle();
    expect(wrapper.findAll('li').map((li) => li.text())).toEqual([
      'char the onions',
      'simmer the bones',
      'slice the beef',
    ]);
    expect(parentRenders - parentBefore).toBeGreaterThanOrEqual(4);
    expect((live.value.value as { steps: object[] }).steps[0]).toBe(first);
    expect(stepRenders[0]).toBe(firstRenders);
    expect(stepRenders[1]).toBeGreaterThan(1);
  });

  test('a fast source updates the refs and the component once per animation frame, and the end at once', async () => {
    const frames = manualFrames();
    const source = pushable();
    const { Answer, seen, live } = answerView(source.stream);
    const wrapper = mount(Answer);
    await settle();
    const base = seen.renders;
    let valueUpdates = 0;
    // A sync watcher hears every assignment that changed the ref, not only the rendered ones.
    const scope = effectScope();
    scope.run(() => watch(live().value, () => valueUpdates++, { flush: 'sync' }));
    const cut = answer.indexOf('},') + 2;
    const pieces = (text: string) => text.match(/.{1,2}/gsu) ?? [];

    for (const piece of pieces(answer.slice(0, cut))) source.push(piece);
    await settle();
    expect(seen.renders).toBe(base);
    expect(live().value.value).toBeUndefined();
    expect(frames.pending).toBe(1);
    frames.frame();
    await settle();
    expect(seen.renders).toBe(base + 1);
    expect(valueUpdates).toBe(1);
    expect(live().value.value).toEqual({ title: recipe.title, steps: [recipe.steps[0]] });

    for (const piece of pieces(answer.slice(cut))) source.push(piece);
    await settle();
    expect(seen.renders).toBe(base + 1);
    frames.frame();
    await settle();
    expect(seen.renders).toBe(base + 2);
    expect(valueUpdates).toBe(2);

    source.close();
    await settle();
    expect(seen.renders).toBe(base + 3);
    expect(frames.pending).toBe(0);
    expect(wrapper.text()).toBe(`done:${answer}`);
    scope.stop();
  });
});

describe('useJsonStream: KeepAlive', () => {
  test('a deactivated component keeps its run; shown again, it shows what arrived meanwhile', async () => {
    const source = pushable();
    let signal: AbortSignal | undefined;
    const { Answer } = answerView(
      (s: AbortSignal) => {
        signal = s;
        return source.stream;
      },
      { throttle: 0 },
    );
    const shown = ref(true);
    const Other = defineComponent({ render: () => h('i', 'other') });
    const Page = defineComponent({
      setup: () => () => h(KeepAlive, null, [shown.value ? h(Answer) : h(Other)]),
    });
    const wrapper = mount(Page);
    source.push('{"a":1,');
    await settle();
    expect(wrapper.text()).toBe('streaming:{"a":1}');
    shown.value = false;
    await settle();
    source.push('"b":2}');
    source.close();
    await settle();
    expect(signal?.aborted).toBe(false);
    shown.value = true;
    await settle();
    expect(wrapper.text()).toBe('done:{"a":1,"b":2}');
    wrapper.unmount();
  });
});

describe('useJsonStream: outside a component, and its options', () => {
  test('in an effect scope the run starts at once and stopping the scope aborts it', async () => {
    const source = pushable();
    const scope = effectScope();
    const live = scope.run(() => useJsonStream(source.stream, { throttle: 0 }));
    expect(live?.status.value).toBe('streaming');
    source.push('[1,2,');
    await tick();
    expect(live?.value.value).toEqual([1, 2]);
    scope.stop();
    expect(live?.status.value).toBe('aborted');
    await tick();
    expect(source.cancel).toHaveBeenCalled();
  });

  test('an unknown option throws ConfigurationError naming the one meant', () => {
    const scope = effectScope();
    expect(() => scope.run(() => useJsonStream(null, { throtle: 0 } as never))).toThrow(ConfigurationError);
    expect(() => scope.run(() => useJsonStream(null, { throtle: 0 } as never))).toThrow(/did you mean throttle/);
    scope.stop();
  });

  test('a getter that returns a Promise (a request started without the signal) throws, saying to take the signal', () => {
    const scope = effectScope();
    const fetchLike = () => Promise.resolve(new Response('{}'));
    expect(() => scope.run(() => useJsonStream(fetchLike as unknown as LiveSourceInput))).toThrow(
      /takes the AbortSignal, \(signal\) => fetch\(url, \{ signal \}\)/,
    );
    scope.stop();
  });
});
