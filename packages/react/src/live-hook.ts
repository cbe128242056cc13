/**
 * `useLive`: what `useJsonStream` and `useJsonlStream` share — one @llmjson/web live controller per
 * run, read with `useSyncExternalStore`, started on mount and aborted on unmount.
 *
 * Invariants:
 * 1. A run is identified by the source and `options.key`; for a function source, by `key` alone.
 *    Inline arrow functions are new at every render, so their identity cannot mean "a new
 *    request": only a new Response/stream, a change between none and a source, or a new `key`
 *    makes a new controller (and aborts the previous run). Other options are read when a run starts.
 * 2. Rendering starts nothing (the server renders the idle state and fetches nothing); the commit's
 *    effect starts the run, and only that effect does, so a render React throws away costs
 *    nothing but an unstarted controller.
 * 3. The unmount abort waits one microtask and is called off when the same run is mounted again in
 *    the meantime: StrictMode's simulated unmount and re-mount keep the one request (no second
 *    call of the function, no cancelled Response body). A run that a real unmount aborted while
 *    it streamed is restarted if the component comes back (an `<Activity>` shown again).
 * 4. The state a render reads is the controller's published one, so commits follow the
 *    controller's throttle (at most one per animation frame by default), and an item that
 *    completed is the same object in every later render (`memo` item components skip it).
 */

import type { LiveController, LiveStatus } from '@llmjson/web';
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';

/** A controller as the hooks make it: the web factories, given the source and the options without `key`. */
export type CreateLive<State, Options> = (source: NonNullable<unknown>, options: Options) => LiveController<State>;

/** One run of a hook: its controller and what it was made for. */
interface Run<State> {
  readonly live: LiveController<State>;
  /** The source, or FUNCTION for any function (invariant 1), or undefined for none. */
  readonly source: unknown;
  readonly key: unknown;
  readonly generation: number;
  /** The unmount abort waiting for its microtask, called off by a re-mount. */
  pendingAbort: (() => void) | undefined;
  /** A real unmount aborted it while it streamed (invariant 3). */
  abortedByUnmount: boolean;
}

const FUNCTION = Symbol('a function source');

const NO_SUBSCRIPTION = () => () => {};

/** The idle controller of a hook given no source: never starts, never changes. */
function idle<State>(state: State): LiveController<State> {
  return { getState: () => state, subscribe: NO_SUBSCRIPTION, start() {}, abort() {} };
}

export interface LiveHookOptions {
  readonly key?: unknown;
  readonly onDiagnostic?: (diagnostic: never) => void;
}

/** The shared hook: the state of the current run and its `abort`. */
export function useLive<State extends { readonly status: LiveStatus }, Options extends LiveHookOptions>(
  create: CreateLive<State, Omit<Options, 'key'>>,
  idleState: State,
  source: unknown,
  options: Options | undefined,
): State & { readonly abort: (reason?: unknown) => void } {
  const key = options?.key;
  const identity =
    source === null || source === undefined ? undefined : typeof source === 'function' ? FUNCTION : source;
  // Keeps `onDiagnostic` current without restarting: the run calls the latest one.
  const [latest] = useState<{ options: Options | undefined }>(() => ({ options }));
  useEffect(() => {
    latest.options = options;
  });
  const [generation, setGeneration] = useState(0);
  const make = (): Run<State> => {
    let live: LiveController<State>;
    if (identity === undefined) live = idle(idleState);
    else {
      const { key: _key, ...rest } = options ?? ({} as Options);
      const controllerOptions = { ...rest } as Record<string, unknown>;
      if (options?.onDiagnostic !== undefined) {
        controllerOptions.onDiagnostic = (diagnostic: never) => latest.options?.onDiagnostic?.(diagnostic);
      }
      live = create(source as NonNullable<unknown>, controllerOptions as Omit<Options, 'key'>);
    }
    return { live, source: identity, key, generation, pendingAbort: undefined, abortedByUnmount: false };
  };
  const [stored, setStored] = useState(make);
  let run = stored;
  if (!(Object.is(stored.source, identity) && Object.is(stored.key, key) && stored.generation === generation)) {
    // A new run, as React's derived state: this render is redone at once with it (nothing started yet).
    run = make();
    setStored(run);
  }
  const { live } = run;

  useEffect(() => {
    if (run.abortedByUnmount) {
      // Shown again after a real unmount cut the run: a fresh one (invariant 3).
      setGeneration((n) => n + 1);
      return;
    }
    run.pendingAbort?.();
    run.pendingAbort = undefined;
    run.live.start();
    return () => {
      let calledOff = false;
      run.pendingAbort = () => {
        calledOff = true;
      };
      queueMicrotask(() => {
        if (calledOff) return;
        run.pendingAbort = undefined;
        run.abortedByUnmount = run.live.getState().status === 'streaming';
        run.live.abort();
      });
    };
  }, [run]);

  const state = useSyncExternalStore(live.subscribe, live.getState, live.getState);
  const abort = useCallback((reason?: unknown) => live.abort(reason), [live]);
  return useMemo(() => ({ ...state, abort }), [state, abort]);
}
