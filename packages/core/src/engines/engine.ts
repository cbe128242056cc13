/**
 * What every push-based engine in core shares: the `write`/`end` shape, diagnostic counting,
 * option checks and schema compilation from stream options. One place, so that the JSONL
 * decoder, the salvage scanner and later engines cannot drift apart.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import type { Diagnostic } from '../diagnostics/diagnostics.js';
import { DiagnosticReason, excerptAround, quoteInput } from '../diagnostics/diagnostics.js';
import { describeValue } from '../options/option-checks.js';
import type { FailFastOptions } from '../prefix/fail-fast.js';
import { type CoercionOptions, coercionRules } from '../schema/coercion-options.js';
import type { CoercionFix } from '../schema/coercion-rules.js';
import type { CompiledSchema, JsonSchema, JsonSchemaCompiler, SchemaWarning } from '../schema/schema-validator.js';
import { compileStandardSchema, isStandardSchema, jsonSchemaOf, type SchemaInput } from '../schema/standard-schema.js';

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

/** What every stream adapter (Node and Web take the same: decision 024) adds to its engine's options. */
export type AdapterOptions = StreamOptions & FailFastOptions;

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
      `${name} must be a positive integer (${unit}), got ${describeValue(value)}`,
    );
  }
}

/** Throws ConfigurationError unless a stream's `highWaterMark` is absent or a non-negative integer. */
export function checkHighWaterMark(value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `highWaterMark must be a non-negative integer (values), got ${describeValue(value)}`,
    );
  }
}

/**
 * A partial stream's `maxSnapshotDelay`, checked: milliseconds, a finite number ≥ 0; default 16
 * (a display frame at 60 Hz). Here, not in each adapter, so that Node and the Web cannot differ.
 */
export function checkSnapshotDelay(value: number | undefined): number {
  if (value === undefined) return 16;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `maxSnapshotDelay must be a finite number ≥ 0 (milliseconds), got ${describeValue(value)}`,
    );
  }
  return value;
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
  /**
   * Receives what the compiler noticed in the schema but could use anyway (a `format` it does
   * not know, checked as any string: `CompiledSchema.warnings`), once per stream creation, as the
   * stream is made — never per value. llmjson prints nothing itself. What the callback throws is
   * dropped: a warning never stops a stream from being made. Default: none (warnings dropped).
   */
  readonly onWarning?: (warning: SchemaWarning) => void;
}

/**
 * Hands `compiled`'s warnings to `onWarning`. Construction is not the place for the callback's
 * failure: no stream exists yet to carry it as the engines carry what `onDiagnostic` throws (the
 * stream's error), and a throw here would turn a warning into a broken configuration; so it is
 * dropped, and the remaining warnings are still delivered.
 */
function deliverWarnings(compiled: CompiledSchema, onWarning: ValidatorOptions['onWarning']): void {
  const warnings = compiled.warnings;
  if (onWarning === undefined || warnings === undefined) return;
  for (const warning of warnings) {
    try {
      onWarning(warning);
    } catch {
      // The user's callback failed; see above.
    }
  }
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
  checkCompiler(compiler);
  return compiler(schema, options);
}

/** Throws ConfigurationError unless `compileJsonSchema` is absent or a function: one message for both callers. */
function checkCompiler(compiler: unknown): void {
  if (compiler !== undefined && typeof compiler !== 'function') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `compileJsonSchema must be a function (schema, options) => validator, got ${quoteInput(typeof compiler)}`,
    );
  }
}

/**
 * The validator for an engine's `schema`, `discriminator` and `coerce` options, if a schema is
 * given: a Standard Schema (zod, valibot, arktype…) through standard-schema.ts, a JSON Schema
 * through `compileJsonSchema`; with `coerce`, wrapped by `withCoercion` (coerce.ts), guided by
 * the JSON Schema (a Standard Schema's export). Throws ConfigurationError for a `coerce` that is
 * not `true`, `false` or a list of known coercions, for `coerce` without a schema, and for
 * `coerce` with a Standard Schema that exports no JSON Schema.
 */
export function validatorFor(
  options: {
    readonly schema?: SchemaInput;
    readonly discriminator?: string | false;
  } & ValidatorOptions &
    CoercionOptions,
): CompiledSchema | undefined {
  // Checked whatever the schema, so that a wrong option is found when the stream is made.
  checkCompiler(options.compileJsonSchema);
  if (options.onWarning !== undefined && typeof options.onWarning !== 'function') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `onWarning must be a function (warning) => void, got ${quoteInput(typeof options.onWarning)}`,
    );
  }
  const rules = coercionRules(options.coerce);
  const coerceWith = options.coerceWith;
  if (coerceWith !== undefined && typeof coerceWith !== 'function') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `coerceWith must be a function (validator, schema, rules) => validator (withCoercion), got ${quoteInput(typeof coerceWith)}`,
    );
  }
  const schema = options.schema;
  if (schema === undefined) {
    if (rules !== undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.optionInvalid,
        'coerce needs a schema: coercion repairs only what a schema makes unambiguous',
      );
    }
    return undefined;
  }
  const compileOptions = options.discriminator === undefined ? {} : { discriminator: options.discriminator };
  const compiled = isStandardSchema(schema)
    ? compileStandardSchema(schema, compileOptions)
    : compileJsonSchemaWith(options.compileJsonSchema, schema, compileOptions);
  deliverWarnings(compiled, options.onWarning);
  if (rules === undefined) return compiled;
  if (coerceWith === undefined) {
    throw new ConfigurationError(
      ConfigurationErrorCode.noCoercer,
      "coerce needs the coercion implementation, which core and the Web streams do not bundle unless asked: pass coerceWith: withCoercion (import { withCoercion } from '@llmjson/core' or '@llmjson/web'); the Node streams, contracts and the CLI pass it for you",
    );
  }
  if (!isStandardSchema(schema)) return coerceWith(compiled, schema, rules);
  const guide = jsonSchemaOf(schema);
  if (guide === undefined) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `coerce needs the schema's JSON Schema to know what to repair, and the ${quoteInput(String(schema['~standard'].vendor))} schema exports none; remove coerce or use a schema with a JSON Schema export (zod 4, arktype 2, valibot through @valibot/to-json-schema)`,
    );
  }
  return coerceWith(compiled, guide, rules);
}

/**
 * The `recovered` diagnostic for one coercion fix of a value that starts at `offset` (the
 * engine adds `line` and friends where it has them): `path` and `rule` say where and which.
 */
export function coercionDiagnostic(
  fix: CoercionFix,
  offset: number,
  text: string,
  branch: string | undefined,
  prefix = '',
): Diagnostic {
  return {
    reason: DiagnosticReason.recovered,
    offset,
    excerpt: excerptAround(text),
    message: `${prefix}${fix.message}`,
    path: fix.path,
    rule: fix.rule,
    ...(branch === undefined ? {} : { branch }),
  };
}
