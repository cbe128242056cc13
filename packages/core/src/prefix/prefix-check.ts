/**
 * Prefix validation: while one JSON value streams in, a `violation` the moment its prefix proves
 * that no completion can match the schema (docs/decisions, "stream-time validation").
 *
 * Contract: a `PrefixChecker` is driven by the partial builder's own structural events — a value
 * starts (with its first character), a key closes, string text is appended, a scalar or string
 * completes, a container closes — and calls `report` once per violation, with the offset where
 * it became certain. It keeps no text: per open container a small frame, per open string a few
 * counters and the allowed constants still matching.
 *
 * Invariants:
 * 1. Never early: a violation is reported only when every completion of the prefix breaks the
 *    schema (the value after `JSON.parse`, as the validator sees it; duplicate keys aside, where
 *    the parsed value keeps the last member only). Whatever is not modelled (`pattern`, `format`,
 *    `not`, `if`, `dependentSchemas`, `patternProperties`, a `oneOf`/`anyOf` without a
 *    discriminator, a remote `$ref`…) checks nothing here: the complete-value check covers it.
 * 2. Once: after a violation at a value, nothing inside that value is checked again.
 * 3. Chunking does not matter: decisions and offsets depend on the text only.
 * 4. Nothing recurses on the value (frames are an array); walks over the schema are bounded
 *    (`$ref` chains and `allOf` nesting at MAX_SCHEMA_DEPTH, cycles cut).
 * 5. Never against coercion: with `repairable` (the coercions a `coerce` option turns on,
 *    coerce.ts), nothing is reported that one of them could repair, since the value delivered is
 *    the coerced one. A value that a rule may change (a string where a number, an integer or a
 *    boolean is required, or where an `enum`/`const` holds numbers or booleans:
 *    `string-to-number`, `string-to-boolean`; a value that is not an array where a `type`
 *    allows an array and rejects the value: `single-to-array`; `null` as the value of a key
 *    that no `required` names: `null-to-absent`) is not checked at all, nor is anything inside
 *    it. With `enum-case`, `enum`/`const`/discriminator strings compare as the rule does: case
 *    and surrounding whitespace ignored (ASCII while the string streams; a string or allowed
 *    value with other characters is checked only once complete, exactly as the rule would match
 *    it), and `maxLength` is not checked on a string that has allowed values. With
 *    `null-to-absent`, a key that `additionalProperties`/`unevaluatedProperties: false` forbids
 *    but another schema of the object declares is reported only once its value is seen not to
 *    be `null` (that `null` could be removed). Every other check stays.
 *
 * Schemas are compiled lazily, one `Rule` list per schema object (WeakMap per document), so a
 * long stream pays for each sub-schema once.
 */

import { quoteInput } from '../diagnostics/diagnostics.js';
import { CoercionRule } from '../schema/coercion-rules.js';
import { isObject, pointerOf, type SchemaObject } from '../schema/json-pointer.js';
import { schemaIndex } from '../schema/schema-index.js';
import { internSchema } from '../schema/schema-intern.js';

import { type Constant, findDispatch, type JsonSchema } from '../schema/schema-validator.js';

/** A path segment of the value: an object key or an array index. */
export type PrefixPathSegment = string | number;

/** What the checker reports; the builder turns it into a `violation` diagnostic. */
export interface PrefixViolation {
  /** Where it became certain: UTF-16 units from the start of the text. */
  readonly offset: number;
  readonly path: readonly PrefixPathSegment[];
  /** The schema keyword broken (`enum`, `type`, `additionalProperties`, `maxLength`…). */
  readonly rule: string;
  readonly message: string;
  /** The piece of the value that shows it (the string so far, the key, the number). */
  readonly excerpt: string;
  /** The root's discriminated branch (its discriminator's value), once the discriminator has completed. */
  readonly branch?: string;
}

// JSON types as bits. A number that is not an integer is known only once complete.
const OBJECT = 1;
const ARRAY = 2;
const STRING = 4;
const NUMBER = 8; // any number
const INTEGER = 16; // integers only (a `type` of "integer" without "number")
const BOOLEAN = 32;
const NULL = 64;
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
interface ValueSet {
  readonly rule: 'enum' | 'const' | 'discriminator';
  /** JSON types some allowed value has. */
  readonly mask: number;
  readonly strings: readonly string[];
  /** Numbers, booleans and null allowed. */
  readonly scalars: readonly unknown[];
  /** The allowed values, for messages. */
  readonly shown: string;
}

interface Dispatch {
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

interface Bound {
  readonly rule: 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum';
  readonly limit: number;
}

/** What one schema object says that a prefix can break; the keywords of `allOf` members and `$ref` targets are rules of their own. */
interface Rule {
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
interface KeyEntry {
  /** `properties` declares the key. */
  readonly declared: boolean;
  /** Rules of the key's value. */
  readonly rules: readonly Rule[];
}

const NONE: readonly Rule[] = Object.freeze([]);

/** Per schema document: how `$ref`s resolve and which dialect applies. */
interface Context {
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
function rulesOf(context: Context, schema: unknown, depth = 0): readonly Rule[] {
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
function keyEntry(rule: Rule, key: string): KeyEntry {
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

function indexRules(rule: Rule, index: number): readonly Rule[] {
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

function concat(a: readonly Rule[], b: readonly Rule[]): readonly Rule[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return [...a, ...b];
}

function where(path: readonly PrefixPathSegment[]): string {
  return path.length === 0 ? '/' : quoteInput(pointerOf(path));
}

/** What a value's first character says it is. */
function typeOfFirst(c: number): number {
  if (c === 0x7b) return OBJECT;
  if (c === 0x5b) return ARRAY;
  if (c === 0x22) return STRING;
  if (c === 0x74 || c === 0x66) return BOOLEAN;
  if (c === 0x6e) return NULL;
  return NUMBER;
}

const TYPE_NAMES: Readonly<Record<number, string>> = {
  [OBJECT]: 'an object',
  [ARRAY]: 'an array',
  [STRING]: 'a string',
  [NUMBER]: 'a number',
  [BOOLEAN]: 'a boolean',
  [NULL]: 'null',
};

interface Frame {
  rules: readonly Rule[];
  isArray: boolean;
  /** An object's key that last closed (its member in flight). */
  key: string;
  /** An array's elements started so far (the last one, `count - 1`, in flight). */
  count: number;
  /** Rules of the member whose key just closed. */
  next: readonly Rule[];
  /** The dispatch whose discriminator the member whose key just closed is. */
  nextDispatch: Dispatch | undefined;
  /** Dispatches already decided (or failed) in this object. */
  decided: Dispatch[] | undefined;
  /** Some rule of this object names the key that just closed in `required` (read with `null-to-absent`). */
  nextRequired: boolean;
  /** With `null-to-absent`: a forbidden key's violation, reported unless its value is `null`. */
  pending: PrefixViolation | undefined;
}

/** A string's checks in flight: constants still matching, code points so far. */
interface Tracker {
  readonly set: ValueSet;
  alive: readonly string[];
  /**
   * With `enum-case`: the allowed strings trimmed and lower-cased (undefined when one is not
   * ASCII: then only the complete string is checked), and for each how it matches so far.
   */
  folded?: readonly string[] | undefined;
  states?: Uint8Array | undefined;
}

// How an allowed string matches a string streaming under `enum-case` (Tracker.states).
const FOLD_MATCHING = 0; // its first `foldAt` characters are the string's, trimmed and lower-cased
const FOLD_TRAILING = 1; // matched whole, followed by whitespace only
const FOLD_DEAD = 2;

/** The coercions the checker must not report against (the `repairable` option), as flags. */
interface Repairs {
  readonly toNumber: boolean;
  readonly toBoolean: boolean;
  readonly toArray: boolean;
  readonly enumCase: boolean;
  readonly nullToAbsent: boolean;
}

/** Options of a PrefixChecker. */
export interface PrefixCheckOptions {
  /**
   * `true`: `schema` is a Standard Schema's export, which reads a schema with no `$schema` as
   * 2020-12, the dialect the export is asked for.
   */
  readonly exported?: boolean;
  /**
   * The coercions that will repair the value (the rules a `coerce` option turns on): nothing
   * that one of them could repair is reported (invariant 5). Default: none.
   */
  readonly repairable?: ReadonlySet<CoercionRule>;
}

/** `String.prototype.trim`'s whitespace among ASCII characters. */
function isTrimSpace(u: number): boolean {
  return u === 0x20 || (u >= 0x09 && u <= 0x0d);
}

/** Trimmed and lower-cased, as `enum-case` compares (coerce.ts). */
function caseKey(text: string): string {
  return text.trim().toLowerCase();
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** How many union branches one mayCoerce walk may visit (past it: assume a coercion). */
const COERCE_BUDGET = 64;

/**
 * Whether a coercion in `repairs` may change a value of JSON type `type` (its first character)
 * that `rules` apply to, so that nothing about it can be certain. `optionalKey`: the value is
 * that of an object key that no rule of the object requires. Conservative: true whenever the
 * coercion might apply (coerce.ts decides whether it does); the walk through union branches is
 * bounded by `budget`.
 */
function mayCoerce(
  rules: readonly Rule[],
  type: number,
  optionalKey: boolean,
  repairs: Repairs,
  budget: { left: number } = { left: COERCE_BUDGET },
): boolean {
  if (type === NULL && optionalKey && repairs.nullToAbsent) return true;
  for (const rule of rules) {
    if (rule.never) continue;
    if (type === STRING) {
      const noString = (rule.types & STRING) === 0;
      if (
        repairs.toNumber &&
        ((noString && (rule.types & (NUMBER | INTEGER)) !== 0) || rule.sets.some((s) => (s.mask & NUMBER) !== 0))
      ) {
        return true;
      }
      if (
        repairs.toBoolean &&
        ((noString && (rule.types & BOOLEAN) !== 0) || rule.sets.some((s) => (s.mask & BOOLEAN) !== 0))
      ) {
        return true;
      }
    }
    // `single-to-array` wraps a value that the node's own `type`, `enum` or `const` rejects,
    // where `type` allows an array (a number where only integers are allowed counts as rejected).
    if (
      repairs.toArray &&
      type !== ARRAY &&
      rule.typeText !== '' &&
      (rule.types & ARRAY) !== 0 &&
      ((rule.types & type) === 0 || rule.sets.length !== 0)
    ) {
      return true;
    }
    const branches = rule.alternatives ?? rule.dispatch?.branches;
    if (branches !== undefined) {
      for (const branch of branches) {
        // Union branches nested without end (a recursive schema): past the budget, assume a coercion.
        if (budget.left-- <= 0) return true;
        if (mayCoerce(rulesOf(rule.context, branch), type, false, repairs, budget)) return true;
      }
    }
  }
  return false;
}

/**
 * The prefix checker of one document. Drive it with the scanner's structure events, in order:
 * `start` for every value (root included), `key` when a key closes, `append` for each piece of
 * a string's decoded text, `endString`/`endScalar` when a string or scalar completes, `close`
 * when a container does. It reports each violation through the callback given at creation.
 */
export class PrefixChecker {
  readonly #report: (violation: PrefixViolation) => void;
  readonly #rootRules: readonly Rule[];
  /** The open containers' frames, `open` of them (the array keeps closed ones for reuse). */
  readonly #frames: Frame[] = [];
  #open = 0;
  // The string or scalar in flight.
  #valueRules: readonly Rule[] = NONE;
  #valueDepth = 0; // containers around the string or scalar in flight
  #valueDispatch: Dispatch | undefined;
  #valueParent: Frame | undefined;
  #trackers: Tracker[] | undefined;
  #maxLength = Number.POSITIVE_INFINITY;
  #codePoints = 0;
  #lastHigh = false;
  #stringLive = false;
  /** The root object's branch, once its discriminator completed (reported with every violation). */
  #rootBranch: string | undefined;

  /** Whether the string that just started is read (an `enum`, `const`, discriminator or `maxLength` applies to it). */
  get readsText(): boolean {
    return this.#stringLive;
  }

  /**
   * Whether nothing inside the container that just started can be reported (no rule applies to
   * its members, or a coercion may change it): a driver may then skip every event inside it
   * but its `close`.
   */
  get quiet(): boolean {
    const frame = this.#frames[this.#open - 1];
    return frame !== undefined && frame.rules.length === 0;
  }
  /** The coercions not to report against (`repairable`), or undefined for none. */
  readonly #repairs: Repairs | undefined;
  // With `enum-case`, the string in flight: only whitespace so far; characters matched after it.
  #foldLeading = false;
  #foldAt = 0;

  /**
   * `schema`: the JSON Schema of the document (a Standard Schema's export: `exported`, which
   * reads a schema with no `$schema` as 2020-12, the dialect the export is asked for; also
   * accepted as `options.exported`). `options.repairable`: see PrefixCheckOptions.
   */
  constructor(
    schema: JsonSchema,
    report: (violation: PrefixViolation) => void,
    exported = false,
    options: PrefixCheckOptions = {},
  ) {
    this.#report = (violation) =>
      report(this.#rootBranch === undefined ? violation : { ...violation, branch: this.#rootBranch });
    const asExport = exported || options.exported === true;
    if (typeof schema === 'boolean') this.#rootRules = schema ? NONE : FALSE_RULES;
    else {
      // One representative per schema content, so that equal schemas share their rules (an
      // export is cached per Standard Schema already).
      const document = asExport ? schema : internSchema(schema);
      this.#rootRules = rulesOf(contextFor(document, asExport), document);
    }
    const rules = options.repairable;
    this.#repairs =
      rules === undefined || rules.size === 0
        ? undefined
        : {
            toNumber: rules.has(CoercionRule.stringToNumber),
            toBoolean: rules.has(CoercionRule.stringToBoolean),
            toArray: rules.has(CoercionRule.singleToArray),
            enumCase: rules.has(CoercionRule.enumCase),
            nullToAbsent: rules.has(CoercionRule.nullToAbsent),
          };
  }

  /** Starts over for another document under the same schema (a JSONL line, an array element). */
  reset(): void {
    this.#open = 0;
    this.#valueRules = NONE;
    this.#valueDepth = 0;
    this.#valueDispatch = undefined;
    this.#valueParent = undefined;
    this.#trackers = undefined;
    this.#stringLive = false;
    this.#rootBranch = undefined;
  }

  /** Whether the schema has anything a prefix can break (otherwise the builder need not call). */
  get active(): boolean {
    return this.#rootRules.length !== 0;
  }

  /**
   * A value starts at `offset` with character `c`, `depth` containers around it. (`_path`, the
   * value's path, is not read: the checker keeps the keys and indexes itself and builds a path
   * only for a violation.)
   */
  start(depth: number, c: number, offset: number, _path?: readonly PrefixPathSegment[]): void {
    let rules: readonly Rule[];
    let dispatch: Dispatch | undefined;
    let parent: Frame | undefined;
    const type = typeOfFirst(c);
    if (depth === 0) {
      rules = this.#rootRules;
    } else {
      parent = this.#frames[depth - 1] as Frame;
      const pending = parent.pending;
      if (pending !== undefined) {
        // A forbidden key whose `null` value `null-to-absent` could remove (see key()).
        parent.pending = undefined;
        if (type !== NULL) this.#report(pending);
      }
      if (parent.isArray) {
        const index = parent.count++;
        rules = parent.rules.length === 0 ? NONE : this.#element(parent, index, depth, offset, c);
      } else if (parent.rules.length === 0) {
        rules = NONE;
      } else {
        rules = parent.next;
        dispatch = parent.nextDispatch;
        if (dispatch !== undefined) rules = concat(rules, dispatch.rules);
      }
    }
    const repairs = this.#repairs;
    if (
      repairs !== undefined &&
      rules.length !== 0 &&
      mayCoerce(rules, type, parent !== undefined && !parent.isArray && !parent.nextRequired, repairs)
    ) {
      // A coercion may change this value: nothing about it (or inside it) is certain.
      rules = NONE;
    }
    if (rules.length !== 0 && !this.#checkStart(rules, type, c, offset, depth)) rules = NONE;
    if (type === OBJECT || type === ARRAY) {
      const frame = this.#frames[this.#open];
      if (frame === undefined) {
        this.#frames.push({
          rules,
          isArray: type === ARRAY,
          key: '',
          count: 0,
          next: NONE,
          nextDispatch: undefined,
          decided: undefined,
          nextRequired: false,
          pending: undefined,
        });
      } else {
        frame.rules = rules;
        frame.isArray = type === ARRAY;
        frame.key = '';
        frame.count = 0;
        frame.next = NONE;
        frame.nextDispatch = undefined;
        frame.decided = undefined;
        frame.nextRequired = false;
        frame.pending = undefined;
      }
      this.#open++;
      return;
    }
    this.#valueRules = rules;
    this.#valueDepth = depth;
    this.#valueDispatch = rules.length === 0 ? undefined : dispatch;
    this.#valueParent = parent;
    this.#stringLive = false;
    if (type === STRING && rules.length !== 0) this.#startString(rules);
  }

  /** An array element starts: `maxItems`, and the element's rules. */
  #element(frame: Frame, index: number, depth: number, offset: number, c: number): readonly Rule[] {
    let rules: readonly Rule[] = NONE;
    for (const rule of frame.rules) {
      if (index >= rule.maxItems) {
        const path = this.#pathAt(depth - 1);
        this.#report({
          offset,
          path,
          rule: 'maxItems',
          message: `the array at ${where(path)} has more than maxItems (${rule.maxItems}) elements: element ${index} starts here`,
          excerpt: String.fromCharCode(c),
        });
        frame.rules = NONE;
        return NONE;
      }
      rules = concat(rules, indexRules(rule, index));
    }
    return rules;
  }

  /** Checks what the first character decides; false after a violation. */
  #checkStart(rules: readonly Rule[], type: number, c: number, offset: number, depth: number): boolean {
    const broken = startBreaks(rules, type, c, 0, this.#repairs);
    if (broken === undefined) return true;
    const [rule, why] = broken;
    const path = this.#pathAt(depth);
    this.#report({
      offset,
      path,
      rule,
      message: `the value at ${where(path)} is ${why}`,
      excerpt: String.fromCharCode(c),
    });
    return false;
  }

  #startString(rules: readonly Rule[]): void {
    let trackers: Tracker[] | undefined;
    let maxLength = Number.POSITIVE_INFINITY;
    const fold = this.#repairs?.enumCase === true;
    for (const rule of rules) {
      if (rule.maxLength < maxLength) maxLength = rule.maxLength;
      for (const set of rule.sets) {
        trackers ??= [];
        if (fold) {
          const ascii = set.strings.every(isAscii);
          const folded = ascii ? set.strings.map(caseKey) : undefined;
          trackers.push({
            set,
            alive: set.strings,
            folded,
            states: folded === undefined ? undefined : new Uint8Array(folded.length),
          });
        } else {
          trackers.push({ set, alive: set.strings });
        }
      }
    }
    // `enum-case` may trim the string to an allowed value: its length before is no evidence.
    if (fold && trackers !== undefined) maxLength = Number.POSITIVE_INFINITY;
    this.#foldLeading = true;
    this.#foldAt = 0;
    this.#trackers = trackers;
    this.#maxLength = maxLength;
    this.#codePoints = 0;
    this.#lastHigh = false;
    this.#stringLive = trackers !== undefined || maxLength !== Number.POSITIVE_INFINITY;
  }

  /**
   * Text was appended to the string in flight: `full` is the whole string so far (read only
   * when reporting: reading a string built by appends flattens it), `added` its end, decoded
   * from `raw`, which starts at offset `rawFrom` (escapes complete).
   */
  append(full: string, added: string, raw: string, rawFrom: number): void {
    if (!this.#stringLive) return;
    const length = full.length;
    const from = length - added.length;
    let bad = -1; // index in `full` of the first unit that no completion can have
    let rule = '';
    let shown = '';
    const trackers = this.#trackers;
    if (trackers !== undefined && this.#repairs?.enumCase === true) {
      const found = this.#foldAppend(trackers, added);
      if (found !== undefined) {
        bad = from + found[0];
        rule = found[1].rule;
        shown = found[1].shown;
      }
    } else if (trackers !== undefined) {
      for (const tracker of trackers) {
        // The candidates still matching; a new list only once one stops matching.
        const candidates = tracker.alive;
        let alive: string[] | undefined;
        let longest = from;
        for (let n = 0; n < candidates.length; n++) {
          const candidate = candidates[n] as string;
          let k = from;
          const end = Math.min(candidate.length, length);
          while (k < end && candidate.charCodeAt(k) === added.charCodeAt(k - from)) k++;
          if (k === length) {
            alive?.push(candidate);
          } else {
            alive ??= candidates.slice(0, n);
            if (k > longest) longest = k;
          }
        }
        if (alive !== undefined) tracker.alive = alive;
        if (alive?.length === 0 && (bad < 0 || longest < bad)) {
          bad = longest;
          rule = tracker.set.rule;
          shown = tracker.set.shown;
        }
      }
    }
    if (this.#maxLength !== Number.POSITIVE_INFINITY) {
      let count = this.#codePoints;
      let high = this.#lastHigh;
      const limit = bad < 0 ? length : bad;
      for (let i = from; i < limit; i++) {
        const u = added.charCodeAt(i - from);
        if (!(high && u >= 0xdc00 && u <= 0xdfff)) count++;
        high = u >= 0xd800 && u <= 0xdbff;
        if (count > this.#maxLength) {
          bad = i;
          rule = 'maxLength';
          break;
        }
      }
      this.#codePoints = count;
      this.#lastHigh = high;
    }
    if (bad < 0) return;
    this.#stringLive = false;
    this.#valueDispatch = undefined;
    const path = this.#pathAt(this.#valueDepth);
    const seen = JSON.stringify(quoteInput(full.slice(0, bad + 1)));
    const message =
      rule === 'maxLength'
        ? `the string at ${where(path)} is longer than maxLength (${this.#maxLength} characters)`
        : this.#repairs?.enumCase === true
          ? `the string at ${where(path)} begins ${seen}, which no allowed value begins with, ignoring case and surrounding whitespace (${rule}: ${shown})`
          : `the string at ${where(path)} begins ${seen}, which no allowed value begins with (${rule}: ${shown})`;
    this.#report({
      offset: rawFrom + rawIndex(raw, bad - from),
      path,
      rule,
      message,
      excerpt: JSON.stringify(full.slice(Math.max(0, bad - 40), bad + 1)),
    });
  }

  /**
   * `enum-case` on the string in flight: feeds `added` to the trackers; the index in `added`
   * where a tracker's last allowed string stopped matching, and its set, or undefined. After a
   * character that is not ASCII (or for a set with one that is not), nothing is decided before
   * the string completes.
   */
  #foldAppend(trackers: readonly Tracker[], added: string): [number, ValueSet] | undefined {
    if (trackers.every((t) => t.states === undefined)) return undefined;
    for (let i = 0; i < added.length; i++) {
      const u = added.charCodeAt(i);
      if (u >= 0x80) {
        for (const tracker of trackers) tracker.states = undefined;
        return undefined;
      }
      if (this.#foldLeading) {
        if (isTrimSpace(u)) continue;
        this.#foldLeading = false;
      }
      const lower = u >= 0x41 && u <= 0x5a ? u + 0x20 : u;
      const at = this.#foldAt++;
      for (const tracker of trackers) {
        const states = tracker.states;
        const folded = tracker.folded;
        if (states === undefined || folded === undefined) continue;
        let alive = false;
        for (let k = 0; k < states.length; k++) {
          const state = states[k] as number;
          if (state === FOLD_DEAD) continue;
          const key = folded[k] as string;
          let next = FOLD_DEAD;
          if (state === FOLD_MATCHING) {
            if (at < key.length && key.charCodeAt(at) === lower) next = FOLD_MATCHING;
            else if (at === key.length && isTrimSpace(lower)) next = FOLD_TRAILING;
          } else if (isTrimSpace(lower)) {
            next = FOLD_TRAILING;
          }
          states[k] = next;
          if (next !== FOLD_DEAD) alive = true;
        }
        if (!alive) return [i, tracker.set];
      }
    }
    return undefined;
  }

  /** The string in flight closed (its closing quote at `quote`): it must be one of the constants whole. */
  endString(full: string, quote: number): void {
    const dispatch = this.#valueDispatch;
    this.#valueDispatch = undefined;
    if (this.#stringLive && this.#trackers !== undefined) {
      this.#stringLive = false;
      const fold = this.#repairs?.enumCase === true;
      for (const tracker of this.#trackers) {
        // `enum-case` repairs a string that matches exactly one allowed value but for case and spaces.
        if (fold ? !allowedFolded(tracker.set.strings, full) : !tracker.alive.includes(full)) {
          const path = this.#pathAt(this.#valueDepth);
          this.#report({
            offset: quote,
            path,
            rule: tracker.set.rule,
            message: `the string at ${where(path)} is ${JSON.stringify(quoteInput(full))}, which is not an allowed value (${tracker.set.rule}: ${tracker.set.shown})`,
            excerpt: JSON.stringify(full.length > 60 ? full.slice(full.length - 60) : full),
          });
          return;
        }
      }
    }
    this.#stringLive = false;
    if (dispatch !== undefined) this.#decide(dispatch, full);
  }

  /** With `enum-case`: the string constant of `dispatch` that `value` is but for case and spaces, if exactly one. */
  #foldedConstant(dispatch: Dispatch, value: unknown): number {
    if (this.#repairs?.enumCase !== true || typeof value !== 'string') return -1;
    const key = caseKey(value);
    let index = -1;
    for (let i = 0; i < dispatch.constants.length; i++) {
      const constant = dispatch.constants[i];
      if (typeof constant === 'string' && caseKey(constant) === key) {
        if (index >= 0) return -1;
        index = i;
      }
    }
    return index;
  }

  /** A number, `true`, `false` or `null` completed; `end` is just after it. */
  endScalar(value: unknown, text: string, end: number): void {
    const rules = this.#valueRules;
    const dispatch = this.#valueDispatch;
    this.#valueRules = NONE;
    this.#valueDispatch = undefined;
    if (rules.length === 0) return;
    if (typeof value === 'number') {
      for (const rule of rules) {
        const broken = numberRule(rule, value);
        if (broken !== undefined) {
          const path = this.#pathAt(this.#valueDepth);
          this.#report({
            offset: end,
            path,
            rule: broken[0],
            message: `the number at ${where(path)} is ${quoteInput(text)}, ${broken[1]}`,
            excerpt: quoteInput(text, 60),
          });
          return;
        }
      }
    }
    if (dispatch !== undefined) this.#decide(dispatch, value);
  }

  /** The discriminator value completed: its branch applies to the rest of the object. */
  #decide(dispatch: Dispatch, value: unknown): void {
    const parent = this.#valueParent;
    if (parent === undefined) return;
    let index = dispatch.constants.indexOf(value as Constant);
    // `enum-case` will make the value this constant: its branch is the one that applies.
    if (index < 0) index = this.#foldedConstant(dispatch, value);
    if (index < 0) return;
    if (parent === this.#frames[0]) this.#rootBranch = String(dispatch.constants[index]);
    let branch = dispatch.branchRules[index];
    if (branch === undefined) {
      branch = rulesOf(dispatch.rule.context, dispatch.branches[index]);
      dispatch.branchRules[index] = branch;
    }
    if (branch.length !== 0) parent.rules = concat(parent.rules, branch);
  }

  /** A key closed (its closing quote at `quote`) in the object at `depth - 1`. */
  key(depth: number, key: string, quote: number): void {
    if (depth < 1 || depth > this.#open) return;
    const frame = this.#frames[depth - 1] as Frame;
    frame.key = key;
    frame.next = NONE;
    frame.nextDispatch = undefined;
    frame.nextRequired = false;
    if (frame.rules.length === 0) return;
    const repairs = this.#repairs;
    if (repairs?.nullToAbsent === true) frame.nextRequired = frame.rules.some((r) => r.required?.has(key) === true);
    let rules: readonly Rule[] = NONE;
    for (const rule of frame.rules) {
      const entry = keyEntry(rule, key);
      const declared = entry.declared;
      let broken: 'additionalProperties' | 'unevaluatedProperties' | undefined;
      if (!declared && rule.additional === false) broken = 'additionalProperties';
      else if (rule.evaluated !== undefined && !rule.evaluated.has(key)) broken = 'unevaluatedProperties';
      if (broken !== undefined) {
        const path = this.#pathAt(depth);
        const listed = rule.properties === undefined ? 'none' : quoteInput(Object.keys(rule.properties).join(', '));
        const violation: PrefixViolation = {
          offset: quote,
          path,
          rule: broken,
          message: `the key ${JSON.stringify(quoteInput(key))} at ${where(path.slice(0, -1))} is not allowed (${broken} is false; declared: ${listed})`,
          excerpt: JSON.stringify(quoteInput(key, 60)),
        };
        // `null-to-absent` removes a `null` that another schema of this object declares and no
        // `required` names, and the forbidden key with it: that is certain only once the value starts.
        if (repairs?.nullToAbsent === true && !frame.nextRequired && frame.rules.some((r) => declares(r, key))) {
          frame.pending = violation;
        } else {
          this.#report(violation);
        }
        return;
      }
      rules = concat(rules, entry.rules);
      const dispatch = rule.dispatch;
      if (dispatch !== undefined && dispatch.property === key && frame.nextDispatch === undefined) {
        if (frame.decided === undefined) frame.decided = [];
        if (!frame.decided.includes(dispatch)) {
          frame.decided.push(dispatch);
          frame.nextDispatch = dispatch;
        }
      }
    }
    frame.next = rules;
  }

  /** The container at the top closed. */
  close(): void {
    if (this.#open > 0) this.#open--;
  }

  /**
   * The path of a value with `depth` containers around it (their current member: the key that
   * last closed, or the index of the element that last started). Built only for a violation.
   */
  #pathAt(depth: number): PrefixPathSegment[] {
    const path: PrefixPathSegment[] = [];
    for (let i = 0; i < depth; i++) {
      const frame = this.#frames[i] as Frame;
      path.push(frame.isArray ? frame.count - 1 : frame.key);
    }
    return path;
  }
}

/** Whether a `null` at `key` could be removed under `rule` (`null-to-absent` looks only there: coerce.ts). */
function declares(rule: Rule, key: string): boolean {
  if (rule.properties !== undefined && Object.hasOwn(rule.properties, key)) return true;
  return !rule.patterns && isObject(rule.additional);
}

/** With `enum-case`: `value` is allowed as it is, or is exactly one of `allowed` but for case and surrounding whitespace. */
function allowedFolded(allowed: readonly string[], value: string): boolean {
  if (allowed.includes(value)) return true;
  const key = caseKey(value);
  let matches = 0;
  for (const candidate of allowed) if (caseKey(candidate) === key) matches++;
  return matches === 1;
}

/**
 * What a value's first character `c` (of JSON type `type`) breaks in `rules`, if anything:
 * `[keyword, words]`. A `oneOf`/`anyOf` without a discriminator is broken when every branch is
 * (`depth` bounds the walk through nested ones); with `repairs`, a branch that a coercion may
 * repair is not.
 */
function startBreaks(
  rules: readonly Rule[],
  type: number,
  c: number,
  depth: number,
  repairs?: Repairs,
): [string, string] | undefined {
  for (const rule of rules) {
    if (rule.never) return ['false', `${TYPE_NAMES[type]}, but the schema there is false: no value is allowed`];
    const typeOk = (rule.types & type) !== 0 || (type === NUMBER && (rule.types & INTEGER) !== 0);
    if (!typeOk || (rule.dispatch !== undefined && type !== OBJECT)) {
      const allowed = rule.typeText === '' ? 'an object (every oneOf/anyOf branch is one)' : rule.typeText;
      return ['type', `${TYPE_NAMES[type]}, but the schema allows ${allowed}`];
    }
    for (const set of rule.sets) {
      const literal = c === 0x74 ? true : c === 0x66 ? false : null;
      const ok = (set.mask & type) !== 0 && (type !== BOOLEAN && type !== NULL ? true : set.scalars.includes(literal));
      if (!ok) {
        const what = type === BOOLEAN || type === NULL ? String(literal) : (TYPE_NAMES[type] as string);
        return [set.rule, `${what}, which is not an allowed value (${set.rule}: ${set.shown})`];
      }
    }
    const alternatives = rule.alternatives;
    if (alternatives !== undefined && depth < 8) {
      let all = alternatives.length !== 0;
      for (const branch of alternatives) {
        const branchRules = rulesOf(rule.context, branch);
        if (
          startBreaks(branchRules, type, c, depth + 1, repairs) === undefined ||
          (repairs !== undefined && mayCoerce(branchRules, type, false, repairs))
        ) {
          all = false;
          break;
        }
      }
      if (all)
        return [rule.alternativesKeyword, `${TYPE_NAMES[type]}, which no ${rule.alternativesKeyword} branch allows`];
    }
  }
  return undefined;
}

/** The bound `value` breaks, if any: `[keyword, words]`. */
function numberRule(rule: Rule, value: number): [string, string] | undefined {
  if ((rule.types & NUMBER) === 0 && (rule.types & INTEGER) !== 0 && !Number.isInteger(value)) {
    return ['type', 'which is not an integer'];
  }
  for (const bound of rule.bounds) {
    const limit = bound.limit;
    switch (bound.rule) {
      case 'minimum':
        if (value < limit) return [bound.rule, `below minimum ${limit}`];
        break;
      case 'maximum':
        if (value > limit) return [bound.rule, `above maximum ${limit}`];
        break;
      case 'exclusiveMinimum':
        if (value <= limit) return [bound.rule, `not above exclusiveMinimum ${limit}`];
        break;
      case 'exclusiveMaximum':
        if (value >= limit) return [bound.rule, `not below exclusiveMaximum ${limit}`];
        break;
    }
  }
  for (const set of rule.sets) {
    if (!set.scalars.includes(value)) return [set.rule, `which is not an allowed value (${set.rule}: ${set.shown})`];
  }
  return undefined;
}

/** Index in `raw` (a JSON string's text with complete escapes) of its `units`-th decoded unit. */
function rawIndex(raw: string, units: number): number {
  let i = 0;
  for (let n = 0; n < units && i < raw.length; n++)
    i += raw.charCodeAt(i) === 0x5c ? (raw.charCodeAt(i + 1) === 0x75 ? 6 : 2) : 1;
  return i;
}
