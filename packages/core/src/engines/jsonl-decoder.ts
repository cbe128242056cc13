/**
 * JSONL decoder: text chunks in, validated values and diagnostics out.
 *
 * Contract: `write(text)` consumes the next chunk and synchronously delivers every value the
 * chunk completes (a value is complete at the line break that ends it); `end()` delivers
 * what the end of input decides (the unterminated last line, an unclosed value). The sink
 * receives values in input order, interleaved with diagnostics in input order.
 *
 * This file decides what each line means: the fast path (`JSON.parse` of a line that starts
 * with `{`), strict lines, the recoveries of docs/decisions/003-recovery-rules.md and the
 * diagnostics, validation and delivery, and the prefix check's feeding. The lines come from
 * the framer, jsonl-framing.ts (the line search, line breaks including lone `\r`, the
 * `maxLineLength` accounting of a line in flight, offsets, bytes that were not UTF-8), which
 * the decoder extends: one call per line between the two, as when they were one class.
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
 *    scanned by `indexOf` once, in jsonl-framing.ts; only lines that fail `JSON.parse` are
 *    scanned again, once).
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
import { type Diagnostic, DiagnosticReason, excerptAround } from '../diagnostics/diagnostics.js';
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
import { JsonlFraming } from './jsonl-framing.js';

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

/**
 * Decodes the lines that its framer (the base class, jsonl-framing.ts) hands it: the public
 * methods other than `write`, `end` and `invalidEncoding` are the framer's hooks, called by it
 * only. State is in `#private` members so that a page's minifier may shorten their names (see
 * json-scanner.ts).
 */
class Decoder extends JsonlFraming<JsonlStats> {
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
  // Left set by such a line (or by one whose decoding a consumer's exception cut short), it is
  // replaced by the next line's end or dropped by the next `feedPrefix` or `end`, before any
  // report could feed it.
  #prefixRest: string | undefined;
  #prefixRestAt = 0; // its position in its line
  #prefixRestStart = 0; // offset of its line
  #prefixRestIndent = -1;
  #prefixRestLine = 0;

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
    super();
    checkJsonlOptions(options);
    this.#sink = sink;
    this.#validator = validatorFor(options);
    this.#strict = options.strict === true;
    this.#maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.#reportSkipped = options.reportSkipped === true;
    this.#reportNull = options.nullValue === 'report';
    this.#maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    const prefix = prefixSchema(options);
    this.#prefix =
      prefix === undefined
        ? undefined
        : prefix.factory(prefix.schema, prefix.exported, this.#maxLineLength, this.#maxDepth, (found, lineStart) =>
            this.#violation(found, lineStart),
          );
    this.frame(this.#maxLineLength, this.#strict, this.#prefix !== undefined);
  }

  end(): void {
    this.#prefixRest = undefined;
    const truncatedBeforeEnd = this.stats.diagnostics.truncated;
    const lastLine = this.flush();
    const cutReported = this.stats.diagnostics.truncated !== truncatedBeforeEnd;
    if (this.#mode === MODE_BLOCK) {
      this.#reportBlock(DiagnosticReason.truncated, lastLine, this.#openMessage('input ended'));
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

  tooLong(text: string, lineNo: number, offset: number): void {
    if (this.#mode === MODE_BLOCK) {
      this.#reportBlock(DiagnosticReason.syntax, lineNo - 1, this.#openMessage(`line ${lineNo} is too long`));
    }
    this.#report(
      DiagnosticReason.tooLong,
      lineNo,
      lineNo,
      offset,
      0,
      text,
      `line is longer than maxLineLength (${this.#maxLineLength} characters); the line was discarded`,
      1,
    );
  }

  line(line: string, lineNo: number, offset: number, final: boolean): void {
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

  feedPrefix(offset: number, at: number, text: string, lineNo: number): void {
    // A deferred end left behind (its line yielded a value, or a consumer's exception cut its
    // decoding short) belongs to a line already decided: never fed.
    this.#prefixRest = undefined;
    const blockIndent = this.#mode === MODE_BLOCK ? this.#blockIndent : -1;
    this.#prefixLine = lineNo;
    (this.#prefix as LinePrefixCheck).feed(offset, at, text, blockIndent);
  }

  deferPrefix(text: string, at: number, offset: number, lineNo: number): void {
    this.#prefixRest = text;
    this.#prefixRestAt = at;
    this.#prefixRestStart = offset;
    this.#prefixRestIndent = this.#mode === MODE_BLOCK ? this.#blockIndent : -1;
    this.#prefixRestLine = lineNo;
  }

  catchUp(): void {
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

  /** The framer's reports (lone `\r` line breaks, bytes that were not UTF-8). */
  report(
    reason: Diagnostic['reason'],
    line: number,
    endLine: number,
    lineOffset: number,
    column: number,
    text: string,
    message: string,
    lines: number,
  ): void {
    this.#report(reason, line, endLine, lineOffset, column, text, message, lines);
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
    if (this.#prefixRest !== undefined) this.catchUp();
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
