/**
 * What every push-based engine in core shares: the `write`/`end` shape, diagnostic counting,
 * option checks and schema compilation from stream options. One place, so that the JSONL
 * decoder, the salvage scanner and later engines cannot drift apart.
 */

import type { Diagnostic } from './diagnostics.js';
import { quoteInput } from './diagnostics.js';
import {
  type CompiledSchema,
  ConfigurationError,
  ConfigurationErrorCode,
  type JsonSchema,
  type JsonSchemaCompiler,
} from './schema-validator.js';
import { compileStandardSchema, isStandardSchema, type SchemaInput } from './standard-schema.js';

/** A push-based engine: `write` delivers what each chunk completes, `end` what the end decides. */
export interface Engine<Stats> {
  write(text: string): void;
  end(): void;
  /**
   * Called by an adapter just before `write(text)` when `text[index]` is a U+FFFD that stands
   * for bytes that were not UTF-8. An engine that frames lines reports it once per line
   * (`encoding`); for an engine without this method the adapter reports it with its offset.
   */
  invalidEncoding?(index: number): void;
  readonly stats: Readonly<Stats>;
}

/** The options every stream adapter (Node or Web) adds to its engine's options. */
export interface StreamOptions {
  /** Readable-side buffer, in values. Default 16 (Node's object-mode default; also on the Web). */
  readonly highWaterMark?: number;
  /** Called with each diagnostic, in input order (Node streams also emit a `'diagnostic'` event). */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

/** Counts of diagnostics by reason, as every engine's stats carry them. */
export type DiagnosticCounts = Partial<Record<Diagnostic['reason'], number>>;

export function countDiagnostic(counts: DiagnosticCounts, reason: Diagnostic['reason']): void {
  counts[reason] = (counts[reason] ?? 0) + 1;
}

/** Throws ConfigurationError unless `value` is absent or a positive integer. */
export function checkPositiveInteger(name: string, value: number | undefined, unit: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `${name} must be a positive integer (${unit}), got ${String(value)}`,
    );
  }
}

/** Throws ConfigurationError unless a stream's `highWaterMark` is absent or a non-negative integer. */
export function checkHighWaterMark(value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `highWaterMark must be a non-negative integer (values), got ${String(value)}`,
    );
  }
}

/**
 * The option every engine that validates takes besides `schema`: how to compile a JSON Schema.
 * Core bundles no JSON Schema validator. The Node streams, contracts and the CLI pass
 * `compileSchema` from `@llmjson/core/ajv` unless told otherwise; with core or the Web streams
 * a JSON Schema needs it passed (or code generated ahead of time by `llmjson compile`, which is
 * a Standard Schema), and a Standard Schema needs it only for sub-schemas (the partial
 * builder's subtree checks, elements found through a document schema's export).
 */
export interface ValidatorOptions {
  /** Compiles JSON Schemas: `compileSchema` from `@llmjson/core/ajv`, or any `JsonSchemaCompiler`. */
  readonly compileJsonSchema?: JsonSchemaCompiler;
}

/** The message for a JSON Schema given to an engine that has no compiler for it. */
export function missingCompilerMessage(what: string): string {
  return `${what} is a JSON Schema, and no JSON Schema compiler was given: pass compileJsonSchema (compileSchema from '@llmjson/core/ajv' or '@llmjson/web/ajv', which compiles to code at run time), or compile the schema ahead of time with \`llmjson compile schema.json\` and pass the module's default export as the schema (safe under a strict Content-Security-Policy), or use a Standard Schema (zod, valibot, arktype)`;
}

/** Compiles a JSON Schema with `compiler`, or throws ConfigurationError (NO_JSON_SCHEMA_COMPILER) naming the fix. */
export function compileJsonSchemaWith(
  compiler: JsonSchemaCompiler | undefined,
  schema: JsonSchema,
  options: { readonly discriminator?: string | false },
  what = 'the schema',
): CompiledSchema {
  if (compiler === undefined) {
    throw new ConfigurationError(ConfigurationErrorCode.noJsonSchemaCompiler, missingCompilerMessage(what));
  }
  if (typeof compiler !== 'function') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `compileJsonSchema must be a function (schema, options) => validator, got ${quoteInput(typeof compiler)}`,
    );
  }
  return compiler(schema, options);
}

/**
 * The validator for an engine's `schema` and `discriminator` options, if a schema is given: a
 * Standard Schema (zod, valibot, arktype…) through standard-schema.ts, a JSON Schema through
 * `compileJsonSchema`.
 */
export function validatorFor(
  options: {
    readonly schema?: SchemaInput;
    readonly discriminator?: string | false;
  } & ValidatorOptions,
): CompiledSchema | undefined {
  const compiler = options.compileJsonSchema;
  if (compiler !== undefined && typeof compiler !== 'function') {
    // Checked whatever the schema, so that a wrong option is found when the stream is made.
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `compileJsonSchema must be a function (schema, options) => validator, got ${quoteInput(typeof compiler)}`,
    );
  }
  if (options.schema === undefined) return undefined;
  const compileOptions = options.discriminator === undefined ? {} : { discriminator: options.discriminator };
  return isStandardSchema(options.schema)
    ? compileStandardSchema(options.schema, compileOptions)
    : compileJsonSchemaWith(options.compileJsonSchema, options.schema, compileOptions);
}
