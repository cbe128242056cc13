/**
 * The defaults every package that runs on Node gets without asking: JSON Schema compiled with
 * ajv (`compileSchema`, as `compileJsonSchema`), `coerce` done by `withCoercion` (as
 * `coerceWith`), and the prefix checks of JSONL lines and array elements (`linePrefixCheck`,
 * `elementPrefixCheck`, as `prefixCheckWith`). @llmjson/node, @llmjson/contracts and the CLI
 * take them from here, so that the three cannot drift apart.
 *
 * Invariant: a default fills only an option the caller left out (`undefined`); what is given is
 * kept, even `compileJsonSchema` of another validator.
 *
 * Why here, beside `compileSchema` in `@llmjson/core/ajv`, and not in @llmjson/node or core's
 * main entry: core's main entry stays validator-free (decision 017: a Web bundle must not pull
 * ajv in), and contracts and the CLI need the defaults without depending on the Node streams
 * (decision 031).
 */

import { elementPrefixCheck } from '../prefix/element-prefix.js';
import { linePrefixCheck } from '../prefix/jsonl-prefix.js';
import { compileSchema } from '../schema/ajv/ajv-validator.js';
import { withCoercion } from '../schema/coerce.js';
import type { CoercionOptions } from '../schema/coercion-options.js';
import type { ValidatorOptions } from './engine.js';

/** The implementations the Node packages fill in, by option. */
export const NODE_DEFAULTS = {
  compileJsonSchema: compileSchema,
  coerceWith: withCoercion,
  linePrefixCheck,
  elementPrefixCheck,
} as const;

/**
 * `options` with `compileJsonSchema` defaulted to ajv (`compileSchema`) and, when `coerce` asks
 * for coercion, `coerceWith` to `withCoercion`. The same object when nothing is missing.
 */
export function withNodeDefaults<O extends ValidatorOptions & CoercionOptions>(options: O): O {
  let filled = options;
  if (filled.compileJsonSchema === undefined)
    filled = { ...filled, compileJsonSchema: NODE_DEFAULTS.compileJsonSchema };
  if (filled.coerce !== undefined && filled.coerce !== false && filled.coerceWith === undefined) {
    filled = { ...filled, coerceWith: NODE_DEFAULTS.coerceWith };
  }
  return filled;
}
