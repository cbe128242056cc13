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
 *
 * Where the parts are: this file is the scan — the main loop, fence lines, backtick runs,
 * candidates and their recovery, document detection, the retained text. What becomes of a found
 * value and when it goes out (depth guard, validation, the queue that holds output while a label
 * is undecided: invariant 4) is salvage-delivery.ts's; the look-ahead of invariant 6
 * (`quickFailure`) is salvage-lookahead.ts's, applied here by `proseBrackets`.
 */

import { DiagnosticReason, excerptAround } from '../diagnostics/diagnostics.js';
import { checkChoice, checkOptionNames, optionNames } from '../options/option-checks.js';
import type { CoercionOptions } from '../schema/coercion-options.js';
import type { SchemaInput, SchemaValue } from '../schema/standard-schema.js';
import { DEFAULT_MAX_DEPTH } from '../syntax/depth.js';
import { JsonScanner, SCAN_ERROR, SCAN_MORE } from '../syntax/json-scanner.js';
import { DEFAULT_MAX_CANDIDATE_LENGTH } from '../syntax/limits.js';
import { FenceLine, isFenceIndent, MAX_FENCE_INDENT } from '../text/fence.js';
import type { AdapterOptions } from './engine.js';
import {
  checkPositiveInteger,
  type DiagnosticCounts,
  type Engine,
  type ValidatorOptions,
  validatorFor,
} from './engine.js';
import { SalvageDelivery, type SalvageSink, type SalvageSource } from './salvage-delivery.js';
import { quickFailure } from './salvage-lookahead.js';

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

/** The value of JSON text the scanner has validated. */
function parseValidated(text: string): unknown {
  return parseShortArray(text) ?? JSON.parse(text);
}

/** Characters a complete value (or key) ends with: only after one can a comma be trailing. */
function endsValue(c: number): boolean {
  return c === 0x22 || c === 0x7d || c === 0x5d || (c >= 0x30 && c <= 0x39) || c === 0x65 || c === 0x6c;
}

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
  private readonly delivery: SalvageDelivery;
  private readonly maxCandidateLength: number;
  private readonly strict: boolean;
  private readonly json = new JsonScanner({ track: true });

  // Input kept: `retained` is the text from `retainedBase` to `received`.
  private retained = '';
  private retainedBase = 0;
  private received = 0;
  private cursor = 0; // absolute offset of the next character to process
  private atStart = true;

  // Context.
  private context = PROSE;
  private fenceMarker = 0;
  private fenceLength = 0;
  private fenceInfo = '';
  private fenceLine = 0; // offset of the opening fence line
  private fenceValues = 0; // values found in the current fence
  private fenceError = ''; // why the first candidate in the current fence failed
  private fenceHasText = false; // the current fence holds non-blank text
  private inlineTicks = 0; // length of the backtick run that opened the current inline span
  private lineStart = 0; // offset of the current line's first character
  private readonly fenceLineMatch = new FenceLine();
  private matchingFenceLine = false;
  private tickRun = 0; // backticks counted so far in a run that may continue in the next chunk
  private tickRunStart = 0;

  // Candidate.
  private readonly candidate: Candidate = { start: 0, source: 'embedded', fence: undefined };
  private open = false; // a candidate is being scanned
  private rescanFloor = 0;
  private failedAt = 0; // absolute offset where the last scan failed

  // Recovery of the open candidate (invariant 5).
  private recovering = false; // rescanning it with trailing commas held back
  private readonly dropped: number[] = []; // absolute offsets of the commas dropped, ascending
  private heldComma = -1; // offset of a comma not yet fed, until the next character decides
  private lastChar = 0; // last non-space character fed while recovering

  // Document detection.
  private firstText = -1; // offset of the first non-whitespace character, -1 before it
  private scalar: JsonScanner | undefined; // viable scalar document from firstText (the delivery holds meanwhile)
  private scalarEnd = -1;
  /** The scalar document's text once it ended: the whitespace after it is then not kept. */
  private scalarSource = '';

  constructor(options: SalvageOptions, sink: SalvageSink) {
    checkOptionNames('createSalvageScanner', options, SALVAGE_SCANNER_OPTIONS);
    checkChoice('strict', options.strict, [true, false]);
    checkPositiveInteger('maxCandidateLength', options.maxCandidateLength, 'characters');
    checkPositiveInteger('maxDepth', options.maxDepth, 'levels');
    this.maxCandidateLength = options.maxCandidateLength ?? DEFAULT_MAX_CANDIDATE_LENGTH;
    this.strict = options.strict === true;
    const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.delivery = new SalvageDelivery(sink, this.stats, validatorFor(options), maxDepth, this.strict);
  }

  write(text: string): void {
    if (text.length === 0) return;
    if (this.atStart) {
      this.atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) return;
    }
    const base = this.received;
    this.retained += text;
    this.received += text.length;
    this.stats.characters += text.length;
    this.trackDocument(text, base);
    this.run(text, base, false);
    this.compact();
  }

  /**
   * Characters of input the scanner holds now (the candidate in flight and what it still needs
   * to look back at): bounded by `maxCandidateLength`, however long the input. Not part of the
   * `SalvageScanner` interface; read by the memory tests.
   */
  get retainedLength(): number {
    return this.retained.length;
  }

  end(): void {
    if (this.atStart) this.atStart = false;
    this.run('', this.received, true);
    if (this.context === FENCE) this.reportEmptyFence();
    this.finishDocument();
    this.delivery.flushHeld(this.retained, this.retainedBase);
  }

  // ---- document detection -------------------------------------------------------------

  /** Follows a possible scalar document (`42`, `"text"`, `true`) from the first non-space character. */
  private trackDocument(text: string, base: number): void {
    let from = 0;
    if (this.firstText < 0) {
      while (from < text.length && isSpace(text.charCodeAt(from))) from++;
      if (from === text.length) return;
      this.firstText = base + from;
      this.delivery.textStartsAt(this.firstText);
      const c = text.charCodeAt(from);
      if (c !== 0x7b && c !== 0x5b) {
        this.scalar = new JsonScanner();
        this.delivery.followScalar();
      }
    } else if (this.delivery.holdingFirst) {
      // Anything but whitespace after the held first value makes it embedded.
      this.delivery.checkHold(this.retained, this.retainedBase, base, base + text.length);
    }
    const scalar = this.scalar;
    if (scalar === undefined) return;
    if (this.scalarEnd >= 0) {
      for (let i = from; i < text.length; i++) {
        if (!isSpace(text.charCodeAt(i))) {
          this.dropScalar();
          return;
        }
      }
      return;
    }
    const end = scalar.scan(text, from);
    // How far the scalar reaches: to its end when it ended in this text (the whitespace after
    // it is not part of it), else to the end of the text (chunking does not matter).
    const reach = end >= 0 ? base + end : base + text.length;
    if (end === SCAN_ERROR || reach - this.firstText > this.maxCandidateLength) {
      this.dropScalar();
    } else if (end >= 0) {
      this.scalarEnd = base + end;
      this.scalarSource = this.slice(this.firstText, this.scalarEnd);
      for (let i = end; i < text.length; i++) {
        if (!isSpace(text.charCodeAt(i))) {
          this.dropScalar();
          return;
        }
      }
    }
  }

  private dropScalar(): void {
    this.scalar = undefined;
    this.scalarEnd = -1;
    this.scalarSource = '';
    this.delivery.dropScalar();
  }

  /** At the end: a scalar that spans the whole text is the document. */
  private finishDocument(): void {
    const scalar = this.scalar;
    if (scalar === undefined) return;
    if (this.scalarEnd < 0 && !scalar.end()) {
      this.dropScalar();
      return;
    }
    let source: string;
    if (this.scalarEnd >= 0) {
      source = this.scalarSource;
    } else {
      let to = this.received;
      while (to > this.firstText && isSpace(this.charAt(to - 1))) to--;
      source = this.slice(this.firstText, to);
    }
    const end = this.firstText + source.length;
    this.scalar = undefined;
    this.scalarSource = '';
    // What was found inside the document (brackets in a string) is part of it: the delivery drops it.
    this.delivery.deliverDocument(JSON.parse(source), this.firstText, end, source);
  }

  // ---- the main loop --------------------------------------------------------------------

  /**
   * Processes `text` (whose first character is at absolute offset `base`) from `this.cursor`.
   * When a failed candidate sends the cursor back into retained text, the retained text from
   * there is processed instead.
   */
  private run(text: string, base: number, final: boolean): void {
    let segment = text;
    let segmentBase = base;
    for (;;) {
      const jumped = this.process(segment, segmentBase, final);
      if (!jumped) return;
      // Rescan: process the retained text from the new cursor to what has been received.
      segmentBase = this.cursor;
      segment = this.slice(segmentBase, this.received);
    }
  }

  /** Returns true when the cursor jumped back (a rescan), false when the segment is done. */
  private process(text: string, base: number, final: boolean): boolean {
    const length = text.length;
    while (this.cursor < base + length || (final && this.pendingAtEnd())) {
      if (this.open) {
        const jumped = this.continueCandidate(text, base, final);
        if (jumped) return true;
        continue;
      }
      if (this.matchingFenceLine) {
        if (!this.continueFenceLine(text, base, final)) return false;
        continue;
      }
      if (this.tickRun > 0) {
        if (!this.continueTickRun(text, base, final)) return false;
        continue;
      }
      if (final && this.cursor >= base + length) return false;
      let i = this.cursor - base;
      let c = 0;
      if (this.context === FENCE && !this.fenceHasText) {
        // Until the fence shows text, note whether it does.
        for (; i < length; i++) {
          c = text.charCodeAt(i);
          if (c < 128 && STOP[c] === 1) break;
          if (!isSpace(c)) {
            this.fenceHasText = true;
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
          i = this.nextStop(text, base, i);
          c = i < length ? text.charCodeAt(i) : 0;
        }
      }
      if (i === length) {
        this.cursor = base + length;
        return false;
      }
      const at = base + i;
      if (c === 0x0a) {
        this.cursor = at + 1;
        this.lineStart = at + 1;
        this.inlineTicks = 0;
        this.delivery.resolveInline(false);
      } else if (c === 0x7b || c === 0x5b) {
        if (this.context === FENCE) {
          this.fenceHasText = true;
          this.startCandidate(at);
        } else {
          this.proseBrackets(text, base, i);
        }
      } else if (this.lineIndentOnly(at)) {
        // A fence line may start here: decide once the line is complete.
        this.matchingFenceLine = true;
        this.fenceLineMatch.begin(c, at);
        this.cursor = at;
      } else if (c === 0x60) {
        if (this.context === FENCE) this.fenceHasText = true;
        this.tickRunStart = at;
        this.cursor = at;
        this.countTicks(text, base, final);
      } else {
        if (this.context === FENCE) this.fenceHasText = true;
        this.cursor = at + 1;
      }
    }
    return false;
  }

  // What the native searches for each stop character found, in absolute offsets: no
  // occurrence in [stopFrom, stopAt) — or, with stopAt -1, in [stopFrom, stopEnd) — and one at
  // stopAt. The input never changes, so this stays true across chunks and rescans.
  private readonly stopAt = [-1, -1, -1, -1, -1];
  private readonly stopFrom = [0, 0, 0, 0, 0];
  private readonly stopEnd = [0, 0, 0, 0, 0];

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
  private nextStop(text: string, base: number, from: number): number {
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
    const stopAt = this.stopAt;
    const stopFrom = this.stopFrom;
    const stopEnd = this.stopEnd;
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

  private pendingAtEnd(): boolean {
    return this.open || this.matchingFenceLine || this.tickRun > 0;
  }

  /** True when what precedes `at` on its line can be a fence line's indentation (fence.ts). */
  private lineIndentOnly(at: number): boolean {
    return isFenceIndent(this.retained, this.lineStart - this.retainedBase, at - this.retainedBase);
  }

  // ---- backtick runs and inline code --------------------------------------------------

  /** Counts a backtick run starting at `tickRunStart`; it may continue in the next chunk. */
  private countTicks(text: string, base: number, final: boolean): void {
    let i = this.cursor - base;
    while (i < text.length && text.charCodeAt(i) === 0x60) i++;
    const count = base + i - this.tickRunStart;
    if (i === text.length && !final) {
      this.tickRun = count;
      this.cursor = base + i;
      return;
    }
    this.tickRun = 0;
    this.cursor = this.tickRunStart + count;
    this.backtickRun(count);
  }

  private continueTickRun(text: string, base: number, final: boolean): boolean {
    if (this.cursor >= base + text.length) {
      if (!final) return false;
      const count = this.tickRun;
      this.tickRun = 0;
      this.backtickRun(count);
      return true;
    }
    this.countTicks(text, base, final);
    return true;
  }

  /** A run of `count` backticks outside a fence line. */
  private backtickRun(count: number): void {
    if (this.context === FENCE) return;
    if (this.inlineTicks === 0) {
      this.inlineTicks = count;
    } else if (this.inlineTicks === count) {
      this.inlineTicks = 0;
      this.stats.inlineSpans++;
      this.delivery.resolveInline(true);
    }
  }

  // ---- fence lines ------------------------------------------------------------------------

  /** Feeds the fence line being recognised; false when the segment is exhausted. */
  private continueFenceLine(text: string, base: number, final: boolean): boolean {
    const match = this.fenceLineMatch;
    const i = match.feed(text, this.cursor - base);
    if (i < 0) {
      this.notAFenceLine();
      return true;
    }
    if (i === text.length && !final) {
      this.cursor = base + text.length;
      return false;
    }
    // The line is complete (or the input ended).
    this.matchingFenceLine = false;
    if (!match.complete) {
      this.notAFenceLine();
      return true;
    }
    const lineEnd = base + i;
    if (this.context === FENCE) {
      if (match.closes(this.fenceMarker, this.fenceLength)) {
        this.closeFence();
      } else {
        this.fenceHasText = true;
      }
    } else {
      this.openFence(match.marker, match.count, match.info.toLowerCase(), match.start);
    }
    this.cursor = lineEnd < base + text.length ? lineEnd + 1 : lineEnd;
    if (lineEnd < base + text.length) this.lineStart = lineEnd + 1;
    return true;
  }

  /** The characters from the marker on are ordinary text after all. */
  private notAFenceLine(): void {
    this.matchingFenceLine = false;
    const start = this.fenceLineMatch.start;
    if (this.fenceLineMatch.marker === 0x60) {
      // A backtick run that is not a fence: inline code (or fence content).
      this.tickRunStart = start;
      this.cursor = start;
      this.tickRun = 0;
      const count = this.fenceLineMatch.count;
      this.cursor = start + count;
      if (this.context === FENCE) this.fenceHasText = true;
      this.backtickRun(count);
    } else {
      if (this.context === FENCE) this.fenceHasText = true;
      this.cursor = start + 1;
    }
  }

  private openFence(marker: number, count: number, info: string, start: number): void {
    this.context = FENCE;
    this.fenceMarker = marker;
    this.fenceLength = count;
    this.fenceInfo = info;
    this.fenceLine = start;
    this.fenceValues = 0;
    this.fenceError = '';
    this.fenceHasText = false;
    this.inlineTicks = 0;
    this.stats.fences++;
  }

  private closeFence(): void {
    this.reportEmptyFence();
    this.context = PROSE;
  }

  /** A JSON-tagged fence with text but no value is worth a diagnostic. */
  private reportEmptyFence(): void {
    if (this.fenceValues > 0 || !this.fenceHasText || !JSON_INFO.has(this.fenceInfo)) return;
    const why = this.fenceError === '' ? 'no object or array in it' : this.fenceError;
    const marker = String.fromCharCode(this.fenceMarker).repeat(this.fenceLength);
    this.delivery.report(
      DiagnosticReason.syntax,
      this.fenceLine,
      `fenced ${this.fenceInfo === '' ? 'code' : this.fenceInfo} block holds no valid JSON: ${why}`,
      `${marker}${this.fenceInfo}`,
    );
  }

  // ---- candidates ---------------------------------------------------------------------

  private startCandidate(at: number): void {
    if (this.delivery.holdingFirst) this.delivery.checkHold(this.retained, this.retainedBase, at, at + 1);
    const source: SalvageSource = this.context === FENCE ? 'fence' : this.inlineTicks > 0 ? 'inline' : 'embedded';
    const candidate = this.candidate;
    candidate.start = at;
    candidate.source = source;
    candidate.fence = this.context === FENCE ? this.fenceInfo : undefined;
    this.open = true;
    this.stats.candidates++;
    this.json.reset();
    this.cursor = at;
    if (this.recovering) {
      this.recovering = false;
      this.dropped.length = 0;
      this.heldComma = -1;
    }
  }

  /**
   * From the bracket at `text[i]` in prose (decision 021): looks before opening a candidate, and
   * while the look-ahead settles each bracket as dead and the next character that matters is
   * again a bracket, goes on from there in this one loop (dense prose is mostly that). Opens a
   * candidate at the first bracket it cannot settle; otherwise leaves the cursor at the next
   * other stop character, or at the end of `text`.
   */
  private proseBrackets(text: string, base: number, i: number): void {
    const length = text.length;
    for (;;) {
      const dead = quickFailure(text, i);
      if (dead < 0 || dead - i >= this.maxCandidateLength) {
        this.startCandidate(base + i);
        return;
      }
      this.abandonAtOnce(base + i, base + dead);
      let j = dead;
      const c = text.charCodeAt(j);
      if (!(c < 128 && STOP[c] === 1)) j = this.nextStop(text, base, j);
      if (j === length) {
        this.cursor = base + length;
        return;
      }
      const d = text.charCodeAt(j);
      if (d !== 0x7b && d !== 0x5b) {
        // Only characters that are not stop characters lie between: nothing to do for them.
        this.cursor = base + j;
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
  private abandonAtOnce(start: number, at: number): void {
    if (this.delivery.holdingFirst) this.delivery.checkHold(this.retained, this.retainedBase, start, start + 1);
    this.stats.candidates++;
    this.stats.abandoned++;
    if (this.recovering) {
      this.recovering = false;
      this.dropped.length = 0;
      this.heldComma = -1;
    }
    if (this.rescanFloor < at) this.rescanFloor = at;
    // No line break in [start, at) (quickFailure stops at one): the line start stays.
    this.cursor = at;
  }

  /** Feeds the open candidate; returns true when the cursor jumped back for a rescan. */
  private continueCandidate(text: string, base: number, final: boolean): boolean {
    const candidate = this.candidate;
    const json = this.json;
    const from = this.cursor - base;
    // A candidate is too long once it reaches its first character past the limit, wherever
    // the chunks end: the decision depends on the text only.
    const limit = candidate.start + this.maxCandidateLength;
    if (from < text.length) {
      const end = this.recovering ? this.scanRecovering(text, base, from) : this.scanPlain(text, base, from);
      if (end >= 0) {
        if (end > limit) return this.candidateTooLong(candidate);
        this.completeCandidate(candidate, end);
        return false;
      }
      if (end === SCAN_ERROR) {
        if (this.failedAt >= limit) return this.candidateTooLong(candidate);
        if (this.trailingCommaAt(this.failedAt)) return this.startRecovery(candidate);
        return this.failCandidate(candidate, this.failedAt);
      }
      this.cursor = base + text.length;
      if (this.cursor > limit) return this.candidateTooLong(candidate);
      return false;
    }
    if (!final) return false;
    // The input ended inside the candidate. Nothing inside it is reported: the rest of the
    // answer might have made it one valid value (truncation yields a prefix).
    json.end();
    this.open = false;
    this.stats.abandoned++;
    this.delivery.report(
      DiagnosticReason.truncated,
      candidate.start,
      `input ended inside a ${candidate.source === 'fence' ? 'fenced' : candidate.source} value: ${json.errorMessage}`,
      this.slice(candidate.start, Math.min(this.received, candidate.start + 200)),
    );
    if (candidate.source === 'fence') this.fenceValues++;
    return false;
  }

  /** Scans `text[from..]` as plain JSON: the absolute end of the value, SCAN_MORE, or SCAN_ERROR (`failedAt`). */
  private scanPlain(text: string, base: number, from: number): number {
    const json = this.json;
    const end = json.scan(text, from, base);
    if (end >= 0) return base + end;
    if (end === SCAN_ERROR) this.failedAt = base + json.errorIndex;
    return end;
  }

  /**
   * True when a plain scan failed at a closing bracket whose previous non-space character is a
   * comma: the scanner accepted that comma, so it followed a value, and it is trailing.
   */
  private trailingCommaAt(at: number): boolean {
    if (this.strict || this.recovering) return false;
    const c = this.charAt(at);
    if (c !== 0x7d && c !== 0x5d) return false;
    let p = at - 1;
    while (p > this.candidate.start && isSpace(this.charAt(p))) p--;
    return this.charAt(p) === 0x2c;
  }

  /** Scans the open candidate again from its start, recovering trailing commas (invariant 5). */
  private startRecovery(candidate: Candidate): boolean {
    this.recovering = true;
    this.dropped.length = 0;
    this.heldComma = -1;
    this.lastChar = 0;
    this.json.reset();
    this.cursor = candidate.start;
    return true;
  }

  /**
   * Like `scanPlain`, but each comma outside a string that follows a value is held back until
   * the next non-space character: before `}` or `]` it is dropped (and remembered in
   * `dropped`), before anything else it is fed as written. The text between commas goes to the
   * scanner in slices, each with its absolute offset as `base`, so that every position it
   * tracks stays absolute.
   */
  private scanRecovering(text: string, base: number, from: number): number {
    const json = this.json;
    const length = text.length;
    let i = from; // next character to feed
    let search = from; // where to look for the next comma
    while (i < length) {
      if (this.heldComma >= 0) {
        while (i < length && isSpace(text.charCodeAt(i))) i++;
        if (i === length) break;
        const comma = this.heldComma;
        this.heldComma = -1;
        const c = text.charCodeAt(i);
        if (c === 0x7d || c === 0x5d) {
          this.dropped.push(comma);
        } else {
          if (json.scan(',', 0, comma) === SCAN_ERROR) {
            this.failedAt = comma;
            return SCAN_ERROR;
          }
          this.lastChar = 0x2c;
        }
        search = i;
      }
      let k = text.indexOf(',', search);
      if (k < 0) k = length;
      const piece = i === 0 && k === length ? text : text.slice(i, k);
      const end = json.scan(piece, 0, base + i);
      if (end >= 0) return base + i + end;
      if (end === SCAN_ERROR) {
        this.failedAt = base + i + json.errorIndex;
        return SCAN_ERROR;
      }
      for (let p = piece.length - 1; p >= 0; p--) {
        const c = piece.charCodeAt(p);
        if (!isSpace(c)) {
          this.lastChar = c;
          break;
        }
      }
      if (k === length) return SCAN_MORE;
      if (json.inString || !endsValue(this.lastChar)) {
        // String text, or a comma that cannot be trailing: the scanner reads it as written.
        i = k;
        search = k + 1;
        continue;
      }
      this.heldComma = base + k;
      i = k + 1;
      search = i;
    }
    return SCAN_MORE;
  }

  /** Abandons a candidate that outgrew maxCandidateLength; scanning resumes just past the limit. */
  private candidateTooLong(candidate: Candidate): boolean {
    this.open = false;
    this.stats.abandoned++;
    const resume = candidate.start + this.maxCandidateLength + 1;
    this.delivery.report(
      DiagnosticReason.tooLong,
      candidate.start,
      `candidate longer than maxCandidateLength (${this.maxCandidateLength} characters) abandoned`,
      this.slice(candidate.start, candidate.start + Math.min(200, this.maxCandidateLength + 1)),
    );
    if (candidate.source === 'fence') this.fenceValues++;
    this.rescanFloor = Math.max(this.rescanFloor, resume);
    this.updateLineStart(candidate.start, resume);
    this.cursor = resume;
    return true;
  }

  private completeCandidate(candidate: Candidate, end: number): void {
    this.open = false;
    this.cursor = end;
    this.updateLineStart(candidate.start, end);
    this.deliverRange(candidate.start, end, candidate.source, candidate.fence, false);
    if (this.delivery.holdingFirst) this.delivery.checkHold(this.retained, this.retainedBase, end, this.received);
  }

  /**
   * Delivers the value whose text is `[start, end)` of the open (or just closed) candidate,
   * without the commas that recovery dropped in it; `nested` when the candidate failed around it.
   */
  private deliverRange(
    start: number,
    end: number,
    source: SalvageSource,
    fence: string | undefined,
    nested: boolean,
  ): void {
    // Counted whatever becomes of the value (too deep, rejected): the fence held one.
    if (source === 'fence') this.fenceValues++;
    const text = this.slice(start, end);
    const dropped = this.dropped;
    if (!this.recovering || dropped.length === 0 || (dropped[dropped.length - 1] as number) < start) {
      this.delivery.deliver(parseValidated(text), source, start, end, fence, text, nested);
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
      this.delivery.deliver(parseValidated(text), source, start, end, fence, text, nested);
      return;
    }
    clean += text.slice(from - start);
    const first = dropped[low] as number;
    this.delivery.deliver(JSON.parse(clean), source, start, end, fence, text, nested, {
      reason: DiagnosticReason.recovered,
      offset: first,
      excerpt: excerptAround(text, first - start),
      message: `${count === 1 ? 'a trailing comma' : `${count} trailing commas`} before a closing bracket dropped (the value was not JSON as written)`,
    });
  }

  /** The candidate failed at `at`: deliver its complete nested values, then rescan or go on. */
  private failCandidate(candidate: Candidate, at: number): boolean {
    this.open = false;
    this.stats.abandoned++;
    if (candidate.source === 'fence' && this.fenceError === '') {
      this.fenceError = `${this.json.errorMessage} at offset ${at}`;
    }
    return this.afterFailure(candidate, at);
  }

  private afterFailure(candidate: Candidate, at: number): boolean {
    const json = this.json;
    // The first bracket inside one of the candidate's strings that is not inside a complete
    // nested value and not before the rescan floor: a candidate may have started there.
    const children = json.children;
    let rescanAt = -1;
    let c = 0;
    for (const b of json.stringBrackets) {
      if (b < this.rescanFloor) continue;
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
      this.deliverRange(start, end, candidate.source, candidate.fence, true);
    }
    this.rescanFloor = Math.max(this.rescanFloor, at);
    if (rescanAt >= 0) {
      this.updateLineStart(candidate.start, rescanAt);
      this.cursor = rescanAt;
      return true;
    }
    this.updateLineStart(candidate.start, at);
    this.cursor = at;
    return false;
  }

  /** The last line start within `[from, to)` becomes the current one. */
  private updateLineStart(from: number, to: number): void {
    // Backward search bounded by the range, whose characters were just scanned anyway.
    const retained = this.retained;
    const low = Math.max(0, from - this.retainedBase);
    for (let i = to - 1 - this.retainedBase; i >= low; i--) {
      if (retained.charCodeAt(i) === 0x0a) {
        this.lineStart = i + 1 + this.retainedBase;
        this.inlineTicks = 0;
        this.delivery.resolveInline(false);
        return;
      }
    }
  }

  // ---- retained text ----------------------------------------------------------------------

  private slice(from: number, to: number): string {
    return this.retained.slice(Math.max(0, from - this.retainedBase), Math.max(0, to - this.retainedBase));
  }

  private charAt(at: number): number {
    return this.retained.charCodeAt(at - this.retainedBase);
  }

  /** Drops retained text nothing can need any more. */
  private compact(): void {
    let keep = this.cursor;
    if (this.open) keep = Math.min(keep, this.candidate.start);
    if (this.matchingFenceLine) keep = Math.min(keep, this.fenceLineMatch.start);
    if (this.tickRun > 0) keep = Math.min(keep, this.tickRunStart);
    if (this.cursor - this.lineStart <= MAX_FENCE_INDENT) keep = Math.min(keep, this.lineStart);
    // A scalar document in flight is read from its text; once it ended, its text is kept apart.
    if (this.scalar !== undefined && this.scalarEnd < 0) keep = Math.min(keep, Math.max(0, this.firstText));
    if (this.delivery.holdingFirst) {
      // The held value is queued with its own text; after it only whitespace (and one comma,
      // whose excerpt checkHold kept) came, as checkHold saw: what is kept is the last 80
      // characters, which a comma's excerpt may show, not all of that whitespace.
      keep = Math.min(keep, Math.max(this.delivery.heldStart, this.received - 80));
    }
    // Dropping costs a copy of what is kept: do it once there is something worth dropping.
    if (keep - this.retainedBase > 4096 || (keep === this.received && keep > this.retainedBase)) {
      this.retained = this.retained.slice(keep - this.retainedBase);
      this.retainedBase = keep;
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
