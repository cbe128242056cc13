/**
 * AG-UI events (the Agent-User Interaction protocol of CopilotKit and others, protocol 1.0): the
 * SSE body an AG-UI agent answers with (`data: {"type":"TOOL_CALL_ARGS",...}`), or the events as
 * JSON lines (`fromAgUi` of @llmjson/ag-ui writes one per line). Read structurally: core depends
 * on no AG-UI package, and an event is only the fields read here.
 *
 * `TEXT_MESSAGE_CONTENT` / `TEXT_MESSAGE_CHUNK` {delta} are answer text; `REASONING_MESSAGE_CONTENT`
 * / `REASONING_MESSAGE_CHUNK` (and the older `THINKING_TEXT_MESSAGE_CONTENT`) {delta} reasoning.
 * `TOOL_CALL_START` {toolCallId, toolCallName} opens a call keyed by its id (numbered in order of
 * first appearance), `TOOL_CALL_ARGS` {toolCallId, delta} are its argument pieces and
 * `TOOL_CALL_END` closes it. `TOOL_CALL_CHUNK` {toolCallId?, toolCallName?, delta?} is the
 * protocol's shorthand for the three: an id opens (or continues) that call, a chunk without one
 * continues the call the last chunk named, and a chunk naming another call closes the previous
 * one, as the protocol's own client expands them. `RUN_STARTED` opens a run (a run not finished
 * before the next one is reported cut), `RUN_FINISHED` {outcome?, usage?} ends it (finish reason:
 * the outcome's `type`, `success` when absent; usage summed over its entries, the model named
 * when they name one), and `RUN_ERROR` {message, code?} is a provider error.
 *
 * Malformed events never throw: an args piece or an end for a call no start opened is reported
 * (`unrecognized`, once per call: the protocol's client refuses them too) and ignored; a field
 * of the wrong type reads as absent. State, messages, activity, step, subagent, tool-result,
 * raw and custom events carry no model output here and are ignored by design (state is
 * @llmjson/ag-ui's `fromAgUiState`).
 */

import { DiagnosticReason } from '../diagnostics/diagnostics.js';
import {
  type CallState,
  type EventAt,
  errorFrom,
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  num,
  str,
  usageOf,
  type WireFormat,
} from './context.js';

/** Every event type of the AG-UI protocol (1.0, and the THINKING_* names of earlier releases). */
export const AG_UI_EVENTS: ReadonlySet<string> = new Set([
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'TEXT_MESSAGE_CHUNK',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_CHUNK',
  'TOOL_CALL_RESULT',
  'STATE_SNAPSHOT',
  'STATE_DELTA',
  'MESSAGES_SNAPSHOT',
  'ACTIVITY_SNAPSHOT',
  'ACTIVITY_DELTA',
  'RAW',
  'CUSTOM',
  'RUN_STARTED',
  'RUN_FINISHED',
  'RUN_ERROR',
  'STEP_STARTED',
  'STEP_FINISHED',
  'REASONING_START',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_END',
  'REASONING_MESSAGE_CHUNK',
  'REASONING_END',
  'REASONING_ENCRYPTED_VALUE',
  'SUBAGENT_STARTED',
  'SUBAGENT_FINISHED',
  'SUBAGENT_ERROR',
  'THINKING_START',
  'THINKING_END',
  'THINKING_TEXT_MESSAGE_START',
  'THINKING_TEXT_MESSAGE_CONTENT',
  'THINKING_TEXT_MESSAGE_END',
]);

export const agUi: WireFormat = {
  name: 'ag-ui',
  title: 'AG-UI',
  endMarker: 'RUN_FINISHED',
  recognises: (event) => AG_UI_EVENTS.has(str(event.type) ?? ''),
  create: (context) => new AgUiReader(context),
};

/** RUN_FINISHED's `usage`: one entry per provider and model, summed. */
function usageFrom(entries: unknown) {
  if (!Array.isArray(entries)) return undefined;
  let input: number | undefined;
  let output: number | undefined;
  let total: number | undefined;
  const add = (sum: number | undefined, n: number | undefined) => (n === undefined ? sum : (sum ?? 0) + n);
  for (const entry of entries) {
    if (!isObject(entry)) continue;
    input = add(input, num(entry.inputTokens));
    output = add(output, num(entry.outputTokens));
    total = add(total, num(entry.totalTokens));
  }
  return usageOf(input, output, total);
}

function modelFrom(entries: unknown): string | undefined {
  if (!Array.isArray(entries)) return undefined;
  for (const entry of entries) if (isObject(entry) && typeof entry.model === 'string') return entry.model;
  return undefined;
}

class AgUiReader implements FormatReader {
  #calls = 0;
  /** The call the last TOOL_CALL_CHUNK named (a chunk without an id continues it). */
  #chunkCall: CallState | undefined;
  /** Ids of args or ends refused for want of a start, reported once each (bounded: one per id). */
  readonly #refused = new Set<string>();

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
  }

  #open(id: string, name: unknown): CallState {
    const known = this.#context.findCall(id);
    if (known === undefined) this.#calls++;
    return this.#context.call(id, known?.index ?? this.#calls - 1, id, str(name));
  }

  /** The call a TOOL_CALL_ARGS or TOOL_CALL_END names; one no start opened is reported. */
  #named(event: Json, at: EventAt): CallState | undefined {
    const id = str(event.toolCallId);
    const call = id === undefined ? undefined : this.#context.findCall(id);
    if (call !== undefined) return call;
    const key = id ?? '';
    if (!this.#refused.has(key)) {
      if (this.#refused.size < 1024) this.#refused.add(key);
      this.#context.report(
        DiagnosticReason.unrecognized,
        at,
        `${String(event.type)} for ${id === undefined ? 'no toolCallId' : `tool call ${JSON.stringify(id).slice(0, 80)}`}, which no TOOL_CALL_START opened; ignored (send TOOL_CALL_START first)`,
      );
    }
    return undefined;
  }

  event(event: Json, at: EventAt): void {
    const context = this.#context;
    switch (event.type) {
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK':
        context.emitText(str(event.delta));
        break;
      case 'REASONING_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CHUNK':
      case 'THINKING_TEXT_MESSAGE_CONTENT':
        context.emitReasoning(str(event.delta));
        break;
      case 'TOOL_CALL_START': {
        const id = str(event.toolCallId);
        if (id === undefined) {
          context.report(DiagnosticReason.unrecognized, at, 'TOOL_CALL_START without a toolCallId; ignored');
          break;
        }
        this.#open(id, event.toolCallName);
        break;
      }
      case 'TOOL_CALL_ARGS': {
        const call = this.#named(event, at);
        if (call !== undefined) context.emitArguments(call, str(event.delta));
        break;
      }
      case 'TOOL_CALL_END': {
        const call = this.#named(event, at);
        if (call !== undefined) context.close(call);
        break;
      }
      case 'TOOL_CALL_CHUNK': {
        const id = str(event.toolCallId);
        let call = this.#chunkCall;
        if (id !== undefined && id !== call?.key) {
          if (call !== undefined) context.close(call);
          call = this.#open(id, event.toolCallName);
          this.#chunkCall = call;
        }
        if (call === undefined) {
          this.#named(event, at);
          break;
        }
        context.emitArguments(call, str(event.delta));
        break;
      }
      case 'RUN_STARTED':
        context.startMessage('RUN_STARTED', 'RUN_FINISHED', at);
        this.#chunkCall = undefined;
        break;
      case 'RUN_FINISHED': {
        const outcome = isObject(event.outcome) ? str(event.outcome.type) : undefined;
        context.setModel(modelFrom(event.usage));
        context.setFinishReason(outcome ?? 'success');
        context.setUsage(usageFrom(event.usage));
        context.finishSegment();
        this.#chunkCall = undefined;
        break;
      }
      case 'RUN_ERROR':
        context.setUsage(usageFrom(event.usage));
        context.providerError(errorFrom(event.message ?? 'RUN_ERROR', event.code), at);
        break;
    }
  }
}
