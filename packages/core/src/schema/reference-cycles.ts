/**
 * Static analysis of a schema's references: the cycles that never descend into the value.
 *
 * Contract: `rejectReferenceCycles(schema, rootBase, draft07, ajv)` throws ConfigurationError
 * (SCHEMA_INVALID) naming the cycle, as JSON pointers (`#/allOf/0 -> #`), when the schema's
 * references loop without descending into the value (`{"$ref": "#"}`,
 * `{"allOf": [{"$ref": "#"}]}`): such a schema recurses forever on every value. Recursion
 * through `properties`, `items` and the other keywords that apply to a part of the value is
 * legitimate and stays valid. The validator runs it before ajv compiles, since ajv compiles
 * most such schemas without complaint and overflows the stack on the others (a ring of bare
 * `$ref`s).
 *
 * Invariants:
 * - Only cycles that exist are reported: references resolve the way ajv resolves them (its
 *   URI resolver, `$id` bases — draft-04's `id`, as the given ajv's `schemaId` option says —
 *   anchors, JSON pointers), and a reference that cannot be resolved statically is no edge.
 * - The edges follow the dialect: draft-07 ajv (and its draft-04 and draft-06 setups) ignores `dependentSchemas`, `$recursiveRef`
 *   and `$dynamicRef`; `if`, `then` and `else` count only where ajv evaluates them.
 * - The cost is linear in the size of the schema, with explicit stacks: no recursion can
 *   overflow, however deep the schema.
 * - Messages quote pointers through `quoteInput`, and elide a long cycle past
 *   CYCLE_STEPS_SHOWN steps.
 *
 * The JSON pointer helpers (`pointerKeys`, `walkKeys`, `escapePointer`) and `isObject` live in
 * json-pointer.ts, shared with the validator's own local `$ref` resolution so that both read
 * pointers the way ajv decodes them; they are re-exported here for existing imports.
 */

import type { Ajv } from 'ajv';
import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { quoteInput } from '../diagnostics/diagnostics.js';
import { decodeFragment, escapePointer, isObject, pointerKeys, type SchemaObject, walkKeys } from './json-pointer.js';

/** A subschema found under `keyword` (and, in a list or map, under `member`) of its parent. */
type Subschema = readonly [schema: SchemaObject, keyword: string, member: string | number | undefined];

/** What a keyword's subschemas apply to, as bits: edges are chosen by role, per dialect. */
const Role = {
  /** Applied to the same instance: a cycle through these never reaches the end of the value. */
  inPlace: 1,
  /** `dependentSchemas`: in place, but ignored by draft-07 ajv. */
  inPlaceNext: 2,
  /** `if`, `then`, `else`: in place as far as `if` lets them apply (see `edgesOf`). */
  conditional: 4,
  /** Applied to a part of the instance (an element, a property value or name): recursion ends with the value. */
  descending: 8,
  /** Only holds subschemas for references to find (`$defs`, `definitions`). */
  definitions: 16,
} as const;
const EVERY_ROLE = 31;

/** Keywords that hold subschemas: their role, and whether the value is a map of schemas. */
const SUBSCHEMA_KEYWORDS: ReadonlyMap<string, { readonly role: number; readonly map: boolean }> = new Map([
  ['not', { role: Role.inPlace, map: false }],
  ['allOf', { role: Role.inPlace, map: false }],
  ['anyOf', { role: Role.inPlace, map: false }],
  ['oneOf', { role: Role.inPlace, map: false }],
  // Its list values (required properties) are not schemas and are skipped.
  ['dependencies', { role: Role.inPlace, map: true }],
  ['dependentSchemas', { role: Role.inPlaceNext, map: true }],
  ['if', { role: Role.conditional, map: false }],
  ['then', { role: Role.conditional, map: false }],
  ['else', { role: Role.conditional, map: false }],
  ['items', { role: Role.descending, map: false }],
  ['prefixItems', { role: Role.descending, map: false }],
  ['additionalItems', { role: Role.descending, map: false }],
  ['contains', { role: Role.descending, map: false }],
  ['additionalProperties', { role: Role.descending, map: false }],
  ['propertyNames', { role: Role.descending, map: false }],
  ['unevaluatedItems', { role: Role.descending, map: false }],
  ['unevaluatedProperties', { role: Role.descending, map: false }],
  ['properties', { role: Role.descending, map: true }],
  ['patternProperties', { role: Role.descending, map: true }],
  ['$defs', { role: Role.definitions, map: true }],
  ['definitions', { role: Role.definitions, map: true }],
]);

export const REFERENCE_KEYWORDS = ['$ref', '$recursiveRef', '$dynamicRef'];

function own(schema: SchemaObject, keyword: string): unknown {
  return Object.hasOwn(schema, keyword) ? schema[keyword] : undefined;
}

/**
 * Appends the object subschemas of `schema` under keywords whose role is in `roles` to `out`
 * (boolean subschemas apply nothing). One pass over the schema's own keys: a schema has a few,
 * the keyword table has twenty.
 */
function subschemas(schema: SchemaObject, roles: number, out: Subschema[]): void {
  for (const keyword of Object.keys(schema)) {
    const kind = SUBSCHEMA_KEYWORDS.get(keyword);
    if (kind === undefined || (kind.role & roles) === 0) continue;
    const value = schema[keyword];
    if (kind.map) {
      if (!isObject(value)) continue;
      for (const name of Object.keys(value)) {
        const child = value[name];
        if (isObject(child)) out.push([child, keyword, name]);
      }
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (isObject(child)) out.push([child, keyword, i]);
      }
    } else if (isObject(value)) {
      out.push([value, keyword, undefined]);
    }
  }
}

/** Where the analysis met a schema object: the way back to the root, and the base URI in effect. */
interface Place {
  readonly parent: SchemaObject | undefined;
  /** The keyword of `parent` it was found under, or a JSON pointer (`/components/a`) from a reference. */
  readonly keyword: string;
  /** Its index or name in the keyword's list or map. */
  readonly member: string | number | undefined;
  /** Base URI of the parent, which `$id` resolves against. */
  readonly from: string;
  /** Base URI that the schema's own references resolve against. */
  readonly base: string;
  /** Met under two different bases (a shared object): its references are not followed. */
  ambiguous: boolean;
}

interface Edges {
  /** Schemas applied to the same instance: subschemas of in-place keywords and reference targets. */
  readonly inPlace: readonly SchemaObject[];
  /** Every schema applied to the instance or a part of it. */
  readonly all: readonly SchemaObject[];
}

/**
 * The schema objects of a document and the "applies to" edges between them, for finding a
 * cycle of in-place applications. Everything is explicit stacks and maps: the cost is linear
 * in the size of the schema and no recursion can overflow, however deep the schema.
 *
 * References resolve the way ajv resolves them (its URI resolver, `$id` bases, `$anchor`s,
 * JSON pointers into the resource). A reference that cannot be resolved statically is no edge:
 * the analysis only ever reports cycles that exist. `$recursiveRef`/`$dynamicRef` are followed
 * when the document is a single resource (the dynamic scope then holds only it, so dynamic and
 * static resolution agree) or when their target carries no dynamic anchor.
 */
class ReferenceGraph {
  readonly #places = new Map<SchemaObject, Place>();
  readonly #resources = new Map<string, SchemaObject>();
  readonly #anchors = new Map<string, SchemaObject>();
  readonly #edges = new Map<SchemaObject, Edges>();
  readonly #inPlaceRoles: number;

  readonly #root: SchemaObject;
  readonly #resolveUri: (base: string, reference: string) => string;
  readonly #idKeyword: '$id' | 'id';

  constructor(
    root: SchemaObject,
    rootBase: string,
    draft07: boolean,
    resolveUri: (base: string, reference: string) => string,
    idKeyword: '$id' | 'id',
  ) {
    this.#root = root;
    this.#resolveUri = resolveUri;
    this.#idKeyword = idKeyword;
    this.#inPlaceRoles = draft07 ? Role.inPlace : Role.inPlace | Role.inPlaceNext;
    this.#resources.set(rootBase, root);
    this.#register(root, undefined, '', undefined, rootBase);
  }

  /** A cycle of in-place applications reachable from the root, first schema repeated last. */
  findCycle(): SchemaObject[] | undefined {
    const reachable = [this.#root];
    const seen = new Set(reachable);
    for (let i = 0; i < reachable.length; i++) {
      for (const target of this.#edgesOf(reachable[i] as SchemaObject).all) {
        if (!seen.has(target)) {
          seen.add(target);
          reachable.push(target);
        }
      }
    }
    const onPath = 1;
    const done = 2;
    const state = new Map<SchemaObject, number>();
    for (const start of reachable) {
      if (state.has(start)) continue;
      const path = [start];
      const next = [0];
      state.set(start, onPath);
      while (path.length !== 0) {
        const top = path.length - 1;
        const node = path[top] as SchemaObject;
        const targets = this.#edgesOf(node).inPlace;
        const i = next[top] as number;
        if (i === targets.length) {
          state.set(node, done);
          path.pop();
          next.pop();
          continue;
        }
        next[top] = i + 1;
        const target = targets[i] as SchemaObject;
        const seenBefore = state.get(target);
        if (seenBefore === onPath) return [...path.slice(path.indexOf(target)), target];
        if (seenBefore === undefined) {
          state.set(target, onPath);
          path.push(target);
          next.push(0);
        }
      }
    }
    return undefined;
  }

  /** The JSON pointer (`#/allOf/0`) at which the analysis first met `schema`. */
  pointerOf(schema: SchemaObject): string {
    const steps: string[] = [];
    for (let place = this.#places.get(schema); place?.parent !== undefined; place = this.#places.get(place.parent)) {
      const member = place.member === undefined ? '' : `/${escapePointer(String(place.member))}`;
      steps.push(place.keyword.startsWith('/') ? place.keyword : `/${place.keyword}${member}`);
    }
    return `#${steps.reverse().join('')}`;
  }

  /** Records `start` and every subschema under it, with their bases, `$id`s and anchors. */
  #register(
    start: SchemaObject,
    parent: SchemaObject | undefined,
    keyword: string,
    member: string | number | undefined,
    from: string,
  ): void {
    type Visit = [SchemaObject, SchemaObject | undefined, string, string | number | undefined, string];
    const todo: Visit[] = [[start, parent, keyword, member, from]];
    const children: Subschema[] = [];
    while (todo.length !== 0) {
      const [schema, parent, keyword, member, from] = todo.pop() as Visit;
      const known = this.#places.get(schema);
      if (known !== undefined) {
        if (known.from !== from) known.ambiguous = true;
        continue;
      }
      const base = this.#baseOf(schema, from);
      this.#places.set(schema, { parent, keyword, member, from, base, ambiguous: false });
      children.length = 0;
      subschemas(schema, EVERY_ROLE, children);
      for (const [child, childKeyword, childMember] of children)
        todo.push([child, schema, childKeyword, childMember, base]);
    }
  }

  /** The base URI inside `schema`, registering it as a resource or anchor as its `$id` says. */
  #baseOf(schema: SchemaObject, from: string): string {
    let base = from;
    const id = own(schema, this.#idKeyword);
    if (typeof id === 'string') {
      const resolved = this.#resolve(from, id);
      if (resolved !== undefined) {
        const [uri, fragment] = splitFragment(resolved);
        if (!id.startsWith('#')) {
          base = uri;
          if (!this.#resources.has(uri)) this.#resources.set(uri, schema);
        }
        // draft-07 spells anchors as `$id: "#name"`.
        if (fragment !== '') this.#anchors.set(`${base}#${fragment}`, schema);
      }
    }
    for (const keyword of ['$anchor', '$dynamicAnchor']) {
      const anchor = own(schema, keyword);
      if (typeof anchor === 'string') this.#anchors.set(`${base}#${anchor}`, schema);
    }
    return base;
  }

  #edgesOf(schema: SchemaObject): Edges {
    const cached = this.#edges.get(schema);
    if (cached !== undefined) return cached;
    const found: Subschema[] = [];
    subschemas(schema, this.#inPlaceRoles | Role.descending, found);
    const inPlace: SchemaObject[] = [];
    const descending: SchemaObject[] = [];
    for (const [child, keyword] of found) {
      const role = SUBSCHEMA_KEYWORDS.get(keyword)?.role ?? 0;
      (role === Role.descending ? descending : inPlace).push(child);
    }
    // ajv evaluates `if` only beside a `then` or an `else`, `then` only when `if` can pass and
    // `else` only when it can fail.
    const condition = own(schema, 'if');
    const then = own(schema, 'then');
    const otherwise = own(schema, 'else');
    if (condition !== undefined && (then !== undefined || otherwise !== undefined)) {
      if (isObject(condition)) inPlace.push(condition);
      if (condition !== false && isObject(then)) inPlace.push(then);
      if (condition !== true && isObject(otherwise)) inPlace.push(otherwise);
    }
    const place = this.#places.get(schema);
    if (place !== undefined && !place.ambiguous) {
      // Draft-07 ajv ignores `$recursiveRef` and `$dynamicRef`; 2019-09 and 2020-12 ajv apply both.
      const keywords = (this.#inPlaceRoles & Role.inPlaceNext) === 0 ? ['$ref'] : REFERENCE_KEYWORDS;
      for (const keyword of keywords) {
        const reference = own(schema, keyword);
        const target = typeof reference === 'string' ? this.#target(reference, place.base, keyword) : undefined;
        if (target !== undefined) inPlace.push(target);
      }
    }
    const edges: Edges = { inPlace, all: inPlace.concat(descending) };
    this.#edges.set(schema, edges);
    return edges;
  }

  /** The schema object `reference` names from `base`, when it can be told without a value. */
  #target(reference: string, base: string, keyword: string): SchemaObject | undefined {
    const resolved = this.#resolve(base, reference);
    if (resolved === undefined) return undefined;
    const [uri, fragment] = splitFragment(resolved);
    const resource = this.#resources.get(uri);
    if (resource === undefined) return undefined;
    let target: unknown;
    if (fragment === '') target = resource;
    else if (fragment.startsWith('/')) target = walkPointer(resource, fragment);
    else target = this.#anchors.get(`${uri}#${decodeFragment(fragment) ?? fragment}`);
    if (!isObject(target)) return undefined;
    // A pointer may lead where the keyword walk did not go (`#/components/...`): record it now.
    if (!this.#places.has(target)) this.#register(target, resource, fragment, undefined, uri);
    if (keyword !== '$ref' && this.#resources.size > 1) {
      const dynamic =
        keyword === '$recursiveRef'
          ? own(target, '$recursiveAnchor') === true
          : own(target, '$dynamicAnchor') !== undefined;
      if (dynamic) return undefined;
    }
    return target;
  }

  /** ajv's resolution: a trailing `#` or `#/` is dropped, then the URI resolver joins. */
  #resolve(base: string, reference: string): string | undefined {
    const normalized = reference.replace(/#\/?$/, '');
    // A fragment alone replaces the base's (which has none): no need for the resolver's parse.
    if (normalized === '' || normalized.startsWith('#')) return base + normalized;
    try {
      return this.#resolveUri(base, normalized);
    } catch {
      return undefined;
    }
  }
}

function splitFragment(uri: string): [uri: string, fragment: string] {
  const hash = uri.indexOf('#');
  return hash === -1 ? [uri, ''] : [uri.slice(0, hash), uri.slice(hash + 1)];
}

/** Follows a JSON pointer fragment from `node`. */
function walkPointer(node: unknown, fragment: string): unknown {
  const keys = pointerKeys(fragment);
  return keys === undefined ? undefined : walkKeys(node, keys);
}

/** Longest run of a reported cycle shown before it is elided. */
const CYCLE_STEPS_SHOWN = 8;

/** Throws SCHEMA_INVALID when `schema` applies itself to the same instance in a loop. */
export function rejectReferenceCycles(schema: SchemaObject, rootBase: string, draft07: boolean, ajv: Ajv): void {
  const graph = new ReferenceGraph(
    schema,
    rootBase,
    draft07,
    (base, reference) => ajv.opts.uriResolver.resolve(base, reference),
    ajv.opts.schemaId === 'id' ? 'id' : '$id',
  );
  const cycle = graph.findCycle();
  if (cycle === undefined) return;
  const steps = cycle.length - 1;
  const shown =
    steps <= CYCLE_STEPS_SHOWN
      ? cycle
      : [...cycle.slice(0, CYCLE_STEPS_SHOWN), undefined, cycle[steps] as SchemaObject];
  const chain = shown
    .map((s) => (s === undefined ? `… (${steps - CYCLE_STEPS_SHOWN} more)` : quoteInput(graph.pointerOf(s))))
    .join(' -> ');
  throw new ConfigurationError(
    ConfigurationErrorCode.schemaInvalid,
    `schema reference cycle that never descends into the value: ${chain}; recursion must go through a keyword that applies to a part of the value (properties, items, ...)`,
  );
}
