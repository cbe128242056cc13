/**
 * Provider stream decoder: the HTTP body a model server streams, in; the answer text, the
 * tool-call argument pieces, the reasoning and what the provider says about the answer, out.
 *
 * Contract: `write(text)` consumes the next piece of the decoded body (split anywhere) and
 * synchronously delivers what each event it completes carries; `end()` delivers what the end
 * of the body decides (an unterminated last event, a stream cut before its end marker). The
 * sink receives, in input order: answer text (`text`), tool-call argument pieces
 * (`toolArguments`), reasoning (`reasoning`), a metadata snapshot whenever the model, finish
 * reason, usage or detected provider changed (`metadata`, once per event at most), and
 * diagnostics. Bad input never throws: only a broken configuration does, from the factory.
 *
 * Wire formats (`input`):
 * - `openai`: Chat Completions SSE, as OpenAI, vLLM, llama.cpp, Ollama's /v1, LM Studio,
 *   OpenRouter, DeepSeek, Mistral... stream it (a server that ignored `stream: true` and sent
 *   one `choices[0].message` is read the same way). Text: `choices[0].delta.content` (legacy
 *   completions: `choices[0].text`). Tool calls: `choices[0].delta.tool_calls[j]`, one call per
 *   `index` (key `choice0.tool_call<index>`, or `…<index>.<id>` when a server sends every
 *   parallel call under one index with different ids; object arguments are serialized;
 *   legacy `function_call`: `choice0.function_call`). A piece for a call already closed is
 *   reported (`unrecognized`), never appended to arguments handed out as complete.
 *   Reasoning: `delta.reasoning_content` / `delta.reasoning`. Only choice 0 is decoded; another
 *   choice is reported once. Ends with a `finish_reason` or `data: [DONE]`.
 * - `openai-responses`: Responses API SSE. Text: `response.output_text.delta`. Tool calls:
 *   `response.function_call_arguments.delta`, keyed by `item_id` (name and call id from
 *   `response.output_item.added`). Reasoning: `response.reasoning_summary_text.delta`,
 *   `response.reasoning_text.delta`. Ends with `response.completed` / `.incomplete` / `.failed`.
 * - `anthropic`: Messages API SSE. Text: `content_block_delta` with `text_delta`. Tool calls:
 *   `input_json_delta.partial_json` per `*tool_use` content block, keyed `message<n>.block<index>`
 *   because block indexes restart at every `message_start` (`n` counts them from 1). Tool uses
 *   that arrive complete (`input` in `content_block_start`, or content in `message_start`) are
 *   delivered as one piece. Reasoning: `thinking_delta`. Ends with `message_stop`.
 * - `ollama`: NDJSON from /api/chat (`message.content`, `message.thinking`,
 *   `message.tool_calls` with complete arguments, one piece each, keys `tool_call<n>`) and
 *   /api/generate (`response`, `thinking`). Ends with `"done": true`.
 * - `auto`: the framing (below) from the first non-blank line, then the format from the first
 *   event that one of the four recognises. Bedrock, Cohere and Google streams are recognised
 *   only to be reported by name: they are not decoded.
 *
 * Framing: a body whose first non-blank line starts with `{` is JSON lines (one event per
 * line); any other body is SSE. SSE is parsed by `eventsource-parser` (field rules, multi-line
 * `data:`, `event:`, comments such as `: keep-alive`); the decoder hands it one line at a time
 * so that every event knows the line and offset where it starts (the parser reports none).
 * Lines end at `\n`, `\r\n` or a lone `\r` (the SSE rule, used for JSON lines too). Departure
 * from the SSE standard, on purpose: an event left unterminated at the end of the body is
 * dispatched, not dropped (if its data is cut, that is reported as `truncated`). `data: [DONE]`
 * ends the stream: later events are reported once and ignored.
 *
 * Tool calls: `toolArguments(key, delta, info)` delivers the argument pieces as they arrive
 * (empty pieces are not delivered). When the provider closes a call (Anthropic
 * `content_block_stop`, Responses `...arguments.done` / `output_item.done`, a chat
 * `finish_reason` or `[DONE]`, every Ollama call) whose pieces are empty or blank, the decoder
 * delivers one more piece: the complete input the provider gave up front (serialized with
 * `JSON.stringify`), or else `"{}"` — Anthropic streams a no-argument call as one `""` piece.
 * So for every closed call the pieces concatenate to `toolCalls[i].arguments`, which always
 * parses when the provider sent valid JSON. A call never closed keeps what arrived
 * (`complete: false`, reported as `truncated`), even `""`: a cut call is not read as `{}`.
 *
 * Metadata describes the last message of the stream: a new Anthropic `message_start` or
 * Responses `response.created` replaces the finish reason and usage of the previous one (a
 * stream holding several messages, as server-side tool loops send, reports the final one).
 * `finishReason` is the provider's own word (`stop`, `length`, `tool_calls`, `end_turn`,
 * `max_tokens`, Responses `completed` or the `incomplete_details.reason`, Ollama `done_reason`),
 * and `error` after a provider error. `usage` is normalised: `inputTokens` (OpenAI
 * `prompt_tokens`, Responses `input_tokens`, Anthropic `input_tokens` plus cache creation and
 * cache read tokens, Ollama `prompt_eval_count`), `outputTokens` (`completion_tokens`,
 * `output_tokens`, `eval_count`), `totalTokens` (as sent, or their sum). `provider` is the wire
 * format decoded (`auto` fills it in when it recognises one).
 *
 * Diagnostics (the core shape; `line` and `offset` are where the event starts, or the end of
 * the body for what the end decides; `excerpt` is the event's data, or a cut call's arguments):
 * - `syntax`: event data that is not JSON (the stream goes on); data after `[DONE]`.
 * - `unrecognized`: JSON that is not an event of the format (not an object, an unknown shape,
 *   a Bedrock/Cohere/Google event under `auto`, a second choice) — reported the first time,
 *   and the number of further ignored events once at the end.
 * - `prose`: a line in an SSE body that is not an SSE field.
 * - `provider-error`: an error the provider sent (an `error` event or object, `response.failed`),
 *   or a refusal (chat `delta.refusal`, Responses `response.refusal.delta`), whose text is not
 *   answer text.
 * - `truncated`: a message cut by a new one; a body that ended inside an event or before the
 *   format's end marker, naming every tool call left open.
 * - `too-long`: a line or event longer than `maxEventLength`, discarded whole with one
 *   diagnostic where it starts (excerpt: its first characters). Under SSE the unit is the event:
 *   a line too long, or data lines that fit one by one but not joined, drop every line up to the
 *   blank line that ends the event, so no piece of it is ever dispatched as an event of its own.
 *   Under JSON lines the unit is the line.
 *
 * Invariants (tests in packages/core/test/provider-decoder.test.ts):
 * 1. Chunking does not matter: any split of the same body gives the same sink calls in the
 *    same order, the same diagnostics (offsets come from the text) and the same metadata.
 * 2. Nothing is lost silently: every event is decoded, ignored by design (keep-alives, `ping`,
 *    lifecycle events such as `response.in_progress`), or reported; `stats.ignoredEvents`
 *    counts the reported ones.
 * 3. Bounded resources: buffered text is at most one line (and one SSE event) of
 *    `maxEventLength` characters; once a line or event is known to be too long, the rest of it
 *    is counted, not kept. Tool-call arguments are kept for `toolCalls` (they are output).
 *    Work is linear in the body however small the chunks.
 */

import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from 'eventsource-parser';
import { type Diagnostic, DiagnosticReason, excerptAround } from './diagnostics.js';
import { checkPositiveInteger, countDiagnostic, type DiagnosticCounts, type Engine } from './engine.js';
import { DEFAULT_MAX_LINE_LENGTH } from './jsonl-decoder.js';
import { ConfigurationError, ConfigurationErrorCode } from './schema-validator.js';

/** The wire formats the decoder reads. */
export const ProviderFormat = {
  openai: 'openai',
  openaiResponses: 'openai-responses',
  anthropic: 'anthropic',
  ollama: 'ollama',
} as const;
export type ProviderFormat = (typeof ProviderFormat)[keyof typeof ProviderFormat];

export type ProviderInput = ProviderFormat | 'auto';

export interface ProviderDecoderOptions {
  /** The body's wire format, or `'auto'` to detect it from the first lines and events. */
  readonly input: ProviderInput;
  /**
   * Longest line, and longest SSE event data, kept, in UTF-16 code units; a longer one is
   * discarded with a `too-long` diagnostic. Default 8 MiB (8_388_608).
   */
  readonly maxEventLength?: number;
}

/** Token counts, normalised across providers (a field is absent when the provider did not send it). */
export type Usage = {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
};

export type ProviderMetadata = {
  /** The wire format decoded (under `auto`, once recognised). */
  readonly provider?: ProviderFormat;
  readonly model?: string;
  readonly finishReason?: string;
  readonly usage?: Usage;
};

export interface ToolCallInfo {
  /** The provider's index: chat `tool_calls[j].index`, Anthropic block index, Responses `output_index`. */
  readonly index: number;
  /** The provider's call id (`call_...`, `toolu_...`), once known. */
  readonly id?: string;
  /** The tool's name, once known. */
  readonly name?: string;
}

export interface ToolCall extends ToolCallInfo {
  /** The key the argument pieces were delivered under. */
  readonly key: string;
  /** The argument pieces concatenated (see the tool-call rule in the file header). */
  readonly arguments: string;
  /** Whether the provider closed the call; `false` for a call the stream cut off. */
  readonly complete: boolean;
}

/** An error the provider reported inside the stream. */
export interface ProviderError {
  readonly message: string;
  /** The provider's error type or code (`overloaded_error`, `server_error`...), when given. */
  readonly code?: string;
}

export interface ProviderSink {
  /** A piece of the answer text (never empty). */
  text(delta: string): void;
  diagnostic(diagnostic: Diagnostic): void;
  /** A piece of a tool call's argument JSON (never empty), under the call's key. */
  toolArguments?(key: string, delta: string, info: ToolCallInfo): void;
  /** A piece of reasoning text (DeepSeek `reasoning_content`, Anthropic thinking...): not answer text. */
  reasoning?(delta: string): void;
  /** The metadata, each time an event changed it. */
  metadata?(metadata: ProviderMetadata): void;
}

export interface ProviderStats {
  /** SSE events dispatched, or JSON lines read. */
  events: number;
  /** Events that carried nothing usable and were reported (not JSON, unknown shape, after `[DONE]`). */
  ignoredEvents: number;
  /** Diagnostics by reason. */
  diagnostics: DiagnosticCounts;
}

export interface ProviderDecoder extends Engine<ProviderStats> {
  /** The wire format decoded: the `input` option, or what `auto` recognised (until then `undefined`). */
  readonly provider: ProviderFormat | undefined;
  /** The model the provider named, once it did. */
  readonly model: string | undefined;
  /** The provider's finish reason for the last message, once sent (see the header). */
  readonly finishReason: string | undefined;
  /** The normalised token counts of the last message, once sent. */
  readonly usage: Usage | undefined;
  /** Every tool call seen, in order of first appearance; final after `end()`. */
  readonly toolCalls: readonly ToolCall[];
  /** The last error the provider reported in the stream, if any. */
  readonly error: ProviderError | undefined;
  /**
   * True once the stream's end marker arrived (`[DONE]`, a chat `finish_reason`, Anthropic
   * `message_stop`, Responses `response.completed`/`.incomplete`/`.failed`, Ollama `done`):
   * after `end()`, false means the body was cut before the answer ended.
   */
  readonly complete: boolean;
  /** True once `data: [DONE]` arrived: nothing after it is decoded, so a client may stop reading. */
  readonly closed: boolean;
}

/** The decoder's readable state, as the Node and Web adapters expose it on their streams. */
export const PROVIDER_DECODER_STATE = [
  'provider',
  'model',
  'finishReason',
  'usage',
  'toolCalls',
  'error',
  'complete',
  'closed',
  'stats',
] as const;

const INPUTS: readonly string[] = ['openai', 'openai-responses', 'anthropic', 'ollama', 'auto'];

const ANTHROPIC_EVENTS = new Set([
  'message_start',
  'message_delta',
  'message_stop',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'ping',
]);

const END_MARKER: Record<ProviderFormat, string> = {
  openai: 'a finish_reason or [DONE]',
  'openai-responses': 'response.completed',
  anthropic: 'message_stop',
  ollama: '"done": true',
};

const BEDROCK_KEYS = ['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop'];
const COHERE_TYPE = /^(?:message|content|tool-plan|tool-call|citation)-(?:start|delta|end)$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function usageOf(input: number | undefined, output: number | undefined, total: number | undefined): Usage {
  const sum = total ?? (input !== undefined && output !== undefined ? input + output : undefined);
  return {
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output }),
    ...(sum === undefined ? {} : { totalTokens: sum }),
  };
}

function sameUsage(a: Usage | undefined, b: Usage | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.inputTokens === b.inputTokens && a.outputTokens === b.outputTokens && a.totalTokens === b.totalTokens;
}

function firstNonSpace(s: string): number {
  let i = 0;
  while (i < s.length && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09)) i++;
  return i;
}

/** The name of a stream format that is recognised only to be reported. */
function unsupportedFormat(event: Json): string | undefined {
  if (Array.isArray(event.candidates) || isObject(event.usageMetadata)) return 'Google Gemini';
  if (BEDROCK_KEYS.some((k) => k in event)) return 'Amazon Bedrock ConverseStream';
  const type = str(event.type);
  if (type !== undefined && COHERE_TYPE.test(type)) return 'Cohere v2 chat';
  return undefined;
}

/** Whether `event` is an event of `format` (the same test picks the format under `auto`). */
function recognises(format: ProviderFormat, event: Json): boolean {
  switch (format) {
    case 'openai':
      return Array.isArray(event.choices) || isObject(event.usage);
    case 'openai-responses':
      return str(event.type)?.startsWith('response.') === true;
    case 'anthropic':
      return ANTHROPIC_EVENTS.has(str(event.type) ?? '');
    case 'ollama':
      return typeof event.done === 'boolean' || isObject(event.message) || typeof event.response === 'string';
    default: {
      const never: never = format;
      return never;
    }
  }
}

const DETECTION_ORDER: readonly ProviderFormat[] = ['openai', 'openai-responses', 'anthropic', 'ollama'];

interface CallState {
  readonly key: string;
  readonly index: number;
  id: string | undefined;
  name: string | undefined;
  /** The pieces delivered so far, concatenated. */
  pieces: string;
  /** Complete arguments the provider gave without pieces. */
  initial: string | undefined;
  complete: boolean;
  /** A `truncated` diagnostic already named this call. */
  reported: boolean;
  /** A piece after the call closed was reported. */
  lateReported: boolean;
}

const FRAMING_UNKNOWN = 0;
const FRAMING_SSE = 1;
const FRAMING_JSON_LINES = 2;
const CR = 0x0d;
const LF = 0x0a;
/** Characters of a discarded line or event kept for its diagnostic's excerpt (quoted at most this long). */
const EXCERPT_HEAD = 200;

class Decoder implements ProviderDecoder {
  readonly stats: ProviderStats = { events: 0, ignoredEvents: 0, diagnostics: {} };
  provider: ProviderFormat | undefined;
  model: string | undefined;
  finishReason: string | undefined;
  usage: Usage | undefined;
  error: ProviderError | undefined;

  private readonly sink: ProviderSink;
  private readonly maxLength: number;
  private readonly parser: EventSourceParser;
  private metadataChanged = false;

  // Line framing.
  private framing = FRAMING_UNKNOWN;
  private atStart = true;
  private ended = false;
  private pending = '';
  private discarding = false; // the line being framed is too long: its text is counted, not kept
  private discardedLength = 0;
  private discardedHead = ''; // the first EXCERPT_HEAD characters of a discarded line
  /**
   * An SSE event too long to keep was reported: its lines are counted, not kept, up to the blank
   * line that ends it, so that no piece of it is dispatched as an event of its own.
   */
  private skippingEvent = false;
  private skipLineFeed = false;
  private lineNumber = 0; // lines completed
  private lineStart = 0; // offset of the line being framed
  private lastLineOpen = false; // the last line completed had no line break (the end of input)

  // SSE event being assembled, and the one being dispatched.
  private eventLine = 0;
  private eventOffset = 0;
  private eventHead = ''; // the first EXCERPT_HEAD characters of the event's lines, for a too-long excerpt
  private currentLine = 0;
  private currentOffset = 0;
  private dispatchLine = 0;
  private dispatchOffset = 0;
  private atEnd = false;
  private parserOverflow = false;

  // Stream state.
  private done = false;
  private afterDoneReported = false;
  private unrecognizedReported = false;
  private unreportedIgnored = 0;
  private finished = false;
  /** Where the event being decoded starts (for diagnostics raised deep inside its handling). */
  private decodingLine = 0;
  private decodingOffset = 0;
  /** Refusal text of the current message (chat `delta.refusal`, Responses `response.refusal.delta`). */
  private refusal = '';
  /** The key of the latest chat tool call per index. */
  private readonly chatCallKeys = new Map<number, string>();

  get complete(): boolean {
    return this.finished || this.done;
  }

  get closed(): boolean {
    return this.done;
  }
  private segments = 0; // Anthropic messages / Responses responses started
  private otherChoiceReported = false;
  private readonly calls: CallState[] = [];
  private readonly callsByKey = new Map<string, CallState>();
  private readonly blocks = new Map<number, CallState>(); // Anthropic tool blocks of the current message
  private anthropicUsage: Record<string, number> = {};
  private ollamaCalls = 0;

  constructor(options: ProviderDecoderOptions, sink: ProviderSink) {
    if (!INPUTS.includes(options.input)) {
      throw new ConfigurationError(
        ConfigurationErrorCode.optionInvalid,
        `input must be one of ${INPUTS.map((i) => `'${i}'`).join(', ')}, got ${String(options.input)}`,
      );
    }
    checkPositiveInteger('maxEventLength', options.maxEventLength, 'characters');
    this.sink = sink;
    this.maxLength = options.maxEventLength ?? DEFAULT_MAX_LINE_LENGTH;
    if (options.input !== 'auto') this.setProvider(options.input);
    this.parser = createParser({
      onEvent: (event) => this.sseEvent(event),
      onError: (error) => this.sseError(error),
      maxBufferSize: this.maxLength,
    });
  }

  get toolCalls(): readonly ToolCall[] {
    return this.calls.map((c) => ({
      key: c.key,
      index: c.index,
      ...(c.id === undefined ? {} : { id: c.id }),
      ...(c.name === undefined ? {} : { name: c.name }),
      arguments: c.pieces,
      complete: c.complete,
    }));
  }

  // ---- Framing --------------------------------------------------------------------------

  write(text: string): void {
    if (this.ended) return;
    if (this.atStart && text.length > 0) {
      this.atStart = false;
      // A byte-order mark is encoding metadata, not content (TextDecoder drops it the same way).
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const n = text.length;
    let i = 0;
    if (this.skipLineFeed && n > 0) {
      // The second half of a `\r\n` split between chunks.
      this.skipLineFeed = false;
      if (text.charCodeAt(0) === LF) {
        i = 1;
        this.lineStart++;
      }
    }
    // Each search result is kept until passed, so every character is searched once per kind.
    let cr = text.indexOf('\r', i);
    let lf = text.indexOf('\n', i);
    while (i < n) {
      if (cr !== -1 && cr < i) cr = text.indexOf('\r', i);
      if (lf !== -1 && lf < i) lf = text.indexOf('\n', i);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      let terminator = 1;
      if (text.charCodeAt(end) === CR) {
        if (end + 1 < n) {
          if (text.charCodeAt(end + 1) === LF) terminator = 2;
        } else {
          this.skipLineFeed = true;
        }
      }
      this.completeLine(text.slice(i, end), terminator, false);
      i = end + terminator;
    }
    if (i < n) this.append(i === 0 ? text : text.slice(i));
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.skipLineFeed = false;
    if (this.discarding || this.pending !== '' || this.discardedLength > 0) this.completeLine('', 0, true);
    // A discarded event cut by the end of the body was reported when it was discarded.
    this.skippingEvent = false;
    // The end of input is on the last line if it had no line break, else on the (empty) next one.
    const endLine = this.lastLineOpen ? this.lineNumber : this.lineNumber + 1;
    if (this.framing === FRAMING_SSE && this.eventLine !== 0) {
      // The last event had no blank line after it: dispatch it anyway (see the header).
      this.atEnd = true;
      this.dispatchLine = this.eventLine;
      this.dispatchOffset = this.eventOffset;
      this.eventLine = 0;
      this.parser.feed('\n');
      this.atEnd = false;
    }
    this.reportRefusal();
    if (this.unreportedIgnored > 0) {
      this.report(
        DiagnosticReason.unrecognized,
        endLine,
        this.lineStart,
        '',
        `${this.unreportedIgnored} more event(s) of an unrecognised shape were ignored`,
      );
    }
    if (this.provider === undefined) {
      if (this.stats.events === 0) {
        this.report(DiagnosticReason.truncated, endLine, this.lineStart, '', 'the input holds no provider event');
      }
    } else if (!this.finished && this.error === undefined) {
      this.cut(`the stream ended before ${END_MARKER[this.provider]}`, endLine, this.lineStart);
    } else {
      this.cutOpenCalls(endLine, this.lineStart);
    }
    this.flushMetadata();
  }

  /** Buffers text of the line being framed (no line break in `text`). */
  private append(text: string): void {
    if (this.discarding || this.skippingEvent) {
      // Memory stays bounded: past the limit, a line's text is counted and let go.
      this.discardedLength += text.length;
    } else if (this.pending.length + text.length > this.maxLength) {
      this.discarding = true;
      // The head is the same however the line was chunked: the pending text holds all of it.
      this.discardedHead =
        this.pending.length >= EXCERPT_HEAD
          ? this.pending.slice(0, EXCERPT_HEAD)
          : this.pending + text.slice(0, EXCERPT_HEAD - this.pending.length);
      this.discardedLength = this.pending.length + text.length;
      this.pending = '';
    } else {
      this.pending += text;
    }
  }

  private completeLine(piece: string, terminator: number, final: boolean): void {
    const lineNo = ++this.lineNumber;
    const offset = this.lineStart;
    let length: number;
    if (this.skippingEvent) {
      length = this.discardedLength + piece.length;
      this.discardedLength = 0;
      // The blank line that ends the discarded event: decoding resumes with the next line.
      if (length === 0) this.skippingEvent = false;
    } else if (this.discarding) {
      length = this.discardedLength + piece.length;
      const head = this.discardedHead;
      this.discarding = false;
      this.discardedLength = 0;
      this.discardedHead = '';
      this.tooLong(head, lineNo, offset, length);
    } else {
      const line = this.pending === '' ? piece : this.pending + piece;
      this.pending = '';
      length = line.length;
      if (length > this.maxLength) this.tooLong(line.slice(0, EXCERPT_HEAD), lineNo, offset, length);
      else this.line(line, lineNo, offset, final);
    }
    this.lineStart = offset + length + terminator;
    this.lastLineOpen = terminator === 0;
  }

  /** A line longer than the limit: under SSE its whole event goes, under JSON lines the line. */
  private tooLong(head: string, lineNo: number, offset: number, length: number): void {
    if (this.framing === FRAMING_UNKNOWN) {
      // The head decides the framing as the whole line would have (its first non-blank character).
      const i = firstNonSpace(head);
      if (i < head.length) this.framing = head.charCodeAt(i) === 0x7b ? FRAMING_JSON_LINES : FRAMING_SSE;
    }
    if (this.framing === FRAMING_SSE) {
      if (this.eventLine === 0) {
        this.eventLine = lineNo;
        this.eventOffset = offset;
        this.eventHead = head;
      }
      this.discardEvent(`its line ${lineNo} alone has ${length} characters`);
      return;
    }
    this.report(
      DiagnosticReason.tooLong,
      lineNo,
      offset,
      head,
      `line of ${length} characters is longer than maxEventLength (${this.maxLength} characters); discarded`,
    );
  }

  /**
   * Reports the SSE event being assembled as too long, once, where it starts, and drops all of
   * it: what the parser holds now, and every line up to the blank line that ends the event.
   */
  private discardEvent(why: string): void {
    this.report(
      DiagnosticReason.tooLong,
      this.eventLine,
      this.eventOffset,
      this.eventHead,
      `SSE event longer than maxEventLength (${this.maxLength} characters), ${why}; discarded up to the blank line that ends it`,
    );
    this.parser.reset();
    this.eventLine = 0;
    this.eventHead = '';
    this.skippingEvent = true;
  }

  private line(line: string, lineNo: number, offset: number, final: boolean): void {
    if (this.framing === FRAMING_UNKNOWN) {
      const i = firstNonSpace(line);
      if (i === line.length) return;
      this.framing = line.charCodeAt(i) === 0x7b ? FRAMING_JSON_LINES : FRAMING_SSE;
    }
    if (this.framing === FRAMING_JSON_LINES) {
      if (firstNonSpace(line) === line.length) return;
      this.event(line, undefined, lineNo, offset, final);
      return;
    }
    if (line === '') {
      if (this.eventLine === 0) return;
      this.dispatchLine = this.eventLine;
      this.dispatchOffset = this.eventOffset;
      this.eventLine = 0;
    } else {
      if (this.eventLine === 0) {
        this.eventLine = lineNo;
        this.eventOffset = offset;
        this.eventHead = line.slice(0, EXCERPT_HEAD);
      } else if (this.eventHead.length < EXCERPT_HEAD) {
        this.eventHead += `\n${line.slice(0, EXCERPT_HEAD - this.eventHead.length - 1)}`;
      }
      this.currentLine = lineNo;
      this.currentOffset = offset;
    }
    this.parser.feed(`${line}\n`);
    if (this.parserOverflow) {
      this.parserOverflow = false;
      // Every line fits but the data joined does not: the rest of the event must not become one.
      this.discardEvent('its data lines joined');
    }
  }

  private sseEvent(message: EventSourceMessage): void {
    this.event(message.data, message.event, this.dispatchLine, this.dispatchOffset, this.atEnd);
  }

  private sseError(error: ParseError): void {
    if (error.type === 'max-buffer-size-exceeded') {
      // Reported by the line that caused it, once the parser has returned (see `line`).
      this.parserOverflow = true;
    } else if (error.type === 'unknown-field') {
      this.report(
        DiagnosticReason.prose,
        this.currentLine,
        this.currentOffset,
        error.line ?? '',
        'not an SSE line (data:, event:, id:, retry: or a : comment); ignored',
      );
    }
    // An invalid `retry:` value only concerns reconnection, which a decoder does not do.
  }

  // ---- Events ---------------------------------------------------------------------------

  private event(data: string, name: string | undefined, line: number, offset: number, final: boolean): void {
    this.decodeEvent(data, name, line, offset, final);
    this.flushMetadata();
  }

  private decodeEvent(data: string, name: string | undefined, line: number, offset: number, final: boolean): void {
    this.stats.events++;
    this.decodingLine = line;
    this.decodingOffset = offset;
    if (this.done) {
      this.stats.ignoredEvents++;
      if (!this.afterDoneReported) {
        this.afterDoneReported = true;
        this.report(DiagnosticReason.syntax, line, offset, data, 'event after [DONE] ignored (and any that follow)');
      }
      return;
    }
    if (data === '[DONE]' || (data.length < 16 && data.trim() === '[DONE]')) {
      this.done = true;
      if (this.provider === 'openai') this.finishSegment();
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch (error) {
      if (name === 'error') {
        this.providerError({ message: data }, line, offset, data);
        return;
      }
      this.stats.ignoredEvents++;
      const why = (error as Error).message;
      if (final) {
        this.report(DiagnosticReason.truncated, line, offset, data, `the stream ended inside an event (${why})`);
      } else {
        this.report(DiagnosticReason.syntax, line, offset, data, `event data is not JSON (${why}); skipped`);
      }
      return;
    }
    if (!isObject(event)) {
      this.unrecognized(line, offset, data, 'event data is JSON but not an object');
      return;
    }
    const error = errorOf(event, name);
    if (error !== undefined) {
      this.providerError(error, line, offset, data);
      return;
    }
    let format = this.provider;
    if (format === undefined) {
      format = DETECTION_ORDER.find((f) => recognises(f, event));
      if (format === undefined) {
        const other = unsupportedFormat(event);
        this.unrecognized(
          line,
          offset,
          data,
          other === undefined
            ? 'event of an unknown format; auto recognises OpenAI chat completions, OpenAI Responses, Anthropic Messages and Ollama streams'
            : `${other} event: this stream format is not decoded (auto recognises OpenAI chat completions, OpenAI Responses, Anthropic Messages and Ollama streams)`,
        );
        return;
      }
      this.setProvider(format);
    } else if (!recognises(format, event)) {
      this.unrecognized(line, offset, data, `not an event of the ${format} stream format`);
      return;
    }
    switch (format) {
      case 'openai':
        return this.chat(event, line, offset, data);
      case 'openai-responses':
        return this.responses(event, line, offset, data);
      case 'anthropic':
        return this.anthropic(event, line, offset);
      case 'ollama':
        return this.ollama(event);
      default: {
        const never: never = format;
        return never;
      }
    }
  }

  private unrecognized(line: number, offset: number, data: string, message: string): void {
    this.stats.ignoredEvents++;
    if (this.unrecognizedReported) {
      this.unreportedIgnored++;
      return;
    }
    this.unrecognizedReported = true;
    this.report(DiagnosticReason.unrecognized, line, offset, data, `${message}; ignored`);
  }

  private providerError(error: ProviderError, line: number, offset: number, data: string): void {
    this.error = error;
    this.setFinishReason('error');
    const code = error.code === undefined ? '' : ` (${error.code})`;
    this.report(DiagnosticReason.providerError, line, offset, data, `provider error${code}: ${error.message}`);
  }

  // ---- OpenAI Chat Completions ----------------------------------------------------------

  private chat(event: Json, line: number, offset: number, data: string): void {
    this.setModel(event.model);
    if (isObject(event.usage)) {
      const u = event.usage;
      this.setUsage(usageOf(num(u.prompt_tokens), num(u.completion_tokens), num(u.total_tokens)));
    }
    const choices = event.choices;
    if (!Array.isArray(choices)) return;
    for (let j = 0; j < choices.length; j++) {
      const choice: unknown = choices[j];
      if (!isObject(choice)) continue;
      const index = num(choice.index) ?? j;
      if (index !== 0) {
        if (!this.otherChoiceReported) {
          this.otherChoiceReported = true;
          this.report(
            DiagnosticReason.unrecognized,
            line,
            offset,
            data,
            `choice ${index} ignored: only the first choice is decoded (and any other choice is ignored)`,
          );
        }
        continue;
      }
      // A streamed chunk has `delta`; a server that ignored `stream: true` sends one `message`.
      const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : undefined;
      if (delta !== undefined) {
        this.chatContent(delta.content);
        this.emitReasoning(str(delta.reasoning_content) ?? str(delta.reasoning));
        if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
        if (Array.isArray(delta.tool_calls)) {
          delta.tool_calls.forEach((call: unknown, k: number) => {
            if (!isObject(call)) return;
            const callIndex = num(call.index) ?? k;
            this.chatToolCall(this.chatCallKey(callIndex, str(call.id)), callIndex, str(call.id), call.function);
          });
        }
        if (isObject(delta.function_call))
          this.chatToolCall('choice0.function_call', 0, undefined, delta.function_call);
      } else {
        this.emitText(str(choice.text));
      }
      const finish = str(choice.finish_reason);
      if (finish !== undefined && finish !== '') {
        this.setFinishReason(finish);
        this.finishSegment();
      }
    }
  }

  private chatContent(content: unknown): void {
    if (typeof content === 'string') {
      this.emitText(content);
    } else if (Array.isArray(content)) {
      // Content parts (Mistral): text parts are answer text, thinking parts reasoning.
      for (const part of content) {
        if (!isObject(part)) continue;
        if (part.type === 'text') this.emitText(str(part.text));
        else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
          for (const t of part.thinking) if (isObject(t)) this.emitReasoning(str(t.text));
        }
      }
    }
  }

  private chatToolCall(key: string, index: number, id: string | undefined, fn: unknown): void {
    const call = this.call(key, index, id, isObject(fn) ? str(fn.name) : undefined);
    if (!isObject(fn)) return;
    // Arguments are a JSON string; a server that sends the object itself gets it serialized.
    const args = fn.arguments;
    this.emitArguments(
      call,
      typeof args === 'string' ? args : args === undefined || args === null ? undefined : JSON.stringify(args),
    );
  }

  /**
   * The key of a chat tool call. Calls are told apart by `index`, but some servers (Ollama's
   * /v1) send index 0 for every parallel call: a new non-empty `id` under an index that already
   * has a call with another id opens a new call.
   */
  private chatCallKey(index: number, id: string | undefined): string {
    const base = `choice0.tool_call${index}`;
    const current = this.chatCallKeys.get(index) ?? base;
    const call = this.callsByKey.get(current);
    if (call !== undefined && id !== undefined && id !== '' && call.id !== undefined && call.id !== id) {
      const next = `${base}.${id}`;
      this.chatCallKeys.set(index, next);
      return next;
    }
    return current;
  }

  // ---- OpenAI Responses -----------------------------------------------------------------

  private responses(event: Json, line: number, offset: number, data: string): void {
    const type = str(event.type);
    switch (type) {
      case 'response.created': {
        if (this.segments > 0 && !this.finished) {
          this.cut('a response ended without response.completed: a new response.created followed', line, offset);
        }
        this.segments++;
        this.finished = false;
        this.setFinishReason(undefined);
        this.setUsage(undefined);
        if (isObject(event.response)) this.setModel(event.response.model);
        return;
      }
      case 'response.output_text.delta':
        return this.emitText(str(event.delta));
      case 'response.refusal.delta':
        this.refusal += str(event.delta) ?? '';
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return this.emitReasoning(str(event.delta));
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = event.item;
        if (!isObject(item) || item.type !== 'function_call') return;
        const key = str(item.id) ?? `output${num(event.output_index) ?? 0}`;
        const call = this.call(key, num(event.output_index) ?? 0, str(item.call_id), str(item.name));
        if (type === 'response.output_item.done') {
          call.initial = str(item.arguments);
          this.close(call);
        }
        return;
      }
      case 'response.function_call_arguments.delta':
      case 'response.function_call_arguments.done': {
        const index = num(event.output_index) ?? 0;
        const call = this.call(str(event.item_id) ?? `output${index}`, index, undefined, undefined);
        if (type === 'response.function_call_arguments.delta') {
          this.emitArguments(call, str(event.delta));
        } else {
          call.initial = str(event.arguments);
          this.close(call);
        }
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const response = isObject(event.response) ? event.response : {};
        this.setModel(response.model);
        const u = response.usage;
        if (isObject(u)) this.setUsage(usageOf(num(u.input_tokens), num(u.output_tokens), num(u.total_tokens)));
        const details = response.incomplete_details;
        const reason = isObject(details) ? str(details.reason) : undefined;
        this.finished = true;
        this.reportRefusal();
        if (type === 'response.failed') {
          const e = isObject(response.error) ? response.error : {};
          this.providerError(errorFrom(e.message ?? 'response failed', e.code), line, offset, data);
          this.setFinishReason(str(response.status) ?? 'failed');
          return;
        }
        this.setFinishReason(
          reason ?? str(response.status) ?? (type === 'response.completed' ? 'completed' : 'incomplete'),
        );
        return;
      }
    }
    // Other events (in_progress, content_part.*, output_text.done, annotations...) carry nothing
    // the decoder delivers: the deltas above already did.
  }

  // ---- Anthropic Messages ---------------------------------------------------------------

  private anthropic(event: Json, line: number, offset: number): void {
    switch (event.type) {
      case 'message_start': {
        if (this.segments > 0 && !this.finished) {
          this.cut(`message ${this.segments} ended without message_stop: a new message_start followed`, line, offset);
        }
        this.segments++;
        this.finished = false;
        this.blocks.clear();
        const message = isObject(event.message) ? event.message : {};
        this.setModel(message.model);
        this.anthropicUsage = {};
        this.mergeAnthropicUsage(message.usage, true);
        this.setFinishReason(str(message.stop_reason));
        if (Array.isArray(message.content)) {
          message.content.forEach((block: unknown, index: number) => {
            const call = this.startBlock(index, block);
            if (call !== undefined) this.close(call);
          });
        }
        return;
      }
      case 'content_block_start':
        this.startBlock(num(event.index) ?? 0, event.content_block);
        return;
      case 'content_block_delta': {
        const delta = event.delta;
        if (!isObject(delta)) return;
        switch (delta.type) {
          case 'text_delta':
            return this.emitText(str(delta.text));
          case 'input_json_delta': {
            const index = num(event.index) ?? 0;
            const call = this.blocks.get(index) ?? this.blockCall(index, undefined, undefined);
            return this.emitArguments(call, str(delta.partial_json));
          }
          case 'thinking_delta':
            return this.emitReasoning(str(delta.thinking));
          default:
            // signature_delta, citations_delta: not text.
            return;
        }
      }
      case 'content_block_stop': {
        const call = this.blocks.get(num(event.index) ?? 0);
        if (call !== undefined) this.close(call);
        return;
      }
      case 'message_delta': {
        const delta = event.delta;
        if (isObject(delta) && typeof delta.stop_reason === 'string') this.setFinishReason(delta.stop_reason);
        this.mergeAnthropicUsage(event.usage, false);
        return;
      }
      case 'message_stop':
        this.finished = true;
        return;
    }
    // `ping` is a keep-alive.
  }

  /** Opens content block `index` of the current message; returns its call for a tool block. */
  private startBlock(index: number, block: unknown): CallState | undefined {
    if (!isObject(block)) return undefined;
    const type = str(block.type) ?? '';
    if (type.endsWith('tool_use')) {
      const call = this.blockCall(index, str(block.id), str(block.name));
      if (isObject(block.input) && Object.keys(block.input).length > 0) call.initial = JSON.stringify(block.input);
      return call;
    }
    if (type === 'text') this.emitText(str(block.text));
    else if (type === 'thinking') this.emitReasoning(str(block.thinking));
    return undefined;
  }

  private blockCall(index: number, id: string | undefined, name: string | undefined): CallState {
    const call = this.call(`message${Math.max(1, this.segments)}.block${index}`, index, id, name);
    this.blocks.set(index, call);
    return call;
  }

  private mergeAnthropicUsage(usage: unknown, replace: boolean): void {
    if (!isObject(usage)) {
      if (replace) this.setUsage(undefined);
      return;
    }
    for (const field of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens']) {
      const value = num(usage[field]);
      if (value !== undefined) this.anthropicUsage[field] = value;
    }
    const u = this.anthropicUsage;
    const input =
      u.input_tokens === undefined
        ? undefined
        : u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    this.setUsage(usageOf(input, u.output_tokens, undefined));
  }

  // ---- Ollama ---------------------------------------------------------------------------

  private ollama(event: Json): void {
    this.setModel(event.model);
    const message = event.message;
    if (isObject(message)) {
      this.emitReasoning(str(message.thinking));
      this.emitText(str(message.content));
      if (Array.isArray(message.tool_calls)) {
        for (const item of message.tool_calls) {
          if (!isObject(item)) continue;
          const fn = isObject(item.function) ? item.function : {};
          const n = this.ollamaCalls++;
          const call = this.call(`tool_call${n}`, num(fn.index) ?? n, str(item.id), str(fn.name));
          const args = fn.arguments;
          call.initial = typeof args === 'string' ? args : args === undefined ? undefined : JSON.stringify(args);
          this.close(call);
        }
      }
    }
    this.emitReasoning(str(event.thinking));
    this.emitText(str(event.response));
    if (event.done === true) {
      this.setFinishReason(str(event.done_reason) ?? 'stop');
      const input = num(event.prompt_eval_count);
      const output = num(event.eval_count);
      if (input !== undefined || output !== undefined) this.setUsage(usageOf(input, output, undefined));
      this.finishSegment();
    }
  }

  // ---- Shared delivery ------------------------------------------------------------------

  private emitText(delta: string | undefined): void {
    if (delta !== undefined && delta !== '') this.sink.text(delta);
  }

  private emitReasoning(delta: string | undefined): void {
    if (delta !== undefined && delta !== '') this.sink.reasoning?.(delta);
  }

  private call(key: string, index: number, id: string | undefined, name: string | undefined): CallState {
    let call = this.callsByKey.get(key);
    if (call === undefined) {
      call = {
        key,
        index,
        id: undefined,
        name: undefined,
        pieces: '',
        initial: undefined,
        complete: false,
        reported: false,
        lateReported: false,
      };
      this.calls.push(call);
      this.callsByKey.set(key, call);
    }
    // Later chunks of a call may repeat an empty id or name (Mistral, Qwen): keep the first real one.
    if (call.id === undefined && id !== undefined && id !== '') call.id = id;
    if (call.name === undefined && name !== undefined && name !== '') call.name = name;
    return call;
  }

  private emitArguments(call: CallState, delta: string | undefined): void {
    if (delta === undefined || delta === '') return;
    if (call.complete) {
      // The provider closed this call already: a late piece cannot join arguments handed out as complete.
      if (!call.lateReported) {
        call.lateReported = true;
        this.report(
          DiagnosticReason.unrecognized,
          this.decodingLine,
          this.decodingOffset,
          delta,
          `tool call ${call.key} received arguments after the provider closed it; ignored`,
        );
      }
      return;
    }
    call.pieces += delta;
    const info: ToolCallInfo = {
      index: call.index,
      ...(call.id === undefined ? {} : { id: call.id }),
      ...(call.name === undefined ? {} : { name: call.name }),
    };
    this.sink.toolArguments?.(call.key, delta, info);
  }

  /** The provider closed the call: empty arguments become its up-front input, or `{}`. */
  private close(call: CallState): void {
    if (call.complete) return;
    if (call.pieces.trim() === '') {
      const initial = call.initial !== undefined && call.initial.trim() !== '' ? call.initial : '{}';
      this.emitArguments(call, initial);
    }
    call.complete = true;
  }

  /** The end marker of a chat or Ollama stream: every call is closed. */
  private finishSegment(): void {
    this.finished = true;
    for (const call of this.calls) this.close(call);
    this.reportRefusal();
  }

  /**
   * A refusal (chat `delta.refusal`, Responses `response.refusal.delta`) is not answer text, but
   * dropping it would leave an empty answer with no reason: it is reported once the message ends.
   */
  private reportRefusal(): void {
    if (this.refusal === '') return;
    const text = this.refusal;
    this.refusal = '';
    this.report(
      DiagnosticReason.providerError,
      this.decodingLine,
      this.decodingOffset,
      text,
      `the model refused: ${text}`,
    );
  }

  /** Reports that the current message was cut, naming its open tool calls. */
  private cut(message: string, line: number, offset: number): void {
    const open = this.openCalls();
    const calls = open.map(
      (c) => `${c.key}${c.name === undefined ? '' : ` (${c.name})`} after ${c.pieces.length} characters`,
    );
    const text = calls.length === 0 ? message : `${message}; tool call(s) cut off: ${calls.join(', ')}`;
    this.report(DiagnosticReason.truncated, line, offset, open[0]?.pieces ?? '', text, open[0]?.pieces.length ?? 0);
  }

  /** Reports tool calls still open once the stream is otherwise complete. */
  private cutOpenCalls(line: number, offset: number): void {
    if (this.calls.some((c) => !c.complete && !c.reported))
      this.cut('the stream ended with tool calls open', line, offset);
  }

  private openCalls(): CallState[] {
    const open = this.calls.filter((c) => !c.complete && !c.reported);
    for (const c of open) c.reported = true;
    return open;
  }

  // ---- Metadata and diagnostics ---------------------------------------------------------

  private setProvider(provider: ProviderFormat): void {
    this.provider = provider;
    this.metadataChanged = true;
  }

  private setModel(model: unknown): void {
    if (typeof model === 'string' && model !== '' && model !== this.model) {
      this.model = model;
      this.metadataChanged = true;
    }
  }

  private setFinishReason(reason: string | undefined): void {
    if (reason !== this.finishReason) {
      this.finishReason = reason;
      this.metadataChanged = true;
    }
  }

  private setUsage(usage: Usage | undefined): void {
    if (usage !== undefined && Object.keys(usage).length === 0) usage = undefined;
    if (!sameUsage(usage, this.usage)) {
      this.usage = usage;
      this.metadataChanged = true;
    }
  }

  private flushMetadata(): void {
    if (!this.metadataChanged) return;
    this.metadataChanged = false;
    this.sink.metadata?.({
      ...(this.provider === undefined ? {} : { provider: this.provider }),
      ...(this.model === undefined ? {} : { model: this.model }),
      ...(this.finishReason === undefined ? {} : { finishReason: this.finishReason }),
      ...(this.usage === undefined ? {} : { usage: this.usage }),
    });
  }

  private report(
    reason: Diagnostic['reason'],
    line: number,
    offset: number,
    text: string,
    message: string,
    excerptAt = 0,
  ): void {
    countDiagnostic(this.stats.diagnostics, reason);
    this.sink.diagnostic({ reason, line, offset, excerpt: excerptAround(text, excerptAt), message });
  }
}

function errorFrom(message: unknown, code: unknown): ProviderError {
  const text = typeof message === 'string' ? message : JSON.stringify(message);
  const c = typeof code === 'string' ? code : typeof code === 'number' ? String(code) : undefined;
  return c === undefined ? { message: text } : { message: text, code: c };
}

/** The provider error an event carries: `{type: "error", ...}`, an SSE `error` event, or an `error` member. */
function errorOf(event: Json, name: string | undefined): ProviderError | undefined {
  const error = event.error;
  if (event.type === 'error' || name === 'error') {
    // Anthropic: {type, error: {type, message}}; Responses: {type, code, message}.
    if (isObject(error)) return errorFrom(error.message ?? JSON.stringify(error), error.type ?? error.code);
    return errorFrom(event.message ?? error ?? 'error event', event.code);
  }
  if (error === undefined || error === null) return undefined;
  // Chat-completions servers (OpenAI, OpenRouter, vLLM) and Ollama send `{"error": ...}`.
  if (isObject(error)) return errorFrom(error.message ?? JSON.stringify(error), error.type ?? error.code);
  return errorFrom(error, undefined);
}

/** Creates a push-based provider stream decoder. Throws ConfigurationError for an invalid option. */
export function createProviderDecoder(options: ProviderDecoderOptions, sink: ProviderSink): ProviderDecoder {
  return new Decoder(options, sink);
}
