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
 * Sub-schemas (`elementSchemaAt`, `subSchemaAt`) are found by walking the schema's JSON; each
 * result means on its own what it means in place, so any compiler can compile it.
 *
 * Messages quote user input (pointers, discriminator names and values) through `quoteInput`:
 * at most MAX_QUOTED_LENGTH characters each.
 *
 * ConfigurationError and its codes live in configuration-error.ts; they are re-exported here
 * so that existing imports keep working.
 */

import type { CoercionFix } from './coercion-options.js';
import { ConfigurationError, ConfigurationErrorCode } from './configuration-error.js';
import { ERRORS_OMITTED_KEYWORD, quoteInput, type SchemaError } from './diagnostics.js';
import { escapePointer, isObject, type SchemaObject } from './json-pointer.js';
import { REFERENCE_KEYWORDS } from './reference-cycles.js';
import { schemaIndex } from './schema-index.js';

export { ConfigurationError, ConfigurationErrorCode } from './configuration-error.js';

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
 * Follows `$ref`s from `schema`, found at `path` (property names from `root`): where the chain
 * ends, and its path. References resolve as ajv resolves them (schema-index.ts: nested `$id`
 * bases, anchors, embedded resources); the chain stops at one that cannot be told statically
 * (another document, a dynamic reference).
 */
export function resolveLocalAt(
  root: SchemaObject,
  schema: unknown,
  path: readonly string[],
): [schema: unknown, path: readonly string[]] {
  let node = schema;
  let at = path;
  const index = schemaIndex(root);
  for (let seen = 0; seen <= 16 && isObject(node) && typeof node.$ref === 'string'; seen++) {
    const target = index.resolve(node, node.$ref);
    if (target === undefined) break;
    node = target.node;
    at = target.path;
  }
  return [node, at];
}

function resolveLocal(root: SchemaObject, schema: unknown): unknown {
  return resolveLocalAt(root, schema, [])[0];
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

/**
 * The schema of the elements of the array at `path` (object keys from the root) inside a
 * document schema: `properties` along the path, then `items`, following `$ref`s as ajv resolves
 * them. The result means on its own what `items` means in the document (see `standaloneAt`).
 * Throws ConfigurationError when the schema does not describe such an array.
 */
export function elementSchemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  let node: unknown = schema;
  let at: readonly string[] = [];
  for (const key of path) {
    [node, at] = resolveLocalAt(schema, node, at);
    const properties = isObject(node) ? node.properties : undefined;
    if (!isObject(properties) || !Object.hasOwn(properties, key)) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        `the schema has no "properties" entry for "${quoteInput(key)}" on the path $.${quoteInput(path.join('.'))}`,
      );
    }
    node = properties[key];
    at = [...at, 'properties', key];
  }
  [node, at] = resolveLocalAt(schema, node, at);
  const items = isObject(node) ? node.items : undefined;
  if (!isObject(items) && typeof items !== 'boolean') {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `the schema has no single "items" schema for the array at $${quoteInput(path.map((k) => `.${k}`).join(''))}`,
    );
  }
  if (typeof items === 'boolean') return items;
  return standaloneAt(schema, items, [...at, 'items']);
}

/**
 * Keywords that, beside a `$ref`, apply too (ajv applies a `$ref`'s siblings in every dialect):
 * a walk cannot take the `$ref`'s target alone as what applies below such a node.
 */
const APPLICATORS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependencies',
  '$dynamicRef',
  '$recursiveRef',
]);

/**
 * `node` (at `at`) with its `$ref` chain followed, when the references alone decide what applies
 * to the parts of the value; undefined when one cannot be followed statically or a keyword
 * beside it applies too.
 */
function followReferences(
  document: SchemaObject,
  node: unknown,
  at: readonly string[],
): [node: unknown, at: readonly string[]] | undefined {
  const index = schemaIndex(document);
  for (let seen = 0; isObject(node) && typeof node.$ref === 'string'; seen++) {
    if (seen > 32) return undefined;
    for (const keyword of Object.keys(node)) if (APPLICATORS.has(keyword)) return undefined;
    const target = index.resolve(node, node.$ref);
    if (target === undefined) return undefined;
    node = target.node;
    at = target.path;
  }
  if (isObject(node) && (node.$dynamicRef !== undefined || node.$recursiveRef !== undefined)) return undefined;
  return [node, at];
}

/**
 * The schema object that alone applies to the value at `path` inside a document that `schema`
 * describes, and its keys from the document; see `subSchemaAt`.
 */
function subSchemaPlace(
  schema: SchemaObject,
  path: readonly (string | number)[],
): [node: JsonSchema, at: readonly string[]] | undefined {
  let node: unknown = schema;
  let at: readonly string[] = [];
  for (const segment of path) {
    const followed = followReferences(schema, node, at);
    if (followed === undefined) return undefined;
    [node, at] = followed;
    if (typeof node === 'boolean') return [node, at];
    if (
      !isObject(node) ||
      node.oneOf !== undefined ||
      node.anyOf !== undefined ||
      node.allOf !== undefined ||
      node.not !== undefined ||
      node.if !== undefined ||
      node.dependentSchemas !== undefined ||
      node.dependencies !== undefined ||
      node.unevaluatedProperties !== undefined ||
      node.unevaluatedItems !== undefined
    ) {
      return undefined;
    }
    if (typeof segment === 'number') {
      const prefixKeyword = Array.isArray(node.prefixItems) ? 'prefixItems' : Array.isArray(node.items) ? 'items' : '';
      const prefix = prefixKeyword === '' ? undefined : (node[prefixKeyword] as unknown[]);
      // `contains` also applies to some elements: which ones depends on the value.
      if (node.contains !== undefined) return undefined;
      if (prefix !== undefined && segment < prefix.length) {
        node = prefix[segment];
        at = [...at, prefixKeyword, String(segment)];
      } else {
        const rest = prefix !== undefined && Array.isArray(node.items) ? 'additionalItems' : 'items';
        node = node[rest];
        at = [...at, rest];
      }
    } else {
      const properties = isObject(node.properties) ? node.properties : undefined;
      if (node.patternProperties !== undefined) return undefined;
      if (properties !== undefined && Object.hasOwn(properties, segment)) {
        node = properties[segment];
        at = [...at, 'properties', segment];
      } else {
        node = node.additionalProperties;
        at = [...at, 'additionalProperties'];
      }
    }
    if (node === undefined) return undefined;
  }
  // The last schema is taken as it is (its `$ref` and the keywords beside it apply together),
  // unless it is a `$ref` alone, whose target is then the sub-schema.
  while (isObject(node) && typeof node.$ref === 'string' && Object.keys(node).every((k) => NOT_APPLYING.has(k))) {
    const followed = followReferences(schema, node, at);
    if (followed === undefined || followed[0] === node) break;
    [node, at] = followed;
  }
  if (typeof node === 'boolean') return [node, at];
  return isObject(node) ? [node, at] : undefined;
}

/** Keywords that apply nothing to a value: a `$ref` with only these beside it is its target. */
const NOT_APPLYING = new Set([
  '$ref',
  '$schema',
  '$comment',
  'title',
  'description',
  'examples',
  'default',
  'definitions',
  '$defs',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/**
 * The sub-schema that applies to the value at `path` (object keys and array indices) inside a
 * document that `schema` describes, following `properties`, `additionalProperties`,
 * `prefixItems`/`items` and `$ref`s (resolved as ajv resolves them); the result means on its
 * own what it means in the document (see `standaloneAt`). `undefined` when the path leads
 * through a combinator (`oneOf`, `anyOf`, `allOf`, `not`, `if`), `patternProperties`,
 * `contains`, a dynamic or unresolvable reference, or anything else whose meaning depends on the
 * value: such subtrees are checked with the whole document.
 */
export function subSchemaAt(schema: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  if (typeof schema === 'boolean') return schema;
  const place = subSchemaPlace(schema, path);
  if (place === undefined) return undefined;
  const [node, at] = place;
  return typeof node === 'boolean' ? node : standaloneAt(schema, node, at);
}

/**
 * Where the sub-schema `subSchemaAt` finds lies in the document, as a JSON pointer (`` for the
 * root, `/properties/a`), for a compiler that validates a part of a schema it compiled in place
 * (`CompiledSchema.at`); undefined when `subSchemaAt` finds none.
 */
export function subSchemaPointer(schema: JsonSchema, path: readonly (string | number)[]): string | undefined {
  if (typeof schema === 'boolean') return '';
  const place = subSchemaPlace(schema, path);
  return place === undefined ? undefined : place[1].map((key) => `/${escapePointer(key)}`).join('');
}

/** The base URI under which `standaloneAt` embeds a document that has no `$id`. */
const EMBEDDED_DOCUMENT_ID = 'llmjson:document';

/**
 * `node`, found at `path` (property names) inside `document`, as a schema that means on its own
 * what it means in place, one object per (document, node) so that compileSchema's cache (by
 * object) compiles it once.
 *
 * When `node` and the document's definitions hold no resource or anchor (`$id`, `id`,
 * `$anchor`…), `node` declares no definitions of its own, and every reference under them names a
 * definition of the document (`#/$defs/…`, `#/definitions/…`), a copy of `node` carrying the
 * document's definitions does: it keeps `oneOf` dispatch at its root. Otherwise (`{"$ref": "#"}`
 * in a recursive schema, an anchor, a nested resource, definitions of its own that would hide
 * the document's) a copy would change what a reference names, so the result is a `$ref` to
 * `node` inside the whole document, embedded as a definition under its own id.
 */
function standaloneAt(document: SchemaObject, node: SchemaObject, path: readonly string[]): JsonSchema {
  if (node === document) return document;
  let perDocument = standaloneSchemas.get(document);
  if (perDocument === undefined) {
    perDocument = new WeakMap();
    standaloneSchemas.set(document, perDocument);
  }
  let standalone = perDocument.get(node);
  if (standalone === undefined) {
    if (copyKeepsMeaning(document, node)) {
      const copy: Record<string, unknown> = { ...node };
      // In the document's dialect: ajv reads a sub-schema's own `$schema` as nothing more.
      delete copy.$schema;
      for (const keyword of ['$schema', '$defs', 'definitions'] as const) {
        if (document[keyword] !== undefined) copy[keyword] = document[keyword];
      }
      standalone = copy;
    } else {
      const idKeyword = schemaIndex(document).idKeyword;
      const ownId = document[idKeyword];
      const id = typeof ownId === 'string' ? ownId.replace(/#\/?$/, '') : EMBEDDED_DOCUMENT_ID;
      const embedded: Record<string, unknown> = { ...document, [idKeyword]: id };
      delete embedded.$schema;
      standalone = {
        ...(document.$schema === undefined ? {} : { $schema: document.$schema }),
        $ref: `${id}#${path.map((key) => `/${encodeURIComponent(escapePointer(key))}`).join('')}`,
        definitions: { document: embedded },
      };
    }
    perDocument.set(node, standalone);
  }
  return standalone;
}

const standaloneSchemas = new WeakMap<object, WeakMap<object, SchemaObject>>();

/** Keys that make a schema a resource or an anchor, which a copy would move. */
const PLACE_KEYWORDS = ['$id', 'id', '$anchor', '$dynamicAnchor', '$recursiveAnchor'];

/** Whether a copy of `node` carrying the document's definitions means what `node` means in place (see `standaloneAt`). */
function copyKeepsMeaning(document: SchemaObject, node: SchemaObject): boolean {
  if (Object.hasOwn(node, '$defs') || Object.hasOwn(node, 'definitions')) return false;
  const todo: unknown[] = [node, document.$defs, document.definitions];
  const seen = new Set<object>();
  while (todo.length !== 0) {
    const value = todo.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) todo.push(item);
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      // A keyword's value is a string (`true` for `$recursiveAnchor`); a property named `id` holds a schema.
      if (PLACE_KEYWORDS.includes(key) && (typeof child === 'string' || child === true)) return false;
      if (
        REFERENCE_KEYWORDS.includes(key) &&
        typeof child === 'string' &&
        !child.startsWith('#/$defs/') &&
        !child.startsWith('#/definitions/')
      ) {
        return false;
      }
      todo.push(child);
    }
  }
  return true;
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
