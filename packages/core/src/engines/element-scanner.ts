/**
 * Element scanner: emits each element of a JSON array — the top-level array, or the array at
 * a path of object keys such as `$.items` — as soon as that element is complete, while the
 * document is still streaming in.
 *
 * Contract: `write(text)` delivers every element the chunk completes, `{ value, index, start,
 * end }` where `text.slice(start, end)` is the element's JSON; `end()` reports what the end of
 * input decides. An answer cut off at the token limit therefore still yields every complete
 * element, followed by one `truncated` diagnostic. Text before the document's first `{` or
 * `[` (prose, a fence line) is skipped; text after the document is ignored.
 *
 * Prefix validation (`prefixCheck`, opt-in; `failFast` turns it on in the Node and Web streams):
 * the element in flight is checked as its text arrives, by the implementation given as
 * `prefixCheckWith` (element-prefix.ts, not imported here so that a bundle that never checks
 * prefixes does not carry it); at most one `violation` per element, before its other reports.
 *
 * Coercion (`coerce`, opt-in, coerce.ts): an element the schema rejects may be delivered as a
 * coerced copy the schema accepts, after one `recovered` diagnostic per repair (`rule`, `path`
 * inside the element, the element's offset, message prefixed `element <index>: `).
 *
 * Invariants:
 * 1. Chunking does not matter (values, offsets and diagnostics depend on the text only).
 * 2. Truncation yields a prefix: a cut text yields a prefix of the whole text's elements.
 * 3. Linear work and bounded memory: the document is scanned once by the shared
 *    `JsonScanner`, which skims each element (brackets and strings only) and leaves checking
 *    it to the `JSON.parse` that builds its value (decision 009); the text kept is the element
 *    in flight (at most `maxElementLength` characters) plus a short tail for object keys.
 * 4. Skimming is invisible: a broken, too-deep or too-long element is reported with the
 *    reason, offset and message a character-by-character scan gives (see `checkElement`).
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { type Diagnostic, DiagnosticReason, excerptAround, quoteInput } from '../diagnostics/diagnostics.js';
import { checkChoice, checkOptionNames, optionNames } from '../options/option-checks.js';
import type { ElementPrefixCheck, ElementPrefixFactory } from '../prefix/element-prefix.js';
import type { PrefixViolation } from '../prefix/prefix-check.js';
import { type CoercionOptions, coercionRules } from '../schema/coercion-options.js';
import { pointerOf } from '../schema/json-pointer.js';
import type { JsonSchema } from '../schema/schema-validator.js';
import { isStandardSchema, jsonSchemaOf, type SchemaInput, type SchemaValue } from '../schema/standard-schema.js';
import { elementSchemaAt } from '../schema/sub-schemas.js';
import { JsonScanner, SCAN_ERROR, type ScanEvents } from '../syntax/json-scanner.js';
import type { AdapterOptions } from './engine.js';
import {
  checkPositiveInteger,
  coercionDiagnostic,
  countDiagnostic,
  type DiagnosticCounts,
  type Engine,
  missingCompilerMessage,
  type ValidatorOptions,
  validatorFor,
} from './engine.js';

/**
 * `E` is the type of `elementSchema`, so that elements come out typed (`SchemaValue<E>`; see
 * standard-schema.ts). Elements checked against a document `schema` stay `unknown`.
 */
export interface ElementOptions<E extends SchemaInput = SchemaInput> extends ValidatorOptions, CoercionOptions {
  /** Where the array is: `$` (the document itself, default) or `$.key.key…`. */
  readonly path?: string;
  /**
   * Schema of the whole document: each element is validated against its `items` at `path`. A
   * Standard Schema here needs a JSON Schema export (zod 4, arktype 2), whose `items` is then
   * validated by `compileJsonSchema`; without either, give `elementSchema` instead.
   */
  readonly schema?: SchemaInput;
  /** Schema of each element (instead of deriving it from `schema`): JSON Schema or Standard Schema. */
  readonly elementSchema?: E;
  /** Discriminator for a `oneOf` element schema (detected by default; `false` for off). */
  readonly discriminator?: string | false;
  /** Longest element kept, in UTF-16 code units. Default 8 MiB; a longer one is `too-long`. */
  readonly maxElementLength?: number;
  /** Deepest nesting accepted in the document. Default 512; deeper is `too-deep` and stops the scan. */
  readonly maxDepth?: number;
  /**
   * Prefix validation of the element in flight (default `false`, for speed: decision 027; the
   * Node and Web element streams default it to `failFast`, and the Web one then needs
   * `prefixCheckWith`). With a schema, each element's text is checked as its
   * chunks arrive, and one `violation` diagnostic (`path` inside the element, `rule`, message
   * prefixed `element <index>: `, `branch` once the discriminator is known) is reported the
   * moment its prefix proves that no completion can match the element schema (prefix-check.ts).
   * The element is still decided when it completes (its `schema` diagnostic follows). A
   * Standard Schema is checked through its JSON Schema export: none, no prefix check. With
   * `coerce`, nothing a turned-on coercion could repair is reported.
   */
  readonly prefixCheck?: boolean;
  /**
   * The prefix check `prefixCheck` needs: `elementPrefixCheck` from `@llmjson/core` (or
   * `@llmjson/web`). The Node element stream passes it; core and the Web stream take it
   * explicitly, so that a page that never checks prefixes does not bundle it (decision 018).
   * `prefixCheck: true` (or `failFast` on a stream) with a schema and without it is
   * ConfigurationError `NO_PREFIX_CHECKER`.
   */
  readonly prefixCheckWith?: ElementPrefixFactory;
}

export interface ElementRecord<T = unknown> {
  readonly value: T;
  /** Position of the element in the array (counting elements that failed validation). */
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly branch?: string;
}

export interface ElementSink<T = unknown> {
  value(element: ElementRecord<T>): void;
  diagnostic(diagnostic: Diagnostic): void;
}

export interface ElementStats {
  characters: number;
  /** Elements seen (complete ones, valid or not). */
  elements: number;
  /** Elements delivered. */
  values: number;
  diagnostics: DiagnosticCounts;
}

export type ElementScanner = Engine<ElementStats>;

const KEY_TAIL = 1024;

/** Parses `$`, `$.a`, `$.a.b` into its keys. */
export function parseElementPath(path: string): string[] {
  if (path === '$') return [];
  if (!/^\$(\.[A-Za-z_$][\w$-]*)+$/.test(path)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `path must be "$" or "$.key" with dot-separated keys (letters, digits, _, $, -), got ${JSON.stringify(quoteInput(path))}`,
    );
  }
  return path.slice(2).split('.');
}

/**
 * The JSON Schema to find the elements' schema in: `schema` itself, or a Standard Schema's
 * JSON Schema export. Throws ConfigurationError for a Standard Schema without one.
 */
function documentJsonSchema(schema: SchemaInput): JsonSchema {
  if (!isStandardSchema(schema)) return schema;
  const json = jsonSchemaOf(schema);
  if (json === undefined) {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `the ${quoteInput(String(schema['~standard'].vendor))} document schema offers no JSON Schema export to find the elements' schema in; pass the element schema as elementSchema`,
    );
  }
  return json;
}

class Scanner implements ElementScanner, ScanEvents {
  readonly stats: ElementStats = { characters: 0, elements: 0, values: 0, diagnostics: {} };
  private readonly sink: ElementSink;
  private readonly keys: readonly string[];
  private readonly depth: number; // depth of the elements: keys.length + 1
  private readonly path: string;
  private readonly validator;
  private readonly maxElementLength: number;
  private readonly json: JsonScanner;

  private retained = '';
  private retainedBase = 0;
  private received = 0;
  private started = false; // the document's first bracket was seen
  private finished = false; // the document ended, or scanning stopped at an error
  private readonly currentKey: (string | undefined)[] = [];
  private elementStart = -1; // start of the element in flight, -1 when none
  private arraySeen = false;
  /** Prefix validation of the element in flight (`prefixCheck`), when on and the schema has anything a prefix can break. */
  private readonly prefix: ElementPrefixCheck | undefined;
  private prefixFed = -1; // absolute offset up to which the element in flight was fed; -1: not checked
  private chunk = ''; // the text being scanned, from absolute offset `chunkBase`
  private chunkBase = 0;

  constructor(options: ElementOptions, sink: ElementSink) {
    checkOptionNames('createElementScanner', options, ELEMENT_SCANNER_OPTIONS);
    this.path = options.path ?? '$';
    this.keys = parseElementPath(this.path);
    this.depth = this.keys.length + 1;
    checkPositiveInteger('maxElementLength', options.maxElementLength, 'characters');
    this.maxElementLength = options.maxElementLength ?? 8 * 1024 * 1024;
    const elementSchema =
      options.elementSchema ??
      (options.schema === undefined ? undefined : elementSchemaAt(documentJsonSchema(options.schema), this.keys));
    if (options.elementSchema === undefined && options.schema !== undefined && isStandardSchema(options.schema)) {
      if (options.compileJsonSchema === undefined) {
        throw new ConfigurationError(
          ConfigurationErrorCode.noJsonSchemaCompiler,
          `${missingCompilerMessage("the elements' schema (the items of the document schema's JSON Schema export)")}; or pass the element schema as elementSchema`,
        );
      }
    }
    this.validator = validatorFor({
      ...(elementSchema === undefined ? {} : { schema: elementSchema }),
      ...(options.discriminator === undefined ? {} : { discriminator: options.discriminator }),
      ...(options.compileJsonSchema === undefined ? {} : { compileJsonSchema: options.compileJsonSchema }),
      ...(options.coerce === undefined ? {} : { coerce: options.coerce }),
      ...(options.coerceWith === undefined ? {} : { coerceWith: options.coerceWith }),
      ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    });
    this.sink = sink;
    checkPositiveInteger('maxDepth', options.maxDepth, 'levels');
    // Only the elements and the keys on the path matter: nothing deeper raises an event.
    this.json = new JsonScanner({ maxDepth: options.maxDepth ?? 512, events: this, eventDepth: this.depth });
    this.prefix = this.prefixCheck(options, elementSchema);
  }

  /**
   * The prefix check of the options (`prefixCheck`, `prefixCheckWith`), or undefined for none.
   * Throws ConfigurationError (NO_PREFIX_CHECKER) for `prefixCheck: true` with a schema and no
   * implementation.
   */
  private prefixCheck(options: ElementOptions, elementSchema: SchemaInput | undefined): ElementPrefixCheck | undefined {
    checkChoice('prefixCheck', options.prefixCheck, [true, false]);
    // Off unless asked: measured at 2.6–5.8× the scanner without it on 4-character chunks of
    // ~200-byte elements (benchmarks `prefix-check`, decision 018), over the 1.3× a default allows.
    const factory = options.prefixCheckWith;
    if (options.prefixCheck !== true || elementSchema === undefined) return undefined;
    if (factory === undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.noPrefixChecker,
        "prefixCheck (which failFast turns on unless prefixCheck: false) needs the prefix check, which core and the Web streams do not bundle unless asked: pass prefixCheckWith: elementPrefixCheck (import { elementPrefixCheck } from '@llmjson/core' or '@llmjson/web'); the Node element stream passes it for you",
      );
    }
    const standard = isStandardSchema(elementSchema);
    const schema = standard ? jsonSchemaOf(elementSchema as StandardSchemaV1) : (elementSchema as JsonSchema);
    if (schema === undefined) return undefined;
    // The items of a Standard Schema document's export are part of that export.
    const exported =
      standard || (options.elementSchema === undefined && isStandardSchema(options.schema as SchemaInput));
    return factory(
      { schema, exported, maxDepth: this.json.maxDepth - this.depth, repairable: coercionRules(options.coerce) },
      (found) => this.violation(found),
    );
  }

  write(text: string): void {
    if (text.length === 0 || this.finished) {
      this.received += text.length;
      this.stats.characters += text.length;
      return;
    }
    let base = this.received;
    this.received += text.length;
    this.stats.characters += text.length;
    if (!this.started) {
      const first = text.search(/[[{]/);
      if (first < 0) return;
      this.started = true;
      text = text.slice(first);
      base += first;
    }
    this.retained += text;
    if (this.retainedBase + this.retained.length !== this.received) {
      // Text before the document was never kept: the retained text starts at the document.
      this.retainedBase = this.received - this.retained.length;
    }
    this.chunk = text;
    this.chunkBase = base;
    const end = this.json.scan(text, 0, base);
    if (this.finished) {
      // An element in this chunk was broken or too long: already reported, scanning stopped.
    } else if (end === SCAN_ERROR) {
      const at = base + this.json.errorIndex;
      // Past maxDepth inside a skimmed element, a syntax error before it comes first; a
      // syntax error past maxElementLength comes after the element became too long.
      const inElement = this.elementStart >= 0;
      if (
        !(inElement && (this.json.depthExceeded || at - this.elementStart > this.maxElementLength)) ||
        !this.checkElement()
      ) {
        this.stop(at);
      }
    } else if (end >= 0) {
      this.finished = true;
      if (!this.arraySeen) {
        this.report(DiagnosticReason.schema, base + end, `the document has no array at ${this.path}`, '');
      }
    } else if (this.elementStart >= 0 && this.received - this.elementStart > this.maxElementLength) {
      this.checkElement();
    } else if (this.prefixFed >= 0) {
      this.feedPrefix(this.received);
    }
    this.chunk = '';
    this.compact();
  }

  end(): void {
    if (this.finished || this.checkElement()) return;
    this.endPrefix(this.received);
    this.finished = true;
    if (!this.started) {
      this.report(DiagnosticReason.truncated, this.received, `no JSON array found (${this.path})`, '');
      return;
    }
    const inElement = this.elementStart >= 0;
    const at = inElement ? this.elementStart : this.received;
    const message = inElement
      ? `input ended inside element ${this.stats.elements} of the array at ${this.path}; ${this.accounting(' before it')}`
      : this.arraySeen
        ? `input ended before the array at ${this.path} closed; ${this.accounting('')}`
        : `input ended before an array at ${this.path} started`;
    this.report(DiagnosticReason.truncated, at, message, inElement ? this.slice(at, at + 200) : '');
  }

  // ---- scanner events -------------------------------------------------------------------

  valueStart(depth: number, start: number): void {
    if (depth === this.depth - 1) {
      // The array itself (an empty one has no elements to show it was there).
      if (!this.arraySeen && this.slice(start, start + 1) === '[' && this.keysOnPath()) this.arraySeen = true;
      return;
    }
    if (depth !== this.depth || this.elementStart >= 0 || this.finished || !this.onPath()) return;
    this.elementStart = start;
    if (this.prefix !== undefined) {
      this.prefix.begin(start);
      this.prefixFed = start;
    }
    // The element's text is parsed by JSON.parse when it closes: the scanner need only find
    // its end (see `checkElement` for how its errors are still reported exactly).
    this.json.skimValue();
  }

  valueEnd(depth: number, end: number): void {
    if (depth !== this.depth || this.elementStart < 0 || this.finished) return;
    if (end - this.elementStart > this.maxElementLength) {
      this.checkElement();
      return;
    }
    const start = this.elementStart;
    const text = this.slice(start, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      // The checking scanner finds the first error (it accepts exactly what JSON.parse accepts).
      if (!this.checkElement()) this.stop(start, (error as Error).message, false);
      return;
    }
    if (this.validator !== undefined) {
      const result = this.validator.validate(value);
      // A valid element (coerced or not) has no violation in any prefix: the rest of its text
      // is checked only when it fails, before its `schema` diagnostic.
      this.endPrefix(result.valid ? -1 : end);
      this.elementStart = -1;
      const index = this.stats.elements++;
      if (!result.valid) {
        this.count(DiagnosticReason.schema);
        this.sink.diagnostic({
          reason: DiagnosticReason.schema,
          offset: start,
          excerpt: excerptAround(text),
          message: `element ${index}: ${result.message}`,
          errors: result.errors,
          ...(result.branch === undefined ? {} : { branch: result.branch }),
        });
        return;
      }
      let delivered = value;
      if (result.fixes !== undefined) {
        // Coerced (`coerce`): each repair is reported just before the element, which is the copy.
        for (const fix of result.fixes) {
          this.count(DiagnosticReason.recovered);
          this.sink.diagnostic(coercionDiagnostic(fix, start, text, result.branch, `element ${index}: `));
        }
        delivered = result.value;
      }
      this.emit(
        result.branch === undefined
          ? { value: delivered, index, start, end }
          : { value: delivered, index, start, end, branch: result.branch },
      );
      return;
    }
    this.elementStart = -1;
    this.emit({ value, index: this.stats.elements++, start, end });
  }

  key(depth: number, start: number, end: number): void {
    if (depth >= this.depth) return;
    const text = start >= this.retainedBase ? this.slice(start, end) : undefined;
    this.currentKey[depth] = text === undefined ? undefined : (JSON.parse(text) as string);
  }

  /** True when the objects down to the elements' array follow the path's keys. */
  private keysOnPath(): boolean {
    const json = this.json;
    for (let d = 1; d < this.depth; d++) {
      if (json.containerAt(d) !== 'object' || this.currentKey[d] !== this.keys[d - 1]) return false;
    }
    return true;
  }

  /** True when the value starting at the elements' depth is an element of the array at the path. */
  private onPath(): boolean {
    return this.json.containerAt(this.depth) === 'array' && this.keysOnPath();
  }

  // ---- helpers --------------------------------------------------------------------------

  private emit(record: ElementRecord): void {
    this.stats.values++;
    this.sink.value(record);
  }

  /**
   * Decides what is wrong with the element in flight, whose contents were skimmed: re-scans its
   * text with the checking scanner (as far as `maxElementLength` allows) and reports the first
   * problem in text order — a syntax error or nesting past `maxDepth` at the same offset and
   * with the same message as a scan of the whole document, else `too-long` when the element
   * runs past `maxElementLength`. Returns false when there is nothing to report (the element
   * is only unfinished). Runs only on these rare paths, never per element.
   */
  private checkElement(): boolean {
    const start = this.elementStart;
    if (start < 0 || this.finished) return false;
    const check = new JsonScanner({ maxDepth: this.json.maxDepth - this.depth });
    const limit = Math.min(this.received, start + this.maxElementLength + 1);
    if (check.scan(this.slice(start, limit), 0, start) === SCAN_ERROR) {
      const tooDeep = check.depthExceeded;
      this.stop(
        start + check.errorIndex,
        tooDeep ? `nesting deeper than maxDepth (${this.json.maxDepth})` : check.errorMessage,
        tooDeep,
      );
      return true;
    }
    if (this.received - start > this.maxElementLength) {
      this.tooLong();
      return true;
    }
    return false;
  }

  /**
   * What became of the complete elements (`before`: ' before it', or ''), for a message on a cut
   * or broken array: all emitted, or how many were emitted and how many dropped (an element that
   * failed its schema is complete but not emitted; each has its own diagnostic).
   */
  private accounting(before: string): string {
    const { elements, values } = this.stats;
    const noun = elements === 1 ? 'element' : 'elements';
    if (values >= elements)
      return `the ${elements} complete ${noun}${before} ${elements === 1 ? 'was' : 'were'} emitted`;
    return `of the ${elements} complete ${noun}${before}, ${values} ${values === 1 ? 'was' : 'were'} emitted and ${elements - values} dropped (each reported)`;
  }

  private stop(at: number, message = this.json.errorMessage, tooDeep = this.json.depthExceeded): void {
    // A violation in the element's text before the error comes first, however the text was chunked.
    if (this.elementStart >= 0) this.endPrefix(this.received);
    this.finished = true;
    this.report(
      tooDeep ? DiagnosticReason.tooDeep : DiagnosticReason.syntax,
      at,
      `the document is not valid JSON at offset ${at}: ${message}; ${this.accounting(' before it')}`,
      // Up to the failing character: what follows it depends on how the text was chunked.
      this.slice(Math.max(this.retainedBase, at - 60), at + 1),
    );
  }

  private tooLong(): void {
    this.endPrefix(this.received);
    this.finished = true;
    const start = this.elementStart;
    this.elementStart = -1;
    this.report(
      DiagnosticReason.tooLong,
      start,
      `element ${this.stats.elements} is longer than maxElementLength (${this.maxElementLength} characters); scanning stopped`,
      this.slice(start, start + Math.min(200, this.maxElementLength + 1)),
    );
  }

  /**
   * Feeds the element in flight's text up to `to` (absolute, exclusive; at most its first
   * `maxElementLength` characters) to its prefix check.
   */
  private feedPrefix(to: number): void {
    const from = this.prefixFed;
    if (from < 0) return;
    const limit = Math.min(to, this.elementStart + this.maxElementLength);
    if (limit <= from) return;
    this.prefixFed = limit;
    const chunk = this.chunk;
    const at = from - this.chunkBase;
    const piece =
      at >= 0 && chunk.length !== 0
        ? at === 0 && limit - from === chunk.length
          ? chunk
          : chunk.slice(at, limit - this.chunkBase)
        : this.slice(from, limit);
    (this.prefix as ElementPrefixCheck).feed(piece, from);
  }

  /** The element in flight is decided: feeds its text up to `to` (none for -1) and ends its prefix check. */
  private endPrefix(to: number): void {
    if (this.prefixFed < 0) return;
    if (to >= 0) this.feedPrefix(to);
    this.prefixFed = -1;
    (this.prefix as ElementPrefixCheck).stop();
  }

  /** The prefix check of the element in flight found a violation (at most one per element). */
  private violation(found: PrefixViolation): void {
    if (this.prefixFed < 0 || this.finished) return;
    this.prefixFed = -1;
    this.count(DiagnosticReason.violation);
    this.sink.diagnostic({
      reason: DiagnosticReason.violation,
      offset: found.offset,
      excerpt: excerptAround(found.excerpt),
      message: `element ${this.stats.elements}: ${found.message}`,
      path: pointerOf(found.path),
      rule: found.rule,
      ...(found.branch === undefined ? {} : { branch: found.branch }),
    });
  }

  private report(reason: Diagnostic['reason'], offset: number, message: string, excerptText: string): void {
    this.count(reason);
    this.sink.diagnostic({ reason, offset, excerpt: excerptAround(excerptText), message });
  }

  private count(reason: Diagnostic['reason']): void {
    countDiagnostic(this.stats.diagnostics, reason);
  }

  private slice(from: number, to: number): string {
    return this.retained.slice(Math.max(0, from - this.retainedBase), Math.max(0, to - this.retainedBase));
  }

  /** Keeps the element in flight, or a short tail for keys that straddle chunks. */
  private compact(): void {
    const keep = this.elementStart >= 0 ? this.elementStart : Math.max(this.retainedBase, this.received - KEY_TAIL);
    if (keep - this.retainedBase > 4096 || (this.finished && this.retained.length > 0)) {
      this.retained = this.finished ? '' : this.retained.slice(keep - this.retainedBase);
      this.retainedBase = this.finished ? this.received : keep;
    }
  }
}

/** Creates a push-based element scanner. Throws ConfigurationError for a broken configuration. */
export function createElementScanner<E extends SchemaInput = SchemaInput>(
  options: ElementOptions<E>,
  sink: ElementSink<SchemaValue<E>>,
): ElementScanner {
  // Type-level only: the scanner delivers what the element schema accepted, typed by it.
  return new Scanner(options, sink as ElementSink);
}

/** Every complete element of the array at `options.path` in `text`, with diagnostics. */
export function extractElements<E extends SchemaInput = SchemaInput>(
  text: string,
  options: ElementOptions<E> = {},
): { values: SchemaValue<E>[]; records: ElementRecord<SchemaValue<E>>[]; diagnostics: Diagnostic[] } {
  const records: ElementRecord<SchemaValue<E>>[] = [];
  const diagnostics: Diagnostic[] = [];
  const scanner = createElementScanner(options, {
    value: (record) => records.push(record),
    diagnostic: (d) => diagnostics.push(d),
  });
  scanner.write(text);
  scanner.end();
  return { values: records.map((r) => r.value), records, diagnostics };
}

// ---- option names (the options policy: options/option-checks.ts) ----------------------------

/** The options `createElementScanner` takes. */
export const ELEMENT_SCANNER_OPTIONS = /* @__PURE__ */ optionNames<ElementOptions>()([
  'path',
  'schema',
  'elementSchema',
  'discriminator',
  'maxElementLength',
  'maxDepth',
  'prefixCheck',
  'prefixCheckWith',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createElementStream` takes. */
export const ELEMENT_STREAM_OPTIONS = /* @__PURE__ */ optionNames<ElementOptions & AdapterOptions>()([
  'path',
  'schema',
  'elementSchema',
  'discriminator',
  'maxElementLength',
  'maxDepth',
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
]);
