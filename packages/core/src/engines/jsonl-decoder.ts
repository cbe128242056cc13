/**
 * JSONL decoder: text chunks in, validated values and diagnostics out.
 *
 * Contract: `write(text)` consumes the next chunk and synchronously delivers every value the
 * chunk completes (a value is complete at the line break that ends it); `end()` delivers
 * what the end of input decides (the unterminated last line, an unclosed value). The sink
 * receives values in input order, interleaved with diagnostics in input order.
 *
 * Invariants (each one a property test in test/):
 * 1. Chunking does not matter: any split of the same text gives the same values and the same
 *    diagnostics (offsets are computed from the text, never from chunk boundaries).
 * 2. Truncation yields a prefix: a cut anywhere yields a prefix of the values of the whole
 *    input, plus at most one `truncated` diagnostic. (Exception, documented in
 *    docs/decisions/003-recovery-rules.md: a bare number or literal as the unterminated last
 *    line is accepted as `JSON.parse` accepts it, though more text might have followed.)
 * 3. Nothing is lost silently: every line is accounted for exactly once in
 *    `stats.valueLines + stats.skippedLines + stats.reportedLines === stats.lines`, and every
 *    reported line is covered by a diagnostic carrying its line, offset, excerpt and reason.
 * 4. Agreement with the platform: with `strict: true` a line yields a value exactly when
 *    `JSON.parse` accepts it and the schema accepts the result. The default mode differs only
 *    by the recoveries listed in docs/decisions/003-recovery-rules.md, each reported with
 *    reason `recovered`. `coerce` (opt-in, independent of `strict`; coerce.ts) may deliver a
 *    coerced copy of a value the schema rejects, after one `recovered` diagnostic per repair
 *    (`rule`, `path`), only when the schema then accepts the copy.
 * 5. Bounded resources: buffered text never exceeds `maxLineLength` characters (plus one
 *    chunk); work is linear in the input however small the chunks (each character is
 *    scanned by `indexOf` once; only lines that fail `JSON.parse` are scanned again, once).
 *    With `prefixCheck`, a line that starts a JSON container is also scanned as it arrives,
 *    each character once (`LinePrefix`), up to `maxLineLength`, keeping per open container a
 *    small frame and only the text of the key, number or string in flight; the part of a line
 *    that arrives with its line break is scanned only when the line yields no value.
 * 6. Prefix violations (`prefixCheck: true`, off by default): at most one `violation` per line,
 *    reported the moment the line's text so far proves that no completion can match the schema,
 *    at the offset where it became certain, before any other diagnostic of the line; chunking
 *    does not matter (invariant 1: it relies on the checker never reporting a valid line, whose
 *    end is not scanned when it arrives with its line break) and nothing else changes: the line
 *    is still decided when it completes, and a valid line never gets one.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import {
  type Diagnostic,
  DiagnosticReason,
  excerptAround,
  INVALID_ENCODING_MESSAGE,
} from '../diagnostics/diagnostics.js';
import { checkChoice, checkOptionNames, optionNames } from '../options/option-checks.js';
import type { LinePrefixCheck, LinePrefixFactory } from '../prefix/jsonl-prefix.js';
import type { PrefixViolation } from '../prefix/prefix-check.js';
import { type CoercionOptions, coercionRules } from '../schema/coercion-options.js';
import { pointerOf } from '../schema/json-pointer.js';
import type { CompiledSchema, JsonSchema } from '../schema/schema-validator.js';
import { isStandardSchema, jsonSchemaOf, type SchemaInput, type SchemaValue } from '../schema/standard-schema.js';
import { DEFAULT_MAX_DEPTH, depthExceeds, mayExceedDepth } from '../syntax/depth.js';
import { JsonScanner, SCAN_ERROR, SCAN_MORE } from '../syntax/json-scanner.js';
import { DEFAULT_MAX_LINE_LENGTH } from '../syntax/limits.js';
import { isFenceLine } from '../text/fence.js';
import type { AdapterOptions } from './engine.js';
import {
  checkPositiveInteger,
  countDiagnostic,
  type DiagnosticCounts,
  type Engine,
  type ValidatorOptions,
  validatorFor,
} from './engine.js';

/** `S` is the schema's type, so that values come out typed (`SchemaValue<S>`); see standard-schema.ts. */
export interface JsonlOptions<S extends SchemaInput = SchemaInput> extends ValidatorOptions, CoercionOptions {
  /**
   * Schema every value must match: a JSON Schema or a Standard Schema (zod 4, valibot 1,
   * arktype 2…). Default: none (every JSON value passes).
   */
  readonly schema?: S;
  /** Discriminator property for `oneOf`/`anyOf` dispatch. Default: detected; `false` turns it off. */
  readonly discriminator?: string | false;
  /** Turn every recovery off: each line must be one complete JSON value. Default `false`. */
  readonly strict?: boolean;
  /** Longest line (or multi-line value) kept, in UTF-16 code units. Default 8 MiB (8_388_608). */
  readonly maxLineLength?: number;
  /**
   * Deepest nesting of a value, in levels (`[]` is 1). Default 512. A deeper value is reported
   * `too-deep` and never delivered, so nothing downstream (printing, validation against a
   * recursive schema, rendering) can overflow the stack on it.
   */
  readonly maxDepth?: number;
  /** Also report skipped blank and fence lines as diagnostics. Default `false` (they are only counted). */
  readonly reportSkipped?: boolean;
  /**
   * What to do with a JSON `null` value: `'value'` delivers it (default); `'report'` drops it
   * with a `null-value` diagnostic, for consumers that cannot carry `null`.
   */
  readonly nullValue?: 'value' | 'report';
  /**
   * Prefix validation of the line still streaming (default `false`, for speed: decision 027;
   * the Node and Web JSONL streams default it to `failFast`, and the Web one then needs
   * `prefixCheckWith`). With a schema, a line that
   * starts with `{` (or `[` and more) is scanned as its chunks arrive, and a `violation`
   * diagnostic (`line`, `offset`, `column`, `path`, `rule`) reports the moment its text proves
   * that no completion can match the schema (prefix-check.ts): a wrong type, a key that
   * `additionalProperties: false` forbids, an enum or discriminator string that matches no
   * allowed value so far, a bound exceeded. At most one per line; the line is still decided
   * when it completes, as without prefix checks (its `schema` diagnostic follows), and the
   * violation is not one of the line's reports (`stats.reportedLines`; `stats.diagnostics`
   * counts it). A Standard Schema is checked through its JSON Schema export: none, no prefix
   * checks. With `coerce`, none either (a coercible value breaks the schema in its text, yet
   * is delivered). Costs one more scan of what arrives of such a line before its line break
   * (each character once, up to `maxLineLength`); the text that arrives with the line break is
   * scanned only when the line yields no value (a valid line has no violation to find).
   */
  readonly prefixCheck?: boolean;
  /**
   * The prefix check `prefixCheck` needs: `linePrefixCheck` from `@llmjson/core` (or
   * `@llmjson/web`). The Node streams and the prompt runner pass it; core and the Web streams
   * take it explicitly, so that a page that never checks prefixes does not bundle it (decision
   * 018). `prefixCheck: true` (or `failFast` on a stream) with a schema and without it is
   * ConfigurationError `NO_PREFIX_CHECKER`.
   */
  readonly prefixCheckWith?: LinePrefixFactory;
}

export interface JsonlValueInfo {
  /** 1-based line where the value starts. */
  readonly line: number;
  /** Line where the value ends (differs from `line` for a value spread over several lines). */
  readonly endLine: number;
  /** Offset (UTF-16 code units) of the start of `line` in the decoded text. */
  readonly offset: number;
  /** The discriminated branch the value matched. */
  readonly branch?: string;
}

export interface JsonlSink<T = unknown> {
  value(value: T, info: JsonlValueInfo): void;
  diagnostic(diagnostic: Diagnostic): void;
}

export interface JsonlStats {
  /** Lines seen (a final line without a line break counts when it holds any character). */
  lines: number;
  /** Values delivered. */
  values: number;
  /** Lines that produced a delivered value. */
  valueLines: number;
  /** Blank and fence lines. */
  skippedLines: number;
  /** Lines covered by a diagnostic (dropped, or structural lines of a recovery). */
  reportedLines: number;
  /** Diagnostics by reason. */
  diagnostics: DiagnosticCounts;
}

export type JsonlDecoder = Engine<JsonlStats>;

function firstNonSpace(s: string, from = 0): number {
  let i = from;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** Characters that make a line look like an attempt at JSON rather than prose. */
function startsLikeJson(c: number): boolean {
  return (
    c === 0x7b || // {
    c === 0x5b || // [
    c === 0x22 || // "
    c === 0x2d || // -
    (c >= 0x30 && c <= 0x39) ||
    c === 0x7d || // }
    c === 0x5d || // ]
    c === 0x2c || // ,
    c === 0x3a // :
  );
}

/** `tr`, `fals`, `n`: the start of a literal that the end of input cut off. */
function isCutLiteral(text: string): boolean {
  return text.length < 5 && ['true', 'false', 'null'].some((l) => l !== text && l.startsWith(text));
}

/** A markdown list item (`- item`, `1. item`, `2) item`): prose, although it starts like a number. */
const LIST_ITEM = /^(?:-|\d{1,9}[.)])[ \t]/;

/** Validates options shared by every JSONL front end; throws ConfigurationError. */
export function checkJsonlOptions(options: JsonlOptions): void {
  checkOptionNames('createJsonlDecoder', options, JSONL_DECODER_OPTIONS);
  checkPositiveInteger('maxLineLength', options.maxLineLength, 'characters');
  checkPositiveInteger('maxDepth', options.maxDepth, 'levels');
  checkChoice('nullValue', options.nullValue, ['value', 'report']);
  checkChoice('prefixCheck', options.prefixCheck, [true, false]);
  checkChoice('strict', options.strict, [true, false]);
  checkChoice('reportSkipped', options.reportSkipped, [true, false]);
}

/**
 * The prefix checks of a decoder's options: the JSON Schema, whether it is a vendor's export,
 * and the implementation (`prefixCheckWith`); undefined for none. Throws ConfigurationError
 * (NO_PREFIX_CHECKER) for `prefixCheck: true` with a schema and no implementation.
 */
function prefixSchema(
  options: JsonlOptions,
): { schema: JsonSchema; exported: boolean; factory: LinePrefixFactory } | undefined {
  if (options.prefixCheck !== true || options.schema === undefined || coercionRules(options.coerce) !== undefined) {
    return undefined;
  }
  const factory = options.prefixCheckWith;
  if (factory === undefined) {
    throw new ConfigurationError(
      ConfigurationErrorCode.noPrefixChecker,
      "prefixCheck (which failFast turns on unless prefixCheck: false) needs the prefix check, which core and the Web streams do not bundle unless asked: pass prefixCheckWith: linePrefixCheck (import { linePrefixCheck } from '@llmjson/core' or '@llmjson/web'); the Node streams and the prompt runner pass it for you",
    );
  }
  const exported = isStandardSchema(options.schema);
  const schema = exported ? jsonSchemaOf(options.schema as StandardSchemaV1) : (options.schema as JsonSchema);
  if (schema === undefined) return undefined;
  return { schema, exported, factory };
}

const MODE_IDLE = 0;
const MODE_BLOCK = 1;

// How lines end, decided by the first line break (default mode; strict mode frames on `\n` only).
const BREAKS_UNDECIDED = 0;
const BREAKS_LF = 1; // `\n` or `\r\n`
const BREAKS_CR = 2; // lone `\r` (classic Mac OS): every `\r` is read as `\n`, reported once

// State is in `#private` members so that a page's minifier may shorten their names (see json-scanner.ts).
class Decoder implements JsonlDecoder {
  readonly stats: JsonlStats = {
    lines: 0,
    values: 0,
    valueLines: 0,
    skippedLines: 0,
    reportedLines: 0,
    diagnostics: {},
  };
  readonly #sink: JsonlSink;
  readonly #validator: CompiledSchema | undefined;
  readonly #strict: boolean;
  readonly #maxLineLength: number;
  readonly #reportSkipped: boolean;
  readonly #reportNull: boolean;
  readonly #maxDepth: number;
  readonly #scanner = new JsonScanner();
  #depthScanner: JsonScanner | undefined;
  /** Prefix validation of the line in flight (`prefixCheck`), when on and the schema has anything a prefix can break. */
  readonly #prefix: LinePrefixCheck | undefined;
  #prefixLine = 0; // number of the line the prefix check is fed
  // The end of a line that arrived with its line break, not yet fed to the prefix check: fed
  // before the line's first diagnostic, or after it when it yields nothing; a line that yields
  // a value cannot have a violation (a prefix of valid text proves nothing), so it is not fed.
  #prefixRest: string | undefined;
  #prefixRestAt = 0; // its position in its line
  #prefixRestStart = 0; // offset of its line
  #prefixRestIndent = -1;
  #prefixRestLine = 0;

  // Line breaks: undecided until the first one; `crPending` when undecided text ended in `\r`.
  #breaks = BREAKS_UNDECIDED;
  #crPending = false;
  // Text since the last lone `\r`, while undecided; until the first lone `\r` it is the
  // buffered line itself, so ordinary input pays no second buffer.
  #segment = '';
  #sawLoneCr = false;
  #crChecks = 0;
  // Offsets (in the decoded text) of characters that stand for bytes that were not UTF-8, in order.
  readonly #invalidOffsets: number[] = [];
  #invalidReportedLine = 0;

  // Framing.
  #pending = '';
  #discarding = false;
  #discardedLength = 0; // characters of the discarded line seen so far
  #truncatedBeforeEnd: number | undefined;
  #atStart = true;
  #lineNumber = 0; // number of the line being framed, minus one
  #lineOffset = 0; // offset of the line being framed

  // Recovery state (default mode only).
  #mode = MODE_IDLE;
  #blockLines: string[] = [];
  #blockLine = 0;
  #blockOffset = 0;
  #blockIndent = 0;
  #blockLength = 0;
  #arrayLine = 0; // line of a lone `[` whose elements are being emitted; 0 when none
  #arrayOffset = 0;

  constructor(options: JsonlOptions, sink: JsonlSink) {
    checkJsonlOptions(options);
    this.#sink = sink;
    this.#validator = validatorFor(options);
    this.#strict = options.strict === true;
    this.#maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.#reportSkipped = options.reportSkipped === true;
    this.#reportNull = options.nullValue === 'report';
    this.#maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    if (this.#strict) this.#breaks = BREAKS_LF;
    const prefix = prefixSchema(options);
    this.#prefix =
      prefix === undefined
        ? undefined
        : prefix.factory(prefix.schema, prefix.exported, this.#maxLineLength, this.#maxDepth, (found, lineStart) =>
            this.#violation(found, lineStart),
          );
  }

  /** Offset in the decoded text where the next `write` begins. */
  get #inputOffset(): number {
    return this.#lineOffset + (this.#discarding ? this.#discardedLength : this.#pending.length);
  }

  invalidEncoding(index: number): void {
    const offset = this.#inputOffset + index;
    const last = this.#invalidOffsets[this.#invalidOffsets.length - 1];
    if (last === undefined || offset > last) this.#invalidOffsets.push(offset);
  }

  write(text: string): void {
    // Left by a line whose framing threw (a consumer's exception): not this text's.
    if (this.#prefixRest !== undefined) this.#prefixRest = undefined;
    if (this.#atStart && text.length > 0) {
      this.#atStart = false;
      // A byte-order mark is encoding metadata, not content (TextDecoder drops it the same way).
      if (text.charCodeAt(0) === 0xfeff) {
        text = text.slice(1);
        this.#shiftInvalid(-1);
      }
    }
    if (this.#breaks !== BREAKS_LF) text = this.#lineBreaks(text);
    let nl = text.indexOf('\n');
    if (nl === -1) {
      // Most token-sized chunks end no line: append and return.
      this.#append(text);
      return;
    }
    let start = 0;
    do {
      if (this.#discarding) {
        this.#discarding = false;
        this.#lineOffset += this.#discardedLength + (nl - start) + 1;
        this.#discardedLength = 0;
      } else {
        const part = text.slice(start, nl);
        const line = this.#pending === '' ? part : this.#pending + part;
        if (this.#prefix !== undefined) this.#deferPrefix(part);
        this.#pending = '';
        if (line.length > this.#maxLineLength) {
          this.#catchUpPrefix();
          this.#tooLong(line);
          this.#lineOffset += line.length + 1;
        } else if (this.#prefixRest === undefined) {
          this.#frameLine(line, false);
        } else {
          const values = this.stats.values;
          this.#frameLine(line, false);
          if (this.stats.values === values) this.#catchUpPrefix();
          this.#prefixRest = undefined;
        }
      }
      start = nl + 1;
      nl = text.indexOf('\n', start);
    } while (nl !== -1);
    if (start < text.length) this.#append(text.slice(start));
  }

  /**
   * Until the first line break, decides how lines end. A `\n` (or `\r\n`) decides for `\n`.
   * A lone `\r` is also JSON whitespace (`{"a":\r1}`), so it decides for classic Mac OS line
   * breaks only when the text since the previous lone `\r` is a whole JSON container (`{…}` or
   * `[…]`); from then on every `\r` becomes `\n` (same length, so offsets hold), reported once.
   * Segments between lone `\r`s are disjoint, so the check reads each character once; after
   * 16 containers that fail to parse it gives up and keeps `\n` framing.
   */
  #lineBreaks(text: string): string {
    if (this.#breaks === BREAKS_CR) return text.indexOf('\r') === -1 ? text : text.replaceAll('\r', '\n');
    if (this.#discarding) {
      this.#segment = '';
      return text;
    }
    if (text.length === 0) return text;
    let from = 0;
    if (this.#crPending) {
      this.#crPending = false;
      if (text.charCodeAt(0) === 0x0a) {
        this.#breaks = BREAKS_LF;
        return text;
      }
      if (this.#segmentIsLine('')) return this.#switchToCr(text, this.#inputOffset - 1);
    }
    const n = text.indexOf('\n');
    for (;;) {
      const r = text.indexOf('\r', from);
      if (n !== -1 && (r === -1 || n < r)) {
        this.#breaks = BREAKS_LF;
        this.#segment = '';
        return text;
      }
      if (r === -1) {
        if (this.#sawLoneCr) this.#segment += from === 0 ? text : text.slice(from);
        return text;
      }
      if (r === text.length - 1) {
        if (this.#sawLoneCr) this.#segment += text.slice(from, r);
        this.#crPending = true;
        return text;
      }
      if (text.charCodeAt(r + 1) === 0x0a) {
        this.#breaks = BREAKS_LF;
        this.#segment = '';
        return text;
      }
      if (this.#segmentIsLine(text.slice(from, r))) return this.#switchToCr(text, this.#inputOffset + r);
      if (this.#breaks !== BREAKS_UNDECIDED) return text;
      from = r + 1;
    }
  }

  /** Whether the text since the last lone `\r`, plus `tail`, is one whole JSON container. */
  #segmentIsLine(tail: string): boolean {
    // Before the first lone `\r` the segment is the buffered line (a trailing `\r` trims away).
    const segment = ((this.#sawLoneCr ? this.#segment : this.#pending) + tail).trim();
    this.#segment = '';
    this.#sawLoneCr = true;
    const first = segment.charCodeAt(0);
    const last = segment.charCodeAt(segment.length - 1);
    if (!((first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d))) return false;
    try {
      JSON.parse(segment);
      return true;
    } catch {
      if (++this.#crChecks >= 16) this.#breaks = BREAKS_LF;
      return false;
    }
  }

  /** From here on a lone `\r` ends a line; `cr` is the offset of the one that decided it. */
  #switchToCr(text: string, cr: number): string {
    this.#breaks = BREAKS_CR;
    this.#segment = '';
    const buffered = this.#pending;
    this.#pending = '';
    const joined = buffered + text;
    // The line in flight ends at its first `\r` (where its prefix check stops): checked before this report.
    this.#prefixLine = this.#lineNumber + 1;
    this.#prefix?.feed(this.#lineOffset, 0, joined, -1);
    // The deciding `\r` ends the line that the lone `\r`s before it make.
    const at = cr - this.#lineOffset;
    const lineStart = joined.lastIndexOf('\r', at - 1) + 1;
    let line = this.#lineNumber + 1;
    for (let i = joined.indexOf('\r'); i !== -1 && i < at; i = joined.indexOf('\r', i + 1)) line++;
    this.#report(
      DiagnosticReason.recovered,
      line,
      line,
      this.#lineOffset + lineStart,
      at - lineStart,
      joined.slice(lineStart, at),
      'lines end with a lone carriage return (classic Mac OS line breaks): each one is read as a line break',
      0,
    );
    return joined.replaceAll('\r', '\n');
  }

  /** Moves recorded invalid-encoding offsets after the start of the next write by `delta`. */
  #shiftInvalid(delta: number): void {
    const start = this.#inputOffset;
    for (let i = 0; i < this.#invalidOffsets.length; i++) {
      const o = this.#invalidOffsets[i] as number;
      if (o >= start) this.#invalidOffsets[i] = o + delta;
    }
  }

  /** Reports bytes that were not UTF-8 inside the line `lineNo` spanning `[offset, end)`, once per line. */
  #reportInvalid(lineNo: number, offset: number, end: number, line: string): void {
    let at = -1;
    while (this.#invalidOffsets.length !== 0 && (this.#invalidOffsets[0] as number) < end) {
      const o = this.#invalidOffsets.shift() as number;
      // Offsets before the line were in a discarded (too-long) line, already reported.
      if (at === -1 && o >= offset) at = o;
    }
    if (at === -1 || this.#invalidReportedLine === lineNo) return;
    this.#invalidReportedLine = lineNo;
    const column = Math.max(0, at - offset);
    this.#report(DiagnosticReason.encoding, lineNo, lineNo, offset, column, line, INVALID_ENCODING_MESSAGE, 0);
  }

  /** Buffers text of the line being framed (no line break in `text`). */
  #append(text: string): void {
    if (this.#discarding) {
      this.#discardedLength += text.length;
      return;
    }
    if (this.#prefix !== undefined) this.#feedPrefix(text);
    // V8 joins strings as ropes, so appending is constant time; JSON.parse flattens once.
    this.#pending += text;
    if (this.#pending.length > this.#maxLineLength) {
      this.#tooLong(this.#pending);
      this.#discardedLength = this.#pending.length;
      this.#pending = '';
      this.#discarding = true;
    }
  }

  end(): void {
    this.#prefixRest = undefined;
    this.#truncatedBeforeEnd = this.stats.diagnostics.truncated;
    if (this.#discarding) {
      this.#discarding = false;
    } else if (this.#pending !== '') {
      const line = this.#pending;
      this.#pending = '';
      this.#frameLine(line, true);
    }
    const cutReported = this.stats.diagnostics.truncated !== this.#truncatedBeforeEnd;
    if (this.#mode === MODE_BLOCK) {
      this.#reportBlock(DiagnosticReason.truncated, this.#lineNumber, this.#openMessage('input ended'));
    } else if (this.#arrayLine !== 0 && cutReported) {
      // The cut line already has its diagnostic; the array's elements before it were emitted.
      this.#arrayLine = 0;
    } else if (this.#arrayLine !== 0) {
      this.#report(
        DiagnosticReason.truncated,
        this.#arrayLine,
        this.#arrayLine,
        this.#arrayOffset,
        0,
        '[',
        `input ended inside the array opened at line ${this.#arrayLine}; its complete elements were emitted`,
        0,
      );
      this.#arrayLine = 0;
    }
  }

  /** Reports the line being framed as too long; the caller discards its text. */
  #tooLong(text: string): void {
    const lineNo = ++this.#lineNumber;
    this.stats.lines++;
    if (this.#mode === MODE_BLOCK) {
      this.#reportBlock(DiagnosticReason.syntax, lineNo - 1, this.#openMessage(`line ${lineNo} is too long`));
    }
    this.#report(
      DiagnosticReason.tooLong,
      lineNo,
      lineNo,
      this.#lineOffset,
      0,
      // Only the first maxLineLength + 1 characters are certain to be buffered, however the line was chunked.
      text.slice(0, Math.min(200, this.#maxLineLength + 1)),
      `line is longer than maxLineLength (${this.#maxLineLength} characters); the line was discarded`,
      1,
    );
  }

  /** One complete line (without `\n`); `final` when the input ended without a line break. */
  #frameLine(raw: string, final: boolean): void {
    const rawLength = raw.length + (final ? 0 : 1);
    const line = raw.length > 0 && raw.charCodeAt(raw.length - 1) === 0x0d ? raw.slice(0, -1) : raw;
    const lineNo = ++this.#lineNumber;
    const offset = this.#lineOffset;
    this.#lineOffset += rawLength;
    this.stats.lines++;
    if (this.#invalidOffsets.length !== 0) this.#reportInvalid(lineNo, offset, offset + rawLength, line);
    // Fast path: an ordinary JSONL line, parsed without classifying it first.
    const tried = this.#mode === MODE_IDLE && line.charCodeAt(0) === 0x7b;
    if (tried) {
      let value: unknown;
      let parsed = true;
      try {
        value = JSON.parse(line);
      } catch {
        parsed = false;
      }
      if (parsed) {
        this.#deliver(value, lineNo, lineNo, offset, line);
        return;
      }
    }
    if (this.#strict) this.#strictLine(line, lineNo, offset, final);
    else if (this.#mode === MODE_BLOCK) this.#blockContinues(line, lineNo, offset, final);
    else this.#freshLine(line, lineNo, offset, final, tried);
  }

  #skipLine(reason: 'blank' | 'fence', line: string, lineNo: number, offset: number): void {
    this.stats.skippedLines++;
    if (this.#reportSkipped) {
      this.#count(reason);
      this.#sink.diagnostic({
        reason,
        line: lineNo,
        offset,
        excerpt: excerptAround(line),
        message: reason === 'blank' ? 'blank line skipped' : 'markdown fence line skipped',
      });
    }
  }

  /** Feeds `text`, which continues the line being framed after what is buffered, to its prefix check. */
  #feedPrefix(text: string): void {
    const blockIndent = this.#mode === MODE_BLOCK ? this.#blockIndent : -1;
    this.#prefixLine = this.#lineNumber + 1;
    (this.#prefix as LinePrefixCheck).feed(this.#lineOffset, this.#pending.length, text, blockIndent);
  }

  /** `text` ends the line being framed (it follows what is buffered): its prefix check waits (see `#prefixRest`). */
  #deferPrefix(text: string): void {
    this.#prefixRest = text;
    this.#prefixRestAt = this.#pending.length;
    this.#prefixRestStart = this.#lineOffset;
    this.#prefixRestIndent = this.#mode === MODE_BLOCK ? this.#blockIndent : -1;
    this.#prefixRestLine = this.#lineNumber + 1;
  }

  /** Feeds the end of the line being framed to its prefix check, if it waits. */
  #catchUpPrefix(): void {
    const rest = this.#prefixRest;
    if (rest === undefined) return;
    this.#prefixRest = undefined;
    this.#prefixLine = this.#prefixRestLine;
    (this.#prefix as LinePrefixCheck).feed(this.#prefixRestStart, this.#prefixRestAt, rest, this.#prefixRestIndent);
  }

  /** The prefix check of line `#prefixLine`, at `lineStart`, found a violation. */
  #violation(found: PrefixViolation, lineStart: number): void {
    this.#count(DiagnosticReason.violation);
    const column = found.offset - lineStart;
    this.#sink.diagnostic({
      reason: DiagnosticReason.violation,
      line: this.#prefixLine,
      offset: found.offset,
      column,
      excerpt: excerptAround(found.excerpt),
      message: found.message,
      path: pointerOf(found.path),
      rule: found.rule,
      ...(found.branch === undefined ? {} : { branch: found.branch }),
    });
  }

  #count(reason: Diagnostic['reason']): void {
    countDiagnostic(this.stats.diagnostics, reason);
  }

  /** Emits a diagnostic covering `lines` input lines (0 for a note that consumes no line). */
  #report(
    reason: Diagnostic['reason'],
    line: number,
    endLine: number,
    lineOffset: number,
    column: number,
    text: string,
    message: string,
    lines: number,
    extra?: Pick<Diagnostic, 'errors' | 'branch' | 'path' | 'rule'>,
  ): void {
    // A violation of the line being framed comes before its first diagnostic.
    if (this.#prefixRest !== undefined) this.#catchUpPrefix();
    this.#count(reason);
    this.stats.reportedLines += lines;
    const d: Diagnostic = {
      reason,
      line,
      ...(endLine !== line ? { endLine } : {}),
      offset: lineOffset + column,
      column,
      excerpt: excerptAround(text, column),
      message,
      ...extra,
    };
    this.#sink.diagnostic(d);
  }

  /**
   * Validates and delivers a parsed value spanning lines `line..endLine`; `length` is the
   * length of its whole text (longer than `text` for a value spread over several lines).
   */
  #deliver(value: unknown, line: number, endLine: number, offset: number, text: string, length = text.length): void {
    const lines = endLine - line + 1;
    if (mayExceedDepth(length, this.#maxDepth) && depthExceeds(value, this.#maxDepth)) {
      this.#tooDeep(line, endLine, offset, text, lines);
      return;
    }
    if (value === null && this.#reportNull) {
      this.#report(
        DiagnosticReason.nullValue,
        line,
        endLine,
        offset,
        0,
        text,
        'a JSON null cannot be delivered as a plain value on this stream; use records mode to receive it',
        lines,
      );
      return;
    }
    let branch: string | undefined;
    let delivered = value;
    if (this.#validator !== undefined) {
      const result = this.#validator.validate(value);
      if (!result.valid) {
        this.#report(
          DiagnosticReason.schema,
          line,
          endLine,
          offset,
          0,
          text,
          result.message,
          lines,
          result.branch === undefined ? { errors: result.errors } : { errors: result.errors, branch: result.branch },
        );
        return;
      }
      branch = result.branch;
      if (result.fixes !== undefined) {
        // Coerced (`coerce`): each repair is reported just before the value, which is the copy.
        for (const fix of result.fixes) {
          this.#report(DiagnosticReason.recovered, line, endLine, offset, 0, text, fix.message, 0, {
            path: fix.path,
            rule: fix.rule,
            ...(branch === undefined ? {} : { branch }),
          });
        }
        delivered = result.value;
      }
    }
    this.stats.values++;
    this.stats.valueLines += lines;
    this.#sink.value(delivered, branch === undefined ? { line, endLine, offset } : { line, endLine, offset, branch });
  }

  /** Reports a parsed value nested deeper than `maxDepth`, at the bracket that went too deep. */
  #tooDeep(line: number, endLine: number, offset: number, text: string, lines: number): void {
    // Rare: find the exact column with a scanner limited to maxDepth (on the first line's text).
    const scanner = this.#depthScanner ?? new JsonScanner({ maxDepth: this.#maxDepth });
    this.#depthScanner = scanner;
    scanner.reset();
    const column = scanner.scan(text, 0) === SCAN_ERROR && scanner.depthExceeded ? scanner.errorIndex : 0;
    this.#report(
      DiagnosticReason.tooDeep,
      line,
      endLine,
      offset,
      column,
      text,
      `value nested deeper than maxDepth (${this.#maxDepth} levels); the value was dropped`,
      lines,
    );
  }

  #strictLine(line: string, lineNo: number, offset: number, final: boolean): void {
    const i = firstNonSpace(line);
    if (i === line.length) return this.#skipLine('blank', line, lineNo, offset);
    const c = line.charCodeAt(i);
    if ((c === 0x60 || c === 0x7e) && isFenceLine(line)) return this.#skipLine('fence', line, lineNo, offset);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.#reject(line, lineNo, offset, i, final, 'strict mode: one complete JSON value per line');
    }
    this.#deliver(value, lineNo, lineNo, offset, line);
  }

  /** Reports a line that does not parse on its own: prose, syntax or truncated. */
  #reject(line: string, lineNo: number, offset: number, start: number, final: boolean, note?: string): void {
    const c = line.charCodeAt(start);
    if (LIST_ITEM.test(line.slice(start, start + 12))) {
      this.#report(DiagnosticReason.prose, lineNo, lineNo, offset, start, line, 'not JSON: a markdown list item', 1);
      return;
    }
    if (!startsLikeJson(c) && !(final && isCutLiteral(line.slice(start)))) {
      this.#report(DiagnosticReason.prose, lineNo, lineNo, offset, start, line, 'not JSON: a line of prose', 1);
      return;
    }
    const scanner = this.#scanner;
    scanner.reset();
    let end = scanner.scan(line, start);
    let atLineEnd = false;
    if (end === SCAN_MORE && !final) {
      end = scanner.scan('\n');
      atLineEnd = true;
    }
    if (end === SCAN_MORE && final) {
      scanner.end();
      this.#report(
        DiagnosticReason.truncated,
        lineNo,
        lineNo,
        offset,
        start,
        line,
        `last line cut off: ${scanner.errorMessage}`,
        1,
      );
      return;
    }
    let column: number;
    let message: string;
    if (end === SCAN_ERROR) {
      column = atLineEnd ? line.length : scanner.errorIndex;
      message = scanner.errorMessage;
    } else if (end === SCAN_MORE) {
      column = line.length;
      message = `value not closed at the end of the line (${scanner.depth} open)`;
    } else {
      column = firstNonSpace(line, end);
      message = `unexpected text after the JSON value at column ${column}`;
    }
    if (note !== undefined && end >= 0) message = `${message} (${note})`;
    this.#report(DiagnosticReason.syntax, lineNo, lineNo, offset, column, line, message, 1);
  }

  /** A line outside any open value; `parseFailed` when JSON.parse already rejected it. */
  #freshLine(line: string, lineNo: number, offset: number, final: boolean, parseFailed = false): void {
    const i = firstNonSpace(line);
    if (i === line.length) return this.#skipLine('blank', line, lineNo, offset);
    const c = line.charCodeAt(i);
    if ((c === 0x60 || c === 0x7e) && isFenceLine(line)) {
      if (this.#arrayLine !== 0) this.#closeArrayUnfinished(lineNo);
      return this.#skipLine('fence', line, lineNo, offset);
    }
    // Fast path: the line is one JSON value.
    if (c !== 0x5d && !parseFailed) {
      let value: unknown;
      let parsed = true;
      try {
        value = JSON.parse(line);
      } catch {
        // Fall through to the slow path, which finds out why.
        parsed = false;
      }
      // Delivered outside the try: an exception from the consumer or the validator is theirs,
      // never a syntax error of the model's line.
      if (parsed) {
        this.#deliver(value, lineNo, lineNo, offset, line);
        return;
      }
    }
    if (this.#arrayLine !== 0 && c === 0x5d && firstNonSpace(line, i + 1) === line.length) {
      this.#report(
        DiagnosticReason.recovered,
        lineNo,
        lineNo,
        offset,
        i,
        line,
        `closing bracket of the array opened at line ${this.#arrayLine}`,
        1,
      );
      this.#arrayLine = 0;
      return;
    }
    if (c === 0x5b && this.#arrayLine === 0 && firstNonSpace(line, i + 1) === line.length && !final) {
      this.#arrayLine = lineNo;
      this.#arrayOffset = offset;
      this.#report(
        DiagnosticReason.recovered,
        lineNo,
        lineNo,
        offset,
        i,
        line,
        'array written one element per line: its elements are emitted one by one as they complete',
        1,
      );
      return;
    }
    // `true,` / `null ,`: a literal may carry a trailing comma too (the scanner decides).
    if (!startsLikeJson(c) && c !== 0x74 && c !== 0x66 && c !== 0x6e)
      return this.#reject(line, lineNo, offset, i, final);
    const scanner = this.#scanner;
    scanner.reset();
    const end = scanner.scan(line, i);
    if (end >= 0) {
      // A complete value followed by more text: a trailing comma is a recovery.
      const j = firstNonSpace(line, end);
      if (line.charCodeAt(j) === 0x2c && firstNonSpace(line, j + 1) === line.length) {
        const value = JSON.parse(line.slice(0, j));
        if (this.#arrayLine === 0) {
          this.#report(
            DiagnosticReason.recovered,
            lineNo,
            lineNo,
            offset,
            j,
            line,
            'trailing comma after the value removed',
            0,
          );
        }
        this.#deliver(value, lineNo, lineNo, offset, line);
        return;
      }
      return this.#reject(line, lineNo, offset, i, final);
    }
    if (end === SCAN_ERROR || final || scanner.inString || scanner.depth === 0) {
      return this.#reject(line, lineNo, offset, i, final);
    }
    // Open brackets at the end of the line: a value spread over several lines may follow.
    if (scanner.scan('\n') !== SCAN_MORE) return this.#reject(line, lineNo, offset, i, final);
    this.#mode = MODE_BLOCK;
    this.#blockLines = [line];
    this.#blockLine = lineNo;
    this.#blockOffset = offset;
    this.#blockIndent = i;
    this.#blockLength = line.length + 1;
  }

  #openMessage(why: string): string {
    return `value opened at line ${this.#blockLine} was not closed: ${why}`;
  }

  /** Reports the open multi-line value (lines `blockLine..endLine`) and returns to idle. */
  #reportBlock(reason: Diagnostic['reason'], endLine: number, message: string): void {
    const first = this.#blockLines[0] ?? '';
    this.#mode = MODE_IDLE;
    this.#blockLines = [];
    this.#report(reason, this.#blockLine, endLine, this.#blockOffset, 0, first, message, endLine - this.#blockLine + 1);
  }

  #blockContinues(line: string, lineNo: number, offset: number, final: boolean): void {
    const i = firstNonSpace(line);
    const c = line.charCodeAt(i);
    if (i < line.length) {
      const restarts = i <= this.#blockIndent && (c === 0x7b || c === 0x5b);
      const fence = (c === 0x60 || c === 0x7e) && isFenceLine(line);
      if (restarts || fence) {
        // The line is there, so the open value was broken, not cut: syntax, even on the last line.
        this.#reportBlock(
          DiagnosticReason.syntax,
          lineNo - 1,
          this.#openMessage(fence ? `a fence follows at line ${lineNo}` : `line ${lineNo} starts a new value`),
        );
        return this.#freshLine(line, lineNo, offset, final);
      }
    }
    if (this.#blockLength + line.length > this.#maxLineLength) {
      this.#reportBlock(
        DiagnosticReason.tooLong,
        lineNo,
        `value spread over lines ${this.#blockLine}-${lineNo} is longer than maxLineLength (${this.#maxLineLength} characters)`,
      );
      return;
    }
    const scanner = this.#scanner;
    const end = scanner.scan(line, 0);
    if (end === SCAN_ERROR) {
      this.#reportBlock(
        DiagnosticReason.syntax,
        lineNo - 1,
        this.#openMessage(
          `line ${lineNo} does not continue it (${scanner.errorMessage} at column ${scanner.errorIndex})`,
        ),
      );
      return this.#freshLine(line, lineNo, offset, final);
    }
    if (end >= 0) {
      const j = firstNonSpace(line, end);
      const trailingComma = line.charCodeAt(j) === 0x2c && firstNonSpace(line, j + 1) === line.length;
      if (j < line.length && !trailingComma) {
        this.#reportBlock(
          DiagnosticReason.syntax,
          lineNo,
          `unexpected text after the value that spans lines ${this.#blockLine}-${lineNo}, at column ${j} of line ${lineNo}`,
        );
        return;
      }
      this.#blockLines.push(line.slice(0, end));
      const text = this.#blockLines.join('\n');
      const length = text.length;
      const first = this.#blockLines[0] ?? '';
      const startLine = this.#blockLine;
      this.#mode = MODE_IDLE;
      this.#blockLines = [];
      // The scanner accepted the text, so JSON.parse accepts it too (same grammar).
      const value: unknown = JSON.parse(text);
      if (this.#arrayLine === 0) {
        this.#report(
          DiagnosticReason.recovered,
          startLine,
          lineNo,
          this.#blockOffset,
          0,
          first,
          `value spread over lines ${startLine}-${lineNo} joined${trailingComma ? '; trailing comma removed' : ''}`,
          0,
        );
      }
      this.#deliver(value, startLine, lineNo, this.#blockOffset, first, length);
      return;
    }
    if (final) {
      scanner.end();
      this.#reportBlock(DiagnosticReason.truncated, lineNo, this.#openMessage(`input ended (${scanner.errorMessage})`));
      return;
    }
    if (scanner.scan('\n') === SCAN_ERROR) {
      this.#reportBlock(
        DiagnosticReason.syntax,
        lineNo,
        this.#openMessage(`${scanner.errorMessage} at line ${lineNo}`),
      );
      return;
    }
    this.#blockLines.push(line);
    this.#blockLength += line.length + 1;
  }

  #closeArrayUnfinished(lineNo: number): void {
    this.#report(
      DiagnosticReason.syntax,
      this.#arrayLine,
      this.#arrayLine,
      this.#arrayOffset,
      0,
      '[',
      `the array opened at line ${this.#arrayLine} was not closed before line ${lineNo}; its complete elements were emitted`,
      0,
    );
    this.#arrayLine = 0;
  }
}

/** Creates a push-based JSONL decoder. Throws ConfigurationError for a broken configuration. */
export function createJsonlDecoder<S extends SchemaInput = SchemaInput>(
  options: JsonlOptions<S>,
  sink: JsonlSink<SchemaValue<S>>,
): JsonlDecoder {
  // Type-level only: the decoder delivers what the schema accepted, typed by the caller's schema.
  return new Decoder(options, sink as JsonlSink);
}

export interface JsonlRecord<T = unknown> extends JsonlValueInfo {
  readonly value: T;
}

export interface JsonlResult<T = unknown> {
  /** The validated values, in order. */
  readonly values: T[];
  /** The same values with their line numbers and branches. */
  readonly records: JsonlRecord<T>[];
  readonly diagnostics: Diagnostic[];
  readonly stats: Readonly<JsonlStats>;
}

/** Decodes a whole JSONL answer at once (the same engine as the streams). */
export function parseJsonl<S extends SchemaInput = SchemaInput>(
  text: string,
  options: JsonlOptions<S> = {},
): JsonlResult<SchemaValue<S>> {
  const values: SchemaValue<S>[] = [];
  const records: JsonlRecord<SchemaValue<S>>[] = [];
  const diagnostics: Diagnostic[] = [];
  const decoder = createJsonlDecoder(options, {
    value(value, info) {
      values.push(value);
      records.push({ value, ...info });
    },
    diagnostic(d) {
      diagnostics.push(d);
    },
  });
  decoder.write(text);
  decoder.end();
  return { values, records, diagnostics, stats: decoder.stats };
}

// ---- option names (the options policy: options/option-checks.ts) ----------------------------

/** The options `createJsonlDecoder` takes. */
export const JSONL_DECODER_OPTIONS = /* @__PURE__ */ optionNames<JsonlOptions>()([
  'schema',
  'discriminator',
  'strict',
  'maxLineLength',
  'maxDepth',
  'reportSkipped',
  'nullValue',
  'prefixCheck',
  'prefixCheckWith',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createJsonlStream` takes. */
export const JSONL_STREAM_OPTIONS = /* @__PURE__ */ optionNames<
  JsonlOptions & AdapterOptions & { records?: unknown }
>()([
  'schema',
  'discriminator',
  'strict',
  'maxLineLength',
  'maxDepth',
  'reportSkipped',
  'nullValue',
  'prefixCheck',
  'prefixCheckWith',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
  'records',
]);
