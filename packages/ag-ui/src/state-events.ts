/**
 * `toAgUiState`: a partial stream's change lists (`createPartialStream({ emit: 'changes' })`) as
 * AG-UI state events: one `STATE_SNAPSHOT` with the value once the first change list made one,
 * then `STATE_DELTA` events whose `delta` is RFC 6902 (`toJsonPatch` of the changes since the
 * last event, against the state the client holds). Diagnostics travel as `CUSTOM` events named
 * `llmjson.diagnostic`, before the state event that follows them; a source that fails makes the
 * events fail with its error after the state and diagnostics so far (`agUiRun` turns it into
 * `RUN_ERROR`).
 *
 * The cost, and the throttle: JSON Patch has no string append, so a string that grows token by
 * token is sent whole at every delta (a `replace`): bytes grow with the square of a string's
 * length over the number of deltas. So deltas are coalesced: at most one `STATE_DELTA` per
 * `throttle` ms (default 50, as `toEventStream`), holding every change since the last one, in
 * which consecutive appends to one string are one `replace` and a string added and appended to
 * within it is one `add`; `complete` changes have no JSON Patch form and are left out. A fast
 * model then costs about twenty deltas a second, whatever its token rate.
 */

import type { CustomEvent, StateDeltaEvent, StateSnapshotEvent } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import { applyChanges, type Change } from '@llmjson/core';
import { checkOptionNames, optionNames } from '@llmjson/core/internal';
import { type ChangeItem, toJsonPatch } from '@llmjson/web';
import { type AgUiEvents, agUiEvents, checkThrottle, diagnosticEvent, type Source, WAITING } from './source.js';

export type StateEvent = StateSnapshotEvent | StateDeltaEvent | CustomEvent;

export interface ToAgUiStateOptions {
  /**
   * Least time between two STATE_DELTA events, in milliseconds: the changes that arrive within it
   * go out together. Default 50; 0: one delta per change list.
   */
  readonly throttle?: number;
}

/** The options `toAgUiState` takes. */
export const TO_AG_UI_STATE_OPTIONS = /* @__PURE__ */ optionNames<ToAgUiStateOptions>()(['throttle']);

/** Default `throttle` of `toAgUiState`, in milliseconds (`toEventStream`'s). */
export const DEFAULT_STATE_THROTTLE = 50;

const samePath = (a: Change['path'], b: Change['path']) => a.length === b.length && a.every((s, i) => s === b[i]);

/**
 * The changes without `complete`s, with an append joined to an append or a string add right
 * before it at the same path: the same state, fewer operations.
 */
export function mergeChanges(changes: readonly Change[]): Change[] {
  const merged: Change[] = [];
  for (const change of changes) {
    if (change.op === 'complete') continue;
    const last = merged.at(-1);
    if (change.op === 'append' && last !== undefined && samePath(last.path, change.path)) {
      if (last.op === 'append') {
        merged[merged.length - 1] = { op: 'append', path: last.path, value: last.value + change.value };
        continue;
      }
      if (last.op === 'add' && typeof last.value === 'string') {
        merged[merged.length - 1] = { op: 'add', path: last.path, value: last.value + change.value };
        continue;
      }
    }
    merged.push(change);
  }
  return merged;
}

const changesOf = (item: ChangeItem): readonly Change[] => {
  if (Array.isArray(item)) return item as readonly Change[];
  const changes = (item as { changes?: unknown } | null)?.changes;
  if (Array.isArray(changes)) return changes as readonly Change[];
  throw new TypeError(
    "toAgUiState: the source yields neither change lists nor { changes } items: create the partial stream with emit: 'changes' (or 'both')",
  );
};

/** The AG-UI state events of a partial stream's change lists. Throws ConfigurationError for an invalid option. */
export function toAgUiState(source: Source<ChangeItem>, options: ToAgUiStateOptions = {}): AgUiEvents<StateEvent> {
  checkOptionNames('toAgUiState', options, TO_AG_UI_STATE_OPTIONS);
  const throttle = checkThrottle('toAgUiState', options.throttle, DEFAULT_STATE_THROTTLE);
  return agUiEvents('toAgUiState', source, async function* (reader) {
    // The state as the client has it (after the events sent), and the changes not sent yet.
    let sent: unknown;
    let snapshot = false;
    let pending: Change[] = [];
    let lastSent = Number.NEGATIVE_INFINITY;
    function* send(): Generator<StateEvent> {
      for (const d of reader.take()) yield diagnosticEvent(d);
      if (pending.length === 0) return;
      const changes = pending;
      pending = [];
      if (!snapshot) {
        sent = applyChanges(sent, changes);
        if (sent === undefined) return;
        snapshot = true;
        lastSent = performance.now();
        yield { type: EventType.STATE_SNAPSHOT, snapshot: structuredClone(sent) };
        return;
      }
      const merged = mergeChanges(changes);
      if (merged.length === 0) return;
      const delta = toJsonPatch(merged, sent);
      sent = applyChanges(sent, merged);
      lastSent = performance.now();
      yield { type: EventType.STATE_DELTA, delta };
    }
    for (;;) {
      const deadline = snapshot && pending.length > 0 && throttle > 0 ? lastSent + throttle : undefined;
      let result: Awaited<ReturnType<typeof reader.next>>;
      try {
        result = await reader.next(deadline);
      } catch (error) {
        yield* send();
        throw error;
      }
      if (result === WAITING) {
        yield* send();
        continue;
      }
      if (result.done === true) break;
      for (const change of changesOf(result.value)) pending.push(change);
      if (!snapshot || throttle === 0 || performance.now() - lastSent >= throttle) yield* send();
      else for (const d of reader.take()) yield diagnosticEvent(d);
    }
    yield* send();
  });
}
