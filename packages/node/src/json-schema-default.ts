/**
 * What the Node streams fill in that core and the Web streams leave to the caller: JSON Schema
 * is validated with ajv (`compileSchema` from `@llmjson/core/ajv` as `compileJsonSchema`) and
 * `coerce` uses core's `withCoercion` (as `coerceWith`) unless told otherwise, so Node users
 * pass a JSON Schema or `coerce: true` and nothing else. Core does not bundle either (decisions
 * 017 and 018).
 */

import { type CoercionOptions, type ValidatorOptions, withCoercion } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';

/** `options` with `compileJsonSchema` defaulted to ajv (`compileSchema`) and `coerceWith` to `withCoercion`. */
export function withAjvDefault<O extends ValidatorOptions & CoercionOptions>(options: O): O {
  let filled = options;
  if (filled.compileJsonSchema === undefined) filled = { ...filled, compileJsonSchema: compileSchema };
  if (filled.coerce !== undefined && filled.coerce !== false && filled.coerceWith === undefined) {
    filled = { ...filled, coerceWith: withCoercion };
  }
  return filled;
}
