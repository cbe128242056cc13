/**
 * The prefix checker's rules: what a JSON Schema says that a prefix of a value can break,
 * compiled from the schema into `Rule` lists (types as bits, allowed constants, numeric bounds,
 * `maxLength`/`maxItems`, declared and forbidden keys, a discriminated union's dispatch, array
 * positions), the form PrefixChecker (prefix-check.ts) reads per event.
 *
 * Contract: `documentRules` gives a document's root rules; `rulesOf`, `keyEntry` and
 * `indexRules` give the rules of a sub-schema, a key's value and an array element. Each schema
 * object is compiled once, on first use, and its `Rule` list cached (a WeakMap per schema
 * document, equal schemas interned to one document), so a long stream, and every checker of the
 * same schema, pays for each sub-schema once.
 *
 * Invariants:
 * 1. Conservative: a keyword not modelled here compiles to nothing (no rule rather than a wrong
 *    one), so the checker is never early (prefix-check.ts, invariant 1); a schema object with
 *    nothing a prefix can break has no rule of its own.
 * 2. Bounded: `$ref` chains and `allOf` nesting are followed to MAX_SCHEMA_DEPTH, cycles are
 *    cut, and the per-key cache of one rule holds at most 256 keys (a hostile stream of
 *    distinct keys cannot grow it).
 * 3. A compiled rule is shared by every checker of its schema: only its caches (`children`,
 *    `restRules`, `anyKey`, a dispatch's `branchRules`) are ever written, each once per entry.
 *
 * Why its own file: compiling runs once per schema object, checking once per structural event
 * of every value; the checker's per-event code reads only the compiled fields below.
 */

import { quoteInput } from '../diagnostics/diagnostics.js';
import { isObject, type SchemaObject } from '../schema/json-pointer.js';
import { schemaIndex } from '../schema/schema-index.js';
import { internSchema } from '../schema/schema-intern.js';
import { type Constant, findDispatch, type JsonSchema } from '../schema/schema-validator.js';

// JSON types as bits (the checker reads a value's first character as one). A number that is
// not an integer is known only once complete.
export const OBJECT = 1;
export const ARRAY = 2;
export const STRING = 4;
export const NUMBER = 8; // any number
export const INTEGER = 16; // integers only (a `type` of "integer" without "number")
export const BOOLEAN = 32;
export const NULL = 64;
const ANY = 127;

const TYPE_BITS: Readonly<Record<string, number>> = {
  object: OBJECT,
  array: ARRAY,
  string: STRING,
  number: NUMBER | INTEGER,
  integer: INTEGER,
  boolean: BOOLEAN,
  null: NULL,
};

/** Longest `$ref` chain or `allOf` nesting followed when compiling one schema. */
const MAX_SCHEMA_DEPTH = 32;

/** The dialect, as far as the rules here differ: draft-04 has no `const`; 2019-09 adds `unevaluatedProperties`; 2020-12 `prefixItems`. */
type Draft = '04' | '07' | '2019' | '2020';

/** Allowed constants (`enum`, `const`, or the discriminator values of a dispatch). */
export interface ValueSet {
  readonly rule: 'enum' | 'const' | 'discriminator';
  /** JSON types some allowed value has. */
  readonly mask: number;
  readonly strings: readonly string[];
  /** Numbers, booleans and null allowed. */
  readonly scalars: readonly unknown[];
  /** The allowed values, for messages. */
  readonly shown: string;
}

export interface Dispatch {
  readonly property: string;
  readonly constants: readonly Constant[];
  readonly branches: readonly unknown[];
  /** The discriminator value's check. */
  readonly rule: Rule;
  /** `[rule]`. */
  readonly rules: readonly Rule[];
  /** Each branch's rules, compiled on first use. */
  readonly branchRules: (readonly Rule[] | undefined)[];
}

export interface Bound {
  readonly rule: 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum';
  readonly limit: number;
}

/** What one schema object says that a prefix can break; the keywords of `allOf` members and `$ref` targets are rules of their own. */
export interface Rule {
  readonly never: boolean;
  readonly types: number;
  readonly typeText: string;
  readonly sets: readonly ValueSet[];
  readonly maxLength: number;
  readonly bounds: readonly Bound[];
  // objects
  readonly properties: SchemaObject | undefined;
  /** `additionalProperties` when it applies to every key not in `properties` (no `patternProperties`). */
  readonly additional: unknown;
  readonly patterns: boolean;
  /** Keys some keyword may evaluate, when `unevaluatedProperties: false` and they are all known. */
  readonly evaluated: ReadonlySet<string> | undefined;
  readonly dispatch: Dispatch | undefined;
  /** A `oneOf`/`anyOf` without a discriminator: its branches, checked at the first character only. */
  readonly alternatives: readonly unknown[] | undefined;
  readonly alternativesKeyword: string;
  // arrays
  readonly prefix: readonly unknown[] | undefined;
  readonly rest: unknown;
  readonly maxItems: number;
  /** The keys `required` names (read only by the `null-to-absent` relaxation). */
  readonly required: ReadonlySet<string> | undefined;
  readonly context: Context;
  /** Rules of each property's value, and whether `properties` declares it, compiled on first use. */
  readonly children: Map<string, KeyEntry>;
  /** Rules of the elements past `prefix` (`rest`), compiled on first use. */
  restRules: readonly Rule[] | undefined;
  /** Without `properties`: what the rule says about every key, compiled on first use. */
  anyKey: KeyEntry | undefined;
}

/** What an object's rule says about one key. */
export interface KeyEntry {
  /** `properties` declares the key. */
  readonly declared: boolean;
  /** Rules of the key's value. */
  readonly rules: readonly Rule[];
}

export const NONE: readonly Rule[] = Object.freeze([]);

/** Per schema document: how `$ref`s resolve and which dialect applies. */
export interface Context {
  readonly document: SchemaObject;
  readonly draft: Draft;
  readonly rules: WeakMap<object, readonly Rule[]>;
  readonly active: Set<object>;
}

const contexts = new WeakMap<object, Context>();

function draftOf(document: SchemaObject, exported: boolean): Draft {
  const id = typeof document.$schema === 'string' ? document.$schema : '';
  if (id.includes('2020-12')) return '2020';
  if (id.includes('2019-09')) return '2019';
  if (/\/draft-04\/schema#?$/.test(id)) return '04';
  if (id === '') return exported ? '2020' : '07';
  // draft-06 reads every keyword modelled here as draft-07 does.
  return '07';
}

function contextFor(document: SchemaObject, exported: boolean): Context {
  let context = contexts.get(document);
  if (context === undefined) {
    context = { document, draft: draftOf(document, exported), rules: new WeakMap(), active: new Set() };
    contexts.set(document, context);
  }
  return context;
}

/**
 * What the reference `ref`, found in `from`, names: resolved as ajv resolves it (nested `$id`
 * bases, anchors, embedded resources: schema-index.ts), or undefined when that cannot be told
 * here (another document, a dynamic reference): the part is then checked only when complete.
 */
function resolveRef(context: Context, from: SchemaObject, ref: unknown): unknown {
  if (typeof ref !== 'string') return undefined;
  return schemaIndex(context.document).resolve(from, ref)?.node;
}

const FALSE_RULES: readonly Rule[] = Object.freeze([makeFalse()]);

function makeFalse(): Rule {
  return {
    never: true,
    types: ANY,
    typeText: '',
    sets: [],
    maxLength: Number.POSITIVE_INFINITY,
    bounds: [],
    properties: undefined,
    additional: undefined,
    patterns: false,
    evaluated: undefined,
    dispatch: undefined,
    alternatives: undefined,
    alternativesKeyword: '',
    prefix: undefined,
    rest: undefined,
    maxItems: Number.POSITIVE_INFINITY,
    required: undefined,
    context: undefined as unknown as Context,
    children: new Map(),
    restRules: undefined,
    anyKey: undefined,
  };
}

/** The rules `schema` (found in `context`'s document) imposes: its own, its `$ref`'s, its `allOf` members'. */
export function rulesOf(context: Context, schema: unknown, depth = 0): readonly Rule[] {
  if (schema === false) return FALSE_RULES;
  if (!isObject(schema)) return NONE;
  const cached = context.rules.get(schema);
  if (cached !== undefined) return cached;
  // A cycle adds nothing new; too deep: give up. (A nested `$id` changes what `#` means under
  // it: resolveRef resolves against each schema's own base.)
  if (context.active.has(schema) || depth > MAX_SCHEMA_DEPTH) return NONE;
  context.active.add(schema);
  const rules: Rule[] = [];
  const own = ownRule(context, schema);
  if (own !== undefined) rules.push(own);
  if (schema.$ref !== undefined) {
    const target = resolveRef(context, schema, schema.$ref);
    if (target !== undefined) rules.push(...rulesOf(context, target, depth + 1));
  }
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) rules.push(...rulesOf(context, member, depth + 1));
  }
  context.active.delete(schema);
  const result = rules.length === 0 ? NONE : rules;
  context.rules.set(schema, result);
  return result;
}

function valueSet(rule: ValueSet['rule'], values: readonly unknown[]): ValueSet {
  let mask = 0;
  const strings: string[] = [];
  const scalars: unknown[] = [];
  for (const value of values) {
    if (typeof value === 'string') {
      mask |= STRING;
      strings.push(value);
    } else if (typeof value === 'number') {
      mask |= NUMBER | INTEGER;
      scalars.push(value);
    } else if (typeof value === 'boolean') {
      mask |= BOOLEAN;
      scalars.push(value);
    } else if (value === null) {
      mask |= NULL;
      scalars.push(value);
    } else {
      mask |= Array.isArray(value) ? ARRAY : OBJECT;
    }
  }
  const shown = quoteInput(values.map((v) => JSON.stringify(v)).join(', '));
  return { rule, mask, strings, scalars, shown };
}

/** The rule of `schema`'s own keywords, or undefined when it has none a prefix can break. */
function ownRule(context: Context, schema: SchemaObject): Rule | undefined {
  let types = ANY;
  let typeText = '';
  if (typeof schema.type === 'string' || Array.isArray(schema.type)) {
    const names = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
      (t): t is string => typeof t === 'string' && Object.hasOwn(TYPE_BITS, t),
    );
    const all = Array.isArray(schema.type) ? schema.type.length : 1;
    // A type name this file does not know (a broken export): no type check rather than a wrong one.
    if (names.length === all) {
      types = 0;
      for (const name of names) types |= TYPE_BITS[name] as number;
      typeText = names.join(' or ');
    }
  }
  const sets: ValueSet[] = [];
  // draft-04 has no `const`: its validator ignores the keyword.
  if (context.draft !== '04' && Object.hasOwn(schema, 'const')) sets.push(valueSet('const', [schema.const]));
  if (Array.isArray(schema.enum)) sets.push(valueSet('enum', schema.enum));
  const bounds: Bound[] = [];
  for (const rule of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const) {
    const limit = schema[rule];
    if (typeof limit === 'number') bounds.push({ rule, limit });
  }
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const patterns = schema.patternProperties !== undefined;
  const additional = patterns ? undefined : schema.additionalProperties;
  const evaluated =
    (context.draft === '2019' || context.draft === '2020') && schema.unevaluatedProperties === false
      ? evaluatedKeys(context, schema)
      : undefined;
  let dispatch: Dispatch | undefined;
  const keyword = Array.isArray(schema.oneOf) ? 'oneOf' : Array.isArray(schema.anyOf) ? 'anyOf' : undefined;
  // findDispatch resolves branch `$ref`s against the schema it is given, as the document root.
  // Below the root, the branches are resolved here, against the document: a `$ref`'s target
  // holds for the branch (its siblings only add to it), so the constants it pins are necessary.
  let root: SchemaObject | undefined = schema;
  if (keyword !== undefined && schema !== context.document) {
    const resolved = (schema[keyword] as unknown[]).map((branch) => followRefs(context, branch));
    root = resolved.includes(undefined) ? undefined : { type: schema.type, [keyword]: resolved };
  }
  if (keyword !== undefined && root !== undefined) {
    const found = findDispatch(root, undefined);
    if (typeof found !== 'string') {
      const branches = schema[found.keyword] as unknown[];
      const set = valueSet('discriminator', found.constants);
      const rule = setRule(context, set);
      dispatch = {
        property: found.property,
        constants: found.constants,
        branches,
        rule,
        rules: [rule],
        branchRules: [],
      };
    }
  }
  // Both keywords at once: each applies, but neither is modelled (conservative).
  const alternatives =
    dispatch === undefined && keyword !== undefined && !(Array.isArray(schema.oneOf) && Array.isArray(schema.anyOf))
      ? (schema[keyword] as unknown[])
      : undefined;
  let prefix: readonly unknown[] | undefined;
  let rest: unknown;
  if (context.draft === '2020' && Array.isArray(schema.prefixItems)) {
    prefix = schema.prefixItems;
    rest = schema.items;
  } else if (context.draft !== '2020' && Array.isArray(schema.items)) {
    prefix = schema.items;
    rest = schema.additionalItems;
  } else {
    rest = Array.isArray(schema.items) ? undefined : schema.items;
  }
  if (
    types === ANY &&
    sets.length === 0 &&
    bounds.length === 0 &&
    maxLength === Number.POSITIVE_INFINITY &&
    maxItems === Number.POSITIVE_INFINITY &&
    properties === undefined &&
    additional === undefined &&
    evaluated === undefined &&
    dispatch === undefined &&
    alternatives === undefined &&
    prefix === undefined &&
    rest === undefined
  ) {
    return undefined;
  }
  return {
    never: false,
    types,
    typeText,
    sets,
    maxLength,
    bounds,
    properties,
    additional,
    patterns,
    evaluated,
    dispatch,
    alternatives,
    alternativesKeyword: keyword ?? '',
    prefix,
    rest,
    maxItems,
    required: Array.isArray(schema.required)
      ? new Set(schema.required.filter((k): k is string => typeof k === 'string'))
      : undefined,
    context,
    children: new Map(),
    restRules: undefined,
    anyKey: undefined,
  };
}

function setRule(context: Context, set: ValueSet): Rule {
  return { ...makeFalse(), never: false, sets: [set], context };
}

/** `schema` with its `$ref` chain followed (a bounded number of steps); undefined when one does not resolve here. */
function followRefs(context: Context, schema: unknown): unknown {
  let node = schema;
  for (let seen = 0; isObject(node) && node.$ref !== undefined; seen++) {
    if (seen > MAX_SCHEMA_DEPTH) return undefined;
    node = resolveRef(context, node, node.$ref);
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * The keys that some keyword of `schema` or of its in-place sub-schemas may evaluate, or
 * undefined when any key may be evaluated (`patternProperties`, `additionalProperties`, a
 * non-false `unevaluatedProperties`, a reference not followed here…). A branch that fails
 * evaluates nothing, so counting every branch can only allow more.
 */
function evaluatedKeys(context: Context, top: SchemaObject): ReadonlySet<string> | undefined {
  const keys = new Set<string>();
  const seen = new Set<object>();
  const todo: [unknown, number][] = [[top, 0]];
  while (todo.length !== 0) {
    const [schema, depth] = todo.pop() as [unknown, number];
    if (typeof schema === 'boolean') continue;
    if (!isObject(schema) || depth > MAX_SCHEMA_DEPTH) return undefined;
    if (seen.has(schema)) continue;
    seen.add(schema);
    if (
      schema.patternProperties !== undefined ||
      schema.additionalProperties !== undefined ||
      (schema.unevaluatedProperties !== undefined && schema.unevaluatedProperties !== false) ||
      schema.$dynamicRef !== undefined ||
      schema.$recursiveRef !== undefined ||
      (schema !== context.document && schema.$id !== undefined)
    ) {
      return undefined;
    }
    if (isObject(schema.properties)) for (const key of Object.keys(schema.properties)) keys.add(key);
    if (schema.$ref !== undefined) {
      const target = resolveRef(context, schema, schema.$ref);
      if (target === undefined) return undefined;
      todo.push([target, depth + 1]);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
      const members = schema[keyword];
      if (Array.isArray(members)) for (const member of members) todo.push([member, depth + 1]);
    }
    for (const keyword of ['if', 'then', 'else'] as const) {
      if (schema[keyword] !== undefined) todo.push([schema[keyword], depth + 1]);
    }
    if (isObject(schema.dependentSchemas)) {
      for (const member of Object.values(schema.dependentSchemas)) todo.push([member, depth + 1]);
    }
  }
  return keys;
}

/** What `rule`, an object's, says about `key`: whether it is declared, and the rules for its value. */
export function keyEntry(rule: Rule, key: string): KeyEntry {
  const properties = rule.properties;
  if (properties === undefined) {
    // Every key is undeclared: one answer for all (a union's dispatching rule, a map's values).
    let any = rule.anyKey;
    if (any === undefined) {
      any = { declared: false, rules: rule.patterns ? NONE : rulesOf(rule.context, rule.additional) };
      rule.anyKey = any;
    }
    return any;
  }
  let entry = rule.children.get(key);
  if (entry === undefined) {
    const declared = Object.hasOwn(properties, key);
    let rules: readonly Rule[];
    if (declared) rules = rulesOf(rule.context, properties[key]);
    else if (rule.patterns) rules = NONE;
    else rules = rulesOf(rule.context, rule.additional);
    entry = { declared, rules };
    // A hostile stream of distinct keys must not grow the cache without bound.
    if (rule.children.size < 256) rule.children.set(key, entry);
  }
  return entry;
}

/** The rules of the element at `index` of an array that `rule` applies to (`prefixItems`/`items`, then the rest). */
export function indexRules(rule: Rule, index: number): readonly Rule[] {
  const prefix = rule.prefix;
  if (prefix !== undefined && index < prefix.length) return rulesOf(rule.context, prefix[index]);
  if (rule.rest === undefined) return NONE;
  let rest = rule.restRules;
  if (rest === undefined) {
    rest = rulesOf(rule.context, rule.rest);
    rule.restRules = rest;
  }
  return rest;
}

/**
 * The rules of a whole document's schema (`exported`: a Standard Schema's export, which reads a
 * schema with no `$schema` as 2020-12, the dialect the export is asked for).
 */
export function documentRules(schema: JsonSchema, exported: boolean): readonly Rule[] {
  if (typeof schema === 'boolean') return schema ? NONE : FALSE_RULES;
  // One representative per schema content, so that equal schemas share their rules (an
  // export is cached per Standard Schema already).
  const document = exported ? schema : internSchema(schema);
  return rulesOf(contextFor(document, exported), document);
}
