/**
 * What the Node streams fill in that core and the Web streams leave to the caller: ajv for JSON
 * Schema, `withCoercion` for `coerce`. The defaults themselves are defined once, in
 * `@llmjson/core/ajv` (`withNodeDefaults`, decision 031), and shared with contracts and the CLI.
 */

export { NODE_DEFAULTS, withNodeDefaults as withAjvDefault } from '@llmjson/core/ajv';
