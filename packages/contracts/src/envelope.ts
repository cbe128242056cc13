/**
 * The envelope an API consumer receives for one prompt run:
 *
 * `{ status, result: { json?, schema_ref?, schema?, text, model?, provider?, usage?, finish_reason? }, error? }`
 *
 * - `status`: `succeeded`, `incomplete` (cut off at the token limit) or `failed` (the answer
 *   broke its contract).
 * - JSON and JSONL prompts: on success `result.json` is the validated document (JSONL: the
 *   array of valid objects) and `result.text` is its canonical serialization (RFC 8785, JSON
 *   Canonicalization Scheme: sorted keys, no whitespace, ECMAScript number formatting), so
 *   equal documents have equal text. Otherwise `result.text` is the model's answer as it came;
 *   a cut-off JSONL answer still has `result.json`, its complete valid lines.
 * - `result.schema`, for a JSON or JSONL prompt whose schema is a Standard Schema (given in
 *   code): `{ vendor, json_schema? }` — the vendor (`~standard.vendor`: `zod`, `valibot`,
 *   `arktype`…) and, where the vendor exports one, the JSON Schema of the input (draft
 *   2020-12). Omitted for JSON Schema prompts, whose schema is the file or object the caller
 *   already has (`schema_ref` names the file).
 * - Text prompts: `json`, `schema_ref` and `schema` are omitted; `result.text` is the answer.
 * - `error`, when not succeeded: `{ reason, detail?, message, errors?, path?, rule?, diagnostic? }`;
 *   `detail` `SCHEMA_VIOLATION` (with `failFast`) names the `path` and `rule` broken and carries
 *   the engine's `diagnostic`.
 * - `attempts`, when the call was made with `retries` or `failFast`: every call of the model, in
 *   order — `{ attempt, status, text, error?, diagnostics?, value?, correction?, model?, usage?,
 *   finish_reason? }`. `value` is what failed (the document, the JSONL line's object, or the
 *   document as far as it had streamed at a violation); `correction` the message sent back to
 *   the model for the next attempt. `result` and `error` are the last attempt's.
 */

import { writeFileSync } from 'node:fs';
import type { Diagnostic, JsonSchema, SchemaError } from '@llmjson/core';
import canonicalizeJson from 'canonicalize';
import type { ResponseType } from './llm.js';

/** The schema section of a result whose schema is a Standard Schema. */
export interface EnvelopeSchema {
  /** `~standard.vendor`: `zod`, `valibot`, `arktype`… */
  readonly vendor: string;
  /** The vendor's JSON Schema export of the input (draft 2020-12), when it has one. */
  readonly json_schema?: JsonSchema;
}

/** `T` is the type of `json`: the prompt's value (see `Envelope`). */
export interface EnvelopeResult<T = unknown> {
  readonly json?: T;
  readonly schema_ref?: string;
  readonly schema?: EnvelopeSchema;
  readonly text: string;
  readonly model?: string;
  readonly provider?: string;
  readonly usage?: Readonly<Record<string, unknown>>;
  readonly finish_reason?: string;
}

export interface EnvelopeError {
  readonly reason: 'CONTRACT_VALIDATION_FAILED' | 'INCOMPLETE';
  /**
   * `SCHEMA_VIOLATION`: `failFast` ended the call at the first violation (see `ContractViolation`).
   * `NUMBER_OUT_OF_RANGE`: the answer holds a number beyond the double range (`1e999` reads as
   * Infinity), which JSON cannot carry.
   */
  readonly detail?: 'NOT_JSON' | 'SCHEMA_MISMATCH' | 'SCHEMA_VIOLATION' | 'NUMBER_OUT_OF_RANGE';
  readonly message: string;
  readonly errors?: readonly SchemaError[];
  /** `SCHEMA_VIOLATION`: JSON Pointer of the offending value (inside the line's object for JSONL). */
  readonly path?: string;
  /** `SCHEMA_VIOLATION`: the schema rule broken (`type`, `enum`, `required`…). */
  readonly rule?: string;
  /** `SCHEMA_VIOLATION`: the diagnostic that ended the call. */
  readonly diagnostic?: Diagnostic;
}

/** One call of the model (`Envelope.attempts`). */
export interface EnvelopeAttempt {
  /** 1-based. */
  readonly attempt: number;
  readonly status: 'succeeded' | 'incomplete' | 'failed';
  /** The answer as it came (as far as it was read, when `failFast` ended it). */
  readonly text: string;
  readonly error?: EnvelopeError;
  readonly diagnostics?: readonly Diagnostic[];
  /** What failed: the document, the JSONL line's object, or the partial document at a violation. */
  readonly value?: unknown;
  /** The correction sent to the model after this attempt (absent on the last one). */
  readonly correction?: string;
  readonly model?: string;
  readonly usage?: Readonly<Record<string, unknown>>;
  readonly finish_reason?: string;
}

/**
 * `T` is the type of `result.json`: `unknown` by default; for a prompt defined in code with a
 * typed schema, the prompt runner gives the document's type (`json`) or the array of the
 * objects' type (`jsonl`), and `never` for a text prompt, which has no `json`.
 */
export interface Envelope<T = unknown> {
  readonly status: 'succeeded' | 'incomplete' | 'failed';
  readonly result: EnvelopeResult<T>;
  readonly error?: EnvelopeError;
  /** Lines dropped or recovered (JSONL), and other diagnostics of the answer. */
  readonly diagnostics?: readonly Diagnostic[];
  readonly warnings?: readonly string[];
  /** Every call of the model, when the call was made with `retries` or `failFast` (see the header). */
  readonly attempts?: readonly EnvelopeAttempt[];
}

/** RFC 8785 canonical JSON of a value. */
export function canonicalJson(value: unknown): string {
  const text = (canonicalizeJson as (value: unknown) => string | undefined)(value);
  if (text === undefined) throw new TypeError('the value has no JSON representation');
  return text;
}

export interface EnvelopeInput<T = unknown> {
  readonly responseType: ResponseType;
  readonly status: Envelope['status'];
  /** The validated value (json, jsonl), when succeeded. */
  readonly json?: T;
  readonly schemaRef?: string | undefined;
  /** The schema section, for a Standard Schema prompt. */
  readonly schema?: EnvelopeSchema | undefined;
  /** The answer as it came. */
  readonly text: string;
  readonly model?: string | undefined;
  readonly provider?: string | undefined;
  readonly usage?: Readonly<Record<string, unknown>> | undefined;
  readonly finishReason?: string | undefined;
  readonly error?: EnvelopeError | undefined;
  readonly diagnostics?: readonly Diagnostic[] | undefined;
  readonly warnings?: readonly string[] | undefined;
  readonly attempts?: readonly EnvelopeAttempt[] | undefined;
}

/** Builds the envelope; fields that are unknown are omitted, never `null`. */
export function createEnvelope<T = unknown>(input: EnvelopeInput<T>): Envelope<T> {
  const structured = input.responseType !== 'text';
  // A failed answer has no document; a cut-off JSONL answer keeps its complete, valid lines.
  const hasJson = structured && input.status !== 'failed' && input.json !== undefined;
  const result: Record<string, unknown> = {};
  if (hasJson) result.json = input.json;
  if (structured && input.schemaRef !== undefined) result.schema_ref = input.schemaRef;
  if (structured && input.schema !== undefined) result.schema = input.schema;
  let status = input.status;
  let error = input.error;
  let text = input.text;
  if (hasJson && status === 'succeeded') {
    try {
      text = canonicalJson(input.json);
    } catch (cause) {
      // A number beyond the double range parses to Infinity, which JSON cannot carry.
      status = 'failed';
      error = {
        reason: 'CONTRACT_VALIDATION_FAILED',
        detail: 'NUMBER_OUT_OF_RANGE',
        message: `the answer holds a number beyond the double range (about ±1.8e308), read as Infinity, which JSON cannot carry (${(cause as Error).message})`,
      };
      delete result.json;
    }
  }
  result.text = text;
  if (input.model !== undefined) result.model = input.model;
  if (input.provider !== undefined) result.provider = input.provider;
  if (input.usage !== undefined) result.usage = input.usage;
  if (input.finishReason !== undefined) result.finish_reason = input.finishReason;
  const envelope: Record<string, unknown> = { status, result };
  if (error !== undefined && status !== 'succeeded') envelope.error = error;
  if (input.diagnostics !== undefined && input.diagnostics.length > 0) envelope.diagnostics = input.diagnostics;
  if (input.warnings !== undefined && input.warnings.length > 0) envelope.warnings = input.warnings;
  if (input.attempts !== undefined) envelope.attempts = input.attempts;
  return envelope as unknown as Envelope<T>;
}

/**
 * Writes `envelope.result.text` (for JSON and JSONL prompts, the canonical JSON) to `file`,
 * only when the run succeeded. Returns true when it wrote the file.
 */
export function writeOutputFile(envelope: Envelope, file: string): boolean {
  if (envelope.status !== 'succeeded') return false;
  writeFileSync(file, envelope.result.text, 'utf8');
  return true;
}
