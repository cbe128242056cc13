/**
 * JSONL line framing: text chunks in, numbered lines with their offsets out, handed one by one
 * to the decoder (jsonl-decoder.ts), which extends `JsonlFraming`: `write` and
 * `invalidEncoding` of the engine that `createJsonlDecoder` returns are the framer's, and its
 * `end` hands over the unterminated last line with the framer's `flush`.
 *
 * What is framing, and lives here: the line search, the line in flight, a byte-order mark at
 * the start, `\r\n` and lone `\r` line breaks (decision 003, "Lone carriage returns"), the
 * `maxLineLength` accounting of a line still arriving (a line past the limit is discarded as
 * it arrives, and reported once), line numbers and offsets, and the offsets of characters that
 * stand for bytes that were not UTF-8 (`invalidEncoding`, reported once per line). What a line
 * means (a value, a recovery, a diagnostic) is the decoder's.
 *
 * Invariants:
 * 1. Chunking does not matter: lines, numbers and offsets depend on the text only (a `\r\n`
 *    or a lone `\r` split between two chunks frames as in one).
 * 2. Each character is searched for a line break once, by `indexOf` on the chunk that brings
 *    it (decisions 001 and 002); the line in flight is appended as a rope, flattened once by
 *    the decoder's `JSON.parse`. Buffered text never exceeds `maxLineLength` characters plus
 *    one chunk.
 * 3. One call into the decoder per line (`line`, or `tooLong` for a line past the limit), as
 *    when framing was a method of the decoder; a chunk that ends no line makes none (with
 *    `prefixCheck`, one `feedPrefix`, as before). The per-line loop stays in `write`, whole.
 * 4. Every line is counted once in `stats.lines`, here, before the decoder sees it.
 *
 * Why its own file: framing is the part of JSONL decoding that every chunk pays for, and the
 * part that decisions 001, 002 and 022 measure; kept apart from the recoveries and the
 * diagnostics, it can be read, and its cost judged, on its own.
 */

import type { Diagnostic } from '../diagnostics/diagnostics.js';
import { DiagnosticReason, INVALID_ENCODING_MESSAGE } from '../diagnostics/diagnostics.js';
import type { Engine } from './engine.js';

/** The counts the framer keeps in the decoder's stats (the same object). */
export interface FramedStats {
  /** Lines seen; counted by the framer. */
  lines: number;
  /** Values delivered; read by the framer to learn whether a line yielded one. */
  values: number;
}

// How lines end, decided by the first line break (default mode; strict mode frames on `\n` only).
const BREAKS_UNDECIDED = 0;
const BREAKS_LF = 1; // `\n` or `\r\n`
const BREAKS_CR = 2; // lone `\r` (classic Mac OS): every `\r` is read as `\n`, reported once

/**
 * The framer, as the base class of the JSONL decoder: the decoder extends it and implements
 * the hooks, which `write` and `end` call on `this` (a base class rather than a framer object
 * holding the decoder, so that a line costs the one call it cost when framing was a method of
 * the decoder, and a page's bundle pays for no wiring between two objects). `lineNo` is
 * 1-based; `offset` is the offset (UTF-16 code units) of a line's start in the decoded text.
 * State is in `#private` members so that a page's minifier may shorten their names (see
 * json-scanner.ts); the hooks, `frame` and `flush` are the only names the two files share
 * (short ones: they are not minified, and every page that decodes JSONL carries them).
 */
export abstract class JsonlFraming<Stats extends FramedStats> implements Engine<Stats> {
  abstract readonly stats: Stats;
  /** One complete line, without its line break (nor the `\r` of a `\r\n`); `final` when the input ended without a line break. */
  abstract line(line: string, lineNo: number, offset: number, final: boolean): void;
  /** Line `lineNo` is longer than `maxLineLength`: report it (its first characters are `text`); the framer discards the rest. */
  abstract tooLong(text: string, lineNo: number, offset: number): void;
  /** Emits a diagnostic covering `lines` input lines (0 for a note that consumes no line). */
  abstract report(
    reason: Diagnostic['reason'],
    line: number,
    endLine: number,
    lineOffset: number,
    column: number,
    text: string,
    message: string,
    lines: number,
  ): void;
  /** The input ends: the decoder's, which calls `flush` and then decides what is still open. */
  abstract end(): void;
  /** `text` continues line `lineNo` (at `offset`) after its first `at` characters: for the prefix check. */
  abstract feedPrefix(offset: number, at: number, text: string, lineNo: number): void;
  /** `text`, from `at` in line `lineNo` (at `offset`), ends that line: its prefix check waits until the line is decided. */
  abstract deferPrefix(text: string, at: number, offset: number, lineNo: number): void;
  /** The prefix check catches up: feeds it the deferred end of the line just decided, if it waits (the line yielded no value). */
  abstract catchUp(): void;

  // Set by `frame`, before any text arrives.
  #maxLineLength!: number;
  #prefixCheck!: boolean;

  // Line breaks: undecided until the first one; `crPending` when undecided text ended in `\r`.
  #breaks = BREAKS_UNDECIDED;
  #crPending = false;
  // Text since the last lone `\r`, while undecided; until the first lone `\r` it is the
  // buffered line itself, so ordinary input pays no second buffer.
  #segment = '';
  #sawLoneCr = false;
  #crChecks = 0;
  // Offsets (in the decoded text) of characters that stand for bytes that were not UTF-8, in order.
  readonly #invalidOffsets: number[] = [];
  #invalidReportedLine = 0;

  #pending = '';
  #discarding = false;
  #discardedLength = 0; // characters of the discarded line seen so far
  #atStart = true;
  #lineNumber = 0; // number of the line being framed, minus one
  #lineOffset = 0; // offset of the line being framed

  /**
   * Called once by the decoder's constructor, once its options are checked: the longest line
   * kept (UTF-16 code units); `strict` frames on `\n` only (no lone `\r` line breaks);
   * `prefixCheck` when the decoder checks line prefixes (each chunk of the line in flight is fed to it).
   */
  protected frame(maxLineLength: number, strict: boolean, prefixCheck: boolean): void {
    this.#maxLineLength = maxLineLength;
    this.#prefixCheck = prefixCheck;
    if (strict) this.#breaks = BREAKS_LF;
  }

  /** Offset in the decoded text where the next `write` begins. */
  get #inputOffset(): number {
    return this.#lineOffset + (this.#discarding ? this.#discardedLength : this.#pending.length);
  }

  invalidEncoding(index: number): void {
    const offset = this.#inputOffset + index;
    const last = this.#invalidOffsets[this.#invalidOffsets.length - 1];
    if (last === undefined || offset > last) this.#invalidOffsets.push(offset);
  }

  write(text: string): void {
    if (this.#atStart && text.length > 0) {
      this.#atStart = false;
      // A byte-order mark is encoding metadata, not content (TextDecoder drops it the same way).
      if (text.charCodeAt(0) === 0xfeff) {
        text = text.slice(1);
        this.#shiftInvalid(-1);
      }
    }
    if (this.#breaks !== BREAKS_LF) text = this.#lineBreaks(text);
    let nl = text.indexOf('\n');
    if (nl === -1) {
      // Most token-sized chunks end no line: append and return.
      this.#append(text);
      return;
    }
    let start = 0;
    do {
      if (this.#discarding) {
        this.#discarding = false;
        this.#lineOffset += this.#discardedLength + (nl - start) + 1;
        this.#discardedLength = 0;
      } else {
        const part = text.slice(start, nl);
        const raw = this.#pending === '' ? part : this.#pending + part;
        if (this.#prefixCheck) this.deferPrefix(part, this.#pending.length, this.#lineOffset, this.#lineNumber + 1);
        this.#pending = '';
        if (raw.length > this.#maxLineLength) {
          if (this.#prefixCheck) this.catchUp();
          this.#tooLong(raw);
          this.#lineOffset += raw.length + 1;
        } else {
          // The line's accounting, inline: one call into the decoder per line.
          const line = raw.charCodeAt(raw.length - 1) === 0x0d ? raw.slice(0, -1) : raw;
          const lineNo = ++this.#lineNumber;
          const offset = this.#lineOffset;
          this.#lineOffset += raw.length + 1;
          this.stats.lines++;
          if (this.#invalidOffsets.length !== 0) this.#reportInvalid(lineNo, offset, offset + raw.length + 1, line);
          if (!this.#prefixCheck) {
            this.line(line, lineNo, offset, false);
          } else {
            const values = this.stats.values;
            this.line(line, lineNo, offset, false);
            // A line that yields a value cannot have a violation: its end is not fed.
            if (this.stats.values === values) this.catchUp();
          }
        }
      }
      start = nl + 1;
      nl = text.indexOf('\n', start);
    } while (nl !== -1);
    if (start < text.length) this.#append(text.slice(start));
  }

  /** Hands over the unterminated last line, if any; returns the number of the last line framed. */
  protected flush(): number {
    if (this.#discarding) {
      this.#discarding = false;
    } else if (this.#pending !== '') {
      const raw = this.#pending;
      this.#pending = '';
      const line = raw.charCodeAt(raw.length - 1) === 0x0d ? raw.slice(0, -1) : raw;
      const lineNo = ++this.#lineNumber;
      const offset = this.#lineOffset;
      this.#lineOffset += raw.length;
      this.stats.lines++;
      if (this.#invalidOffsets.length !== 0) this.#reportInvalid(lineNo, offset, offset + raw.length, line);
      this.line(line, lineNo, offset, true);
    }
    return this.#lineNumber;
  }

  /**
   * Until the first line break, decides how lines end. A `\n` (or `\r\n`) decides for `\n`.
   * A lone `\r` is also JSON whitespace (`{"a":\r1}`), so it decides for classic Mac OS line
   * breaks only when the text since the previous lone `\r` is a whole JSON container (`{…}` or
   * `[…]`); from then on every `\r` becomes `\n` (same length, so offsets hold), reported once.
   * Segments between lone `\r`s are disjoint, so the check reads each character once; after
   * 16 containers that fail to parse it gives up and keeps `\n` framing.
   */
  #lineBreaks(text: string): string {
    if (this.#breaks === BREAKS_CR) return text.indexOf('\r') === -1 ? text : text.replaceAll('\r', '\n');
    if (this.#discarding) {
      this.#segment = '';
      return text;
    }
    if (text.length === 0) return text;
    let from = 0;
    if (this.#crPending) {
      this.#crPending = false;
      if (text.charCodeAt(0) === 0x0a) {
        this.#breaks = BREAKS_LF;
        return text;
      }
      if (this.#segmentIsLine('')) return this.#switchToCr(text, this.#inputOffset - 1);
    }
    const n = text.indexOf('\n');
    for (;;) {
      const r = text.indexOf('\r', from);
      if (n !== -1 && (r === -1 || n < r)) {
        this.#breaks = BREAKS_LF;
        this.#segment = '';
        return text;
      }
      if (r === -1) {
        if (this.#sawLoneCr) this.#segment += from === 0 ? text : text.slice(from);
        return text;
      }
      if (r === text.length - 1) {
        if (this.#sawLoneCr) this.#segment += text.slice(from, r);
        this.#crPending = true;
        return text;
      }
      if (text.charCodeAt(r + 1) === 0x0a) {
        this.#breaks = BREAKS_LF;
        this.#segment = '';
        return text;
      }
      if (this.#segmentIsLine(text.slice(from, r))) return this.#switchToCr(text, this.#inputOffset + r);
      if (this.#breaks !== BREAKS_UNDECIDED) return text;
      from = r + 1;
    }
  }

  /** Whether the text since the last lone `\r`, plus `tail`, is one whole JSON container. */
  #segmentIsLine(tail: string): boolean {
    // Before the first lone `\r` the segment is the buffered line (a trailing `\r` trims away).
    const segment = ((this.#sawLoneCr ? this.#segment : this.#pending) + tail).trim();
    this.#segment = '';
    this.#sawLoneCr = true;
    const first = segment.charCodeAt(0);
    const last = segment.charCodeAt(segment.length - 1);
    if (!((first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d))) return false;
    try {
      JSON.parse(segment);
      return true;
    } catch {
      if (++this.#crChecks >= 16) this.#breaks = BREAKS_LF;
      return false;
    }
  }

  /** From here on a lone `\r` ends a line; `cr` is the offset of the one that decided it. */
  #switchToCr(text: string, cr: number): string {
    this.#breaks = BREAKS_CR;
    this.#segment = '';
    const buffered = this.#pending;
    this.#pending = '';
    const joined = buffered + text;
    // The line in flight ends at its first `\r` (where its prefix check stops): checked before this report.
    if (this.#prefixCheck) this.feedPrefix(this.#lineOffset, 0, joined, this.#lineNumber + 1);
    // The deciding `\r` ends the line that the lone `\r`s before it make.
    const at = cr - this.#lineOffset;
    const lineStart = joined.lastIndexOf('\r', at - 1) + 1;
    let line = this.#lineNumber + 1;
    for (let i = joined.indexOf('\r'); i !== -1 && i < at; i = joined.indexOf('\r', i + 1)) line++;
    this.report(
      DiagnosticReason.recovered,
      line,
      line,
      this.#lineOffset + lineStart,
      at - lineStart,
      joined.slice(lineStart, at),
      'lines end with a lone carriage return (classic Mac OS line breaks): each one is read as a line break',
      0,
    );
    return joined.replaceAll('\r', '\n');
  }

  /** Moves recorded invalid-encoding offsets after the start of the next write by `delta`. */
  #shiftInvalid(delta: number): void {
    const start = this.#inputOffset;
    for (let i = 0; i < this.#invalidOffsets.length; i++) {
      const o = this.#invalidOffsets[i] as number;
      if (o >= start) this.#invalidOffsets[i] = o + delta;
    }
  }

  /** Reports bytes that were not UTF-8 inside the line `lineNo` spanning `[offset, end)`, once per line. */
  #reportInvalid(lineNo: number, offset: number, end: number, line: string): void {
    let at = -1;
    while (this.#invalidOffsets.length !== 0 && (this.#invalidOffsets[0] as number) < end) {
      const o = this.#invalidOffsets.shift() as number;
      // Offsets before the line were in a discarded (too-long) line, already reported.
      if (at === -1 && o >= offset) at = o;
    }
    if (at === -1 || this.#invalidReportedLine === lineNo) return;
    this.#invalidReportedLine = lineNo;
    const column = Math.max(0, at - offset);
    this.report(DiagnosticReason.encoding, lineNo, lineNo, offset, column, line, INVALID_ENCODING_MESSAGE, 0);
  }

  /** Buffers text of the line being framed (no line break in `text`). */
  #append(text: string): void {
    if (this.#discarding) {
      this.#discardedLength += text.length;
      return;
    }
    if (this.#prefixCheck) this.feedPrefix(this.#lineOffset, this.#pending.length, text, this.#lineNumber + 1);
    // V8 joins strings as ropes, so appending is constant time; JSON.parse flattens once.
    this.#pending += text;
    if (this.#pending.length > this.#maxLineLength) {
      this.#tooLong(this.#pending);
      this.#discardedLength = this.#pending.length;
      this.#pending = '';
      this.#discarding = true;
    }
  }

  /** Counts the line being framed, which is too long, and has it reported; the caller discards its text. */
  #tooLong(text: string): void {
    const lineNo = ++this.#lineNumber;
    this.stats.lines++;
    // Only the first maxLineLength + 1 characters are certain to be buffered, however the line was chunked.
    this.tooLong(text.slice(0, Math.min(200, this.#maxLineLength + 1)), lineNo, this.#lineOffset);
  }
}
