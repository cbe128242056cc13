/**
 * The validator seam: what every schema implementation gives the engines, and the parts of
 * JSON Schema handling that need no validator (docs/decisions/017-validator-seam.md).
 *
 * Contract: a `JsonSchemaCompiler` compiles a JSON Schema once (cached per schema object and
 * discriminator choice) into a `CompiledSchema` whose `validate` never throws on data; a broken
 * schema throws `ConfigurationError` at compile time. Core ships none: ajv is one
 * implementation, in `@llmjson/core/ajv` (ajv-validator.ts), which the Node streams, contracts
 * and the CLI use by default; Standard Schema (standard-schema.ts) needs no compiler at all.
 * Nothing in this file imports a validator, so an engine given only a Standard Schema (or no
 * schema) bundles none.
 *
 * Discriminator dispatch (`findDispatch`): when the root is a `oneOf` (or `anyOf`) whose
 * branches are all object schemas that require one property pinned to a distinct constant
 * (`"type": {"const": "definition"}`), only the branch the value names is validated.
 * Invariant: dispatch accepts exactly what the full schema accepts. It holds because a value
 * can satisfy at most one branch (the constants differ and the property is required), so
 * `oneOf` and `anyOf` both reduce to "the named branch, plus the root's other keywords".
 *
 * Sub-schemas (`elementSchemaAt`, `subSchemaAt`, `subSchemaPointer`) live in sub-schemas.ts, with the
 * reference index they walk by: only the engines that check parts of a value bundle them.
 *
 * Messages quote user input (pointers, discriminator names and values) through `quoteInput`:
 * at most MAX_QUOTED_LENGTH characters each.
 */

import { ERRORS_OMITTED_KEYWORD, quoteInput, type SchemaError } from '../diagnostics/diagnostics.js';
import type { CoercionFix } from './coercion-rules.js';
import { escapePointer, isObject, pointerKeys, type SchemaObject, walkKeys } from './json-pointer.js';

/** A JSON Schema: an object or a boolean. */
export type JsonSchema = Readonly<Record<string, unknown>> | boolean;

export type ValidationResult =
  | {
      readonly valid: true;
      readonly branch?: string;
      /**
       * With coercion (`coerce`, coerce.ts): the value was invalid as given, and this coerced
       * copy is what is valid; deliver it instead. Absent when the value was valid as given.
       */
      readonly value?: unknown;
      /** With coercion: the repairs that made `value` (each reported as a `recovered` diagnostic). */
      readonly fixes?: readonly CoercionFix[];
    }
  | {
      readonly valid: false;
      readonly branch?: string;
      readonly errors: readonly SchemaError[];
      /** One line: `at /sections/0/start_line: must be integer`. */
      readonly message: string;
    };

/**
 * Something a compiler noticed in a schema that does not stop it from being used: a `format` it
 * does not know (checked as any string), a keyword it ignores, a part the prefix checks cannot
 * check before it closes. Given once per schema to the `onWarning` option; never printed.
 */
export interface SchemaWarning {
  /** What kind: `unknown-format`, `ignored-keyword`, `prefix-unchecked`, … */
  readonly kind: string;
  /** One line for humans, naming the keyword and the value at fault. */
  readonly message: string;
  /** Where in the schema, as a JSON pointer (`#/properties/port/format`), when known. */
  readonly schemaPath?: string;
}

export interface CompiledSchema {
  validate(value: unknown): ValidationResult;
  /** What the compiler noticed but could use anyway (unknown formats…): the `onWarning` option receives them. */
  readonly warnings?: readonly SchemaWarning[];
  /**
   * The validator of the part of this schema at `pointer` (a JSON pointer into the schema's
   * document, as `subSchemaPointer` gives it: `/properties/a`), compiled in the same context as
   * the whole, so that its references, bases and dialect mean what they mean in place. Undefined
   * (or absent) when the compiler cannot give one: the engine then compiles `subSchemaAt`'s
   * standalone schema. Never throws.
   */
  at?(pointer: string): CompiledSchema | undefined;
  /** The discriminator property in use, when dispatch is active. */
  readonly discriminator?: string;
  /** Allowed discriminator values, in branch order. */
  readonly branches?: readonly string[];
}

/**
 * Compiles a JSON Schema into a validator: the seam a JSON Schema implementation fills.
 * `compileSchema` from `@llmjson/core/ajv` is one; engines take it as `compileJsonSchema`.
 * It must cache per schema object and options (engines call it per stream and per sub-schema)
 * and throw ConfigurationError for a schema it cannot use.
 */
export type JsonSchemaCompiler = (schema: JsonSchema, options?: CompileOptions) => CompiledSchema;

export interface CompileOptions {
  /**
   * Discriminator property for `oneOf`/`anyOf` dispatch. Default: detected automatically
   * (`type`, then `kind`, then the first qualifying property). `false` turns dispatch off.
   */
  readonly discriminator?: string | false;
}

/**
 * One line for humans: `at /sections/0/start_line: must be integer; at /: must have ...`.
 * Paths and property names come from the value, so each is quoted at most MAX_QUOTED_LENGTH long.
 */
export function formatSchemaErrors(all: readonly SchemaError[], limit = 3): string {
  // A capped list ends with the `errors-omitted` entry: its count joins "and N more".
  const last = all[all.length - 1];
  const omitted =
    last?.keyword === ERRORS_OMITTED_KEYWORD && typeof last.params.omitted === 'number' ? last.params.omitted : 0;
  const errors = omitted === 0 ? all : all.slice(0, -1);
  const shown = errors.slice(0, limit).map((e) => {
    const extra =
      e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string'
        ? ` ("${quoteInput(e.params.additionalProperty)}")`
        : e.keyword === 'enum' && Array.isArray(e.params.allowedValues)
          ? ` (${quoteInput(e.params.allowedValues.map((v) => JSON.stringify(v)).join(', '))})`
          : '';
    return `at ${e.path === '' ? '/' : quoteInput(e.path)}: ${quoteInput(e.message)}${extra}`;
  });
  const hidden = Math.max(0, errors.length - limit) + omitted;
  const more = hidden > 0 ? `; and ${hidden} more` : '';
  return shown.join('; ') + more;
}

/**
 * Whether `error` is the engine running out of call stack: a RangeError in V8 and
 * JavaScriptCore, an InternalError ("too much recursion") in SpiderMonkey.
 */
export function isStackOverflow(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error instanceof RangeError
    ? /call stack/i.test(error.message)
    : error.name === 'InternalError' && /recursion/i.test(error.message);
}

/**
 * Follows `$ref`s that are JSON pointers into `root` (`#`, `#/$defs/Name`), as they resolve from
 * the root itself: the branches of a root `oneOf`. Any other reference stops the chain (the
 * dispatch then finds no constant there and validates the whole `oneOf`: the same verdict).
 * The walks below the root, where nested `$id`s change the base, resolve through schema-index.ts
 * (sub-schemas.ts), which only the engines that need them bundle.
 */
function resolveLocal(root: SchemaObject, schema: unknown): unknown {
  let node = schema;
  for (let seen = 0; seen <= 16 && isObject(node) && typeof node.$ref === 'string'; seen++) {
    const ref = node.$ref;
    if (ref !== '#' && !ref.startsWith('#/')) break;
    const keys = ref === '#' ? [] : pointerKeys(ref.slice(1));
    const target = keys === undefined ? undefined : walkKeys(root, keys);
    if (target === undefined) break;
    node = target;
  }
  return node;
}

export type Constant = string | number | boolean;

/** The constant a branch pins `property` to, when the branch requires it. */
function pinnedConstant(branch: unknown, property: string): Constant | undefined {
  if (!isObject(branch) || !isObject(branch.properties)) return undefined;
  const required = branch.required;
  if (!Array.isArray(required) || !required.includes(property)) return undefined;
  if (!Object.hasOwn(branch.properties, property)) return undefined;
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

/** A root `oneOf`/`anyOf` that dispatches on `property`: branch `i` pins it to `constants[i]`. */
export interface Dispatch {
  readonly keyword: 'oneOf' | 'anyOf';
  readonly property: string;
  readonly constants: readonly Constant[];
}

/** Finds the discriminator of a root `oneOf`/`anyOf`, or explains why `wanted` is not one. */
export function findDispatch(root: SchemaObject, wanted: string | undefined): Dispatch | string {
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
        why = `${keyword} branch ${i} does not require "${quoteInput(property)}" with a single constant value`;
        break;
      }
      if (constants.includes(constant)) {
        why = `${keyword} branches share the "${quoteInput(property)}" value ${quoteInput(JSON.stringify(constant))}`;
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

// Compiling and validating -------------------------------------------------------------------

/** Shared results: the paths that accept a value allocate nothing. */
export const VALID: ValidationResult = Object.freeze({ valid: true });
const TOO_DEEP_MESSAGE = 'value too deeply nested for the schema to validate (stack overflow)';
const TOO_DEEP: ValidationResult = Object.freeze({
  valid: false,
  errors: Object.freeze([
    Object.freeze({
      path: '',
      keyword: 'depth',
      message: TOO_DEEP_MESSAGE,
      schemaPath: '#',
      params: Object.freeze({}),
    }),
  ]),
  message: TOO_DEEP_MESSAGE,
});

/** A stack overflow while validating is the value's depth, reported; anything else is a bug and propagates. */
export function tooDeep(error: unknown): ValidationResult {
  if (isStackOverflow(error)) return TOO_DEEP;
  throw error;
}

/** A discriminator value as a message may quote it: scalars bounded, containers named. */
function describeTag(tag: unknown): string {
  if (typeof tag === 'string') return JSON.stringify(quoteInput(tag));
  if (typeof tag === 'object' && tag !== null) return Array.isArray(tag) ? 'an array' : 'an object';
  return quoteInput(String(tag));
}

/**
 * The result of dispatch for a value that names no branch: not an object, or an object whose
 * discriminator is missing or matches no branch. Shared by every validator that dispatches
 * (ajv's here, the Standard Schema one), so that they report it in the same words.
 */
export function dispatchFailure(value: unknown, dispatch: Dispatch): ValidationResult {
  const property = dispatch.property;
  const quotedProperty = quoteInput(property);
  const allowed = quoteInput(dispatch.constants.map((c) => JSON.stringify(c)).join(', '));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const errors: SchemaError[] = [
      { path: '', keyword: 'type', message: 'must be object', schemaPath: '#/type', params: { type: 'object' } },
    ];
    return { valid: false, errors, message: `at /: must be object with "${quotedProperty}" one of ${allowed}` };
  }
  // Own property only: a discriminator named `constructor` or `toString` that the value lacks is
  // missing, not the Object.prototype member of that name.
  const tag = Object.hasOwn(value, property) ? (value as Record<string, unknown>)[property] : undefined;
  const missing = tag === undefined;
  const message = missing
    ? `missing discriminator "${quotedProperty}"; expected one of ${allowed}`
    : `unknown discriminator "${quotedProperty}": ${describeTag(tag)}; expected one of ${allowed}`;
  const errors: SchemaError[] = [
    {
      path: missing ? '' : `/${escapePointer(property)}`,
      keyword: 'discriminator',
      message,
      schemaPath: `#/${dispatch.keyword}`,
      params: { property, allowed: dispatch.constants },
    },
  ];
  return { valid: false, errors, message };
}

/** The validator cached for `schema` (by object) and `key` (the discriminator choice), compiled on first use. */
export function compiledOnce(
  cache: WeakMap<object, Map<string, CompiledSchema>>,
  schema: object,
  key: string,
  compile: () => CompiledSchema,
): CompiledSchema {
  let perSchema = cache.get(schema);
  if (perSchema === undefined) {
    perSchema = new Map();
    cache.set(schema, perSchema);
  }
  let compiled = perSchema.get(key);
  if (compiled === undefined) {
    compiled = compile();
    perSchema.set(key, compiled);
  }
  return compiled;
}
