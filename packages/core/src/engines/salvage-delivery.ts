/**
 * What becomes of a value the salvage scanner found, and when it goes out: the depth guard,
 * validation (and coercion), the record delivered, and the queue that holds output while a
 * value's label is undecided (decision 006, rules 1, 7 and 8; the scanner's invariant 4).
 *
 * Contract: the scanner (engines/salvage-scanner.ts) calls `deliver` for every complete value
 * and `report` for every diagnostic, in document order, and tells this queue what it learns
 * about labels: a scalar document being followed (`followScalar`, `dropScalar`,
 * `deliverDocument`), the end of an inline span (`resolveInline`), text after the first value
 * (`checkHold`), the end of input (`flushHeld`). Everything reaches the sink in the order it was
 * delivered or reported; a value's `recovered` note and its coercion fixes go just before it.
 *
 * Invariants:
 * 1. Nothing is sent while a label is undecided ("holding"): a scalar that may be the whole
 *    document is followed, the first value may still turn out to be the document
 *    (`holdingFirst`), or an inline span has not closed yet. Otherwise the queue is empty.
 * 2. A diagnostic is counted when reported, even while queued; if a scalar document then
 *    swallows the queue, its count is taken back. A note and fixes are counted when sent.
 * 3. While `holdingFirst`, the queue's first item is the held value (delivered when the queue
 *    was empty), and only whitespace — apart from one comma, unless `strict` — came after it.
 * 4. The records delivered are exactly the documented `SalvagedValue`s: the queue's own marks
 *    (`provisional`, `note`, `fixes`) are deleted before a record is sent, and whether a value
 *    was nested in a failed candidate is kept beside it (`isNestedInFailure`).
 * 5. Reads the scanner's retained text only where given it (`checkHold`, `flushHeld`), as
 *    `(text, base)` with `text` running from offset `base` to what has been received.
 *
 * Why its own file: the scanner's loop decides where values are; this decides what a found
 * value becomes and when it may go out. The two share nothing but these calls, and the queue's
 * rules (labels decided late, the held first value, counting) read apart from the scan.
 */

import { ConfigurationError } from '../diagnostics/configuration-error.js';
import { type Diagnostic, DiagnosticReason, excerptAround } from '../diagnostics/diagnostics.js';
import type { CompiledSchema, ValidationResult } from '../schema/schema-validator.js';
import { depthExceeds, mayExceedDepth } from '../syntax/depth.js';
import { coercionDiagnostic, countDiagnostic, type DiagnosticCounts } from './engine.js';

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

export interface SalvageSink<T = unknown> {
  value(value: SalvagedValue<T>): void;
  diagnostic(diagnostic: Diagnostic): void;
}

/** The scanner's counts that delivery keeps up to date (its `SalvageStats`). */
export interface DeliveryCounts {
  /** Values delivered. */
  values: number;
  /** Diagnostics by reason. */
  diagnostics: DiagnosticCounts;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
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

/** The delivery queue of one salvage scanner. */
export class SalvageDelivery {
  private readonly sink: SalvageSink;
  private readonly stats: DeliveryCounts;
  private readonly validator: CompiledSchema | undefined;
  private readonly maxDepth: number;
  private readonly strict: boolean;

  private readonly queue: (Pending | Diagnostic)[] = []; // output held while a label is undecided
  private firstText = -1; // offset of the text's first non-whitespace character, -1 before it
  private scalarOpen = false; // the scanner follows a scalar that may be the whole document
  private firstHeld = false; // queue[0] starts at firstText and only whitespace followed yet
  private holdComma = -1; // offset of the one comma (recovery) after the held first value
  private holdCommaFrom = 0; // where the comma's excerpt starts (up to 79 characters before it)
  private holdCommaText = ''; // the excerpt's text, up to the comma: kept apart from the text
  private inlinePending = false; // the queue holds values whose inline span has not closed yet

  constructor(
    sink: SalvageSink,
    stats: DeliveryCounts,
    validator: CompiledSchema | undefined,
    maxDepth: number,
    strict: boolean,
  ) {
    this.sink = sink;
    this.stats = stats;
    this.validator = validator;
    this.maxDepth = maxDepth;
    this.strict = strict;
  }

  /** True while the first value is held: it may still be the document (invariant 3). */
  get holdingFirst(): boolean {
    return this.firstHeld;
  }

  /** Where the held first value starts: the scanner keeps its text from there (or the last 80 characters). */
  get heldStart(): number {
    const first = this.queue[0];
    return first !== undefined && !('reason' in first) ? first.start : Math.max(0, this.firstText);
  }

  /** The text's first non-whitespace character is at `offset` (told once): a value starting there may be the document. */
  textStartsAt(offset: number): void {
    this.firstText = offset;
  }

  // ---- the scalar document --------------------------------------------------------------

  /** The scanner follows a scalar from the first character: hold everything until it is decided. */
  followScalar(): void {
    this.scalarOpen = true;
  }

  /** The scalar followed cannot be the document. */
  dropScalar(): void {
    this.scalarOpen = false;
    if (!this.holding) this.drain();
  }

  /**
   * At the end: the scalar followed is the whole document, `[start, end)`, whose text is
   * `source`. What was found inside it (brackets in a string) is part of it: dropped, and a
   * diagnostic among it (counted when it was queued) no longer counted.
   */
  deliverDocument(value: unknown, start: number, end: number, source: string): void {
    this.scalarOpen = false;
    for (const item of this.queue) if ('reason' in item) this.uncount(item.reason);
    this.queue.length = 0;
    this.firstHeld = false;
    this.inlinePending = false;
    this.deliver(value, 'document', start, end, undefined, source, false);
  }

  // ---- values and diagnostics -----------------------------------------------------------

  /**
   * A complete value, `[start, end)` of the input, whose JSON text is `text`: guarded for
   * depth, validated, and sent or queued. `nested`: it was found inside a failed candidate.
   * `note`: the `recovered` diagnostic of a recovery it needed.
   */
  deliver(
    value: unknown,
    source: SalvageSource,
    start: number,
    end: number,
    fence: string | undefined,
    text: string,
    nested: boolean,
    note?: Diagnostic,
  ): void {
    // The depth guard comes first: a validator following a recursive schema recurses too.
    if (mayExceedDepth(text.length, this.maxDepth) && depthExceeds(value, this.maxDepth)) {
      const at = tooDeepIndex(text, this.maxDepth);
      this.count(DiagnosticReason.tooDeep);
      this.output({
        reason: DiagnosticReason.tooDeep,
        offset: start + at,
        excerpt: excerptAround(text, at),
        message: `value nested deeper than maxDepth (${this.maxDepth} levels); the value was dropped`,
      });
      return;
    }
    let branch: string | undefined;
    let coerced = value;
    let fixes: Diagnostic[] | undefined;
    if (this.validator !== undefined) {
      const result = validateSafely(this.validator, value);
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
    if (nested) nestedInFailure.add(record);
    if (source === 'inline') {
      // Inline only if the span closes on this line: decided when it does, or does not.
      record.provisional = true;
      this.inlinePending = true;
    } else if (source === 'embedded' && start === this.firstText && this.queue.length === 0) {
      this.firstHeld = true;
    }
    this.output(record);
  }

  /** A diagnostic at `offset`, its excerpt taken from `excerptText`. */
  report(reason: Diagnostic['reason'], offset: number, message: string, excerptText: string): void {
    this.count(reason);
    this.output({ reason, offset, excerpt: excerptAround(excerptText), message });
  }

  // ---- labels decided -------------------------------------------------------------------

  /**
   * Releases the held first value if anything but whitespace stands in `[from, to)` — apart
   * from one comma right after it, which recovery allows (`{"a": 1},` is still the document).
   * `text` is the scanner's retained text, starting at offset `base` (invariant 5).
   */
  checkHold(text: string, base: number, from: number, to: number): void {
    for (let p = from; p < to; p++) {
      const c = text.charCodeAt(p - base);
      if (!isSpace(c)) {
        if (c === 0x2c && (this.holdComma < 0 || this.holdComma === p) && !this.strict) {
          if (this.holdComma < 0) {
            this.holdCommaFrom = Math.max(this.heldStart, p - 79);
            this.holdCommaText = text.slice(Math.max(0, this.holdCommaFrom - base), Math.max(0, p + 1 - base));
          }
          this.holdComma = p;
          continue;
        }
        this.firstHeld = false;
        if (!this.holding) this.drain();
        return;
      }
    }
  }

  /** The inline span of provisional values closed (`true`) or ended with its line (`false`). */
  resolveInline(closed: boolean): void {
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

  /**
   * At the end: a lone first value with only whitespace after it is the document; then
   * everything queued goes out. `text` is the retained text, starting at offset `base`.
   */
  flushHeld(text: string, base: number): void {
    this.resolveInline(false);
    const first = this.queue[0];
    if (
      this.firstHeld &&
      first !== undefined &&
      !('reason' in first) &&
      this.queue.length === 1 &&
      this.onlySpaceAfter(text, base, first.end)
    ) {
      first.source = 'document';
      const comma = this.holdComma;
      if (comma >= 0) {
        const message = 'a comma after the document dropped (the text was not JSON as written)';
        const from = this.holdCommaFrom;
        first.recovered = true;
        first.note =
          first.note === undefined
            ? {
                reason: DiagnosticReason.recovered,
                offset: comma,
                excerpt: excerptAround(this.holdCommaText, comma - from),
                message,
              }
            : { ...first.note, message: `${first.note.message}; ${message}` };
      }
    }
    this.firstHeld = false;
    this.drain();
  }

  /** Text no longer kept (the scanner's compact) was whitespace, or the comma: checkHold saw it arrive. */
  private onlySpaceAfter(text: string, base: number, end: number): boolean {
    const received = base + text.length;
    for (let p = Math.max(end, base); p < received; p++) {
      if (!isSpace(text.charCodeAt(p - base)) && p !== this.holdComma) return false;
    }
    return true;
  }

  // ---- the queue --------------------------------------------------------------------------

  /** True while the label of a queued value is still undecided (invariant 1). */
  private get holding(): boolean {
    return this.scalarOpen || this.firstHeld || this.inlinePending;
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
    const note = item.note;
    if (note !== undefined) {
      delete item.note;
      this.count(note.reason);
      this.sink.diagnostic(note);
    }
    const fixes = item.fixes;
    if (fixes !== undefined) {
      delete item.fixes;
      for (const fix of fixes) {
        this.count(fix.reason);
        this.sink.diagnostic(fix);
      }
    }
    this.stats.values++;
    this.sink.value(item);
  }

  /** Emits the queued values and diagnostics in order. */
  private drain(): void {
    if (this.queue.length === 0) return;
    const items = this.queue.splice(0);
    for (const item of items) this.send(item);
  }

  private count(reason: Diagnostic['reason']): void {
    countDiagnostic(this.stats.diagnostics, reason);
  }

  /** Takes back the count of a queued diagnostic that will not be reported. */
  private uncount(reason: Diagnostic['reason']): void {
    const counts = this.stats.diagnostics as Record<string, number | undefined>;
    const left = (counts[reason] ?? 0) - 1;
    if (left > 0) counts[reason] = left;
    else delete counts[reason];
  }
}
