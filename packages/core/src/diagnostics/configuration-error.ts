/**
 * The error every unit raises for a broken configuration: a schema that does not compile, a
 * discriminator that cannot apply, an option out of range.
 *
 * Contract: a ConfigurationError is thrown when a stream, validator or scanner is created,
 * never for bad data, and its `code` is one of ConfigurationErrorCode. It lives apart from the
 * schema validator so that the units the validator is built from (linear-regexp.ts,
 * reference-cycles.ts) can raise it without importing the validator back; schema-validator.ts
 * re-exports both names, so existing imports keep working.
 */

import { LlmjsonError } from './errors.js';

export const ConfigurationErrorCode = {
  schemaInvalid: 'SCHEMA_INVALID',
  discriminatorInvalid: 'DISCRIMINATOR_INVALID',
  optionInvalid: 'OPTION_INVALID',
  /** A JSON Schema reached an engine with no JSON Schema compiler (`compileJsonSchema`). */
  noJsonSchemaCompiler: 'NO_JSON_SCHEMA_COMPILER',
  /**
   * A Standard Schema validated asynchronously (its `validate` returned a Promise): the
   * synchronous engines cannot use it. Raised by the first validation that goes async.
   */
  schemaAsync: 'SCHEMA_ASYNC',
  /** `coerce` reached an engine with no coercion implementation (`coerceWith`). */
  noCoercer: 'NO_COERCER',
  /** `prefixCheck: true` reached the JSONL decoder with no prefix check implementation (`prefixCheckWith`). */
  noPrefixChecker: 'NO_PREFIX_CHECKER',
} as const;
export type ConfigurationErrorCode = (typeof ConfigurationErrorCode)[keyof typeof ConfigurationErrorCode];

/** A broken configuration: raised when a stream or validator is created, never for bad data. */
export class ConfigurationError extends LlmjsonError {
  override readonly name: string = 'ConfigurationError';
  declare readonly code: ConfigurationErrorCode;
  constructor(code: ConfigurationErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
