/**
 * JSON Schema validation through ajv: one implementation of the validator seam
 * (`JsonSchemaCompiler`, schema-validator.ts), published as `@llmjson/core/ajv`. The Node
 * streams, contracts and the CLI use it by default; Web and core users pass it as
 * `compileJsonSchema` when they validate with JSON Schema, or use a Standard Schema, or code
 * generated ahead of time by `llmjson compile` (no `new Function` at run time).
 *
 * Contract: `compileSchema(schema, options)` compiles once (results are cached per schema
 * object and discriminator choice) and returns a validator that never throws on data. A
 * broken schema throws `ConfigurationError` at compile time, never at validation time.
 *
 * Dialects: draft-07 (the default when `$schema` is absent), 2019-09 and 2020-12, chosen by
 * `$schema`. Formats come from ajv-formats.
 *
 * Hardening (docs/decisions/013-linear-time-schema-regexes.md):
 * - Every regular expression a schema runs on data (`pattern`, `patternProperties` and the
 *   formats of ajv-formats) matches in time linear in the length of the string; a pattern
 *   that cannot is a ConfigurationError that names it (linear-regexp.ts).
 * - A schema whose references loop without descending into the value recurses forever on
 *   every value: it is a ConfigurationError naming the cycle (reference-cycles.ts).
 * - A value deep enough to exhaust the stack of the generated validator is invalid
 *   (`keyword: "depth"`), never an exception. Engines apply their depth guard before this.
 * - Messages quote user input (patterns, pointers, discriminator names and values) through
 *   `quoteInput`: at most MAX_QUOTED_LENGTH characters each.
 * - A result carries at most MAX_SCHEMA_ERRORS errors, then one `errors-omitted` entry counting
 *   the rest (diagnostics.ts). ajv still runs with `allErrors` and so still collects every
 *   error: it has no option to stop after N, and stopping at the first would lose the 2nd and
 *   3rd errors that messages show. The collection is linear in the value (a 1.4 MB line with
 *   100 000 forbidden keys validates in about the time JSON.parse takes to read it); what grew
 *   without bound was the output, 17 MB of errors for that line.
 *
 * Dispatch follows `findDispatch` (schema-validator.ts): each branch is compiled on its own
 * and only the branch a value names runs.
 */

import { _, Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import equalModule from 'ajv/dist/runtime/equal.js';
import addFormatsModule from 'ajv-formats';
import { ConfigurationError, ConfigurationErrorCode } from './configuration-error.js';
import { capSchemaErrors, quoteInput, type SchemaError } from './diagnostics.js';
import { jsonEqual } from './json-equal.js';
import { linearRegExp, useLinearFormats } from './linear-regexp.js';
import { isObject, rejectReferenceCycles } from './reference-cycles.js';
import { internSchema } from './schema-intern.js';
import {
  type CompiledSchema,
  type CompileOptions,
  type Constant,
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

type AddFormats = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS; its default export arrives either as the function or wrapped.
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

const DIALECTS: Record<string, new (options: Options) => Ajv> = {
  'http://json-schema.org/draft-07/schema': Ajv,
  'https://json-schema.org/draft/2019-09/schema': Ajv2019 as unknown as new (options: Options) => Ajv,
  'https://json-schema.org/draft/2020-12/schema': Ajv2020 as unknown as new (options: Options) => Ajv,
};

/**
 * The ajv instance for `schema`'s dialect, and whether that dialect is draft-07. `code` adds to
 * the code options (ajv-standalone.ts asks for source generation); the linear-time regex engine
 * is always used.
 */
export function ajvFor(
  schema: JsonSchema,
  code: NonNullable<Options['code']> = {},
): { readonly ajv: Ajv; readonly draft07: boolean } {
  let dialect = Ajv as new (options: Options) => Ajv;
  if (typeof schema === 'object' && typeof schema.$schema === 'string') {
    const key = schema.$schema
      .replace(/#$/, '')
      .replace(/^http:\/\/json-schema\.org\/draft\/20/, 'https://json-schema.org/draft/20');
    // Own keys only: `$schema: "constructor"` names no dialect (not Object.prototype's member).
    const found = Object.hasOwn(DIALECTS, key) ? DIALECTS[key] : undefined;
    if (found === undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        `unsupported $schema "${quoteInput(schema.$schema)}"; supported: draft-07 (default), 2019-09, 2020-12`,
      );
    }
    dialect = found;
  }
  // strict: false accepts the annotation keywords real schemas carry (examples, x-*);
  // the schema itself is still meta-validated on compile.
  const ajv = new dialect({
    allErrors: true,
    strict: false,
    validateSchema: true,
    code: { ...code, regExp: linearRegExp },
  });
  useJsonEqual(ajv);
  addFormats(ajv);
  useLinearFormats(ajv);
  return { ajv, draft07: dialect === Ajv };
}

type Equal = (a: unknown, b: unknown) => boolean;
// ajv's equality module is CommonJS: Node hands over `module.exports` ({ default }), a bundler may
// hand over the function itself.
const ajvEqual: Equal = (equalModule as unknown as { default?: Equal }).default ?? (equalModule as unknown as Equal);

/**
 * `enum`, `const` and `uniqueItems` compare with jsonEqual instead of ajv's own equality, which
 * calls a value's own `valueOf` or `toString` (json-equal.ts). ajv's keywords ask the instance's
 * scope for their equality function by the function itself; registering ours under that key
 * first makes every one of them, in compiled code and in standalone code alike, use ours.
 */
function useJsonEqual(ajv: Ajv): void {
  ajv.scope.value('func', { key: ajvEqual, ref: jsonEqual, code: _`require("@llmjson/core/ajv").jsonEqual` });
}

/** ajv's errors as SchemaErrors: at most MAX_SCHEMA_ERRORS, then the count of the rest (capSchemaErrors). */
function toSchemaErrors(errors: readonly ErrorObject[] | null | undefined): SchemaError[] {
  return capSchemaErrors(errors ?? [], (e) => ({
    path: e.instancePath,
    keyword: e.keyword,
    message: e.message ?? 'is invalid',
    schemaPath: e.schemaPath,
    params: e.params as Record<string, unknown>,
  }));
}

/** Runs `compile`, turning whatever ajv throws into a ConfigurationError about `what`. */
export function configurationErrors<T>(what: string, compile: () => T): T {
  try {
    return compile();
  } catch (cause) {
    if (cause instanceof ConfigurationError) throw cause;
    // ajv compiles (and meta-validates) by recursion: a deep enough schema ends here.
    const detail = isStackOverflow(cause)
      ? 'nested too deeply to compile (stack overflow)'
      : quoteInput(cause instanceof Error ? cause.message : String(cause));
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, `invalid ${what}: ${detail}`, { cause });
  }
}

function compileWith(ajv: Ajv, schema: AnySchema, what: string): ValidateFunction {
  return configurationErrors(what, () => ajv.compile(schema));
}

function compileUncached(schema: JsonSchema, options: CompileOptions): CompiledSchema {
  if (typeof schema !== 'boolean' && !isObject(schema)) {
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, 'a schema must be an object or a boolean');
  }
  const { ajv, draft07 } = ajvFor(schema);
  // The root is registered under its own $id (or a private one) so that the discriminated
  // branches below can be compiled as references into it without registering it twice.
  const rootId = typeof schema === 'object' && typeof schema.$id === 'string' ? schema.$id : 'llmjson:root';
  let whole: ValidateFunction;
  if (typeof schema === 'boolean') {
    whole = compileWith(ajv, schema, 'schema');
  } else {
    // A self-applying schema recurses forever on its first value; ajv compiles most of them
    // without complaint and overflows the stack on the others (a ring of bare `$ref`s), so
    // the cycle is looked for first, to be named.
    rejectReferenceCycles(schema, rootId.replace(/#\/?$/, ''), draft07, ajv);
    whole = configurationErrors('schema', () => {
      ajv.addSchema(typeof schema.$id === 'string' ? schema : { ...schema, $id: rootId });
      const compiled = ajv.getSchema(rootId);
      if (compiled === undefined) throw new Error(`schema ${quoteInput(rootId)} could not be compiled`);
      return compiled;
    });
  }
  const validateWhole = (value: unknown): ValidationResult => {
    try {
      if (whole(value)) return VALID;
    } catch (error) {
      return tooDeep(error);
    }
    const errors = toSchemaErrors(whole.errors);
    return { valid: false, errors, message: formatSchemaErrors(errors) };
  };
  if (options.discriminator === false || typeof schema === 'boolean') {
    if (typeof options.discriminator === 'string') {
      throw new ConfigurationError(
        ConfigurationErrorCode.discriminatorInvalid,
        `discriminator "${quoteInput(options.discriminator)}" cannot apply to a boolean schema`,
      );
    }
    return { validate: validateWhole };
  }
  const dispatch = findDispatch(schema, options.discriminator);
  if (typeof dispatch === 'string') {
    if (options.discriminator !== undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.discriminatorInvalid,
        `discriminator "${quoteInput(options.discriminator)}" cannot be used: ${dispatch}`,
      );
    }
    return { validate: validateWhole };
  }

  // The branches are compiled by reference into the root, so local $refs, $defs and the
  // root's $id keep their meaning; the root's other keywords are validated separately.
  const rest: Record<string, unknown> = { ...schema };
  delete rest[dispatch.keyword];
  delete rest.$id;
  const hasOtherConstraints = Object.keys(rest).some(
    (k) => !['$schema', '$defs', 'definitions', 'title', 'description', '$comment', 'examples'].includes(k),
  );
  const base = hasOtherConstraints ? compileWith(ajv, rest, 'schema') : undefined;
  const validators = dispatch.constants.map((_, i) => {
    // The branch compiled in place (a JSON pointer into the registered root), not through a
    // `$ref` wrapper, so that validating it costs what validating it directly costs.
    const pointer = `${rootId}#/${dispatch.keyword}/${i}`;
    return configurationErrors(`${dispatch.keyword} branch ${i}`, () => {
      const compiled = ajv.getSchema(pointer);
      if (compiled === undefined) throw new Error(`${quoteInput(pointer)} could not be compiled`);
      return compiled;
    });
  });
  const names = dispatch.constants.map(String);
  // Shared results for valid values: the hot path allocates nothing (a try/catch costs nothing in V8).
  const validResults: ValidationResult[] = names.map((branch) => Object.freeze({ valid: true, branch }));
  const count = names.length;
  const select = buildSelector(dispatch.property, dispatch.constants, validators);
  const property = dispatch.property;

  const validate = (value: unknown): ValidationResult => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return dispatchFailure(value, dispatch);
    let code: number;
    let baseValid = true;
    try {
      code = select(value as Record<string, unknown>);
      if (code !== 2 * count && base !== undefined) baseValid = base(value);
    } catch (error) {
      return tooDeep(error);
    }
    if (code === 2 * count) return dispatchFailure(value, dispatch);
    const i = code % count;
    const branch = names[i] as string;
    if (base !== undefined && !baseValid) {
      const errors = toSchemaErrors(base.errors);
      return { valid: false, branch, errors, message: formatSchemaErrors(errors) };
    }
    if (code < count) return validResults[i] as ValidationResult;
    const errors = toSchemaErrors(validators[i]?.errors);
    return { valid: false, branch, errors, message: `branch "${quoteInput(branch)}": ${formatSchemaErrors(errors)}` };
  };
  return { validate, discriminator: property, branches: dispatch.constants.map(String) };
}

/**
 * Builds `select(value)`, which validates `value` against the branch its discriminator names:
 * it returns `i` when branch `i` accepts, `count + i` when branch `i` rejects, and `2 * count`
 * when no branch is named. The selector is generated as a `switch` with one call site per
 * branch, as a hand-written dispatcher would be, so each call site stays monomorphic and
 * dispatch costs what validating the named branch directly costs (a map lookup and one shared
 * call site measured about twice the validation time). ajv generates its validators the same
 * way, so this adds no new requirement on the runtime.
 */
function buildSelector(
  property: string,
  constants: readonly Constant[],
  validators: readonly ValidateFunction[],
): (value: Record<string, unknown>) => number {
  const count = constants.length;
  const parameters = validators.map((_, i) => `v${i}`);
  // JSON.stringify yields valid JavaScript literals for strings, numbers and booleans.
  const cases = constants
    .map((constant, i) => `case ${JSON.stringify(constant)}: return v${i}(value) ? ${i} : ${count + i};`)
    .join('\n');
  const body = `return function select(value) {\nswitch (value[${JSON.stringify(property)}]) {\n${cases}\n}\nreturn ${2 * count};\n};`;
  return new Function(...parameters, body)(...validators) as (value: Record<string, unknown>) => number;
}

const cache = new WeakMap<object, Map<string, CompiledSchema>>();
const booleanSchemas = new Map<string, CompiledSchema>();

/**
 * Compiles `schema` once per content: later calls with the same object, or with a new object of
 * the same content (parsed again, spread from a base), reuse the validator, which is compiled
 * from and cached on the content's private frozen representative (schema-intern.ts).
 */
export function compileSchema(schema: JsonSchema, options: CompileOptions = {}): CompiledSchema {
  const key = options.discriminator === undefined ? '' : JSON.stringify(options.discriminator);
  if (typeof schema === 'boolean') {
    const k = `${schema}:${key}`;
    let compiled = booleanSchemas.get(k);
    if (compiled === undefined) {
      compiled = compileUncached(schema, options);
      booleanSchemas.set(k, compiled);
    }
    return compiled;
  }
  if (!isObject(schema)) return compileUncached(schema, options);
  const representative = internSchema(schema);
  return compiledOnce(cache, representative, key, () => compileUncached(representative, options));
}
