/**
 * Where a reference in a JSON Schema document leads, decided the way ajv decides it: the index
 * of a document's schema objects, their JSON pointers, the base URI in effect in each (nested
 * `$id`s, or `id` in draft-04), the resources and anchors they declare.
 *
 * The validator (ajv) resolves references itself. The units that walk a schema's JSON without a
 * validator — the sub-schema lookup of the partial builder and the element stream
 * (schema-validator.ts) and the prefix checks (prefix-rules.ts) — resolve them here, so that a
 * reference means to them what it means to the validator: `#/definitions/a` inside a nested
 * resource names that resource's definition, `other.json#/x` names the embedded resource whose
 * `$id` is `other.json`, `#name` names an `$anchor` (or a draft-07 `$id: "#name"`).
 *
 * Contract:
 * - `schemaIndex(document)` is built once per document object (a WeakMap), lazily: nothing is
 *   walked until a reference is resolved or a place is asked for. The walk is iterative (no
 *   recursion to overflow on a deep schema) and linear in the size of the schema.
 * - `resolve(from, reference)` returns the schema a reference found in `from` names, with its
 *   path of keys from the document, or `undefined` when it cannot be told without more (another
 *   document, a `$dynamicRef`, an object met under two bases, a URI that does not parse). An
 *   unresolved reference is never guessed: callers then check that part with the whole value.
 * - URIs are joined with the platform's URL (WHATWG). A document without an absolute `$id` gets
 *   a private absolute base, so relative `$id`s and references join as they do in ajv. A
 *   difference between URL and ajv's RFC 3986 resolver can only leave a reference unresolved
 *   (both sides of a comparison go through the same joiner), never resolve it elsewhere.
 */

import { decodeFragment, isObject, pointerKeys, type SchemaObject } from './json-pointer.js';
import { dialectOf } from './schema-dialect.js';

/** Keywords whose values are schemas: `map` when the value is an object of schemas, `list` when an array. */
const SUBSCHEMAS: ReadonlyMap<string, 'one' | 'map' | 'list' | 'one-or-list'> = new Map([
  ['not', 'one'],
  ['if', 'one'],
  ['then', 'one'],
  ['else', 'one'],
  ['contains', 'one'],
  ['additionalItems', 'one'],
  ['additionalProperties', 'one'],
  ['propertyNames', 'one'],
  ['unevaluatedItems', 'one'],
  ['unevaluatedProperties', 'one'],
  ['items', 'one-or-list'],
  ['allOf', 'list'],
  ['anyOf', 'list'],
  ['oneOf', 'list'],
  ['prefixItems', 'list'],
  ['properties', 'map'],
  ['patternProperties', 'map'],
  ['dependencies', 'map'],
  ['dependentSchemas', 'map'],
  ['$defs', 'map'],
  ['definitions', 'map'],
]);

/** Walking a pointer through these keys does not change the base (ajv's PREVENT_SCOPE_CHANGE). */
const NO_SCOPE_CHANGE = new Set(['properties', 'patternProperties', 'enum', 'dependencies', 'definitions']);

/** The base URI of a document with no absolute `$id`: hierarchical, so that relative URIs join. */
const PRIVATE_BASE = 'https://llmjson.invalid/schema.json';

interface Place {
  /** Keys from the document to this object. */
  readonly path: readonly string[];
  /** The base URI in effect inside it (its own `$id` applied). */
  readonly base: string;
  /** Met under two different bases: its references are not resolved. */
  ambiguous: boolean;
}

export interface Resolved {
  readonly node: unknown;
  /** Keys from the document to `node`. */
  readonly path: readonly string[];
}

export interface SchemaIndex {
  /** The schema-id keyword of the document's dialect: `id` in draft-04, `$id` after. */
  readonly idKeyword: 'id' | '$id';
  /** The schema that `reference`, found in `from`, names; undefined when it cannot be told (see the contract). */
  resolve(from: SchemaObject, reference: string): Resolved | undefined;
  /** Keys from the document to `node`, when the index has met it. */
  pathOf(node: SchemaObject): readonly string[] | undefined;
  /**
   * The references of the document that `resolve` cannot follow (dynamic references, other
   * documents, objects met under two bases), in document order of discovery, at most `limit`.
   */
  unresolved(limit: number): readonly UnresolvedReference[];
}

/** A reference that the walks without a validator cannot follow (see `SchemaIndex.unresolved`). */
export interface UnresolvedReference {
  readonly keyword: string;
  readonly reference: string;
  /** Keys from the document to the schema that holds it. */
  readonly path: readonly string[];
}

/** What is used of the platform's WHATWG `URL` (core's lib is ES2022 alone: no DOM or Node types). */
type UrlConstructor = new (input: string, base: string) => { readonly href: string };
const PlatformUrl = (globalThis as unknown as { URL: UrlConstructor }).URL;

function joinUri(base: string, reference: string): string | undefined {
  // ajv drops a trailing `#` or `#/` before joining.
  const normalized = reference.replace(/#\/?$/, '');
  if (normalized === '') return base;
  if (normalized.startsWith('#')) return base + normalized;
  try {
    return new PlatformUrl(normalized, base).href;
  } catch {
    return undefined;
  }
}

function splitFragment(uri: string): [uri: string, fragment: string] {
  const hash = uri.indexOf('#');
  return hash === -1 ? [uri, ''] : [uri.slice(0, hash), uri.slice(hash + 1)];
}

class Index implements SchemaIndex {
  readonly idKeyword: 'id' | '$id';
  readonly #places = new Map<SchemaObject, Place>();
  readonly #resources = new Map<string, SchemaObject>();
  readonly #anchors = new Map<string, SchemaObject>();
  #walked = false;

  readonly #document: SchemaObject;

  constructor(document: SchemaObject) {
    this.#document = document;
    this.idKeyword = dialectOf(document)?.idKeyword ?? '$id';
  }

  pathOf(node: SchemaObject): readonly string[] | undefined {
    this.#walk();
    return this.#places.get(node)?.path;
  }

  unresolved(limit: number): readonly UnresolvedReference[] {
    this.#walk();
    const found: UnresolvedReference[] = [];
    for (const [node, place] of [...this.#places]) {
      for (const keyword of ['$ref', '$dynamicRef', '$recursiveRef']) {
        const reference = Object.hasOwn(node, keyword) ? node[keyword] : undefined;
        if (typeof reference !== 'string') continue;
        if (keyword === '$ref' && this.resolve(node, reference) !== undefined) continue;
        if (found.length === limit) return found;
        found.push({ keyword, reference, path: place.path });
      }
    }
    return found;
  }

  resolve(from: SchemaObject, reference: string): Resolved | undefined {
    this.#walk();
    const place = this.#places.get(from);
    if (place === undefined || place.ambiguous) return undefined;
    const resolved = joinUri(place.base, reference);
    if (resolved === undefined) return undefined;
    const [uri, fragment] = splitFragment(resolved);
    const resource = this.#resources.get(uri);
    if (resource === undefined) return undefined;
    const at = this.#places.get(resource);
    if (at === undefined || at.ambiguous) return undefined;
    if (fragment === '') return { node: resource, path: at.path };
    if (!fragment.startsWith('/')) {
      const anchor = this.#anchors.get(`${uri}#${decodeFragment(fragment) ?? fragment}`);
      if (anchor === undefined) return undefined;
      const anchorPlace = this.#places.get(anchor);
      return anchorPlace === undefined || anchorPlace.ambiguous ? undefined : { node: anchor, path: anchorPlace.path };
    }
    const keys = pointerKeys(fragment);
    if (keys === undefined) return undefined;
    // Walk as ajv's getJsonPointer does: an `$id` met on the way changes the base.
    let node: unknown = resource;
    let base = at.base;
    for (const key of keys) {
      if (!isObject(node) && !Array.isArray(node)) return undefined;
      if (!Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
      const id = isObject(node) ? node[this.idKeyword] : undefined;
      if (!NO_SCOPE_CHANGE.has(key) && typeof id === 'string') {
        const joined = joinUri(base, id);
        if (joined === undefined) return undefined;
        base = splitFragment(joined)[0];
      }
    }
    const path = [...at.path, ...keys];
    if (isObject(node)) {
      const known = this.#places.get(node);
      if (known === undefined) this.#register(node, path, base);
      else if (known.ambiguous) return undefined;
    }
    return { node, path };
  }

  /** Registers every schema object reachable through schema keywords from the document. */
  #walk(): void {
    if (this.#walked) return;
    this.#walked = true;
    const id = this.#document[this.idKeyword];
    const base = typeof id === 'string' ? splitFragment(joinUri(PRIVATE_BASE, id) ?? PRIVATE_BASE)[0] : PRIVATE_BASE;
    this.#resources.set(base, this.#document);
    this.#register(this.#document, [], base);
  }

  /**
   * Registers `start` (whose base, its own id applied, is `startBase`) and every schema object
   * under it. An object met again under another base is ambiguous.
   */
  #register(start: SchemaObject, path: readonly string[], startBase: string): void {
    type Visit = [SchemaObject, readonly string[], string];
    const todo: Visit[] = [[start, path, startBase]];
    while (todo.length !== 0) {
      const [node, at, parentBase] = todo.pop() as Visit;
      const base = node === start ? parentBase : this.#baseOf(node, parentBase);
      if (node === start) this.#anchorsOf(node, base);
      const known = this.#places.get(node);
      if (known !== undefined) {
        if (known.base !== base) known.ambiguous = true;
        continue;
      }
      this.#places.set(node, { path: at, base, ambiguous: false });
      for (const keyword of Object.keys(node)) {
        const kind = SUBSCHEMAS.get(keyword);
        if (kind === undefined) continue;
        const value = node[keyword];
        if (kind === 'map') {
          if (!isObject(value)) continue;
          for (const name of Object.keys(value)) {
            const child = value[name];
            if (isObject(child)) todo.push([child, [...at, keyword, name], base]);
          }
        } else if (Array.isArray(value)) {
          if (kind === 'one') continue;
          for (let i = 0; i < value.length; i++) {
            const child: unknown = value[i];
            if (isObject(child)) todo.push([child, [...at, keyword, String(i)], base]);
          }
        } else if (isObject(value) && kind !== 'list') {
          todo.push([value, [...at, keyword], base]);
        }
      }
    }
  }

  /** The base inside `node`, registering it as a resource or an anchor as its id says. */
  #baseOf(node: SchemaObject, from: string): string {
    let base = from;
    const id = Object.hasOwn(node, this.idKeyword) ? node[this.idKeyword] : undefined;
    if (typeof id === 'string') {
      const joined = joinUri(from, id);
      if (joined !== undefined) {
        const [uri, fragment] = splitFragment(joined);
        if (!id.startsWith('#')) {
          base = uri;
          if (!this.#resources.has(uri)) this.#resources.set(uri, node);
        }
        // draft-06/07 spell an anchor `$id: "#name"`.
        if (fragment !== '') this.#anchors.set(`${base}#${fragment}`, node);
      }
    }
    this.#anchorsOf(node, base);
    return base;
  }

  #anchorsOf(node: SchemaObject, base: string): void {
    for (const keyword of ['$anchor', '$dynamicAnchor']) {
      const anchor = Object.hasOwn(node, keyword) ? node[keyword] : undefined;
      if (typeof anchor === 'string') this.#anchors.set(`${base}#${anchor}`, node);
    }
  }
}

const indexes = new WeakMap<object, Index>();

/** The index of `document` (one per document object, built on first use). */
export function schemaIndex(document: SchemaObject): SchemaIndex {
  let index = indexes.get(document);
  if (index === undefined) {
    index = new Index(document);
    indexes.set(document, index);
  }
  return index;
}
