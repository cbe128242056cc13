/**
 * `toAgUiToolCalls`: a tool-call stream (`createToolCallStream` of @llmjson/web or @llmjson/node)
 * as AG-UI events. Per call: `TOOL_CALL_START` {toolCallId, toolCallName} at its first update,
 * `TOOL_CALL_ARGS` {toolCallId, delta} whose deltas are the raw argument text the model sent
 * (read from the stream's `toolCalls`, so they concatenate to exactly the provider's arguments),
 * and `TOOL_CALL_END` once llmjson has the arguments as one whole JSON document. llmjson's
 * checks travel beside them: each diagnostic (a prefix `violation` the moment it is certain, a
 * `schema` failure of complete arguments, a call to an unknown tool, a cut call) is a `CUSTOM`
 * event named `llmjson.diagnostic` carrying the diagnostic, which clients that do not know it
 * ignore. A stream that fails (`failFast`'s ContractViolationError, a broken body) makes the
 * events fail with the same error after the diagnostics, and calls still open when the source
 * ends make them fail with an IncompleteToolCallsError: AG-UI has no way to say "cut off" but a
 * run error, and `agUiRun` turns either into the run's `RUN_ERROR`.
 *
 * Why raw text rather than text rebuilt from the value: an AG-UI client concatenates the deltas
 * and parses them itself, so it gets what the model wrote, byte for byte, with llmjson's verdict
 * beside it. The deltas are not throttled: each carries only new text, so their bytes are linear
 * in the arguments however many there are.
 */

import type { CustomEvent, ToolCallArgsEvent, ToolCallEndEvent, ToolCallStartEvent } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import { LlmjsonError, type ToolCall, type ToolCallUpdate } from '@llmjson/core';
import { checkOptionNames, optionNames } from '@llmjson/core/internal';
import { type AgUiEvents, agUiEvents, diagnosticEvent, type Source, WAITING } from './source.js';

export type ToolCallEvent = ToolCallStartEvent | ToolCallArgsEvent | ToolCallEndEvent | CustomEvent;

/** What `toAgUiToolCalls` reads: the tool-call stream itself (its `toolCalls` hold the raw argument text). */
export type ToolCallSource = Source<ToolCallUpdate> & { readonly toolCalls: readonly ToolCall[] };

export interface ToAgUiToolCallsOptions {
  /** The assistant message the calls belong to (`parentMessageId` of TOOL_CALL_START). Default: none. */
  readonly parentMessageId?: string;
}

/** The options `toAgUiToolCalls` takes. */
export const TO_AG_UI_TOOL_CALLS_OPTIONS = /* @__PURE__ */ optionNames<ToAgUiToolCallsOptions>()(['parentMessageId']);

/** Tool calls the source ended with still open: their arguments were cut off. */
export class IncompleteToolCallsError extends LlmjsonError {
  override readonly name = 'IncompleteToolCallsError';
  /** The open calls' `toolCallId`s. */
  readonly toolCallIds: readonly string[];
  constructor(toolCallIds: readonly string[]) {
    super(
      'TOOL_CALLS_INCOMPLETE',
      `the tool-call stream ended with ${toolCallIds.length} call(s) whose arguments are not whole: ${toolCallIds.map((id) => JSON.stringify(id)).join(', ')} (the model was cut off; see the truncated diagnostic)`,
    );
    this.toolCallIds = toolCallIds;
  }
}

interface Open {
  readonly id: string;
  /** Characters of the raw arguments sent so far. */
  sent: number;
  ended: boolean;
}

/** The AG-UI events of a tool-call stream. Throws TypeError for a source without `toolCalls`. */
export function toAgUiToolCalls(
  source: ToolCallSource,
  options: ToAgUiToolCallsOptions = {},
): AgUiEvents<ToolCallEvent> {
  checkOptionNames('toAgUiToolCalls', options, TO_AG_UI_TOOL_CALLS_OPTIONS);
  if (!Array.isArray((source as { toolCalls?: unknown } | null)?.toolCalls)) {
    throw new TypeError(
      'toAgUiToolCalls: pass the stream createToolCallStream returned (its toolCalls hold the raw argument text the TOOL_CALL_ARGS events carry), not its readable side or a copy of its updates',
    );
  }
  const parent = options.parentMessageId;
  return agUiEvents('toAgUiToolCalls', source, async function* (reader) {
    const calls = new Map<string, Open>();
    // The raw text of a call not yet sent: everything the decoder holds past what went out.
    function* args(key: string, open: Open): Generator<ToolCallEvent> {
      const raw = source.toolCalls.find((c) => c.key === key)?.arguments ?? '';
      if (raw.length <= open.sent) return;
      const delta = raw.slice(open.sent);
      open.sent = raw.length;
      yield { type: EventType.TOOL_CALL_ARGS, toolCallId: open.id, delta };
    }
    for (;;) {
      let result: Awaited<ReturnType<typeof reader.next>>;
      try {
        result = await reader.next();
      } finally {
        // The diagnostics so far go out first, and also when the source failed.
        for (const d of reader.take()) yield diagnosticEvent(d);
      }
      if (result === WAITING || result.done === true) break;
      const update = result.value;
      let open = calls.get(update.key);
      if (open === undefined) {
        open = { id: update.id ?? update.key, sent: 0, ended: false };
        calls.set(update.key, open);
        yield {
          type: EventType.TOOL_CALL_START,
          toolCallId: open.id,
          toolCallName: update.name ?? '',
          ...(parent === undefined ? {} : { parentMessageId: parent }),
        };
      }
      if (open.ended) continue;
      yield* args(update.key, open);
      if (update.complete) {
        open.ended = true;
        yield { type: EventType.TOOL_CALL_END, toolCallId: open.id };
      }
    }
    const cut: string[] = [];
    for (const [key, open] of calls) {
      if (open.ended) continue;
      yield* args(key, open);
      cut.push(open.id);
    }
    if (cut.length > 0) throw new IncompleteToolCallsError(cut);
  });
}
