/**
 * What every push-based engine in core shares: the `write`/`end` shape, diagnostic counting,
 * option checks and schema compilation from stream options. One place, so that the JSONL
 * decoder, the salvage scanner and later engines cannot drift apart.
 */

import type { Diagnostic } from './diagnostics.js';
import { type CompiledSchema, ConfigurationError, ConfigurationErrorCode, compileSchema } from './schema-validator.js';
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
 * The validator for an engine's `schema` and `discriminator` options, if a schema is given: a
 * Standard Schema (zod, valibot, arktype…) through standard-schema.ts, a JSON Schema through ajv.
 */
export function validatorFor(options: {
  readonly schema?: SchemaInput;
  readonly discriminator?: string | false;
}): CompiledSchema | undefined {
  if (options.schema === undefined) return undefined;
  const compileOptions = options.discriminator === undefined ? {} : { discriminator: options.discriminator };
  return isStandardSchema(options.schema)
    ? compileStandardSchema(options.schema, compileOptions)
    : compileSchema(options.schema, compileOptions);
}
