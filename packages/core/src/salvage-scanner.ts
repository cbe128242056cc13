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
 *   at the start of a line, any one-word info string; an unclosed fence runs to the end);
 *   `inline` inside an inline code span (a backtick run, closed by a run of the same length
 *   on the same line); `embedded` anywhere else.
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
 */

import { type Diagnostic, DiagnosticReason, excerptAround } from './diagnostics.js';
import { checkPositiveInteger, countDiagnostic, type DiagnosticCounts, type Engine, validatorFor } from './engine.js';
import { JsonScanner, SCAN_ERROR } from './json-scanner.js';
import type { CompiledSchema, JsonSchema } from './schema-validator.js';

export type SalvageSource = 'document' | 'fence' | 'inline' | 'embedded';

export interface SalvagedValue {
  readonly value: unknown;
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
}

export interface SalvageOptions {
  /** JSON Schema a value must match to be delivered; failures are `schema` diagnostics. */
  readonly schema?: JsonSchema;
  /** Discriminator property for `oneOf`/`anyOf` dispatch (detected by default; `false` for off). */
  readonly discriminator?: string | false;
  /** Longest candidate kept, in UTF-16 code units. Default 8 MiB; longer ones are `too-long`. */
  readonly maxCandidateLength?: number;
}

export interface SalvageSink {
  value(value: SalvagedValue): void;
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

export const DEFAULT_MAX_CANDIDATE_LENGTH = 8 * 1024 * 1024;

const PROSE = 0;
const FENCE = 1;

/** Info strings whose blocks are meant to hold JSON: an empty one reports `syntax`. */
const JSON_INFO = new Set(['', 'json', 'jsonl', 'jsonc', 'json5', 'ndjson']);

/** Characters the prose loop stops at: `{` `[` backtick `~` line feed. */
const STOP_CHARS = ['{', '[', '`', '~', '\n'];
const STOP = new Uint8Array(128);
for (const c of STOP_CHARS) STOP[c.charCodeAt(0)] = 1;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
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

/** Recognises a fence line one character at a time: marker run, spaces, info string, spaces. */
class FenceLine {
  marker = 0;
  count = 0;
  phase = 0; // 0 markers, 1 spaces before info, 2 info, 3 spaces after info
  info = '';
  start = 0; // absolute offset of the first marker

  begin(marker: number, start: number): void {
    this.marker = marker;
    this.count = 0;
    this.phase = 0;
    this.info = '';
    this.start = start;
  }

  /** Consumes one character of the line (not the line break); false when it cannot be a fence line. */
  accept(c: number): boolean {
    switch (this.phase) {
      case 0:
        if (c === this.marker) {
          this.count++;
          return true;
        }
        if (this.count < 3) return false;
        this.phase = 1;
        return this.accept(c);
      case 1:
        if (c === 0x20 || c === 0x09 || c === 0x0d) return true;
        if (isInfoChar(c)) {
          this.phase = 2;
          this.info += String.fromCharCode(c);
          return true;
        }
        return false;
      case 2:
        if (isInfoChar(c)) {
          this.info += String.fromCharCode(c);
          return this.info.length <= 32;
        }
        if (c === 0x20 || c === 0x09 || c === 0x0d) {
          this.phase = 3;
          return true;
        }
        return false;
      default:
        return c === 0x20 || c === 0x09 || c === 0x0d;
    }
  }

  get complete(): boolean {
    return this.count >= 3;
  }
}

/** A value on its way out; `provisional` while its inline span may still fail to close. */
type Pending = { -readonly [K in keyof SalvagedValue]: SalvagedValue[K] } & { provisional?: boolean };

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
  private readonly sink: SalvageSink;
  private readonly validator: CompiledSchema | undefined;
  private readonly maxCandidateLength: number;
  private readonly json = new JsonScanner();

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

  // Document detection.
  private firstText = -1; // offset of the first non-whitespace character, -1 before it
  private readonly queue: (Pending | Diagnostic)[] = []; // output held while a label is undecided
  private holdingFirst = false; // queue[0] starts at firstText and only whitespace followed yet
  private inlinePending = false; // the queue holds values whose inline span has not closed yet
  private scalar: JsonScanner | undefined; // viable scalar document from firstText
  private scalarEnd = -1;

  constructor(options: SalvageOptions, sink: SalvageSink) {
    checkPositiveInteger('maxCandidateLength', options.maxCandidateLength, 'characters');
    this.maxCandidateLength = options.maxCandidateLength ?? DEFAULT_MAX_CANDIDATE_LENGTH;
    this.sink = sink;
    this.validator = validatorFor(options);
    this.json.track();
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

  end(): void {
    if (this.atStart) this.atStart = false;
    this.run('', this.received, true);
    if (this.context === FENCE) this.reportEmptyFence();
    this.finishDocument();
    this.flushHeld();
  }

  // ---- document detection -------------------------------------------------------------

  /** Follows a possible scalar document (`42`, `"text"`, `true`) from the first non-space character. */
  private trackDocument(text: string, base: number): void {
    let from = 0;
    if (this.firstText < 0) {
      while (from < text.length && isSpace(text.charCodeAt(from))) from++;
      if (from === text.length) return;
      this.firstText = base + from;
      const c = text.charCodeAt(from);
      if (c !== 0x7b && c !== 0x5b) {
        this.scalar = new JsonScanner();
      }
    } else if (this.holdingFirst) {
      // Anything but whitespace after the held first value makes it embedded.
      this.checkHold(base, base + text.length);
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
    if (end === SCAN_ERROR || base + text.length - this.firstText > this.maxCandidateLength) {
      this.dropScalar();
    } else if (end >= 0) {
      this.scalarEnd = base + end;
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
    if (!this.holding) this.drain();
  }

  /** At the end: a scalar that spans the whole text is the document. */
  private finishDocument(): void {
    const scalar = this.scalar;
    if (scalar === undefined) return;
    if (this.scalarEnd < 0 && !scalar.end()) {
      this.dropScalar();
      return;
    }
    let end = this.scalarEnd >= 0 ? this.scalarEnd : this.received;
    while (end > this.firstText && isSpace(this.charAt(end - 1))) end--;
    const source = this.slice(this.firstText, end);
    this.scalar = undefined;
    // What was found inside the document (brackets in a string) is part of it.
    this.queue.length = 0;
    this.holdingFirst = false;
    this.inlinePending = false;
    this.deliver(JSON.parse(source), 'document', this.firstText, end, undefined, source);
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
        this.resolveInline(false);
      } else if (c === 0x7b || c === 0x5b) {
        if (this.context === FENCE) this.fenceHasText = true;
        this.startCandidate(at);
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

  // Next occurrence of each stop character in `stopText` (-1: none left), valid while the
  // same segment is processed.
  private stopText = '';
  private stopBase = -1;
  private readonly stops = [-2, -2, -2, -2, -2];

  /** Index in `text` of the first stop character at or after `from` (`text.length` if none). */
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
    const stops = this.stops;
    if (text !== this.stopText || base !== this.stopBase) {
      this.stopText = text;
      this.stopBase = base;
      stops.fill(-2);
    }
    let best = text.length;
    for (let k = 0; k < 5; k++) {
      let at = stops[k] as number;
      if (at !== -1 && at < from) {
        at = text.indexOf(STOP_CHARS[k] as string, from);
        stops[k] = at;
      }
      if (at >= 0 && at < best) best = at;
    }
    return best;
  }

  private pendingAtEnd(): boolean {
    return this.open || this.matchingFenceLine || this.tickRun > 0;
  }

  /** True when only spaces or tabs precede `at` on its line (at most 16 of them). */
  private lineIndentOnly(at: number): boolean {
    if (at - this.lineStart > 16) return false;
    for (let p = this.lineStart; p < at; p++) {
      const c = this.charAt(p);
      if (c !== 0x20 && c !== 0x09) return false;
    }
    return true;
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
      this.resolveInline(true);
    }
  }

  // ---- fence lines ------------------------------------------------------------------------

  /** Feeds the fence line being recognised; false when the segment is exhausted. */
  private continueFenceLine(text: string, base: number, final: boolean): boolean {
    const match = this.fenceLineMatch;
    let i = this.cursor - base;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) break;
      if (!match.accept(c)) {
        this.notAFenceLine();
        return true;
      }
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
      if (match.marker === this.fenceMarker && match.count >= this.fenceLength && match.info === '') {
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
    this.report(
      DiagnosticReason.syntax,
      this.fenceLine,
      `fenced ${this.fenceInfo === '' ? 'code' : this.fenceInfo} block holds no valid JSON: ${why}`,
      `${marker}${this.fenceInfo}`,
    );
  }

  // ---- candidates ---------------------------------------------------------------------

  private startCandidate(at: number): void {
    if (this.holdingFirst) this.checkHold(at, at + 1);
    const source: SalvageSource = this.context === FENCE ? 'fence' : this.inlineTicks > 0 ? 'inline' : 'embedded';
    const candidate = this.candidate;
    candidate.start = at;
    candidate.source = source;
    candidate.fence = this.context === FENCE ? this.fenceInfo : undefined;
    this.open = true;
    this.stats.candidates++;
    this.json.reset();
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
      json.base = base;
      const end = json.scan(text, from);
      if (end >= 0) {
        if (base + end > limit) return this.candidateTooLong(candidate);
        this.completeCandidate(candidate, base + end);
        return false;
      }
      if (end === SCAN_ERROR) {
        if (base + json.errorIndex >= limit) return this.candidateTooLong(candidate);
        return this.failCandidate(candidate, base + json.errorIndex);
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
    this.report(
      DiagnosticReason.truncated,
      candidate.start,
      `input ended inside a ${candidate.source === 'fence' ? 'fenced' : candidate.source} value: ${json.errorMessage}`,
      this.slice(candidate.start, Math.min(this.received, candidate.start + 200)),
    );
    if (candidate.source === 'fence') this.fenceValues++;
    return false;
  }

  /** Abandons a candidate that outgrew maxCandidateLength; scanning resumes just past the limit. */
  private candidateTooLong(candidate: Candidate): boolean {
    this.open = false;
    this.stats.abandoned++;
    const resume = candidate.start + this.maxCandidateLength + 1;
    this.report(
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
    const text = this.slice(candidate.start, end);
    this.updateLineStart(candidate.start, end);
    this.deliver(parseValidated(text), candidate.source, candidate.start, end, candidate.fence, text);
    if (this.holdingFirst) this.checkHold(end, this.received);
  }

  /** Releases the held first value if anything but whitespace stands in `[from, to)`. */
  private checkHold(from: number, to: number): void {
    for (let p = from; p < to; p++) {
      if (!isSpace(this.charAt(p))) {
        this.holdingFirst = false;
        if (!this.holding) this.drain();
        return;
      }
    }
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
      const text = this.slice(start, end);
      this.deliver(parseValidated(text), candidate.source, start, end, candidate.fence, text);
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
        this.resolveInline(false);
        return;
      }
    }
  }

  // ---- delivery -----------------------------------------------------------------------

  private deliver(
    value: unknown,
    source: SalvageSource,
    start: number,
    end: number,
    fence: string | undefined,
    text: string,
  ): void {
    if (source === 'fence') this.fenceValues++;
    let branch: string | undefined;
    if (this.validator !== undefined) {
      const result = this.validator.validate(value);
      if (!result.valid) {
        this.count(DiagnosticReason.schema);
        this.output({
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
    }
    const record: Pending = { value, source, start, end };
    if (fence !== undefined) record.fence = fence;
    if (branch !== undefined) record.branch = branch;
    if (source === 'inline') {
      // Inline only if the span closes on this line: decided when it does, or does not.
      record.provisional = true;
      this.inlinePending = true;
    } else if (source === 'embedded' && start === this.firstText && this.queue.length === 0) {
      this.holdingFirst = true;
    }
    this.output(record);
  }

  /** True while the label of a queued value is still undecided. */
  private get holding(): boolean {
    return this.scalar !== undefined || this.holdingFirst || this.inlinePending;
  }

  private output(item: Pending | Diagnostic): void {
    if (this.queue.length === 0 && !this.holding) {
      this.send(item);
      return;
    }
    this.queue.push(item);
    if (!this.holding) this.drain();
  }

  private send(item: Pending | Diagnostic): void {
    if ('reason' in item) {
      this.sink.diagnostic(item);
      return;
    }
    if (item.provisional !== undefined) delete item.provisional;
    this.stats.values++;
    this.sink.value(item);
  }

  /** The inline span of provisional values closed (`true`) or ended with its line (`false`). */
  private resolveInline(closed: boolean): void {
    if (!this.inlinePending) return;
    this.inlinePending = false;
    for (const item of this.queue) {
      if ('provisional' in item && item.provisional === true) {
        item.provisional = false;
        if (!closed) item.source = 'embedded';
      }
    }
    if (!this.holding) this.drain();
  }

  /** Emits the queued values and diagnostics in order. */
  private drain(): void {
    if (this.queue.length === 0) return;
    const items = this.queue.splice(0);
    for (const item of items) this.send(item);
  }

  /** At the end: a lone first value with only whitespace after it is the document. */
  private flushHeld(): void {
    this.resolveInline(false);
    const first = this.queue[0];
    if (
      this.holdingFirst &&
      first !== undefined &&
      !('reason' in first) &&
      this.queue.length === 1 &&
      this.onlySpaceAfter(first.end)
    ) {
      first.source = 'document';
    }
    this.holdingFirst = false;
    this.drain();
  }

  private onlySpaceAfter(end: number): boolean {
    for (let p = end; p < this.received; p++) if (!isSpace(this.charAt(p))) return false;
    return true;
  }

  private count(reason: Diagnostic['reason']): void {
    countDiagnostic(this.stats.diagnostics, reason);
  }

  private report(reason: Diagnostic['reason'], offset: number, message: string, excerptText: string): void {
    this.count(reason);
    this.output({ reason, offset, excerpt: excerptAround(excerptText), message });
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
    if (this.cursor - this.lineStart <= 16) keep = Math.min(keep, this.lineStart);
    if (this.scalar !== undefined || this.holdingFirst) keep = Math.min(keep, Math.max(0, this.firstText));
    // Dropping costs a copy of what is kept: do it once there is something worth dropping.
    if (keep - this.retainedBase > 4096 || (keep === this.received && keep > this.retainedBase)) {
      this.retained = this.retained.slice(keep - this.retainedBase);
      this.retainedBase = keep;
    }
  }
}

/** Creates a push-based salvage scanner. Throws ConfigurationError for a broken configuration. */
export function createSalvageScanner(options: SalvageOptions, sink: SalvageSink): SalvageScanner {
  return new Scanner(options, sink);
}
