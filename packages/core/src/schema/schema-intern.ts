/**
 * One schema object per schema content: the cache behind every per-schema cache.
 *
 * Every compiled artefact of a JSON Schema (ajv's validator, the prefix rules, the sub-schemas
 * of the partial builder, the dispatch tables) is cached per schema *object*. A server that
 * parses its schema from a file per request, or spreads it from a base object, hands every
 * stream a new object with the same content, and each one compiled again (about 5 ms of ajv per
 * stream). `internSchema(schema)` maps such an object to one representative per content, so that
 * the identity caches behind it hit.
 *
 * Contract:
 * - `internSchema(schema)` returns an object with the same JSON content as `schema`: the first
 *   one seen with that content, as a private deep-frozen copy that no caller can change. The
 *   same input object always maps to the same representative while it lives (a WeakMap: its
 *   cost is one lookup), and a new object with the same content to the same representative
 *   while that content is in the cache.
 * - The content key is the schema's JSON text in its own key order. Two schemas that differ only
 *   in key order are cached apart: key order decides which property dispatches a `oneOf` when
 *   several qualify, so they are not always the same schema to llmjson.
 * - The cache holds at most `schemaCache.limit` contents (default SCHEMA_CACHE_LIMIT), least
 *   recently used out first. An evicted representative lives on in the streams and objects that
 *   use it, and its compiled artefacts with it (they hang off it in WeakMaps); a new object with
 *   its content then makes a new representative. A limit of 0 turns content lookup off: only
 *   identity is cached.
 * - Only a schema that JSON carries exactly is interned, since the representative is its JSON
 *   copy. A cycle, a BigInt, a schema too deep for `JSON.stringify`, and any value JSON would
 *   change (`undefined`, a function or symbol, a hole in an array, a non-finite number, an object
 *   with `toJSON` or of a class other than a plain object or array: a Date, a Map, a RegExp, a
 *   boxed primitive) would hand the compilers a different schema from the one given (Infinity
 *   becomes null, a Map becomes {}, an invalid `properties: { a: undefined }` becomes valid): such
 *   a schema is its own representative, and compiles per object as before.
 * - Own `__proto__` keys (from JSON.parse) survive: JSON.stringify writes them and JSON.parse
 *   creates them as own data properties again, never as the prototype.
 * - Recency counts every use: a representative reached through its input object (the identity
 *   path) is moved to the most recent end too, so a hot schema passed as one long-lived object is
 *   not evicted by a stream of one-off contents.
 * - Booleans and non-objects are returned as they are. With a limit of 0 an object not seen
 *   before is returned as it is (no copy, no freeze): exactly the per-object caching of before.
 *
 * Memory: each cached content costs its JSON text (the key) plus the representative (a few times
 * the text's length), plus what is compiled from it: an ajv validator of a small schema holds
 * about 30 KB, so the default limit bounds compiled schemas to tens of MB. Input objects are held
 * weakly: the cache never keeps a caller's object alive.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import type { JsonSchema } from './schema-validator.js';

/** Default number of distinct schema contents the cache keeps. */
export const SCHEMA_CACHE_LIMIT = 1000;

let limit = SCHEMA_CACHE_LIMIT;
/** Content → representative, in least-recently-used order (a Map keeps insertion order). */
const byContent = new Map<string, object>();
/** Any object seen → its representative. */
const byObject = new WeakMap<object, object>();
/** The representatives themselves, which map to themselves without a lookup by content. */
const representatives = new WeakSet<object>();
/** A cached representative → its content key, to refresh its recency on an identity hit. */
const keyOf = new WeakMap<object, string>();

function deepFreeze(value: unknown): void {
  const todo: unknown[] = [value];
  while (todo.length !== 0) {
    const node = todo.pop();
    if (typeof node !== 'object' || node === null || Object.isFrozen(node)) continue;
    Object.freeze(node);
    for (const child of Object.values(node)) todo.push(child);
  }
}

/** JSON.parse gives back exactly this value (a container is checked by `carriedExactly`). */
function isJsonScalar(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    default:
      return value === null;
  }
}

/**
 * Whether JSON.parse(JSON.stringify(root)) equals `root`: dense arrays and plain objects (of any
 * realm: the prototype is null or a prototype-less Object.prototype) without `toJSON`, holding
 * only strings, booleans, finite numbers and null. Called after JSON.stringify succeeded, so the
 * graph has no cycle; iterative, so depth costs no stack. A walk plus the native stringify costs
 * about half what a replacer function called per value costs.
 */
function carriedExactly(root: object): boolean {
  const todo: object[] = [root];
  while (todo.length !== 0) {
    const node = todo.pop() as Record<string, unknown>;
    if (typeof node.toJSON === 'function') return false;
    let values: unknown[];
    // An array's holes come out of its iteration as undefined, which is not a JSON scalar.
    if (Array.isArray(node)) values = node;
    else {
      const prototype = Object.getPrototypeOf(node) as object | null;
      if (prototype !== null && Object.getPrototypeOf(prototype) !== null) return false;
      values = Object.values(node);
    }
    for (const value of values) {
      if (typeof value === 'object' && value !== null) todo.push(value);
      else if (!isJsonScalar(value)) return false;
    }
  }
  return true;
}

/** The content key of `schema`, or undefined when JSON cannot carry it exactly. */
function contentKey(schema: object): string | undefined {
  let key: string | undefined;
  try {
    key = JSON.stringify(schema);
  } catch {
    // A cycle, a BigInt, a throwing getter, or a schema deeper than the stack.
    return undefined;
  }
  return typeof key === 'string' && key[0] === '{' && carriedExactly(schema) ? key : undefined;
}

/** Moves `key` to the most recently used end. */
function touch(key: string, representative: object): void {
  byContent.delete(key);
  byContent.set(key, representative);
}

/** The representative of `schema`'s content (see the file's contract). */
export function internSchema<T extends JsonSchema>(schema: T): T {
  if (typeof schema !== 'object' || schema === null) return schema;
  const known = representatives.has(schema) ? schema : byObject.get(schema);
  if (known !== undefined) {
    const key = keyOf.get(known);
    if (key !== undefined && byContent.get(key) === known) touch(key, known);
    return known as T;
  }
  if (limit === 0) return schema;
  const key = contentKey(schema);
  if (key === undefined) {
    representatives.add(schema);
    return schema;
  }
  let representative = byContent.get(key);
  if (representative !== undefined) {
    touch(key, representative);
  } else {
    // JSON.parse reads iteratively, so a key JSON.stringify could write always parses back.
    representative = JSON.parse(key) as object;
    deepFreeze(representative);
    representatives.add(representative);
    keyOf.set(representative, key);
    byContent.set(key, representative);
    evict();
  }
  byObject.set(schema, representative);
  return representative as T;
}

function evict(): void {
  while (byContent.size > limit) {
    const oldest = byContent.keys().next().value as string;
    byContent.delete(oldest);
  }
}

/** The content cache behind `internSchema`: its size, its limit, and a way to empty it. */
export const schemaCache = {
  /** Distinct schema contents held now. */
  get size(): number {
    return byContent.size;
  },
  /** Most distinct contents held (default SCHEMA_CACHE_LIMIT); a non-negative integer, 0 turns content lookup off. */
  get limit(): number {
    return limit;
  },
  set limit(value: number) {
    if (!Number.isInteger(value) || value < 0) {
      throw new ConfigurationError(
        ConfigurationErrorCode.optionInvalid,
        `schemaCache.limit must be a non-negative integer, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
      );
    }
    limit = value;
    evict();
  },
  /** Forgets every content (objects already interned keep their representative). */
  clear(): void {
    byContent.clear();
  },
};
