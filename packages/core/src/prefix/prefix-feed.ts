/**
 * The engine of the prefix checks of text in flight: a JSON value's text, piece by piece, read
 * by one loop that follows its syntax (exactly the grammar JsonScanner and `JSON.parse` accept)
 * and drives a PrefixChecker (prefix-check.ts) with its structure events. The JSONL line check
 * (jsonl-prefix.ts) and the array element check (element-prefix.ts) each wrap one and add only
 * what is theirs (which text is fed, where it ends); like them, it is imported only by them, so
 * that a bundle that never checks prefixes does not carry it (decision 018).
 *
 * Why its own loop rather than a JsonScanner with event callbacks: on token-sized pieces the
 * cost is per piece and per event, not per character (decision 027). One call per piece, the
 * syntax state in locals, the checker called directly, strings whose text no check reads
 * crossed by a tight loop, a container whose members no rule reaches followed for its syntax
 * only, and no text copied but a key, number or checked string in flight.
 *
 * Invariants: chunking does not matter (what is decided depends on the text only); each
 * character is read once; text that can no longer be JSON stops the feed silently at the same
 * character as JsonScanner would (a violation is never reported after it), and so does nesting
 * deeper than `maxDepth` (after the too-deep container's start was checked, as the scanner's
 * `valueStart` comes before its depth check); the text kept is what a key, number or checked
 * string in flight needs, and per open container a small frame; at most one violation per
 * value: it stops the feed, then is forwarded.
 */

import type { JsonSchema } from '../schema/schema-validator.js';
import { type KeyTrie, keyTrieOf } from './key-trie.js';
import { PrefixChecker, type PrefixCheckOptions, type PrefixViolation } from './prefix-check.js';

// Syntax states (JsonScanner's, with the string states split by what the string is).
const VALUE = 0; // expecting any value
const VALUE_OR_ARRAY_END = 1; // just after `[`
const KEY_OR_OBJECT_END = 2; // just after `{`
const KEY = 3; // after `,` in an object
const COLON = 4; // after a key
const COMMA_OR_END = 5; // after a value inside a container
const STRING = 6; // inside a string (a key, a checked string or one no check reads: `#stringKind`)
const ESCAPE = 7; // after a backslash in a string
const UNICODE = 8; // in the hex digits of a `\u` escape (`#unicodeLeft` to go)
const NUMBER_MINUS = 9; // after `-`
const NUMBER_ZERO = 10; // after a leading `0`
const NUMBER_INT = 11; // in integer digits
const NUMBER_DOT = 12; // after `.`
const NUMBER_FRACTION = 13; // in fraction digits
const NUMBER_E = 14; // after `e`/`E`
const NUMBER_E_SIGN = 15; // after the exponent sign
const NUMBER_EXPONENT = 16; // in exponent digits
const LITERAL = 17; // inside `true`, `false` or `null`

// What the string in flight is.
const STRING_KEY = 0;
const STRING_READ = 1; // a value whose text a check reads (`enum`, `const`, discriminator, `maxLength`)
const STRING_SKIP = 2; // a value whose text no check reads

// Container kinds on the stack.
const IN_OBJECT = 1;
const IN_ARRAY = 2;

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isEscapeLetter(c: number): boolean {
  return c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;
}

/** A JSON string's raw text (no quotes, complete escapes) decoded; `escaped`: it has an escape. */
function decode(raw: string, escaped: boolean): string {
  return escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
}

/**
 * One value's text checked as it arrives: `begin` it, then give each piece to `write`, in order
 * and without gaps; it stops by itself when the value ends, its text can no longer be JSON, or
 * a violation is found (`live` turns false), or when told to (`stop`).
 */
export class PrefixFeed {
  readonly #schema: JsonSchema;
  readonly #exported: boolean;
  readonly #options: PrefixCheckOptions | undefined;
  readonly #maxDepth: number;
  readonly #onViolation: (violation: PrefixViolation) => void;
  #checker: PrefixChecker | undefined; // made once, reset for each value
  #live = false; // a value is being checked
  /**
   * The text ends at its first carriage return (JSONL: a lone `\r` may turn out to be a line
   * break): what comes before it is checked, then the feed stops.
   */
  endAtCarriageReturn = false;

  // Syntax.
  #state = VALUE;
  readonly #stack: number[] = []; // container kinds, `#depth` of them open
  #depth = 0;
  /**
   * The depth of the open container nothing inside of which is checked (the schema has no rule
   * for its members), or 0: inside it only the syntax is followed, and the checker hears only
   * that the container closes.
   */
  #quiet = 0;
  #stringKind = STRING_SKIP;
  #unicodeLeft = 0;
  #literal = '';
  #literalIndex = 0;

  // The token in flight (a key, a number or literal, a checked string): where its text starts.
  /** The property names of the schema as an automaton (key-trie.ts), or undefined for none. */
  readonly #trie: KeyTrie | undefined;
  /**
   * The key in flight followed through `#trie`: its state (0: the key is not followed, its text
   * is kept from `#keyFrom` on). No text is kept while it is followed.
   */
  #keyState = 0;
  #keyStart = 0; // absolute offset of the followed key's first character
  #keyFrom = -1; // absolute offset of the key's first character after its quote, or -1
  #valueFrom = -1; // absolute offset of the number or literal in flight, or -1
  #stringDone = -1; // checked string in flight: absolute offset up to which its text was appended, or -1
  #escapeAt = 0; // absolute offset of the backslash of the escape in flight
  #escaped = false; // the key, or the checked string's text not yet appended, has an escape
  #string = ''; // the checked string's decoded text so far

  // The piece being written (absolute offset of its index 0, and where this write starts), and
  // the text of the token in flight from earlier pieces: `#carried` from `#carriedFrom` on.
  #piece = '';
  #base = 0;
  #writeFrom = 0;
  #carried = '';
  #carriedFrom = 0;

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
    this.#maxDepth = maxDepth;
    this.#onViolation = onViolation;
    this.#trie = keyTrieOf(schema);
  }

  /** A value is being checked: begun, and not stopped since. */
  get live(): boolean {
    return this.#live;
  }

  /** A value starts: what the last one held is let go, and a new checker reads it. */
  begin(): void {
    this.#state = VALUE;
    this.#depth = 0;
    this.#quiet = 0;
    this.#keyState = 0;
    this.#keyFrom = -1;
    this.#valueFrom = -1;
    this.#stringDone = -1;
    this.#carried = '';
    this.#string = '';
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
    this.#carried = '';
    this.#string = '';
    this.#piece = '';
  }

  #violation(found: PrefixViolation): void {
    if (!this.#live) return;
    this.stop();
    this.#onViolation(found);
  }

  /**
   * Reads `piece[from, until)`, the value's text from absolute offset `base + from` on (it follows
   * the last piece written without a gap). Nothing happens when the feed is not `live`.
   */
  write(piece: string, from: number, until: number, base: number): void {
    if (!this.#live) return;
    let to = until;
    let state = this.#state;
    if (state === STRING && this.#stringKind === STRING_SKIP) {
      // Inside a string no check reads (most of the text): nothing to do until it ends.
      while (from < to) {
        const c = piece.charCodeAt(from);
        if (c === 0x22 || c === 0x5c || c < 0x20) break;
        from++;
      }
    }
    if (from >= to) return;
    this.#piece = piece;
    this.#base = base;
    this.#writeFrom = base + from;
    const checker = this.#checker as PrefixChecker;
    const stack = this.#stack;
    let depth = this.#depth;
    let quiet = this.#quiet;
    let keyState = this.#keyState;
    const crEnds = this.endAtCarriageReturn;
    let cut = false; // a carriage return ends the text at `to`
    for (let i = from; i < to; i++) {
      let c = piece.charCodeAt(i);
      if (c === 0x0d && crEnds) {
        to = i;
        cut = true;
        break;
      }
      switch (state) {
        case STRING: {
          if (keyState !== 0) {
            // A key followed through the names' automaton: one table read per character.
            const trie = this.#trie as KeyTrie;
            const columns = trie.columns;
            const table = trie.next;
            const width = trie.width;
            while (c !== 0x22) {
              const column = c < 0x80 ? (columns[c] as number) : 0;
              const next = column === 0 ? 0 : (table[keyState * width + column] as number);
              if (next === 0) {
                // No declared name goes on with this character: the key is read as text from here.
                this.#leaveTrie(keyState);
                keyState = 0;
                break;
              }
              keyState = next;
              if (++i === to) break;
              c = piece.charCodeAt(i);
            }
            if (i === to) break;
            if (keyState !== 0) {
              // The closing quote: the key is the text that led to this state.
              const key = trie.names[keyState] as string;
              keyState = 0;
              checker.key(depth, key, base + i);
              if (!this.#live) return;
              state = COLON;
              break;
            }
          }
          // The common case: a run of ordinary characters.
          while (c !== 0x22 && c !== 0x5c && c >= 0x20) {
            if (++i === to) break;
            c = piece.charCodeAt(i);
          }
          if (i === to) break;
          if (c === 0x5c) {
            state = ESCAPE;
            this.#escapeAt = base + i;
            this.#escaped = true;
            break;
          }
          if (c !== 0x22) {
            if (c !== 0x0d || !crEnds) return this.stop(); // a raw control character
            to = i;
            cut = true;
            break;
          }
          const quote = base + i;
          const kind = this.#stringKind;
          if (kind === STRING_KEY) {
            if (quiet === 0) {
              const key = decode(this.#text(this.#keyFrom, quote), this.#escaped);
              this.#keyFrom = -1;
              checker.key(depth, key, quote);
              if (!this.#live) return;
            }
            state = COLON;
            break;
          }
          if (kind === STRING_READ) {
            this.#appendString(quote, false);
            if (!this.#live) return;
            const full = this.#string;
            this.#string = '';
            this.#stringDone = -1;
            checker.endString(full, quote);
          } else if (quiet === 0) {
            checker.endString('', quote);
          }
          if (!this.#live) return;
          if (depth === 0) return this.stop(); // the value ended
          state = COMMA_OR_END;
          break;
        }
        case ESCAPE:
          if (c === 0x75) {
            state = UNICODE;
            this.#unicodeLeft = 4;
          } else if (isEscapeLetter(c)) {
            state = STRING;
          } else {
            return this.stop();
          }
          break;
        case UNICODE:
          if (!isHexDigit(c)) return this.stop();
          if (--this.#unicodeLeft === 0) state = STRING;
          break;
        case VALUE:
        case VALUE_OR_ARRAY_END:
        case KEY_OR_OBJECT_END:
        case KEY:
        case COLON:
        case COMMA_OR_END: {
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
          if (state === COLON) {
            if (c !== 0x3a) return this.stop();
            state = VALUE;
            break;
          }
          if (state === COMMA_OR_END) {
            const top = stack[depth - 1];
            if (c === 0x2c) {
              state = top === IN_OBJECT ? KEY : VALUE;
              break;
            }
            if ((c === 0x7d && top === IN_OBJECT) || (c === 0x5d && top === IN_ARRAY)) {
              if (quiet === 0 || depth === quiet) {
                quiet = 0;
                checker.close();
              }
              depth--;
              if (depth === 0) return this.stop(); // the value ended
              break;
            }
            return this.stop();
          }
          if (state === KEY_OR_OBJECT_END || state === KEY) {
            if (c === 0x22) {
              state = STRING;
              this.#stringKind = STRING_KEY;
              if (quiet === 0) {
                if (this.#trie !== undefined) {
                  keyState = 1;
                  this.#keyStart = base + i + 1;
                } else {
                  this.#keyFrom = base + i + 1;
                }
              }
              this.#escaped = false;
              break;
            }
            if (c === 0x7d && state === KEY_OR_OBJECT_END) {
              if (quiet === 0 || depth === quiet) {
                quiet = 0;
                checker.close();
              }
              depth--;
              if (depth === 0) return this.stop();
              state = COMMA_OR_END;
              break;
            }
            return this.stop();
          }
          // VALUE or VALUE_OR_ARRAY_END
          if (c === 0x5d && state === VALUE_OR_ARRAY_END) {
            if (quiet === 0 || depth === quiet) {
              quiet = 0;
              checker.close();
            }
            depth--;
            if (depth === 0) return this.stop();
            state = COMMA_OR_END;
            break;
          }
          // A value starts. Like JsonScanner's `valueStart`, before its first character is
          // known to be one a value can start with (a number's type, for any other).
          const start = base + i;
          if (quiet === 0) {
            checker.start(depth, c, start);
            if (!this.#live) return;
          }
          if (c === 0x7b || c === 0x5b) {
            // The container's start is checked before its depth, as JsonScanner's events come.
            if (depth >= this.#maxDepth) return this.stop();
            stack[depth++] = c === 0x7b ? IN_OBJECT : IN_ARRAY;
            state = c === 0x7b ? KEY_OR_OBJECT_END : VALUE_OR_ARRAY_END;
            if (quiet === 0 && checker.quiet) quiet = depth;
            break;
          }
          if (c === 0x22) {
            state = STRING;
            if (quiet === 0 && checker.readsText) {
              this.#stringKind = STRING_READ;
              this.#stringDone = start + 1;
              this.#string = '';
              this.#escaped = false;
            } else {
              this.#stringKind = STRING_SKIP;
            }
            break;
          }
          if (c === 0x2d) state = NUMBER_MINUS;
          else if (c === 0x30) state = NUMBER_ZERO;
          else if (c >= 0x31 && c <= 0x39) state = NUMBER_INT;
          else {
            if (c === 0x74) this.#literal = 'true';
            else if (c === 0x66) this.#literal = 'false';
            else if (c === 0x6e) this.#literal = 'null';
            else return this.stop();
            state = LITERAL;
            this.#literalIndex = 1;
          }
          if (quiet === 0) this.#valueFrom = start;
          break;
        }
        case LITERAL: {
          const literal = this.#literal;
          if (c !== literal.charCodeAt(this.#literalIndex)) return this.stop();
          if (++this.#literalIndex === literal.length) {
            if (quiet === 0) {
              this.#valueFrom = -1;
              const first = literal.charCodeAt(0);
              checker.endScalar(first === 0x74 ? true : first === 0x66 ? false : null, literal, base + i + 1);
              if (!this.#live) return;
            }
            if (depth === 0) return this.stop();
            state = COMMA_OR_END;
          }
          break;
        }
        case NUMBER_MINUS:
          if (c === 0x30) state = NUMBER_ZERO;
          else if (c >= 0x31 && c <= 0x39) state = NUMBER_INT;
          else return this.stop();
          break;
        case NUMBER_DOT:
          if (c >= 0x30 && c <= 0x39) state = NUMBER_FRACTION;
          else return this.stop();
          break;
        case NUMBER_E:
          if (c === 0x2b || c === 0x2d) state = NUMBER_E_SIGN;
          else if (c >= 0x30 && c <= 0x39) state = NUMBER_EXPONENT;
          else return this.stop();
          break;
        case NUMBER_E_SIGN:
          if (c >= 0x30 && c <= 0x39) state = NUMBER_EXPONENT;
          else return this.stop();
          break;
        default: {
          // NUMBER_ZERO, NUMBER_INT, NUMBER_FRACTION, NUMBER_EXPONENT
          if (c >= 0x30 && c <= 0x39) {
            if (state === NUMBER_ZERO) return this.stop(); // a leading zero
            break;
          }
          if (c === 0x2e && (state === NUMBER_ZERO || state === NUMBER_INT)) {
            state = NUMBER_DOT;
            break;
          }
          if ((c === 0x65 || c === 0x45) && state !== NUMBER_EXPONENT) {
            state = NUMBER_E;
            break;
          }
          // Any other character ends the number; it is then read as what follows a value.
          if (quiet === 0) {
            const end = base + i;
            const text = this.#text(this.#valueFrom, end);
            this.#valueFrom = -1;
            // The syntax was followed: a JSON number (`Number` reads it as JSON.parse does).
            checker.endScalar(Number(text), text, end);
            if (!this.#live) return;
          }
          if (depth === 0) return this.stop();
          state = COMMA_OR_END;
          i--;
          break;
        }
      }
    }
    this.#state = state;
    this.#depth = depth;
    this.#quiet = quiet;
    this.#keyState = keyState;
    const end = base + to;
    if (this.#stringDone >= 0) {
      // The checked string in flight: its text so far is checked, but for an unfinished escape.
      this.#appendString(state === STRING ? end : this.#escapeAt, state !== STRING);
      if (!this.#live) return;
    }
    if (cut) this.stop();
    else if (this.#keyFrom >= 0 || this.#valueFrom >= 0 || this.#stringDone >= 0) this.#carry(end);
    else if (this.#carried !== '') this.#carried = '';
  }

  /**
   * The key followed through the automaton, in `state`, goes on with a character no declared
   * name has there: from here its text is kept. What it read so far is the state's text (plain
   * characters, one per position), of which the part before this write is carried.
   */
  #leaveTrie(state: number): void {
    const start = this.#keyStart;
    this.#keyFrom = start;
    this.#escaped = false;
    const writeFrom = this.#writeFrom;
    if (start < writeFrom) {
      this.#carried = ((this.#trie as KeyTrie).names[state] as string).slice(0, writeFrom - start);
      this.#carriedFrom = start;
    }
  }

  /**
   * Appends the checked string's raw text up to `to` (absolute, exclusive) to its decoded text,
   * and checks it; `pending`: an unfinished escape starts at `to`.
   */
  #appendString(to: number, pending: boolean): void {
    const rawFrom = this.#stringDone;
    if (to <= rawFrom) return;
    const raw = this.#text(rawFrom, to);
    this.#stringDone = to;
    const added = decode(raw, this.#escaped);
    this.#escaped = pending;
    if (added === '') return;
    const full = this.#string + added;
    this.#string = full;
    (this.#checker as PrefixChecker).append(full, added, raw, rawFrom);
  }

  /** Text from `from` to `to` (absolute): the carried text, then the piece being written. */
  #text(from: number, to: number): string {
    const base = this.#base;
    const writeFrom = this.#writeFrom;
    if (from >= writeFrom) return this.#piece.slice(from - base, to - base);
    const head = this.#carried.slice(from - this.#carriedFrom);
    return to <= writeFrom ? head.slice(0, to - from) : head + this.#piece.slice(writeFrom - base, to - base);
  }

  /** At the end of a write (which ends at `end`): keeps the text the token in flight still needs. */
  #carry(end: number): void {
    const from = this.#keyFrom >= 0 ? this.#keyFrom : this.#valueFrom >= 0 ? this.#valueFrom : this.#stringDone;
    if (from < 0 || from >= end) {
      this.#carried = '';
      return;
    }
    const writeFrom = this.#writeFrom;
    // A token that goes on through this piece: a rope append, never a copy of what is carried.
    if (from === this.#carriedFrom && from < writeFrom && this.#carried.length === writeFrom - from) {
      this.#carried += this.#piece.slice(writeFrom - this.#base, end - this.#base);
      return;
    }
    this.#carried = this.#text(from, end);
    this.#carriedFrom = from;
  }
}
