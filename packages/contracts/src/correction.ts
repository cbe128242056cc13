/**
 * Retries with feedback: what the prompt runner tells the model after an answer broke its
 * contract, so that the next attempt can fix exactly that.
 *
 * An `AttemptFailure` names the attempt, the path and the rule, quotes the offending part of the
 * answer and describes, compactly, what the schema expects at that path. The correction message
 * is made from it by the `correction` option: a function `(failure) => string`, or a template
 * string whose `{{name}}` placeholders are the failure's fields (`attempt`, `detail`, `path`,
 * `rule`, `message`, `excerpt`, `expected`, `line`, `format`); the default is `defaultCorrection`.
 *
 * Everything quoted is size-capped (`MAX_EXCERPT_LENGTH`, `MAX_EXPECTED_LENGTH` characters), so a
 * huge answer or schema never turns into a huge correction.
 */

import {
  ConfigurationError,
  ConfigurationErrorCode,
  type Diagnostic,
  type JsonSchema,
  type SchemaError,
  type SchemaInput,
} from '@llmjson/core';
import { isStandardSchema, jsonSchemaOf, quoteInput, subSchemaAt } from '@llmjson/core/internal';

/** Longest excerpt of the answer a correction quotes, in characters. */
export const MAX_EXCERPT_LENGTH = 160;
/** Longest description of the expected sub-schema a correction gives, in characters. */
export const MAX_EXPECTED_LENGTH = 400;

/** Why one attempt failed its contract: the input of the correction message. */
export interface AttemptFailure {
  /** The attempt that failed, 1-based. */
  readonly attempt: number;
  readonly promptId: string;
  readonly responseType: 'json' | 'jsonl';
  /** `NOT_JSON`, `SCHEMA_MISMATCH`, or `SCHEMA_VIOLATION` (`failFast`). */
  readonly detail: 'NOT_JSON' | 'SCHEMA_MISMATCH' | 'SCHEMA_VIOLATION';
  /** One line saying what is wrong. */
  readonly message: string;
  /** JSON Pointer of the offending value (`` for the root; inside the line's object for JSONL). */
  readonly path: string;
  /** The schema rule broken (`type`, `required`, `enum`…); `json` when the answer is not JSON. */
  readonly rule: string;
  /** The JSONL line, 1-based. */
  readonly line?: number;
  /** The offending part of the answer (at most `MAX_EXCERPT_LENGTH` characters). */
  readonly excerpt: string;
  /** What the schema expects at `path`: its sub-schema as compact JSON (at most `MAX_EXPECTED_LENGTH` characters). */
  readonly expected?: string;
  readonly errors: readonly SchemaError[];
  /** The diagnostic behind a JSONL or `failFast` failure. */
  readonly diagnostic?: Diagnostic;
}

/** The `correction` option: a function of the failure, or a template with `{{name}}` placeholders. */
export type Correction = string | ((failure: AttemptFailure) => string);

/** The placeholders a template string may use. */
export const CORRECTION_PLACEHOLDERS = [
  'attempt',
  'detail',
  'path',
  'rule',
  'message',
  'excerpt',
  'expected',
  'line',
  'format',
] as const;

/** `a JSON document` or `one JSON object per line`: what the prompt asks for. */
function formatOf(failure: AttemptFailure): string {
  return failure.responseType === 'jsonl' ? 'one JSON object per line' : 'one JSON document';
}

/**
 * The default correction: what broke, where, the offending excerpt and the expected shape, and
 * the instruction to answer again in full. For example:
 *
 * ```text
 * Your previous answer does not match the required JSON schema.
 * At /sections/0/start_line (rule "type"): must be integer
 * Offending part: "three"
 * Expected at /sections/0/start_line: {"type":"integer","minimum":1}
 * Answer again with the complete corrected answer (one JSON document), and nothing else.
 * ```
 */
export function defaultCorrection(failure: AttemptFailure): string {
  const where = failure.path === '' ? 'the root' : failure.path;
  const lines =
    failure.detail === 'NOT_JSON'
      ? [`Your previous answer is not valid JSON: ${failure.message}`]
      : [
          `Your previous answer does not match the required JSON schema.`,
          `${failure.line === undefined ? '' : `Line ${failure.line}: `}At ${where} (rule "${failure.rule}"): ${failure.message}`,
        ];
  if (failure.excerpt !== '') lines.push(`Offending part: ${failure.excerpt}`);
  if (failure.expected !== undefined) lines.push(`Expected at ${where}: ${failure.expected}`);
  lines.push(`Answer again with the complete corrected answer (${formatOf(failure)}), and nothing else.`);
  return lines.join('\n');
}

/** Throws core's ConfigurationError for a template with an unknown placeholder (or an option that is neither). */
export function checkCorrection(correction: unknown, where: string): void {
  if (correction === undefined || typeof correction === 'function') return;
  if (typeof correction !== 'string') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `${where}: correction must be a template string or a function (failure) => string`,
    );
  }
  for (const [, name] of correction.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)) {
    if (!(CORRECTION_PLACEHOLDERS as readonly string[]).includes(name as string)) {
      throw new ConfigurationError(
        ConfigurationErrorCode.optionInvalid,
        `${where}: the correction template uses {{${quoteInput(name as string)}}}; it may use ${CORRECTION_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}`,
      );
    }
  }
}

/** The correction message for a failure. */
export function renderCorrection(correction: Correction | undefined, failure: AttemptFailure): string {
  if (correction === undefined) return defaultCorrection(failure);
  if (typeof correction === 'function') return correction(failure);
  // Only the placeholders (never `{{constructor}}` or another member the failure inherits).
  checkCorrection(correction, 'renderCorrection');
  return correction.replace(/\{\{\s*([^}]*?)\s*\}\}/g, (_, name: string) => {
    if (name === 'format') return formatOf(failure);
    const value = Object.hasOwn(failure, name) ? (failure as unknown as Record<string, unknown>)[name] : undefined;
    return value === undefined ? '' : String(value);
  });
}

/** `text` cut to `max` characters, marked with an ellipsis. */
function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A value quoted as compact JSON, capped. */
export function excerptOf(value: unknown): string {
  if (value === undefined) return '';
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  return cap(text ?? String(value), MAX_EXCERPT_LENGTH);
}

/** `excerptOf`, for raw text. */
export function excerptOfText(text: string): string {
  return cap(text.trim(), MAX_EXCERPT_LENGTH);
}

/** The segments of a JSON Pointer (`/a/0` → `['a', '0']`). */
function segments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a JSON Pointer in `value` (own members only), or undefined. */
export function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const segment of segments(pointer)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** Keys that say nothing about the shape: left out of the description. */
const NOISE = new Set(['title', 'description', '$comment', 'examples', '$schema', '$id', 'default']);

function strip(schema: unknown, depth: number): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (depth > 6) return '…';
  if (Array.isArray(schema)) return schema.map((s) => strip(s, depth + 1));
  // No prototype: a schema key `__proto__` (a property named so) is copied as a key.
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(schema)) {
    if (NOISE.has(key)) continue;
    out[key] = strip(value, depth + 1);
  }
  return out;
}

/** The sub-schema a validator error names by its `schemaPath` (`#/properties/a/type` → the schema at `#/properties/a`). */
function bySchemaPath(root: JsonSchema, schemaPath: string): unknown {
  if (!schemaPath.startsWith('#/')) return undefined;
  const parts = segments(schemaPath.slice(1));
  parts.pop();
  let node: unknown = root;
  for (const part of parts) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The `oneOf`/`anyOf` branch whose discriminator (a property's `const`, or one-value `enum`) is `branch`. */
function branchOf(root: JsonSchema, branch: string): JsonSchema | undefined {
  if (typeof root !== 'object') return undefined;
  const options = (Array.isArray(root.oneOf) ? root.oneOf : Array.isArray(root.anyOf) ? root.anyOf : []) as unknown[];
  for (const option of options) {
    const resolved =
      typeof option === 'object' && option !== null && typeof (option as { $ref?: unknown }).$ref === 'string'
        ? bySchemaPath(root, `${(option as { $ref: string }).$ref}/x`)
        : option;
    const properties = (resolved as { properties?: unknown } | null)?.properties;
    if (typeof properties !== 'object' || properties === null) continue;
    for (const property of Object.values(properties as Record<string, unknown>)) {
      const p = property as { const?: unknown; enum?: unknown } | null;
      if (p?.const === branch || (Array.isArray(p?.enum) && p.enum.length === 1 && p.enum[0] === branch)) {
        return resolved as JsonSchema;
      }
    }
  }
  return undefined;
}

/**
 * What the schema expects at `path`, as compact JSON without titles and descriptions, capped:
 * the sub-schema at the path where the schema says unambiguously what applies (inside the
 * discriminated `branch` for a `oneOf` schema), else the one the first validator error points at;
 * undefined when neither is known.
 */
export function expectedAt(
  input: SchemaInput | undefined,
  path: string,
  errors: readonly SchemaError[],
  branch?: string,
): string | undefined {
  const whole = input !== undefined && isStandardSchema(input) ? jsonSchemaOf(input) : input;
  if (whole === undefined) return undefined;
  // A discriminated value's errors are the branch's: their paths and schema paths start there.
  const root = branch === undefined ? whole : (branchOf(whole, branch) ?? whole);
  // An index is a number to subSchemaAt; an object key made of digits then finds nothing, and the
  // validator's schemaPath is used instead.
  const at = segments(path).map((s) => (/^(?:0|[1-9]\d*)$/.test(s) ? Number(s) : s));
  let sub: unknown = subSchemaAt(root, at);
  if (sub === undefined && errors[0] !== undefined) sub = bySchemaPath(root, errors[0].schemaPath);
  if (sub === undefined) return undefined;
  return cap(JSON.stringify(strip(sub, 0)), MAX_EXPECTED_LENGTH);
}
