/**
 * Provider structured-output request fields from the schema the answer is validated with: the
 * same JSON Schema, or Standard Schema (zod 4, arktype 2, valibot 1 through
 * `@valibot/to-json-schema`'s `toStandardJsonSchema`), constrains the model on the server and
 * checks its answer locally.
 *
 * Contract: `structuredOutput(provider, schema, options)` returns the fields to spread into the
 * request body:
 * - `openai-chat` (Chat Completions): `{ response_format: { type: 'json_schema', json_schema: { name, description?, schema, strict } } }`;
 * - `openai-responses` (Responses API): `{ text: { format: { type: 'json_schema', name, description?, schema, strict } } }`;
 * - `anthropic` (Messages, the tool-input route): `{ tools: [{ name, description?, input_schema }], tool_choice: { type: 'tool', name } }`;
 *   the answer is then the forced tool call's `input`, which the provider streams decode as
 *   tool-argument pieces;
 * - `ollama` (`/api/chat`, `/api/generate`): `{ format: schema }`.
 * It never mutates the schema it is given (a vendor's export is cached and shared): what it
 * changes is a copy. Everything wrong with a schema or an option is a ConfigurationError thrown
 * here, before any request.
 *
 * Decisions:
 * - Standard Schemas are sent as their JSON Schema export for input (`jsonSchemaOf`): the type
 *   the engines validate. One without an export (valibot without `toStandardJsonSchema`, a zod
 *   type JSON Schema cannot express) is `SCHEMA_INVALID`, saying how to get one.
 * - `$schema` is removed from the root: it constrains nothing, OpenAI accepts it, and Gemini
 *   (and gateways forwarding to it) reject it ("Unknown name \"$schema\"").
 * - Root: OpenAI requires `type: 'object'` at the root of a structured-output schema, and
 *   Anthropic's `input_schema` is an object schema. Another root (an array, a root `oneOf`
 *   such as a discriminated union, a `$ref`) is refused for those three shapes, not wrapped: a
 *   wrapped answer (`{ "items": [...] }`) would no longer match the schema the answer is
 *   validated with. The error says to wrap it in the schema itself. Ollama takes any root.
 * - `name` (OpenAI's schema name, Anthropic's tool name) must match `^[a-zA-Z0-9_-]{1,64}$`,
 *   both providers' rule; default `'response'`. A bad one is `OPTION_INVALID`.
 * - OpenAI strict mode (`strict`, default `'auto'`) accepts a subset of JSON Schema: every
 *   object has `additionalProperties: false` and lists all its `properties` in `required`, the
 *   root has no `anyOf`/`oneOf`/`allOf`/`enum`/`not`, and some keywords are unsupported
 *   (`STRICT_UNSUPPORTED_KEYWORDS`). Before checking, objects that list `properties` and say
 *   nothing about other keys (no `additionalProperties`, `patternProperties` or
 *   `unevaluatedProperties`: zod's `z.object`, arktype, valibot's `object` export so) are
 *   closed with `additionalProperties: false`. That only narrows: every answer that meets the
 *   closed schema meets the original. Nothing else is rewritten: making an optional property
 *   required would force the model to invent a value, and making it nullable would let through
 *   a `null` the local validator rejects.
 *   - `'auto'`: the closed schema with `strict: true` when it meets the rules, else the schema
 *     as given with `strict: false` (`strictSchemaProblems` says why);
 *   - `true`: the closed schema with `strict: true`, or `SCHEMA_INVALID` listing each
 *     offending JSON Pointer and rule;
 *   - `false`: the schema as given, `strict: false`.
 *   Size limits (property count, nesting depth, enum size) are left to the server's own error.
 *   `strict` does not apply to the Anthropic and Ollama shapes.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { quoteInput } from '../diagnostics/diagnostics.js';
import { checkOptionNames, optionNames } from '../options/option-checks.js';
import type { JsonSchema } from '../schema/schema-validator.js';
import { isStandardSchema, jsonSchemaOf, type SchemaInput } from '../schema/standard-schema.js';

/** The request shapes `structuredOutput` builds. */
export const StructuredOutputProvider = {
  openAIChat: 'openai-chat',
  openAIResponses: 'openai-responses',
  anthropic: 'anthropic',
  ollama: 'ollama',
} as const;
export type StructuredOutputProvider = (typeof StructuredOutputProvider)[keyof typeof StructuredOutputProvider];

export interface StructuredOutputOptions {
  /** OpenAI's schema name, Anthropic's tool name: `^[a-zA-Z0-9_-]{1,64}$`. Default `'response'`. Unused by Ollama. */
  readonly name?: string;
  /** Tells the model what the output is for (OpenAI `description`, Anthropic tool `description`). Default: none. */
  readonly description?: string;
  /** OpenAI strict mode: `true`, `false` or `'auto'` (see the module comment). Default `'auto'`. */
  readonly strict?: boolean | 'auto';
}

/** A JSON Schema object as sent to a provider. */
export type ProviderJsonSchema = Readonly<Record<string, unknown>>;

/** The request fields `structuredOutput` returns, by provider. */
export interface StructuredOutputFields {
  readonly 'openai-chat': {
    readonly response_format: {
      readonly type: 'json_schema';
      readonly json_schema: {
        readonly name: string;
        readonly description?: string;
        readonly schema: ProviderJsonSchema;
        readonly strict: boolean;
      };
    };
  };
  readonly 'openai-responses': {
    readonly text: {
      readonly format: {
        readonly type: 'json_schema';
        readonly name: string;
        readonly description?: string;
        readonly schema: ProviderJsonSchema;
        readonly strict: boolean;
      };
    };
  };
  readonly anthropic: {
    readonly tools: readonly [
      { readonly name: string; readonly description?: string; readonly input_schema: ProviderJsonSchema },
    ];
    readonly tool_choice: { readonly type: 'tool'; readonly name: string };
  };
  readonly ollama: { readonly format: ProviderJsonSchema };
}

/** Why a schema cannot go to OpenAI in strict mode: where (a JSON Pointer, `''` the root) and which rule. */
export interface StrictSchemaProblem {
  readonly pointer: string;
  readonly message: string;
}

/** The default `name`. */
export const DEFAULT_STRUCTURED_OUTPUT_NAME = 'response';

/** Keywords OpenAI's strict mode does not support (its Structured Outputs guide); `anyOf` is its one composition keyword. */
export const STRICT_UNSUPPORTED_KEYWORDS: readonly string[] = [
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
  'default',
];

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Root keywords strict mode refuses besides STRICT_UNSUPPORTED_KEYWORDS, which are reported wherever they are. */
const ROOT_FORBIDDEN = ['anyOf', 'enum'];
/** Keywords whose value is a map of subschemas, a list of them, or one. */
const MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const LIST_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const ONE_KEYWORDS = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
]);
const MAX_PROBLEMS_SHOWN = 10;

/**
 * Checks `options` as `structuredOutput` does, for a factory that takes them up front: throws
 * ConfigurationError (`OPTION_INVALID`) for a bad `name`, `description` or `strict`.
 */
export function checkStructuredOutputOptions(options: StructuredOutputOptions = {}): void {
  checkOptionNames('structured output', options, STRUCTURED_OUTPUT_OPTIONS);
  const { name, description, strict } = options;
  if (name !== undefined && (typeof name !== 'string' || !NAME.test(name))) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `structured output name ${typeof name === 'string' ? `"${quoteInput(name)}"` : `of type ${typeof name}`} is invalid: it must be 1 to 64 letters, digits, "_" or "-" (^[a-zA-Z0-9_-]{1,64}$), as OpenAI and Anthropic require`,
    );
  }
  if (description !== undefined && typeof description !== 'string') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `structured output description must be a string, got ${typeof description}`,
    );
  }
  if (strict !== undefined && strict !== true && strict !== false && strict !== 'auto') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `structured output strict must be true, false or 'auto', got ${quoteInput(String(strict))}`,
    );
  }
}

/**
 * The request fields that ask `provider` for output matching `schema` (a JSON Schema object, or
 * a Standard Schema with a JSON Schema export); spread them into the request body. Throws
 * ConfigurationError: `SCHEMA_INVALID` for a schema the provider cannot take (no JSON Schema
 * export, a root that is not an object for OpenAI or Anthropic, `strict: true` with a schema
 * outside OpenAI's strict subset), `OPTION_INVALID` for a bad option or provider.
 */
export function structuredOutput<P extends StructuredOutputProvider>(
  provider: P,
  schema: SchemaInput,
  options: StructuredOutputOptions = {},
): StructuredOutputFields[P] {
  checkStructuredOutputOptions(options);
  if (!Object.values(StructuredOutputProvider).includes(provider)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `unknown structured output provider "${quoteInput(String(provider))}"; expected one of ${Object.values(StructuredOutputProvider).join(', ')}`,
    );
  }
  const sent = withoutSchemaKeyword(jsonSchemaFrom(schema));
  const name = options.name ?? DEFAULT_STRUCTURED_OUTPUT_NAME;
  const description = options.description === undefined ? {} : { description: options.description };
  if (provider === 'ollama') return { format: sent } as StructuredOutputFields[P];
  requireObjectRoot(sent, provider);
  if (provider === 'anthropic') {
    const fields: StructuredOutputFields['anthropic'] = {
      tools: [{ name, ...description, input_schema: sent }],
      tool_choice: { type: 'tool', name },
    };
    return fields as StructuredOutputFields[P];
  }
  const { schema: final, strict } = strictChoice(sent, options.strict ?? 'auto');
  if (provider === 'openai-chat') {
    const fields: StructuredOutputFields['openai-chat'] = {
      response_format: { type: 'json_schema', json_schema: { name, ...description, schema: final, strict } },
    };
    return fields as StructuredOutputFields[P];
  }
  const fields: StructuredOutputFields['openai-responses'] = {
    text: { format: { type: 'json_schema', name, ...description, schema: final, strict } },
  };
  return fields as StructuredOutputFields[P];
}

/**
 * What keeps `schema` out of OpenAI's strict mode once its open objects are closed (see the
 * module comment), in document order; `[]` when `strict: true` can be sent.
 */
export function strictSchemaProblems(schema: JsonSchema): StrictSchemaProblem[] {
  if (!isObject(schema)) return [{ pointer: '', message: 'the root must be a schema object, not a boolean' }];
  return problemsOf(
    schema,
    guardDepth(() => closeObjects(schema)),
  );
}

/** The strict-mode problems of `closed`, the closed copy of `schema`. */
function problemsOf(schema: ProviderJsonSchema, closed: ProviderJsonSchema): StrictSchemaProblem[] {
  const problems: StrictSchemaProblem[] = [];
  for (const keyword of ROOT_FORBIDDEN) {
    if (Object.hasOwn(schema, keyword)) {
      problems.push({ pointer: '', message: `"${keyword}" is not allowed at the root in strict mode` });
    }
  }
  guardDepth(() => collectStrictProblems(closed, '', problems, new Set()));
  return problems;
}

function jsonSchemaFrom(schema: SchemaInput): JsonSchema {
  if (!isStandardSchema(schema)) return schema;
  const exported = jsonSchemaOf(schema);
  if (exported !== undefined) return exported;
  const vendor = typeof schema['~standard'].vendor === 'string' ? schema['~standard'].vendor : 'unknown';
  throw new ConfigurationError(
    ConfigurationErrorCode.schemaInvalid,
    `the "${quoteInput(vendor)}" schema has no JSON Schema export to send as structured output (no ~standard.jsonSchema, or its converter threw on a type JSON Schema cannot express): valibot schemas need toStandardJsonSchema(schema) from @valibot/to-json-schema; zod 4 and arktype 2 export one for types JSON Schema can express; or pass a JSON Schema`,
  );
}

function withoutSchemaKeyword(schema: JsonSchema): ProviderJsonSchema {
  if (!isObject(schema)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `a boolean schema (${String(schema)}) cannot be sent as structured output: pass a schema object`,
    );
  }
  if (!Object.hasOwn(schema, '$schema')) return schema;
  const { $schema: _, ...rest } = schema;
  return rest;
}

function requireObjectRoot(schema: ProviderJsonSchema, provider: StructuredOutputProvider): void {
  const type = schema.type;
  if (type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object')) return;
  const found = type === undefined ? 'no "type"' : `type ${quoteInput(JSON.stringify(type))}`;
  const who = provider === 'anthropic' ? "Anthropic's tool input_schema" : 'OpenAI structured output';
  throw new ConfigurationError(
    ConfigurationErrorCode.schemaInvalid,
    `the schema's root has ${found}, but ${who} needs a root of type "object" (no array, union or $ref at the root): it is not wrapped automatically, since the answer would then not match the schema it is validated with; wrap it in the schema itself, e.g. { "type": "object", "properties": { "items": <schema> }, "required": ["items"], "additionalProperties": false }`,
  );
}

function strictChoice(
  schema: ProviderJsonSchema,
  strict: boolean | 'auto',
): { schema: ProviderJsonSchema; strict: boolean } {
  if (strict === false) return { schema, strict: false };
  const closed = guardDepth(() => closeObjects(schema));
  const problems = problemsOf(schema, closed);
  if (problems.length === 0) return { schema: closed, strict: true };
  if (strict === 'auto') return { schema, strict: false };
  const shown = problems
    .slice(0, MAX_PROBLEMS_SHOWN)
    .map((p) => `at ${p.pointer === '' ? '/' : quoteInput(p.pointer)}: ${p.message}`)
    .join('; ');
  const more = problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : '';
  throw new ConfigurationError(
    ConfigurationErrorCode.schemaInvalid,
    `the schema cannot be sent with strict: true, OpenAI strict mode does not accept it: ${shown}${more} (strict: 'auto' sends it with strict: false instead)`,
  );
}

function isObjectSchema(schema: ProviderJsonSchema): boolean {
  const type = schema.type;
  return (
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    (type === undefined && isObject(schema.properties))
  );
}

/** A copy of `schema` whose objects with `properties` and no word on other keys say `additionalProperties: false`. */
function closeObjects(schema: ProviderJsonSchema, ancestors: Set<object> = new Set()): ProviderJsonSchema {
  enter(schema, ancestors);
  // Object.fromEntries defines keys, so a property named "__proto__" stays a property.
  const close = (sub: unknown): unknown => (isObject(sub) ? closeObjects(sub, ancestors) : sub);
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([keyword, value]): [string, unknown] => {
      if (MAP_KEYWORDS.has(keyword) && isObject(value)) {
        return [keyword, Object.fromEntries(Object.entries(value).map(([key, sub]) => [key, close(sub)]))];
      }
      if ((LIST_KEYWORDS.has(keyword) || keyword === 'items') && Array.isArray(value))
        return [keyword, value.map(close)];
      if (ONE_KEYWORDS.has(keyword)) return [keyword, close(value)];
      return [keyword, value];
    }),
  );
  if (
    isObjectSchema(schema) &&
    isObject(schema.properties) &&
    !['additionalProperties', 'patternProperties', 'unevaluatedProperties'].some((k) => Object.hasOwn(schema, k))
  ) {
    out.additionalProperties = false;
  }
  ancestors.delete(schema);
  return out;
}

function collectStrictProblems(
  schema: ProviderJsonSchema,
  pointer: string,
  problems: StrictSchemaProblem[],
  ancestors: Set<object>,
): void {
  enter(schema, ancestors);
  for (const keyword of STRICT_UNSUPPORTED_KEYWORDS) {
    if (Object.hasOwn(schema, keyword)) {
      problems.push({ pointer, message: `"${keyword}" is not supported in strict mode` });
    }
  }
  if (isObjectSchema(schema)) {
    if (schema.additionalProperties !== false) {
      problems.push({
        pointer,
        message: 'additionalProperties must be false (strict mode has no free-form objects, records or extra keys)',
      });
    }
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const key of Object.keys(isObject(schema.properties) ? schema.properties : {})) {
      if (!required.includes(key)) {
        problems.push({
          pointer,
          message: `property "${quoteInput(key)}" is not in "required": strict mode has no optional properties; make it required, and nullable if it may be missing (zod: .nullable() rather than .optional())`,
        });
      }
    }
  }
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${pointer}/${escapePointer(keyword)}`;
    if (MAP_KEYWORDS.has(keyword) && isObject(value)) {
      for (const [key, sub] of Object.entries(value)) {
        if (isObject(sub)) collectStrictProblems(sub, `${at}/${escapePointer(key)}`, problems, ancestors);
      }
    } else if ((LIST_KEYWORDS.has(keyword) || keyword === 'items') && Array.isArray(value)) {
      value.forEach((sub: unknown, i) => {
        if (isObject(sub)) collectStrictProblems(sub, `${at}/${i}`, problems, ancestors);
      });
    } else if (ONE_KEYWORDS.has(keyword) && isObject(value)) {
      collectStrictProblems(value, at, problems, ancestors);
    }
  }
  ancestors.delete(schema);
}

/** Marks `schema` as being walked; a schema object that contains itself is not JSON. */
function enter(schema: object, ancestors: Set<object>): void {
  if (ancestors.has(schema)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      'the schema object contains itself (a cycle of JavaScript references): it cannot be sent as JSON; use $ref for recursion',
    );
  }
  ancestors.add(schema);
}

function isObject(value: unknown): value is ProviderJsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Runs a recursive walk, reporting a schema too deep for the stack as a configuration error. */
function guardDepth<T>(walk: () => T): T {
  try {
    return walk();
  } catch (error) {
    if (error instanceof RangeError) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        'the schema is nested too deeply to be sent as structured output',
        { cause: error },
      );
    }
    throw error;
  }
}

/** The options `structuredOutput` (and `openAICompatible`'s `structuredOutput`) take. */
export const STRUCTURED_OUTPUT_OPTIONS = /* @__PURE__ */ optionNames<StructuredOutputOptions>()([
  'name',
  'description',
  'strict',
]);
