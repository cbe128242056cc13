/**
 * AG-UI events in. `fromAgUi(events)` writes events (an agent's, as objects) as JSON lines, the
 * text the provider decoder reads as `input: 'ag-ui'` (core's provider/ag-ui.ts says what each
 * event becomes), so every llmjson stream takes them: tool-call arguments as live partial values
 * through `createToolCallStream({ input: 'ag-ui', tools })`. An AG-UI agent's SSE body needs no
 * conversion: the streams read it as it comes.
 *
 * `fromAgUiState(events)` reads the state events back as change lists, what a partial store
 * (`store.feed`) and `applyChanges` take: a `STATE_SNAPSHOT` becomes the changes that build its
 * value (replacing the root), a `STATE_DELTA` its patch's changes (`fromJsonPatch`). It never
 * throws for what the events hold: a delta that does not apply to the state so far (a path that
 * does not resolve, an operation a growing value cannot make: `remove`, `move`, `copy`), or an
 * event that is not an object, is a diagnostic (`unrecognized`, whose `line` is the event's
 * number from 1) and changes nothing; a `RUN_ERROR` is a `provider-error` diagnostic.
 */

import { applyChanges, type Change, type Diagnostic, DiagnosticReason } from '@llmjson/core';
import { excerptAround, textOfValue } from '@llmjson/core/internal';
import { fromJsonPatch, type JsonPatchOperation } from '@llmjson/web';
import { Reader, type Source, WAITING } from './source.js';

/** The events of an agent (objects), one JSON line each, for `input: 'ag-ui'`. */
export async function* fromAgUi(events: Source<object>): AsyncGenerator<string> {
  const reader = new Reader<object>('fromAgUi', events);
  let finished = false;
  try {
    for (;;) {
      const result = await reader.next();
      if (result === WAITING || result.done === true) break;
      yield `${JSON.stringify(result.value)}\n`;
    }
    finished = true;
  } finally {
    await reader.close(!finished);
  }
}

/** What `fromAgUiState` yields: the events `createPartialStore().feed` takes. */
export type AgUiStateItem =
  | { readonly type: 'changes'; readonly changes: readonly Change[] }
  | { readonly type: 'diagnostic'; readonly from: 'wire'; readonly diagnostic: Diagnostic };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The state events of an AG-UI event stream as change lists. */
export async function* fromAgUiState(events: Source<unknown>): AsyncGenerator<AgUiStateItem> {
  const reader = new Reader<unknown>('fromAgUiState', events);
  let state: unknown;
  let number = 0;
  let finished = false;
  const diagnostic = (reason: Diagnostic['reason'], event: unknown, message: string): AgUiStateItem => {
    const text = textOfValue(event).slice(0, 400);
    return {
      type: 'diagnostic',
      from: 'wire',
      diagnostic: { reason, line: number, offset: 0, excerpt: excerptAround(text, 0), message },
    };
  };
  try {
    for (;;) {
      const result = await reader.next();
      if (result === WAITING || result.done === true) break;
      number++;
      const event = result.value;
      if (!isObject(event)) {
        yield diagnostic(DiagnosticReason.unrecognized, event, `event ${number} is not an object; ignored`);
        continue;
      }
      if (event.type === 'RUN_ERROR') {
        yield diagnostic(
          DiagnosticReason.providerError,
          event,
          `RUN_ERROR: ${textOfValue(event.message).slice(0, 400)}`,
        );
        continue;
      }
      if (event.type !== 'STATE_SNAPSHOT' && event.type !== 'STATE_DELTA') continue;
      let changes: Change[];
      let next: unknown;
      try {
        if (event.type === 'STATE_SNAPSHOT') {
          changes = fromJsonPatch([{ op: 'add', path: '', value: event.snapshot }], undefined);
          next = applyChanges(undefined, changes);
        } else {
          if (!Array.isArray(event.delta)) throw new TypeError('its delta is not an array of JSON Patch operations');
          changes = fromJsonPatch(event.delta as JsonPatchOperation[], state);
          next = applyChanges(state, changes);
        }
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        yield diagnostic(
          DiagnosticReason.unrecognized,
          event,
          `${event.type} ${number} refused: ${why}; the state is left as it was`,
        );
        continue;
      }
      state = next;
      if (changes.length > 0) yield { type: 'changes', changes };
    }
    finished = true;
  } finally {
    await reader.close(!finished);
  }
}
