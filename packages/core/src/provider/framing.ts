/**
 * Provider body framing: the decoded body, split anywhere, in; events, each with the line and
 * offset where it starts, out.
 *
 * A body whose first non-blank line starts with `{` is JSON lines (one event per line); one
 * whose first non-blank character is `[` is one JSON array, each element an event
 * (array-framing.ts: Gemini's `streamGenerateContent` without `alt=sse`), decided at that
 * character, since a compact array is one line; any other body is SSE. SSE is parsed by
 * `eventsource-parser` (field rules, multi-line `data:`, `event:`, comments such as
 * `: keep-alive`); the framer hands it one line at a time so that every event knows the line
 * and offset where it starts (the parser reports none). The line splitting is ours: lines end
 * at `\n`, `\r\n` (also split between chunks) or a lone `\r` (the SSE rule, used for JSON
 * lines too), and each character is searched once per kind, so work is linear however small
 * the chunks. Departure from the SSE standard, on purpose: an event left
 * unterminated at the end of the body is dispatched (flagged `final`), not dropped.
 *
 * Diagnostics raised here: `prose` (a line in an SSE body that is not an SSE field) and
 * `too-long` (a line or event longer than `maxEventLength`, discarded whole with one diagnostic
 * where it starts, excerpt its first characters). Under SSE the unit is the event: a line too
 * long, or data lines that fit one by one but not joined, drop every line up to the blank line
 * that ends the event. Under JSON lines the unit is the line. Buffered text is at most one line
 * (and one SSE event) of `maxEventLength` characters; past it, text is counted, not kept.
 */

import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from 'eventsource-parser';
import { DiagnosticReason } from '../diagnostics/diagnostics.js';
import { JsonArrayFramer } from './array-framing.js';
import type { EndPosition, FramerSink } from './framer-sink.js';

const FRAMING_UNKNOWN = 0;
const FRAMING_SSE = 1;
const FRAMING_JSON_LINES = 2;
const FRAMING_JSON_ARRAY = 3;
const CR = 0x0d;
const LF = 0x0a;
/** Characters of a discarded line or event kept for its diagnostic's excerpt (quoted at most this long). */
const EXCERPT_HEAD = 200;

function firstNonSpace(s: string): number {
  let i = 0;
  while (i < s.length && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09)) i++;
  return i;
}

/** The index of the first character of `s` that is not a space, tab or line break (`s.length` if none). */
function firstNonBlank(s: string): number {
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== CR && c !== LF) break;
  }
  return i;
}

export class EventFramer {
  readonly #parser: EventSourceParser;

  // Line framing.
  #framing = FRAMING_UNKNOWN;
  #atStart = true;
  /** The first non-blank character was seen (it decides a JSON-array body at once). */
  #sawFirst = false;
  #array: JsonArrayFramer | undefined;
  #pending = '';
  #discarding = false; // the line being framed is too long: its text is counted, not kept
  #discardedLength = 0;
  #discardedHead = ''; // the first EXCERPT_HEAD characters of a discarded line
  /**
   * An SSE event too long to keep was reported: its lines are counted, not kept, up to the blank
   * line that ends it, so that no piece of it is dispatched as an event of its own.
   */
  #skippingEvent = false;
  #skipLineFeed = false;
  #lineNumber = 0; // lines completed
  #lineStart = 0; // offset of the line being framed
  #lastLineOpen = false; // the last line completed had no line break (the end of input)

  // SSE event being assembled, and the one being dispatched.
  #eventLine = 0;
  #eventOffset = 0;
  #eventHead = ''; // the first EXCERPT_HEAD characters of the event's lines, for a too-long excerpt
  #currentLine = 0;
  #currentOffset = 0;
  #dispatchLine = 0;
  #dispatchOffset = 0;
  #atEnd = false;
  #parserOverflow = false;

  readonly #maxLength: number;
  readonly #sink: FramerSink;

  constructor(maxLength: number, sink: FramerSink) {
    this.#maxLength = maxLength;
    this.#sink = sink;
    this.#parser = createParser({
      onEvent: (event) => this.#sseEvent(event),
      onError: (error) => this.#sseError(error),
      maxBufferSize: maxLength,
    });
  }

  write(text: string): void {
    if (this.#atStart && text.length > 0) {
      this.#atStart = false;
      // A byte-order mark is encoding metadata, not content (TextDecoder drops it the same way).
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#array !== undefined) {
      this.#array.write(text);
      return;
    }
    if (!this.#sawFirst) {
      const first = firstNonBlank(text);
      if (first < text.length) {
        this.#sawFirst = true;
        if (text.charCodeAt(first) === 0x5b) {
          // A JSON array is framed by its elements, not its lines: a compact array is one line.
          this.#writeLines(text.slice(0, first));
          this.#framing = FRAMING_JSON_ARRAY;
          this.#skipLineFeed = false;
          this.#array = new JsonArrayFramer(
            this.#maxLength,
            this.#sink,
            this.#lineNumber + 1,
            this.#lineStart + this.#pending.length,
          );
          this.#pending = '';
          this.#array.write(text.slice(first));
          return;
        }
      }
    }
    this.#writeLines(text);
  }

  #writeLines(text: string): void {
    const n = text.length;
    let i = 0;
    if (this.#skipLineFeed && n > 0) {
      // The second half of a `\r\n` split between chunks.
      this.#skipLineFeed = false;
      if (text.charCodeAt(0) === LF) {
        i = 1;
        this.#lineStart++;
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
          this.#skipLineFeed = true;
        }
      }
      this.#completeLine(text.slice(i, end), terminator, false);
      i = end + terminator;
    }
    if (i < n) this.#append(i === 0 ? text : text.slice(i));
  }

  /** Frames what the end of the body completes (the last line, an unterminated event); returns where the end is. */
  end(): EndPosition {
    if (this.#array !== undefined) return this.#array.end();
    this.#skipLineFeed = false;
    if (this.#discarding || this.#pending !== '' || this.#discardedLength > 0) this.#completeLine('', 0, true);
    // A discarded event cut by the end of the body was reported when it was discarded.
    this.#skippingEvent = false;
    const end = { line: this.#lastLineOpen ? this.#lineNumber : this.#lineNumber + 1, offset: this.#lineStart };
    if (this.#framing === FRAMING_SSE && this.#eventLine !== 0) {
      // The last event had no blank line after it: dispatch it anyway (see the header).
      this.#atEnd = true;
      this.#dispatchLine = this.#eventLine;
      this.#dispatchOffset = this.#eventOffset;
      this.#eventLine = 0;
      this.#parser.feed('\n');
      this.#atEnd = false;
    }
    return end;
  }

  /** Buffers text of the line being framed (no line break in `text`). */
  #append(text: string): void {
    if (this.#discarding || this.#skippingEvent) {
      // Memory stays bounded: past the limit, a line's text is counted and let go.
      this.#discardedLength += text.length;
    } else if (this.#pending.length + text.length > this.#maxLength) {
      this.#discarding = true;
      // The head is the same however the line was chunked: the pending text holds all of it.
      this.#discardedHead =
        this.#pending.length >= EXCERPT_HEAD
          ? this.#pending.slice(0, EXCERPT_HEAD)
          : this.#pending + text.slice(0, EXCERPT_HEAD - this.#pending.length);
      this.#discardedLength = this.#pending.length + text.length;
      this.#pending = '';
    } else {
      this.#pending += text;
    }
  }

  #completeLine(piece: string, terminator: number, final: boolean): void {
    const lineNo = ++this.#lineNumber;
    const offset = this.#lineStart;
    let length: number;
    if (this.#skippingEvent) {
      length = this.#discardedLength + piece.length;
      this.#discardedLength = 0;
      // The blank line that ends the discarded event: decoding resumes with the next line.
      if (length === 0) this.#skippingEvent = false;
    } else if (this.#discarding) {
      length = this.#discardedLength + piece.length;
      const head = this.#discardedHead;
      this.#discarding = false;
      this.#discardedLength = 0;
      this.#discardedHead = '';
      this.#tooLong(head, lineNo, offset, length);
    } else {
      const line = this.#pending === '' ? piece : this.#pending + piece;
      this.#pending = '';
      length = line.length;
      if (length > this.#maxLength) this.#tooLong(line.slice(0, EXCERPT_HEAD), lineNo, offset, length);
      else this.#line(line, lineNo, offset, final);
    }
    this.#lineStart = offset + length + terminator;
    this.#lastLineOpen = terminator === 0;
  }

  /** A line longer than the limit: under SSE its whole event goes, under JSON lines the line. */
  #tooLong(head: string, lineNo: number, offset: number, length: number): void {
    if (this.#framing === FRAMING_UNKNOWN) {
      // The head decides the framing as the whole line would have (its first non-blank character).
      const i = firstNonSpace(head);
      if (i < head.length) this.#framing = head.charCodeAt(i) === 0x7b ? FRAMING_JSON_LINES : FRAMING_SSE;
    }
    if (this.#framing === FRAMING_SSE) {
      if (this.#eventLine === 0) {
        this.#eventLine = lineNo;
        this.#eventOffset = offset;
        this.#eventHead = head;
      }
      this.#discardEvent(`its line ${lineNo} alone has ${length} characters`);
      return;
    }
    this.#sink.report(
      DiagnosticReason.tooLong,
      lineNo,
      offset,
      head,
      `line of ${length} characters is longer than maxEventLength (${this.#maxLength} characters); discarded`,
    );
  }

  /**
   * Reports the SSE event being assembled as too long, once, where it starts, and drops all of
   * it: what the parser holds now, and every line up to the blank line that ends the event.
   */
  #discardEvent(why: string): void {
    this.#sink.report(
      DiagnosticReason.tooLong,
      this.#eventLine,
      this.#eventOffset,
      this.#eventHead,
      `SSE event longer than maxEventLength (${this.#maxLength} characters), ${why}; discarded up to the blank line that ends it`,
    );
    this.#parser.reset();
    this.#eventLine = 0;
    this.#eventHead = '';
    this.#skippingEvent = true;
  }

  #line(line: string, lineNo: number, offset: number, final: boolean): void {
    if (this.#framing === FRAMING_UNKNOWN) {
      const i = firstNonSpace(line);
      if (i === line.length) return;
      this.#framing = line.charCodeAt(i) === 0x7b ? FRAMING_JSON_LINES : FRAMING_SSE;
    }
    if (this.#framing === FRAMING_JSON_LINES) {
      if (firstNonSpace(line) === line.length) return;
      this.#sink.event(line, undefined, lineNo, offset, final);
      return;
    }
    if (line === '') {
      if (this.#eventLine === 0) return;
      this.#dispatchLine = this.#eventLine;
      this.#dispatchOffset = this.#eventOffset;
      this.#eventLine = 0;
    } else {
      if (this.#eventLine === 0) {
        this.#eventLine = lineNo;
        this.#eventOffset = offset;
        this.#eventHead = line.slice(0, EXCERPT_HEAD);
      } else if (this.#eventHead.length < EXCERPT_HEAD) {
        this.#eventHead += `\n${line.slice(0, EXCERPT_HEAD - this.#eventHead.length - 1)}`;
      }
      this.#currentLine = lineNo;
      this.#currentOffset = offset;
    }
    this.#parser.feed(`${line}\n`);
    if (this.#parserOverflow) {
      this.#parserOverflow = false;
      // Every line fits but the data joined does not: the rest of the event must not become one.
      this.#discardEvent('its data lines joined');
    }
  }

  #sseEvent(message: EventSourceMessage): void {
    this.#sink.event(message.data, message.event, this.#dispatchLine, this.#dispatchOffset, this.#atEnd);
  }

  #sseError(error: ParseError): void {
    if (error.type === 'max-buffer-size-exceeded') {
      // Reported by the line that caused it, once the parser has returned (see `line`).
      this.#parserOverflow = true;
    } else if (error.type === 'unknown-field') {
      this.#sink.report(
        DiagnosticReason.prose,
        this.#currentLine,
        this.#currentOffset,
        error.line ?? '',
        'not an SSE line (data:, event:, id:, retry: or a : comment); ignored',
      );
    }
    // An invalid `retry:` value only concerns reconnection, which a decoder does not do.
  }
}
