/**
 * Prefix validation of the JSONL line in flight (`prefixCheck` of the JSONL decoder): the
 * implementation the decoder is given as `prefixCheckWith: linePrefixCheck`. It lives apart
 * from the decoder, which imports only its types, so that a bundle that never checks prefixes
 * does not carry it (~25 KB minified with prefix-check.ts and prefix-rules.ts; decision 018).
 * The Node streams and the prompt runner pass it for you.
 */

import type { JsonSchema } from '../schema/schema-validator.js';
import { PrefixChecker, type PrefixViolation } from './prefix-check.js';
import { PrefixFeed } from './prefix-feed.js';

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
const PREFIX_LIVE = 2; // the value is scanned and checked (while the feed is live)
const PREFIX_OFF = 3; // nothing more of this line is looked at

/**
 * The prefix check of the line in flight: a PrefixFeed (prefix-feed.ts: one loop that follows
 * the JSON syntax and drives a PrefixChecker) fed each piece of the line as it arrives. It keeps no text but what a key, number or checked
 * string in flight needs (bounded by the line, itself bounded by `maxLineLength`), and per open
 * container a small frame.
 *
 * Which text of a line is checked (all of it decided by the text, so chunking does not matter):
 * - only a line whose first character after spaces and tabs is `{`, or `[` followed on the
 *   same line by anything but spaces and tabs (a line that is only `[` opens an array written
 *   one element per line, whose elements are what the schema is for); inside a multi-line
 *   value, only a line that starts a new value (its bracket no further right than the open
 *   value's first one);
 * - the line's first value, up to its end, the first `\r` (a lone carriage return may turn out
 *   to be a line break: see `#lineBreaks` of the JSONL framing, engines/jsonl-framing.ts), or `maxLineLength` characters;
 * - at most one violation per line: after it, the line is not looked at again.
 */
class LinePrefix implements LinePrefixCheck {
  readonly #feed: PrefixFeed;
  readonly #maxLineLength: number;
  readonly #onViolation: (violation: PrefixViolation, lineStart: number) => void;

  // The line being checked.
  #lineStart = -1; // absolute offset of its first character; -1 before the first line
  #fed = 0; // characters of it consumed (checked or passed over)
  #state = PREFIX_OFF;
  #bracketAt = 0; // absolute offset of the `[` in PREFIX_BRACKET
  #blockIndent = -1; // see `feed`

  constructor(
    schema: JsonSchema,
    exported: boolean,
    maxLineLength: number,
    maxDepth: number,
    onViolation: (violation: PrefixViolation, lineStart: number) => void,
  ) {
    this.#feed = new PrefixFeed(schema, exported, undefined, maxDepth, (found) => this.#violation(found));
    this.#feed.endAtCarriageReturn = true;
    this.#maxLineLength = maxLineLength;
    this.#onViolation = onViolation;
  }

  /**
   * `piece` is the text of the line that starts at absolute offset `lineStart`, from position
   * `at` in that line on (what was consumed already is passed over). `blockIndent`: the column
   * of the open multi-line value's first bracket when the line continues one, else -1 (read
   * only with the line's first piece).
   */
  feed(lineStart: number, at: number, piece: string, blockIndent: number): void {
    const end = at + piece.length;
    if (lineStart === this.#lineStart && at === this.#fed && this.#state === PREFIX_LIVE && end < this.#maxLineLength) {
      // The common case: the next piece of a line being checked, well within maxLineLength.
      this.#fed = end;
      const feed = this.#feed;
      feed.write(piece, 0, piece.length, lineStart + at);
      if (!feed.live) this.#stop();
      return;
    }
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
    const feed = this.#feed;
    if (this.#state !== PREFIX_LIVE) from = this.#first(piece, from, to, at);
    // The feed stops by itself at the first `\r`.
    if (from >= 0 && from < to) feed.write(piece, from, to, lineStart + at);
    // The value ended, the text can no longer be JSON, or a violation was reported: the feed stopped.
    if (last || (this.#state === PREFIX_LIVE && !feed.live)) this.#stop();
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
        this.#feed.write('[', 0, 1, this.#bracketAt);
        return this.#feed.live ? i : -1;
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

  /** Nothing (more) to check on this line: not JSON, or not a line the check is for. */
  #invalid(): number {
    this.#stop();
    return -1;
  }

  #begin(): void {
    this.#state = PREFIX_LIVE;
    this.#feed.begin();
  }

  /** Nothing more of this line is checked; what it held is let go. */
  #stop(): void {
    this.#state = PREFIX_OFF;
    this.#feed.stop();
  }

  /** The feed found a violation, and stopped. */
  #violation(found: PrefixViolation): void {
    this.#state = PREFIX_OFF;
    this.#onViolation(found, this.#lineStart);
  }
}
