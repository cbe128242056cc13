/**
 * Response types: what a model's answer must be, and the outcome when it is not.
 *
 * - `json`: one JSON document matching the schema. By default a surrounding fence or prose is
 *   tolerated (the document is found by salvage, directed by the schema: the first candidate
 *   in the order whole text, fence, inline code, embedded that matches wins); with
 *   `tolerate: 'none'` the whole text must be the document. Failures are `NOT_JSON` (nothing
 *   to read) or `SCHEMA_MISMATCH` (the preferred candidate, with the validator's errors).
 * - `jsonl`: one object per line; invalid lines are dropped and reported, the rest are the
 *   result (an empty result is `[]` with a warning, still a success).
 * - An answer the provider cut off at the token limit is `incomplete` whatever its text
 *   looks like: it is never parsed or repaired into a complete-looking document.
 */

import {
  compileSchema,
  type Diagnostic,
  extractJson,
  type JsonlOptions,
  type JsonSchema,
  parseJsonl,
} from '@llmjson/core';
import { type ContractFailure, FailureDetail, type IncompleteAnswer } from './errors.js';

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

export interface JsonSuccess {
  readonly status: 'succeeded';
  readonly json: unknown;
  /** Discriminator branch the document matched. */
  readonly branch?: string;
  /** Where the document was found: the whole text, a fence, inline code, or prose. */
  readonly source: 'document' | 'fence' | 'inline' | 'embedded';
}

export type JsonOutcome = JsonSuccess | ContractFailure | IncompleteAnswer;

export interface ParseJsonOptions {
  /** The document's schema. Without it any JSON document succeeds. */
  readonly schema?: JsonSchema | undefined;
  /** Discriminator for a `oneOf` schema (detected by default; `false` for off). */
  readonly discriminator?: string | false | undefined;
  /** `'fence-and-prose'` (default): find the document in fences or prose. `'none'`: the whole text. */
  readonly tolerate?: 'fence-and-prose' | 'none' | undefined;
  /** The provider's finish reason: a truncation reason makes the outcome `incomplete`. */
  readonly finishReason?: string | undefined;
}

function failure(detail: FailureDetail, message: string, errors: ContractFailure['errors'] = []): ContractFailure {
  return { status: 'failed', reason: 'CONTRACT_VALIDATION_FAILED', detail, message, errors };
}

function success(json: unknown, source: JsonSuccess['source'], branch: string | undefined): JsonSuccess {
  return branch === undefined ? { status: 'succeeded', json, source } : { status: 'succeeded', json, source, branch };
}

/**
 * Reads the answer of a `json` prompt. Never throws for a bad answer: the outcome says what
 * happened. Throws `ConfigurationError` (from core) only for a broken schema.
 */
export function parseJsonResponse(text: string, options: ParseJsonOptions = {}): JsonOutcome {
  if (isTruncated(options.finishReason)) return incompleteOutcome(options.finishReason as string);
  const { schema, discriminator } = options;
  const compileOptions = discriminator === undefined ? {} : { discriminator };
  const compiled = schema === undefined ? undefined : compileSchema(schema, compileOptions);
  if (options.tolerate === 'none') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return failure(FailureDetail.notJson, `the answer is not one JSON document: ${(error as Error).message}`);
    }
    const result = compiled?.validate(json);
    if (result !== undefined && !result.valid)
      return failure(FailureDetail.schemaMismatch, result.message, result.errors);
    return success(json, 'document', result?.branch);
  }
  // Salvage finds the candidates in order of preference; the first that matches wins.
  const preferred = extractJson(text);
  if (preferred === undefined) {
    return failure(
      FailureDetail.notJson,
      text.trim() === ''
        ? 'the answer is empty'
        : 'no JSON document in the answer (not as the whole text, in a fence, in inline code or in prose)',
    );
  }
  if (compiled === undefined || schema === undefined) return success(preferred.value, preferred.source, undefined);
  const first = compiled.validate(preferred.value);
  if (first.valid) return success(preferred.value, preferred.source, first.branch);
  const matching = extractJson(text, { schema, ...compileOptions });
  if (matching !== undefined) return success(matching.value, matching.source, matching.branch);
  return failure(FailureDetail.schemaMismatch, first.message, first.errors);
}

export interface JsonlOutcome {
  readonly status: 'succeeded' | 'incomplete';
  /** The valid objects, in order (possibly none). */
  readonly json: unknown[];
  /** Every dropped or recovered line, and the cut line of an incomplete answer. */
  readonly diagnostics: readonly Diagnostic[];
  /** `no valid objects in the answer` when `json` is empty. */
  readonly warnings: readonly string[];
  readonly finishReason?: string;
}

/** Reads the answer of a `jsonl` prompt: valid objects kept, invalid lines dropped and reported. */
export function parseJsonlResponse(
  text: string,
  options: Pick<JsonlOptions, 'schema' | 'discriminator' | 'maxLineLength'> & {
    finishReason?: string | undefined;
  } = {},
): JsonlOutcome {
  const { finishReason, ...jsonl } = options;
  const result = parseJsonl(text, jsonl);
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
