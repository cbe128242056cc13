/**
 * `createLiveJson` / `createLiveJsonl` (packages/web/src/live-source.ts): the controller the React
 * and Vue bindings wrap — its status transitions, abort reaching the body and the function's
 * signal, publishing throttled by frame or time without losing the last state, the input told by
 * Content-Type, the wire and the text giving the same value, diagnostics and errors in the state,
 * and nothing browser-global read when it loads (server rendering).
 */

import { test as fcTest } from '@fast-check/vitest';
import { type Change, ConfigurationError, type Diagnostic } from '@llmjson/core';
import {
  createLiveJson,
  createLiveJsonl,
  createPartialStream,
  type LiveController,
  type LiveJsonState,
  type LiveStatus,
  toEventStream,
} from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { chunkText, numRuns } from '../../../test/support/chunking.js';
import { readAll } from '../../../test/support/web.js';

const encoder = new TextEncoder();
/** The tests type-check without the DOM lib: a frame callback as requestAnimationFrame takes it. */
type FrameCallback = (time: number) => void;

/** A stream the test writes into, and whether (and why) it was cancelled. */
function pushable() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancel = vi.fn();
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel,
  });
  return {
    stream,
    cancel,
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
    fail: (error: unknown) => controller.error(error),
  };
}

/** Lets every promise chain run (streams pipe through microtasks only). */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Resolves with the state once the run is over. */
function settled<State extends { readonly status: LiveStatus }>(live: LiveController<State>): Promise<State> {
  return new Promise((resolve) => {
    const check = () => {
      const state = live.getState();
      if (state.status !== 'idle' && state.status !== 'streaming') {
        stop();
        resolve(state);
      }
    };
    const stop = live.subscribe(check);
    check();
  });
}

const textResponse = (chunks: readonly string[], type = 'text/plain; charset=utf-8') =>
  new Response(ReadableStream.from(chunks.map((c) => encoder.encode(c))), { headers: { 'content-type': type } });

/** The wire bytes of `chunks` of model text, as a server would send them. */
async function wireBytes(chunks: readonly string[], format: 'sse' | 'ndjson' = 'sse'): Promise<Uint8Array[]> {
  const partial = createPartialStream({ emit: 'changes' });
  const events = toEventStream(partial, { format });
  void ReadableStream.from(chunks)
    .pipeTo(partial.writable)
    .catch(() => {});
  return readAll(events);
}

/** The number of change lists a partial stream makes of `chunks`. */
async function changeLists(chunks: readonly string[]): Promise<number> {
  const lists: (readonly Change[])[] = await readAll(
    ReadableStream.from(chunks).pipeThrough(createPartialStream({ emit: 'changes' })),
  );
  return lists.length;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('createLiveJson: status', () => {
  test('idle until start, streaming, then done with the whole value; the state is the same object between publishes', async () => {
    const live = createLiveJson(textResponse(['{"a":', '[1,2]}']), { throttle: 0 });
    const first = live.getState();
    expect(first).toEqual({
      value: undefined,
      complete: false,
      diagnostics: [],
      error: undefined,
      status: 'idle',
      end: undefined,
    });
    expect(live.getState()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const statuses: LiveStatus[] = [];
    live.subscribe(() => statuses.push(live.getState().status));
    live.start();
    expect(live.getState().status).toBe('streaming');
    live.start(); // idempotent: no second run, no publish
    const end = await settled(live);
    expect(end).toMatchObject({ status: 'done', complete: true, value: { a: [1, 2] }, error: undefined });
    expect(statuses[0]).toBe('streaming');
    expect(statuses.filter((s) => s === 'streaming').length).toBe(statuses.length - 1);
    expect(statuses.at(-1)).toBe('done');
    expect(live.getState()).toBe(end);
  });

  test('a cut-off answer is done but not complete; the value so far stays', async () => {
    const end = await settled(start(createLiveJson(textResponse(['{"a":"hel']))));
    expect(end).toMatchObject({ status: 'done', complete: false, value: { a: 'hel' } });
  });
});

function start<L extends { start(): void }>(live: L): L {
  live.start();
  return live;
}

describe('createLiveJson: abort', () => {
  test('a stream source: status aborted at once, the stream is cancelled with the reason, the value so far kept', async () => {
    const source = pushable();
    const live = start(createLiveJson(source.stream, { throttle: 0 }));
    source.push('{"a":"he');
    await tick();
    live.abort('gone');
    expect(live.getState()).toMatchObject({ status: 'aborted', value: { a: 'he' }, error: undefined });
    await tick();
    expect(source.cancel).toHaveBeenCalledWith('gone');
  });

  test('a function source: its AbortSignal fires, and what it resolves to afterwards is cancelled', async () => {
    let signal: AbortSignal | undefined;
    let resolve!: (stream: ReadableStream<Uint8Array>) => void;
    const live = start(
      createLiveJson((s) => {
        signal = s;
        return new Promise<ReadableStream<Uint8Array>>((r) => {
          resolve = r;
        });
      }),
    );
    expect(signal?.aborted).toBe(false);
    live.abort('unmounted');
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe('unmounted');
    const late = pushable();
    resolve(late.stream);
    await tick();
    expect(late.cancel).toHaveBeenCalledWith('unmounted');
    expect(live.getState().status).toBe('aborted');
  });

  test('a wire Response: its body is cancelled', async () => {
    const source = pushable();
    const response = new Response(source.stream, { headers: { 'content-type': 'text/event-stream' } });
    const live = start(createLiveJson(response, { throttle: 0 }));
    source.push('data: {"type":"start","v":1}\n\n');
    await tick();
    live.abort();
    await tick();
    expect(source.cancel).toHaveBeenCalled();
    expect(live.getState().status).toBe('aborted');
  });

  test('before start: the run never starts; after done: nothing changes; twice: one publish', async () => {
    const source = vi.fn(() => textResponse(['{}']));
    const never = createLiveJson(source);
    const heard = vi.fn();
    never.subscribe(heard);
    never.abort();
    never.abort();
    never.start();
    expect(never.getState().status).toBe('aborted');
    expect(heard).toHaveBeenCalledTimes(1);
    await tick();
    expect(source).not.toHaveBeenCalled();

    const done = start(createLiveJson(textResponse(['{"a":1}'])));
    const end = await settled(done);
    done.abort();
    expect(done.getState()).toBe(end);
  });
});

describe('createLiveJson: throttle', () => {
  test("'frame': one publish per animation frame however many change lists; the last state published at the end, the pending frame cancelled", async () => {
    const frames: FrameCallback[] = [];
    const cancelled = vi.fn();
    let ids = 0;
    vi.stubGlobal('requestAnimationFrame', (callback: FrameCallback) => {
      frames.push(callback);
      return ++ids;
    });
    vi.stubGlobal('cancelAnimationFrame', cancelled);
    const source = pushable();
    const live = createLiveJson(source.stream);
    const seen: LiveJsonState<unknown>[] = [];
    live.subscribe(() => seen.push(live.getState()));
    live.start();
    for (const chunk of ['{"a":"x', 'yz","b":[1', ',2,']) {
      source.push(chunk);
      await tick();
    }
    expect(seen.map((s) => s.status)).toEqual(['streaming']); // three change lists, no publish yet
    expect(frames.length).toBe(1);
    frames.shift()?.(0);
    expect(seen.length).toBe(2);
    expect(seen[1]?.value).toEqual({ a: 'xyz', b: [1, 2] });
    source.push('3]}');
    await tick();
    expect(frames.length).toBe(1);
    source.close();
    const end = await settled(live);
    expect(end).toMatchObject({ status: 'done', complete: true, value: { a: 'xyz', b: [1, 2, 3] } });
    expect(cancelled).toHaveBeenCalledWith(2);
    expect(seen.length).toBe(3);
    frames.shift()?.(0); // a frame the browser runs anyway publishes nothing more
    expect(seen.length).toBe(3);
  });

  test("'frame': the change lists of a frame are applied as one, so a long open array is copied once per publish, not once per token", async () => {
    const frames: FrameCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (callback: FrameCallback) => frames.push(callback));
    vi.stubGlobal('cancelAnimationFrame', () => {});
    const source = pushable();
    const live = createLiveJson(source.stream);
    live.start();
    const head = `{"items":[${Array.from({ length: 2000 }, (_, i) => `{"n":${i}}`).join(',')},{"text":"`;
    source.push(head);
    await tick();
    frames.shift()?.(0);
    const before = live.getState().value as { items: unknown[] };
    expect(before.items).toHaveLength(2001);
    // 200 tokens appended to the last item's text, all before the next frame.
    const original = Array.prototype.slice;
    const slice = vi.spyOn(Array.prototype, 'slice');
    let copies = 0;
    slice.mockImplementation(function (this: unknown[], ...args: [number?, number?]) {
      if (this.length >= 2000) copies++;
      return original.apply(this, args) as unknown[];
    });
    try {
      for (let i = 0; i < 200; i++) {
        source.push('word ');
        await tick();
      }
      frames.shift()?.(0);
    } finally {
      slice.mockRestore();
    }
    const after = live.getState().value as { items: { text?: string }[] };
    expect(after.items[2000]?.text).toBe('word '.repeat(200));
    expect(after.items[0]).toBe(before.items[0]); // completed items keep their identity
    expect(copies).toBeLessThanOrEqual(2); // one apply for the frame (200 change lists)
    source.close();
    await settled(live);
  });

  test("'frame' where there is no requestAnimationFrame (SSR, Node): a 16 ms timer", async () => {
    expect('requestAnimationFrame' in globalThis).toBe(false);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const source = pushable();
    const live = start(createLiveJson(source.stream));
    const heard = vi.fn();
    live.subscribe(heard);
    source.push('{"a":1,');
    await tick();
    source.push('"b":2,');
    await tick();
    vi.advanceTimersByTime(15);
    expect(heard).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(heard).toHaveBeenCalledTimes(1);
    expect(live.getState().value).toEqual({ a: 1, b: 2 });
  });

  test('a number: at most one publish per that many milliseconds', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const source = pushable();
    const live = start(createLiveJson(source.stream, { throttle: 50 }));
    const heard = vi.fn();
    live.subscribe(heard);
    source.push('[1,');
    await tick();
    vi.advanceTimersByTime(30);
    source.push('2,');
    await tick();
    vi.advanceTimersByTime(19);
    expect(heard).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(heard).toHaveBeenCalledTimes(1);
    expect(live.getState().value).toEqual([1, 2]);
  });

  test('0: a publish after every change list', async () => {
    const chunks = chunkText('{"title":"a live answer","items":[{"n":1},{"n":2}],"done":true}', 3);
    const live = createLiveJson(textResponse(chunks), { throttle: 0 });
    const values: unknown[] = [];
    live.subscribe(() => values.push(live.getState().value));
    live.start();
    await settled(live);
    // One for `streaming`, one per change list, one for `done`.
    expect(values.length).toBe((await changeLists(chunks)) + 2);
  });

  test('an invalid throttle is refused, saying what is allowed', () => {
    expect(() => createLiveJson(textResponse([]), { throttle: -1 })).toThrow(/throttle must be 'frame' or a number/);
    expect(() => createLiveJson(textResponse([]), { throttle: 'frames' as 'frame' })).toThrow(ConfigurationError);
  });
});

describe('createLiveJson: input', () => {
  const answer = '{"a":"b","c":[1,{"d":null}]}';

  test.each(['sse', 'ndjson'] as const)('auto: a Response of the wire (%s) by its Content-Type', async (format) => {
    const bytes = await wireBytes([answer.slice(0, 7), answer.slice(7)], format);
    const type = format === 'sse' ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson';
    const end = await settled(
      start(createLiveJson(new Response(ReadableStream.from(bytes), { headers: { 'content-type': type } }))),
    );
    expect(end.value).toEqual(JSON.parse(answer));
    expect(end.end).toMatchObject({ type: 'end', complete: true, valid: true });
    expect(end.complete).toBe(true);
  });

  test('auto: a Response of any other type, and a bare stream, are model text', async () => {
    for (const type of ['text/plain', 'application/json', 'TEXT/EVENT-STREAMS']) {
      const end = await settled(start(createLiveJson(textResponse([answer], type))));
      expect(end.value, type).toEqual(JSON.parse(answer));
      expect(end.end).toBeUndefined();
    }
    const bare = await settled(start(createLiveJson(ReadableStream.from([answer]))));
    expect(bare.value).toEqual(JSON.parse(answer));
  });

  test("'events' reads a bare stream as the wire; 'text' reads a wire-typed Response as text", async () => {
    const bytes = await wireBytes([answer]);
    const events = await settled(start(createLiveJson(ReadableStream.from(bytes), { input: 'events' })));
    expect(events.value).toEqual(JSON.parse(answer));
    const text = await settled(start(createLiveJson(textResponse([answer], 'text/event-stream'), { input: 'text' })));
    expect(text.value).toEqual(JSON.parse(answer));
  });

  fcTest.prop([fc.jsonValue({ maxDepth: 3 }), fc.integer({ min: 1, max: 16 })], { numRuns: Math.ceil(numRuns / 4) })(
    'the wire and the model text give the same final value',
    async (value, size) => {
      const chunks = chunkText(JSON.stringify(value), size);
      const fromText = await settled(start(createLiveJson(textResponse(chunks), { throttle: 0 })));
      const bytes = await wireBytes(chunks);
      const wire = new Response(ReadableStream.from(bytes), { headers: { 'content-type': 'text/event-stream' } });
      const fromWire = await settled(start(createLiveJson(wire)));
      expect(fromWire.value).toEqual(fromText.value);
      expect(fromText.value).toEqual(JSON.parse(JSON.stringify(value)));
      expect([fromText.complete, fromWire.complete]).toEqual([true, true]);
    },
  );
});

describe('createLiveJson: diagnostics and errors', () => {
  test('model text that breaks the schema: a diagnostic in the state and to onDiagnostic, once each', async () => {
    const heard: Diagnostic[] = [];
    const schema = z.object({ n: z.number() });
    const live = start(
      createLiveJson(textResponse(['{"n":', '"not a number"}']), { schema, onDiagnostic: (d) => heard.push(d) }),
    );
    const end = await settled(live);
    expect(end.status).toBe('done');
    expect(end.diagnostics.length).toBeGreaterThan(0);
    expect(end.diagnostics.every((d) => d.reason === 'violation' || d.reason === 'schema')).toBe(true);
    expect(heard).toEqual(end.diagnostics);
  });

  test('a JSON Schema, with compileJsonSchema', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;
    const end = await settled(
      start(createLiveJson(textResponse(['{"n":"x"}']), { schema, compileJsonSchema: compileSchema })),
    );
    expect(end.diagnostics.map((d) => d.reason)).toContain('schema');
  });

  test.each([
    [
      'throws',
      () => {
        throw new Error('no network');
      },
    ],
    ['rejects', () => Promise.reject(new Error('no network'))],
  ])('a source function that %s: status error with that error', async (_, source) => {
    const end = await settled(start(createLiveJson(source)));
    expect(end.status).toBe('error');
    expect(end.error).toBeInstanceOf(Error);
    expect((end.error as Error).message).toBe('no network');
  });

  test('an HTTP error: status error that says the status, and the body is cancelled', async () => {
    const source = pushable();
    const end = await settled(start(createLiveJson(new Response(source.stream, { status: 503, statusText: 'Busy' }))));
    expect(end.status).toBe('error');
    expect(String(end.error)).toContain('HTTP 503 Busy');
    expect(source.cancel).toHaveBeenCalled();
  });

  test('a body that fails while it streams: status error with its error, the value so far kept', async () => {
    const source = pushable();
    const live = start(createLiveJson(source.stream));
    source.push('{"a":1,');
    await tick();
    const failure = new Error('connection reset');
    source.fail(failure);
    const end = await settled(live);
    expect(end).toMatchObject({ status: 'error', error: failure, value: { a: 1 } });
  });

  test('a function that returns what is not a source: status error that says what it must return', async () => {
    const end = await settled(start(createLiveJson(() => 'text' as unknown as Response)));
    expect(String(end.error)).toMatch(/must return .* a fetch Response or a ReadableStream/);
  });

  test('options and sources are checked up front', () => {
    expect(() => createLiveJson(textResponse([]), { trottle: 0 } as never)).toThrow(/throttle/);
    expect(() => createLiveJson(textResponse([]), { input: 'sse' as 'auto' })).toThrow(ConfigurationError);
    expect(() => createLiveJson('https://example.com' as unknown as Response)).toThrow(/reads a fetch Response/);
    expect(() => createLiveJsonl(textResponse([]), { input: 'text' } as never)).toThrow(ConfigurationError);
  });
});

describe('createLiveJsonl', () => {
  test('items appended in order, a new array per publish sharing the items before it; a line that fails the schema is skipped and reported', async () => {
    const schema = z.object({ id: z.number() });
    const source = pushable();
    const heard: Diagnostic[] = [];
    const live = start(createLiveJsonl(source.stream, { schema, throttle: 0, onDiagnostic: (d) => heard.push(d) }));
    source.push('{"id":1}\n{"id":');
    await tick();
    const first = live.getState();
    expect(first.items).toEqual([{ id: 1 }]);
    source.push('2}\n{"id":"x"}\n{"id":3}\n');
    source.close();
    const end = await settled(live);
    expect(end).toMatchObject({ status: 'done', items: [{ id: 1 }, { id: 2 }, { id: 3 }], error: undefined });
    expect(end.items).not.toBe(first.items);
    expect(end.items[0]).toBe(first.items[0]);
    expect(Object.isFrozen(end.items)).toBe(true);
    expect(end.diagnostics.map((d) => d.reason)).toEqual(['schema']);
    expect(heard).toEqual(end.diagnostics);
  });

  test('abort cancels the body; an error is the state', async () => {
    const source = pushable();
    const live = start(createLiveJsonl(source.stream));
    live.abort('stop');
    await tick();
    expect(source.cancel).toHaveBeenCalledWith('stop');
    expect(live.getState().status).toBe('aborted');
    const failed = await settled(start(createLiveJsonl(() => Promise.reject(new Error('offline')))));
    expect(failed).toMatchObject({ status: 'error', items: [] });
  });
});

describe('no browser global when the module loads', () => {
  test('importing @llmjson/web and creating a controller read no window, document or requestAnimationFrame', async () => {
    expect('window' in globalThis).toBe(false);
    const names = ['window', 'document', 'requestAnimationFrame', 'cancelAnimationFrame'] as const;
    const read: string[] = [];
    for (const name of names) {
      Object.defineProperty(globalThis, name, {
        configurable: true,
        get() {
          read.push(name);
          return undefined;
        },
      });
    }
    try {
      vi.resetModules();
      const web = await import('@llmjson/web');
      const live = web.createLiveJson(() => textResponse(['{}']));
      live.subscribe(() => {});
      live.getState();
      web.createLiveJsonl(textResponse([]));
      expect(read).toEqual([]);
      // Scheduling a publish is when the frame clock is looked up.
      live.start();
      await settled(live);
      expect(read).toContain('requestAnimationFrame');
    } finally {
      for (const name of names) delete (globalThis as Record<string, unknown>)[name];
    }
  });
});
