/**
 * Judges one record of `llmjson batch` into its result line (`RecordResult`, batch-types.ts): its
 * status under the run's settings, and its status under each of the three scorings the report
 * shows side by side (docs/decisions/039-batch-statuses.md).
 *
 * Precedence, first that applies: `provider-error` (the provider said the request failed),
 * `unsupported-schema` (the record's own schema is missing or does not compile: batch-schemas.ts),
 * `empty` (no text but whitespace); then per scoring `valid` > `salvaged` > `coerced` >
 * `truncated` > `invalid` | `not-json`.
 *
 * The scorings:
 * - strict: what a naive harness does: `JSON.parse` of the whole text (jsonl: of each non-blank
 *   line), then the schema. Only `valid`, `truncated`, `invalid` or `not-json`.
 * - salvage: llmjson's path, `classifyResponse` for the mode (fences, prose, the documented
 *   recoveries; schema-directed).
 * - coerce: salvage, then, for an answer salvage finds `invalid`, schema-guided coercion (core's
 *   `coerce`: every rule unless `JudgeOptions.coerce` names some): `coerced` when it repairs it.
 * The run's `status` is salvage's, strict's with `salvage: false`, coerce's with `coerce`.
 *
 * Invariants (test/properties/batch-judge.property.test.ts):
 * - `judgeRecord` never throws: an exception inside a scoring makes that scoring `invalid`, with
 *   the exception's message.
 * - Monotone: strict `valid` ⇒ salvage `valid` ⇒ coerce `valid`; salvage `valid`/`salvaged` ⇒
 *   coerce the same. By construction: the work is done once — a text strict finds valid is not
 *   parsed again, and coercion runs only on what salvage finds `invalid`.
 * - `not-json` is a property of the text, the same under every scoring: no JSON value anywhere
 *   (not the whole text, not in a fence, inline code or prose, no line of a jsonl answer), nothing
 *   that starts like a JSON document (`{` or `[` first, or first inside a fence), and the text does
 *   not end inside a value. Such a text is `not-json` in every mode (classifyResponse calls prose
 *   `truncated` in elements mode, "no JSON array found": here it is `not-json`).
 * - A finish reason that says the answer was cut off makes every scoring `truncated` (unless
 *   empty), as classifyResponse does.
 * - `keyword` and `path` are those of the first schema error (JSON Pointer into the value: into
 *   the document for elements, into the line's object for jsonl); `excerpt` is at most 200
 *   characters of the text around the failure; `message` at most MAX_MESSAGE_LENGTH characters.
 *
 * Schemas are compiled once each: a per-record schema through `RecordSchemas` (per content), the
 * run's `--schema` once per object; the validators are core's (`@llmjson/core/ajv`), the same as
 * every other command's. Measured in decision 039: a valid record is judged (all three
 * scorings) in the time of one `JSON.parse` and one validator call, 3–5× faster than
 * `classifyResponse` on it; a failing one costs about what `classifyResponse` does, plus the
 * strict parse or the coercion the third scoring needs.
 */

import {
  type AnswerStatus,
  type ClassifyMode,
  classifyResponse,
  isTruncated,
  parseJsonResponse,
} from '@llmjson/contracts';
import {
  type CoerceOption,
  type CompiledSchema,
  ConfigurationError,
  DEFAULT_MAX_DEPTH,
  type Diagnostic,
  ERRORS_OMITTED_KEYWORD,
  extractAllJson,
  extractElements,
  extractJson,
  type JsonSchema,
  parseJsonl,
  type SchemaError,
  type ValidationResult,
} from '@llmjson/core';
import { NODE_DEFAULTS } from '@llmjson/core/ajv';
import {
  coercionRules,
  depthExceeds,
  elementSchemaAt,
  JsonScanner,
  mayExceedDepth,
  quoteInput,
  SCAN_MORE,
} from '@llmjson/core/internal';
import { RecordSchemas } from './batch-schemas.js';
import {
  type BatchRecord,
  type JsonSchemaBenchCode,
  RECORD_STATUSES,
  type RecordResult,
  type RecordStatus,
  type Scoring,
} from './batch-types.js';

export interface JudgeOptions {
  readonly mode: ClassifyMode;
  /** `false` (`--no-salvage`): the run's status is the strict scoring's. */
  readonly salvage: boolean;
  /** `--coerce`: the run's status is the coerce scoring's, with these rules (`true`: all). */
  readonly coerce?: CoerceOption | undefined;
  /** The run's schema (`--schema`/`--schema-ref`), for records without one of their own. */
  readonly schema?: JsonSchema | undefined;
  readonly discriminator?: string | undefined;
  /**
   * `--schema-field`, as given: every record must carry its own schema (a record without one is
   * `unsupported-schema`, and the message names the flag).
   */
  readonly schemaField?: string | undefined;
  /** Absolute `--schema-root` directories, for a record schema given by name. */
  readonly schemaRoots?: readonly string[] | undefined;
  /** `'jsonschemabench'`: each result also carries its status in JSONSchemaBench's vocabulary. */
  readonly statuses?: 'llmjson' | 'jsonschemabench' | undefined;
}

/** Longest `message` of a result line, in characters. */
export const MAX_MESSAGE_LENGTH = 500;
/** Longest `excerpt` of a result line, in characters. */
export const MAX_EXCERPT_LENGTH = 200;
/** How much of the excerpt comes before the failure's offset. */
const EXCERPT_BEFORE = 60;

/** One scoring's verdict, with what the result line says about it. */
interface Outcome {
  readonly status: RecordStatus;
  readonly values: number;
  readonly diagnostics: number;
  readonly keyword?: string;
  readonly path?: string;
  readonly message?: string;
  readonly excerpt?: string;
  /**
   * Strict only: the text did not parse. It is `invalid` (a syntax error) unless it holds no JSON
   * at all (`not-json`), which is decided after salvage: when salvage finds a value, the
   * question is answered without scanning the text again.
   */
  readonly unparsed?: true;
}

/** A text of white space only (the same characters `trim` removes): tested without a trimmed copy. */
const BLANK = /^\s*$/;

/** The outcome of most records: one valid document (shared: outcomes are never changed). */
const VALID_DOCUMENT: Outcome = Object.freeze({ status: 'valid', values: 1, diagnostics: 0 });
const EMPTY: Outcome = Object.freeze({
  status: 'empty',
  values: 0,
  diagnostics: 0,
  message: 'the response has no text',
});

/** What every scoring of one record shares, computed at most once. */
interface Context {
  readonly text: string;
  readonly mode: ClassifyMode;
  readonly cut: boolean;
  readonly schema: JsonSchema | undefined;
  readonly compiled: CompiledSchema | undefined;
  readonly discriminator: string | undefined;
  /** Memo of `hasNoJson`. */
  noJson?: boolean;
  /** The whole text as JSON.parse read it (strict, json/elements/salvage modes), or `failed`. */
  document?: { readonly value: unknown } | 'failed';
}

// ---- small helpers ---------------------------------------------------------------------------

function bounded(message: string): string {
  return quoteInput(message, MAX_MESSAGE_LENGTH);
}

/** At most MAX_EXCERPT_LENGTH characters of `text` around `offset`, never splitting a surrogate pair. */
export function excerptAt(text: string, offset: number): string {
  if (text.length <= MAX_EXCERPT_LENGTH) return text;
  let start = Math.max(0, Math.min(offset - EXCERPT_BEFORE, text.length - MAX_EXCERPT_LENGTH));
  let end = start + MAX_EXCERPT_LENGTH;
  const low = (at: number) => {
    const code = text.charCodeAt(at);
    return code >= 0xdc00 && code <= 0xdfff;
  };
  if (low(start)) start++;
  if (end < text.length && low(end)) end--;
  return text.slice(start, end);
}

/** The offset V8 names in a JSON.parse error (`… at position 12`), if any. */
function syntaxOffset(error: unknown): number | undefined {
  const match = /at position (\d+)/.exec(error instanceof Error ? error.message : '');
  return match === null ? undefined : Number(match[1]);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True when the text's first JSON document starts but never ends (as classifyResponse decides). */
function endsInsideDocument(text: string): boolean {
  const first = text.search(/[[{]/);
  if (first < 0) return false;
  return new JsonScanner().scan(text, first) === SCAN_MORE;
}

/** `{` or `[` first, or first inside a fence that opens the text. */
function startsLikeJson(trimmed: string): boolean {
  const first = trimmed[0];
  if (first === '{' || first === '[') return true;
  if (!trimmed.startsWith('```')) return false;
  const newline = trimmed.indexOf('\n');
  if (newline < 0) return false;
  const inside = trimmed.slice(newline + 1).trimStart()[0];
  return inside === '{' || inside === '[';
}

/** What may start a JSON text after its whitespace (JSON's whitespace only: space, tab, CR, LF). */
const JSON_START = /[{["0-9tfn-]/;
const NOT_JSON_WHITESPACE = /[^ \t\n\r]/;

/**
 * JSON.parse of a whole text, or why not and where. A text that cannot start a JSON value is
 * answered without calling JSON.parse, and JSON.parse runs with no stack trace captured: a
 * failing JSON.parse costs about 30 µs on Node 20, most of it the stack trace of the
 * exception, and most failing answers are prose.
 */
function parseWhole(text: string): { readonly value: unknown } | { readonly error: string; readonly offset: number } {
  const start = text.search(NOT_JSON_WHITESPACE);
  const first = start < 0 ? '' : (text[start] as string);
  if (!JSON_START.test(first)) {
    return { error: start < 0 ? 'it is empty' : `it starts with ${JSON.stringify(first)}`, offset: Math.max(start, 0) };
  }
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: errorMessage(error), offset: syntaxOffset(error) ?? start };
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function parses(text: string): boolean {
  return 'value' in parseWhole(text);
}

/** See the file comment: no JSON value anywhere and nothing that starts like one. */
function hasNoJson(context: Context): boolean {
  if (context.noJson !== undefined) return context.noJson;
  const { text } = context;
  const trimmed = text.trim();
  let none =
    !startsLikeJson(trimmed) &&
    (context.document === 'failed' || (context.document === undefined && !parses(trimmed))) &&
    !endsInsideDocument(text);
  if (none) {
    const diagnostics: Diagnostic[] = [];
    const found = extractAllJson(text, { onDiagnostic: (d) => diagnostics.push(d) });
    none = found.length === 0 && !diagnostics.some((d) => d.reason !== 'recovered');
  }
  if (none && context.mode === 'jsonl') {
    none = !text.split('\n').some((line) => line.trim() !== '' && parses(line));
  }
  context.noJson = none;
  return none;
}

/** The first error that names a keyword (the cap's `errors-omitted` entry names none). */
function firstError(errors: readonly SchemaError[] | undefined): SchemaError | undefined {
  return errors?.find((e) => e.keyword !== ERRORS_OMITTED_KEYWORD);
}

function validate(compiled: CompiledSchema, value: unknown): ValidationResult {
  try {
    return compiled.validate(value);
  } catch (error) {
    // A validator that throws on a value fails that value only, as in contracts' validate.
    return { valid: false, errors: [], message: `the schema validator failed on the value (${errorMessage(error)})` };
  }
}

/** An outcome for a value the schema rejected. */
function schemaFailure(
  result: Extract<ValidationResult, { valid: false }>,
  text: string,
  offset: number,
  prefix = '',
  pathPrefix = '',
): Outcome {
  const error = firstError(result.errors);
  return {
    status: 'invalid',
    values: 0,
    diagnostics: 1,
    ...(error === undefined ? {} : { keyword: error.keyword, path: `${pathPrefix}${error.path}` }),
    message: bounded(`${prefix}${result.message}`),
    excerpt: excerptAt(text, offset),
  };
}

function notJson(context: Context): Outcome {
  return {
    status: 'not-json',
    values: 0,
    diagnostics: 1,
    message: 'no JSON value in the text (not as the whole text, in a fence, in inline code or in prose)',
    excerpt: excerptAt(context.text, 0),
  };
}

function truncated(context: Context, values: number, diagnostics: number, message?: string): Outcome {
  return {
    status: 'truncated',
    values,
    diagnostics: Math.max(diagnostics, 1),
    message: bounded(
      message ??
        (context.cut
          ? 'the answer was cut off at the token limit (its finish reason says so)'
          : 'the text ends inside a JSON value'),
    ),
    excerpt: excerptAt(context.text, context.text.length),
  };
}

const NOT_AN_ARRAY = 'the document is not an array (--mode elements reads the elements of an array document)';

// ---- strict ----------------------------------------------------------------------------------

function strictOutcome(context: Context): Outcome {
  if (context.cut) return truncated(context, 0, 1);
  return context.mode === 'jsonl' ? strictLines(context) : strictDocument(context);
}

/**
 * True when JSON.parse must refuse `text` because it opens an object or array that its last
 * character before JSON whitespace does not close (an answer cut off, mostly). Asked first, so
 * that such an answer is not given to JSON.parse: a refusal costs about 8 µs, the exception
 * and its message (which `truncated` does not use).
 */
function opensUnclosed(text: string): boolean {
  const start = text.search(NOT_JSON_WHITESPACE);
  if (start < 0) return false;
  const first = text.charCodeAt(start);
  if (first !== 0x7b && first !== 0x5b) return false;
  let end = text.length - 1;
  for (;;) {
    const code = text.charCodeAt(end);
    if (end > start && (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d)) end--;
    else break;
  }
  return text.charCodeAt(end) !== (first === 0x7b ? 0x7d : 0x5d);
}

function strictDocument(context: Context): Outcome {
  const { text } = context;
  if (opensUnclosed(text) && endsInsideDocument(text)) {
    // What a failed parse would lead to below, without the parse.
    context.document = 'failed';
    return truncated(context, 0, 1);
  }
  const parsed = parseWhole(text);
  if ('error' in parsed) {
    context.document = 'failed';
    if (endsInsideDocument(text)) return truncated(context, 0, 1);
    return {
      status: 'invalid',
      values: 0,
      diagnostics: 1,
      message: bounded(`the text is not one JSON document: ${parsed.error}`),
      excerpt: excerptAt(text, parsed.offset),
      unparsed: true,
    };
  }
  const value = parsed.value;

  const start = text.length - text.trimStart().length;
  if (mayExceedDepth(text.length, DEFAULT_MAX_DEPTH) && depthExceeds(value, DEFAULT_MAX_DEPTH)) {
    // Never handed to a validator or a coercer: a recursive schema would recurse as deep.
    context.document = 'failed';
    return {
      status: 'invalid',
      values: 0,
      diagnostics: 1,
      message: `the document is nested deeper than ${DEFAULT_MAX_DEPTH} levels; it was not validated`,
      excerpt: excerptAt(text, start),
    };
  }
  context.document = { value };
  if (context.mode === 'elements' && !Array.isArray(value)) {
    return {
      status: 'invalid',
      values: 0,
      diagnostics: 1,
      keyword: 'type',
      path: '',
      message: NOT_AN_ARRAY,
      excerpt: excerptAt(text, start),
    };
  }
  if (context.compiled !== undefined) {
    const result = validate(context.compiled, value);
    if (!result.valid) return schemaFailure(result, text, start);
  }
  if (Array.isArray(value) && context.mode === 'elements')
    return { status: 'valid', values: value.length, diagnostics: 0 };
  return VALID_DOCUMENT;
}

function strictLines(context: Context): Outcome {
  const { text } = context;
  const lines = text.split('\n');
  let offset = 0;
  let count = 0;
  let last = lines.length - 1;
  while (last > 0 && (lines[last] as string).trim() === '') last--;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const at = offset;
    offset += line.length + 1;
    if (line.trim() === '') continue;
    const parsed = parseWhole(line);
    if ('error' in parsed) {
      if (i === last && endsInsideDocument(line)) return truncated(context, count, 1, `line ${i + 1} is cut off`);
      return {
        status: 'invalid',
        values: count,
        diagnostics: 1,
        message: bounded(`line ${i + 1} is not JSON: ${parsed.error}`),
        excerpt: excerptAt(text, at + parsed.offset),
        unparsed: true,
      };
    }
    const value = parsed.value;
    if (mayExceedDepth(line.length, DEFAULT_MAX_DEPTH) && depthExceeds(value, DEFAULT_MAX_DEPTH)) {
      return {
        status: 'invalid',
        values: count,
        diagnostics: 1,
        message: `line ${i + 1} is nested deeper than ${DEFAULT_MAX_DEPTH} levels; it was not validated`,
        excerpt: excerptAt(text, at),
      };
    }
    if (context.compiled !== undefined) {
      const result = validate(context.compiled, value);
      if (!result.valid) return { ...schemaFailure(result, text, at, `line ${i + 1}: `), values: count };
    }
    count++;
  }
  return { status: 'valid', values: count, diagnostics: 0 };
}

// ---- salvage ---------------------------------------------------------------------------------

const SKIPPED: ReadonlySet<string> = new Set(['blank', 'fence', 'recovered']);

/** The diagnostic that explains a failure: the first with a schema error, else the first failure. */
function explainingDiagnostic(diagnostics: readonly Diagnostic[]): Diagnostic | undefined {
  return (
    diagnostics.find((d) => firstError(d.errors) !== undefined) ??
    diagnostics.find((d) => !SKIPPED.has(d.reason) && d.reason !== 'prose') ??
    diagnostics.find((d) => !SKIPPED.has(d.reason))
  );
}

/** An element diagnostic's message starts `element N: `: its error path is then inside element N. */
function elementPrefix(message: string): string {
  const match = /^element (\d+): /.exec(message);
  return match === null ? '' : `/${match[1]}`;
}

function fromDiagnostic(context: Context, d: Diagnostic, values: number, count: number): Outcome {
  const error = firstError(d.errors);
  const elements = context.mode === 'elements';
  const lineLabel = context.mode === 'jsonl' && d.line !== undefined ? `line ${d.line}: ` : '';
  const keyword =
    error?.keyword ?? (elements && d.message.startsWith('the document has no array') ? 'type' : undefined);
  const path =
    error === undefined
      ? keyword === undefined
        ? undefined
        : ''
      : `${elements ? elementPrefix(d.message) : ''}${error.path}`;
  return {
    status: 'invalid',
    values,
    diagnostics: count,
    ...(keyword === undefined ? {} : { keyword }),
    ...(path === undefined ? {} : { path }),
    message: bounded(`${lineLabel}${d.message}`),
    excerpt: excerptAt(context.text, d.offset),
  };
}

/** Why a json or salvage answer is invalid: its preferred candidate (as parseJsonResponse picks it) against the schema. */
function documentFailure(context: Context, strict: Outcome): Outcome {
  if (strict.status === 'invalid' && strict.keyword !== undefined) return strict;
  const found = extractJson(context.text, {});
  if (found !== undefined) {
    if (context.mode === 'elements' && !Array.isArray(found.value)) {
      return {
        status: 'invalid',
        values: 0,
        diagnostics: 1,
        keyword: 'type',
        path: '',
        message: NOT_AN_ARRAY,
        excerpt: excerptAt(context.text, found.start),
      };
    }
    if (context.compiled !== undefined) {
      const result = validate(context.compiled, found.value);
      if (!result.valid) return schemaFailure(result, context.text, found.start);
    }
  }
  // Nothing to read: the strict parse's syntax error says why.
  return strict.status === 'invalid'
    ? strict
    : {
        status: 'invalid',
        values: 0,
        diagnostics: 1,
        message: 'no JSON value in the text matches',
        excerpt: excerptAt(context.text, 0),
      };
}

/** What salvage needs of classifyResponse's answer. */
interface Classified {
  readonly status: AnswerStatus;
  readonly values: number;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * classifyResponse's json mode for an answer strict did not find valid. classifyResponse would
 * first parse the whole text again and validate it (a second JSON.parse that throws, with its
 * stack trace, for every answer in prose or cut off); strict has answered that already: not
 * valid, or cut. So this starts where classifyResponse goes on: the tolerant parse (fences,
 * prose, recoveries; schema-directed), then the cut. The property test holds the two equal.
 */
function classifyJson(context: Context): Classified {
  const { text } = context;
  if (!context.cut) {
    const tolerant = parseJsonResponse(text, {
      ...(context.schema === undefined ? {} : { schema: context.schema }),
      ...(context.discriminator === undefined ? {} : { discriminator: context.discriminator }),
    });
    if (tolerant.status === 'succeeded') {
      return { status: 'salvaged', values: 1, diagnostics: tolerant.diagnostics ?? [] };
    }
  }
  if (context.cut || endsInsideDocument(text)) {
    // A cut array still has its complete elements.
    const elements = extractElements(text, {});
    return { status: 'truncated', values: elements.values.length, diagnostics: elements.diagnostics };
  }
  return { status: 'invalid', values: 0, diagnostics: [] };
}

function classify(context: Context): Classified {
  if (context.mode === 'json') return classifyJson(context);
  const classified = classifyResponse(context.text, {
    mode: context.mode,
    salvage: true,
    ...(context.schema === undefined ? {} : { schema: context.schema }),
    ...(context.discriminator === undefined ? {} : { discriminator: context.discriminator }),
    ...(context.cut ? { finishReason: 'length' } : {}),
  });
  return { status: classified.status, values: classified.values.length, diagnostics: classified.diagnostics };
}

/** Only for an answer strict did not find valid (judge reuses strict's outcome for one it did). */
function salvageOutcome(context: Context, strict: Outcome): Outcome {
  const classified = classify(context);
  const values = classified.values;
  const count = classified.diagnostics.length;
  switch (classified.status) {
    case 'valid':
    case 'salvaged':
      return { status: classified.status, values, diagnostics: count };
    case 'empty':
      return { status: 'empty', values: 0, diagnostics: 0 };
    case 'truncated': {
      if (!context.cut && hasNoJson(context)) return notJson(context);
      const cut = classified.diagnostics.find((d) => d.reason === 'truncated');
      return truncated(context, values, count, cut?.message);
    }
    case 'invalid': {
      if (hasNoJson(context)) return notJson(context);
      const d = explainingDiagnostic(classified.diagnostics);
      if (d !== undefined && (context.mode === 'jsonl' || context.mode === 'elements')) {
        return fromDiagnostic(context, d, values, count);
      }
      return { ...documentFailure(context, strict), values, diagnostics: Math.max(count, 1) };
    }
  }
}

// ---- coerce ----------------------------------------------------------------------------------

function coerceOutcome(context: Context, salvage: Outcome, rules: CoerceOption): Outcome {
  if (salvage.status !== 'invalid' || context.schema === undefined) return salvage;
  const { text, schema } = context;
  const discriminator = context.discriminator === undefined ? {} : { discriminator: context.discriminator };
  const engine = {
    schema,
    ...discriminator,
    compileJsonSchema: NODE_DEFAULTS.compileJsonSchema,
    coerce: rules,
    coerceWith: NODE_DEFAULTS.coerceWith,
  };
  const coerced = (values: number, diagnostics: number): Outcome => ({ status: 'coerced', values, diagnostics });
  // The whole text is one document the schema rejected: it is the first candidate the engines
  // would coerce, so coercing it here (core's cached coercing validator) answers without another
  // scan. Only when that fails do the engines look for other candidates.
  const document = context.document;
  if (
    (context.mode === 'json' || context.mode === 'salvage') &&
    typeof document === 'object' &&
    context.compiled !== undefined
  ) {
    const set = coercionRules(rules);
    if (set !== undefined) {
      const result = validate(NODE_DEFAULTS.coerceWith(context.compiled, schema as JsonSchema, set), document.value);
      if (result.valid) return coerced(1, result.fixes?.length ?? 0);
    }
  }
  const anywhere = (): Outcome | undefined => {
    const found = extractAllJson(text, engine);
    return found.length > 0 ? coerced(found.length, 0) : undefined;
  };
  switch (context.mode) {
    case 'json': {
      const outcome = parseJsonResponse(text, { schema, ...discriminator, coerce: rules });
      return outcome.status === 'succeeded' ? coerced(1, outcome.diagnostics?.length ?? 0) : salvage;
    }
    case 'jsonl': {
      const result = parseJsonl(text, engine);
      if (result.values.length > 0) return coerced(result.values.length, result.diagnostics.length);
      return anywhere() ?? salvage;
    }
    case 'elements': {
      const result = extractElements(text, engine);
      if (result.diagnostics.every((d) => d.reason === 'recovered')) {
        return coerced(result.values.length, result.diagnostics.length);
      }
      if (result.values.length === 0) return anywhere() ?? salvage;
      return salvage;
    }
    case 'salvage':
      return anywhere() ?? salvage;
  }
}

// ---- schemas ---------------------------------------------------------------------------------

/** The run's schema compiled once per object (core caches too; this skips even its lookup). */
const runSchemas = new WeakMap<object, CompiledSchema | string>();

function compileRunSchema(schema: JsonSchema, discriminator: string | undefined): CompiledSchema | string {
  const options = discriminator === undefined ? {} : { discriminator };
  if (typeof schema !== 'object' || schema === null) {
    try {
      return NODE_DEFAULTS.compileJsonSchema(schema, options);
    } catch (error) {
      return `the schema does not compile: ${bounded(errorMessage(error))}`;
    }
  }
  let found = runSchemas.get(schema);
  if (found === undefined) {
    try {
      found = NODE_DEFAULTS.compileJsonSchema(schema, options);
    } catch (error) {
      found = `the schema does not compile: ${bounded(errorMessage(error))}`;
    }
    runSchemas.set(schema, found);
  }
  return found;
}

/** Why a schema cannot serve --mode elements (its document is not an array), memoised per schema object. */
const elementProblems = new WeakMap<object, string | null>();

function elementProblem(schema: JsonSchema): string | undefined {
  if (typeof schema !== 'object') return undefined;
  let problem = elementProblems.get(schema);
  if (problem === undefined) {
    try {
      elementSchemaAt(schema, []);
      problem = null;
    } catch (error) {
      problem = `--mode elements needs the schema of an array document: ${bounded(errorMessage(error))}`;
    }
    elementProblems.set(schema, problem);
  }
  return problem ?? undefined;
}

/** RecordSchemas shared by the calls that pass none, per discriminator and roots. */
const defaultSchemas = new Map<string, RecordSchemas>();

function schemasFor(options: JudgeOptions): RecordSchemas {
  const key = JSON.stringify([options.discriminator ?? null, options.schemaRoots ?? []]);
  let schemas = defaultSchemas.get(key);
  if (schemas === undefined) {
    schemas = new RecordSchemas({
      ...(options.discriminator === undefined ? {} : { discriminator: options.discriminator }),
      ...(options.schemaRoots === undefined ? {} : { schemaRoots: options.schemaRoots }),
    });
    defaultSchemas.set(key, schemas);
  }
  return schemas;
}

// ---- the judgement ---------------------------------------------------------------------------

/** The coercion rules of the coerce scoring: the run's when it names some, else all. */
function coerceRules(option: CoerceOption | undefined): CoerceOption {
  if (Array.isArray(option) && option.length > 0) return option;
  return true;
}

function coercing(option: CoerceOption | undefined): boolean {
  return option === true || (Array.isArray(option) && option.length > 0);
}

/**
 * What a scoring is when an exception escaped it: `invalid` with the exception's message. Each
 * scoring runs in a try of its own (judge), not through a callback: a closure per scoring and
 * record was a tenth of what judging a valid record allocated.
 */
function failedScoring(error: unknown): Outcome {
  const why = error instanceof ConfigurationError ? error.message : `${errorMessage(error)} (while judging)`;
  return { status: 'invalid', values: 0, diagnostics: 1, message: bounded(why) };
}

function same(outcome: Outcome): Readonly<Record<Scoring, RecordStatus>> {
  return { strict: outcome.status, salvage: outcome.status, coerce: outcome.status };
}

function resultLine(
  record: BatchRecord,
  options: JudgeOptions,
  scores: Readonly<Record<Scoring, RecordStatus>>,
  outcome: Outcome,
  schemaId: string | undefined,
): RecordResult {
  // Built by assignment in the order of the keys (resultText and --out rely on it), not with
  // conditional spreads, which allocated an object per optional key and per record.
  const { status, keyword } = outcome;
  const result: { -readonly [K in keyof RecordResult]: RecordResult[K] } =
    options.statuses === 'jsonschemabench'
      ? {
          index: record.index,
          id: record.id,
          model: record.model,
          status,
          scores,
          jsonschemabench: jsonSchemaBenchCode(keyword === undefined ? { status } : { status, keyword }),
          values: outcome.values,
          diagnostics: outcome.diagnostics,
        }
      : {
          index: record.index,
          id: record.id,
          model: record.model,
          status,
          scores,
          values: outcome.values,
          diagnostics: outcome.diagnostics,
        };
  if (keyword !== undefined) result.keyword = keyword;
  if (outcome.path !== undefined) result.path = outcome.path;
  if (outcome.message !== undefined) result.message = outcome.message;
  if (outcome.excerpt !== undefined) result.excerpt = outcome.excerpt;
  if (schemaId !== undefined) result.schemaId = schemaId;
  return result;
}

/** A result whose three scorings agree (the record was decided before any scoring ran). */
function wholeResult(record: BatchRecord, options: JudgeOptions, outcome: Outcome, schemaId?: string): RecordResult {
  return resultLine(record, options, same(outcome), outcome, schemaId);
}

function unsupportedResult(record: BatchRecord, options: JudgeOptions, message: string, id?: string): RecordResult {
  return wholeResult(
    record,
    options,
    { status: 'unsupported-schema', values: 0, diagnostics: 0, message: bounded(message) },
    id,
  );
}

/** A count as JSON.stringify writes it (a count is always finite; anything else is `null`, as there). */
function jsonNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

/** Statuses whose words `statusText` keeps written (a fixed vocabulary: the cache stays small). */
const KNOWN_STATUSES: ReadonlySet<string> = new Set(RECORD_STATUSES);
type Written = Record<string, Record<string, Record<string, Record<string, string>>>>;
const writtenStatuses: Written = Object.create(null);

/**
 * `"status":…,"scores":{…}` of a result, as JSON.stringify writes it. A run has few combinations
 * of the four words, so each is written once and kept (nested by word: no key is built per
 * record); a word outside the vocabulary is written each time.
 */
function statusText(status: RecordStatus, scores: Readonly<Record<Scoring, RecordStatus>>): string {
  const { strict, salvage, coerce } = scores;
  if (
    !KNOWN_STATUSES.has(status) ||
    !KNOWN_STATUSES.has(strict) ||
    !KNOWN_STATUSES.has(salvage) ||
    !KNOWN_STATUSES.has(coerce)
  ) {
    return writeStatus(status, strict, salvage, coerce);
  }
  const byCoerce = table(table(table(writtenStatuses, status), strict), salvage);
  let text = byCoerce[coerce];
  if (text === undefined) {
    text = writeStatus(status, strict, salvage, coerce);
    byCoerce[coerce] = text;
  }
  return text;
}

function writeStatus(status: string, strict: string, salvage: string, coerce: string): string {
  return `"status":"${status}","scores":{"strict":"${strict}","salvage":"${salvage}","coerce":"${coerce}"}`;
}

/** `parent[key]`, a new empty table there when there is none. */
function table<T>(parent: Record<string, T>, key: string): T {
  let found = parent[key];
  if (found === undefined) {
    found = Object.create(null) as T;
    parent[key] = found;
  }
  return found;
}

/**
 * `JSON.stringify(result)` for a result `judgeRecord` made (its keys in `resultLine`'s order),
 * written directly: about 0.65 µs a valid record against 1.5 on Node 20, and a line is written
 * for every record. Statuses and codes go in as they are: words of a fixed vocabulary, with
 * nothing to escape. The judge's property test holds it equal to JSON.stringify.
 */
export function resultText(result: RecordResult): string {
  const q = JSON.stringify;
  let text = `{"index":${jsonNumber(result.index)},"id":${q(result.id)},"model":${q(result.model)},${statusText(result.status, result.scores)}`;
  if (result.jsonschemabench !== undefined) text += `,"jsonschemabench":"${result.jsonschemabench}"`;
  text +=
    result.values === 1 && result.diagnostics === 0
      ? ONE_VALUE_TEXT
      : `,"values":${jsonNumber(result.values)},"diagnostics":${jsonNumber(result.diagnostics)}`;
  if (result.keyword !== undefined) text += `,"keyword":${q(result.keyword)}`;
  if (result.path !== undefined) text += `,"path":${q(result.path)}`;
  if (result.message !== undefined) text += `,"message":${q(result.message)}`;
  if (result.excerpt !== undefined) text += `,"excerpt":${q(result.excerpt)}`;
  if (result.schemaId !== undefined) text += `,"schemaId":${q(result.schemaId)}`;
  return `${text}}`;
}

/** The counts of most results, one value and no diagnostic, as resultText writes them. */
const ONE_VALUE_TEXT = ',"values":1,"diagnostics":0';

function judge(record: BatchRecord, options: JudgeOptions, schemas: RecordSchemas | undefined): RecordResult {
  if (record.providerError !== undefined) {
    return wholeResult(record, options, {
      status: 'provider-error',
      values: 0,
      diagnostics: 0,
      message: bounded(`the provider reported an error: ${record.providerError}`),
    });
  }
  let schema: JsonSchema | undefined;
  let compiled: CompiledSchema | undefined;
  let schemaId: string | undefined;
  if (options.schemaField !== undefined || record.schema !== undefined || record.schemaText !== undefined) {
    if (record.schema === undefined && record.schemaText === undefined) {
      return unsupportedResult(
        record,
        options,
        `the record has no schema${options.schemaField === undefined ? '' : ` at --schema-field ${quoteInput(options.schemaField)}`}`,
      );
    }
    const cache = schemas ?? schemasFor(options);
    const raw = record.schema;
    const found =
      record.schemaText !== undefined &&
      (raw === undefined || (typeof raw === 'object' && raw !== null && !Array.isArray(raw)))
        ? cache.lookupWritten(record.schemaText, raw)
        : cache.lookup(raw);
    schemaId = found.id;
    if ('problem' in found) return unsupportedResult(record, options, found.problem, found.id);
    schema = found.schema;
    compiled = found.compiled;
  } else if (options.schema !== undefined) {
    const found = compileRunSchema(options.schema, options.discriminator);
    if (typeof found === 'string') return unsupportedResult(record, options, found);
    schema = options.schema;
    compiled = found;
  }
  if (schema !== undefined && options.mode === 'elements') {
    const problem = elementProblem(schema);
    if (problem !== undefined) return unsupportedResult(record, options, problem, schemaId);
  }
  if (BLANK.test(record.text)) {
    return wholeResult(record, options, EMPTY, schemaId);
  }
  const context: Context = {
    text: record.text,
    mode: options.mode,
    cut: isTruncated(record.finishReason),
    schema,
    compiled,
    discriminator: options.discriminator,
  };
  let strict: Outcome;
  try {
    strict = strictOutcome(context);
  } catch (error) {
    strict = failedScoring(error);
  }
  // Done once: what strict finds valid is valid under salvage and coerce without another parse.
  let salvage = strict;
  if (strict.status !== 'valid') {
    try {
      salvage = salvageOutcome(context, strict);
    } catch (error) {
      salvage = failedScoring(error);
    }
  }
  if (strict.unparsed === true && salvage.status !== 'valid' && salvage.status !== 'salvaged') {
    // Salvage found nothing usable: whether there is JSON at all is decided by looking (once).
    if (hasNoJson(context)) strict = notJson(context);
  }
  let coerce: Outcome;
  try {
    coerce = coerceOutcome(context, salvage, coerceRules(options.coerce));
  } catch (error) {
    coerce = failedScoring(error);
  }
  const scores = { strict: strict.status, salvage: salvage.status, coerce: coerce.status };
  const run = options.salvage === false ? strict : coercing(options.coerce) ? coerce : salvage;
  return resultLine(record, options, scores, run, schemaId);
}

/** The result line of one record. Never throws (see the file comment). */
export function judgeRecord(record: BatchRecord, options: JudgeOptions, schemas?: RecordSchemas): RecordResult {
  try {
    return judge(record, options, schemas);
  } catch (error) {
    const outcome: Outcome = {
      status: 'invalid',
      values: 0,
      diagnostics: 1,
      message: bounded(`${errorMessage(error)} (while judging)`),
    };
    const index = typeof record?.index === 'number' ? record.index : -1;
    const id = typeof record?.id === 'string' ? record.id : '';
    const model = typeof record?.model === 'string' ? record.model : '';
    return resultLine(
      { index, id, model, text: '' },
      options ?? ({} as JudgeOptions),
      same(outcome),
      outcome,
      undefined,
    );
  }
}

/**
 * A status in JSONSchemaBench's vocabulary (docs/decisions/039): what its evaluator reports for
 * the same record (`json.loads`, then the schema), refined where llmjson knows more.
 */
export function jsonSchemaBenchCode(result: Pick<RecordResult, 'status' | 'keyword'>): JsonSchemaBenchCode {
  switch (result.status) {
    case 'valid':
    case 'salvaged':
      return 'MATCH';
    case 'coerced':
      return 'SEMANTIC_ERROR';
    case 'invalid':
      return result.keyword === undefined ? 'SYNTAX_ERROR' : 'SEMANTIC_ERROR';
    case 'truncated':
      return 'SYNTAX_ERROR';
    case 'not-json':
      return 'JSON_NOT_FOUND_ERROR';
    case 'empty':
    case 'provider-error':
      return 'EMPTY_INPUT_OR_BAD_FORMAT';
    case 'unsupported-schema':
      return 'UNSUPPORTED_SCHEMA';
  }
}
