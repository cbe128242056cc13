/**
 * What an output's `schema` (or `element`) may be, and how each kind is read: a JSON Schema, a
 * Standard Schema (zod 4, valibot 1, arktype 2), or the AI SDK's own `Schema` object — what
 * `jsonSchema()` and `zodSchema()` from `ai` return, which AI SDK code passes everywhere a schema
 * goes (`Output.object({ schema: jsonSchema(...) })`).
 *
 * Contract:
 * - An AI SDK schema is recognised by its shape, as the AI SDK's `isSchema` does: the marker
 *   `Symbol.for('vercel.ai.schema')` set to `true` and a `jsonSchema` field (`validate` may be
 *   absent: its type says optional). No runtime code of `ai` is imported for it: the package
 *   reads only types from `ai` beside `NoObjectGeneratedError`, and the marker is a registered
 *   symbol, the same in every copy of `ai`.
 * - Its JSON Schema (`schema.jsonSchema`, a getter that converts lazily: read once, at the
 *   factory) is what the engines get: sent to the provider (as `Output.object` sends it),
 *   compiled by `compileJsonSchema` for the prefix checks, partial and element validation and
 *   salvage, exactly as a plain JSON Schema is — never as the Standard Schema zod 4 also makes
 *   of it (see planAiSdkSchema). What cannot be used is a ConfigurationError at the factory, saying what to pass
 *   instead: a PromiseLike JSON Schema (the factories are synchronous), no `compileJsonSchema`,
 *   a getter that throws, or what is not a JSON Schema.
 * - `finish(value)` gives the final value of a value the engine accepted: a Standard Schema's
 *   `~standard.validate` output, an AI SDK schema's `validate` output (zod's transforms and
 *   defaults, through `zodSchema`), the value itself otherwise. A rejection, a `validate` that
 *   throws or returns what is not a `{ success }` result, is `{ rejected: message }`: a failed
 *   value, never a broken stream (as core treats a Standard Schema's `validate`).
 *
 * Why the JSON Schema and not `validate` for the partials: `validate` is async and sees only
 * whole values; the JSON Schema checks every prefix and every element as it closes, the
 * linear, synchronous work the engines do. `validate` then has the last word on the value.
 */

import {
  ConfigurationError,
  ConfigurationErrorCode,
  type JsonSchema,
  type JsonSchemaCompiler,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { isStandardSchema, quoteInput } from '@llmjson/core/internal';
import type { InferSchema, Schema } from 'ai';

/** The AI SDK's marker on its `Schema` objects (`schemaSymbol` in @ai-sdk/provider-utils). */
const AI_SCHEMA_MARKER = Symbol.for('vercel.ai.schema');

/** What an output's `schema` takes: a JSON Schema, a Standard Schema, or the AI SDK's `Schema` (`jsonSchema()`, `zodSchema()`). */
export type OutputSchema = SchemaInput | Schema<unknown>;

/**
 * The type of an output's values for a schema of type `S`: `T` for the AI SDK's `Schema<T>`
 * (as the AI SDK's `InferSchema` gives it: zod's output type for `zodSchema`), else core's
 * `SchemaValue` (a Standard Schema's input type, a literal JSON Schema's `FromSchema`). The AI
 * SDK's `Schema` comes first: structurally it is also a JSON Schema record.
 */
export type OutputValue<S> = S extends Schema<unknown> ? InferSchema<S> : SchemaValue<S>;

/** A final value, or why the schema refused it (one sentence, bounded). */
export type Verdict = { readonly value: unknown } | { readonly rejected: string };

/** How one output reads its schema. */
export interface SchemaPlan {
  /** What the engines, salvage and the provider get: the schema, or an AI SDK schema's JSON Schema. */
  readonly engine: SchemaInput | undefined;
  /** The final value of a value the engine accepted (see the file's contract). */
  readonly finish: (value: unknown) => Promise<Verdict>;
  /**
   * True when `finish` runs a check the engines never ran (an AI SDK schema's `validate`), so
   * it can refuse what they accepted; a Standard Schema's vendor already decided in the engine.
   */
  readonly checksApart: boolean;
}

/** Whether `value` is the AI SDK's `Schema` object (the marker and a `jsonSchema` field). */
export function isAiSdkSchema(value: unknown): value is Schema<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return (value as Record<symbol, unknown>)[AI_SCHEMA_MARKER] === true && 'jsonSchema' in value;
  } catch {
    return false;
  }
}

const ACCEPT = async (value: unknown): Promise<Verdict> => ({ value });

/**
 * How `factory` reads its `option` (`schema`, `element`): see the file's contract. Throws a
 * ConfigurationError for an AI SDK schema that cannot be used.
 */
export function planSchema(
  factory: string,
  option: string,
  schema: OutputSchema | undefined,
  compileJsonSchema: JsonSchemaCompiler | undefined,
): SchemaPlan {
  if (isAiSdkSchema(schema)) return planAiSdkSchema(factory, option, schema, compileJsonSchema);
  if (schema !== undefined && isStandardSchema(schema)) {
    const standard = schema['~standard'];
    return {
      engine: schema,
      checksApart: false,
      finish: async (value) => {
        try {
          const result = await standard.validate(value);
          if (result.issues === undefined) return { value: result.value };
          const messages = result.issues.map((issue) => issue.message).join('; ');
          return { rejected: `the ${standard.vendor} schema rejected it: ${quoteInput(messages)}` };
        } catch (thrown) {
          return { rejected: `the ${standard.vendor} schema's validate threw ${quoteInput(messageOf(thrown))}` };
        }
      },
    };
  }
  return { engine: schema, checksApart: false, finish: ACCEPT };
}

function planAiSdkSchema(
  factory: string,
  option: string,
  schema: Schema<unknown>,
  compileJsonSchema: JsonSchemaCompiler | undefined,
): SchemaPlan {
  const what = `${factory}'s \`${option}\` is an AI SDK schema (jsonSchema() or zodSchema() from 'ai')`;
  let json: unknown;
  try {
    json = schema.jsonSchema;
  } catch (thrown) {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `${what} whose JSON Schema could not be made (${quoteInput(messageOf(thrown))}): pass the zod, valibot or arktype schema itself, or a JSON Schema it can express`,
      { cause: thrown },
    );
  }
  if (isPromiseLike(json)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaAsync,
      `${what} whose JSON Schema is a Promise: ${factory} reads the schema when it is made, so pass the JSON Schema itself (awaited, with compileJsonSchema) or the zod, valibot or arktype schema itself`,
    );
  }
  if (typeof json !== 'boolean' && (typeof json !== 'object' || json === null || Array.isArray(json))) {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `${what} whose jsonSchema is not a JSON Schema (an object): pass jsonSchema() a JSON Schema object`,
    );
  }
  if (compileJsonSchema === undefined) {
    throw new ConfigurationError(
      ConfigurationErrorCode.noJsonSchemaCompiler,
      `${what}: its JSON Schema needs \`compileJsonSchema\` (compileSchema from @llmjson/web/ajv), or pass the zod, valibot or arktype schema itself instead of wrapping it`,
    );
  }
  // Own enumerable properties only: zod 4's toJSONSchema (zodSchema's converter) hides a
  // non-enumerable `~standard` on the JSON Schema it returns, which would make it a Standard
  // Schema to the engines (zod's validation and 2020-12 export instead of this JSON Schema).
  const engine: JsonSchema = typeof json === 'boolean' ? json : { ...(json as Record<string, unknown>) };
  const validate = schema.validate;
  if (validate === undefined) return { engine, checksApart: false, finish: ACCEPT };
  return {
    engine,
    checksApart: true,
    finish: async (value) => {
      let result: unknown;
      try {
        result = await validate.call(schema, value);
      } catch (thrown) {
        return { rejected: `the schema's validate threw ${quoteInput(messageOf(thrown))}` };
      }
      if (typeof result === 'object' && result !== null) {
        const { success } = result as { success?: unknown };
        if (success === true && 'value' in result) return { value: (result as { value: unknown }).value };
        if (success === false) {
          const { error } = result as { error?: unknown };
          return { rejected: `the schema's validate rejected it: ${quoteInput(messageOf(error))}` };
        }
      }
      return {
        rejected: "the schema's validate returned neither { success: true, value } nor { success: false, error }",
      };
    },
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** What a thrown value or a `validate` error says, never throwing itself. */
function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return error.message === '' ? error.name : error.message;
    return typeof error === 'string' ? error : String(error);
  } catch {
    return 'a value that cannot be read';
  }
}
