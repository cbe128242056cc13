/**
 * JSON Schema validation with discriminator dispatch.
 *
 * Contract: `compileSchema(schema, options)` compiles once (results are cached per schema
 * object and discriminator choice) and returns a validator that never throws on data. A
 * broken schema throws `ConfigurationError` at compile time, never at validation time.
 *
 * Dialects: draft-07 (the default when `$schema` is absent), 2019-09 and 2020-12, chosen by
 * `$schema`. Formats come from ajv-formats.
 *
 * Discriminator dispatch: when the root is a `oneOf` (or `anyOf`) whose branches are all
 * object schemas that require one property pinned to a distinct constant
 * (`"type": {"const": "definition"}`), only the branch the value names is validated.
 * Invariant: dispatch accepts exactly what the full schema accepts. It holds because a value
 * can satisfy at most one branch (the constants differ and the property is required), so
 * `oneOf` and `anyOf` both reduce to "the named branch, plus the root's other keywords".
 */

import { Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { SchemaError } from './diagnostics.js';

/** A JSON Schema: an object or a boolean. */
export type JsonSchema = Readonly<Record<string, unknown>> | boolean;

export const ConfigurationErrorCode = {
  schemaInvalid: 'SCHEMA_INVALID',
  discriminatorInvalid: 'DISCRIMINATOR_INVALID',
  optionInvalid: 'OPTION_INVALID',
} as const;
export type ConfigurationErrorCode = (typeof ConfigurationErrorCode)[keyof typeof ConfigurationErrorCode];

/** A broken configuration: raised when a stream or validator is created, never for bad data. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  readonly code: ConfigurationErrorCode;
  constructor(code: ConfigurationErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export type ValidationResult =
  | { readonly valid: true; readonly branch?: string }
  | {
      readonly valid: false;
      readonly branch?: string;
      readonly errors: readonly SchemaError[];
      /** One line: `at /sections/0/start_line: must be integer`. */
      readonly message: string;
    };

export interface CompiledSchema {
  validate(value: unknown): ValidationResult;
  /** The discriminator property in use, when dispatch is active. */
  readonly discriminator?: string;
  /** Allowed discriminator values, in branch order. */
  readonly branches?: readonly string[];
}

export interface CompileOptions {
  /**
   * Discriminator property for `oneOf`/`anyOf` dispatch. Default: detected automatically
   * (`type`, then `kind`, then the first qualifying property). `false` turns dispatch off.
   */
  readonly discriminator?: string | false;
}

type AddFormats = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS; its default export arrives either as the function or wrapped.
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

const DIALECTS: Record<string, new (options: Options) => Ajv> = {
  'http://json-schema.org/draft-07/schema': Ajv,
  'https://json-schema.org/draft/2019-09/schema': Ajv2019 as unknown as new (options: Options) => Ajv,
  'https://json-schema.org/draft/2020-12/schema': Ajv2020 as unknown as new (options: Options) => Ajv,
};

function ajvFor(schema: JsonSchema): Ajv {
  let dialect = Ajv as new (options: Options) => Ajv;
  if (typeof schema === 'object' && typeof schema.$schema === 'string') {
    const key = schema.$schema
      .replace(/#$/, '')
      .replace(/^http:\/\/json-schema\.org\/draft\/20/, 'https://json-schema.org/draft/20');
    const found = DIALECTS[key];
    if (found === undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        `unsupported $schema "${schema.$schema}"; supported: draft-07 (default), 2019-09, 2020-12`,
      );
    }
    dialect = found;
  }
  // strict: false accepts the annotation keywords real schemas carry (examples, x-*);
  // the schema itself is still meta-validated on compile.
  const ajv = new dialect({ allErrors: true, strict: false, validateSchema: true });
  addFormats(ajv);
  return ajv;
}

function toSchemaErrors(errors: readonly ErrorObject[] | null | undefined): SchemaError[] {
  return (errors ?? []).map((e) => ({
    path: e.instancePath,
    keyword: e.keyword,
    message: e.message ?? 'is invalid',
    schemaPath: e.schemaPath,
    params: e.params as Record<string, unknown>,
  }));
}

/** One line for humans: `at /sections/0/start_line: must be integer; at /: must have ...`. */
export function formatSchemaErrors(errors: readonly SchemaError[], limit = 3): string {
  const shown = errors.slice(0, limit).map((e) => {
    const extra =
      e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string'
        ? ` ("${e.params.additionalProperty}")`
        : e.keyword === 'enum' && Array.isArray(e.params.allowedValues)
          ? ` (${e.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
          : '';
    return `at ${e.path === '' ? '/' : e.path}: ${e.message}${extra}`;
  });
  const more = errors.length > limit ? `; and ${errors.length - limit} more` : '';
  return shown.join('; ') + more;
}

/** Runs `compile`, turning whatever ajv throws into a ConfigurationError about `what`. */
function configurationErrors<T>(what: string, compile: () => T): T {
  try {
    return compile();
  } catch (cause) {
    if (cause instanceof ConfigurationError) throw cause;
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, `invalid ${what}: ${detail}`, { cause });
  }
}

function compileWith(ajv: Ajv, schema: AnySchema, what: string): ValidateFunction {
  return configurationErrors(what, () => ajv.compile(schema));
}

type SchemaObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` (`#/$defs/Name`, `#/definitions/Name`) within `root`. */
function resolveLocal(root: SchemaObject, schema: unknown, seen = 0): unknown {
  if (!isObject(schema) || typeof schema.$ref !== 'string' || seen > 16) return schema;
  const ref = schema.$ref;
  if (!ref.startsWith('#/')) return schema;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !Object.hasOwn(node, part)) return schema;
    node = node[part];
  }
  return resolveLocal(root, node, seen + 1);
}

type Constant = string | number | boolean;

/** The constant a branch pins `property` to, when the branch requires it. */
function pinnedConstant(branch: unknown, property: string): Constant | undefined {
  if (!isObject(branch) || !isObject(branch.properties)) return undefined;
  const required = branch.required;
  if (!Array.isArray(required) || !required.includes(property)) return undefined;
  const definition = branch.properties[property];
  if (!isObject(definition)) return undefined;
  let constant: unknown;
  if (Object.hasOwn(definition, 'const')) constant = definition.const;
  else if (Array.isArray(definition.enum) && definition.enum.length === 1) constant = definition.enum[0];
  else return undefined;
  return typeof constant === 'string' || typeof constant === 'number' || typeof constant === 'boolean'
    ? constant
    : undefined;
}

interface Dispatch {
  readonly keyword: 'oneOf' | 'anyOf';
  readonly property: string;
  readonly constants: readonly Constant[];
}

/** Finds the discriminator of a root `oneOf`/`anyOf`, or explains why `wanted` is not one. */
function findDispatch(root: SchemaObject, wanted: string | undefined): Dispatch | string {
  const keyword = Array.isArray(root.oneOf) ? 'oneOf' : Array.isArray(root.anyOf) ? 'anyOf' : undefined;
  if (keyword === undefined || (Array.isArray(root.oneOf) && Array.isArray(root.anyOf))) {
    return 'the schema root has no single oneOf/anyOf to dispatch on';
  }
  const branches = (root[keyword] as unknown[]).map((b) => resolveLocal(root, b));
  if (branches.length < 2) return `${keyword} has fewer than two branches`;
  const rootIsObject = root.type === 'object';
  for (const [i, b] of branches.entries()) {
    if (!isObject(b) || (b.type !== 'object' && !rootIsObject)) {
      return `${keyword} branch ${i} is not an object schema ("type": "object")`;
    }
  }
  const first = branches[0] as SchemaObject;
  const candidates = wanted !== undefined ? [wanted] : Object.keys(isObject(first.properties) ? first.properties : {});
  const qualifying: Dispatch[] = [];
  for (const property of candidates) {
    const constants: Constant[] = [];
    let why: string | undefined;
    for (const [i, b] of branches.entries()) {
      const constant = pinnedConstant(b, property);
      if (constant === undefined) {
        why = `${keyword} branch ${i} does not require "${property}" with a single constant value`;
        break;
      }
      if (constants.includes(constant)) {
        why = `${keyword} branches share the "${property}" value ${JSON.stringify(constant)}`;
        break;
      }
      constants.push(constant);
    }
    if (why === undefined) qualifying.push({ keyword, property, constants });
    else if (wanted !== undefined) return why;
  }
  const chosen =
    qualifying.find((d) => d.property === 'type') ?? qualifying.find((d) => d.property === 'kind') ?? qualifying[0];
  return chosen ?? `no property is pinned to a distinct constant in every ${keyword} branch`;
}

function compileUncached(schema: JsonSchema, options: CompileOptions): CompiledSchema {
  if (typeof schema !== 'boolean' && !isObject(schema)) {
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, 'a schema must be an object or a boolean');
  }
  const ajv = ajvFor(schema);
  // The root is registered under its own $id (or a private one) so that the discriminated
  // branches below can be compiled as references into it without registering it twice.
  const rootId = typeof schema === 'object' && typeof schema.$id === 'string' ? schema.$id : 'llmjson:root';
  let whole: ValidateFunction;
  if (typeof schema === 'boolean') {
    whole = compileWith(ajv, schema, 'schema');
  } else {
    whole = configurationErrors('schema', () => {
      ajv.addSchema(typeof schema.$id === 'string' ? schema : { ...schema, $id: rootId });
      const compiled = ajv.getSchema(rootId);
      if (compiled === undefined) throw new Error(`schema ${rootId} could not be compiled`);
      return compiled;
    });
  }
  const validateWhole = (value: unknown): ValidationResult => {
    if (whole(value)) return { valid: true };
    const errors = toSchemaErrors(whole.errors);
    return { valid: false, errors, message: formatSchemaErrors(errors) };
  };
  if (options.discriminator === false || typeof schema === 'boolean') {
    if (typeof options.discriminator === 'string') {
      throw new ConfigurationError(
        ConfigurationErrorCode.discriminatorInvalid,
        `discriminator "${options.discriminator}" cannot apply to a boolean schema`,
      );
    }
    return { validate: validateWhole };
  }
  const dispatch = findDispatch(schema, options.discriminator);
  if (typeof dispatch === 'string') {
    if (options.discriminator !== undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.discriminatorInvalid,
        `discriminator "${options.discriminator}" cannot be used: ${dispatch}`,
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
      if (compiled === undefined) throw new Error(`${pointer} could not be compiled`);
      return compiled;
    });
  });
  const names = dispatch.constants.map(String);
  // Shared results for valid values: the hot path allocates nothing.
  const validResults: ValidationResult[] = names.map((branch) => Object.freeze({ valid: true, branch }));
  const count = names.length;
  const select = buildSelector(dispatch.property, dispatch.constants, validators);
  const property = dispatch.property;
  const allowed = dispatch.constants.map((c) => JSON.stringify(c)).join(', ');

  const validate = (value: unknown): ValidationResult => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      const errors: SchemaError[] = [
        { path: '', keyword: 'type', message: 'must be object', schemaPath: '#/type', params: { type: 'object' } },
      ];
      return { valid: false, errors, message: `at /: must be object with "${property}" one of ${allowed}` };
    }
    const code = select(value as Record<string, unknown>);
    if (code === 2 * count) {
      const tag = (value as Record<string, unknown>)[property];
      const missing = tag === undefined;
      const message = missing
        ? `missing discriminator "${property}"; expected one of ${allowed}`
        : `unknown discriminator "${property}": ${JSON.stringify(tag)}; expected one of ${allowed}`;
      const errors: SchemaError[] = [
        {
          path: missing ? '' : `/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`,
          keyword: 'discriminator',
          message,
          schemaPath: `#/${dispatch.keyword}`,
          params: { property, allowed: dispatch.constants },
        },
      ];
      return { valid: false, errors, message };
    }
    const i = code % count;
    const branch = names[i] as string;
    if (base !== undefined && !base(value)) {
      const errors = toSchemaErrors(base.errors);
      return { valid: false, branch, errors, message: formatSchemaErrors(errors) };
    }
    if (code < count) return validResults[i] as ValidationResult;
    const errors = toSchemaErrors(validators[i]?.errors);
    return { valid: false, branch, errors, message: `branch "${branch}": ${formatSchemaErrors(errors)}` };
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

/**
 * The schema of the elements of the array at `path` (object keys from the root) inside a
 * document schema: `properties` along the path, then `items`, following local `$ref`s. The
 * document's `$defs`/`definitions` are carried over so local references keep resolving.
 * Throws ConfigurationError when the schema does not describe such an array.
 */
export function elementSchemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  let node: unknown = schema;
  for (const key of path) {
    node = resolveLocal(schema, node);
    const properties = isObject(node) ? node.properties : undefined;
    if (!isObject(properties) || !Object.hasOwn(properties, key)) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        `the schema has no "properties" entry for "${key}" on the path $.${path.join('.')}`,
      );
    }
    node = properties[key];
  }
  node = resolveLocal(schema, node);
  const items = isObject(node) ? node.items : undefined;
  if (!isObject(items) && typeof items !== 'boolean') {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `the schema has no single "items" schema for the array at $${path.map((k) => `.${k}`).join('')}`,
    );
  }
  if (typeof items === 'boolean') return items;
  const carried: Record<string, unknown> = { ...items };
  for (const keyword of ['$schema', '$defs', 'definitions'] as const) {
    if (schema[keyword] !== undefined && carried[keyword] === undefined) carried[keyword] = schema[keyword];
  }
  return carried;
}

/**
 * The sub-schema that applies to the value at `path` (object keys and array indices) inside a
 * document that `schema` describes, following `properties`, `additionalProperties`,
 * `prefixItems`/`items` and local `$ref`s; the document's `$defs`/`definitions` are carried
 * over. `undefined` when the path leads through a combinator (`oneOf`, `anyOf`, `allOf`,
 * `if`) or anything else whose meaning depends on the value: such subtrees are checked with
 * the whole document.
 */
export function subSchemaAt(schema: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  if (typeof schema === 'boolean') return schema;
  let node: unknown = schema;
  for (const segment of path) {
    node = resolveLocal(schema, node);
    if (typeof node === 'boolean') return node;
    if (
      !isObject(node) ||
      node.oneOf !== undefined ||
      node.anyOf !== undefined ||
      node.allOf !== undefined ||
      node.if !== undefined
    ) {
      return undefined;
    }
    if (typeof segment === 'number') {
      const prefix = Array.isArray(node.prefixItems)
        ? node.prefixItems
        : Array.isArray(node.items)
          ? node.items
          : undefined;
      if (prefix !== undefined && segment < prefix.length) node = prefix[segment];
      else if (prefix !== undefined) node = Array.isArray(node.items) ? node.additionalItems : node.items;
      else node = node.items;
    } else {
      const properties = isObject(node.properties) ? node.properties : undefined;
      if (properties !== undefined && Object.hasOwn(properties, segment)) node = properties[segment];
      else if (node.patternProperties !== undefined) return undefined;
      else node = node.additionalProperties;
    }
    if (node === undefined) return undefined;
  }
  node = resolveLocal(schema, node);
  if (typeof node === 'boolean') return node;
  if (!isObject(node)) return undefined;
  if (node === schema) return schema;
  // One carried copy per sub-schema, so that compileSchema's cache (by object) compiles it once.
  let carried = carriedCopies.get(node);
  if (carried === undefined) {
    const copy: Record<string, unknown> = { ...node };
    for (const keyword of ['$schema', '$defs', 'definitions'] as const) {
      if (schema[keyword] !== undefined && copy[keyword] === undefined) copy[keyword] = schema[keyword];
    }
    carried = copy;
    carriedCopies.set(node, carried);
  }
  return carried;
}

const carriedCopies = new WeakMap<object, SchemaObject>();

const cache = new WeakMap<object, Map<string, CompiledSchema>>();
const booleanSchemas = new Map<string, CompiledSchema>();

/** Compiles `schema` once; later calls with the same schema object reuse the validator. */
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
  let perSchema = cache.get(schema);
  if (perSchema === undefined) {
    perSchema = new Map();
    cache.set(schema, perSchema);
  }
  let compiled = perSchema.get(key);
  if (compiled === undefined) {
    compiled = compileUncached(schema, options);
    perSchema.set(key, compiled);
  }
  return compiled;
}
