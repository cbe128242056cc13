/**
 * Provider stream decoder: the HTTP body a model server streams, in; the answer text, the
 * tool-call argument pieces, the reasoning and what the provider says about the answer, out.
 * It composes the framing (framing.ts), detection (detection.ts) and one module per wire format
 * (openai-chat.ts, openai-responses.ts, anthropic.ts, ollama.ts, gemini.ts, cohere.ts, mistral.ts,
 * bedrock.ts, ai-sdk.ts, ag-ui.ts; binary AWS event-stream framing in event-stream.ts), and keeps the
 * delivery rules every format shares (the context a format module works through, context.ts).
 *
 * Contract: `write(text)` consumes the next piece of the decoded body (split anywhere) and
 * synchronously delivers what each event it completes carries; `end()` delivers what the end
 * of the body decides (an unterminated last event, a stream cut before its end marker). The
 * sink receives, in input order: answer text (`text`), tool-call argument pieces
 * (`toolArguments`), reasoning (`reasoning`), a metadata snapshot whenever the model, finish
 * reason, usage or detected provider changed (`metadata`, once per event at most), and
 * diagnostics. Bad input never throws: only a broken configuration does, from the factory.
 *
 * `input` names the wire format (each module's header says what it reads), or is `auto`: the
 * framing from the first non-blank line (SSE, JSON lines, or one JSON array whose elements are
 * the events, framing.ts), then the format from the first event that one of the
 * formats recognises (a Mistral stream reads as `openai`: same chunks, same reader). A binary
 * body (Bedrock's AWS event stream) reaches the decoder through `bytes(chunk)`, which takes it
 * when its first byte says so (under `bedrock` and `auto`) and otherwise hands it back to be
 * decoded as text; each frame is one event. `data: [DONE]` ends the stream: later events are
 * reported once and ignored.
 *
 * Tool calls: `toolArguments(key, delta, info)` delivers the argument pieces as they arrive
 * (empty pieces are not delivered). When the provider closes a call (Anthropic
 * `content_block_stop`, Responses `...arguments.done` / `output_item.done`, a chat
 * `finish_reason` or `[DONE]`, every Ollama call, a Gemini `functionCall` part without
 * `willContinue`, an AI SDK `tool-input-end` or `tool-call` part, an AG-UI `TOOL_CALL_END`) whose pieces are empty or
 * blank, the decoder
 * delivers one more piece: the complete input the provider gave up front (serialized with
 * `JSON.stringify`), or else `"{}"` — Anthropic streams a no-argument call as one `""` piece.
 * So for every closed call the pieces concatenate to `toolCalls[i].arguments`, which always
 * parses when the provider sent valid JSON. A call never closed keeps what arrived
 * (`complete: false`, reported as `truncated`), even `""`: a cut call is not read as `{}`.
 * A piece for a call already closed is reported (`unrecognized`), never appended to arguments
 * handed out as complete.
 *
 * Metadata describes the last message of the stream: a new Anthropic `message_start` or
 * Responses `response.created` replaces the finish reason and usage of the previous one (a
 * stream holding several messages, as server-side tool loops send, reports the final one).
 * `finishReason` is the provider's own word (`stop`, `length`, `tool_calls`, `end_turn`,
 * `max_tokens`, Responses `completed` or the `incomplete_details.reason`, Ollama `done_reason`,
 * Gemini `STOP` / `MAX_TOKENS` / `SAFETY`...),
 * and `error` after a provider error. `usage` is normalised: `inputTokens` (OpenAI
 * `prompt_tokens`, Responses `input_tokens`, Anthropic `input_tokens` plus cache creation and
 * cache read tokens, Ollama `prompt_eval_count`, Gemini `promptTokenCount`), `outputTokens`
 * (`completion_tokens`, `output_tokens`, `eval_count`, Gemini candidates plus thoughts tokens),
 * `totalTokens` (as sent, or their sum). `provider` is the wire
 * format decoded (`auto` fills it in when it recognises one).
 *
 * Diagnostics (the core shape; `line` and `offset` are where the event starts, or the end of
 * the body for what the end decides; `excerpt` is the event's data, or a cut call's arguments):
 * - `syntax`: event data that is not JSON (the stream goes on); data after `[DONE]`.
 * - `unrecognized`: JSON that is not an event of the format (not an object, an unknown shape,
 *   a second choice) — reported the first time,
 *   and the number of further ignored events once at the end.
 * - `too-long` (with `toolCall` set): a tool call whose arguments would pass
 *   `maxArgumentsLength`; the call is dropped (see Invariant 3).
 * - `prose`, `too-long`: from the framing (framing.ts); `too-long`, `syntax` (bytes that are
 *   not a frame, a corrupt frame) and `truncated` (a cut frame) from the binary framing, where
 *   `line` is the frame's number and `offset` its byte offset (event-stream.ts).
 * - `provider-error`: an error the provider sent (an `error` event or object, `response.failed`),
 *   or a refusal (chat `delta.refusal`, Responses `response.refusal.delta`), whose text is not
 *   answer text.
 * - `truncated`: a message cut by a new one; a body that ended inside an event or before the
 *   format's end marker, naming every tool call left open.
 *
 * Invariants (tests in packages/core/test/provider-decoder.test.ts):
 * 1. Chunking does not matter: any split of the same body gives the same sink calls in the
 *    same order, the same diagnostics (offsets come from the text) and the same metadata.
 * 2. Nothing is lost silently: every event is decoded, ignored by design (keep-alives, `ping`,
 *    lifecycle events such as `response.in_progress`), or reported; `stats.ignoredEvents`
 *    counts the reported ones.
 * 3. Bounded resources: buffered text is at most one line (and one SSE event) of
 *    `maxEventLength` characters; once a line or event is known to be too long, the rest of it
 *    is counted, not kept. Tool-call arguments are kept for `toolCalls` (they are output), at
 *    most `maxArgumentsLength` characters per call: past it the call is dropped with one
 *    `too-long` diagnostic (with `toolCall` set) and forgotten; `keepToolArguments: false`
 *    keeps none.
 *    Work is linear in the body however small the chunks.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { type Diagnostic, DiagnosticReason, excerptAround, quoteInput } from '../diagnostics/diagnostics.js';
import type { StreamOptions } from '../engines/engine.js';
import { checkPositiveInteger, countDiagnostic } from '../engines/engine.js';
import { checkChoice, checkOptionNames, describeValue, optionNames } from '../options/option-checks.js';
import { DEFAULT_MAX_ARGUMENTS_LENGTH, DEFAULT_MAX_LINE_LENGTH } from '../syntax/limits.js';
import { bedrock } from './bedrock.js';
import {
  type CallState,
  type EventAt,
  errorFrom,
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  type WireFormat,
} from './context.js';
import { AUTO_RECOGNISES, detectFormat, INPUTS, wireFormat } from './detection.js';
import { EventStreamFramer, looksBinary } from './event-stream.js';
import { EventFramer } from './framing.js';
import type {
  ProviderDecoder,
  ProviderDecoderOptions,
  ProviderError,
  ProviderFormat,
  ProviderSink,
  ProviderStats,
  ToolCall,
  ToolCallInfo,
  Usage,
} from './types.js';

/** Most of a refusal's text kept for its diagnostic; the rest is counted (a refusal can stream without end). */
const REFUSAL_KEPT = 500;

const BODY_UNDECIDED = 0;
const BODY_TEXT = 1;
const BODY_BINARY = 2;

function sameUsage(a: Usage | undefined, b: Usage | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.inputTokens === b.inputTokens && a.outputTokens === b.outputTokens && a.totalTokens === b.totalTokens;
}

/** The provider error an event carries: `{type: "error", ...}`, an SSE `error` event, or an `error` member. */
function errorOf(event: Json, name: string | undefined): ProviderError | undefined {
  const error = event.error;
  if (event.type === 'error' || name === 'error') {
    // Anthropic: {type, error: {type, message}}; Responses: {type, code, message}.
    if (isObject(error)) return errorFrom(error.message ?? JSON.stringify(error), error.type ?? error.code);
    return errorFrom(event.message ?? error ?? 'error event', event.code);
  }
  // The OpenAI-style error body (`{"object": "error", message, type, code}`) of Mistral and vLLM.
  if (event.object === 'error') return errorFrom(event.message ?? 'error', event.type ?? event.code);
  if (error === undefined || error === null) return undefined;
  // Chat-completions servers (OpenAI, OpenRouter, vLLM) and Ollama send `{"error": ...}`.
  if (isObject(error)) return errorFrom(error.message ?? JSON.stringify(error), error.type ?? error.code);
  return errorFrom(error, undefined);
}

class Decoder implements ProviderDecoder, FormatContext {
  readonly stats: ProviderStats = { events: 0, ignoredEvents: 0, diagnostics: {} };
  provider: ProviderFormat | undefined;
  model: string | undefined;
  finishReason: string | undefined;
  usage: Usage | undefined;
  error: ProviderError | undefined;
  finished = false;
  /** Messages started so far (`startMessage`). */
  #messages = 0;

  readonly #sink: ProviderSink;
  readonly #framer: EventFramer;
  readonly #maxLength: number;
  readonly maxArgumentsLength: number;
  readonly #keepArguments: boolean;
  /** Whether the input may be a binary AWS event stream (`bedrock`, `auto`). */
  readonly #binaryAllowed: boolean;
  /** Text or binary, once the first piece of the body decided (see `bytes`). */
  #body = BODY_UNDECIDED;
  #binary: EventStreamFramer | undefined;
  #encoder: { encode(text: string): Uint8Array } | undefined;
  #format: WireFormat | undefined;
  #reader: FormatReader | undefined;
  #metadataChanged = false;
  #ended = false;

  // Stream state.
  #done = false;
  #afterDoneReported = false;
  #unrecognizedReported = false;
  #unreportedIgnored = 0;
  /** Where the event being decoded starts (for diagnostics raised deep inside its handling). */
  #decodingLine = 0;
  #decodingOffset = 0;
  /** Refusal text of the current message (chat `delta.refusal`, Responses `response.refusal.delta`). */
  #refusal = '';
  /** Its length: past REFUSAL_KEPT characters it is counted, not kept. */
  #refusalLength = 0;
  readonly #calls: CallState[] = [];
  readonly #callsByKey = new Map<string, CallState>();

  constructor(options: ProviderDecoderOptions, sink: ProviderSink) {
    checkOptionNames('createProviderDecoder', options, PROVIDER_DECODER_OPTIONS);
    if (!INPUTS.includes(options.input)) {
      throw new ConfigurationError(
        ConfigurationErrorCode.optionInvalid,
        `input must be one of ${INPUTS.map((i) => `'${i}'`).join(', ')}, got ${describeValue(options.input)}`,
      );
    }
    checkPositiveInteger('maxEventLength', options.maxEventLength, 'characters');
    checkPositiveInteger('maxArgumentsLength', options.maxArgumentsLength, 'characters');
    checkChoice('keepToolArguments', options.keepToolArguments, [true, false]);
    this.#sink = sink;
    this.#binaryAllowed = options.input === 'auto' || options.input === 'bedrock';
    if (options.input !== 'auto') this.#setFormat(wireFormat(options.input));
    this.#maxLength = options.maxEventLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.maxArgumentsLength = options.maxArgumentsLength ?? DEFAULT_MAX_ARGUMENTS_LENGTH;
    this.#keepArguments = options.keepToolArguments ?? true;
    this.#framer = new EventFramer(this.#maxLength, {
      event: (data, name, line, offset, final) => this.#event(data, name, line, offset, final),
      report: (reason, line, offset, text, message) => this.#diagnose(reason, line, offset, text, message),
    });
  }

  get complete(): boolean {
    return this.finished || this.#done;
  }

  get doneMarker(): boolean {
    return this.#done;
  }

  get toolCalls(): readonly ToolCall[] {
    return this.#calls
      .filter((c) => !c.dropped)
      .map((c) => ({
        key: c.key,
        index: c.index,
        ...(c.id === undefined ? {} : { id: c.id }),
        ...(c.name === undefined ? {} : { name: c.name }),
        arguments: c.pieces,
        complete: c.complete,
      }));
  }

  bytes(chunk: Uint8Array): boolean {
    if (this.#body === BODY_UNDECIDED) {
      if (!this.#binaryAllowed) {
        this.#body = BODY_TEXT;
      } else if (chunk.length > 0) {
        if (!looksBinary(chunk[0] as number)) {
          this.#body = BODY_TEXT;
        } else {
          this.#body = BODY_BINARY;
          if (this.#format === undefined) this.#setFormat(bedrock);
          this.#binary = new EventStreamFramer(this.#maxLength, {
            message: (headers, payload, frame, offset) => this.#frame(headers, payload, frame, offset),
            report: (reason, frame, offset, excerpt, message) =>
              this.#diagnose(reason, frame, offset, excerpt, message),
          });
          this.#flushMetadata();
        }
      }
    }
    if (this.#body !== BODY_BINARY) return false;
    if (!this.#ended) (this.#binary as EventStreamFramer).write(chunk);
    return true;
  }

  write(text: string): void {
    if (this.#ended) return;
    if (this.#body === BODY_BINARY) {
      this.#encoder ??= new (
        globalThis as unknown as { TextEncoder: new () => { encode(t: string): Uint8Array } }
      ).TextEncoder();
      this.bytes(this.#encoder.encode(text));
      return;
    }
    if (this.#body === BODY_UNDECIDED && text !== '') this.#body = BODY_TEXT;
    this.#framer.write(text);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const end = this.#binary === undefined ? this.#framer.end() : this.#binary.finish();
    this.reportRefusal();
    if (this.#unreportedIgnored > 0) {
      this.#diagnose(
        DiagnosticReason.unrecognized,
        end.line,
        end.offset,
        '',
        `${this.#unreportedIgnored} more event(s) of an unrecognised shape were ignored`,
      );
    }
    if (this.#format === undefined) {
      if (this.stats.events === 0) {
        this.#diagnose(DiagnosticReason.truncated, end.line, end.offset, '', 'the input holds no provider event');
      }
    } else if (!this.finished && this.error === undefined) {
      this.cut(`the stream ended before ${this.#reader?.endMarker ?? this.#format.endMarker}`, end.line, end.offset);
    } else {
      this.#cutOpenCalls(end.line, end.offset);
    }
    this.#flushMetadata();
  }

  // ---- Events ---------------------------------------------------------------------------

  #event(data: string, name: string | undefined, line: number, offset: number, final: boolean): void {
    this.#decodeEvent(data, name, { line, offset, data }, final);
    this.#flushMetadata();
  }

  #decodeEvent(data: string, name: string | undefined, at: EventAt, final: boolean): void {
    this.stats.events++;
    this.#decodingLine = at.line;
    this.#decodingOffset = at.offset;
    if (this.#done) {
      this.stats.ignoredEvents++;
      if (!this.#afterDoneReported) {
        this.#afterDoneReported = true;
        this.report(DiagnosticReason.syntax, at, 'event after [DONE] ignored (and any that follow)');
      }
      return;
    }
    if (data === '[DONE]' || (data.length < 16 && data.trim() === '[DONE]')) {
      this.#done = true;
      this.#reader?.done?.();
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch (error) {
      if (name === 'error') {
        this.providerError({ message: data }, at);
        return;
      }
      this.stats.ignoredEvents++;
      const why = (error as Error).message;
      if (final) this.report(DiagnosticReason.truncated, at, `the stream ended inside an event (${why})`);
      else this.report(DiagnosticReason.syntax, at, `event data is not JSON (${why}); skipped`);
      return;
    }
    this.#decodeObject(event, name, at);
  }

  /**
   * One binary event-stream frame: an `event` is `{"<:event-type>": payload}`, as the JSON form
   * has it; an `exception` (`:exception-type`, payload `{"message"}`) or an `error`
   * (`:error-code`, `:error-message`) is a provider error.
   */
  #frame(headers: Readonly<Record<string, string>>, payload: string, frame: number, offset: number): void {
    const at: EventAt = { line: frame, offset, data: payload };
    this.stats.events++;
    this.#decodingLine = frame;
    this.#decodingOffset = offset;
    const type = headers[':message-type'] ?? 'event';
    if (type === 'error') {
      this.providerError(
        errorFrom(headers[':error-message'] ?? (payload || 'error frame'), headers[':error-code']),
        at,
      );
    } else {
      let body: unknown;
      try {
        body = payload === '' ? {} : JSON.parse(payload);
      } catch (error) {
        body = undefined;
        if (type !== 'exception') {
          this.stats.ignoredEvents++;
          this.report(
            DiagnosticReason.syntax,
            at,
            `event-stream payload is not JSON (${(error as Error).message}); skipped`,
          );
        }
      }
      if (type === 'exception') {
        const message = isObject(body) ? (body.message ?? body.Message) : undefined;
        this.providerError(errorFrom(message ?? (payload || 'exception frame'), headers[':exception-type']), at);
      } else if (type !== 'event') {
        this.#unrecognized(at, `event-stream message type ${JSON.stringify(type)}`);
      } else if (body !== undefined) {
        const name = headers[':event-type'];
        if (name === undefined || !isObject(body))
          this.#unrecognized(at, 'event-stream event without an :event-type or an object payload');
        else this.#decodeObject({ [name]: body }, undefined, at);
      }
    }
    this.#flushMetadata();
  }

  #decodeObject(event: unknown, name: string | undefined, at: EventAt): void {
    if (!isObject(event)) {
      this.#unrecognized(at, 'event data is JSON but not an object');
      return;
    }
    const error = errorOf(event, name);
    if (error !== undefined) {
      this.providerError(error, at);
      return;
    }
    if (this.#format === undefined) {
      const format = detectFormat(event);
      if (format === undefined) {
        this.#unrecognized(at, `event of an unknown format; ${AUTO_RECOGNISES}`);
        return;
      }
      this.#setFormat(format);
    } else if (!this.#format.recognises(event)) {
      this.#unrecognized(at, `not an event of the ${this.#format.name} stream format`);
      return;
    }
    this.#reader?.event(event, at);
  }

  #setFormat(format: WireFormat): void {
    this.#format = format;
    this.#reader = format.create(this);
    this.provider = format.name;
    this.#metadataChanged = true;
  }

  #unrecognized(at: EventAt, message: string): void {
    this.stats.ignoredEvents++;
    if (this.#unrecognizedReported) {
      this.#unreportedIgnored++;
      return;
    }
    this.#unrecognizedReported = true;
    this.report(DiagnosticReason.unrecognized, at, `${message}; ignored`);
  }

  providerError(error: ProviderError, at: EventAt): void {
    this.error = error;
    this.setFinishReason('error');
    const code = error.code === undefined ? '' : ` (${error.code})`;
    this.report(DiagnosticReason.providerError, at, `provider error${code}: ${error.message}`);
  }

  // ---- Shared delivery (the context of format modules) ------------------------------------

  emitText(delta: string | undefined): void {
    if (delta !== undefined && delta !== '') this.#sink.text(delta);
  }

  emitReasoning(delta: string | undefined): void {
    if (delta !== undefined && delta !== '') this.#sink.reasoning?.(delta);
  }

  findCall(key: string): CallState | undefined {
    return this.#callsByKey.get(key);
  }

  call(key: string, index: number, id: string | undefined, name: string | undefined): CallState {
    let call = this.#callsByKey.get(key);
    if (call === undefined) {
      call = {
        key,
        index,
        id: undefined,
        name: undefined,
        pieces: '',
        length: 0,
        blank: true,
        dropped: false,
        initial: undefined,
        complete: false,
        reported: false,
        lateReported: false,
      };
      this.#calls.push(call);
      this.#callsByKey.set(key, call);
    }
    // Later chunks of a call may repeat an empty id or name (Mistral, Qwen): keep the first real one.
    if (call.id === undefined && id !== undefined && id !== '') call.id = id;
    if (call.name === undefined && name !== undefined && name !== '') call.name = name;
    return call;
  }

  emitArguments(call: CallState, delta: string | undefined): void {
    if (delta === undefined || delta === '' || call.dropped) return;
    if (call.complete) {
      // The provider closed this call already: a late piece cannot join arguments handed out as complete.
      if (!call.lateReported) {
        call.lateReported = true;
        this.#diagnose(
          DiagnosticReason.unrecognized,
          this.#decodingLine,
          this.#decodingOffset,
          delta,
          `tool call ${call.key} received arguments after the provider closed it; ignored`,
        );
      }
      return;
    }
    if (delta.length > this.maxArgumentsLength - call.length) {
      this.dropCall(call, call.pieces === '' ? delta : call.pieces);
      return;
    }
    if (this.#keepArguments) call.pieces += delta;
    call.length += delta.length;
    if (call.blank && delta.trim() !== '') call.blank = false;
    this.#sink.toolArguments?.(call.key, delta, infoOf(call));
  }

  /**
   * A call whose arguments would grow past `maxArgumentsLength`: reported once, its text
   * forgotten (so memory stays bounded however long the provider goes on), and no later piece
   * delivered, so a consumer never sees arguments cut at an arbitrary character as complete.
   */
  dropCall(call: CallState, text: string): void {
    if (call.dropped) return;
    // The start of the arguments (what excerptAround shows), not a copy of megabytes of them.
    const excerpt = text.slice(0, 200);
    call.dropped = true;
    call.reported = true;
    call.pieces = '';
    const info = infoOf(call);
    countDiagnostic(this.stats.diagnostics, DiagnosticReason.tooLong);
    this.#sink.diagnostic({
      reason: DiagnosticReason.tooLong,
      line: this.#decodingLine,
      offset: this.#decodingOffset,
      excerpt: excerptAround(excerpt, 0),
      message: `tool call ${call.index}${call.name === undefined ? '' : ` (${quoteInput(call.name, 60)})`}: its arguments are longer than maxArgumentsLength (${this.maxArgumentsLength} characters); the call is dropped`,
      toolCall: info,
    });
    this.#sink.toolCallDropped?.(call.key, info);
  }

  close(call: CallState): void {
    if (call.complete || call.dropped) return;
    if (call.blank) {
      const initial = call.initial !== undefined && call.initial.trim() !== '' ? call.initial : '{}';
      this.emitArguments(call, initial);
    }
    call.complete = true;
  }

  finishSegment(): void {
    this.finished = true;
    for (const call of this.#calls) this.close(call);
    this.reportRefusal();
  }

  refuse(text: string): void {
    if (this.#refusal.length < REFUSAL_KEPT) this.#refusal += text.slice(0, REFUSAL_KEPT - this.#refusal.length);
    this.#refusalLength += text.length;
  }

  /**
   * A refusal (chat `delta.refusal`, Responses `response.refusal.delta`) is not answer text, but
   * dropping it would leave an empty answer with no reason: it is reported once the message ends.
   */
  reportRefusal(): void {
    if (this.#refusalLength === 0) return;
    let text = this.#refusal;
    const length = this.#refusalLength;
    this.#refusal = '';
    this.#refusalLength = 0;
    if (length > text.length) {
      // The message quotes the start of a long refusal and says how long it was.
      const code = text.charCodeAt(text.length - 1);
      if (code >= 0xd800 && code <= 0xdbff) text = text.slice(0, -1);
      text = `${text}… (${length} characters)`;
    }
    this.#diagnose(
      DiagnosticReason.providerError,
      this.#decodingLine,
      this.#decodingOffset,
      text,
      `the model refused: ${text}`,
    );
  }

  startMessage(startMarker: string, endMarker: string, at: EventAt): number {
    if (this.#messages > 0 && !this.finished) {
      this.cut(
        `message ${this.#messages} ended without ${endMarker}: a new ${startMarker} followed`,
        at.line,
        at.offset,
      );
    }
    this.finished = false;
    return ++this.#messages;
  }

  cut(message: string, line: number, offset: number): void {
    const open = this.#openCalls();
    const calls = open.map((c) => `${c.key}${c.name === undefined ? '' : ` (${c.name})`} after ${c.length} characters`);
    const text = calls.length === 0 ? message : `${message}; tool call(s) cut off: ${calls.join(', ')}`;
    this.#diagnose(DiagnosticReason.truncated, line, offset, open[0]?.pieces ?? '', text, open[0]?.pieces.length ?? 0);
  }

  /** Reports tool calls still open once the stream is otherwise complete. */
  #cutOpenCalls(line: number, offset: number): void {
    if (this.#calls.some((c) => !c.complete && !c.reported))
      this.cut('the stream ended with tool calls open', line, offset);
  }

  #openCalls(): CallState[] {
    const open = this.#calls.filter((c) => !c.complete && !c.reported);
    for (const c of open) c.reported = true;
    return open;
  }

  // ---- Metadata and diagnostics ---------------------------------------------------------

  setModel(model: unknown): void {
    if (typeof model === 'string' && model !== '' && model !== this.model) {
      this.model = model;
      this.#metadataChanged = true;
    }
  }

  setFinishReason(reason: string | undefined): void {
    if (reason !== this.finishReason) {
      this.finishReason = reason;
      this.#metadataChanged = true;
    }
  }

  setUsage(usage: Usage | undefined): void {
    if (usage !== undefined && Object.keys(usage).length === 0) usage = undefined;
    if (!sameUsage(usage, this.usage)) {
      this.usage = usage;
      this.#metadataChanged = true;
    }
  }

  #flushMetadata(): void {
    if (!this.#metadataChanged) return;
    this.#metadataChanged = false;
    this.#sink.metadata?.({
      ...(this.provider === undefined ? {} : { provider: this.provider }),
      ...(this.model === undefined ? {} : { model: this.model }),
      ...(this.finishReason === undefined ? {} : { finishReason: this.finishReason }),
      ...(this.usage === undefined ? {} : { usage: this.usage }),
    });
  }

  report(reason: Diagnostic['reason'], at: EventAt, message: string): void {
    this.#diagnose(reason, at.line, at.offset, at.data, message);
  }

  #diagnose(
    reason: Diagnostic['reason'],
    line: number,
    offset: number,
    text: string,
    message: string,
    excerptAt = 0,
  ): void {
    countDiagnostic(this.stats.diagnostics, reason);
    this.#sink.diagnostic({ reason, line, offset, excerpt: excerptAround(text, excerptAt), message });
  }
}

/** What the sink is told about a call. */
function infoOf(call: CallState): ToolCallInfo {
  return {
    index: call.index,
    ...(call.id === undefined ? {} : { id: call.id }),
    ...(call.name === undefined ? {} : { name: call.name }),
  };
}

/** Creates a push-based provider stream decoder. Throws ConfigurationError for an invalid option. */
export function createProviderDecoder(options: ProviderDecoderOptions, sink: ProviderSink): ProviderDecoder {
  return new Decoder(options, sink);
}

// ---- option names (the options policy: options/option-checks.ts) ----------------------------

/** The options `createProviderDecoder` takes. */
export const PROVIDER_DECODER_OPTIONS = /* @__PURE__ */ optionNames<ProviderDecoderOptions>()([
  'input',
  'maxEventLength',
  'maxArgumentsLength',
  'keepToolArguments',
]);

/** The options `createProviderStream` takes. */
export const PROVIDER_STREAM_OPTIONS = /* @__PURE__ */ optionNames<
  ProviderDecoderOptions & StreamOptions & { onToolArguments?: unknown; onReasoning?: unknown; onMetadata?: unknown }
>()([
  'input',
  'maxEventLength',
  'maxArgumentsLength',
  'keepToolArguments',
  'highWaterMark',
  'onDiagnostic',
  'onToolArguments',
  'onReasoning',
  'onMetadata',
]);
