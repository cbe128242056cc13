/**
 * `@llmjson/web/ajv`: JSON Schema through ajv for the Web streams, as
 * `createJsonlStream({ schema, compileJsonSchema: compileSchema })`. The main entry bundles no
 * validator: a page that passes a Standard Schema (zod, valibot, arktype) or no schema never
 * loads ajv. ajv compiles with `new Function`, which a strict Content-Security-Policy refuses;
 * there, compile the schema ahead of time with `llmjson compile` and pass the generated module's
 * export as the schema.
 */

export { compileSchema } from '@llmjson/core/ajv';
