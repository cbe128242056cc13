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
 *
 * InvokeModelWithResponseStream (`POST /model/{id}/invoke-with-response-stream`) sends the same
 * frames, but each event is a `chunk` whose payload `{"bytes": "<base64>"}` holds one event of
 * the model's own streaming format, as JSON (UTF-8). The first chunk's shape says which, and the
 * same format holds for the stream (a chunk of another shape is reported, `unrecognized`):
 * - Anthropic models: the Anthropic Messages events (`{"type": "message_start"...}`), read by the
 *   Anthropic reader (anthropic.ts: text, thinking, tool calls keyed `message<n>.block<i>`,
 *   usage, `message_stop` ends the stream); an `error` event is a `provider-error`.
 * - Amazon Nova: ConverseStream-shaped events (`{"contentBlockDelta": ...}`), read as above.
 * - Models served with OpenAI chat chunks (`{"choices": [...]}`: gpt-oss, DeepSeek...): the chat
 *   reader (openai-chat.ts).
 * - Amazon Titan Text: `outputText` is text, `completionReason` ends the answer (`FINISH`,
 *   `LENGTH`; `CONTENT_FILTERED` is also a `provider-error`).
 * - Meta Llama: `generation` is text, `stop_reason` ends it (`stop`, `length`).
 * - Mistral (completion models): `outputs[0].text` is text, `outputs[0].stop_reason` ends it.
 * For Titan, Llama and Mistral the usage is the model's own counts (`inputTextTokenCount` /
 * `totalOutputTextTokenCount`, `prompt_token_count` / `generation_token_count`) or, on the last
 * chunk, Bedrock's `amazon-bedrock-invocationMetrics` (`inputTokenCount`, `outputTokenCount`),
 * which the other formats' own usage takes precedence over.
 */

import { DiagnosticReason } from '../diagnostics/diagnostics.js';
import { anthropic } from './anthropic.js';
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
import { openAIChat } from './openai-chat.js';

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
    for (const key in event) {
      if (EVENTS.has(key) || key === 'metadata' || key.endsWith('Exception')) return true;
      if (key === 'chunk' && isObject(event.chunk) && typeof event.chunk.bytes === 'string') return true;
    }
    return false;
  },
  create: (context) => new BedrockReader(context),
};

/** Stop reasons that say the answer was withheld, not that it ended. */
const WITHHELD = new Set(['guardrail_intervened', 'content_filtered']);

/** The model formats an InvokeModelWithResponseStream chunk holds (see the header). */
type Family = 'anthropic' | 'converse' | 'openai' | 'titan' | 'llama' | 'mistral';

const END_MARKERS: Readonly<Record<Family, string>> = {
  anthropic: 'message_stop',
  converse: 'messageStop',
  openai: 'a finish_reason',
  titan: 'a completionReason',
  llama: 'a stop_reason',
  mistral: 'a stop_reason',
};

function familyOf(event: Json): Family | undefined {
  if (anthropic.recognises(event) || event.type === 'error') return 'anthropic';
  if ('outputText' in event) return 'titan';
  if ('generation' in event) return 'llama';
  if (Array.isArray(event.outputs)) return 'mistral';
  if (openAIChat.recognises(event)) return 'openai';
  for (const key in event) if (EVENTS.has(key) || key === 'metadata') return 'converse';
  return undefined;
}

/** The WHATWG codecs every runtime has (Node, browsers, edge); core's lib declares neither. */
interface Base64Codecs {
  atob(data: string): string;
  readonly TextDecoder: new () => { decode(input: Uint8Array): string };
}
const codecs = (): Base64Codecs => globalThis as unknown as Base64Codecs;
let utf8: { decode(input: Uint8Array): string } | undefined;

const NON_ASCII = /[\x80-\xff]/;

/** The UTF-8 text of base64 `data`; throws when it is not base64. */
function fromBase64(data: string): string {
  const binary = codecs().atob(data);
  // ASCII bytes are their own text: only a chunk with other bytes needs the UTF-8 decoder.
  if (!NON_ASCII.test(binary)) return binary;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  utf8 ??= new (codecs().TextDecoder)();
  return utf8.decode(bytes);
}

const WITHHELD_TITAN = 'CONTENT_FILTERED';

class BedrockReader implements FormatReader {
  readonly #blocks = new Map<number, CallState>();
  /** InvokeModelWithResponseStream: the model format of the chunks, and its reader when it has one. */
  #family: Family | undefined;
  #inner: FormatReader | undefined;
  #mismatchReported = false;
  /** Token counts of a Titan, Llama or Mistral stream, as they arrived. */
  #input: number | undefined;
  #output: number | undefined;

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
  }

  get endMarker(): string | undefined {
    return this.#family === undefined ? undefined : END_MARKERS[this.#family];
  }

  event(event: Json, at: EventAt): void {
    const context = this.#context;
    const exception = bedrockException(event);
    if (exception !== undefined) {
      const body = event[exception];
      const message = isObject(body) ? (str(body.message) ?? str(body.Message)) : str(body);
      context.providerError({ message: message ?? exception, code: exception }, at);
      return;
    }
    const chunk = event.chunk;
    if (isObject(chunk) && typeof chunk.bytes === 'string') {
      this.#chunk(chunk.bytes, at);
      return;
    }
    this.#converse(event, at);
  }

  /** An InvokeModelWithResponseStream chunk: one event of the model's own format, in base64. */
  #chunk(bytes: string, at: EventAt): void {
    const context = this.#context;
    let text: string;
    let event: unknown;
    try {
      text = fromBase64(bytes);
    } catch {
      context.report(DiagnosticReason.syntax, at, 'an InvokeModel chunk whose bytes are not base64; skipped');
      return;
    }
    const inside: EventAt = { line: at.line, offset: at.offset, data: text };
    try {
      event = JSON.parse(text);
    } catch (error) {
      context.report(
        DiagnosticReason.syntax,
        inside,
        `an InvokeModel chunk that is not JSON (${(error as Error).message}); skipped`,
      );
      return;
    }
    const family = isObject(event) ? familyOf(event) : undefined;
    if (!isObject(event) || family === undefined || (this.#family !== undefined && family !== this.#family)) {
      if (!this.#mismatchReported) {
        this.#mismatchReported = true;
        const expected = this.#family === undefined ? 'a model format this decoder reads' : `a ${this.#family} event`;
        context.report(
          DiagnosticReason.unrecognized,
          inside,
          `an InvokeModel chunk that is not ${expected}; ignored (and any other such chunk)`,
        );
      }
      return;
    }
    if (this.#family === undefined) {
      this.#family = family;
      if (family === 'anthropic') this.#inner = anthropic.create(context);
      else if (family === 'openai') this.#inner = openAIChat.create(context);
    }
    if (family === 'anthropic' && event.type === 'error') {
      const error = event.error;
      if (isObject(error)) context.providerError(errorFrom(error.message ?? JSON.stringify(error), error.type), inside);
      else context.providerError(errorFrom(event.message ?? error ?? 'error event', undefined), inside);
      return;
    }
    if (this.#inner !== undefined) this.#inner.event(event, inside);
    else if (family === 'converse') this.#converse(event, inside);
    else this.#completion(family, event, inside);
  }

  /** A Titan, Llama or Mistral completion chunk: text, its stop reason, the token counts. */
  #completion(family: Family, event: Json, at: EventAt): void {
    const context = this.#context;
    let reason: string | undefined;
    if (family === 'titan') {
      context.emitText(str(event.outputText));
      reason = str(event.completionReason);
      this.#counts(num(event.inputTextTokenCount), num(event.totalOutputTextTokenCount));
    } else if (family === 'llama') {
      context.emitText(str(event.generation));
      reason = str(event.stop_reason);
      this.#counts(num(event.prompt_token_count), num(event.generation_token_count));
    } else {
      const output: unknown = (event.outputs as unknown[])[0];
      if (isObject(output)) {
        context.emitText(str(output.text));
        reason = str(output.stop_reason);
      }
    }
    const metrics = event['amazon-bedrock-invocationMetrics'];
    if (isObject(metrics)) this.#counts(num(metrics.inputTokenCount), num(metrics.outputTokenCount));
    if (reason !== undefined && reason !== '') {
      if (reason === WITHHELD_TITAN) context.providerError({ message: 'the response was withheld', code: reason }, at);
      context.setFinishReason(reason);
      context.finishSegment();
    }
  }

  /** Token counts as they arrive (Titan sends the input count first, the output count last). */
  #counts(input: number | undefined, output: number | undefined): void {
    this.#input = input ?? this.#input;
    this.#output = output ?? this.#output;
    if (this.#input !== undefined || this.#output !== undefined) {
      this.#context.setUsage(usageOf(this.#input, this.#output, undefined));
    }
  }

  /** A ConverseStream event. */
  #converse(event: Json, at: EventAt): void {
    const context = this.#context;
    if (isObject(event.messageStart)) {
      context.startMessage('messageStart', 'messageStop', at);
      this.#blocks.clear();
      context.setFinishReason(undefined);
      context.setUsage(undefined);
    }
    const start = event.contentBlockStart;
    if (isObject(start)) {
      const block = isObject(start.start) ? start.start : {};
      const tool = block.toolUse;
      if (isObject(tool)) this.#block(num(start.contentBlockIndex) ?? 0, str(tool.toolUseId), str(tool.name));
    }
    const delta = event.contentBlockDelta;
    if (isObject(delta) && isObject(delta.delta)) this.#delta(num(delta.contentBlockIndex) ?? 0, delta.delta);
    const stop = event.contentBlockStop;
    if (isObject(stop)) {
      const call = this.#blocks.get(num(stop.contentBlockIndex) ?? 0);
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

  #block(index: number, id: string | undefined, name: string | undefined): CallState {
    const call = this.#context.call(`block${index}`, index, id, name);
    this.#blocks.set(index, call);
    return call;
  }

  #delta(index: number, delta: Json): void {
    const context = this.#context;
    context.emitText(str(delta.text));
    const reasoning = delta.reasoningContent;
    if (isObject(reasoning)) context.emitReasoning(str(reasoning.text));
    const tool = delta.toolUse;
    if (isObject(tool)) {
      const call = this.#blocks.get(index) ?? this.#block(index, undefined, undefined);
      const input = tool.input;
      context.emitArguments(
        call,
        typeof input === 'string' ? input : isObject(input) || Array.isArray(input) ? JSON.stringify(input) : undefined,
      );
    }
  }
}
