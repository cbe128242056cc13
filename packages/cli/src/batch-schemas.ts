/**
 * The per-record schemas of `llmjson batch --schema-field`: each record may carry its own schema
 * (JSONSchemaBench pairs every output with one), and a run of a million records holds a few
 * hundred distinct ones. `RecordSchemas.lookup(raw)` turns what a record holds into a compiled
 * schema, compiling each distinct *content* once.
 *
 * What a record may hold (BatchRecord.schema): an object or boolean schema; a JSON text of one
 * (a string whose first non-blank character is `{`, or `true`/`false`); else a name resolved
 * through the `--schema-root` directories, then the workspace, user and built-in roots, as
 * `--schema-ref` resolves one (`createSchemaRegistry`, schema-options.ts).
 *
 * Contract:
 * - Content, not spelling: the key is the schema's canonical JSON text (object keys sorted, no
 *   whitespace), and `id` is the first 12 hex digits of its SHA-256. The same schema written with
 *   other key order or whitespace, inline or as a JSON text, has the same id and is compiled
 *   once. What is compiled is the canonical form (JSON.parse of the canonical text), not the
 *   first record's spelling: the result of a record then depends only on its schema's content,
 *   never on which record a worker or a shard met first (core's own content cache keeps key
 *   order, which can choose a `oneOf` dispatch property; here the sorted order decides, the same
 *   everywhere).
 * - Never throws: a schema that cannot be used (not JSON, not an object or boolean, longer than
 *   `maxSchemaLength`, nested deeper than MAX_SCHEMA_DEPTH, a name that resolves to nothing, a
 *   schema ajv rejects: invalid, an unsupported `$schema` dialect, an unresolvable `$ref`, a
 *   `$ref` cycle, a validator that overflows the stack while compiling) is `{ id, problem }`,
 *   `problem` one sentence saying what to fix. Failures are cached as successes are, so a bad
 *   schema shared by 10 000 records is compiled (and fails) once.
 * - Compilation is core's (`NODE_DEFAULTS.compileJsonSchema` from `@llmjson/core/ajv`, with the
 *   run's discriminator), the machinery every other command validates with, so every dialect
 *   from draft-04 to 2020-12 works as it does everywhere else.
 * - Cheap on a repeat: an object is looked up by identity first (a schema object is taken as
 *   never changing once handed over, as core's schema cache takes it), then by its JSON text as
 *   written, a string by itself; only a new spelling pays the canonical walk and the hash.
 * - Bounded: at most `limit` contents (default 1 000, least recently used out first), and the
 *   texts kept as lookup keys at most MAX_ALIAS_CHARACTERS characters in all, so a file of a
 *   million distinct schemas runs in flat memory (it compiles each, as it must).
 *
 * Why a cache of its own rather than core's: core's is keyed by key order and does not cache a
 * schema that fails to compile (it throws each time), and a record's schema arrives as a new
 * object or string per record, so the per-record cost must be a lookup, not a compilation.
 */

import { createHash } from 'node:crypto';
import { createSchemaRegistry, defaultSchemaRoots, type SchemaRegistry } from '@llmjson/contracts';
import type { CompiledSchema, JsonSchema } from '@llmjson/core';
import { NODE_DEFAULTS } from '@llmjson/core/ajv';
import { checkOptionNames, quoteInput } from '@llmjson/core/internal';

/** Default number of distinct schema contents kept compiled. */
export const RECORD_SCHEMA_CACHE_LIMIT = 1000;
/** Default longest schema, in characters of its JSON text (inline, canonical or as given). */
export const MAX_SCHEMA_LENGTH = 1024 * 1024;
/** Deepest nesting of a schema, in levels: deeper ones are refused before they reach ajv. */
export const MAX_SCHEMA_DEPTH = 256;
/** Characters of raw schema texts and names kept as lookup keys, in all. */
const MAX_ALIAS_CHARACTERS = 8 * 1024 * 1024;
/** Longest explanation quoted in a problem. */
const MAX_PROBLEM_LENGTH = 500;

export interface RecordSchemasOptions {
  /** Discriminator for `oneOf` schemas, as `--discriminator` (detected by default; `false`: off). */
  readonly discriminator?: string | false | undefined;
  /** `--schema-root` directories (absolute), searched before the default roots for a schema given by name. */
  readonly schemaRoots?: readonly string[] | undefined;
  /** Distinct contents kept. Default RECORD_SCHEMA_CACHE_LIMIT (1 000). */
  readonly limit?: number | undefined;
  /** Longest schema text, in characters. Default MAX_SCHEMA_LENGTH (1 MiB). */
  readonly maxSchemaLength?: number | undefined;
}

export const RECORD_SCHEMAS_OPTION_NAMES: readonly (keyof RecordSchemasOptions)[] = [
  'discriminator',
  'schemaRoots',
  'limit',
  'maxSchemaLength',
];

/** A usable schema: its id, its canonical form and its validator. */
export interface RecordSchema {
  readonly id: string;
  readonly schema: JsonSchema;
  readonly compiled: CompiledSchema;
}

/** A schema that cannot be used, and why. */
export interface RecordSchemaProblem {
  readonly id: string;
  readonly problem: string;
}

export type RecordSchemaLookup = RecordSchema | RecordSchemaProblem;

/** Thrown inside canonicalisation only; always caught here. */
class Unusable extends Error {}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function describe(raw: unknown): string {
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return 'an array';
  return `a ${typeof raw}`;
}

/** The canonical JSON text of a JSON value (keys sorted), refusing what is too long or too deep. */
function canonicalText(value: unknown, maxLength: number): string {
  let length = 0;
  const grow = (text: string): string => {
    length += text.length;
    if (length > maxLength) throw new Unusable(`the schema is longer than ${maxLength} characters`);
    return text;
  };
  const write = (node: unknown, depth: number): string => {
    if (depth > MAX_SCHEMA_DEPTH) throw new Unusable(`the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
    if (node === null || typeof node === 'boolean') return grow(String(node));
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) throw new Unusable('the schema holds a number JSON cannot carry');
      return grow(JSON.stringify(node));
    }
    if (typeof node === 'string') return grow(JSON.stringify(node));
    if (Array.isArray(node)) {
      const parts: string[] = [];
      for (const item of node) parts.push(write(item, depth + 1));
      grow('[]');
      return `[${parts.join(',')}]`;
    }
    if (typeof node === 'object') {
      const keys = Object.keys(node).sort();
      const parts: string[] = [];
      for (const key of keys) {
        const child = (node as Record<string, unknown>)[key];
        if (child === undefined) continue;
        parts.push(`${grow(JSON.stringify(key))}:${write(child, depth + 1)}`);
      }
      grow('{}');
      return `{${parts.join(',')}}`;
    }
    throw new Unusable(`the schema holds ${describe(node)}, which JSON cannot carry`);
  };
  return write(value, 0);
}

/** An id for what could not be read as a schema: the hash of its text as given (bounded), so the same input has the same id. */
function rawId(raw: unknown): string {
  let text: string;
  try {
    text = typeof raw === 'string' ? raw : String(JSON.stringify(raw));
  } catch {
    text = describe(raw);
  }
  return sha256(`raw:${text.slice(0, MAX_SCHEMA_LENGTH)}`).slice(0, 12);
}

function explain(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return quoteInput(message, MAX_PROBLEM_LENGTH);
}

/**
 * A map that forgets its least recently used entries, bounded by entries and key characters. A
 * hit only stamps the entry (no delete and re-insert: this runs once or twice per record); when a
 * bound is passed, the oldest tenth goes at once (sorted by stamp), so eviction costs O(log n)
 * per insertion, amortised.
 */
class Lru<V> {
  private readonly map = new Map<string, { value: V; used: number }>();
  private characters = 0;
  private clock = 0;
  constructor(
    private readonly limit: number,
    private readonly maxCharacters = Number.POSITIVE_INFINITY,
  ) {}
  get(key: string): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.clock;
    return entry.value;
  }
  set(key: string, value: V): void {
    if (this.limit <= 0 || key.length > this.maxCharacters) return;
    const old = this.map.get(key);
    if (old !== undefined) this.characters -= key.length;
    this.map.set(key, { value, used: ++this.clock });
    this.characters += key.length;
    if (this.map.size > this.limit || this.characters > this.maxCharacters) this.prune();
  }
  get size(): number {
    return this.map.size;
  }
  private prune(): void {
    const keepEntries = this.limit - Math.floor(this.limit / 10);
    const keepCharacters = Number.isFinite(this.maxCharacters)
      ? this.maxCharacters - Math.floor(this.maxCharacters / 10)
      : this.maxCharacters;
    const oldestFirst = [...this.map].sort((a, b) => a[1].used - b[1].used);
    for (const [key] of oldestFirst) {
      if (this.map.size <= keepEntries && this.characters <= keepCharacters) break;
      this.map.delete(key);
      this.characters -= key.length;
    }
  }
}

/**
 * `text` in a string of its own. A slice of a line is a view of the whole block's text in V8 (a
 * sliced string), so a cache that kept slices would keep every block one came from: 1 000 kept
 * schema texts from 1 000 blocks of 112 KiB held 115 MB, their copies 0.5 MB. Paid once per key
 * kept, never per lookup.
 */
export function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** A lookup and, when it got as far as a content, the content's full hash. */
interface Keyed {
  readonly found: RecordSchemaLookup;
  readonly hash?: string;
}

function problem(id: string, why: string): Keyed {
  return { found: { id, problem: why } };
}

export class RecordSchemas {
  private readonly discriminator: string | false | undefined;
  private readonly schemaRoots: readonly string[];
  private readonly maxSchemaLength: number;
  /** Canonical text's full SHA-256 → the lookup: the bound, and the recency that decides eviction. */
  private readonly byContent: Lru<RecordSchemaLookup>;
  /**
   * A schema as a record wrote it (a JSON text, a name, an object's JSON.stringify) → its content
   * hash (then looked up in `byContent`), or the problem found before there was a content. A
   * repeat costs no parse, no canonical walk and no hash.
   */
  private readonly byText: Lru<Keyed>;
  /**
   * An object schema seen before → its lookup, by identity (held weakly): a worker that keeps one
   * object per schema (batch-pool-worker.ts) pays no JSON.stringify per record. As core's own
   * schema cache does, this takes an object handed over as never changing after.
   */
  private readonly byObject = new WeakMap<object, Keyed>();
  private registry: SchemaRegistry | undefined;
  private compiledCount = 0;

  constructor(options: RecordSchemasOptions = {}) {
    checkOptionNames('RecordSchemas', options, RECORD_SCHEMAS_OPTION_NAMES);
    const limit = options.limit ?? RECORD_SCHEMA_CACHE_LIMIT;
    if (!Number.isInteger(limit) || limit < 0) {
      throw new TypeError(`RecordSchemas: limit must be a whole number of schemas (0 or more), got ${String(limit)}`);
    }
    const maxSchemaLength = options.maxSchemaLength ?? MAX_SCHEMA_LENGTH;
    if (!Number.isInteger(maxSchemaLength) || maxSchemaLength < 1) {
      throw new TypeError(
        `RecordSchemas: maxSchemaLength must be a whole number of characters (1 or more), got ${String(maxSchemaLength)}`,
      );
    }
    this.discriminator = options.discriminator;
    this.schemaRoots = options.schemaRoots ?? [];
    this.maxSchemaLength = maxSchemaLength;
    this.byContent = new Lru(limit);
    this.byText = new Lru(limit, MAX_ALIAS_CHARACTERS);
  }

  /** Schemas compiled so far (each distinct content once, failures included; again only after eviction). */
  get compilations(): number {
    return this.compiledCount;
  }

  /** Distinct contents held now (at most `limit`). */
  get size(): number {
    return this.byContent.size;
  }

  /** The compiled schema `raw` stands for, or why it cannot be used. Never throws. */
  lookup(raw: unknown): RecordSchemaLookup {
    try {
      if (typeof raw === 'string') return this.lookupWrittenText(raw, () => this.lookupText(raw));
      if (typeof raw === 'boolean') return this.lookupValue(raw).found;
      if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) return this.lookupObject(raw);
      return problem(
        rawId(raw),
        `a record's schema must be a JSON Schema object, a boolean, a JSON text of one or a schema name; got ${describe(raw)}`,
      ).found;
    } catch (error) {
      // Defensive: every expected failure is a problem already; this keeps the promise of never throwing.
      return problem(rawId(raw), `the schema could not be read: ${explain(error)}`).found;
    }
  }

  /**
   * `lookup(raw)` for an object schema whose JSON text, as the record wrote it, is `written`:
   * the same answer, without writing the object out (`JSON.stringify`) to know it again, and
   * without the object at all when the text was met before (`raw` may then be left out).
   */
  lookupWritten(written: string, raw?: object): RecordSchemaLookup {
    // The object itself, when not given: the JSON text of an object (the caller has checked).
    const value = () => raw ?? (JSON.parse(written) as object);
    try {
      if (written.length > this.maxSchemaLength) return this.lookupValue(value()).found;
      return this.lookupWrittenKeyed(written, () => this.lookupValue(value())).found;
    } catch (error) {
      return problem(rawId(written), `the schema could not be read: ${explain(error)}`).found;
    }
  }

  /** `written` through `byText`, else `slow` (whose answer is then remembered under `written`). */
  private lookupWrittenText(written: string, slow: () => Keyed): RecordSchemaLookup {
    return this.lookupWrittenKeyed(written, slow).found;
  }

  private lookupWrittenKeyed(written: string, slow: () => Keyed): Keyed {
    const known = this.byText.get(written);
    if (known !== undefined) {
      if (known.hash === undefined) return known;
      const current = this.byContent.get(known.hash);
      if (current !== undefined) return { found: current, hash: known.hash };
      // The content was evicted since: it is compiled again, as any new content.
    }
    const keyed = slow();
    this.byText.set(ownCopy(written), keyed);
    return keyed;
  }

  private lookupText(raw: string): Keyed {
    const trimmed = raw.trim();
    if (raw.length > this.maxSchemaLength) {
      return problem(rawId(raw), `the schema is longer than ${this.maxSchemaLength} characters; give a smaller schema`);
    }
    if (trimmed === '') {
      return problem(rawId(raw), 'the schema is an empty string; give a schema object, its JSON text or a name');
    }
    if (!trimmed.startsWith('{') && trimmed !== 'true' && trimmed !== 'false') return this.lookupName(trimmed);
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      return problem(rawId(raw), `the schema text is not JSON: ${explain(error)}`);
    }
    return this.lookupValue(value);
  }

  /**
   * An object schema: first by its JSON text as written (JSON.stringify is native and cheap, and
   * the records of one run spell a schema the same way), else by its canonical content.
   */
  private lookupObject(raw: object): RecordSchemaLookup {
    const seen = this.byObject.get(raw);
    if (seen !== undefined) {
      if (seen.hash === undefined) return seen.found;
      const current = this.byContent.get(seen.hash);
      if (current !== undefined) return current;
    }
    const keyed = this.lookupObjectByText(raw);
    this.byObject.set(raw, keyed);
    return keyed.found;
  }

  private lookupObjectByText(raw: object): Keyed {
    let written: string | undefined;
    try {
      written = JSON.stringify(raw);
    } catch {
      // Too deep for the stack: the canonical walk refuses it with a reason.
    }
    if (written === undefined || written.length > this.maxSchemaLength) return this.lookupValue(raw);
    return this.lookupWrittenKeyed(written, () => this.lookupValue(raw));
  }

  private lookupName(name: string): Keyed {
    let schema: JsonSchema;
    try {
      this.registry ??= createSchemaRegistry({
        roots: [...this.schemaRoots.map((dir) => ({ dir, kind: 'custom' as const })), ...defaultSchemaRoots()],
      });
      schema = this.registry.resolve(name).schema;
    } catch (error) {
      return problem(rawId(name), `the schema name does not resolve: ${explain(error)}`);
    }
    return this.lookupValue(schema);
  }

  private lookupValue(value: unknown): Keyed {
    let canonical: string;
    try {
      canonical = canonicalText(value, this.maxSchemaLength);
    } catch (error) {
      if (error instanceof Unusable) return problem(rawId(value), `${error.message}; give a smaller schema`);
      // A value nested too deep for the stack: refused like one past MAX_SCHEMA_DEPTH.
      return problem(rawId(value), `the schema cannot be read: ${explain(error)}`);
    }
    const hash = sha256(canonical);
    const known = this.byContent.get(hash);
    if (known !== undefined) return { found: known, hash };
    const id = hash.slice(0, 12);
    const schema = JSON.parse(canonical) as JsonSchema;
    let found: RecordSchemaLookup;
    this.compiledCount++;
    try {
      const compiled = NODE_DEFAULTS.compileJsonSchema(
        schema,
        this.discriminator === undefined ? {} : { discriminator: this.discriminator },
      );
      found = { id, schema, compiled };
    } catch (error) {
      found = { id, problem: `the schema does not compile: ${explain(error)}` };
    }
    this.byContent.set(hash, found);
    return { found, hash };
  }
}
