/**
 * The lifecycle both composables share: one controller (`createLiveJson` / `createLiveJsonl`
 * from @llmjson/web) per source and key, started on mount, aborted when it is replaced or its
 * scope is disposed, its published states handed to the composable's refs.
 *
 * Invariants:
 * 1. At most one controller is live: attaching a new one first unsubscribes from the previous
 *    and aborts it (its request's AbortSignal fires, its body is cancelled), so a late state of
 *    an old run never reaches the refs.
 * 2. Nothing starts before the component is mounted, so server rendering (`renderToString`, where
 *    `onMounted` never runs) starts no request and renders the idle state; the hydrating client
 *    renders that same idle state first, then starts. Outside a component (an `effectScope`, a
 *    store) there is no mount: the run starts at once.
 * 3. A restart happens when the source read through its ref or getter changes (`===`), or
 *    `key` does; a ref or getter read again to the same source restarts nothing.
 * 4. A source function (`(signal) => fetch(url, { signal })`) is the source, not a getter: a
 *    function with no declared parameter is a getter (Vue's `MaybeRefOrGetter`), one with a
 *    parameter is handed to the controller, which calls it once per start with its AbortSignal.
 *    Vue's `toValue` would call it with no signal — hence `readSource`.
 */

import { ConfigurationError, ConfigurationErrorCode } from '@llmjson/core';
import type { LiveController, LiveSource, LiveStatus } from '@llmjson/web';
import {
  getCurrentInstance,
  getCurrentScope,
  isRef,
  type MaybeRefOrGetter,
  onMounted,
  onScopeDispose,
  toValue,
  watch,
} from 'vue';

/** What a composable takes as its source: the source itself, a ref to it, or a getter of it; `null`/`undefined` is idle. */
export type LiveSourceInput = MaybeRefOrGetter<LiveSource | null | undefined>;

/** Reads the source now: a ref's value, a getter's result, or the source itself (see invariant 4). */
function readSource(composable: string, input: LiveSourceInput): LiveSource | null | undefined {
  if (isRef(input)) return input.value;
  if (typeof input === 'function' && input.length === 0) {
    const source = (input as () => LiveSource | null | undefined)();
    if (typeof (source as { then?: unknown } | null | undefined)?.then === 'function') {
      throw new ConfigurationError(
        ConfigurationErrorCode.optionInvalid,
        `${composable}: the source is a function without parameters, so it is read as a getter, and it returned a Promise: a function that starts the request takes the AbortSignal, (signal) => fetch(url, { signal }), so that it runs on mount and is aborted on unmount`,
      );
    }
    return source;
  }
  return input as LiveSource | null | undefined;
}

/**
 * Binds controllers made by `create` to the current component or effect scope; `publish`
 * receives every state to show (`idle` when there is no source). Call it in `setup` (or in an
 * `effectScope`); returns the `abort` the composable hands out.
 */
export function bindLive<State extends { readonly status: LiveStatus }>(
  composable: string,
  input: LiveSourceInput,
  key: MaybeRefOrGetter<unknown> | undefined,
  create: (source: LiveSource) => LiveController<State>,
  idle: State,
  publish: (state: State) => void,
): (reason?: unknown) => void {
  let current: LiveController<State> | undefined;
  let unsubscribe: (() => void) | undefined;
  let started = getCurrentInstance() === null;

  const detach = () => {
    unsubscribe?.();
    unsubscribe = undefined;
    current?.abort();
    current = undefined;
  };
  const attach = (source: LiveSource | null | undefined) => {
    detach();
    if (source === null || source === undefined) {
      publish(idle);
      return;
    }
    const controller = create(source);
    current = controller;
    unsubscribe = controller.subscribe(() => publish(controller.getState()));
    publish(controller.getState());
    if (started) controller.start();
  };

  // The first source is attached outside the watcher, so a broken option or schema throws from
  // setup (a watcher would hand it to the app's error handler); under SSR the watcher is inert.
  attach(readSource(composable, input));
  watch([() => readSource(composable, input), () => toValue(key)], ([source]) => attach(source));
  if (!started) {
    onMounted(() => {
      started = true;
      current?.start();
    });
  }
  if (getCurrentScope() !== undefined) {
    // Aborted before unsubscribing: the refs end at 'aborted' (a store's scope may outlive its readers).
    onScopeDispose(() => {
      current?.abort();
      detach();
    });
  }
  return (reason) => current?.abort(reason);
}
