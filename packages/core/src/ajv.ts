/**
 * `@llmjson/core/ajv`: JSON Schema through ajv, one implementation of the validator seam.
 * Pass `compileSchema` as `compileJsonSchema` to the core engines or the Web streams; the Node
 * streams, contracts and the CLI already do. Importing this entry brings ajv, ajv-formats and
 * re2js into a bundle, and ajv compiles schemas with `new Function`: on a strict-CSP page use
 * `llmjson compile` instead (docs/decisions/017-validator-seam.md).
 *
 * `compileStandaloneModule` is what `llmjson compile` runs: the source of an ES module that
 * validates without compiling at run time. That module imports `linearRegExp`, `jsonEqual` and
 * `useLinearFormats` from here; every export of this entry is side-effect free, so a bundler
 * keeps those three (and re2js) and leaves ajv's compiler out.
 */

export { NODE_DEFAULTS, withNodeDefaults } from './engines/node-defaults.js';
export { compileStandaloneModule, type StandaloneOptions } from './schema/ajv/ajv-standalone.js';
export { compileSchema } from './schema/ajv/ajv-validator.js';
export { jsonEqual } from './schema/json-equal.js';
export { linearRegExp, useLinearFormats } from './schema/linear-regexp.js';
