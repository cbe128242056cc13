/**
 * Prefix validation of the JSONL line in flight (`prefixCheck` of the JSONL decoder): the
 * implementation the decoder is given as `prefixCheckWith: linePrefixCheck`. It lives apart
 * from the decoder, which imports only its types, so that a bundle that never checks prefixes
 * does not carry it (~25 KB minified with prefix-check.ts; decision 018). The Node streams and
 * the prompt runner pass it for you.
 */

import { JsonScanner, SCAN_MORE, type ScanEvents } from './json-scanner.js';
import { PrefixChecker, type PrefixPathSegment, type PrefixViolation } from './prefix-check.js';
import type { JsonSchema } from './schema-validator.js';
import { unfinishedEscape } from './string-escape.js';

/** What the decoder drives: one line's text, piece by piece, as it arrives. */
export interface LinePrefixCheck {
  /**
   * `piece` is the text of the line that starts at absolute offset `lineStart`, from position
   * `at` in that line on; `blockIndent`: the column of the open multi-line value's first
   * bracket when the line continues one, else -1.
   */
  feed(lineStart: number, at: number, piece: string, blockIndent: number): void;
}

/**
 * Makes the prefix check of a decoder: `undefined` when the schema has nothing a prefix can
 * break (no rule applies), so that the decoder scans nothing.
 */
export type LinePrefixFactory = (
  schema: JsonSchema,
  exported: boolean,
  maxLineLength: number,
  maxDepth: number,
  onViolation: (violation: PrefixViolation, lineStart: number) => void,
) => LinePrefixCheck | undefined;

/** The prefix check of JSONL lines: pass it as `prefixCheckWith` (the Node streams do). */
export const linePrefixCheck: LinePrefixFactory = (schema, exported, maxLineLength, maxDepth, onViolation) =>
  new PrefixChecker(schema, () => undefined, exported).active
    ? new LinePrefix(schema, exported, maxLineLength, maxDepth, onViolation)
    : undefined;

const PREFIX_WAIT = 0; // leading spaces and tabs: nothing decided yet
const PREFIX_BRACKET = 1; // a `[` and spaces: a line that is only `[` opens an array, one element per line
const PREFIX_LIVE = 2; // the value is scanned and checked
const PREFIX_OFF = 3; // nothing more of this line is looked at

const KIND_NONE = 0;
const KIND_STRING = 1;
const KIND_SCALAR = 2;

interface PrefixFrame {
  readonly path: readonly PrefixPathSegment[];
  readonly isArray: boolean;
  count: number;
  key: string;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Whether the checker reads the text of the string that just started (an `enum`, `const`, discriminator or `maxLength` applies to it). */
function readsString(checker: PrefixChecker): boolean {
  return checker.readsText;
}

/**
 * The prefix check of the line in flight: a JsonScanner whose structure events drive a
 * PrefixChecker (prefix-check.ts), fed each piece of the line as it arrives. Each character
 * is read once: by the scanner, or — inside a string whose text no check reads, most of a
 * line's text — by a plain loop that only looks for its end (the scanner waits, inside the
 * string, and takes over at the closing quote). It keeps no text but what a key, number or
 * checked string in flight needs (bounded by the line, itself bounded by `maxLineLength`), and
 * per open container a small frame.
 *
 * Which text of a line is checked (all of it decided by the text, so chunking does not matter):
 * - only a line whose first character after spaces and tabs is `{`, or `[` followed on the
 *   same line by anything but spaces and tabs (a line that is only `[` opens an array written
 *   one element per line, whose elements are what the schema is for); inside a multi-line
 *   value, only a line that starts a new value (its bracket no further right than the open
 *   value's first one);
 * - the line's first value, up to its end, the first `\r` (a lone carriage return may turn out
 *   to be a line break: see the decoder's `#lineBreaks`), or `maxLineLength` characters;
 * - at most one violation per line: after it, the line is not looked at again.
 */
class LinePrefix implements ScanEvents, LinePrefixCheck {
  readonly #scanner = new JsonScanner();
  readonly #schema: JsonSchema;
  readonly #exported: boolean;
  readonly #maxLineLength: number;
  readonly #onViolation: (violation: PrefixViolation, lineStart: number) => void;
  #checker: PrefixChecker | undefined;
  readonly #frames: PrefixFrame[] = [];

  // The line being checked.
  #lineStart = -1; // absolute offset of its first character; -1 before the first line
  #fed = 0; // characters of it consumed (checked or passed over)
  #state = PREFIX_OFF;
  #bracketAt = 0; // absolute offset of the `[` in PREFIX_BRACKET
  #blockIndent = -1; // see `feed`

  // The piece being scanned, and text of a key, number or string in flight from earlier pieces.
  #chunk = '';
  #chunkBase = 0;
  #carried = '';
  #carriedFrom = 0;
  #kind = KIND_NONE; // the string or scalar in flight
  #valueFrom = 0;
  #live = false; // the string in flight is read by the checker
  #stringDone = 0; // absolute offset up to which its raw text was appended (`#live` only)
  #string = ''; // its decoded text so far (`#live` only)
  // A string that no check reads, crossed without the scanner: the escape the loop is in
  // (0 none, 1 after a backslash, 2-5 `\u` and 0-3 hex digits), and the one the scanner was
  // left in.
  #skipping = false;
  #escape = 0;
  #scannerEscape = 0;

  constructor(
    schema: JsonSchema,
    exported: boolean,
    maxLineLength: number,
    maxDepth: number,
    onViolation: (violation: PrefixViolation, lineStart: number) => void,
  ) {
    this.#schema = schema;
    this.#exported = exported;
    this.#maxLineLength = maxLineLength;
    this.#onViolation = onViolation;
    this.#scanner.maxDepth = maxDepth;
    this.#scanner.events = this;
  }

  /**
   * `piece` is the text of the line that starts at absolute offset `lineStart`, from position
   * `at` in that line on (what was consumed already is passed over). `blockIndent`: the column
   * of the open multi-line value's first bracket when the line continues one, else -1 (read
   * only with the line's first piece).
   */
  feed(lineStart: number, at: number, piece: string, blockIndent: number): void {
    if (lineStart !== this.#lineStart) {
      this.#stop();
      this.#lineStart = lineStart;
      this.#fed = 0;
      this.#state = PREFIX_WAIT;
      this.#blockIndent = blockIndent;
    }
    if (this.#state === PREFIX_OFF) return;
    let from = this.#fed - at;
    let to = piece.length;
    if (from !== 0) {
      if (from < 0) {
        // Text of the line went by unseen (cannot happen: every piece is fed): check nothing more.
        this.#stop();
        return;
      }
      if (from >= to) return;
    }
    let last = false;
    if (at + to >= this.#maxLineLength) {
      to = Math.max(from, this.#maxLineLength - at);
      last = true;
    }
    this.#fed = at + to;
    if (this.#skipping) {
      from = this.#skip(piece, from, to);
    } else if (this.#state !== PREFIX_LIVE) {
      from = this.#first(piece, from, to, at);
    }
    if (from >= 0 && from < to) {
      const cr = piece.indexOf('\r', from);
      if (cr !== -1 && cr < to) {
        to = cr;
        last = true;
      }
      if (from < to)
        this.#scan(from === 0 && to === piece.length ? piece : piece.slice(from, to), lineStart + at + from);
    }
    if (last) this.#stop();
  }

  /**
   * Before the value: finds where it starts in `piece[from, to)` and starts it (returns the
   * index to scan from), or returns -1 (nothing to scan in this piece).
   */
  #first(piece: string, from: number, to: number, at: number): number {
    for (let i = from; i < to; i++) {
      const c = piece.charCodeAt(i);
      if (c === 0x20 || c === 0x09) continue;
      if (c === 0x0d) return this.#invalid();
      if (this.#state === PREFIX_BRACKET) {
        this.#begin();
        this.#scan('[', this.#bracketAt);
        return (this.#state as number) === PREFIX_LIVE ? i : -1;
      }
      const column = at + i;
      if ((this.#blockIndent >= 0 && column > this.#blockIndent) || (c !== 0x7b && c !== 0x5b)) return this.#invalid();
      if (c === 0x5b) {
        this.#state = PREFIX_BRACKET;
        this.#bracketAt = this.#lineStart + column;
        continue;
      }
      this.#begin();
      return i;
    }
    return -1;
  }

  /**
   * Crosses a string no check reads, in `piece[from, to)`: returns the index of its closing
   * quote, with the scanner ready to read it, or -1 (the string goes on, or is not JSON).
   */
  #skip(piece: string, from: number, to: number): number {
    let state = this.#escape;
    for (let i = from; i < to; i++) {
      const c = piece.charCodeAt(i);
      if (state === 0) {
        if (c === 0x22) {
          this.#skipping = false;
          // The scanner waits where it stopped, perhaps inside an escape: complete that one.
          const pending = this.#scannerEscape;
          if (pending !== 0) this.#scanner.scan(pending === 1 ? 'n' : '0000'.slice(pending - 2));
          return i;
        }
        if (c === 0x5c) state = 1;
        else if (c < 0x20) return this.#invalid();
      } else if (state === 1) {
        if (c === 0x75) state = 2;
        else if (
          c === 0x22 ||
          c === 0x5c ||
          c === 0x2f ||
          c === 0x62 ||
          c === 0x66 ||
          c === 0x6e ||
          c === 0x72 ||
          c === 0x74
        )
          state = 0;
        else return this.#invalid();
      } else {
        if (!isHexDigit(c)) return this.#invalid();
        state = state === 5 ? 0 : state + 1;
      }
    }
    this.#escape = state;
    return -1;
  }

  /** Nothing (more) to check on this line: not JSON, or not a line the check is for. */
  #invalid(): number {
    this.#stop();
    return -1;
  }

  #begin(): void {
    this.#state = PREFIX_LIVE;
    this.#scanner.reset();
    if (this.#frames.length !== 0) this.#frames.length = 0;
    this.#carried = '';
    this.#kind = KIND_NONE;
    this.#skipping = false;
    this.#checker = new PrefixChecker(this.#schema, (v) => this.#violation(v), this.#exported);
  }

  /** Nothing more of this line is checked; what it held is let go. */
  #stop(): void {
    this.#state = PREFIX_OFF;
    this.#checker = undefined;
    this.#skipping = false;
    this.#carried = '';
    this.#string = '';
    this.#chunk = '';
    if (this.#frames.length !== 0) this.#frames.length = 0;
  }

  #violation(found: PrefixViolation): void {
    if (this.#state !== PREFIX_LIVE) return;
    this.#state = PREFIX_OFF;
    this.#onViolation(found, this.#lineStart);
  }

  /** Scans `text`, the line's text from absolute offset `base` on. */
  #scan(text: string, base: number): void {
    this.#chunk = text;
    this.#chunkBase = base;
    const scanner = this.#scanner;
    scanner.base = base;
    const end = scanner.scan(text, 0);
    if (this.#state !== PREFIX_LIVE || end !== SCAN_MORE) {
      // The value ended, the text can no longer be JSON, or a violation was reported.
      this.#stop();
      return;
    }
    const to = base + text.length;
    if (this.#kind === KIND_STRING) {
      if (!this.#live) {
        // From here on a plain loop crosses the string; the scanner stopped in it, perhaps in an escape.
        const start = this.#valueFrom + 1 - base;
        const pending = unfinishedEscape(start <= 0 ? text : text.slice(start));
        this.#skipping = true;
        this.#escape = pending;
        this.#scannerEscape = pending;
        this.#carried = '';
        return;
      }
      const raw = this.#text(this.#stringDone, to);
      const held = unfinishedEscape(raw);
      this.#appendString(to - held, held === 0 ? raw : raw.slice(0, raw.length - held));
      if (this.#state !== PREFIX_LIVE) {
        this.#stop();
        return;
      }
    }
    this.#carry(to);
  }

  valueStart(depth: number, start: number): void {
    if (this.#state !== PREFIX_LIVE) return;
    const checker = this.#checker as PrefixChecker;
    const c = this.#chunk.charCodeAt(start - this.#chunkBase);
    let path: readonly PrefixPathSegment[] = [];
    if (depth > 0) {
      const frame = this.#frames[depth - 1] as PrefixFrame;
      const inner = frame.path.slice();
      inner.push(frame.isArray ? frame.count++ : frame.key);
      path = inner;
    }
    checker.start(depth, c, start, path);
    if (c === 0x7b || c === 0x5b) {
      this.#frames.push({ path, isArray: c === 0x5b, count: 0, key: '' });
      this.#kind = KIND_NONE;
    } else if (c === 0x22) {
      this.#kind = KIND_STRING;
      this.#valueFrom = start;
      this.#live = readsString(checker);
      this.#stringDone = start + 1;
      this.#string = '';
    } else {
      this.#kind = KIND_SCALAR;
      this.#valueFrom = start;
    }
  }

  valueEnd(_depth: number, end: number): void {
    if (this.#state !== PREFIX_LIVE) return;
    const checker = this.#checker as PrefixChecker;
    const kind = this.#kind;
    this.#kind = KIND_NONE;
    if (kind === KIND_STRING) {
      if (!this.#live) {
        // No check reads its text (see readsString).
        checker.endString('', end - 1);
        return;
      }
      this.#appendString(end - 1);
      if (this.#state !== PREFIX_LIVE) return;
      const full = this.#string;
      this.#string = '';
      checker.endString(full, end - 1);
    } else if (kind === KIND_SCALAR) {
      const text = this.#text(this.#valueFrom, end);
      // The scanner accepted it: a JSON number (`Number` reads it as JSON.parse does) or a literal.
      const c = text.charCodeAt(0);
      checker.endScalar(c === 0x74 ? true : c === 0x66 ? false : c === 0x6e ? null : Number(text), text, end);
    } else {
      this.#frames.pop();
      checker.close();
    }
  }

  key(depth: number, start: number, end: number): void {
    if (this.#state !== PREFIX_LIVE) return;
    const raw = this.#text(start + 1, end - 1);
    const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
    const frame = this.#frames[depth - 1];
    if (frame !== undefined) frame.key = key;
    (this.#checker as PrefixChecker).key(depth, key, end - 1);
  }

  /** Appends the string's raw text up to `to` (absolute, exclusive) to its decoded text, and checks it. */
  #appendString(to: number, rawText?: string): void {
    if (to <= this.#stringDone) return;
    const rawFrom = this.#stringDone;
    const raw = rawText ?? this.#text(rawFrom, to);
    this.#stringDone = to;
    const added = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
    if (added === '') return;
    const full = this.#string + added;
    this.#string = full;
    (this.#checker as PrefixChecker).append(full, added, raw, rawFrom);
  }

  /** Text from `from` to `to` (absolute): the carried piece, then the current one. */
  #text(from: number, to: number): string {
    const chunkFrom = from - this.#chunkBase;
    if (chunkFrom >= 0) return this.#chunk.slice(chunkFrom, to - this.#chunkBase);
    const head = this.#carried.slice(from - this.#carriedFrom);
    return to <= this.#chunkBase ? head.slice(0, to - from) : head + this.#chunk.slice(0, to - this.#chunkBase);
  }

  /** At the end of a piece (which ends at `to`): keeps the text a key, number or checked string in flight still needs. */
  #carry(to: number): void {
    const key = this.#scanner.keyOpenAt;
    const from =
      key >= 0
        ? key
        : this.#kind === KIND_SCALAR
          ? this.#valueFrom
          : this.#kind === KIND_STRING
            ? this.#stringDone
            : -1;
    if (from < 0) {
      this.#carried = '';
      return;
    }
    // A key or number that goes on through this piece: a rope append, never a copy of what is carried.
    if (from === this.#carriedFrom && from < this.#chunkBase && this.#carried.length === this.#chunkBase - from) {
      this.#carried += this.#chunk;
      return;
    }
    this.#carried = this.#text(from, to);
    this.#carriedFrom = from;
  }
}
