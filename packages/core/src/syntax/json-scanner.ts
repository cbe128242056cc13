/**
 * Incremental JSON syntax scanner.
 *
 * Contract: `scan(text, from)` consumes `text[from..]` as the continuation of one JSON value
 * and returns where that value ended (an index into `text`), `SCAN_MORE` when the value is
 * still open at the end of `text`, or `SCAN_ERROR` when the text can no longer become valid
 * JSON (then `errorIndex` and `errorMessage` say where and why). `end()` reports what the end
 * of input decides. The scanner keeps no copy of the text: its state is a container stack and
 * a few integers, so scanning a value split over any number of calls costs the same as
 * scanning it in one call. What an engine needs beyond syntax (a depth limit, structure events,
 * position tracking) is set once, through the constructor's options; `reset()` starts the next
 * value with the same setup.
 *
 * Invariants:
 * - Accepts exactly RFC 8259 (the grammar `JSON.parse` implements): a value is accepted by
 *   `scan` + `end` precisely when `JSON.parse` accepts the same text.
 * - Chunking does not matter: any split of the same text gives the same results and the
 *   same error position.
 * - Work is linear in the text scanned; nesting depth is limited only by memory (the stack
 *   is an array of small integers, never the call stack).
 */

export const SCAN_MORE = -1;
export const SCAN_ERROR = -2;

// Parser states. Plain numbers keep the hot loop free of string comparisons.
const VALUE = 0; // expecting any value
const VALUE_OR_ARRAY_END = 1; // just after `[`
const KEY_OR_OBJECT_END = 2; // just after `{`
const KEY = 3; // after `,` in an object
const COLON = 4; // after a key
const COMMA_OR_END = 5; // after a value inside a container
const STRING = 6;
const STRING_ESCAPE = 7;
const STRING_UNICODE = 8;
const NUMBER_MINUS = 9; // after `-`
const NUMBER_ZERO = 10; // after a leading `0`
const NUMBER_INT = 11; // in integer digits
const NUMBER_DOT = 12; // after `.`
const NUMBER_FRACTION = 13; // in fraction digits
const NUMBER_E = 14; // after `e`/`E`
const NUMBER_E_SIGN = 15; // after the exponent sign
const NUMBER_EXPONENT = 16; // in exponent digits
const LITERAL = 17; // inside `true`, `false` or `null`
const DONE = 18;
const FAILED = 19;
const SKIM = 20; // inside a skimmed container, outside strings
const SKIM_STRING = 21; // inside a string of a skimmed container
const SKIM_ESCAPE = 22; // just after a backslash in such a string

const OBJECT = 1;
const ARRAY = 2;

const EXPECTED: Record<number, string> = {
  [VALUE]: 'a value',
  [VALUE_OR_ARRAY_END]: "a value or ']'",
  [KEY_OR_OBJECT_END]: "a quoted key or '}'",
  [KEY]: 'a quoted key',
  [COLON]: "':'",
  [COMMA_OR_END]: "',' or a closing bracket",
  [NUMBER_MINUS]: 'a digit',
  [NUMBER_DOT]: 'a digit',
  [NUMBER_E]: 'a digit or sign',
  [NUMBER_E_SIGN]: 'a digit',
};

function describe(code: number): string {
  if (code === 0x0a) return 'line break';
  if (code === 0x0d) return 'carriage return';
  if (code < 0x20) return `control character U+${code.toString(16).padStart(4, '0').toUpperCase()}`;
  return `'${String.fromCharCode(code)}'`;
}

/** What ends a run of ordinary string characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids raw control characters in strings, so the search must stop at them.
const STRING_STOP = /["\\\u0000-\u001f]/g;

function clear(array: number[]): void {
  if (array.length > 16) array.length = 0;
  else while (array.length !== 0) array.pop();
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * Structure events, with absolute positions (`base` + index). `depth` is the number of
 * containers open around the value or key: 0 for the top-level value, 1 for the elements or
 * members of the outermost container, and so on.
 */
export interface ScanEvents {
  /** A value starts at `start` (its first character). */
  valueStart(depth: number, start: number): void;
  /** The value that started at this depth ended just before `end`. */
  valueEnd(depth: number, end: number): void;
  /** An object key: `text.slice(start, end)` is its JSON string, quotes included. */
  key(depth: number, start: number, end: number): void;
}

/** How a scanner is set up; fixed for its lifetime. */
export interface JsonScannerOptions {
  /**
   * Deepest nesting accepted (containers open at once). Beyond it the scan fails with
   * `depthExceeded` set. Default: unlimited (the stack is an array, never the call stack).
   */
  readonly maxDepth?: number;
  /** Value and key boundaries, for engines that follow the structure (element streams). Default: none. */
  readonly events?: ScanEvents;
  /** Events fire only for values and keys at most this deep (an engine that needs less saves calls). Default: all. */
  readonly eventDepth?: number;
  /**
   * Position tracking, for salvage: `stringBrackets` and `children` are kept. Default `false`
   * (the JSONL decoder does not pay for it).
   */
  readonly track?: boolean;
}

// Internal state is in `#private` fields and methods: a minifier may shorten their names (a
// TypeScript `private` member is an ordinary property at run time, shipped under its full name
// in every page's bundle). Measured: no difference in scanning speed on Node 20.
export class JsonScanner {
  readonly #maxDepth: number;
  readonly #events: ScanEvents | undefined;
  readonly #eventDepth: number;
  readonly #tracking: boolean;

  constructor(options: JsonScannerOptions = {}) {
    this.#maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    this.#events = options.events;
    this.#eventDepth = options.eventDepth ?? Number.POSITIVE_INFINITY;
    this.#tracking = options.track === true;
  }

  #state = VALUE;
  readonly #stack: number[] = [];
  #isKey = false;
  #literal = '';
  #literalIndex = 0;
  #unicodeLeft = 0;
  /** Absolute offset of index 0 of the text being scanned: the `base` given to `scan`. */
  #base = 0;
  /** Absolute positions of `{` and `[` met inside strings (tracking only). */
  readonly stringBrackets: number[] = [];
  /**
   * Completed nested containers as flat `[start, end, start, end, …]` pairs (absolute, end
   * exclusive), only the outermost ones: a container that closes removes the ones inside it.
   * Each is a complete JSON value on its own (tracking only).
   */
  readonly children: number[] = [];
  readonly #openAt: number[] = [];

  #depthExceeded = false;

  /** The deepest nesting accepted (`maxDepth` of the options). */
  get maxDepth(): number {
    return this.#maxDepth;
  }

  /** True when the last failure was nesting deeper than `maxDepth`. */
  get depthExceeded(): boolean {
    return this.#depthExceeded;
  }

  #tooDeep(index: number): number {
    this.#depthExceeded = true;
    return this.#fail(index, `nesting deeper than maxDepth (${this.#maxDepth})`);
  }

  #keyStart = 0;
  #skimNext = false;
  #skimLevel = 0; // containers open inside the skimmed one, itself included

  /**
   * Called from `events.valueStart` to skim the value that starts: when it is an object or an
   * array, its contents are followed only as far as brackets and strings go, without checking
   * their syntax, until its closing bracket — several times faster than scanning. The caller
   * must check the skimmed text itself (an element stream parses it with `JSON.parse`): a
   * skimmed container's text is valid JSON only if `JSON.parse` accepts it. Applies to that one
   * value only.
   */
  skimValue(): void {
    this.#skimNext = true;
  }

  /** Absolute start of the object key being scanned (its opening quote), or -1. */
  get keyOpenAt(): number {
    return this.#isKey && this.inString ? this.#keyStart : -1;
  }

  /** The kind of the container open at `depth` (1 = outermost): `'object'`, `'array'` or undefined. */
  containerAt(depth: number): 'object' | 'array' | undefined {
    const kind = this.#stack[depth - 1];
    return kind === OBJECT ? 'object' : kind === ARRAY ? 'array' : undefined;
  }

  #errorIndex = 0;
  #message = '';
  // An `unexpected character` error keeps its parts and builds the message only when read:
  // salvage abandons many candidates in prose and reads few of the messages.
  #unexpectedState = -1;
  #unexpectedCode = 0;

  /** Index in the last scanned text where the error was found (valid after `SCAN_ERROR`). */
  get errorIndex(): number {
    return this.#errorIndex;
  }

  /** Why the text cannot be JSON (valid after `SCAN_ERROR`, or after `end()` returned false). */
  get errorMessage(): string {
    if (this.#unexpectedState >= 0) {
      const expected = EXPECTED[this.#unexpectedState];
      const what = describe(this.#unexpectedCode);
      this.#message = expected === undefined ? `unexpected ${what}` : `unexpected ${what}; expected ${expected}`;
      this.#unexpectedState = -1;
    }
    return this.#message;
  }

  #setMessage(message: string): void {
    this.#message = message;
    this.#unexpectedState = -1;
  }

  /** Starts a new value: everything the last one left is forgotten. */
  reset(): void {
    this.#state = VALUE;
    // Popping a few entries is cheaper than setting `length` (salvage resets after every
    // short candidate in prose); a long stack is truncated at once.
    clear(this.#stack);
    if (this.#tracking) {
      clear(this.stringBrackets);
      clear(this.children);
      clear(this.#openAt);
    }
    this.#isKey = false;
    this.#unicodeLeft = 0;
    this.#skimNext = false;
    this.#skimLevel = 0;
    this.#depthExceeded = false;
    this.#setMessage('');
  }

  /** Current nesting depth (open objects and arrays). */
  get depth(): number {
    return this.#stack.length;
  }

  /** True while the scanner is inside a string (or one of its escapes). */
  get inString(): boolean {
    const s = this.#state;
    return s === STRING || s === STRING_ESCAPE || s === STRING_UNICODE || s === SKIM_STRING || s === SKIM_ESCAPE;
  }

  /** True once any non-whitespace character of the value has been consumed. */
  get started(): boolean {
    return !(this.#state === VALUE && this.#stack.length === 0);
  }

  #fail(index: number, message: string): number {
    this.#state = FAILED;
    this.#errorIndex = index;
    this.#setMessage(message);
    return SCAN_ERROR;
  }

  /** Fails on the character `code` at `index`, unexpected in `state` (the message is built when read). */
  #unexpected(state: number, index: number, code: number): number {
    this.#unexpectedState = state;
    this.#unexpectedCode = code;
    this.#state = FAILED;
    this.#errorIndex = index;
    return SCAN_ERROR;
  }

  /** Closes the innermost container, whose closing bracket is at `index`. */
  #pop(index: number): void {
    this.#stack.pop();
    if (!this.#tracking) return;
    const start = this.#openAt.pop() as number;
    if (this.#stack.length === 0) return;
    const children = this.children;
    while (children.length > 0 && (children[children.length - 2] as number) > start) children.length -= 2;
    children.push(start, this.#base + index + 1);
  }

  /** A value just finished: either the top-level value is done or its container continues. */
  #closeValue(end: number): boolean {
    if (this.#events !== undefined && this.#stack.length <= this.#eventDepth) {
      this.#events.valueEnd(this.#stack.length, this.#base + end);
    }
    if (this.#stack.length === 0) {
      this.#state = DONE;
      return true;
    }
    this.#state = COMMA_OR_END;
    return false;
  }

  /**
   * Scans `text[from..]`, the continuation of the value; `base` is the absolute offset of
   * `text[0]`, added to the positions of events, `stringBrackets` and `children` (the returned
   * index and `errorIndex` stay indexes into `text`).
   */
  scan(text: string, from = 0, base = 0): number {
    this.#base = base;
    if (this.#state === DONE) return from;
    if (this.#state === FAILED) return SCAN_ERROR;
    const length = text.length;
    let state = this.#state;
    for (let i = from; i < length; i++) {
      const c = text.charCodeAt(i);
      switch (state) {
        case STRING: {
          // Fast inner loop over ordinary string characters.
          let j = i;
          let d = c;
          if (this.#tracking) {
            while (d !== 0x22 && d !== 0x5c && d >= 0x20) {
              if (d === 0x7b || d === 0x5b) this.stringBrackets.push(base + j);
              j++;
              if (j === length) break;
              d = text.charCodeAt(j);
            }
          } else if (length - j > 32 && d !== 0x22 && d !== 0x5c && d >= 0x20) {
            // A long run of string text: a native search for the next quote, backslash or
            // control character (a global regex's `test` moves `lastIndex` and allocates nothing).
            STRING_STOP.lastIndex = j;
            if (STRING_STOP.test(text)) {
              j = STRING_STOP.lastIndex - 1;
              d = text.charCodeAt(j);
            } else {
              j = length;
            }
          } else {
            while (d !== 0x22 && d !== 0x5c && d >= 0x20) {
              j++;
              if (j === length) break;
              d = text.charCodeAt(j);
            }
          }
          if (j === length) {
            i = j;
            break;
          }
          i = j;
          if (d === 0x22) {
            if (this.#isKey) {
              this.#isKey = false;
              if (this.#events !== undefined && this.#stack.length <= this.#eventDepth) {
                this.#events.key(this.#stack.length, this.#keyStart, base + i + 1);
              }
              state = COLON;
            } else {
              this.#state = state;
              if (this.#closeValue(i + 1)) return i + 1;
              state = this.#state;
            }
          } else if (d === 0x5c) {
            state = STRING_ESCAPE;
          } else {
            return this.#fail(
              i,
              d === 0x0a
                ? 'string not closed before the line break (a raw line break is not allowed inside a JSON string)'
                : `${describe(d)} inside a string must be escaped`,
            );
          }
          break;
        }
        case STRING_ESCAPE:
          if (c === 0x75) {
            state = STRING_UNICODE;
            this.#unicodeLeft = 4;
          } else if (
            c === 0x22 ||
            c === 0x5c ||
            c === 0x2f ||
            c === 0x62 ||
            c === 0x66 ||
            c === 0x6e ||
            c === 0x72 ||
            c === 0x74
          ) {
            state = STRING;
          } else {
            return this.#fail(i, `invalid escape '\\${String.fromCharCode(c)}' in a string`);
          }
          break;
        case STRING_UNICODE:
          if (!isHex(c)) {
            return this.#fail(i, `invalid \\u escape: ${describe(c)} is not a hex digit`);
          }
          if (--this.#unicodeLeft === 0) state = STRING;
          break;
        case VALUE:
        case VALUE_OR_ARRAY_END:
        case KEY_OR_OBJECT_END:
        case KEY:
        case COLON:
        case COMMA_OR_END:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
          if (state === COLON) {
            if (c !== 0x3a) {
              return this.#unexpected(state, i, c);
            }
            state = VALUE;
            break;
          }
          if (state === COMMA_OR_END) {
            const top = this.#stack[this.#stack.length - 1];
            if (c === 0x2c) {
              state = top === OBJECT ? KEY : VALUE;
            } else if ((c === 0x7d && top === OBJECT) || (c === 0x5d && top === ARRAY)) {
              this.#pop(i);
              this.#state = state;
              if (this.#closeValue(i + 1)) return i + 1;
              state = this.#state;
            } else {
              return this.#fail(i, `unexpected ${describe(c)}; expected ',' or '${top === OBJECT ? '}' : ']'}'`);
            }
            break;
          }
          if (state === KEY_OR_OBJECT_END || state === KEY) {
            if (c === 0x22) {
              this.#isKey = true;
              this.#keyStart = base + i;
              state = STRING;
            } else if (c === 0x7d && state === KEY_OR_OBJECT_END) {
              this.#pop(i);
              this.#state = state;
              if (this.#closeValue(i + 1)) return i + 1;
              state = this.#state;
            } else {
              return this.#unexpected(state, i, c);
            }
            break;
          }
          // VALUE or VALUE_OR_ARRAY_END
          if (c === 0x5d && state === VALUE_OR_ARRAY_END) {
            this.#pop(i);
            this.#state = state;
            if (this.#closeValue(i + 1)) return i + 1;
            state = this.#state;
            break;
          }
          if (this.#events !== undefined && this.#stack.length <= this.#eventDepth) {
            this.#events.valueStart(this.#stack.length, base + i);
            if (this.#skimNext) {
              this.#skimNext = false;
              if (c === 0x7b || c === 0x5b) {
                if (this.#stack.length >= this.#maxDepth) {
                  return this.#tooDeep(i);
                }
                this.#stack.push(c === 0x7b ? OBJECT : ARRAY);
                this.#skimLevel = 1;
                state = SKIM;
                break;
              }
            }
          }
          switch (c) {
            case 0x7b:
              if (this.#stack.length >= this.#maxDepth) {
                return this.#tooDeep(i);
              }
              this.#stack.push(OBJECT);
              if (this.#tracking) this.#openAt.push(base + i);
              state = KEY_OR_OBJECT_END;
              break;
            case 0x5b:
              if (this.#stack.length >= this.#maxDepth) {
                return this.#tooDeep(i);
              }
              this.#stack.push(ARRAY);
              if (this.#tracking) this.#openAt.push(base + i);
              state = VALUE_OR_ARRAY_END;
              break;
            case 0x22:
              this.#isKey = false;
              state = STRING;
              break;
            case 0x2d:
              state = NUMBER_MINUS;
              break;
            case 0x30:
              state = NUMBER_ZERO;
              break;
            case 0x74:
              state = LITERAL;
              this.#literal = 'true';
              this.#literalIndex = 1;
              break;
            case 0x66:
              state = LITERAL;
              this.#literal = 'false';
              this.#literalIndex = 1;
              break;
            case 0x6e:
              state = LITERAL;
              this.#literal = 'null';
              this.#literalIndex = 1;
              break;
            default:
              if (c >= 0x31 && c <= 0x39) {
                state = NUMBER_INT;
              } else {
                return this.#unexpected(state, i, c);
              }
          }
          break;
        case LITERAL:
          if (c !== this.#literal.charCodeAt(this.#literalIndex)) {
            return this.#fail(i, `invalid literal: expected '${this.#literal}'`);
          }
          if (++this.#literalIndex === this.#literal.length) {
            this.#state = state;
            if (this.#closeValue(i + 1)) return i + 1;
            state = this.#state;
          }
          break;
        case NUMBER_MINUS:
          if (c === 0x30) state = NUMBER_ZERO;
          else if (c >= 0x31 && c <= 0x39) state = NUMBER_INT;
          else {
            return this.#unexpected(state, i, c);
          }
          break;
        case NUMBER_DOT:
          if (c >= 0x30 && c <= 0x39) state = NUMBER_FRACTION;
          else {
            return this.#unexpected(state, i, c);
          }
          break;
        case NUMBER_E:
          if (c === 0x2b || c === 0x2d) state = NUMBER_E_SIGN;
          else if (c >= 0x30 && c <= 0x39) state = NUMBER_EXPONENT;
          else {
            return this.#unexpected(state, i, c);
          }
          break;
        case NUMBER_E_SIGN:
          if (c >= 0x30 && c <= 0x39) state = NUMBER_EXPONENT;
          else {
            return this.#unexpected(state, i, c);
          }
          break;
        case NUMBER_ZERO:
        case NUMBER_INT:
        case NUMBER_FRACTION:
        case NUMBER_EXPONENT: {
          if (c >= 0x30 && c <= 0x39) {
            if (state === NUMBER_ZERO) {
              return this.#fail(i, 'a number must not have a leading zero');
            }
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
          this.#state = state;
          if (this.#closeValue(i)) return i;
          state = this.#state;
          i--;
          break;
        }
        case SKIM:
        case SKIM_STRING:
        case SKIM_ESCAPE: {
          this.#state = state;
          const end = this.#skim(text, i);
          if (end === SCAN_ERROR) return SCAN_ERROR;
          if (end === SCAN_MORE) return SCAN_MORE;
          this.#pop(end - 1);
          if (this.#closeValue(end)) return end;
          state = this.#state;
          i = end - 1;
          break;
        }
        default:
          // DONE and FAILED return before the loop.
          break;
      }
    }
    this.#state = state;
    return SCAN_MORE;
  }

  /**
   * Follows a skimmed container from `text[from]` (state SKIM, SKIM_STRING or SKIM_ESCAPE):
   * returns the index just after its closing bracket, or `SCAN_MORE` at the end of `text`
   * (the state then says where the next text continues), or `SCAN_ERROR` past `maxDepth`.
   * Only quotes, backslashes inside strings and brackets outside them are looked at; string
   * contents are crossed with native searches.
   */
  #skim(text: string, from: number): number {
    const length = text.length;
    let level = this.#skimLevel;
    let state = this.#state;
    let i = from;
    while (i < length) {
      if (state === SKIM_ESCAPE) {
        state = SKIM_STRING;
        i++;
        continue;
      }
      if (state === SKIM_STRING) {
        if (length - i < 64) {
          // A short rest (small deltas): a plain loop beats two native searches.
          let c = text.charCodeAt(i);
          while (c !== 0x22 && c !== 0x5c) {
            if (++i === length) break;
            c = text.charCodeAt(i);
          }
          if (i === length) break;
          state = c === 0x22 ? SKIM : SKIM_ESCAPE;
          i++;
          continue;
        }
        // The closing quote is the first one after an even run of backslashes (`i` itself is
        // never escaped: an escape that starts before it left the state SKIM_ESCAPE).
        let quote = text.indexOf('"', i);
        while (quote >= 0) {
          let k = quote - 1;
          while (k >= i && text.charCodeAt(k) === 0x5c) k--;
          if (((quote - 1 - k) & 1) === 0) break;
          quote = text.indexOf('"', quote + 1);
        }
        if (quote < 0) {
          // The string goes on in the next text: escaped there when this one ends in an odd run.
          let k = length - 1;
          while (k >= i && text.charCodeAt(k) === 0x5c) k--;
          if (((length - 1 - k) & 1) === 1) state = SKIM_ESCAPE;
          i = length;
          break;
        }
        state = SKIM;
        i = quote + 1;
        continue;
      }
      // SKIM: outside strings, only quotes and brackets matter.
      for (; i < length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x22) {
          state = SKIM_STRING;
          i++;
          break;
        }
        if (c === 0x7b || c === 0x5b) {
          if (this.#stack.length + level - 1 >= this.#maxDepth) {
            return this.#tooDeep(i);
          }
          level++;
        } else if (c === 0x7d || c === 0x5d) {
          if (--level === 0) {
            this.#skimLevel = 0;
            return i + 1;
          }
        }
      }
    }
    this.#skimLevel = level;
    this.#state = state;
    return SCAN_MORE;
  }

  /**
   * The input ended. Returns true when exactly one complete value was scanned (a top-level
   * number completes here); otherwise sets `errorMessage` and returns false.
   */
  end(): boolean {
    const s = this.#state;
    if (s === DONE) return true;
    if (s === FAILED) return false;
    if (
      this.#stack.length === 0 &&
      (s === NUMBER_ZERO || s === NUMBER_INT || s === NUMBER_FRACTION || s === NUMBER_EXPONENT)
    ) {
      this.#state = DONE;
      return true;
    }
    this.#setMessage(this.started ? this.#openDescription() : 'no JSON value');
    return false;
  }

  #openDescription(): string {
    if (this.inString) return 'input ended inside a string';
    if (this.#stack.length > 0) {
      return `input ended with ${this.#stack.length} unclosed ${this.#stack.length === 1 ? 'bracket' : 'brackets'}`;
    }
    return 'input ended inside a value';
  }
}
