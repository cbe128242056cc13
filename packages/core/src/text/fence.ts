/**
 * Markdown code fences: the one recogniser of fence lines and fenced blocks, for the JSONL
 * decoder (a fence line is skipped), the salvage scanner (fenced blocks in text arriving in
 * chunks) and `extractJson`'s repair (the fenced blocks of a whole text).
 *
 * A fence line is a line of its own made of: at most 16 spaces or tabs, a run of three or more
 * backticks or of three or more tildes, then optionally spaces and one info word of at most 32
 * letters, digits or `_ . + # -` (```` ```json ````, ```` ```JSONL ````, `~~~`, in any case),
 * then optionally spaces; a carriage return counts as a space (CRLF text). Anything else after
 * the marker (```` ```json {"a": 1} ````) makes it an ordinary line, so JSON on a fence line
 * is never skipped silently. A fence line opens a fenced block; the block closes at the next
 * fence line of the same marker character, at least as long as the opening run and without an
 * info word. A block that never closes runs to the end of the text.
 *
 * Work is linear: `FenceLine` and `fencedBlocks` look at each character of a line once, by
 * position, and decide a line split over any number of chunks the same as the whole line;
 * `isFenceLine`'s regular expression never backtracks more than once per character.
 */

/** Most spaces or tabs before a fence line's marker run. */
export const MAX_FENCE_INDENT = 16;
/** Longest info word of a fence line. */
export const MAX_FENCE_INFO_LENGTH = 32;

const BACKTICK = 0x60;
const TILDE = 0x7e;
const LINE_FEED = 0x0a;

// Phases of a fence line after its indentation.
const MARKERS = 0;
const BEFORE_INFO = 1;
const INFO = 2;
const AFTER_INFO = 3;

/** True for a character that can start a fence line's marker run: a backtick or a tilde. */
export function isFenceMarker(c: number): boolean {
  return c === BACKTICK || c === TILDE;
}

/**
 * True when `text[from..to)` can be the indentation of a fence line: at most
 * `MAX_FENCE_INDENT` characters, each a space or a tab. An index outside `text` is not
 * indentation.
 */
export function isFenceIndent(text: string, from: number, to: number): boolean {
  if (to - from > MAX_FENCE_INDENT) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d;
}

function isInfoChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x2e ||
    c === 0x2b ||
    c === 0x23 ||
    c === 0x2d
  );
}

/**
 * One fence line recognised from its first marker on, over text that may arrive in pieces:
 * `begin` at the marker, then `feed` each piece of the line in order until it returns the
 * index of the line feed (or the text ends); `complete` then says whether it is a fence line.
 * One object serves any number of lines.
 */
export class FenceLine {
  /** The marker character (a backtick or a tilde). */
  marker = 0;
  /** Length of the marker run so far. */
  count = 0;
  /** The info word as written (not lower-cased), or ''. */
  info = '';
  /** Where the marker run starts (whatever offsets the caller counts in). */
  start = 0;
  #phase = MARKERS;

  /** Starts a line whose marker run starts at `start` with the character `marker`. */
  begin(marker: number, start: number): void {
    this.marker = marker;
    this.count = 0;
    this.info = '';
    this.start = start;
    this.#phase = MARKERS;
  }

  /**
   * Reads `text[from..]` as the continuation of the line: returns the index of the line feed
   * that ends it, `text.length` when the line goes on past `text`, or -1 as soon as the line
   * cannot be a fence line.
   */
  feed(text: string, from: number): number {
    const length = text.length;
    const marker = this.marker;
    let phase = this.#phase;
    let i = from;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c === LINE_FEED) break;
      if (phase === MARKERS) {
        if (c === marker) {
          this.count++;
          i++;
          continue;
        }
        if (this.count < 3) return -1;
        phase = BEFORE_INFO;
      }
      if (phase === INFO) {
        const at = i;
        while (i < length && isInfoChar(text.charCodeAt(i))) i++;
        if (i > at) {
          this.info += text.slice(at, i);
          if (this.info.length > MAX_FENCE_INFO_LENGTH) return -1;
          continue;
        }
        if (!isSpace(c)) return -1;
        phase = AFTER_INFO;
      } else if (phase === BEFORE_INFO && isInfoChar(c)) {
        phase = INFO;
        continue;
      } else if (!isSpace(c)) {
        return -1;
      }
      i++;
    }
    this.#phase = phase;
    return i;
  }

  /** True when the line read so far is a fence line, should it end here. */
  get complete(): boolean {
    return this.count >= 3;
  }

  /** True when this complete line closes a block opened by a run of `count` `marker` characters. */
  closes(marker: number, count: number): boolean {
    return this.marker === marker && this.count >= count && this.info === '';
  }
}

/**
 * A whole fence line (without its line break): the grammar above as one anchored regular
 * expression, for the JSONL decoder, whose lines arrive whole (and whose Web bundle stays small).
 * Linear: the pieces it chains are disjoint character classes, so a failed match gives back each
 * character at most once. `FenceLine` reads the same grammar (packages/core/test/fence.test.ts
 * holds the two equal).
 */
const FENCE_LINE = /^[ \t]{0,16}(?:`{3,}|~{3,})[ \t\r]*(?:[\w.+#-]{1,32}[ \t\r]*)?$/;

/** True when `line` (without its line break) is a markdown fence line. */
export function isFenceLine(line: string): boolean {
  return FENCE_LINE.test(line);
}

/** A fenced block of a whole text. */
export interface FencedBlock {
  /** Offset of the block's first character: just after the opening fence line's line feed. */
  readonly start: number;
  /** Offset just after its last character: the start of the closing fence line, or the end of the text. */
  readonly end: number;
  /** The opening line's info word, lower-cased ('' for none). */
  readonly info: string;
}

/** The fenced blocks of `text`, in order (see the file's comment for what a fence is). */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const line = new FenceLine();
  const length = text.length;
  let open = false;
  let marker = 0;
  let count = 0;
  let info = '';
  let start = 0;
  let lineStart = 0;
  while (lineStart < length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = length;
    let i = lineStart;
    while (i < lineEnd && i - lineStart <= MAX_FENCE_INDENT) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09) break;
      i++;
    }
    const c = text.charCodeAt(i);
    if (i < lineEnd && i - lineStart <= MAX_FENCE_INDENT && isFenceMarker(c)) {
      line.begin(c, i);
      if (line.feed(text, i) === lineEnd && line.complete) {
        if (!open) {
          open = true;
          marker = line.marker;
          count = line.count;
          info = line.info.toLowerCase();
          start = Math.min(length, lineEnd + 1);
        } else if (line.closes(marker, count)) {
          open = false;
          blocks.push({ start, end: lineStart, info });
        }
      }
    }
    lineStart = lineEnd + 1;
  }
  if (open) blocks.push({ start, end: length, info });
  return blocks;
}

/** The text of an inline code span: from `start` to `end`, without its backtick runs. */
export interface InlineCodeSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * Inline code spans on one line (`` `{"a": 1}` ``, ``` ``x`` ```), left to right, in linear time.
 *
 * A span opens with a run of backticks and closes at the next backtick on the same line; its
 * text has at least one character and no backtick. When the two runs differ in length, the
 * span takes as many backticks from each as the shorter run has: the opening run's last ones,
 * the closing run's first ones, and the closing run's rest may open the next span. A line
 * break or the end of the text before the closing run means no span there.
 */
export function inlineCodeSpans(text: string): InlineCodeSpan[] {
  const spans: InlineCodeSpan[] = [];
  const n = text.length;
  let i = text.indexOf('`');
  while (i >= 0 && i < n) {
    let contentStart = i;
    while (contentStart < n && text.charCodeAt(contentStart) === BACKTICK) contentStart++;
    let close = contentStart;
    while (close < n) {
      const c = text.charCodeAt(close);
      if (c === BACKTICK || c === LINE_FEED) break;
      close++;
    }
    if (close === contentStart || close === n || text.charCodeAt(close) === LINE_FEED) {
      // No span opens in this run; the search goes on after it.
      i = close === n ? -1 : text.indexOf('`', close);
      continue;
    }
    let closeEnd = close;
    while (closeEnd < n && text.charCodeAt(closeEnd) === BACKTICK) closeEnd++;
    const width = Math.min(contentStart - i, closeEnd - close);
    spans.push({ start: contentStart, end: close });
    // The closing run's backticks beyond the span's width may open the next span.
    i = text.indexOf('`', close + width);
  }
  return spans;
}
