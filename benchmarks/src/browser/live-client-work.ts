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
 *   `createPartialStream({ emit: 'changes' })` from `@llmjson/web`, each list applied to a store.
 *
 * Invariant: each returns the last value it read, which must equal `JSON.parse` of the document;
 * every intermediate value is stored in a module variable so no read can be optimised away.
 * No DOM and no Node API: this module runs in both.
 */

import type { Change } from '@llmjson/core';
import { createPartialStore, createPartialStream } from '@llmjson/web';
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
