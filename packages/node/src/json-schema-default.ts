/**
 * The Node streams validate JSON Schema with ajv unless told otherwise: `compileSchema` from
 * `@llmjson/core/ajv` is filled in as `compileJsonSchema`, so Node users pass a JSON Schema
 * and nothing else, as before core stopped bundling a validator.
 */

import type { ValidatorOptions } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';

/** `options` with `compileJsonSchema` defaulted to ajv (`compileSchema`). */
export function withAjvDefault<O extends ValidatorOptions>(options: O): O {
  return options.compileJsonSchema === undefined ? { ...options, compileJsonSchema: compileSchema } : options;
}
