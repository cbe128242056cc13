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
 */

import {
  type CompiledSchema,
  ConfigurationError,
  DEFAULT_MAX_DEPTH,
  type Diagnostic,
  depthExceeds,
  extractJson,
  type JsonlOptions,
  mayExceedDepth,
  parseJsonl,
  type SalvagedValue,
  type SchemaInput,
  type SchemaValue,
  type ValidationResult,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { type ContractFailure, FailureDetail, type IncompleteAnswer } from './errors.js';
import { compileSchemaInput } from './schema-registry.js';

/** Finish reasons that mean the answer was cut off at the token limit, across providers. */
const TRUNCATION_REASONS = new Set(['length', 'max_tokens', 'MAX_TOKENS', 'max_output_tokens', 'model_length']);

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
  /** Present when the document was read only after a documented recovery (a trailing comma). */
  readonly recovered?: true;
  /** The `recovered` diagnostics of the document (present with `recovered`). */
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
}

function failure(detail: FailureDetail, message: string, errors: ContractFailure['errors'] = []): ContractFailure {
  return { status: 'failed', reason: 'CONTRACT_VALIDATION_FAILED', detail, message, errors };
}

function success(found: Pick<SalvagedValue, 'value' | 'source'>, branch: string | undefined): JsonSuccess {
  const outcome = { status: 'succeeded' as const, json: found.value, source: found.source };
  return branch === undefined ? outcome : { ...outcome, branch };
}

/** A salvaged document's success, with its recovery notes when it needed one. */
function salvaged(found: SalvagedValue, branch: string | undefined, diagnostics: readonly Diagnostic[]): JsonSuccess {
  const outcome = success(found, branch);
  if (found.recovered !== true && found.repaired !== true) return outcome;
  // The notes of this value: inside it, or (a comma after the document) after it.
  const notes = diagnostics.filter(
    (d) => d.reason === 'recovered' && d.offset >= found.start && (d.offset < found.end || found.source === 'document'),
  );
  return { ...outcome, recovered: true, diagnostics: notes };
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
  // Type-level only: the document returned is one the schema accepted.
  return parseJson(text, options) as JsonOutcome<SchemaValue<S>>;
}

function parseJson(text: string, options: ParseJsonOptions): JsonOutcome {
  if (isTruncated(options.finishReason)) return incompleteOutcome(options.finishReason as string);
  const { schema, discriminator } = options;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const compileOptions = discriminator === undefined ? {} : { discriminator };
  const compiled = schema === undefined ? undefined : compileSchemaInput(schema, compileOptions);
  if (options.tolerate === 'none') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return failure(FailureDetail.notJson, `the answer is not one JSON document: ${(error as Error).message}`);
    }
    // The depth guard comes before validation: a recursive schema makes the validator recurse.
    if (mayExceedDepth(text.length, maxDepth) && depthExceeds(json, maxDepth)) return tooDeep(maxDepth, 'the answer');
    const result = compiled === undefined ? undefined : validate(compiled, json);
    if (result !== undefined && !result.valid)
      return failure(FailureDetail.schemaMismatch, result.message, result.errors);
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
  if (first.valid) return salvaged(preferred, first.branch, diagnostics);
  diagnostics.length = 0;
  const matching = extractJson(text, {
    schema,
    compileJsonSchema: compileSchema,
    ...compileOptions,
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
  options: Pick<JsonlOptions<S>, 'schema' | 'discriminator' | 'maxLineLength'> & {
    finishReason?: string | undefined;
  } = {},
): JsonlOutcome<SchemaValue<S>> {
  const { finishReason, ...jsonl } = options;
  const result = parseJsonl(text, { compileJsonSchema: compileSchema, ...jsonl });
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
