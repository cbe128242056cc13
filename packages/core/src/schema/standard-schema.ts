/**
 * Standard Schema (v1, `@standard-schema/spec`) behind the validator seam: zod 4, valibot 1,
 * arktype 2 and any other vendor whose schemas carry `~standard` are accepted wherever the
 * engines take a `schema` (docs/decisions/016-standard-schema.md).
 *
 * Contract: `compileStandardSchema(schema, options)` returns a `CompiledSchema`, cached per
 * schema object and discriminator choice, like `compileSchema`. The vendor's own
 * `~standard.validate` decides validity, always. Its issues become `SchemaError`s: `path` a
 * JSON Pointer built from the issue's path (keys or `{ key }` segments), `keyword` the issue's
 * `code` when the vendor gives one (zod, arktype) and `standard` otherwise (valibot),
 * `message` the vendor's; the one-line message is formatted as for ajv (`at /a/0: …`).
 *
 * Semantics:
 * - Async: the engines are synchronous. A `validate` that returns a Promise throws a
 *   ConfigurationError (code `SCHEMA_ASYNC`) from the first validation, saying that async
 *   validation is not supported. It cannot be found earlier: vendors go async only when a
 *   value reaches an async refinement.
 *   zod 4 turns a refinement that throws into a Promise too (its `validate` retries
 *   asynchronously after any synchronous throw): for zod, the schema is run synchronously once
 *   more (`_zod.run`), and only zod's own "Encountered Promise" error counts as async; any other
 *   throw is reported as below. For other vendors a Promise is always taken as async.
 * - Depth: a stack overflow inside the vendor's `validate` is the value's depth, reported as
 *   the same `depth` result as the ajv path.
 * - A `validate` that misbehaves fails the value, never the stream: when it throws (anything:
 *   an Error, a string, an object whose getters throw), returns what is not a result
 *   (`undefined`, `null`, a string, `{ issues: "x" }`, an issue that is not an object or whose
 *   path is not a list of keys, a result whose properties throw when read), or rejects without
 *   an issue (`{ issues: [] }`), the value gets one error with keyword `standard-validate`
 *   (STANDARD_VALIDATE_KEYWORD) whose message names the vendor and what it threw or returned
 *   (quoted, at most MAX_QUOTED_LENGTH characters), so that every engine reports it as a
 *   `schema` diagnostic. What can be seen at construction (no `validate` function, a version
 *   other than 1, a `~standard` whose properties throw when read) is a ConfigurationError then.
 * - Issues: at most MAX_SCHEMA_ERRORS are kept, then one `errors-omitted` entry (diagnostics.ts);
 *   each issue's message is quoted at most MAX_QUOTED_LENGTH characters long.
 * - Dispatch: where the vendor exports JSON Schema (Standard JSON Schema,
 *   `~standard.jsonSchema.input({ target: 'draft-2020-12' })`: zod 4, arktype 2, valibot
 *   through `@valibot/to-json-schema`'s `toStandardJsonSchema`), the export's root
 *   `oneOf`/`anyOf` is searched for a discriminator exactly as a JSON Schema's is
 *   (`findDispatch`). With one, a value that is not an object or names no branch is reported
 *   as the ajv path reports it (`unknown discriminator …; expected one of …`) without calling
 *   the vendor, and every other value is validated whole by the vendor and reported with its
 *   `branch`. The vendor is reached through `~standard.validate` only, never its internals: a
 *   zod union dispatches by itself as fast as a hand-written switch would (decision 016,
 *   addendum of 2026-11-27). This accepts what the vendor accepts as long as the export is faithful (each
 *   branch requires its constant), which is what the vendors' exports say of a discriminated
 *   union.
 * - Schema-limited: where no JSON Schema can be had (no `jsonSchema` on `~standard`, or the
 *   export throws, as zod's does for types JSON Schema cannot express), values are validated
 *   whole only: no dispatch, no `branch`, and an explicit `discriminator` is a
 *   ConfigurationError. Element streams then need `elementSchema`, and the partial builder
 *   checks only the complete document. zod 4's `z.toJSONSchema` is not called separately: the
 *   installed zod 4 already exposes the same converter on `~standard.jsonSchema`.
 */

import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { capSchemaErrors, quoteInput, type SchemaError } from '../diagnostics/diagnostics.js';
import { escapePointer } from './json-pointer.js';
import {
  type CompiledSchema,
  type CompileOptions,
  compiledOnce,
  dispatchFailure,
  findDispatch,
  formatSchemaErrors,
  isStackOverflow,
  type JsonSchema,
  tooDeep,
  VALID,
  type ValidationResult,
} from './schema-validator.js';

/** What a `schema` option takes: a JSON Schema, or any Standard Schema v1 (zod 4, valibot 1, arktype 2…). */
export type SchemaInput = JsonSchema | StandardSchemaV1;

/**
 * The type of the values an engine delivers for a `schema` of type `S`:
 * - a Standard Schema: its input type (`StandardSchemaV1.InferInput`), because the engines
 *   deliver the parsed JSON value that the vendor's `validate` accepted, not the vendor's
 *   output (transforms, defaults and coercions are not applied); for a schema without them the
 *   input and output types are the same;
 * - a JSON Schema written `as const`: the type `json-schema-to-ts` infers (`FromSchema`);
 * - a JSON Schema of a wider type (`JsonSchema`, parsed from a file…), one with a `$ref`
 *   anywhere (json-schema-to-ts cannot resolve a recursive `$ref: '#'` without looping), or no
 *   schema: `unknown`.
 */
export type SchemaValue<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferInput<S>
  : S extends JSONSchema
    ? string extends keyof S
      ? unknown
      : HasRef<S> extends true
        ? unknown
        : FromSchema<S>
    : unknown;

/** Whether a JSON Schema literal holds a `$ref` within `Depth` levels (deeper counts as yes). */
type HasRef<S, Depth extends readonly unknown[] = []> = Depth['length'] extends 16
  ? true
  : S extends { readonly $ref: unknown }
    ? true
    : S extends object
      ? true extends { [K in keyof S]-?: HasRef<S[K], [...Depth, unknown]> }[keyof S]
        ? true
        : false
      : false;

/** Whether `schema` is a Standard Schema: it carries `~standard` (arktype's types are functions). */
export function isStandardSchema(schema: unknown): schema is StandardSchemaV1 {
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) return false;
  try {
    if (!('~standard' in schema)) return false;
    const standard = (schema as { '~standard': unknown })['~standard'];
    return typeof standard === 'object' && standard !== null;
  } catch {
    // A `~standard` that throws when read: taken as a Standard Schema, so that compiling it
    // reports a configuration error that says so, rather than a JSON Schema error.
    return true;
  }
}

const jsonSchemas = new WeakMap<object, { readonly json: JsonSchema | undefined }>();

/**
 * The JSON Schema a Standard Schema exports for its input (draft 2020-12), once per schema
 * object; `undefined` when the vendor offers none or its converter throws (a type JSON Schema
 * cannot express).
 */
export function jsonSchemaOf(schema: StandardSchemaV1): JsonSchema | undefined {
  let entry = jsonSchemas.get(schema);
  if (entry === undefined) {
    let json: JsonSchema | undefined;
    try {
      const converter = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
      if (typeof converter?.input === 'function') {
        const exported: unknown = converter.input({ target: 'draft-2020-12' });
        if (typeof exported === 'object' && exported !== null && !Array.isArray(exported)) {
          json = exported as JsonSchema;
        }
      }
    } catch {
      json = undefined;
    }
    entry = { json };
    jsonSchemas.set(schema, entry);
  }
  return entry.json;
}

/** An issue's path as a JSON Pointer: `['a', 0]` and `[{ key: 'a' }, { key: 0 }]` both give `/a/0`. */
export function issuePointer(path: StandardSchemaV1.Issue['path']): string {
  if (path === undefined) return '';
  let pointer = '';
  for (const segment of path) {
    const key: PropertyKey = typeof segment === 'object' && segment !== null ? segment.key : segment;
    const text = typeof key === 'symbol' ? (key.description ?? '') : String(key);
    pointer += `/${escapePointer(text)}`;
  }
  return pointer;
}

/**
 * The `keyword` of the one error a value gets when the vendor's `validate` misbehaves: it
 * threw, or returned something that is not a Standard Schema result (see the file's contract).
 */
export const STANDARD_VALIDATE_KEYWORD = 'standard-validate';

/** What the vendor said of a value: `undefined` when valid, else its errors and one-line message. */
type Verdict = { readonly errors: readonly SchemaError[]; readonly message: string } | undefined;

/**
 * The vendor's verdict on a value. Throws only the async error (a Promise) and a stack
 * overflow (the value's depth, for `tooDeep`); whatever else `validate` throws or returns is a
 * verdict: its issues, or one `standard-validate` error that says what it threw or returned.
 */
type Check = (value: unknown) => Verdict;

/** How a message shows a value the vendor threw or returned: bounded, never throwing. */
function describe(value: unknown): string {
  try {
    if (typeof value === 'string') return `the string ${JSON.stringify(quoteInput(value))}`;
    if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
    return typeof value === 'symbol' || typeof value === 'function' ? `a ${typeof value}` : String(value);
  } catch {
    return 'a value that cannot be read';
  }
}

/** How a message shows what `validate` threw: an Error's name and message, else `describe`. */
function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) {
      const name = typeof thrown.name === 'string' && thrown.name !== '' ? thrown.name : 'Error';
      const message = typeof thrown.message === 'string' ? thrown.message : '';
      return quoteInput(message === '' ? name : `${name}: ${message}`);
    }
  } catch {
    // An Error whose name or message throws when read: described by its kind below.
  }
  return describe(thrown);
}

/** `isStackOverflow` for anything thrown: a value whose prototype or getters throw is not one. */
function overflowed(thrown: unknown): boolean {
  try {
    return isStackOverflow(thrown);
  } catch {
    return false;
  }
}

/** The verdict for a `validate` that misbehaved: one error, whose message says what it did. */
function misbehaved(vendor: string, what: string): Verdict {
  const message = `the ${vendor} schema's validate ${what}; it must return { value } or { issues } (at least one) without throwing: fix the schema or report it to its vendor`;
  const errors: SchemaError[] = [
    { path: '', keyword: STANDARD_VALIDATE_KEYWORD, message, schemaPath: `~standard/${vendor}`, params: {} },
  ];
  return { errors, message };
}

/** One issue as a SchemaError, or a string saying how it is malformed. */
function toSchemaError(issue: unknown, vendor: string): SchemaError | string {
  if (typeof issue !== 'object' || issue === null) return describe(issue);
  const { message, path, code } = issue as { message?: unknown; path?: unknown; code?: unknown };
  if (path !== undefined && !Array.isArray(path)) return `an issue whose path is ${describe(path)}, not a list`;
  for (const segment of (path ?? []) as readonly unknown[]) {
    const key = typeof segment === 'object' && segment !== null ? (segment as { key?: unknown }).key : segment;
    if (typeof key !== 'string' && typeof key !== 'number' && typeof key !== 'symbol') {
      return `an issue whose path holds ${describe(segment)}, not a key`;
    }
  }
  return {
    path: issuePointer(path as StandardSchemaV1.Issue['path']),
    keyword: typeof code === 'string' ? quoteInput(code) : 'standard',
    // Bounded like every piece of input a diagnostic quotes: a vendor's message can be megabytes.
    message: typeof message === 'string' && message !== '' ? quoteInput(message) : 'is invalid',
    schemaPath: `~standard/${vendor}`,
    params: {},
  };
}

/** The verdict for what `validate` returned (not a Promise): its issues, or how it is malformed. */
function verdictOf(result: unknown, vendor: string): Verdict {
  if (typeof result !== 'object' || result === null) return misbehaved(vendor, `returned ${describe(result)}`);
  const issues = (result as { issues?: unknown }).issues;
  if (issues === undefined) return undefined;
  if (!Array.isArray(issues)) return misbehaved(vendor, `returned issues that are ${describe(issues)}, not a list`);
  if (issues.length === 0) {
    return misbehaved(vendor, 'returned an empty list of issues (it rejected the value without saying why)');
  }
  let malformed: string | undefined;
  const errors = capSchemaErrors(issues as readonly unknown[], (issue, i) => {
    const error = toSchemaError(issue, vendor);
    if (typeof error === 'string') {
      malformed ??= `returned issue ${i} as ${error}`;
      return { path: '', keyword: STANDARD_VALIDATE_KEYWORD, message: error, schemaPath: '', params: {} };
    }
    return error;
  });
  if (malformed !== undefined) return misbehaved(vendor, malformed);
  return { errors, message: formatSchemaErrors(errors) };
}

function asyncError(vendor: string): ConfigurationError {
  return new ConfigurationError(
    ConfigurationErrorCode.schemaAsync,
    `the ${vendor} schema validated asynchronously (its validate returned a Promise): async validation is not supported by the synchronous engines; remove async refinements or transforms from the schema`,
  );
}

/** What zod 4 gives libraries to run a schema (`zod/v4/core`: `_zod.run(payload, ctx)`). */
interface ZodRunner {
  readonly _zod?: { run?: (payload: { value: unknown; issues: unknown[] }, ctx: { async: boolean }) => unknown };
}

/** Whether `error` is zod's "Encountered Promise during synchronous parse" (`$ZodAsyncError`). */
function isZodAsyncError(error: unknown): boolean {
  try {
    return (
      error instanceof Error &&
      (error.constructor?.name === '$ZodAsyncError' ||
        String(error.message).startsWith('Encountered Promise during synchronous'))
    );
  } catch {
    return false;
  }
}

/**
 * Why zod 4 returned a Promise. Its `validate` runs the schema synchronously and, when that
 * throws for any reason, runs it again asynchronously and returns that Promise: a refinement
 * that throws looks exactly like an async one. Running the schema synchronously once more tells
 * them apart: zod's `$ZodAsyncError` (or a Promise) is async; anything else thrown is what the
 * refinement threw (`{ thrown }`). `undefined`: async, or not a zod schema this can run.
 */
function zodSyncThrow(schema: unknown, value: unknown): { readonly thrown: unknown } | undefined {
  try {
    const internals = (schema as ZodRunner)._zod;
    if (typeof internals?.run !== 'function') return undefined;
    const result = internals.run({ value, issues: [] }, { async: false });
    if (result instanceof Promise) result.then(undefined, () => undefined);
    return undefined;
  } catch (thrown) {
    if (overflowed(thrown)) throw thrown; // the value's depth (`tooDeep`)
    return isZodAsyncError(thrown) ? undefined : { thrown };
  }
}

/**
 * The check of `schema`, whose `~standard.validate` is `validateStandard`: never throws but for
 * the async error and a stack overflow (see `Check`).
 */
function checkFunction(validateStandard: StandardSchemaV1.Props['validate'], vendor: string, schema: unknown): Check {
  return (value) => {
    let result: unknown;
    try {
      result = validateStandard(value);
    } catch (thrown) {
      if (overflowed(thrown)) throw thrown; // the value's depth (`tooDeep`)
      return misbehaved(vendor, `threw ${describeThrown(thrown)}`);
    }
    let asyncThrown: ConfigurationError | undefined;
    try {
      if (typeof result === 'object' && result !== null && typeof (result as { then?: unknown }).then === 'function') {
        try {
          // Nobody awaits it: keep a rejection from surfacing as an unhandled one.
          (result as Promise<unknown>).then(undefined, () => undefined);
        } catch {
          // A thenable whose then throws: it is still not a result the engines can wait for.
        }
        const sync = vendor === 'zod' ? zodSyncThrow(schema, value) : undefined;
        if (sync !== undefined) return misbehaved(vendor, `threw ${describeThrown(sync.thrown)}`);
        asyncThrown = asyncError(vendor);
        throw asyncThrown;
      }
      return verdictOf(result, vendor);
    } catch (thrown) {
      // A result (or one of its issues) whose properties throw when read.
      if (thrown === asyncThrown || overflowed(thrown)) throw thrown;
      return misbehaved(vendor, `returned a result that threw ${describeThrown(thrown)} when read`);
    }
  };
}

function compileUncached(schema: StandardSchemaV1, options: CompileOptions): CompiledSchema {
  let version: unknown;
  let validateStandard: unknown;
  let vendorName: unknown;
  try {
    const standard = schema['~standard'];
    version = standard.version;
    validateStandard = standard.validate;
    vendorName = standard.vendor;
  } catch (cause) {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `unsupported Standard Schema: reading its ~standard threw ${describeThrown(cause)}`,
      { cause },
    );
  }
  if (version !== 1 || typeof validateStandard !== 'function') {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `unsupported Standard Schema: version ${describe(version)} with ${typeof validateStandard === 'function' ? 'a' : 'no'} validate function; supported: version 1`,
    );
  }
  // Quoted once, here: the vendor's name goes into every message and every error's schemaPath.
  const vendor = typeof vendorName === 'string' ? quoteInput(vendorName) : 'unknown';

  const check = checkFunction(validateStandard as StandardSchemaV1.Props['validate'], vendor, schema);

  const json = jsonSchemaOf(schema);
  const dispatch =
    options.discriminator === false || json === undefined || typeof json === 'boolean'
      ? undefined
      : findDispatch(json, options.discriminator);
  if (typeof options.discriminator === 'string' && (dispatch === undefined || typeof dispatch === 'string')) {
    const why = dispatch ?? `the ${vendor} schema offers no JSON Schema export to find branches in`;
    throw new ConfigurationError(
      ConfigurationErrorCode.discriminatorInvalid,
      `discriminator "${quoteInput(options.discriminator)}" cannot be used: ${why}`,
    );
  }

  if (dispatch === undefined || typeof dispatch === 'string') {
    const validate = (value: unknown): ValidationResult => {
      let verdict: Verdict;
      try {
        verdict = check(value);
      } catch (error) {
        return tooDeep(error); // a stack overflow is the value's depth; the async error propagates
      }
      if (verdict === undefined) return VALID;
      return { valid: false, errors: verdict.errors, message: verdict.message };
    };
    return { validate };
  }

  const names = dispatch.constants.map(String);
  const validResults: ValidationResult[] = names.map((branch) => Object.freeze({ valid: true, branch }));
  const index = new Map<unknown, number>(dispatch.constants.map((constant, i) => [constant, i]));
  const property = dispatch.property;
  const validate = (value: unknown): ValidationResult => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return dispatchFailure(value, dispatch);
    const i = index.get((value as Record<string, unknown>)[property]);
    if (i === undefined) return dispatchFailure(value, dispatch);
    const branch = names[i] as string;
    let verdict: Verdict;
    try {
      verdict = check(value);
    } catch (error) {
      return tooDeep(error);
    }
    if (verdict === undefined) return validResults[i] as ValidationResult;
    return {
      valid: false,
      branch,
      errors: verdict.errors,
      message: `branch "${quoteInput(branch)}": ${verdict.message}`,
    };
  };
  return { validate, discriminator: property, branches: names };
}

const cache = new WeakMap<object, Map<string, CompiledSchema>>();

/** Compiles a Standard Schema once; later calls with the same schema object reuse the validator. */
export function compileStandardSchema(schema: StandardSchemaV1, options: CompileOptions = {}): CompiledSchema {
  const key = options.discriminator === undefined ? '' : JSON.stringify(options.discriminator);
  return compiledOnce(cache, schema, key, () => compileUncached(schema, options));
}
