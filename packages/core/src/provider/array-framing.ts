/**
 * JSON-array body framing: the decoded body of one streamed JSON array (what Gemini and Vertex
 * AI `streamGenerateContent` send without `alt=sse`: `[{…}\n,\r\n{…}\n]`, pretty-printed
 * objects, a comma between them), split anywhere, in; each element, as its own event with the
 * line and offset where it starts, out — as soon as the element's closing bracket arrives.
 *
 * Elements are found by their brackets (strings, and escapes inside them, skipped), not checked:
 * the decoder's `JSON.parse` of each element checks it, as it checks every SSE event and JSON
 * line. So the framing is lenient about what lies between elements (commas, blank lines); an
 * element that is not a container (`1`, `"x"`) ends at the next comma or `]`. A body cut
 * inside an element dispatches what arrived, flagged `final` (the decoder reports it
 * `truncated`); a missing closing `]` is not itself reported (the format's end marker decides
 * whether the answer is complete, as for an SSE body without its last blank line).
 *
 * Diagnostics raised here: `too-long` (an element longer than `maxEventLength`, reported where it
 * starts with its first characters, its text let go while its brackets are still followed) and
 * `prose` (text after the array's closing `]`, once per stream). Lines end at `\n`, `\r\n` or a
 * lone `\r`, as under the line framing, counted by native searches only where a position needs
 * its line. Each character is looked at once (per kind of search), and the text kept is the
 * element in flight: work is linear however small the chunks.
 */

import { DiagnosticReason } from '../diagnostics/diagnostics.js';
import type { EndPosition, FramerSink } from './framer-sink.js';

/** Before the opening `[` (or after a closing `]`: another array may follow). */
const OUTSIDE = 0;
/** Inside the array, between elements. */
const BETWEEN = 1;
/** Inside an element. */
const ELEMENT = 2;
/** In stray text outside the array, up to the end of its line. */
const STRAY = 3;

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
/** Characters of a discarded element kept for its diagnostic's excerpt. */
const EXCERPT_HEAD = 200;

/** The index of the line break that ends the line holding `i` (or the end of `text`). */
function lineEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length && text.charCodeAt(j) !== LF && text.charCodeAt(j) !== CR) j++;
  return j;
}

export class JsonArrayFramer {
  #state = OUTSIDE;
  /** Containers open inside the element (0: between them, or in a scalar element). */
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The element in flight, when it is kept. */
  #text = '';
  #length = 0;
  #discarding = false;
  #elementLine = 0;
  #elementOffset = 0;
  /** The line of the next character (from 1), and the offset of the next character. */
  #line: number;
  #offset: number;
  /** The text so far ended with `\r`: a `\n` first in the next piece ends no other line. */
  #afterCR = false;
  /** The next `\n` and `\r` at or after the counted part of the text being framed (-1: none; -2: not searched). */
  #nextLF = -2;
  #nextCR = -2;
  #strayReported = false;

  readonly #maxLength: number;
  readonly #sink: FramerSink;

  constructor(maxLength: number, sink: FramerSink, line: number, offset: number) {
    this.#maxLength = maxLength;
    this.#sink = sink;
    this.#line = line;
    this.#offset = offset;
  }

  write(text: string): void {
    const n = text.length;
    if (n === 0) return;
    const base = this.#offset;
    // The hot loop works on locals, written back when it leaves or calls out.
    let state = this.#state;
    let depth = this.#depth;
    /** Line breaks before this index are counted (lazily: where a position needs its line). */
    let counted = this.#afterCR && text.charCodeAt(0) === LF ? 1 : 0;
    this.#nextLF = -2;
    this.#nextCR = -2;
    /** Where the kept part of the element in flight starts in `text` (-1: none). */
    let keep = state === ELEMENT && !this.#discarding ? 0 : -1;
    let i = 0;
    if (this.#inString) {
      i = this.#skipString(text, 0);
      if (i === -1) i = n;
    }
    while (i < n) {
      let c = text.charCodeAt(i);
      if (state === ELEMENT && depth > 0) {
        // Inside a container only quotes and brackets matter: the rest is passed in a tight loop.
        while (c !== QUOTE && c !== OPEN_BRACE && c !== CLOSE_BRACE && c !== OPEN_BRACKET && c !== CLOSE_BRACKET) {
          if (++i === n) break;
          c = text.charCodeAt(i);
        }
        if (i === n) break;
        if (c === QUOTE) {
          i = this.#skipString(text, i + 1);
          if (i === -1) i = n;
          continue;
        }
        if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          depth++;
        } else if (--depth === 0) {
          state = BETWEEN;
          this.#complete(text, keep, i + 1);
          keep = -1;
        }
        i++;
        continue;
      }
      if (state === STRAY) {
        // The rest of the line is part of the same stray text.
        i = lineEnd(text, i);
        if (i < n) state = OUTSIDE;
        continue;
      }
      if (c === SPACE || c === LF || c === CR || c === TAB) {
        i++;
        continue;
      }
      if (state === BETWEEN) {
        if (c === CLOSE_BRACKET) {
          state = OUTSIDE;
        } else if (c !== COMMA) {
          this.#line += this.#lineBreaks(text, counted, i);
          counted = i;
          state = ELEMENT;
          keep = this.#start(base + i, i);
          depth = c === OPEN_BRACE || c === OPEN_BRACKET ? 1 : 0;
          if (c === QUOTE) {
            i = this.#skipString(text, i + 1);
            if (i === -1) i = n;
            continue;
          }
        }
      } else if (state === ELEMENT) {
        // A scalar element: it ends at the next comma or `]`.
        if (c === QUOTE) {
          i = this.#skipString(text, i + 1);
          if (i === -1) i = n;
          continue;
        }
        if (c === COMMA || c === CLOSE_BRACKET) {
          state = c === COMMA ? BETWEEN : OUTSIDE;
          this.#complete(text, keep, i);
          keep = -1;
        }
      } else if (c === OPEN_BRACKET) {
        state = BETWEEN;
      } else {
        this.#line += this.#lineBreaks(text, counted, i);
        counted = i;
        this.#stray(base + i);
        state = STRAY;
        continue;
      }
      i++;
    }
    this.#line += this.#lineBreaks(text, counted, n);
    this.#afterCR = text.charCodeAt(n - 1) === CR;
    this.#state = state;
    this.#depth = depth;
    this.#offset = base + n;
    if (keep !== -1) this.#keep(text.slice(keep));
  }

  /**
   * Line breaks in `text[from, to)`: `\n`, and `\r` not followed by `\n`. Native searches, each
   * result kept until passed, so every character is searched once per kind.
   */
  #lineBreaks(text: string, from: number, to: number): number {
    let count = 0;
    let j = this.#nextLF;
    if (j !== -1 && j < from) j = text.indexOf('\n', from);
    for (; j !== -1 && j < to; j = text.indexOf('\n', j + 1)) count++;
    this.#nextLF = j;
    j = this.#nextCR;
    if (j !== -1 && j < from) j = text.indexOf('\r', from);
    for (; j !== -1 && j < to; j = text.indexOf('\r', j + 1)) if (text.charCodeAt(j + 1) !== LF) count++;
    this.#nextCR = j;
    return count;
  }

  /**
   * Skips string characters from `from` (just inside a string, or past a split escape): returns
   * the index after the closing quote, or -1 when `text` ends inside the string (`inString` and
   * `escaped` say where).
   */
  #skipString(text: string, from: number): number {
    const n = text.length;
    let i = from;
    if (this.#escaped) {
      this.#escaped = false;
      i++;
    }
    // Keys and short values: a plain loop (a native search costs more to start than it saves).
    for (const short = Math.min(n, i + 64); i < short; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.#inString = false;
        return i + 1;
      }
      if (c === BACKSLASH) i++;
    }
    // A long string: native searches for its quote and its escapes.
    let backslash = -1;
    while (i < n) {
      const quote = text.indexOf('"', i);
      if (backslash < i) backslash = text.indexOf('\\', i);
      if (backslash !== -1 && (quote === -1 || backslash < quote)) {
        i = backslash + 2;
        continue;
      }
      if (quote === -1) break;
      this.#inString = false;
      return quote + 1;
    }
    this.#inString = true;
    // A backslash last in the text escapes the first character of the next one.
    this.#escaped = i > n;
    return -1;
  }

  /** An element starts at `offset` (index `i` of the text being framed); returns where its kept part starts. */
  #start(offset: number, i: number): number {
    this.#text = '';
    this.#length = 0;
    this.#discarding = false;
    this.#elementLine = this.#line;
    this.#elementOffset = offset;
    return i;
  }

  /** Dispatches an element cut by the end of the body; returns where the end is. */
  end(): EndPosition {
    if (this.#state === ELEMENT) {
      this.#state = OUTSIDE;
      if (!this.#discarding && this.#text.trim() !== '') {
        this.#sink.event(this.#text, undefined, this.#elementLine, this.#elementOffset, true);
      }
      this.#text = '';
    }
    return { line: this.#line, offset: this.#offset };
  }

  /** Keeps `piece` of the element in flight, unless it makes the element too long. */
  #keep(piece: string): void {
    if (this.#discarding) return;
    this.#length += piece.length;
    if (this.#length > this.#maxLength) {
      // What any chunking has kept when the limit is passed: the excerpt does not depend on it.
      const excerpt = Math.min(EXCERPT_HEAD, this.#maxLength + 1);
      const head = (this.#text + piece.slice(0, excerpt)).slice(0, excerpt);
      this.#text = '';
      this.#discarding = true;
      this.#sink.report(
        DiagnosticReason.tooLong,
        this.#elementLine,
        this.#elementOffset,
        head,
        `array element longer than maxEventLength (${this.#maxLength} characters); discarded`,
      );
    } else {
      this.#text += piece;
    }
  }

  /** The element in flight ended at `end` of `text` (its kept part there starts at `keep`). */
  #complete(text: string, keep: number, end: number): void {
    if (keep !== -1) this.#keep(text.slice(keep, end));
    if (this.#discarding) {
      this.#discarding = false;
      return;
    }
    const element = this.#text;
    this.#text = '';
    this.#sink.event(element, undefined, this.#elementLine, this.#elementOffset, false);
  }

  #stray(offset: number): void {
    if (this.#strayReported) return;
    this.#strayReported = true;
    this.#sink.report(
      DiagnosticReason.prose,
      this.#line,
      offset,
      '',
      'text outside the JSON array (after its closing bracket); ignored (and any that follows)',
    );
  }
}
