/**
 * Binary AWS event-stream framing (`application/vnd.amazon.eventstream`, what Bedrock's
 * ConverseStream and InvokeModelWithResponseStream send): bytes, split anywhere, in; one
 * message per frame, out — its string headers (`:message-type`, `:event-type`,
 * `:exception-type`...), its payload as text, its number (from 1) and the byte offset where it
 * starts.
 *
 * A frame is a 12-byte prelude (total length, headers length, both big-endian 32-bit, and the
 * CRC32 of those 8 bytes), the headers, the payload and the CRC32 of all that came before.
 * The prelude is checked here (the lengths are what this framer trusts to find the next frame);
 * the complete frame is decoded by `@smithy/eventstream-codec` (headers, message CRC).
 *
 * Diagnostics raised here (`line` is the frame's number, `offset` its byte offset):
 * - `too-long`: a frame longer than `maxEventLength` bytes; skipped without being kept.
 * - `syntax`: a frame whose prelude lengths or CRC are wrong — bytes that are not a frame: they
 *   are skipped byte by byte up to the next valid prelude (reported once per run of bad
 *   bytes); a frame whose message CRC or headers are wrong (skipped, the next one read).
 * - `truncated`: the body ended inside a frame.
 * Nothing here throws on any input. Buffered bytes are at most one frame of `maxEventLength`
 * bytes (and a prelude); work is linear in the body however small the chunks.
 */

import { EventStreamCodec } from '@smithy/eventstream-codec';
import { type Diagnostic, DiagnosticReason } from '../diagnostics/diagnostics.js';

/** The WHATWG text codecs every runtime has (Node, browsers, edge); core's lib declares neither. */
interface Utf8Codecs {
  readonly TextDecoder: new (
    label?: string,
  ) => { decode(input?: Uint8Array, options?: { readonly stream?: boolean }): string };
  readonly TextEncoder: new () => { encode(input: string): Uint8Array };
}

const utf8 = (): Utf8Codecs => globalThis as unknown as Utf8Codecs;

export interface FrameSink {
  message(headers: Readonly<Record<string, string>>, payload: string, frame: number, offset: number): void;
  report(reason: Diagnostic['reason'], frame: number, offset: number, excerpt: string, message: string): void;
}

const PRELUDE = 12;
/** Prelude, and the message CRC at the end: the smallest frame. */
const OVERHEAD = 16;

let table: Uint32Array | undefined;

/** CRC32 (IEEE, the event-stream checksum) of `bytes[start, end)`. */
function crc32(bytes: Uint8Array, start: number, end: number): number {
  if (table === undefined) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = (table[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function uint32(bytes: Uint8Array, at: number): number {
  return (
    (((bytes[at] as number) << 24) |
      ((bytes[at + 1] as number) << 16) |
      ((bytes[at + 2] as number) << 8) |
      (bytes[at + 3] as number)) >>>
    0
  );
}

/** Whether a body whose first byte is `first` is binary: no text body starts with a control byte below tab. */
export function looksBinary(first: number): boolean {
  return first < 0x09;
}

export class EventStreamFramer {
  readonly #codec: EventStreamCodec;
  readonly #decoder: { decode(input?: Uint8Array): string };
  /** Bytes received and not yet framed: `buffer[start, end)`. */
  #buffer = new Uint8Array(0);
  #start = 0;
  #end = 0;
  /** Byte offset in the body of `buffer[start]`. */
  #offset = 0;
  /** Bytes of a too-long frame still to skip as they arrive. */
  #skipping = 0;
  /** Inside a run of bytes that are not a frame (reported once). */
  #resyncing = false;
  #frames = 0;

  readonly #maxLength: number;
  readonly #sink: FrameSink;

  constructor(maxLength: number, sink: FrameSink) {
    this.#maxLength = maxLength;
    this.#sink = sink;
    const { TextDecoder, TextEncoder } = utf8();
    const decoder = new TextDecoder('utf-8');
    const encoder = new TextEncoder();
    this.#decoder = decoder;
    this.#codec = new EventStreamCodec(
      (bytes) => decoder.decode(bytes),
      (text) => encoder.encode(text),
    );
  }

  write(chunk: Uint8Array): void {
    let from = 0;
    if (this.#skipping > 0) {
      from = Math.min(this.#skipping, chunk.length);
      this.#skipping -= from;
      this.#offset += from;
      if (from === chunk.length) return;
    }
    this.#append(chunk, from);
    this.#frame();
  }

  /** Reports a frame the end of the body cut; returns where the end is (next frame number, byte offset). */
  finish(): { readonly line: number; readonly offset: number } {
    const left = this.#end - this.#start;
    // A too-long frame was reported when it was discarded, bytes that are not a frame when found.
    if (this.#skipping === 0 && left > 0 && !this.#resyncing) {
      const frame = ++this.#frames;
      const total = left >= 4 ? uint32(this.#buffer, this.#start) : undefined;
      this.#sink.report(
        DiagnosticReason.truncated,
        frame,
        this.#offset,
        '',
        `the stream ended inside event-stream frame ${frame}: ${left} of ${total === undefined ? 'its' : total} bytes arrived`,
      );
    }
    return { line: this.#frames + 1, offset: this.#offset + left };
  }

  #append(chunk: Uint8Array, from: number): void {
    const length = chunk.length - from;
    if (length === 0) return;
    if (this.#end + length > this.#buffer.length) {
      const kept = this.#end - this.#start;
      if (kept + length <= this.#buffer.length && this.#start >= kept) {
        // Compact in place when it frees at least as much as it moves (linear overall).
        this.#buffer.copyWithin(0, this.#start, this.#end);
      } else {
        const next = new Uint8Array(Math.max(kept + length, this.#buffer.length * 2, 64));
        next.set(this.#buffer.subarray(this.#start, this.#end), 0);
        this.#buffer = next;
      }
      this.#start = 0;
      this.#end = kept;
    }
    this.#buffer.set(from === 0 ? chunk : chunk.subarray(from), this.#end);
    this.#end += length;
  }

  /** Frames every complete frame in the buffer. */
  #frame(): void {
    const bytes = this.#buffer;
    while (this.#end - this.#start >= PRELUDE) {
      const at = this.#start;
      const total = uint32(bytes, at);
      const headers = uint32(bytes, at + 4);
      if (total < OVERHEAD || headers > total - OVERHEAD || crc32(bytes, at, at + 8) !== uint32(bytes, at + 8)) {
        this.#notAFrame();
        continue;
      }
      if (total > this.#maxLength) {
        this.#resyncing = false;
        const frame = ++this.#frames;
        this.#sink.report(
          DiagnosticReason.tooLong,
          frame,
          this.#offset,
          '',
          `event-stream frame of ${total} bytes is longer than maxEventLength (${this.#maxLength} bytes); discarded`,
        );
        const available = this.#end - at;
        const skipped = Math.min(total, available);
        this.#start += skipped;
        this.#offset += skipped;
        this.#skipping = total - skipped;
        continue;
      }
      if (this.#end - at < total) return;
      this.#resyncing = false;
      const frame = ++this.#frames;
      const offset = this.#offset;
      this.#start += total;
      this.#offset += total;
      this.#decode(bytes.subarray(at, at + total), frame, offset);
    }
  }

  /** The byte at `start` does not begin a frame: skip it, reporting the first of a run. */
  #notAFrame(): void {
    if (!this.#resyncing) {
      this.#resyncing = true;
      this.#sink.report(
        DiagnosticReason.syntax,
        this.#frames + 1,
        this.#offset,
        '',
        'bytes that are not an event-stream frame (wrong prelude length or CRC); skipped up to the next valid frame',
      );
    }
    this.#start++;
    this.#offset++;
  }

  #decode(bytes: Uint8Array, frame: number, offset: number): void {
    let headers: Record<string, string>;
    let body: Uint8Array;
    try {
      // The codec keeps no reference to the bytes: the buffer may be reused once it returns.
      const message = this.#codec.decode(bytes);
      body = message.body;
      // Header names are the sender's: a null-prototype record, so `__proto__` or `constructor` is
      // just a header (and a missing `:event-type` is not found on Object.prototype).
      headers = Object.create(null) as Record<string, string>;
      for (const name of Object.keys(message.headers)) {
        const header = message.headers[name];
        if (header?.type === 'string') headers[name] = header.value;
      }
    } catch (error) {
      this.#sink.report(
        DiagnosticReason.syntax,
        frame,
        offset,
        '',
        `event-stream frame ${frame} is corrupt (${(error as Error).message}); skipped`,
      );
      return;
    }
    this.#sink.message(headers, this.#decoder.decode(body), frame, offset);
  }
}
