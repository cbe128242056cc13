/**
 * Response types: what a model's answer must be, and the outcome when it is not.
 *
 * - `json`: one JSON document matching the schema. By default a surrounding fence or prose is
 *   tolerated (the document is found by salvage, directed by the schema: the first candidate
 *   in the order whole text, fence, inline code, embedded that matches wins) and salvage's
 *   documented recoveries apply (a trailing comma before `}`/`]`, or after the document), so a
 *   fenced object ending in `,\n}` is that object, never the first array inside it; a
 *   recovered document succeeds with `recovered: true` and its `recovered` diagnostics. With
 *   `tolerate: 'none'` the whole text must be the document, exactly as `JSON.parse` reads it.
 *   Failures are `NOT_JSON` (nothing usable to read) or `SCHEMA_MISMATCH` (the preferred
 *   candidate, with the validator's errors).
 * - Schemas: a JSON Schema (ajv) or a Standard Schema (zod, valibot, arktype…), routed as
 *   core's engines route them; the vendor's issues are errors with a JSON Pointer path, and the
 *   message reads `at /path: message` as ajv's do. A Standard Schema that validates
 *   asynchronously is a `ConfigurationError` (the engines are synchronous), not a mismatch.
 * - Depth guard: a document nested deeper than `maxDepth` (default 512 levels) is never
 *   validated or returned — it is `NOT_JSON`, with a message naming the limit — so that no
 *   validator following a recursive schema, and no printer, can overflow the stack on it.
 *   (`NOT_JSON` rather than a new detail: the envelope, `invoke`'s typed error and the CLI
 *   already treat it as "no usable JSON document", as for a number beyond the double range.)
 * - Never throws for an answer: a validator that throws on a value (a bug, a stack overflow)
 *   fails that value only — it is a `SCHEMA_MISMATCH` unless another candidate matches.
 * - `jsonl`: one object per line; invalid lines are dropped and reported, the rest are the
 *   result (an empty result is `[]` with a warning, still a success).
 * - An answer the provider cut off at the token limit is `incomplete` whatever its text
 *   looks like: it is never parsed or repaired into a complete-looking document.
 * - Coercion (`coerce: true | CoercionRule[]`, opt-in, docs/decisions/018 section 4): a
 *   document (or a JSONL line) the schema rejects as written is repaired where the schema makes
 *   the repair unambiguous (`"5"` for a number…) and validated again; a coerced `json`
 *   document succeeds with `recovered: true` and one `recovered` diagnostic per repair (`rule`,
 *   `path`) in `diagnostics`, a coerced JSONL line is kept after its `recovered` diagnostics. A
 *   coerced candidate counts as matching for the order of preference (as in core's
 *   `extractJson`). What coercion cannot make valid fails exactly as without it. `coerce`
 *   needs a schema (else `ConfigurationError`), and with a Standard Schema its JSON Schema export.
 */

import {
  type CoerceOption,
  type CoercionFix,
  type CompiledSchema,
  ConfigurationError,
  ConfigurationErrorCode,
  DEFAULT_MAX_DEPTH,
  type Diagnostic,
  extractJson,
  type JsonlOptions,
  parseJsonl,
  type SalvagedValue,
  type SchemaInput,
  type SchemaValue,
  type ValidationResult,
  withCoercion,
} from '@llmjson/core';
import { NODE_DEFAULTS } from '@llmjson/core/ajv';
import {
  checkChoice,
  checkOptionNames,
  coercionRules,
  depthExceeds,
  excerptAround,
  isStandardSchema,
  jsonSchemaOf,
  mayExceedDepth,
  quoteInput,
} from '@llmjson/core/internal';
import { type ContractFailure, FailureDetail, type IncompleteAnswer } from './errors.js';
import { CONTRACTS_OPTION_NAMES } from './option-names.js';
import { compileSchemaInput } from './schema-registry.js';

/** Finish reasons that mean the answer was cut off at the token limit, across providers. */
const TRUNCATION_REASONS = new Set([
  'length',
  'max_tokens',
  'MAX_TOKENS',
  'max_output_tokens',
  'model_length',
  // Bedrock ConverseStream: the input and the answer filled the model's context window.
  'model_context_window_exceeded',
  // Amazon Titan on Bedrock InvokeModel (`completionReason`).
  'LENGTH',
]);

/** True when a provider's finish reason says the answer was cut off at the token limit. */
export function isTruncated(finishReason: string | undefined | null): boolean {
  return typeof finishReason === 'string' && TRUNCATION_REASONS.has(finishReason);
}

export function incompleteOutcome(finishReason: string): IncompleteAnswer {
  return {
    status: 'incomplete',
    reason: 'INCOMPLETE',
    finishReason,
    message: `the answer was cut off at the token limit (finish reason "${finishReason}"); raise the token limit or ask for less`,
  };
}

/** `T` is the document's type: `SchemaValue<S>` for a `schema` of type `S` (`unknown` by default). */
export interface JsonSuccess<T = unknown> {
  readonly status: 'succeeded';
  /** The document, which matched the schema (typed from it; see `parseJsonResponse`). */
  readonly json: T;
  /** Discriminator branch the document matched. */
  readonly branch?: string;
  /** Where the document was found: the whole text, a fence, inline code, or prose. */
  readonly source: 'document' | 'fence' | 'inline' | 'embedded';
  /**
   * Present when the document was read only after a documented recovery (a trailing comma), or
   * matched its schema only once coerced (`coerce`).
   */
  readonly recovered?: true;
  /** The `recovered` diagnostics of the document (present with `recovered`; a coercion's carry `rule` and `path`). */
  readonly diagnostics?: readonly Diagnostic[];
}

export type JsonOutcome<T = unknown> = JsonSuccess<T> | ContractFailure | IncompleteAnswer;

/** `S` is the schema's type, so that the document comes out typed (`SchemaValue<S>`). */
export interface ParseJsonOptions<S extends SchemaInput = SchemaInput> {
  /**
   * The document's schema: a JSON Schema, or a Standard Schema (zod 4, valibot 1, arktype 2…)
   * validated by its vendor, whose issues are the same `SCHEMA_MISMATCH` errors. Without it
   * any JSON document succeeds.
   */
  readonly schema?: S | undefined;
  /** Discriminator for a `oneOf` schema or a Standard Schema's union (detected by default; `false` for off). */
  readonly discriminator?: string | false | undefined;
  /** `'fence-and-prose'` (default): find the document in fences or prose. `'none'`: the whole text. */
  readonly tolerate?: 'fence-and-prose' | 'none' | undefined;
  /** The provider's finish reason: a truncation reason makes the outcome `incomplete`. */
  readonly finishReason?: string | undefined;
  /** Deepest nesting of the document, in levels (`[]` is 1). Default 512; deeper is `NOT_JSON`. */
  readonly maxDepth?: number | undefined;
  /**
   * Repair what the schema makes unambiguous in a document it rejects as written (`true`: every
   * coercion; a list: those), validate again, and report each repair as a `recovered`
   * diagnostic with `rule` and `path` (the success then has `recovered: true`). Needs `schema`.
   * Default `false`: the document is never changed.
   */
  readonly coerce?: CoerceOption | undefined;
}

function failure(detail: FailureDetail, message: string, errors: ContractFailure['errors'] = []): ContractFailure {
  return { status: 'failed', reason: 'CONTRACT_VALIDATION_FAILED', detail, message, errors };
}

function success(found: Pick<SalvagedValue, 'value' | 'source'>, branch: string | undefined): JsonSuccess {
  const outcome = { status: 'succeeded' as const, json: found.value, source: found.source };
  return branch === undefined ? outcome : { ...outcome, branch };
}

/**
 * A salvaged document's success, with its recovery notes when it needed one: the scanner's (a
 * trailing comma), and its coercions — those salvage reported at the value's start (`rule`), or
 * `fixes`, made here when the value is coerced after salvage found it.
 */
function salvaged(
  found: SalvagedValue,
  branch: string | undefined,
  diagnostics: readonly Diagnostic[],
  fixes: readonly Diagnostic[] = [],
): JsonSuccess {
  const outcome = success(found, branch);
  // The notes of this value: inside it, or (a comma after the document) after it.
  const inValue = (d: Diagnostic) =>
    d.reason === 'recovered' && d.offset >= found.start && (d.offset < found.end || found.source === 'document');
  const notes =
    found.recovered === true || found.repaired === true
      ? diagnostics.filter(inValue)
      : diagnostics.filter((d) => inValue(d) && d.rule !== undefined && d.offset === found.start);
  if (notes.length === 0 && fixes.length === 0) return outcome;
  return { ...outcome, recovered: true, diagnostics: [...notes, ...fixes] };
}

/**
 * `compiled` with coercion (core's `withCoercion`) when `coerce` turns any on, guided by the
 * JSON Schema (a Standard Schema's export); else `compiled`. Throws ConfigurationError, as
 * core's engines do, for an invalid `coerce`, `coerce` without a schema, or a Standard Schema
 * without a JSON Schema export.
 */
export function coercingValidator(
  compiled: CompiledSchema | undefined,
  schema: SchemaInput | undefined,
  coerce: unknown,
): CompiledSchema | undefined {
  const rules = coercionRules(coerce);
  if (rules === undefined) return compiled;
  if (compiled === undefined || schema === undefined) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      'coerce needs a schema: coercion repairs only what a schema makes unambiguous',
    );
  }
  if (!isStandardSchema(schema)) return withCoercion(compiled, schema, rules);
  const guide = jsonSchemaOf(schema);
  if (guide === undefined) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `coerce needs the schema's JSON Schema to know what to repair, and the ${quoteInput(String(schema['~standard'].vendor))} schema exports none; remove coerce or use a schema with a JSON Schema export (zod 4, arktype 2, valibot through @valibot/to-json-schema)`,
    );
  }
  return withCoercion(compiled, guide, rules);
}

/** The `recovered` diagnostics of the coercions of a document that starts at `offset` (its text: `text`). */
function coercionNotes(
  result: ValidationResult,
  offset: number,
  text: string,
): { value: unknown; notes: Diagnostic[] } | undefined {
  if (!result.valid || result.fixes === undefined) return undefined;
  const notes = result.fixes.map(
    (fix: CoercionFix): Diagnostic => ({
      reason: 'recovered',
      offset,
      excerpt: excerptAround(text),
      message: fix.message,
      path: fix.path,
      rule: fix.rule,
      ...(result.branch === undefined ? {} : { branch: result.branch }),
    }),
  );
  return { value: result.value, notes };
}

function tooDeep(maxDepth: number, where: string): ContractFailure {
  return failure(
    FailureDetail.notJson,
    `${where} is nested deeper than maxDepth (${maxDepth} levels); it was not read, so that nothing can overflow the stack on it`,
  );
}

/**
 * Validates without letting a validator's exception escape: it fails this value only. A
 * ConfigurationError is the schema's, not the value's (a Standard Schema that went async), and
 * propagates, as the salvage scanner lets it through.
 */
function validate(compiled: CompiledSchema, value: unknown): ValidationResult {
  try {
    return compiled.validate(value);
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { valid: false, errors: [], message: `the schema validator failed on the document (${why})` };
  }
}

/**
 * Reads the answer of a `json` prompt. Never throws for a bad answer: the outcome says what
 * happened. Throws `ConfigurationError` (from core) only for a broken schema or option.
 *
 * A success's `json` is typed from `schema` (`SchemaValue`, docs/decisions/016): a Standard
 * Schema's input type (the parsed JSON the vendor accepted, not its transformed output), the
 * type of a JSON Schema written `as const`, else (no schema, a `JsonSchema`, a `$ref`) `unknown`.
 */
export function parseJsonResponse<S extends SchemaInput = SchemaInput>(
  text: string,
  options: ParseJsonOptions<S> = {},
): JsonOutcome<SchemaValue<S>> {
  checkOptionNames('parseJsonResponse', options, CONTRACTS_OPTION_NAMES.parseJsonResponse);
  checkChoice('tolerate', options.tolerate, ['fence-and-prose', 'none']);
  // Type-level only: the document returned is one the schema accepted.
  return parseJson(text, options) as JsonOutcome<SchemaValue<S>>;
}

function parseJson(text: string, options: ParseJsonOptions): JsonOutcome {
  if (isTruncated(options.finishReason)) return incompleteOutcome(options.finishReason as string);
  const { schema, discriminator } = options;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const compileOptions = discriminator === undefined ? {} : { discriminator };
  const plain = schema === undefined ? undefined : compileSchemaInput(schema, compileOptions);
  // With `coerce`, a document the schema rejects as written is coerced and validated again.
  const compiled = coercingValidator(plain, schema, options.coerce);
  const coerce =
    compiled === plain || options.coerce === undefined
      ? {}
      : { coerce: options.coerce, coerceWith: NODE_DEFAULTS.coerceWith };
  if (options.tolerate === 'none') {
    let json: unknown;
    // No stack trace for the exception (its message is all that is used): most of what a failing
    // JSON.parse costs is capturing the stack, about 7 of its 10 µs on Node 20.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return failure(FailureDetail.notJson, `the answer is not one JSON document: ${(error as Error).message}`);
    } finally {
      Error.stackTraceLimit = limit;
    }
    // The depth guard comes before validation: a recursive schema makes the validator recurse.
    if (mayExceedDepth(text.length, maxDepth) && depthExceeds(json, maxDepth)) return tooDeep(maxDepth, 'the answer');
    const result = compiled === undefined ? undefined : validate(compiled, json);
    if (result !== undefined && !result.valid)
      return failure(FailureDetail.schemaMismatch, result.message, result.errors);
    const start = text.length - text.trimStart().length;
    const coerced = result === undefined ? undefined : coercionNotes(result, start, text.trim());
    if (coerced !== undefined) {
      return {
        ...success({ value: coerced.value, source: 'document' }, result?.branch),
        recovered: true,
        diagnostics: coerced.notes,
      };
    }
    return success({ value: json, source: 'document' }, result?.branch);
  }
  // Salvage finds the candidates in order of preference; the first that matches wins. Its
  // depth guard has already left out (and reported) every value nested too deep.
  const diagnostics: Diagnostic[] = [];
  const salvageOptions = { maxDepth, onDiagnostic: (d: Diagnostic) => diagnostics.push(d) };
  const preferred = extractJson(text, salvageOptions);
  if (preferred === undefined) {
    if (diagnostics.some((d) => d.reason === 'too-deep')) return tooDeep(maxDepth, 'the JSON document in the answer');
    return failure(
      FailureDetail.notJson,
      text.trim() === ''
        ? 'the answer is empty'
        : 'no JSON document in the answer (not as the whole text, in a fence, in inline code or in prose)',
    );
  }
  if (compiled === undefined || schema === undefined) return salvaged(preferred, undefined, diagnostics);
  const first = validate(compiled, preferred.value);
  if (first.valid) {
    const coerced = coercionNotes(first, preferred.start, text.slice(preferred.start, preferred.end));
    if (coerced === undefined) return salvaged(preferred, first.branch, diagnostics);
    return salvaged({ ...preferred, value: coerced.value }, first.branch, diagnostics, coerced.notes);
  }
  diagnostics.length = 0;
  const matching = extractJson(text, {
    schema,
    compileJsonSchema: NODE_DEFAULTS.compileJsonSchema,
    ...compileOptions,
    ...coerce,
    ...salvageOptions,
  });
  if (matching !== undefined) return salvaged(matching, matching.branch, diagnostics);
  return failure(FailureDetail.schemaMismatch, first.message, first.errors);
}

/** `T` is the type of each object: `SchemaValue<S>` for a `schema` of type `S` (`unknown` by default). */
export interface JsonlOutcome<T = unknown> {
  readonly status: 'succeeded' | 'incomplete';
  /** The valid objects, in order (possibly none). */
  readonly json: T[];
  /** Every dropped or recovered line, and the cut line of an incomplete answer. */
  readonly diagnostics: readonly Diagnostic[];
  /** `no valid objects in the answer` when `json` is empty. */
  readonly warnings: readonly string[];
  readonly finishReason?: string;
}

/**
 * Reads the answer of a `jsonl` prompt: valid objects kept, invalid lines dropped and reported.
 * `schema` is a JSON Schema or a Standard Schema, as for `parseJsonResponse`, and types the
 * objects the same way (`SchemaValue<S>`; `unknown` without a typed schema).
 */
export function parseJsonlResponse<S extends SchemaInput = SchemaInput>(
  text: string,
  options: Pick<JsonlOptions<S>, 'schema' | 'discriminator' | 'maxLineLength' | 'coerce'> & {
    finishReason?: string | undefined;
  } = {},
): JsonlOutcome<SchemaValue<S>> {
  checkOptionNames('parseJsonlResponse', options, CONTRACTS_OPTION_NAMES.parseJsonlResponse);
  const { finishReason, ...jsonl } = options;
  // With `coerce`, a line the schema rejects as written is coerced (the decoder reports each repair).
  const result = parseJsonl(text, {
    compileJsonSchema: NODE_DEFAULTS.compileJsonSchema,
    coerceWith: NODE_DEFAULTS.coerceWith,
    ...jsonl,
  });
  const warnings = result.values.length === 0 ? ['no valid objects in the answer'] : [];
  const status = isTruncated(finishReason) ? 'incomplete' : 'succeeded';
  return {
    status,
    json: result.values,
    diagnostics: result.diagnostics,
    warnings,
    ...(finishReason === undefined ? {} : { finishReason }),
  };
}
