/**
 * The engine of the prefix checks of text in flight: a JSON value's text, piece by piece, read by
 * a JsonScanner whose structure events drive a PrefixChecker (prefix-check.ts). The JSONL line
 * check (jsonl-prefix.ts) and the array element check (element-prefix.ts) each wrap one and add
 * only what is theirs (which text is fed, where it ends); like them, it is imported only by them,
 * so that a bundle that never checks prefixes does not carry it (decision 018).
 *
 * Invariants: chunking does not matter (what is decided depends on the text only); each
 * character is read once, by the scanner or — inside a string whose text no check reads — by a
 * plain loop that only looks for its end (the scanner waits, inside the string, and takes over
 * at the closing quote, an escape it was left in completed); the text kept is what a key, number
 * or checked string in flight needs, and per open container a small frame; at most one
 * violation per value: it stops the feed, then is forwarded.
 */

import { JsonScanner, SCAN_MORE, type ScanEvents } from './json-scanner.js';
import { PrefixChecker, type PrefixCheckOptions, type PrefixViolation } from './prefix-check.js';
import type { JsonSchema } from './schema-validator.js';
import { unfinishedEscape } from './string-escape.js';

const KIND_NONE = 0;
const KIND_STRING = 1;
const KIND_SCALAR = 2;

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * One value's text checked as it arrives: `begin` it, then give each piece to `skip` (while
 * `skipping`) and `scan`, in order and without gaps; it stops by itself when the value ends, its
 * text can no longer be JSON, or a violation is found (`live` turns false), or when told to
 * (`stop`).
 */
export class PrefixFeed implements ScanEvents {
  readonly #scanner = new JsonScanner();
  readonly #schema: JsonSchema;
  readonly #exported: boolean;
  readonly #options: PrefixCheckOptions | undefined;
  readonly #onViolation: (violation: PrefixViolation) => void;
  #checker: PrefixChecker | undefined; // made once, reset for each value
  #live = false; // a value is being checked

  // The piece being scanned, and text of a key, number or string in flight from earlier pieces.
  #chunk = '';
  #chunkBase = 0;
  #carried = '';
  #carriedFrom = 0;
  #kind = KIND_NONE; // the string or scalar in flight
  #valueFrom = 0;
  #reads = false; // the string in flight is read by the checker
  #stringDone = 0; // absolute offset up to which its raw text was appended (`#reads` only)
  #string = ''; // its decoded text so far (`#reads` only)
  // A string that no check reads, crossed without the scanner: the escape the loop is in
  // (0 none, 1 after a backslash, 2-5 `\u` and 0-3 hex digits), and the one the scanner was
  // left in.
  #skipping = false;
  #escape = 0;
  #scannerEscape = 0;

  /**
   * `options`: the checker's (none: its defaults); `maxDepth`: deepest nesting scanned (deeper
   * stops the feed silently); `onViolation`: called with the checker's violation, after the feed
   * stopped.
   */
  constructor(
    schema: JsonSchema,
    exported: boolean,
    options: PrefixCheckOptions | undefined,
    maxDepth: number,
    onViolation: (violation: PrefixViolation) => void,
  ) {
    this.#schema = schema;
    this.#exported = exported;
    this.#options = options;
    this.#onViolation = onViolation;
    this.#scanner.maxDepth = maxDepth;
    this.#scanner.events = this;
  }

  /** A value is being checked: begun, and not stopped since. */
  get live(): boolean {
    return this.#live;
  }

  /** The text fed next is inside a string no check reads: give it to `skip` before `scan`. */
  get skipping(): boolean {
    return this.#skipping;
  }

  /** A value starts: what the last one held is let go, and a new checker reads it. */
  begin(): void {
    this.#scanner.reset();
    this.#carried = '';
    this.#string = '';
    this.#kind = KIND_NONE;
    this.#skipping = false;
    if (this.#checker === undefined) {
      this.#checker = new PrefixChecker(this.#schema, (found) => this.#violation(found), this.#exported, this.#options);
    } else {
      this.#checker.reset();
    }
    this.#live = true;
  }

  /** Nothing more of the value is checked; what it held is let go. */
  stop(): void {
    if (!this.#live) return;
    this.#live = false;
    this.#checker?.reset();
    this.#skipping = false;
    this.#carried = '';
    this.#string = '';
    this.#chunk = '';
  }

  #violation(found: PrefixViolation): void {
    if (!this.#live) return;
    this.stop();
    this.#onViolation(found);
  }

  /**
   * Crosses a string no check reads, in `piece[from, to)` (`skipping` only): returns the index
   * of its closing quote, with the scanner ready to read it, or -1 (the string goes on, or is
   * not JSON: then the feed stops).
   */
  skip(piece: string, from: number, to: number): number {
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

  /** The text is not JSON: nothing more is checked. */
  #invalid(): number {
    this.stop();
    return -1;
  }

  /** Scans `text`, the value's text from absolute offset `base` on (`live` and not `skipping` only). */
  scan(text: string, base: number): void {
    this.#chunk = text;
    this.#chunkBase = base;
    const scanner = this.#scanner;
    scanner.base = base;
    const end = scanner.scan(text, 0);
    if (!this.#live || end !== SCAN_MORE) {
      // The value ended, its text can no longer be JSON, or a violation was reported.
      this.stop();
      return;
    }
    const to = base + text.length;
    if (this.#kind === KIND_STRING) {
      if (!this.#reads) {
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
      if (!this.#live) return;
    }
    this.#carry(to);
  }

  valueStart(depth: number, start: number): void {
    if (!this.#live) return;
    const checker = this.#checker as PrefixChecker;
    const c = this.#chunk.charCodeAt(start - this.#chunkBase);
    checker.start(depth, c, start);
    if (c === 0x7b || c === 0x5b) {
      this.#kind = KIND_NONE;
    } else if (c === 0x22) {
      this.#kind = KIND_STRING;
      this.#valueFrom = start;
      // Whether an `enum`, `const`, discriminator or `maxLength` applies to the string.
      this.#reads = checker.readsText;
      this.#stringDone = start + 1;
      this.#string = '';
    } else {
      this.#kind = KIND_SCALAR;
      this.#valueFrom = start;
    }
  }

  valueEnd(_depth: number, end: number): void {
    if (!this.#live) return;
    const checker = this.#checker as PrefixChecker;
    const kind = this.#kind;
    this.#kind = KIND_NONE;
    if (kind === KIND_STRING) {
      if (!this.#reads) {
        // No check reads its text.
        checker.endString('', end - 1);
        return;
      }
      this.#appendString(end - 1);
      if (!this.#live) return;
      const full = this.#string;
      this.#string = '';
      checker.endString(full, end - 1);
    } else if (kind === KIND_SCALAR) {
      const text = this.#text(this.#valueFrom, end);
      // The scanner accepted it: a JSON number (`Number` reads it as JSON.parse does) or a literal.
      const c = text.charCodeAt(0);
      checker.endScalar(c === 0x74 ? true : c === 0x66 ? false : c === 0x6e ? null : Number(text), text, end);
    } else {
      checker.close();
    }
  }

  key(depth: number, start: number, end: number): void {
    if (!this.#live) return;
    const raw = this.#text(start + 1, end - 1);
    const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
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
