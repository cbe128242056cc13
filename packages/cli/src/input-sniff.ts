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
 * - AWS event stream (Amazon Bedrock) when the first byte is zero (a big-endian message length)
 *   and a `:message-type` or `:event-type` header follows within 512 bytes: decoded when core
 *   decodes Bedrock, else reported (it is never text).
 * - Text otherwise: prose, a fence, `[`, a JSON document whose first line is not a complete
 *   object (pretty-printed), JSONL objects that are not provider events, an empty input.
 *
 * How long it waits: text that cannot start a provider stream is decided on its first
 * characters (`Here`, `[`, a fence: at once; `d…` until it cannot be `data:`). A first line
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
  /** AWS event-stream framing (Amazon Bedrock's ConverseStream): binary, so never text. */
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
  if (!isObject(event) || !namesModel(event)) return undefined;
  const probe = createProviderDecoder({ input: 'auto' }, { text() {}, diagnostic() {} });
  probe.write(`${line}\n`);
  const provider = probe.provider;
  if (provider === 'ollama' && typeof event.done !== 'boolean') return undefined;
  return provider;
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

  constructor(private readonly limit = SNIFF_LIMIT) {}

  /** Adds `bytes` (Latin-1) and returns the decision, or undefined while more is needed. */
  push(bytes: string): InputDecision | undefined {
    this.head += bytes;
    const lineLength = this.head.length - this.position;
    if (lineLength > 64 && !/[\r\n]/.test(bytes) && this.head.length < this.limit) return undefined;
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
      if (line.startsWith('{') && !this.sawEvent) {
        if (!complete) {
          const key = firstKey(line);
          return key === null || (key !== undefined && !EVENT_KEYS.has(key)) ? TEXT : undecided;
        }
        const provider = providerOfLine(Buffer.from(line, 'latin1').toString('utf8'));
        return provider === undefined ? TEXT : { kind: 'json-lines', provider };
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
