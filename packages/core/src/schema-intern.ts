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
 * - What JSON cannot carry (a cycle, a BigInt, a schema too deep for `JSON.stringify`) is not
 *   interned: the object is its own representative, and compiles per object as before.
 * - Booleans and non-objects are returned as they are.
 *
 * Memory: each cached content costs its JSON text (the key) plus the representative, plus what
 * is compiled from it.
 */

import { ConfigurationError, ConfigurationErrorCode } from './configuration-error.js';
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

function deepFreeze(value: unknown): void {
  const todo: unknown[] = [value];
  while (todo.length !== 0) {
    const node = todo.pop();
    if (typeof node !== 'object' || node === null || Object.isFrozen(node)) continue;
    Object.freeze(node);
    for (const child of Object.values(node)) todo.push(child);
  }
}

/** The representative of `schema`'s content (see the file's contract). */
export function internSchema<T extends JsonSchema>(schema: T): T {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (representatives.has(schema)) return schema;
  const known = byObject.get(schema);
  if (known !== undefined) return known as T;
  let key: string | undefined;
  try {
    key = JSON.stringify(schema);
  } catch {
    key = undefined;
  }
  if (typeof key !== 'string' || key[0] !== '{') {
    representatives.add(schema);
    return schema;
  }
  let representative = limit === 0 ? undefined : byContent.get(key);
  if (representative !== undefined) {
    // Most recently used goes last.
    byContent.delete(key);
    byContent.set(key, representative);
  } else {
    try {
      representative = JSON.parse(key) as object;
      deepFreeze(representative);
    } catch {
      representatives.add(schema);
      return schema;
    }
    representatives.add(representative);
    if (limit !== 0) {
      byContent.set(key, representative);
      evict();
    }
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
