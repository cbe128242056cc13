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
 * - Depth: a stack overflow inside the vendor's `validate` is the value's depth, reported as
 *   the same `depth` result as the ajv path; any other exception propagates (a bug).
 * - Dispatch: where the vendor exports JSON Schema (Standard JSON Schema,
 *   `~standard.jsonSchema.input({ target: 'draft-2020-12' })`: zod 4, arktype 2, valibot
 *   through `@valibot/to-json-schema`'s `toStandardJsonSchema`), the export's root
 *   `oneOf`/`anyOf` is searched for a discriminator exactly as a JSON Schema's is
 *   (`findDispatch`). With one, a value that is not an object or names no branch is reported
 *   as the ajv path reports it (`unknown discriminator …; expected one of …`) without calling
 *   the vendor, and every other value is validated whole by the vendor and reported with its
 *   `branch` (a zod 4 `z.discriminatedUnion` without checks of its own is validated by the
 *   branch's own `validate`, which is what the union runs: `branchValidators`). This accepts what the vendor accepts as long as the export is faithful (each
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
import { quoteInput, type SchemaError } from './diagnostics.js';
import { escapePointer } from './json-pointer.js';
import {
  type CompiledSchema,
  type CompileOptions,
  ConfigurationError,
  ConfigurationErrorCode,
  compiledOnce,
  dispatchFailure,
  findDispatch,
  formatSchemaErrors,
  type JsonSchema,
  tooDeep,
  VALID,
  type ValidationResult,
} from './schema-validator.js';

export type { StandardSchemaV1 } from '@standard-schema/spec';

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
  return (
    (typeof schema === 'object' || typeof schema === 'function') &&
    schema !== null &&
    '~standard' in schema &&
    typeof (schema as { '~standard': unknown })['~standard'] === 'object' &&
    (schema as { '~standard': unknown })['~standard'] !== null
  );
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
    const converter = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
    let json: JsonSchema | undefined;
    if (typeof converter?.input === 'function') {
      try {
        const exported: unknown = converter.input({ target: 'draft-2020-12' });
        if (typeof exported === 'object' && exported !== null && !Array.isArray(exported)) {
          json = exported as JsonSchema;
        }
      } catch {
        json = undefined;
      }
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

function toSchemaErrors(issues: readonly StandardSchemaV1.Issue[], vendor: string): SchemaError[] {
  return issues.map((issue) => {
    const code = (issue as { readonly code?: unknown }).code;
    return {
      path: issuePointer(issue.path),
      keyword: typeof code === 'string' ? code : 'standard',
      message: typeof issue.message === 'string' && issue.message !== '' ? issue.message : 'is invalid',
      schemaPath: `~standard/${vendor}`,
      params: {},
    };
  });
}

function asyncError(vendor: string): ConfigurationError {
  return new ConfigurationError(
    ConfigurationErrorCode.schemaAsync,
    `the ${quoteInput(vendor)} schema validated asynchronously (its validate returned a Promise): async validation is not supported by the synchronous engines; remove async refinements or transforms from the schema`,
  );
}

/** The vendor's issues for a value (`undefined`: valid). Throws what validate throws, or the async error. */
type IssuesOf = (value: unknown) => readonly StandardSchemaV1.Issue[] | undefined;

function issuesFunction(validateStandard: StandardSchemaV1.Props['validate'], vendor: string): IssuesOf {
  return (value) => {
    const result = validateStandard(value);
    if (typeof (result as { then?: unknown }).then === 'function') {
      // Nobody awaits it: keep a rejection from surfacing as an unhandled one.
      (result as Promise<unknown>).then(undefined, () => undefined);
      throw asyncError(vendor);
    }
    return (result as StandardSchemaV1.Result<unknown>).issues;
  };
}

/** What a zod 4 discriminated union exposes to libraries (`zod/v4/core`: `_zod.def`, `_zod.propValues`). */
interface ZodUnionInternals {
  readonly _zod?: {
    readonly def?: {
      readonly type?: unknown;
      readonly discriminator?: unknown;
      readonly options?: unknown;
      readonly checks?: unknown;
      readonly unionFallback?: unknown;
    };
  };
}

/**
 * Dispatch straight to the branch, where the vendor's union would do nothing else: a zod 4
 * `z.discriminatedUnion` on the dispatch property, with no checks of its own (`.refine`,
 * `.check`) and no `unionFallback`, whose options each pin the property to exactly one of the
 * dispatch constants. Its `validate` looks the tag up and runs that option with the same input
 * and context, so the option's own `validate` returns the same issues; calling it skips a
 * second lookup (decision 016: dispatch ≤ 1.0× a direct branch). Anything else — another
 * vendor, a refined union, an option that cannot be matched to one constant — returns
 * `undefined`, and the union's own `validate` is called, as always.
 */
function branchValidators(
  schema: StandardSchemaV1,
  dispatch: { readonly property: string; readonly constants: readonly unknown[] },
  vendor: string,
): IssuesOf[] | undefined {
  if (vendor !== 'zod') return undefined;
  const def = (schema as ZodUnionInternals)._zod?.def;
  if (def === undefined || def.type !== 'union' || def.discriminator !== dispatch.property) return undefined;
  if (def.unionFallback === true || (Array.isArray(def.checks) && def.checks.length > 0)) return undefined;
  if (def.checks !== undefined && !Array.isArray(def.checks)) return undefined;
  const options = def.options;
  if (!Array.isArray(options) || options.length !== dispatch.constants.length) return undefined;
  const byConstant = new Map<unknown, IssuesOf>();
  for (const option of options) {
    if (!isStandardSchema(option)) return undefined;
    const values = (option as { _zod?: { propValues?: Record<string, unknown> } })._zod?.propValues?.[
      dispatch.property
    ];
    if (!(values instanceof Set) || values.size !== 1) return undefined;
    const [constant] = values;
    const standard = option['~standard'];
    if (byConstant.has(constant) || standard.version !== 1 || typeof standard.validate !== 'function') {
      return undefined;
    }
    byConstant.set(constant, issuesFunction(standard.validate, vendor));
  }
  const validators: IssuesOf[] = [];
  for (const constant of dispatch.constants) {
    const validator = byConstant.get(constant);
    if (validator === undefined) return undefined;
    validators.push(validator);
  }
  return validators;
}

function compileUncached(schema: StandardSchemaV1, options: CompileOptions): CompiledSchema {
  const standard = schema['~standard'];
  if (standard.version !== 1 || typeof standard.validate !== 'function') {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `unsupported Standard Schema: version ${quoteInput(String(standard.version))} with ${typeof standard.validate === 'function' ? 'a' : 'no'} validate function; supported: version 1`,
    );
  }
  const vendor = typeof standard.vendor === 'string' ? standard.vendor : 'unknown';
  const validateStandard = standard.validate;

  const issuesOf = issuesFunction(validateStandard, vendor);

  const json = jsonSchemaOf(schema);
  const dispatch =
    options.discriminator === false || json === undefined || typeof json === 'boolean'
      ? undefined
      : findDispatch(json, options.discriminator);
  if (typeof options.discriminator === 'string' && (dispatch === undefined || typeof dispatch === 'string')) {
    const why = dispatch ?? `the ${quoteInput(vendor)} schema offers no JSON Schema export to find branches in`;
    throw new ConfigurationError(
      ConfigurationErrorCode.discriminatorInvalid,
      `discriminator "${quoteInput(options.discriminator)}" cannot be used: ${why}`,
    );
  }

  if (dispatch === undefined || typeof dispatch === 'string') {
    const validate = (value: unknown): ValidationResult => {
      let issues: readonly StandardSchemaV1.Issue[] | undefined;
      try {
        issues = issuesOf(value);
      } catch (error) {
        return tooDeep(error); // a stack overflow is the value's depth; anything else propagates
      }
      if (issues === undefined) return VALID;
      const errors = toSchemaErrors(issues, vendor);
      return { valid: false, errors, message: formatSchemaErrors(errors) };
    };
    return { validate };
  }

  const branchIssues = branchValidators(schema, dispatch, vendor);
  const names = dispatch.constants.map(String);
  const validResults: ValidationResult[] = names.map((branch) => Object.freeze({ valid: true, branch }));
  const index = new Map<unknown, number>(dispatch.constants.map((constant, i) => [constant, i]));
  const property = dispatch.property;
  const validate = (value: unknown): ValidationResult => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return dispatchFailure(value, dispatch);
    const i = index.get((value as Record<string, unknown>)[property]);
    if (i === undefined) return dispatchFailure(value, dispatch);
    const branch = names[i] as string;
    let issues: readonly StandardSchemaV1.Issue[] | undefined;
    try {
      issues = branchIssues === undefined ? issuesOf(value) : (branchIssues[i] as IssuesOf)(value);
    } catch (error) {
      return tooDeep(error);
    }
    if (issues === undefined) return validResults[i] as ValidationResult;
    const errors = toSchemaErrors(issues, vendor);
    return { valid: false, branch, errors, message: `branch "${quoteInput(branch)}": ${formatSchemaErrors(errors)}` };
  };
  return { validate, discriminator: property, branches: names };
}

const cache = new WeakMap<object, Map<string, CompiledSchema>>();

/** Compiles a Standard Schema once; later calls with the same schema object reuse the validator. */
export function compileStandardSchema(schema: StandardSchemaV1, options: CompileOptions = {}): CompiledSchema {
  const key = options.discriminator === undefined ? '' : JSON.stringify(options.discriminator);
  return compiledOnce(cache, schema, key, () => compileUncached(schema, options));
}
