/**
 * Cohere v2 chat SSE (`POST /v2/chat` with `stream: true`): events whose data carries a `type`
 * in kebab case (`message-start`, `content-delta`...; Anthropic's are snake case, so the two
 * never collide).
 *
 * - Text: `content-delta` → `delta.message.content.text`. A content block opened as `thinking`
 *   (`content-start` with `content.type: "thinking"`, Command A Reasoning) streams
 *   `content.thinking`: reasoning. `tool-plan-delta` (`delta.message.tool_plan`, the plan the
 *   model writes before calling tools) is reasoning too: it is not the answer.
 * - Tool calls: `tool-call-start` (`index`, `delta.message.tool_calls {id, function {name,
 *   arguments}}`) opens call `tool_call<index>`, `tool-call-delta` streams
 *   `function.arguments` pieces, `tool-call-end` closes it (blank arguments read as `{}`).
 * - Finish: `message-end` → `delta.finish_reason`, Cohere's own word (`COMPLETE`,
 *   `STOP_SEQUENCE`, `MAX_TOKENS`, `TOOL_CALL`); `ERROR` and `TIMEOUT` are also a
 *   `provider-error` (with `delta.error` when sent), and stay the finish reason.
 * - Usage (`message-end` → `delta.usage`): the token counts `tokens.input_tokens` /
 *   `tokens.output_tokens` (what the model read and wrote, cached prompt tokens included), else
 *   `billed_units` (what is billed, without the system preamble); total = their sum.
 * - No model name is streamed (it is the request's). `citation-start`/`-end` and
 *   `content-start`/`-end` of text blocks carry no answer text.
 */

import {
  type CallState,
  type EventAt,
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  num,
  str,
  usageOf,
  type WireFormat,
} from './context.js';

const TYPE = /^(?:message|content|tool-plan|tool-call|citation)-(?:start|delta|end)$/;

export const cohere: WireFormat = {
  name: 'cohere',
  title: 'Cohere v2 chat',
  endMarker: 'message-end',
  recognises: (event) => TYPE.test(str(event.type) ?? ''),
  create: (context) => new CohereReader(context),
};

/** Finish reasons that say the model was stopped by a failure, not by an ordinary end. */
const FAILED = new Set(['ERROR', 'TIMEOUT']);

/** `event.delta.message`, or `{}`. */
function messageOf(event: Json): Json {
  const delta = event.delta;
  return isObject(delta) && isObject(delta.message) ? delta.message : {};
}

class CohereReader implements FormatReader {
  /** Content blocks opened as `thinking`, by index. */
  readonly #thinking = new Set<number>();
  readonly #calls = new Map<number, CallState>();

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
  }

  event(event: Json, at: EventAt): void {
    const context = this.#context;
    const index = num(event.index) ?? 0;
    switch (event.type) {
      case 'message-start':
        context.startMessage('message-start', 'message-end', at);
        this.#thinking.clear();
        this.#calls.clear();
        context.setFinishReason(undefined);
        context.setUsage(undefined);
        return;
      case 'content-start': {
        const content = messageOf(event).content;
        if (isObject(content) && content.type === 'thinking') {
          this.#thinking.add(index);
          context.emitReasoning(str(content.thinking));
        } else {
          this.#thinking.delete(index);
          if (isObject(content)) context.emitText(str(content.text));
        }
        return;
      }
      case 'content-delta': {
        const content = messageOf(event).content;
        if (!isObject(content)) return;
        // A thinking block's deltas carry `thinking`; a text block's `text`.
        if (typeof content.thinking === 'string' || this.#thinking.has(index)) {
          context.emitReasoning(str(content.thinking) ?? str(content.text));
        } else {
          context.emitText(str(content.text));
        }
        return;
      }
      case 'tool-plan-delta':
        context.emitReasoning(str(messageOf(event).tool_plan));
        return;
      case 'tool-call-start':
      case 'tool-call-delta': {
        const tool = messageOf(event).tool_calls;
        const fn = isObject(tool) && isObject(tool.function) ? tool.function : undefined;
        const call = context.call(
          `tool_call${index}`,
          index,
          isObject(tool) ? str(tool.id) : undefined,
          fn === undefined ? undefined : str(fn.name),
        );
        this.#calls.set(index, call);
        if (fn === undefined) return;
        const args = fn.arguments;
        context.emitArguments(
          call,
          typeof args === 'string' ? args : isObject(args) || Array.isArray(args) ? JSON.stringify(args) : undefined,
        );
        return;
      }
      case 'tool-call-end': {
        const call = this.#calls.get(index);
        if (call !== undefined) context.close(call);
        return;
      }
      case 'message-end':
        this.#end(event, at);
        return;
    }
    // content-end, citation-start, citation-end: nothing to deliver.
  }

  #end(event: Json, at: EventAt): void {
    const context = this.#context;
    const delta = isObject(event.delta) ? event.delta : {};
    const usage = delta.usage;
    if (isObject(usage)) {
      const counts = isObject(usage.tokens) ? usage.tokens : isObject(usage.billed_units) ? usage.billed_units : {};
      context.setUsage(usageOf(num(counts.input_tokens), num(counts.output_tokens), undefined));
    }
    const reason = str(delta.finish_reason);
    if (reason !== undefined && FAILED.has(reason)) {
      const error = delta.error;
      const why = typeof error === 'string' ? error : isObject(error) ? str(error.message) : undefined;
      context.providerError(
        { message: `the response was stopped${why === undefined ? '' : `: ${why}`}`, code: reason },
        at,
      );
    }
    if (reason !== undefined && reason !== '') context.setFinishReason(reason);
    context.finishSegment();
  }
}
