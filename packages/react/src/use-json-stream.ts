/**
 * `useJsonStream` / `useJsonlStream`: a live model answer as React state. The request starts when
 * the component mounts and is aborted when it unmounts; renders follow @llmjson/web's live
 * controller (`createLiveJson` / `createLiveJsonl`), at most one per animation frame by default,
 * and a part of the value that completed keeps its identity, so `memo` children skip it.
 * What restarts a run, and why StrictMode makes one request: live-hook.ts.
 */

import type { Diagnostic, SchemaInput, SchemaValue } from '@llmjson/core';
import {
  createLiveJson,
  createLiveJsonl,
  type LiveJsonlOptions,
  type LiveJsonlState,
  type LiveJsonOptions,
  type LiveJsonState,
  type LiveSource,
} from '@llmjson/web';
import { type CreateLive, useLive } from './live-hook.js';

/** What the hooks add to the controller's options. */
export interface LiveHookKey {
  /**
   * Restarts the run when it changes (compared with `Object.is`): the previous request is
   * aborted and the source is read again. A function source is called once per run, and a new
   * function alone does not restart (an inline arrow function is new at every render); a new
   * Response or stream does. Default: undefined.
   */
  readonly key?: unknown;
}

export interface UseJsonStreamOptions<S extends SchemaInput = SchemaInput> extends LiveJsonOptions<S>, LiveHookKey {}
export interface UseJsonlStreamOptions<S extends SchemaInput = SchemaInput> extends LiveJsonlOptions<S>, LiveHookKey {}

/** What `useJsonStream` returns: the live state and the function that stops the run. */
export interface UseJsonStreamResult<T> extends LiveJsonState<T> {
  /** Stops the run (status `'aborted'`; the request's AbortSignal fires, the body is cancelled). */
  readonly abort: (reason?: unknown) => void;
}

/** What `useJsonlStream` returns. */
export interface UseJsonlStreamResult<T> extends LiveJsonlState<T> {
  readonly abort: (reason?: unknown) => void;
}

const IDLE_JSON: LiveJsonState<unknown> = Object.freeze({
  value: undefined,
  complete: false,
  diagnostics: Object.freeze([]) as readonly Diagnostic[],
  error: undefined,
  status: 'idle',
  end: undefined,
});

const IDLE_JSONL: LiveJsonlState<unknown> = Object.freeze({
  items: Object.freeze([]) as readonly unknown[],
  diagnostics: Object.freeze([]) as readonly Diagnostic[],
  error: undefined,
  status: 'idle',
});

/**
 * One JSON answer, read as it streams: `value` is the document so far (`DeepPartial` of a Standard
 * Schema's type; `unknown` without one), `complete` once it is whole. `source` is a fetch
 * Response, a ReadableStream, or a function `(signal) => fetch(url, { signal })` called once per
 * run; `null` or `undefined` is idle (nothing starts). Throws ConfigurationError for an invalid
 * option or schema (an error boundary shows it).
 */
export function useJsonStream<S extends SchemaInput = SchemaInput>(
  source: LiveSource | null | undefined,
  options?: UseJsonStreamOptions<S>,
): UseJsonStreamResult<SchemaValue<S>> {
  return useLive(
    createLiveJson as CreateLive<LiveJsonState<SchemaValue<S>>, LiveJsonOptions<S>>,
    IDLE_JSON as unknown as LiveJsonState<SchemaValue<S>>,
    source,
    options,
  );
}

/**
 * One JSONL answer (one JSON value per line), read as it streams: `items` are the values so far,
 * each validated against the schema when there is one (a line that fails is skipped and reported
 * in `diagnostics`). Same sources and lifecycle as `useJsonStream`.
 */
export function useJsonlStream<S extends SchemaInput = SchemaInput>(
  source: LiveSource | null | undefined,
  options?: UseJsonlStreamOptions<S>,
): UseJsonlStreamResult<SchemaValue<S>> {
  return useLive(
    createLiveJsonl as CreateLive<LiveJsonlState<SchemaValue<S>>, LiveJsonlOptions<S>>,
    IDLE_JSONL as unknown as LiveJsonlState<SchemaValue<S>>,
    source,
    options,
  );
}
