/**
 * The `coerce` option without the coercion itself: the option's type and its check (the rule
 * names are in coercion-rules.ts). Engines import only this; the implementation (coerce.ts, ~9 KB minified) is passed
 * in as `coerceWith`, so a bundle that never coerces does not carry it (decision 018).
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { quoteInput } from '../diagnostics/diagnostics.js';
import { COERCION_RULES, type CoercionRule } from './coercion-rules.js';
import type { CompiledSchema, JsonSchema } from './schema-validator.js';

/** `true`: every coercion; a list: those; `false` or absent (default): none. */
export type CoerceOption = boolean | readonly CoercionRule[];

/** The option every engine that validates takes (see coerce.ts). */
export interface CoercionOptions {
  /**
   * Repair what the schema makes unambiguous in a value it rejects (`"5"` for a number,
   * `"True "` for the enum value `"true"`…), validate again, and report each repair as a
   * `recovered` diagnostic with `rule` and `path`. `true` for every coercion, or a list of
   * them (`['string-to-number', 'enum-case']`). Default `false`: values are never changed.
   */
  readonly coerce?: CoerceOption;
  /**
   * The coercion implementation `coerce` needs: `withCoercion` from `@llmjson/core` (or
   * `@llmjson/web`). The Node streams, contracts and the CLI pass it for you; with core or the
   * Web streams it is passed explicitly, so that a page that never coerces does not bundle it.
   */
  readonly coerceWith?: Coercer;
}

/** Wraps a validator with coercion under a JSON Schema guide: `withCoercion` (coerce.ts). */
export type Coercer = (
  compiled: CompiledSchema,
  schema: JsonSchema,
  rules: ReadonlySet<CoercionRule>,
) => CompiledSchema;

/**
 * The coercions a `coerce` option turns on: `undefined` when none (absent, `false`, `[]`).
 * Throws ConfigurationError (OPTION_INVALID) naming the allowed values for anything else.
 */
export function coercionRules(option: unknown): ReadonlySet<CoercionRule> | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return new Set(COERCION_RULES);
  if (Array.isArray(option)) {
    const rules = new Set<CoercionRule>();
    for (const rule of option as unknown[]) {
      if (typeof rule !== 'string' || !(COERCION_RULES as readonly string[]).includes(rule)) {
        throw invalidOption(`an unknown coercion ${quoteInput(JSON.stringify(rule) ?? String(rule))}`);
      }
      rules.add(rule as CoercionRule);
    }
    return rules.size === 0 ? undefined : rules;
  }
  throw invalidOption(quoteInput(typeof option === 'string' ? JSON.stringify(option) : typeof option));
}

function invalidOption(got: string): ConfigurationError {
  return new ConfigurationError(
    ConfigurationErrorCode.optionInvalid,
    `coerce must be true, false or a list of coercions (${COERCION_RULES.map((r) => `'${r}'`).join(', ')}), got ${got}`,
  );
}
