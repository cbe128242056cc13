/**
 * `--input auto` (the default): is the input the model's text, or a model server's streamed
 * body to decode first? Decided from the first bytes, which are then handed on unchanged, so
 * that text reads exactly as with `--input text` (nothing added, dropped or re-chunked but the
 * first piece).
 *
 * The rule, on the first line that is not blank (a byte-order mark and blank lines skipped):
 * - SSE (decoded by the provider decoder, its format recognised from the events) when that line
 *   is `data:` followed by `{` or `[` (every provider sends JSON events), or `event: NAME`
 *   followed by a `data:` line. SSE comment lines (`: keep-alive`), `id:` and `retry:` lines
 *   before it are skipped over.
 * - Provider JSON lines (Ollama's NDJSON, or any provider's events one per line) when that line
 *   is a complete JSON object that core's `auto` detection recognises as a provider event and
 *   that names a model (`model` or `modelVersion`, at its top level or in its `message` or
 *   `response`; an Ollama line also carries `done`). A model's own JSONL answer names no model
 *   in that shape; when one does, `--input text` reads it as text.
 *   An AI SDK `fullStream` file (one part per line, `{"type": "text-delta", ...}`) names no
 *   model: its first line is a part whose type has a hyphen (`text-delta`, `start-step`...),
 *   or the `{"type": "start"}` part every such stream opens with followed by one. AG-UI events
 *   one per line (`fromAgUi` of @llmjson/ag-ui writes them so) name no model either: their first
 *   line is an AG-UI event type (`RUN_STARTED`, `TEXT_MESSAGE_CONTENT`...) carrying one of the
 *   protocol's ids (`threadId`, `runId`, `messageId`, `toolCallId`). An AG-UI SSE body is SSE.
 * - Gemini's JSON-array body (`streamGenerateContent` without `alt=sse`) when the input is `[`
 *   then an object whose first key is one a `GenerateContentResponse` starts with
 *   (`candidates`, `usageMetadata`, `promptFeedback`, `modelVersion`...) and that object, once
 *   complete, is a Gemini event naming its model (`modelVersion`).
 * - AWS event stream (Amazon Bedrock) when the first byte is zero (a big-endian message length)
 *   and a `:message-type` or `:event-type` header follows within 512 bytes: decoded when core
 *   decodes Bedrock, else reported (it is never text).
 * - Text otherwise: prose, a fence, an array that is not Gemini's, a JSON document whose first
 *   line is not a complete object (pretty-printed), JSONL objects that are not provider events,
 *   an empty input.
 *
 * How long it waits: text that cannot start a provider stream is decided on its first
 * characters (`Here`, a fence: at once; `d…` until it cannot be `data:`; `[` until the first
 * element's first key, `[1` or `[{"title"` at once, `[{"candidates"` once that object is
 * complete). A first line
 * starting with `{` is decided on its first key when that is not a key provider events start
 * with (`EVENT_KEYS`: `{"title": …` is text at once), else once the line is complete — a JSONL
 * answer prints nothing before that anyway — or once `SNIFF_LIMIT` bytes arrived without a line
 * break (then: text). So only a one-line JSON document whose first key is such a key (`{"id": …`,
 * `{"type": …`) streamed live to `partial`, `elements` or `salvage` waits for its line to end;
 * `--input text` skips the wait.
 */

import { Readable } from 'node:stream';
import { createProviderDecoder, type ProviderFormat } from '@llmjson/core';

/** Bytes read without a decision, at most: then the input is text. */
export const SNIFF_LIMIT = 64 * 1024;

export type InputDecision =
  | { readonly kind: 'text' }
  | { readonly kind: 'sse' }
  | { readonly kind: 'json-lines'; readonly provider: ProviderFormat }
  /** One JSON array whose elements are the provider's events (Gemini without `alt=sse`). */
  | { readonly kind: 'json-array'; readonly provider: ProviderFormat }
  /** AWS event-stream framing (Amazon Bedrock's ConverseStream, InvokeModelWithResponseStream): binary, so never text. */
  | { readonly kind: 'event-stream' };

const TEXT: InputDecision = { kind: 'text' };
const SSE: InputDecision = { kind: 'sse' };
const EVENT_STREAM: InputDecision = { kind: 'event-stream' };
const LINE_BREAK = /[\r\n]/g;
const FIELDS = ['data:', 'event:', 'id:', 'retry:'] as const;

/**
 * The keys a provider event's first line may start with (its first key as each provider, or a
 * logger re-serialising its events, writes it). A first line starting with any other key is
 * text at once; with one of these, the line is read whole before deciding.
 */
const EVENT_KEYS = new Set([
  'model',
  'modelVersion',
  'id',
  'type',
  'object',
  'created',
  'created_at',
  'createdAt',
  'candidates',
  'usageMetadata',
  'promptFeedback',
  'responseId',
  'error',
  'choices',
  'message',
  'response',
  'done',
  'usage',
  'event',
  'event_type',
  'delta',
  'index',
  'sequence_number',
  'generation_id',
  'finish_reason',
  'is_finished',
  'messageStart',
  'contentBlockStart',
  'contentBlockDelta',
  'contentBlockStop',
  'messageStop',
  'metadata',
]);

/** The keys a Gemini `GenerateContentResponse` may start with, in its JSON-array body. */
const GEMINI_KEYS = new Set([
  'candidates',
  'usageMetadata',
  'promptFeedback',
  'modelVersion',
  'responseId',
  'createTime',
]);

const GEMINI: InputDecision = { kind: 'json-array', provider: 'gemini' };

/**
 * The first key of the object that `line` (starting with `{`) opens: undefined while it is
 * not complete yet, null when the line cannot be an object with a key (`{}`, `{1`).
 */
function firstKey(line: string): string | null | undefined {
  let i = 1;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  if (i >= line.length) return undefined;
  if (line[i] !== '"') return null;
  for (let j = i + 1; j < line.length && j < i + 66; j++) {
    if (line[j] === '\\') return undefined;
    if (line[j] === '"') return line.slice(i + 1, j);
  }
  return line.length >= i + 66 ? null : undefined;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A provider event names its model; a model's own JSONL objects do not, in these places. */
function namesModel(event: Json): boolean {
  const named = (o: unknown) => isObject(o) && (typeof o.model === 'string' || typeof o.modelVersion === 'string');
  return named(event) || named(event.message) || named(event.response);
}

/** The provider whose event `line` is, under the rule in the header; undefined for text. */
export function providerOfLine(line: string): ProviderFormat | undefined {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(event)) return undefined;
  const provider = probeProvider(event);
  // AI SDK parts name no model; a type with a hyphen (`text-delta`) is not a word an answer uses.
  if (provider === 'ai-sdk') return typeof event.type === 'string' && event.type.includes('-') ? provider : undefined;
  // AG-UI events name no model either; an event type of the protocol with one of its ids is not an answer's line.
  if (provider === 'ag-ui') return AG_UI_IDS.some((key) => typeof event[key] === 'string') ? provider : undefined;
  if (!namesModel(event)) return undefined;
  if (provider === 'ollama' && typeof event.done !== 'boolean') return undefined;
  return provider;
}

/** The ids AG-UI events carry (a run's, a message's, a tool call's): one of them marks an agent's event line. */
const AG_UI_IDS = ['threadId', 'runId', 'messageId', 'toolCallId'] as const;

/** The format core's `auto` detection reads `event` as. */
function probeProvider(event: Json): ProviderFormat | undefined {
  const probe = createProviderDecoder({ input: 'auto' }, { text() {}, diagnostic() {} });
  probe.write(`${JSON.stringify(event)}\n`);
  return probe.provider;
}

/** The part every AI SDK `fullStream` opens with: alone, it is not told apart from an answer's line. */
function isAiSdkStart(line: string): boolean {
  try {
    const part: unknown = JSON.parse(line);
    return isObject(part) && part.type === 'start' && Object.keys(part).length <= 2;
  } catch {
    return false;
  }
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/**
 * Finds the end of the first element of a JSON array, following brackets and strings from
 * where the last call stopped, so the work is linear however small the chunks.
 */
class FirstElement {
  /** Where the element (its `{`) starts in the head. */
  readonly start: number;
  private at: number;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(start: number) {
    this.start = start;
    this.at = start;
  }

  /** The index just past the element's closing brace, or undefined while it is open. */
  end(head: string): number | undefined {
    for (; this.at < head.length; this.at++) {
      const c = head[this.at];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
      } else if (c === '"') {
        this.inString = true;
      } else if (c === '{' || c === '[') {
        this.depth++;
      } else if ((c === '}' || c === ']') && --this.depth === 0) {
        return ++this.at;
      }
    }
    return undefined;
  }
}

/**
 * Decides on the first bytes of the input, given piece by piece (bytes as Latin-1 characters, so
 * that a character split between chunks never matters before the decision). Each complete blank
 * or field line is passed once, and the line in progress is looked at again only when a line
 * break arrives or while it is short, so the work is linear however small the chunks.
 */
export class InputSniffer {
  private head = '';
  /** Where the first line not yet passed over starts. */
  private position = 0;
  /** An `event:` line was passed over: the next field decides. */
  private sawEvent = false;
  /** A first line `{"type": "start"}` was passed over: the next line decides. */
  private sawStart = false;
  /** The input opens an array whose first element may be a Gemini event. */
  private element: FirstElement | undefined;

  constructor(private readonly limit = SNIFF_LIMIT) {}

  /** Adds `bytes` (Latin-1) and returns the decision, or undefined while more is needed. */
  push(bytes: string): InputDecision | undefined {
    this.head += bytes;
    const lineLength = this.head.length - this.position;
    if (lineLength > 64 && !/[\r\n]/.test(bytes) && this.head.length < this.limit && !this.opensArray()) {
      return undefined;
    }
    return this.decide(false);
  }

  /** The decision once the input ended. */
  end(): InputDecision {
    return this.decide(true) ?? TEXT;
  }

  private decide(ended: boolean): InputDecision | undefined {
    const head = this.head;
    const undecided = ended || head.length >= this.limit ? TEXT : undefined;
    // An event-stream message starts with its total length (big-endian, so a zero byte first)
    // and names its headers (`:event-type`, `:message-type`) within its first bytes.
    if (this.position === 0 && head.charCodeAt(0) === 0) {
      const headers = head.slice(0, 512);
      if (headers.includes(':message-type') || headers.includes(':event-type')) return EVENT_STREAM;
      if (head.length < 512 && !ended) return undefined;
    }
    if (this.position === 0 && head.startsWith('\xef\xbb\xbf')) this.position = 3;
    for (;;) {
      let i = this.position;
      while (i < head.length && ' \t\r\n'.includes(head[i] as string)) i++;
      this.position = i;
      if (i >= head.length) return undecided;
      LINE_BREAK.lastIndex = i;
      const end = LINE_BREAK.exec(head)?.index ?? -1;
      const complete = end !== -1 || ended;
      const line = head.slice(i, end === -1 ? head.length : end);
      if (this.sawStart && !line.startsWith('{')) return TEXT;
      if (line.startsWith('[') && !this.sawEvent) return this.decideArray(i, undecided);
      if (line.startsWith('{') && !this.sawEvent) {
        if (!complete) {
          const key = firstKey(line);
          return key === null || (key !== undefined && !EVENT_KEYS.has(key)) ? TEXT : undecided;
        }
        const text = Buffer.from(line, 'latin1').toString('utf8');
        const provider = providerOfLine(text);
        if (provider !== undefined && (!this.sawStart || provider === 'ai-sdk'))
          return { kind: 'json-lines', provider };
        if (this.sawStart || end === -1 || !isAiSdkStart(text)) return TEXT;
        // `{"type": "start"}`: an AI SDK stream when an AI SDK part follows.
        this.sawStart = true;
        this.position = end + 1;
        continue;
      }
      if (line.startsWith('data:')) {
        const value = line.slice(line.startsWith('data: ') ? 6 : 5);
        if (value === '' && !complete) return undecided;
        return this.sawEvent || value.startsWith('{') || value.startsWith('[') ? SSE : TEXT;
      }
      const meta = line.startsWith(':') || FIELDS.slice(1).some((f) => line.startsWith(f));
      if (!meta) {
        // Text, unless the line so far may still become a field name.
        const prefix = !complete && FIELDS.some((f) => f.startsWith(line));
        return prefix ? undecided : TEXT;
      }
      if (!complete) return undecided;
      // The input ended on this line: no data line follows it.
      if (end === -1) return TEXT;
      if (line.startsWith('event:')) {
        if (!/^event: ?[\w.-]+$/.test(line)) return TEXT;
        this.sawEvent = true;
      }
      this.position = end + 1;
    }
  }

  /** Whether the line in progress starts with `[` (whose first element is followed as it arrives). */
  private opensArray(): boolean {
    if (this.element !== undefined) return true;
    let i = this.position;
    while (isBlank(this.head[i])) i++;
    // Blanks before the line are passed over once, as `decide` passes them.
    this.position = i;
    return this.head[i] === '[';
  }

  /** The input opens with `[` at `i`: a Gemini JSON-array body, or text (see the header). */
  private decideArray(i: number, undecided: InputDecision | undefined): InputDecision | undefined {
    const head = this.head;
    if (this.element === undefined) {
      let j = i + 1;
      while (isBlank(head[j])) j++;
      if (j >= head.length) return undecided;
      if (head[j] !== '{') return TEXT;
      const start = j;
      j++;
      while (isBlank(head[j])) j++;
      const key = firstKey(`{${head.slice(j, j + 80)}`);
      if (key === undefined) return head.length - j >= 80 ? TEXT : undecided;
      if (key === null || !GEMINI_KEYS.has(key)) return TEXT;
      this.element = new FirstElement(start);
    }
    const element = this.element;
    const end = element.end(head);
    if (end === undefined) return undecided;
    let event: unknown;
    try {
      event = JSON.parse(Buffer.from(head.slice(element.start, end), 'latin1').toString('utf8'));
    } catch {
      return TEXT;
    }
    return isObject(event) && namesModel(event) && probeProvider(event) === 'gemini' ? GEMINI : TEXT;
  }
}

/** The decision on a whole head (a test's convenience). */
export function decideInput(head: string, ended: boolean, limit = SNIFF_LIMIT): InputDecision | undefined {
  const sniffer = new InputSniffer(limit);
  const decision = sniffer.push(head);
  return decision ?? (ended ? sniffer.end() : undefined);
}

function bytesOf(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), 'utf8');
}

/**
 * Reads the first bytes of `input` until `decideInput` decides, then gives them back: the
 * returned stream yields every byte of the input, in order (the same stream with the bytes
 * unshifted, or, when the input ended while deciding, a stream of those bytes).
 */
export async function sniffInput(
  input: Readable,
  limit = SNIFF_LIMIT,
): Promise<{ readonly input: Readable; readonly decision: InputDecision }> {
  const chunks: Buffer[] = [];
  const sniffer = new InputSniffer(limit);
  let failure: { error: unknown } | undefined;
  for (;;) {
    let decision: InputDecision | undefined;
    for (let chunk: unknown = input.read(); chunk !== null; chunk = input.read()) {
      const bytes = bytesOf(chunk);
      chunks.push(bytes);
      decision = sniffer.push(bytes.toString('latin1'));
      if (decision !== undefined) break;
    }
    if (failure !== undefined) throw failure.error;
    if (decision !== undefined) {
      if (chunks.length > 0) input.unshift(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      return { input, decision };
    }
    if (input.readableEnded || input.destroyed) {
      const all = Buffer.concat(chunks);
      return { input: Readable.from(all.length === 0 ? [] : [all]), decision: sniffer.end() };
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        input.off('readable', done);
        input.off('end', done);
        input.off('close', done);
        input.off('error', failed);
        resolve();
      };
      const failed = (error: unknown) => {
        failure = { error };
        done();
      };
      input.on('readable', done);
      input.on('end', done);
      input.on('close', done);
      input.on('error', failed);
    });
  }
}
