/**
 * `useJsonlStream`: a streaming JSONL answer (model text, one JSON value per line) as Vue refs —
 * each validated item the moment its line completes, every skipped line as a diagnostic.
 *
 * Invariants:
 * 1. `items` is the controller's array: a new array per publish that holds the previous items
 *    themselves, so a list keyed by index (or by an id) re-renders only its new rows — a row
 *    component given an item as a prop is not re-rendered.
 * 2. Each field is its own `shallowRef` (it triggers only when it changes), updated at most once
 *    per animation frame; the refs are read-only views.
 * Lifecycle (start on mount, restart, abort on dispose, SSR): live-binding.ts.
 */

import type { Diagnostic, SchemaInput, SchemaValue } from '@llmjson/core';
import { checkOptionNames, optionNames } from '@llmjson/core/internal';
import { createLiveJsonl, type LiveJsonlOptions, type LiveJsonlState, type LiveStatus } from '@llmjson/web';
import { type MaybeRefOrGetter, type ShallowRef, shallowReadonly, shallowRef } from 'vue';
import { bindLive, type LiveSourceInput } from './live-binding.js';

export interface UseJsonlStreamOptions<S extends SchemaInput = SchemaInput> extends LiveJsonlOptions<S> {
  /** As `UseJsonStreamOptions.key`: a change restarts the run. Default: none. */
  readonly key?: MaybeRefOrGetter<unknown>;
}

/** The option names `useJsonlStream` takes: `createLiveJsonl`'s and `key`. */
export const USE_JSONL_STREAM_OPTIONS = /* @__PURE__ */ optionNames<UseJsonlStreamOptions>()([
  'schema',
  'compileJsonSchema',
  'throttle',
  'onDiagnostic',
  'key',
]);

/** What `useJsonlStream` returns: read-only refs of the live state, and `abort`. */
export interface UseJsonlStream<T> {
  /** The items so far, in order (validated against the schema when one is given). */
  readonly items: Readonly<ShallowRef<readonly T[]>>;
  /** Every skipped or reported line so far, with its line number, offset, excerpt and reason. */
  readonly diagnostics: Readonly<ShallowRef<readonly Diagnostic[]>>;
  /** What the source threw or rejected with; `undefined` unless `status` is `'error'`. */
  readonly error: Readonly<ShallowRef<unknown>>;
  /** `'idle'` (no source, not mounted yet, or on the server), `'streaming'`, `'done'`, `'error'`, `'aborted'`. */
  readonly status: Readonly<ShallowRef<LiveStatus>>;
  /** Stops the run (its AbortSignal fires, the body is cancelled): status `'aborted'`; no-op once settled. */
  abort(reason?: unknown): void;
}

const IDLE: LiveJsonlState<never> = Object.freeze({
  items: Object.freeze([]),
  diagnostics: Object.freeze([]),
  error: undefined,
  status: 'idle',
});

/**
 * Streams one JSONL answer into refs; `source`, lifecycle and restarts as `useJsonStream`.
 * Throws ConfigurationError for an unknown option or a broken schema.
 */
export function useJsonlStream<S extends SchemaInput = SchemaInput>(
  source: LiveSourceInput,
  options: UseJsonlStreamOptions<S> = {},
): UseJsonlStream<SchemaValue<S>> {
  checkOptionNames('useJsonlStream', options, USE_JSONL_STREAM_OPTIONS);
  const { key, ...live } = options;
  type State = LiveJsonlState<SchemaValue<S>>;
  const items = shallowRef<State['items']>(IDLE.items);
  const diagnostics = shallowRef<State['diagnostics']>(IDLE.diagnostics);
  const error = shallowRef<unknown>();
  const status = shallowRef<LiveStatus>('idle');
  const abort = bindLive<State>(
    'useJsonlStream',
    source,
    key,
    (from) => createLiveJsonl(from, live),
    IDLE as State,
    (state) => {
      items.value = state.items;
      diagnostics.value = state.diagnostics;
      error.value = state.error;
      status.value = state.status;
    },
  );
  return {
    items: shallowReadonly(items),
    diagnostics: shallowReadonly(diagnostics),
    error: shallowReadonly(error),
    status: shallowReadonly(status),
    abort,
  };
}
