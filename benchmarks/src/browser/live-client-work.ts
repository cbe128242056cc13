/**
 * The client's work per model token, three ways, written once so that the same functions run in
 * Node (where the tests check that each delivers the document) and in Chromium (where the
 * `live-client` scenario times them, bundled into the page by esbuild):
 *
 * - `applyChangeLists`: what a browser does with llmjson's wire — each token's change list,
 *   decoded beforehand, applied to one `createPartialStore()` and the snapshot read;
 * - `reparseEachToken`: the AI SDK's way — the text so far grows by the token and is parsed
 *   again whole with `parsePartialJson` (from `ai`, awaited, as its `useObject` and
 *   `streamObject` do);
 * - `applyChangeListsPerFrame`: the same lists, those of a frame's tokens applied as one;
 * - `decodeInClient`: no server help — the raw model text decoded in the page by
 *   `createPartialStream({ emit: 'changes' })` from `@llmjson/web`, each list applied to a store;
 * - `readLiveJson`: what users run by default — the wire's bytes as a `text/event-stream`
 *   Response read by `createLiveJson` (its default 'frame' throttle), offered by `pacedBody`
 *   at the pace the server wrote them; `drainBody` reads the same delivery and does nothing
 *   else (the pace's own cost, which the scenario subtracts).
 *
 * Invariant: each returns the last value it read, which must equal `JSON.parse` of the document;
 * every intermediate value is stored in a module variable so no read can be optimised away.
 * No DOM and no Node API: this module runs in both.
 */

import type { Change } from '@llmjson/core';
import { createLiveJson, createPartialStore, createPartialStream } from '@llmjson/web';
import { parsePartialJson } from 'ai';

/** Tokens whose change lists `applyChangeListsPerFrame` applies at once in the benchmark: a 16 ms frame at 2 000 tokens/s. */
export const TOKENS_PER_FRAME = 32;

let sink: unknown;

/** The last value any of the three read (keeps the reads observable). */
export function lastRead(): unknown {
  return sink;
}

/** One store fed the change lists in order, the snapshot read after each. */
export function applyChangeLists(lists: readonly (readonly Change[])[]): unknown {
  const store = createPartialStore();
  for (const list of lists) {
    store.apply(list);
    sink = store.getSnapshot();
  }
  return store.getSnapshot();
}

/**
 * The same lists applied `perApply` tokens at a time, concatenated into one list (what a client
 * that applies once per animation frame does: 32 tokens is a 16 ms frame at 2 000 tokens/s):
 * one copy of each container on the written paths per apply instead of per token.
 */
export function applyChangeListsPerFrame(lists: readonly (readonly Change[])[], perApply: number): unknown {
  const store = createPartialStore();
  for (let i = 0; i < lists.length; i += perApply) {
    store.apply(lists.slice(i, i + perApply).flat());
    sink = store.getSnapshot();
  }
  return store.getSnapshot();
}

/** The text so far re-parsed after every token, as the AI SDK does; the last value it parsed. */
export async function reparseEachToken(tokens: readonly string[]): Promise<unknown> {
  let accumulated = '';
  let value: unknown;
  for (const token of tokens) {
    accumulated += token;
    const parsed = await parsePartialJson(accumulated);
    if (parsed.value !== undefined) value = parsed.value;
    sink = value;
  }
  return value;
}

/** The raw tokens through `createPartialStream({ emit: 'changes' })`, each list applied to a store. */
export async function decodeInClient(tokens: readonly string[]): Promise<unknown> {
  const source = new ReadableStream<string>({
    start(controller) {
      for (const token of tokens) controller.enqueue(token);
      controller.close();
    },
  });
  const store = createPartialStore();
  const reader = source.pipeThrough(createPartialStream({ emit: 'changes' })).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    store.apply(value as readonly Change[]);
    sink = store.getSnapshot();
  }
  return store.getSnapshot();
}

/** How often `pacedBody` offers what is due: a 16 ms frame (32 tokens at 2 000 tokens/s). */
export const DELIVERY_TICK_MS = 16;

/**
 * The wire's writes grouped by delivery tick: chunk `k` is the bytes of every write the server
 * made in `[k × tick, (k + 1) × tick)` ms, as one chunk (a network read takes what arrived
 * together); an empty tick is `undefined`. Grouped before the clock starts, so delivering costs
 * an enqueue per tick.
 */
export function chunksPerTick(
  writes: readonly { readonly at: number; readonly text: string }[],
): (Uint8Array | undefined)[] {
  const encoder = new TextEncoder();
  const ticks: string[][] = [];
  for (const { at, text } of writes) {
    const k = Math.floor(at / DELIVERY_TICK_MS);
    while (ticks.length <= k) ticks.push([]);
    (ticks[k] as string[]).push(text);
  }
  return ticks.map((texts) => (texts.length === 0 ? undefined : encoder.encode(texts.join(''))));
}

/**
 * A byte stream offering chunk `k` at `k × tick` ms after it is first read (`paced`), on a
 * timer; or every chunk at once. Ticks count from the start, so a late timer catches up
 * (what a network does when the page was busy).
 */
export function pacedBody(chunks: readonly (Uint8Array | undefined)[], paced: boolean): ReadableStream<Uint8Array> {
  let next = 0;
  let started = 0;
  return new ReadableStream<Uint8Array>({
    start() {
      started = performance.now();
    },
    async pull(controller) {
      for (;;) {
        const due = paced ? Math.floor((performance.now() - started) / DELIVERY_TICK_MS) + 1 : chunks.length;
        let offered = false;
        for (; next < Math.min(due, chunks.length); next++) {
          const chunk = chunks[next];
          if (chunk !== undefined) {
            controller.enqueue(chunk);
            offered = true;
          }
        }
        if (next >= chunks.length) {
          controller.close();
          return;
        }
        if (offered) return;
        await new Promise((resolve) => setTimeout(resolve, started + next * DELIVERY_TICK_MS - performance.now()));
      }
    },
  });
}

/** `createLiveJson` with its defaults on the wire `body` (a text/event-stream Response), to its end; its value and publishes. */
export function readLiveJson(body: ReadableStream<Uint8Array>): Promise<{ value: unknown; publishes: number }> {
  const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  const live = createLiveJson(response);
  let publishes = 0;
  return new Promise((resolve, reject) => {
    live.subscribe(() => {
      publishes++;
      const state = live.getState();
      // What a UI reads at each publish.
      sink = state.value;
      if (state.status === 'done') resolve({ value: state.value, publishes });
      else if (state.status === 'error') reject(state.error);
    });
    live.start();
  });
}

/** The same delivery read to its end and dropped: the pace's own cost. Returns the bytes read. */
export async function drainBody(body: ReadableStream<Uint8Array>): Promise<number> {
  const reader = body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}
