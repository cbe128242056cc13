/**
 * Amazon Bedrock ConverseStream (`POST /model/{id}/converse-stream`): one event object per
 * event, `{"<eventType>": {...}}`. On the wire the events are binary AWS event-stream frames
 * (`application/vnd.amazon.eventstream`, decoded by event-stream.ts, which hands this reader
 * the same objects); proxies, SDK dumps and recordings give the objects as JSON lines (or SSE
 * `data:`), read here as they are.
 *
 * - Text: `contentBlockDelta.delta.text`. Reasoning: `delta.reasoningContent.text` (a
 *   `signature` or `redactedContent` carries none).
 * - Tool calls: `contentBlockStart.start.toolUse {toolUseId, name}` opens call
 *   `block<contentBlockIndex>` (index = the block index), `delta.toolUse.input` streams the
 *   argument pieces (a string; an object is serialized), `contentBlockStop` closes it (blank
 *   arguments read as `{}`). A call whose pieces arrive without a start is opened by them.
 * - Finish: `messageStop.stopReason`, Bedrock's own word (`end_turn`, `tool_use`,
 *   `max_tokens`, `stop_sequence`...); `guardrail_intervened` and `content_filtered` are also
 *   a `provider-error` (the answer was withheld), and stay the finish reason. The usage arrives
 *   after it, in `metadata`.
 * - Usage (`metadata.usage`): `inputTokens` plus `cacheReadInputTokens` and
 *   `cacheWriteInputTokens` (as for Anthropic, whose models Bedrock mostly serves),
 *   `outputTokens`, `totalTokens` as sent. No model name is streamed (it is in the URL).
 * - Errors: an exception event (`{"throttlingException": {"message"}}`,
 *   `modelStreamErrorException`, `validationException`, `internalServerException`,
 *   `serviceUnavailableException`; binary frames of message type `exception` or `error` are
 *   turned into the same shape) is a `provider-error` whose code is the exception's name.
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

const EVENTS = new Set(['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop']);

/** The exception an event is, by its one key (`throttlingException`...). */
function bedrockException(event: Json): string | undefined {
  for (const key in event) if (key.endsWith('Exception') && Object.hasOwn(event, key)) return key;
  return undefined;
}

export const bedrock: WireFormat = {
  name: 'bedrock',
  title: 'Amazon Bedrock ConverseStream',
  endMarker: 'messageStop',
  // Detection tries this format last: `metadata` (the usage event) alone is a common key.
  recognises: (event) => {
    for (const key in event) if (EVENTS.has(key) || key === 'metadata' || key.endsWith('Exception')) return true;
    return false;
  },
  create: (context) => new BedrockReader(context),
};

/** Stop reasons that say the answer was withheld, not that it ended. */
const WITHHELD = new Set(['guardrail_intervened', 'content_filtered']);

class BedrockReader implements FormatReader {
  private readonly blocks = new Map<number, CallState>();
  private messages = 0;

  constructor(private readonly context: FormatContext) {}

  event(event: Json, at: EventAt): void {
    const context = this.context;
    const exception = bedrockException(event);
    if (exception !== undefined) {
      const body = event[exception];
      const message = isObject(body) ? (str(body.message) ?? str(body.Message)) : str(body);
      context.providerError({ message: message ?? exception, code: exception }, at);
      return;
    }
    if (isObject(event.messageStart)) {
      if (this.messages > 0 && !context.finished) {
        context.cut(
          `message ${this.messages} ended without messageStop: a new messageStart followed`,
          at.line,
          at.offset,
        );
      }
      this.messages++;
      context.finished = false;
      this.blocks.clear();
      context.setFinishReason(undefined);
      context.setUsage(undefined);
    }
    const start = event.contentBlockStart;
    if (isObject(start)) {
      const block = isObject(start.start) ? start.start : {};
      const tool = block.toolUse;
      if (isObject(tool)) this.block(num(start.contentBlockIndex) ?? 0, str(tool.toolUseId), str(tool.name));
    }
    const delta = event.contentBlockDelta;
    if (isObject(delta) && isObject(delta.delta)) this.delta(num(delta.contentBlockIndex) ?? 0, delta.delta);
    const stop = event.contentBlockStop;
    if (isObject(stop)) {
      const call = this.blocks.get(num(stop.contentBlockIndex) ?? 0);
      if (call !== undefined) context.close(call);
    }
    const end = event.messageStop;
    if (isObject(end)) {
      const reason = str(end.stopReason);
      if (reason !== undefined && WITHHELD.has(reason)) {
        context.providerError({ message: 'the response was withheld', code: reason }, at);
      }
      if (reason !== undefined && reason !== '') context.setFinishReason(reason);
      context.finishSegment();
    }
    const metadata = event.metadata;
    if (isObject(metadata) && isObject(metadata.usage)) {
      const u = metadata.usage;
      const input = num(u.inputTokens);
      const cache = (num(u.cacheReadInputTokens) ?? 0) + (num(u.cacheWriteInputTokens) ?? 0);
      context.setUsage(
        usageOf(input === undefined ? undefined : input + cache, num(u.outputTokens), num(u.totalTokens)),
      );
    }
  }

  private block(index: number, id: string | undefined, name: string | undefined): CallState {
    const call = this.context.call(`block${index}`, index, id, name);
    this.blocks.set(index, call);
    return call;
  }

  private delta(index: number, delta: Json): void {
    const context = this.context;
    context.emitText(str(delta.text));
    const reasoning = delta.reasoningContent;
    if (isObject(reasoning)) context.emitReasoning(str(reasoning.text));
    const tool = delta.toolUse;
    if (isObject(tool)) {
      const call = this.blocks.get(index) ?? this.block(index, undefined, undefined);
      const input = tool.input;
      context.emitArguments(
        call,
        typeof input === 'string' ? input : isObject(input) || Array.isArray(input) ? JSON.stringify(input) : undefined,
      );
    }
  }
}
