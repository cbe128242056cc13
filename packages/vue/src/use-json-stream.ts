/**
 * `useJsonStream`: one streaming JSON answer as Vue refs — the value so far, typed by the
 * schema (`DeepPartial` while it streams), with its status, diagnostics and the server's verdict.
 *
 * Invariants:
 * 1. Each field is its own `shallowRef`, assigned from the controller's published state: a ref
 *    triggers only when its field changes (`Object.is`), so a component that reads `status`
 *    alone does not re-render per token, and at most one update reaches the refs per animation
 *    frame (the controller throttles; `throttle` sets it).
 * 2. The value is the controller's snapshot itself, never copied or made reactive: a subtree
 *    that completed is the same object in every later value, so a child component given it as
 *    a prop is not re-rendered.
 * 3. The refs are read-only views (`shallowReadonly`); `abort` is the one way to act on the run.
 * Lifecycle (start on mount, restart, abort on dispose, SSR): live-binding.ts.
 */

import type { DeepPartial, Diagnostic, SchemaInput, SchemaValue } from '@llmjson/core';
import { checkOptionNames, optionNames } from '@llmjson/core/internal';
import {
  createLiveJson,
  type LiveJson,
  type LiveJsonOptions,
  type LiveJsonState,
  type LiveStatus,
  type WireEnd,
} from '@llmjson/web';
import { type MaybeRefOrGetter, type ShallowRef, shallowReadonly, shallowRef } from 'vue';
import { bindLive, type LiveSourceInput } from './live-binding.js';

export interface UseJsonStreamOptions<S extends SchemaInput = SchemaInput> extends LiveJsonOptions<S> {
  /**
   * A change restarts the run (the previous one is aborted), even with the same source: the id
   * of what is asked (`key: () => props.id`) or a counter to retry. A ref, a getter or a value;
   * compared with `Object.is`. Default: none. The other options are read when a run starts.
   */
  readonly key?: MaybeRefOrGetter<unknown>;
}

/** The option names `useJsonStream` takes: `createLiveJson`'s and `key`. */
export const USE_JSON_STREAM_OPTIONS = /* @__PURE__ */ optionNames<UseJsonStreamOptions>()([
  'schema',
  'compileJsonSchema',
  'input',
  'throttle',
  'onDiagnostic',
  'key',
]);

/** What `useJsonStream` returns: read-only refs of the live state, and `abort`. */
export interface UseJsonStream<T> {
  /** The value so far (`undefined` before the first change); the whole document once `complete`. */
  readonly value: Readonly<ShallowRef<DeepPartial<T> | undefined>>;
  /** The document is whole. */
  readonly complete: Readonly<ShallowRef<boolean>>;
  /** Every diagnostic so far (the decoder's, the schema's, the server's relayed ones). */
  readonly diagnostics: Readonly<ShallowRef<readonly Diagnostic[]>>;
  /** What the source threw or rejected with; `undefined` unless `status` is `'error'`. */
  readonly error: Readonly<ShallowRef<unknown>>;
  /** `'idle'` (no source, not mounted yet, or on the server), `'streaming'`, `'done'`, `'error'`, `'aborted'`. */
  readonly status: Readonly<ShallowRef<LiveStatus>>;
  /** The server's verdict when the source was the llmjson wire and sent its end event. */
  readonly end: Readonly<ShallowRef<WireEnd | undefined>>;
  /** Stops the run (its AbortSignal fires, the body is cancelled): status `'aborted'`; no-op once settled. */
  abort(reason?: unknown): void;
}

const IDLE: LiveJsonState<unknown> = Object.freeze({
  value: undefined,
  complete: false,
  diagnostics: Object.freeze([]),
  error: undefined,
  status: 'idle',
  end: undefined,
});

/**
 * Streams one JSON answer into refs. `source` is a fetch Response, a ReadableStream, a function
 * `(signal) => Response | ReadableStream | Promise<…>` that starts the request, or a ref or a
 * getter (a function without parameters) of one of these; `null`/`undefined` is idle. The run
 * starts on mount, restarts when the source read through a ref or getter changes or `key`
 * changes, and is aborted when the component unmounts (its scope is disposed). On the server
 * nothing starts: the state is `'idle'`. Throws ConfigurationError for an unknown option or a
 * broken schema.
 */
export function useJsonStream<S extends SchemaInput = SchemaInput>(
  source: LiveSourceInput,
  options: UseJsonStreamOptions<S> = {},
): UseJsonStream<SchemaValue<S>> {
  checkOptionNames('useJsonStream', options, USE_JSON_STREAM_OPTIONS);
  const { key, ...live } = options;
  // The state as `unknown` inside (the generic DeepPartial is too deep for TypeScript to relate
  // through Vue's ref types); the refs are typed by the schema on return.
  type State = LiveJsonState<unknown>;
  const value = shallowRef<unknown>();
  const complete = shallowRef(false);
  const diagnostics = shallowRef<State['diagnostics']>(IDLE.diagnostics);
  const error = shallowRef<unknown>();
  const status = shallowRef<LiveStatus>('idle');
  const end = shallowRef<WireEnd | undefined>();
  const abort = bindLive<State>(
    'useJsonStream',
    source,
    key,
    (from) => createLiveJson(from, live) as LiveJson<unknown>,
    IDLE,
    (state) => {
      value.value = state.value;
      complete.value = state.complete;
      diagnostics.value = state.diagnostics;
      error.value = state.error;
      status.value = state.status;
      end.value = state.end;
    },
  );
  return {
    value: shallowReadonly(value) as UseJsonStream<SchemaValue<S>>['value'],
    complete: shallowReadonly(complete),
    diagnostics: shallowReadonly(diagnostics),
    error: shallowReadonly(error),
    status: shallowReadonly(status),
    end: shallowReadonly(end),
    abort,
  };
}
