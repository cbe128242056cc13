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
 *
 * Discriminator dispatch: when the root is a `oneOf` (or `anyOf`) whose branches are all
 * object schemas that require one property pinned to a distinct constant
 * (`"type": {"const": "definition"}`), only the branch the value names is validated.
 * Invariant: dispatch accepts exactly what the full schema accepts. It holds because a value
 * can satisfy at most one branch (the constants differ and the property is required), so
 * `oneOf` and `anyOf` both reduce to "the named branch, plus the root's other keywords".
 *
 * ConfigurationError and its codes live in configuration-error.ts, which the units above
 * also raise it from; they are re-exported here so that existing imports keep working.
 */

import { Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ConfigurationError, ConfigurationErrorCode } from './configuration-error.js';
import { quoteInput, type SchemaError } from './diagnostics.js';
import { linearRegExp, useLinearFormats } from './linear-regexp.js';
import {
  escapePointer,
  isObject,
  pointerKeys,
  REFERENCE_KEYWORDS,
  rejectReferenceCycles,
  type SchemaObject,
  walkKeys,
} from './reference-cycles.js';

export { ConfigurationError, ConfigurationErrorCode } from './configuration-error.js';

/** A JSON Schema: an object or a boolean. */
export type JsonSchema = Readonly<Record<string, unknown>> | boolean;

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

/** The ajv instance for `schema`'s dialect, and whether that dialect is draft-07. */
function ajvFor(schema: JsonSchema): { readonly ajv: Ajv; readonly draft07: boolean } {
  let dialect = Ajv as new (options: Options) => Ajv;
  if (typeof schema === 'object' && typeof schema.$schema === 'string') {
    const key = schema.$schema
      .replace(/#$/, '')
      .replace(/^http:\/\/json-schema\.org\/draft\/20/, 'https://json-schema.org/draft/20');
    const found = DIALECTS[key];
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
  const ajv = new dialect({ allErrors: true, strict: false, validateSchema: true, code: { regExp: linearRegExp } });
  addFormats(ajv);
  useLinearFormats(ajv);
  return { ajv, draft07: dialect === Ajv };
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

/**
 * One line for humans: `at /sections/0/start_line: must be integer; at /: must have ...`.
 * Paths and property names come from the value, so each is quoted at most MAX_QUOTED_LENGTH long.
 */
export function formatSchemaErrors(errors: readonly SchemaError[], limit = 3): string {
  const shown = errors.slice(0, limit).map((e) => {
    const extra =
      e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string'
        ? ` ("${quoteInput(e.params.additionalProperty)}")`
        : e.keyword === 'enum' && Array.isArray(e.params.allowedValues)
          ? ` (${quoteInput(e.params.allowedValues.map((v) => JSON.stringify(v)).join(', '))})`
          : '';
    return `at ${e.path === '' ? '/' : quoteInput(e.path)}: ${quoteInput(e.message)}${extra}`;
  });
  const more = errors.length > limit ? `; and ${errors.length - limit} more` : '';
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

/** Runs `compile`, turning whatever ajv throws into a ConfigurationError about `what`. */
function configurationErrors<T>(what: string, compile: () => T): T {
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

/**
 * Follows local `$ref`s (`#`, `#/$defs/Name`, `#/definitions/Name`) from `schema`, found at
 * `path` (property names from `root`): where the chain ends, and its path. Other references
 * (anchors, other resources) are left for ajv: the chain stops at them.
 */
function resolveLocalAt(
  root: SchemaObject,
  schema: unknown,
  path: readonly string[],
): [schema: unknown, path: readonly string[]] {
  let node = schema;
  let at = path;
  for (let seen = 0; seen <= 16 && isObject(node) && typeof node.$ref === 'string'; seen++) {
    const ref = node.$ref;
    if (ref !== '#' && !ref.startsWith('#/')) break;
    const keys = ref === '#' ? [] : pointerKeys(ref.slice(1));
    const target = keys === undefined ? undefined : walkKeys(root, keys);
    if (keys === undefined || target === undefined) break;
    node = target;
    at = keys;
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
const VALID: ValidationResult = Object.freeze({ valid: true });
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
  const tag = (value as Record<string, unknown>)[property];
  const missing = tag === undefined;
  const message = missing
    ? `missing discriminator "${quotedProperty}"; expected one of ${allowed}`
    : `unknown discriminator "${quotedProperty}": ${describeTag(tag)}; expected one of ${allowed}`;
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

/**
 * The schema of the elements of the array at `path` (object keys from the root) inside a
 * document schema: `properties` along the path, then `items`, following local `$ref`s. The
 * result means on its own what `items` means in the document (see `standaloneAt`).
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
 * The sub-schema that applies to the value at `path` (object keys and array indices) inside a
 * document that `schema` describes, following `properties`, `additionalProperties`,
 * `prefixItems`/`items` and local `$ref`s; the result means on its own what it means in the
 * document (see `standaloneAt`). `undefined` when the path leads through a combinator
 * (`oneOf`, `anyOf`, `allOf`, `if`) or anything else whose meaning depends on the value: such
 * subtrees are checked with the whole document.
 */
export function subSchemaAt(schema: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  if (typeof schema === 'boolean') return schema;
  let node: unknown = schema;
  let at: readonly string[] = [];
  for (const segment of path) {
    [node, at] = resolveLocalAt(schema, node, at);
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
      const prefixKeyword = Array.isArray(node.prefixItems) ? 'prefixItems' : Array.isArray(node.items) ? 'items' : '';
      const prefix = prefixKeyword === '' ? undefined : (node[prefixKeyword] as unknown[]);
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
      if (properties !== undefined && Object.hasOwn(properties, segment)) {
        node = properties[segment];
        at = [...at, 'properties', segment];
      } else if (node.patternProperties !== undefined) {
        return undefined;
      } else {
        node = node.additionalProperties;
        at = [...at, 'additionalProperties'];
      }
    }
    if (node === undefined) return undefined;
  }
  [node, at] = resolveLocalAt(schema, node, at);
  if (typeof node === 'boolean') return node;
  if (!isObject(node)) return undefined;
  return standaloneAt(schema, node, at);
}

/** The base URI under which `standaloneAt` embeds a document that has no `$id`. */
const EMBEDDED_DOCUMENT_ID = 'llmjson:document';

/**
 * `node`, found at `path` (property names) inside `document`, as a schema that means on its own
 * what it means in place, one object per (document, node) so that compileSchema's cache (by
 * object) compiles it once.
 *
 * When every reference under `node` and in the document's definitions is to a definition
 * (`#/$defs/…`, `#/definitions/…`), a copy of `node` carrying the definitions does: it keeps
 * `oneOf` dispatch at its root. Otherwise (`{"$ref": "#"}` in a recursive schema, an anchor,
 * a pointer elsewhere) a copy would change what the reference names (`#` would become the copy
 * itself, a loop), so the result is a `$ref` to `node` inside the whole document, embedded as a
 * definition under its own `$id`.
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
    if (refersOnlyToDefinitions(document, node)) {
      const copy: Record<string, unknown> = { ...node };
      for (const keyword of ['$schema', '$defs', 'definitions'] as const) {
        if (document[keyword] !== undefined && copy[keyword] === undefined) copy[keyword] = document[keyword];
      }
      standalone = copy;
    } else {
      const id = typeof document.$id === 'string' ? document.$id.replace(/#\/?$/, '') : EMBEDDED_DOCUMENT_ID;
      const embedded: Record<string, unknown> = { ...document, $id: id };
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

/** Whether every reference under `node` and under the document's definitions names a definition. */
function refersOnlyToDefinitions(document: SchemaObject, node: SchemaObject): boolean {
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
  return compiledOnce(cache, schema, key, () => compileUncached(schema, options));
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
