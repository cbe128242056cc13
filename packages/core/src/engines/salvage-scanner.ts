/**
 * Salvage scanner: finds every JSON value hidden in model text — fenced blocks, inline code
 * spans, and objects or arrays embedded in prose — over text arriving in chunks.
 *
 * Contract: `write(text)` consumes the next chunk and delivers every value that the chunk
 * completes; `end()` delivers what the end of input decides. Values arrive in document order,
 * each as `{ value, source, start, end, fence? }` where `text.slice(start, end)` is its JSON
 * text (offsets in UTF-16 code units).
 *
 * Semantics (docs/decisions/006-salvage-semantics.md):
 * - A candidate starts at `{` or `[` in any context and is scanned with full JSON string and
 *   escape awareness; it is abandoned the moment it can no longer become JSON.
 * - Outermost valid values win: the inside of a valid value is never reported separately.
 * - When a candidate fails, the complete objects and arrays nested in it are still values,
 *   and candidates that started inside its strings are scanned again.
 * - `source`: `document` when a value spans the whole text apart from whitespace (any JSON
 *   value, scalars included); `fence` inside a fenced block (``` or ~~~, three or more markers
 *   at the start of a line, any one-word info string; an unclosed fence runs to the end; the
 *   exact rules are fence.ts's);
 *   `inline` inside an inline code span (a backtick run, closed by a run of the same length
 *   on the same line); `embedded` anywhere else.
 * - Recoveries (off with `strict`), the ones the JSONL decoder makes that apply to one value
 *   (decision 003): a comma after a value and before a closing bracket (`[1, 2,]`,
 *   `{"a": 1,\n}`) is dropped, and one comma after an object or array that is otherwise the
 *   whole text (`{"a": 1},`) leaves it the document. The value is delivered with
 *   `recovered: true` after a `recovered` diagnostic, so the recovered outer value wins and
 *   what is nested in it is never reported on its own (a model's trailing comma must not
 *   turn its answer into the first array inside it).
 * - Coercion (`coerce`, opt-in, coerce.ts): a value the schema rejects may be delivered as a
 *   coerced copy the schema accepts, after one `recovered` diagnostic per repair (`rule`,
 *   `path` inside the value, offset of the value), sent after any trailing-comma note.
 * - Depth guard: a value nested deeper than `maxDepth` is reported (`too-deep`, at the first
 *   bracket past the limit) instead of delivered, before any validation, so that nothing
 *   downstream (printing, a validator following a recursive schema) can overflow the stack.
 *   It is still a value for the rules above: its contents are not reported either.
 *
 * Invariants:
 * 1. Chunking does not matter: any split of the same text gives the same values and
 *    diagnostics.
 * 2. Linear work: outside candidates each character is looked at once; inside, once by the
 *    candidate and at most once more by a rescan — a rescan never starts before the point where
 *    the previous failed candidate failed (`rescanFloor`), so rescanned ranges are disjoint.
 * 3. Bounded memory: the text kept is the open candidate (at most `maxCandidateLength`
 *    characters) plus the start of the current line; prose is dropped as it is scanned.
 * 4. A value that could still be the whole document is held until the next non-whitespace
 *    character or the end of input, so streaming and one-shot results are identical.
 * 5. Recovery costs nothing until it is needed: a candidate is scanned as plain JSON, and only
 *    when it fails at a closing bracket right after a comma is it scanned once more from its
 *    start, this time holding back each comma until the next character shows whether it is
 *    trailing. Each candidate is rescanned for recovery at most once, so work stays linear.
 * 6. Looking before opening changes nothing but the cost (decision 021): in prose, a bracket
 *    whose candidate provably fails within a few characters of the same chunk — flat, no escape
 *    or bracket in a string, no line break, not at a closing bracket — is settled by a
 *    look-ahead, leaving exactly the state and stats the candidate would have left; anything
 *    else opens a candidate as before, so results never depend on which path decided.
 */

import { ConfigurationError } from '../diagnostics/configuration-error.js';
import { type Diagnostic, DiagnosticReason, excerptAround } from '../diagnostics/diagnostics.js';
import { checkChoice, checkOptionNames, optionNames } from '../options/option-checks.js';
import type { CoercionOptions } from '../schema/coercion-options.js';
import type { CompiledSchema, ValidationResult } from '../schema/schema-validator.js';
import type { SchemaInput, SchemaValue } from '../schema/standard-schema.js';
import { DEFAULT_MAX_DEPTH, depthExceeds, mayExceedDepth } from '../syntax/depth.js';
import { JsonScanner, SCAN_ERROR, SCAN_MORE } from '../syntax/json-scanner.js';
import { DEFAULT_MAX_CANDIDATE_LENGTH } from '../syntax/limits.js';
import { FenceLine, isFenceIndent, MAX_FENCE_INDENT } from '../text/fence.js';
import type { AdapterOptions } from './engine.js';
import {
  checkPositiveInteger,
  coercionDiagnostic,
  countDiagnostic,
  type DiagnosticCounts,
  type Engine,
  type ValidatorOptions,
  validatorFor,
} from './engine.js';

export type SalvageSource = 'document' | 'fence' | 'inline' | 'embedded';

export interface SalvagedValue<T = unknown> {
  readonly value: T;
  readonly source: SalvageSource;
  /** Offset of the value's first character in the text. */
  readonly start: number;
  /** Offset just after the value's last character. */
  readonly end: number;
  /** Info string of the enclosing fence, lower-cased (`json`, `jsonl`, `` for a bare fence). */
  readonly fence?: string;
  /** Discriminator branch the value matched (with a discriminated schema). */
  readonly branch?: string;
  /** Set by `extractJson({ repair: true })` when the value was repaired near-JSON. */
  readonly repaired?: true;
  /**
   * Set when a documented recovery (a trailing comma) was needed: `text.slice(start, end)` is
   * then not JSON as written. A `recovered` diagnostic just before the value says where.
   */
  readonly recovered?: true;
}

/** `S` is the schema's type, so that values come out typed (`SchemaValue<S>`); see standard-schema.ts. */
export interface SalvageOptions<S extends SchemaInput = SchemaInput> extends ValidatorOptions, CoercionOptions {
  /**
   * Schema a value must match to be delivered (JSON Schema or Standard Schema); failures are
   * `schema` diagnostics.
   */
  readonly schema?: S;
  /** Discriminator property for `oneOf`/`anyOf` dispatch (detected by default; `false` for off). */
  readonly discriminator?: string | false;
  /** Longest candidate kept, in UTF-16 code units. Default 8 MiB; longer ones are `too-long`. */
  readonly maxCandidateLength?: number;
  /**
   * Deepest nesting of a value, in levels (`[]` is 1). Default 512. A deeper value is reported
   * `too-deep` and never delivered (nor anything nested in it), so nothing downstream
   * (printing, validation against a recursive schema, rendering) can overflow the stack on it.
   */
  readonly maxDepth?: number;
  /**
   * Turn the recoveries off: a value is delivered exactly when `JSON.parse` accepts its text.
   * Default `false`: a trailing comma before a closing bracket, or after an object or array
   * that is otherwise the whole text, is recovered and reported (`recovered`).
   */
  readonly strict?: boolean;
}

export interface SalvageSink<T = unknown> {
  value(value: SalvagedValue<T>): void;
  diagnostic(diagnostic: Diagnostic): void;
}

export interface SalvageStats {
  /** Characters consumed. */
  characters: number;
  /** Values delivered. */
  values: number;
  /** Candidates started at `{` or `[`. */
  candidates: number;
  /** Candidates that turned out not to be JSON. */
  abandoned: number;
  /** Fenced blocks opened. */
  fences: number;
  /** Inline code spans closed (a backtick run with its closing run on the same line). */
  inlineSpans: number;
  /** Diagnostics by reason. */
  diagnostics: DiagnosticCounts;
}

export type SalvageScanner = Engine<SalvageStats>;

const PROSE = 0;
const FENCE = 1;

/** Info strings whose blocks are meant to hold JSON: an empty one reports `syntax`. */
const JSON_INFO = new Set(['', 'json', 'jsonl', 'jsonc', 'json5', 'ndjson']);

/** Characters the prose loop stops at: `{` `[` backtick `~` line feed. */
const STOP_CHARS = ['{', '[', '`', '~', '\n'];
const STOP = new Uint8Array(128);
for (const c of STOP_CHARS) STOP[c.charCodeAt(0)] = 1;
/** The same set, for one search when the per-character ones cannot answer (a global regex's `test` allocates nothing). */
const STOP_SEARCH = /[{[`~\n]/g;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/**
 * Parses a short flat array of numbers, literals and escape-free strings (`[1]`, `[2, 3]`,
 * `["a"]`) that the scanner has already validated; `undefined` for anything else. Prose is
 * full of such citations, and for values this small `JSON.parse`'s fixed cost dominates the
 * whole salvage pass. The result is the one `JSON.parse` gives (same number conversion).
 */
function parseShortArray(text: string): unknown[] | undefined {
  const n = text.length;
  if (n > 32 || text.charCodeAt(0) !== 0x5b) return undefined;
  const out: unknown[] = [];
  let i = 1;
  for (;;) {
    while (isSpace(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(i);
    if (c === 0x5d) return out;
    let j: number;
    if (c === 0x22) {
      j = text.indexOf('"', i + 1);
      const content = text.slice(i + 1, j);
      if (content.includes('\\')) return undefined;
      out.push(content);
      j++;
    } else if (c === 0x7b || c === 0x5b) {
      return undefined;
    } else {
      j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === 0x2c || d === 0x5d || isSpace(d)) break;
      }
      const token = text.slice(i, j);
      out.push(token === 'true' ? true : token === 'false' ? false : token === 'null' ? null : Number(token));
    }
    i = j;
    while (isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x2c) return out;
    i++;
  }
}

// States of `quickFailure`'s flat scan (a container with scalar members only).
const Q_KEY_OR_END = 0; // after `{`
const Q_KEY = 1; // after `,` in an object
const Q_COLON = 2; // after a key
const Q_VALUE_OR_END = 3; // after `[`
const Q_VALUE = 4; // after `:`, or after `,` in an array
const Q_COMMA_OR_END = 5; // after a value

/** How far past a bracket `quickFailure` looks before it gives up (decision 021). */
const QUICK_WINDOW = 64;

/** The literal starting with `c` (`t`, `f`, `n`), or '' for any other character. */
function literalFor(c: number): string {
  return c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : '';
}

/**
 * Look-ahead before a candidate is opened (decision 021): the index in `text` where the JSON
 * value starting with the bracket at `text[from]` certainly fails — exactly where the
 * incremental scanner would report the failure — or -1 when that is not settled cheaply.
 *
 * Only the failures with nothing to hand on are settled here: the container must be flat
 * (scalar members only), its strings free of escapes and brackets (so no nested value is
 * delivered and no rescan starts inside it), the failing character must not be a closing
 * bracket (a trailing comma there is recovered, and a matching one completes the value), no
 * line break may come before the failure (it would move the line start that inline spans and
 * fence lines depend on), and everything must lie within `QUICK_WINDOW` characters of `text`
 * (so chunk ends are never crossed: the normal path decides those, with the same result).
 * Anything else
 * returns -1 and the candidate is opened as before. Prose brackets (`{x`, `[3 and`,
 * `{"k": then`) die within a few characters, so the look-ahead costs a few comparisons where
 * opening and abandoning a candidate costs a scanner reset and its bookkeeping.
 */
function quickFailure(text: string, from: number): number {
  const object = text.charCodeAt(from) === 0x7b;
  const limit = Math.min(text.length, from + QUICK_WINDOW);
  let state = object ? Q_KEY_OR_END : Q_VALUE_OR_END;
  let i = from + 1;
  while (i < limit) {
    let c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0d) {
      i++;
      continue;
    }
    // A line break moves the line start (inline spans, fence lines): the normal path's.
    if (c === 0x0a) return -1;
    // A closing bracket completes the value, fails it in a way recovery may undo, or fails it
    // where trailing-comma recovery must look: the normal path decides.
    if (c === 0x7d || c === 0x5d) return -1;
    switch (state) {
      case Q_COLON:
        if (c !== 0x3a) return i;
        state = Q_VALUE;
        i++;
        continue;
      case Q_COMMA_OR_END:
        if (c !== 0x2c) return i;
        state = object ? Q_KEY : Q_VALUE;
        i++;
        continue;
      case Q_KEY_OR_END:
      case Q_KEY:
        if (c !== 0x22) return i;
        break;
      default:
        // A value; a nested container is the normal path's.
        if (c === 0x7b || c === 0x5b) return -1;
    }
    if (c === 0x22) {
      // A string: fails at a raw control character; an escape or a bracket in it is undecided.
      for (i++; ; i++) {
        if (i >= limit) return -1;
        c = text.charCodeAt(i);
        if (c === 0x22) break;
        if (c < 0x20) return i;
        if (c === 0x5c || c === 0x7b || c === 0x5b) return -1;
      }
      i++;
      state = state === Q_KEY_OR_END || state === Q_KEY ? Q_COLON : Q_COMMA_OR_END;
      continue;
    }
    const literal = literalFor(c);
    if (literal !== '') {
      for (let k = 1; k < literal.length; k++) {
        if (i + k >= limit) return -1;
        const d = text.charCodeAt(i + k);
        if (d !== literal.charCodeAt(k)) return d === 0x7d || d === 0x5d ? -1 : i + k;
      }
      i += literal.length;
      state = Q_COMMA_OR_END;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) return i;
    // A number, followed exactly as the scanner does (RFC 8259 grammar).
    if (c === 0x2d) {
      if (++i >= limit) return -1;
      c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return c === 0x7d || c === 0x5d ? -1 : i;
    }
    if (c === 0x30) {
      if (++i >= limit) return -1;
      c = text.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) return i; // a leading zero
    } else {
      do {
        if (++i >= limit) return -1;
        c = text.charCodeAt(i);
      } while (c >= 0x30 && c <= 0x39);
    }
    if (c === 0x2e) {
      if (++i >= limit) return -1;
      c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return c === 0x7d || c === 0x5d ? -1 : i;
      do {
        if (++i >= limit) return -1;
        c = text.charCodeAt(i);
      } while (c >= 0x30 && c <= 0x39);
    }
    if (c === 0x65 || c === 0x45) {
      if (++i >= limit) return -1;
      c = text.charCodeAt(i);
      if (c === 0x2b || c === 0x2d) {
        if (++i >= limit) return -1;
        c = text.charCodeAt(i);
      }
      if (c < 0x30 || c > 0x39) return c === 0x7d || c === 0x5d ? -1 : i;
      do {
        if (++i >= limit) return -1;
        c = text.charCodeAt(i);
      } while (c >= 0x30 && c <= 0x39);
    }
    // The character after the number is read as what follows a value.
    state = Q_COMMA_OR_END;
  }
  return -1;
}

/** The value of JSON text the scanner has validated. */
function parseValidated(text: string): unknown {
  return parseShortArray(text) ?? JSON.parse(text);
}

/** Characters a complete value (or key) ends with: only after one can a comma be trailing. */
function endsValue(c: number): boolean {
  return c === 0x22 || c === 0x7d || c === 0x5d || (c >= 0x30 && c <= 0x39) || c === 0x65 || c === 0x6c;
}

/**
 * Index in `text` (a value's JSON text) of the first bracket nested deeper than `maxDepth`,
 * or 0 when there is none. Rare (only for a value already known to be too deep), and a plain
 * loop: the value's text is at hand and the bracket is where the diagnostic points.
 */
function tooDeepIndex(text: string, maxDepth: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return 0;
}

/**
 * Values that were nested in a candidate that failed (decision 006, rule 5): `extractJson`
 * tries repairing the candidate around such a value before settling for it. Kept beside the
 * records rather than on them, so that the delivered values stay exactly as documented.
 */
const nestedInFailure = new WeakSet<SalvagedValue>();

/** True when `value` (as delivered) was found nested inside a candidate that failed. */
export function isNestedInFailure(value: SalvagedValue): boolean {
  return nestedInFailure.has(value);
}

/**
 * Validates without letting a validator's exception (a bug, or a stack overflow) escape; a
 * ConfigurationError (a Standard Schema that validates asynchronously) is the caller's, and
 * propagates.
 */
function validateSafely(validator: CompiledSchema, value: unknown): ValidationResult {
  try {
    return validator.validate(value);
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { valid: false, errors: [], message: `the schema validator failed on this value (${why})` };
  }
}

/**
 * A value on its way out; `provisional` while its inline span may still fail to close; `note`
 * is its `recovered` diagnostic, sent just before it (one queue entry, so that a recovered
 * value can still turn out to be the document).
 */
type Pending = { -readonly [K in keyof SalvagedValue]: SalvagedValue[K] } & {
  provisional?: boolean;
  note?: Diagnostic;
  /** With `coerce`: the `recovered` diagnostics of the repairs that made the value, sent after `note`. */
  fixes?: Diagnostic[];
};

/** The open candidate; one object reused for every candidate (prose has many). */
interface Candidate {
  start: number;
  source: SalvageSource;
  fence: string | undefined;
}

class Scanner implements SalvageScanner {
  readonly stats: SalvageStats = {
    characters: 0,
    values: 0,
    candidates: 0,
    abandoned: 0,
    fences: 0,
    inlineSpans: 0,
    diagnostics: {},
  };
  readonly #sink: SalvageSink;
  readonly #validator: CompiledSchema | undefined;
  readonly #maxCandidateLength: number;
  readonly #maxDepth: number;
  readonly #strict: boolean;
  readonly #json = new JsonScanner({ track: true });

  // Input kept: `retained` is the text from `retainedBase` to `received`.
  #retained = '';
  #retainedBase = 0;
  #received = 0;
  #cursor = 0; // absolute offset of the next character to process
  #atStart = true;

  // Context.
  #context = PROSE;
  #fenceMarker = 0;
  #fenceLength = 0;
  #fenceInfo = '';
  #fenceLine = 0; // offset of the opening fence line
  #fenceValues = 0; // values found in the current fence
  #fenceError = ''; // why the first candidate in the current fence failed
  #fenceHasText = false; // the current fence holds non-blank text
  #inlineTicks = 0; // length of the backtick run that opened the current inline span
  #lineStart = 0; // offset of the current line's first character
  readonly #fenceLineMatch = new FenceLine();
  #matchingFenceLine = false;
  #tickRun = 0; // backticks counted so far in a run that may continue in the next chunk
  #tickRunStart = 0;

  // Candidate.
  readonly #candidate: Candidate = { start: 0, source: 'embedded', fence: undefined };
  #open = false; // a candidate is being scanned
  #rescanFloor = 0;
  #failedAt = 0; // absolute offset where the last scan failed

  // Recovery of the open candidate (invariant 5).
  #recovering = false; // rescanning it with trailing commas held back
  readonly #dropped: number[] = []; // absolute offsets of the commas dropped, ascending
  #heldComma = -1; // offset of a comma not yet fed, until the next character decides
  #lastChar = 0; // last non-space character fed while recovering
  #nestedDelivery = false; // values being delivered were nested in a failed candidate

  // Document detection.
  #firstText = -1; // offset of the first non-whitespace character, -1 before it
  readonly #queue: (Pending | Diagnostic)[] = []; // output held while a label is undecided
  #holdingFirst = false; // queue[0] starts at firstText and only whitespace followed yet
  #holdComma = -1; // offset of the one comma (recovery) after the held first value
  #holdCommaFrom = 0; // where the comma's excerpt starts (up to 79 characters before it)
  #holdCommaText = ''; // the excerpt's text, up to the comma: kept apart from the text
  #inlinePending = false; // the queue holds values whose inline span has not closed yet
  #scalar: JsonScanner | undefined; // viable scalar document from firstText
  #scalarEnd = -1;
  /** The scalar document's text once it ended: the whitespace after it is then not kept. */
  #scalarSource = '';

  constructor(options: SalvageOptions, sink: SalvageSink) {
    checkOptionNames('createSalvageScanner', options, SALVAGE_SCANNER_OPTIONS);
    checkChoice('strict', options.strict, [true, false]);
    checkPositiveInteger('maxCandidateLength', options.maxCandidateLength, 'characters');
    checkPositiveInteger('maxDepth', options.maxDepth, 'levels');
    this.#maxCandidateLength = options.maxCandidateLength ?? DEFAULT_MAX_CANDIDATE_LENGTH;
    this.#maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.#strict = options.strict === true;
    this.#sink = sink;
    this.#validator = validatorFor(options);
  }

  write(text: string): void {
    if (text.length === 0) return;
    if (this.#atStart) {
      this.#atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) return;
    }
    const base = this.#received;
    this.#retained += text;
    this.#received += text.length;
    this.stats.characters += text.length;
    this.#trackDocument(text, base);
    this.#run(text, base, false);
    this.#compact();
  }

  /**
   * Characters of input the scanner holds now (the candidate in flight and what it still needs
   * to look back at): bounded by `maxCandidateLength`, however long the input. Not part of the
   * `SalvageScanner` interface; read by the memory tests.
   */
  get retainedLength(): number {
    return this.#retained.length;
  }

  end(): void {
    if (this.#atStart) this.#atStart = false;
    this.#run('', this.#received, true);
    if (this.#context === FENCE) this.#reportEmptyFence();
    this.#finishDocument();
    this.#flushHeld();
  }

  // ---- document detection -------------------------------------------------------------

  /** Follows a possible scalar document (`42`, `"text"`, `true`) from the first non-space character. */
  #trackDocument(text: string, base: number): void {
    let from = 0;
    if (this.#firstText < 0) {
      while (from < text.length && isSpace(text.charCodeAt(from))) from++;
      if (from === text.length) return;
      this.#firstText = base + from;
      const c = text.charCodeAt(from);
      if (c !== 0x7b && c !== 0x5b) {
        this.#scalar = new JsonScanner();
      }
    } else if (this.#holdingFirst) {
      // Anything but whitespace after the held first value makes it embedded.
      this.#checkHold(base, base + text.length);
    }
    const scalar = this.#scalar;
    if (scalar === undefined) return;
    if (this.#scalarEnd >= 0) {
      for (let i = from; i < text.length; i++) {
        if (!isSpace(text.charCodeAt(i))) {
          this.#dropScalar();
          return;
        }
      }
      return;
    }
    const end = scalar.scan(text, from);
    // How far the scalar reaches: to its end when it ended in this text (the whitespace after
    // it is not part of it), else to the end of the text (chunking does not matter).
    const reach = end >= 0 ? base + end : base + text.length;
    if (end === SCAN_ERROR || reach - this.#firstText > this.#maxCandidateLength) {
      this.#dropScalar();
    } else if (end >= 0) {
      this.#scalarEnd = base + end;
      this.#scalarSource = this.#slice(this.#firstText, this.#scalarEnd);
      for (let i = end; i < text.length; i++) {
        if (!isSpace(text.charCodeAt(i))) {
          this.#dropScalar();
          return;
        }
      }
    }
  }

  #dropScalar(): void {
    this.#scalar = undefined;
    this.#scalarEnd = -1;
    this.#scalarSource = '';
    if (!this.#holding) this.#drain();
  }

  /** At the end: a scalar that spans the whole text is the document. */
  #finishDocument(): void {
    const scalar = this.#scalar;
    if (scalar === undefined) return;
    if (this.#scalarEnd < 0 && !scalar.end()) {
      this.#dropScalar();
      return;
    }
    let source: string;
    if (this.#scalarEnd >= 0) {
      source = this.#scalarSource;
    } else {
      let to = this.#received;
      while (to > this.#firstText && isSpace(this.#charAt(to - 1))) to--;
      source = this.#slice(this.#firstText, to);
    }
    const end = this.#firstText + source.length;
    this.#scalar = undefined;
    this.#scalarSource = '';
    // What was found inside the document (brackets in a string) is part of it: dropped, and a
    // diagnostic among it (counted when it was queued) no longer counted.
    for (const item of this.#queue) if ('reason' in item) this.#uncount(item.reason);
    this.#queue.length = 0;
    this.#holdingFirst = false;
    this.#inlinePending = false;
    this.#deliver(JSON.parse(source), 'document', this.#firstText, end, undefined, source);
  }

  // ---- the main loop --------------------------------------------------------------------

  /**
   * Processes `text` (whose first character is at absolute offset `base`) from `this.cursor`.
   * When a failed candidate sends the cursor back into retained text, the retained text from
   * there is processed instead.
   */
  #run(text: string, base: number, final: boolean): void {
    let segment = text;
    let segmentBase = base;
    for (;;) {
      const jumped = this.#process(segment, segmentBase, final);
      if (!jumped) return;
      // Rescan: process the retained text from the new cursor to what has been received.
      segmentBase = this.#cursor;
      segment = this.#slice(segmentBase, this.#received);
    }
  }

  /** Returns true when the cursor jumped back (a rescan), false when the segment is done. */
  #process(text: string, base: number, final: boolean): boolean {
    const length = text.length;
    while (this.#cursor < base + length || (final && this.#pendingAtEnd())) {
      if (this.#open) {
        const jumped = this.#continueCandidate(text, base, final);
        if (jumped) return true;
        continue;
      }
      if (this.#matchingFenceLine) {
        if (!this.#continueFenceLine(text, base, final)) return false;
        continue;
      }
      if (this.#tickRun > 0) {
        if (!this.#continueTickRun(text, base, final)) return false;
        continue;
      }
      if (final && this.#cursor >= base + length) return false;
      let i = this.#cursor - base;
      let c = 0;
      if (this.#context === FENCE && !this.#fenceHasText) {
        // Until the fence shows text, note whether it does.
        for (; i < length; i++) {
          c = text.charCodeAt(i);
          if (c < 128 && STOP[c] === 1) break;
          if (!isSpace(c)) {
            this.#fenceHasText = true;
            break;
          }
        }
      }
      // Skip to the next character that matters with native searches, one per character kind,
      // each remembered until the cursor passes it: prose costs a few native scans, not a
      // JavaScript loop per character.
      if (i < length) {
        c = text.charCodeAt(i);
        if (!(c < 128 && STOP[c] === 1)) {
          i = this.#nextStop(text, base, i);
          c = i < length ? text.charCodeAt(i) : 0;
        }
      }
      if (i === length) {
        this.#cursor = base + length;
        return false;
      }
      const at = base + i;
      if (c === 0x0a) {
        this.#cursor = at + 1;
        this.#lineStart = at + 1;
        this.#inlineTicks = 0;
        this.#resolveInline(false);
      } else if (c === 0x7b || c === 0x5b) {
        if (this.#context === FENCE) {
          this.#fenceHasText = true;
          this.#startCandidate(at);
        } else {
          this.#proseBrackets(text, base, i);
        }
      } else if (this.#lineIndentOnly(at)) {
        // A fence line may start here: decide once the line is complete.
        this.#matchingFenceLine = true;
        this.#fenceLineMatch.begin(c, at);
        this.#cursor = at;
      } else if (c === 0x60) {
        if (this.#context === FENCE) this.#fenceHasText = true;
        this.#tickRunStart = at;
        this.#cursor = at;
        this.#countTicks(text, base, final);
      } else {
        if (this.#context === FENCE) this.#fenceHasText = true;
        this.#cursor = at + 1;
      }
    }
    return false;
  }

  // What the native searches for each stop character found, in absolute offsets: no
  // occurrence in [stopFrom, stopAt) — or, with stopAt -1, in [stopFrom, stopEnd) — and one at
  // stopAt. The input never changes, so this stays true across chunks and rescans.
  readonly #stopAt = [-1, -1, -1, -1, -1];
  readonly #stopFrom = [0, 0, 0, 0, 0];
  readonly #stopEnd = [0, 0, 0, 0, 0];

  /**
   * Index in `text` (whose first character is at absolute offset `base`) of the first stop
   * character at or after `from` (`text.length` if none).
   *
   * Linear overall: each character's searches move forward from where the last one stopped, so
   * no stretch of text is searched twice for the same character. After a rescan jumped back
   * behind that point, one combined search runs instead, which costs only the distance to the
   * next stop: prose the cursor then skips, and the cursor crosses each character a bounded
   * number of times (invariant 2).
   */
  #nextStop(text: string, base: number, from: number): number {
    const length = text.length;
    if (length - from <= 32) {
      // A token-sized chunk: one pass beats five native searches.
      for (let i = from; i < length; i++) {
        const c = text.charCodeAt(i);
        if (c < 128 && STOP[c] === 1) return i;
      }
      return length;
    }
    const at = base + from;
    const end = base + length;
    const stopAt = this.#stopAt;
    const stopFrom = this.#stopFrom;
    const stopEnd = this.#stopEnd;
    let best = end;
    for (let k = 0; k < 5; k++) {
      if ((stopFrom[k] as number) > at) {
        // (What the searches for the characters before this one found is true all the same.)
        STOP_SEARCH.lastIndex = from;
        return STOP_SEARCH.test(text) ? STOP_SEARCH.lastIndex - 1 : length;
      }
      let next = stopAt[k] as number;
      const searched = stopEnd[k] as number;
      if (next < 0 ? searched < end : next < at) {
        // Search only what is not known yet: past the end of the last search when it found none.
        const searchFrom = next < 0 ? Math.max(at, searched) : at;
        if (next >= 0 || at > searched) stopFrom[k] = at;
        const found = text.indexOf(STOP_CHARS[k] as string, searchFrom - base);
        next = found < 0 ? -1 : base + found;
        stopAt[k] = next;
        stopEnd[k] = end;
      }
      if (next >= 0 && next < best) best = next;
    }
    return best - base;
  }

  #pendingAtEnd(): boolean {
    return this.#open || this.#matchingFenceLine || this.#tickRun > 0;
  }

  /** True when what precedes `at` on its line can be a fence line's indentation (fence.ts). */
  #lineIndentOnly(at: number): boolean {
    return isFenceIndent(this.#retained, this.#lineStart - this.#retainedBase, at - this.#retainedBase);
  }

  // ---- backtick runs and inline code --------------------------------------------------

  /** Counts a backtick run starting at `tickRunStart`; it may continue in the next chunk. */
  #countTicks(text: string, base: number, final: boolean): void {
    let i = this.#cursor - base;
    while (i < text.length && text.charCodeAt(i) === 0x60) i++;
    const count = base + i - this.#tickRunStart;
    if (i === text.length && !final) {
      this.#tickRun = count;
      this.#cursor = base + i;
      return;
    }
    this.#tickRun = 0;
    this.#cursor = this.#tickRunStart + count;
    this.#backtickRun(count);
  }

  #continueTickRun(text: string, base: number, final: boolean): boolean {
    if (this.#cursor >= base + text.length) {
      if (!final) return false;
      const count = this.#tickRun;
      this.#tickRun = 0;
      this.#backtickRun(count);
      return true;
    }
    this.#countTicks(text, base, final);
    return true;
  }

  /** A run of `count` backticks outside a fence line. */
  #backtickRun(count: number): void {
    if (this.#context === FENCE) return;
    if (this.#inlineTicks === 0) {
      this.#inlineTicks = count;
    } else if (this.#inlineTicks === count) {
      this.#inlineTicks = 0;
      this.stats.inlineSpans++;
      this.#resolveInline(true);
    }
  }

  // ---- fence lines ------------------------------------------------------------------------

  /** Feeds the fence line being recognised; false when the segment is exhausted. */
  #continueFenceLine(text: string, base: number, final: boolean): boolean {
    const match = this.#fenceLineMatch;
    const i = match.feed(text, this.#cursor - base);
    if (i < 0) {
      this.#notAFenceLine();
      return true;
    }
    if (i === text.length && !final) {
      this.#cursor = base + text.length;
      return false;
    }
    // The line is complete (or the input ended).
    this.#matchingFenceLine = false;
    if (!match.complete) {
      this.#notAFenceLine();
      return true;
    }
    const lineEnd = base + i;
    if (this.#context === FENCE) {
      if (match.closes(this.#fenceMarker, this.#fenceLength)) {
        this.#closeFence();
      } else {
        this.#fenceHasText = true;
      }
    } else {
      this.#openFence(match.marker, match.count, match.info.toLowerCase(), match.start);
    }
    this.#cursor = lineEnd < base + text.length ? lineEnd + 1 : lineEnd;
    if (lineEnd < base + text.length) this.#lineStart = lineEnd + 1;
    return true;
  }

  /** The characters from the marker on are ordinary text after all. */
  #notAFenceLine(): void {
    this.#matchingFenceLine = false;
    const start = this.#fenceLineMatch.start;
    if (this.#fenceLineMatch.marker === 0x60) {
      // A backtick run that is not a fence: inline code (or fence content).
      this.#tickRunStart = start;
      this.#cursor = start;
      this.#tickRun = 0;
      const count = this.#fenceLineMatch.count;
      this.#cursor = start + count;
      if (this.#context === FENCE) this.#fenceHasText = true;
      this.#backtickRun(count);
    } else {
      if (this.#context === FENCE) this.#fenceHasText = true;
      this.#cursor = start + 1;
    }
  }

  #openFence(marker: number, count: number, info: string, start: number): void {
    this.#context = FENCE;
    this.#fenceMarker = marker;
    this.#fenceLength = count;
    this.#fenceInfo = info;
    this.#fenceLine = start;
    this.#fenceValues = 0;
    this.#fenceError = '';
    this.#fenceHasText = false;
    this.#inlineTicks = 0;
    this.stats.fences++;
  }

  #closeFence(): void {
    this.#reportEmptyFence();
    this.#context = PROSE;
  }

  /** A JSON-tagged fence with text but no value is worth a diagnostic. */
  #reportEmptyFence(): void {
    if (this.#fenceValues > 0 || !this.#fenceHasText || !JSON_INFO.has(this.#fenceInfo)) return;
    const why = this.#fenceError === '' ? 'no object or array in it' : this.#fenceError;
    const marker = String.fromCharCode(this.#fenceMarker).repeat(this.#fenceLength);
    this.#report(
      DiagnosticReason.syntax,
      this.#fenceLine,
      `fenced ${this.#fenceInfo === '' ? 'code' : this.#fenceInfo} block holds no valid JSON: ${why}`,
      `${marker}${this.#fenceInfo}`,
    );
  }

  // ---- candidates ---------------------------------------------------------------------

  #startCandidate(at: number): void {
    if (this.#holdingFirst) this.#checkHold(at, at + 1);
    const source: SalvageSource = this.#context === FENCE ? 'fence' : this.#inlineTicks > 0 ? 'inline' : 'embedded';
    const candidate = this.#candidate;
    candidate.start = at;
    candidate.source = source;
    candidate.fence = this.#context === FENCE ? this.#fenceInfo : undefined;
    this.#open = true;
    this.stats.candidates++;
    this.#json.reset();
    this.#cursor = at;
    if (this.#recovering) {
      this.#recovering = false;
      this.#dropped.length = 0;
      this.#heldComma = -1;
    }
  }

  /**
   * From the bracket at `text[i]` in prose (decision 021): looks before opening a candidate, and
   * while the look-ahead settles each bracket as dead and the next character that matters is
   * again a bracket, goes on from there in this one loop (dense prose is mostly that). Opens a
   * candidate at the first bracket it cannot settle; otherwise leaves the cursor at the next
   * other stop character, or at the end of `text`.
   */
  #proseBrackets(text: string, base: number, i: number): void {
    const length = text.length;
    for (;;) {
      const dead = quickFailure(text, i);
      if (dead < 0 || dead - i >= this.#maxCandidateLength) {
        this.#startCandidate(base + i);
        return;
      }
      this.#abandonAtOnce(base + i, base + dead);
      let j = dead;
      const c = text.charCodeAt(j);
      if (!(c < 128 && STOP[c] === 1)) j = this.#nextStop(text, base, j);
      if (j === length) {
        this.#cursor = base + length;
        return;
      }
      const d = text.charCodeAt(j);
      if (d !== 0x7b && d !== 0x5b) {
        // Only characters that are not stop characters lie between: nothing to do for them.
        this.#cursor = base + j;
        return;
      }
      i = j;
    }
  }

  /**
   * A candidate in prose that `quickFailure` showed to fail at `at` without a nested value or
   * a bracket in a string: the state and stats that opening, scanning and abandoning it would
   * leave (`startCandidate`, then `failCandidate` with nothing to deliver or rescan), without
   * touching the scanner.
   */
  #abandonAtOnce(start: number, at: number): void {
    if (this.#holdingFirst) this.#checkHold(start, start + 1);
    this.stats.candidates++;
    this.stats.abandoned++;
    if (this.#recovering) {
      this.#recovering = false;
      this.#dropped.length = 0;
      this.#heldComma = -1;
    }
    if (this.#rescanFloor < at) this.#rescanFloor = at;
    // No line break in [start, at) (quickFailure stops at one): the line start stays.
    this.#cursor = at;
  }

  /** Feeds the open candidate; returns true when the cursor jumped back for a rescan. */
  #continueCandidate(text: string, base: number, final: boolean): boolean {
    const candidate = this.#candidate;
    const json = this.#json;
    const from = this.#cursor - base;
    // A candidate is too long once it reaches its first character past the limit, wherever
    // the chunks end: the decision depends on the text only.
    const limit = candidate.start + this.#maxCandidateLength;
    if (from < text.length) {
      const end = this.#recovering ? this.#scanRecovering(text, base, from) : this.#scanPlain(text, base, from);
      if (end >= 0) {
        if (end > limit) return this.#candidateTooLong(candidate);
        this.#completeCandidate(candidate, end);
        return false;
      }
      if (end === SCAN_ERROR) {
        if (this.#failedAt >= limit) return this.#candidateTooLong(candidate);
        if (this.#trailingCommaAt(this.#failedAt)) return this.#startRecovery(candidate);
        return this.#failCandidate(candidate, this.#failedAt);
      }
      this.#cursor = base + text.length;
      if (this.#cursor > limit) return this.#candidateTooLong(candidate);
      return false;
    }
    if (!final) return false;
    // The input ended inside the candidate. Nothing inside it is reported: the rest of the
    // answer might have made it one valid value (truncation yields a prefix).
    json.end();
    this.#open = false;
    this.stats.abandoned++;
    this.#report(
      DiagnosticReason.truncated,
      candidate.start,
      `input ended inside a ${candidate.source === 'fence' ? 'fenced' : candidate.source} value: ${json.errorMessage}`,
      this.#slice(candidate.start, Math.min(this.#received, candidate.start + 200)),
    );
    if (candidate.source === 'fence') this.#fenceValues++;
    return false;
  }

  /** Scans `text[from..]` as plain JSON: the absolute end of the value, SCAN_MORE, or SCAN_ERROR (`failedAt`). */
  #scanPlain(text: string, base: number, from: number): number {
    const json = this.#json;
    const end = json.scan(text, from, base);
    if (end >= 0) return base + end;
    if (end === SCAN_ERROR) this.#failedAt = base + json.errorIndex;
    return end;
  }

  /**
   * True when a plain scan failed at a closing bracket whose previous non-space character is a
   * comma: the scanner accepted that comma, so it followed a value, and it is trailing.
   */
  #trailingCommaAt(at: number): boolean {
    if (this.#strict || this.#recovering) return false;
    const c = this.#charAt(at);
    if (c !== 0x7d && c !== 0x5d) return false;
    let p = at - 1;
    while (p > this.#candidate.start && isSpace(this.#charAt(p))) p--;
    return this.#charAt(p) === 0x2c;
  }

  /** Scans the open candidate again from its start, recovering trailing commas (invariant 5). */
  #startRecovery(candidate: Candidate): boolean {
    this.#recovering = true;
    this.#dropped.length = 0;
    this.#heldComma = -1;
    this.#lastChar = 0;
    this.#json.reset();
    this.#cursor = candidate.start;
    return true;
  }

  /**
   * Like `scanPlain`, but each comma outside a string that follows a value is held back until
   * the next non-space character: before `}` or `]` it is dropped (and remembered in
   * `dropped`), before anything else it is fed as written. The text between commas goes to the
   * scanner in slices, each with its absolute offset as `base`, so that every position it
   * tracks stays absolute.
   */
  #scanRecovering(text: string, base: number, from: number): number {
    const json = this.#json;
    const length = text.length;
    let i = from; // next character to feed
    let search = from; // where to look for the next comma
    while (i < length) {
      if (this.#heldComma >= 0) {
        while (i < length && isSpace(text.charCodeAt(i))) i++;
        if (i === length) break;
        const comma = this.#heldComma;
        this.#heldComma = -1;
        const c = text.charCodeAt(i);
        if (c === 0x7d || c === 0x5d) {
          this.#dropped.push(comma);
        } else {
          if (json.scan(',', 0, comma) === SCAN_ERROR) {
            this.#failedAt = comma;
            return SCAN_ERROR;
          }
          this.#lastChar = 0x2c;
        }
        search = i;
      }
      let k = text.indexOf(',', search);
      if (k < 0) k = length;
      const piece = i === 0 && k === length ? text : text.slice(i, k);
      const end = json.scan(piece, 0, base + i);
      if (end >= 0) return base + i + end;
      if (end === SCAN_ERROR) {
        this.#failedAt = base + i + json.errorIndex;
        return SCAN_ERROR;
      }
      for (let p = piece.length - 1; p >= 0; p--) {
        const c = piece.charCodeAt(p);
        if (!isSpace(c)) {
          this.#lastChar = c;
          break;
        }
      }
      if (k === length) return SCAN_MORE;
      if (json.inString || !endsValue(this.#lastChar)) {
        // String text, or a comma that cannot be trailing: the scanner reads it as written.
        i = k;
        search = k + 1;
        continue;
      }
      this.#heldComma = base + k;
      i = k + 1;
      search = i;
    }
    return SCAN_MORE;
  }

  /** Abandons a candidate that outgrew maxCandidateLength; scanning resumes just past the limit. */
  #candidateTooLong(candidate: Candidate): boolean {
    this.#open = false;
    this.stats.abandoned++;
    const resume = candidate.start + this.#maxCandidateLength + 1;
    this.#report(
      DiagnosticReason.tooLong,
      candidate.start,
      `candidate longer than maxCandidateLength (${this.#maxCandidateLength} characters) abandoned`,
      this.#slice(candidate.start, candidate.start + Math.min(200, this.#maxCandidateLength + 1)),
    );
    if (candidate.source === 'fence') this.#fenceValues++;
    this.#rescanFloor = Math.max(this.#rescanFloor, resume);
    this.#updateLineStart(candidate.start, resume);
    this.#cursor = resume;
    return true;
  }

  #completeCandidate(candidate: Candidate, end: number): void {
    this.#open = false;
    this.#cursor = end;
    this.#updateLineStart(candidate.start, end);
    this.#deliverRange(candidate.start, end, candidate.source, candidate.fence);
    if (this.#holdingFirst) this.#checkHold(end, this.#received);
  }

  /**
   * Delivers the value whose text is `[start, end)` of the open (or just closed) candidate,
   * without the commas that recovery dropped in it.
   */
  #deliverRange(start: number, end: number, source: SalvageSource, fence: string | undefined): void {
    const text = this.#slice(start, end);
    const dropped = this.#dropped;
    if (!this.#recovering || dropped.length === 0 || (dropped[dropped.length - 1] as number) < start) {
      this.#deliver(parseValidated(text), source, start, end, fence, text);
      return;
    }
    // Binary search for the first dropped comma at or after `start`.
    let low = 0;
    let high = dropped.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((dropped[mid] as number) < start) low = mid + 1;
      else high = mid;
    }
    let clean = '';
    let from = start;
    let count = 0;
    for (let k = low; k < dropped.length && (dropped[k] as number) < end; k++) {
      const comma = dropped[k] as number;
      clean += text.slice(from - start, comma - start);
      from = comma + 1;
      count++;
    }
    if (count === 0) {
      this.#deliver(parseValidated(text), source, start, end, fence, text);
      return;
    }
    clean += text.slice(from - start);
    const first = dropped[low] as number;
    this.#deliver(JSON.parse(clean), source, start, end, fence, text, {
      reason: DiagnosticReason.recovered,
      offset: first,
      excerpt: excerptAround(text, first - start),
      message: `${count === 1 ? 'a trailing comma' : `${count} trailing commas`} before a closing bracket dropped (the value was not JSON as written)`,
    });
  }

  /**
   * Releases the held first value if anything but whitespace stands in `[from, to)` — apart
   * from one comma right after it, which recovery allows (`{"a": 1},` is still the document).
   */
  #checkHold(from: number, to: number): void {
    for (let p = from; p < to; p++) {
      const c = this.#charAt(p);
      if (!isSpace(c)) {
        if (c === 0x2c && (this.#holdComma < 0 || this.#holdComma === p) && !this.#strict) {
          if (this.#holdComma < 0) {
            const first = this.#queue[0];
            const start = first !== undefined && !('reason' in first) ? first.start : Math.max(0, this.#firstText);
            this.#holdCommaFrom = Math.max(start, p - 79);
            this.#holdCommaText = this.#slice(this.#holdCommaFrom, p + 1);
          }
          this.#holdComma = p;
          continue;
        }
        this.#holdingFirst = false;
        if (!this.#holding) this.#drain();
        return;
      }
    }
  }

  /** The candidate failed at `at`: deliver its complete nested values, then rescan or go on. */
  #failCandidate(candidate: Candidate, at: number): boolean {
    this.#open = false;
    this.stats.abandoned++;
    if (candidate.source === 'fence' && this.#fenceError === '') {
      this.#fenceError = `${this.#json.errorMessage} at offset ${at}`;
    }
    return this.#afterFailure(candidate, at);
  }

  #afterFailure(candidate: Candidate, at: number): boolean {
    const json = this.#json;
    // The first bracket inside one of the candidate's strings that is not inside a complete
    // nested value and not before the rescan floor: a candidate may have started there.
    const children = json.children;
    let rescanAt = -1;
    let c = 0;
    for (const b of json.stringBrackets) {
      if (b < this.#rescanFloor) continue;
      while (c < children.length && (children[c + 1] as number) <= b) c += 2;
      if (c < children.length && (children[c] as number) < b) continue;
      rescanAt = b;
      break;
    }
    const limit = rescanAt >= 0 ? rescanAt : at;
    for (let k = 0; k < children.length; k += 2) {
      const start = children[k] as number;
      const end = children[k + 1] as number;
      if (end > limit) break;
      this.#nestedDelivery = true;
      try {
        this.#deliverRange(start, end, candidate.source, candidate.fence);
      } finally {
        this.#nestedDelivery = false;
      }
    }
    this.#rescanFloor = Math.max(this.#rescanFloor, at);
    if (rescanAt >= 0) {
      this.#updateLineStart(candidate.start, rescanAt);
      this.#cursor = rescanAt;
      return true;
    }
    this.#updateLineStart(candidate.start, at);
    this.#cursor = at;
    return false;
  }

  /** The last line start within `[from, to)` becomes the current one. */
  #updateLineStart(from: number, to: number): void {
    // Backward search bounded by the range, whose characters were just scanned anyway.
    const retained = this.#retained;
    const low = Math.max(0, from - this.#retainedBase);
    for (let i = to - 1 - this.#retainedBase; i >= low; i--) {
      if (retained.charCodeAt(i) === 0x0a) {
        this.#lineStart = i + 1 + this.#retainedBase;
        this.#inlineTicks = 0;
        this.#resolveInline(false);
        return;
      }
    }
  }

  // ---- delivery -----------------------------------------------------------------------

  #deliver(
    value: unknown,
    source: SalvageSource,
    start: number,
    end: number,
    fence: string | undefined,
    text: string,
    note?: Diagnostic,
  ): void {
    if (source === 'fence') this.#fenceValues++;
    // The depth guard comes first: a validator following a recursive schema recurses too.
    if (mayExceedDepth(text.length, this.#maxDepth) && depthExceeds(value, this.#maxDepth)) {
      const at = tooDeepIndex(text, this.#maxDepth);
      this.#count(DiagnosticReason.tooDeep);
      this.#output({
        reason: DiagnosticReason.tooDeep,
        offset: start + at,
        excerpt: excerptAround(text, at),
        message: `value nested deeper than maxDepth (${this.#maxDepth} levels); the value was dropped`,
      });
      return;
    }
    let branch: string | undefined;
    let coerced = value;
    let fixes: Diagnostic[] | undefined;
    if (this.#validator !== undefined) {
      const result = validateSafely(this.#validator, value);
      if (!result.valid) {
        this.#count(DiagnosticReason.schema);
        this.#output({
          reason: DiagnosticReason.schema,
          offset: start,
          excerpt: excerptAround(text),
          message: result.message,
          errors: result.errors,
          ...(result.branch === undefined ? {} : { branch: result.branch }),
        });
        return;
      }
      branch = result.branch;
      if (result.fixes !== undefined) {
        coerced = result.value;
        fixes = result.fixes.map((fix) => coercionDiagnostic(fix, start, text, result.branch));
      }
    }
    const record: Pending = { value: coerced, source, start, end };
    if (fence !== undefined) record.fence = fence;
    if (branch !== undefined) record.branch = branch;
    if (fixes !== undefined) record.fixes = fixes;
    if (note !== undefined) {
      record.recovered = true;
      record.note = note;
    }
    if (this.#nestedDelivery) nestedInFailure.add(record);
    if (source === 'inline') {
      // Inline only if the span closes on this line: decided when it does, or does not.
      record.provisional = true;
      this.#inlinePending = true;
    } else if (source === 'embedded' && start === this.#firstText && this.#queue.length === 0) {
      this.#holdingFirst = true;
    }
    this.#output(record);
  }

  /** True while the label of a queued value is still undecided. */
  get #holding(): boolean {
    return this.#scalar !== undefined || this.#holdingFirst || this.#inlinePending;
  }

  #output(item: Pending | Diagnostic): void {
    if (this.#queue.length === 0 && !this.#holding) {
      this.#send(item);
      return;
    }
    this.#queue.push(item);
    if (!this.#holding) this.#drain();
  }

  #send(item: Pending | Diagnostic): void {
    if ('reason' in item) {
      this.#sink.diagnostic(item);
      return;
    }
    if (item.provisional !== undefined) delete item.provisional;
    const note = item.note;
    if (note !== undefined) {
      delete item.note;
      this.#count(note.reason);
      this.#sink.diagnostic(note);
    }
    const fixes = item.fixes;
    if (fixes !== undefined) {
      delete item.fixes;
      for (const fix of fixes) {
        this.#count(fix.reason);
        this.#sink.diagnostic(fix);
      }
    }
    this.stats.values++;
    this.#sink.value(item);
  }

  /** The inline span of provisional values closed (`true`) or ended with its line (`false`). */
  #resolveInline(closed: boolean): void {
    if (!this.#inlinePending) return;
    this.#inlinePending = false;
    for (const item of this.#queue) {
      if ('provisional' in item && item.provisional === true) {
        item.provisional = false;
        if (!closed) item.source = 'embedded';
      }
    }
    if (!this.#holding) this.#drain();
  }

  /** Emits the queued values and diagnostics in order. */
  #drain(): void {
    if (this.#queue.length === 0) return;
    const items = this.#queue.splice(0);
    for (const item of items) this.#send(item);
  }

  /** At the end: a lone first value with only whitespace after it is the document. */
  #flushHeld(): void {
    this.#resolveInline(false);
    const first = this.#queue[0];
    if (
      this.#holdingFirst &&
      first !== undefined &&
      !('reason' in first) &&
      this.#queue.length === 1 &&
      this.#onlySpaceAfter(first.end)
    ) {
      first.source = 'document';
      const comma = this.#holdComma;
      if (comma >= 0) {
        const message = 'a comma after the document dropped (the text was not JSON as written)';
        const from = this.#holdCommaFrom;
        first.recovered = true;
        first.note =
          first.note === undefined
            ? {
                reason: DiagnosticReason.recovered,
                offset: comma,
                excerpt: excerptAround(this.#holdCommaText, comma - from),
                message,
              }
            : { ...first.note, message: `${first.note.message}; ${message}` };
      }
    }
    this.#holdingFirst = false;
    this.#drain();
  }

  /** Text no longer kept (see compact) was whitespace, or the comma: checkHold saw it arrive. */
  #onlySpaceAfter(end: number): boolean {
    for (let p = Math.max(end, this.#retainedBase); p < this.#received; p++) {
      if (!isSpace(this.#charAt(p)) && p !== this.#holdComma) return false;
    }
    return true;
  }

  #count(reason: Diagnostic['reason']): void {
    countDiagnostic(this.stats.diagnostics, reason);
  }

  /** Takes back the count of a queued diagnostic that will not be reported. */
  #uncount(reason: Diagnostic['reason']): void {
    const counts = this.stats.diagnostics as Record<string, number | undefined>;
    const left = (counts[reason] ?? 0) - 1;
    if (left > 0) counts[reason] = left;
    else delete counts[reason];
  }

  #report(reason: Diagnostic['reason'], offset: number, message: string, excerptText: string): void {
    this.#count(reason);
    this.#output({ reason, offset, excerpt: excerptAround(excerptText), message });
  }

  // ---- retained text ----------------------------------------------------------------------

  #slice(from: number, to: number): string {
    return this.#retained.slice(Math.max(0, from - this.#retainedBase), Math.max(0, to - this.#retainedBase));
  }

  #charAt(at: number): number {
    return this.#retained.charCodeAt(at - this.#retainedBase);
  }

  /** Drops retained text nothing can need any more. */
  #compact(): void {
    let keep = this.#cursor;
    if (this.#open) keep = Math.min(keep, this.#candidate.start);
    if (this.#matchingFenceLine) keep = Math.min(keep, this.#fenceLineMatch.start);
    if (this.#tickRun > 0) keep = Math.min(keep, this.#tickRunStart);
    if (this.#cursor - this.#lineStart <= MAX_FENCE_INDENT) keep = Math.min(keep, this.#lineStart);
    // A scalar document in flight is read from its text; once it ended, its text is kept apart.
    if (this.#scalar !== undefined && this.#scalarEnd < 0) keep = Math.min(keep, Math.max(0, this.#firstText));
    if (this.#holdingFirst) {
      // The held value is queued with its own text; after it only whitespace (and one comma,
      // whose excerpt checkHold kept) came, as checkHold saw: what is kept is the last 80
      // characters, which a comma's excerpt may show, not all of that whitespace.
      const first = this.#queue[0];
      const start = first !== undefined && !('reason' in first) ? first.start : Math.max(0, this.#firstText);
      keep = Math.min(keep, Math.max(start, this.#received - 80));
    }
    // Dropping costs a copy of what is kept: do it once there is something worth dropping.
    if (keep - this.#retainedBase > 4096 || (keep === this.#received && keep > this.#retainedBase)) {
      this.#retained = this.#retained.slice(keep - this.#retainedBase);
      this.#retainedBase = keep;
    }
  }
}

/** Creates a push-based salvage scanner. Throws ConfigurationError for a broken configuration. */
export function createSalvageScanner<S extends SchemaInput = SchemaInput>(
  options: SalvageOptions<S>,
  sink: SalvageSink<SchemaValue<S>>,
): SalvageScanner {
  // Type-level only: the scanner delivers what the schema accepted, typed by the caller's schema.
  return new Scanner(options, sink as SalvageSink);
}

// ---- option names (the options policy: options/option-checks.ts) ----------------------------

/** The options `createSalvageScanner` takes. */
export const SALVAGE_SCANNER_OPTIONS = /* @__PURE__ */ optionNames<SalvageOptions>()([
  'schema',
  'discriminator',
  'maxCandidateLength',
  'maxDepth',
  'strict',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createSalvageStream` takes. */
export const SALVAGE_STREAM_OPTIONS = /* @__PURE__ */ optionNames<SalvageOptions & AdapterOptions>()([
  'schema',
  'discriminator',
  'maxCandidateLength',
  'maxDepth',
  'strict',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
]);
