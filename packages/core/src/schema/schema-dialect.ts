/**
 * Which JSON Schema dialect a schema is written in, read from its root `$schema` without any
 * validator: core stays validator-free, and the parts of core that read schemas themselves
 * (prefix checks, sub-schema lookup) need to know what a keyword means there. Draft-04 is
 * where keywords differ most: `exclusiveMaximum`/`exclusiveMinimum` are booleans that modify
 * `maximum`/`minimum`, and a schema's id is `id`, not `$id`.
 *
 * Contract: `dialectOf(schema)` is draft-07 when the root has no `$schema` (or the schema is a
 * boolean), the named dialect when `$schema` is one of the spellings real schemas use (`http`
 * or `https`, with or without a trailing `#`), and `undefined` when `$schema` names none of
 * them (the ajv compiler refuses such a schema as SCHEMA_INVALID). Only the root's `$schema`
 * chooses: ajv meta-validates and compiles the whole schema in the root's dialect, whatever a
 * sub-schema's `$schema` says, and core reads it the same way.
 */

export type DialectName = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

export interface SchemaDialect {
  readonly name: DialectName;
  /** The keyword that gives a schema its id: `id` in draft-04, `$id` from draft-06 on. */
  readonly idKeyword: 'id' | '$id';
  /** True in draft-04: `exclusiveMaximum: true` makes `maximum` exclusive (later: a number, a bound of its own). */
  readonly booleanExclusiveBounds: boolean;
  /** The meta-schema URI, as the dialect's specification spells it. */
  readonly uri: string;
}

const dialect = (name: DialectName, uri: string): SchemaDialect =>
  Object.freeze({
    name,
    idKeyword: name === 'draft-04' ? 'id' : '$id',
    booleanExclusiveBounds: name === 'draft-04',
    uri,
  });

/** Every dialect llmjson compiles, oldest first. */
export const SCHEMA_DIALECTS: readonly SchemaDialect[] = Object.freeze([
  dialect('draft-04', 'http://json-schema.org/draft-04/schema#'),
  dialect('draft-06', 'http://json-schema.org/draft-06/schema#'),
  dialect('draft-07', 'http://json-schema.org/draft-07/schema#'),
  dialect('2019-09', 'https://json-schema.org/draft/2019-09/schema'),
  dialect('2020-12', 'https://json-schema.org/draft/2020-12/schema'),
]);

/** The dialect of a schema without `$schema`. */
export const DEFAULT_DIALECT = SCHEMA_DIALECTS[2] as SchemaDialect;

/** For messages: `draft-04, draft-06, draft-07 (default), 2019-09, 2020-12`. */
export const SUPPORTED_DIALECTS = SCHEMA_DIALECTS.map((d) =>
  d === DEFAULT_DIALECT ? `${d.name} (default)` : d.name,
).join(', ');

/** `json-schema.org/<path>` without scheme and trailing `#`: the key two spellings of one URI share. */
function uriKey(uri: string): string | undefined {
  const match = /^https?:\/\/json-schema\.org\/([^#?]*)#?$/.exec(uri);
  return match?.[1];
}

const BY_KEY = new Map<string, SchemaDialect>(SCHEMA_DIALECTS.map((d) => [uriKey(d.uri) as string, d]));

/** The dialect a `$schema` value names, or undefined when it names none llmjson knows. */
export function dialectNamed(uri: string): SchemaDialect | undefined {
  const key = uriKey(uri);
  return key === undefined ? undefined : BY_KEY.get(key);
}

/** The dialect `schema` is written in, chosen by its root `$schema` (see the contract above). */
export function dialectOf(schema: unknown): SchemaDialect | undefined {
  if (typeof schema !== 'object' || schema === null || !Object.hasOwn(schema, '$schema')) return DEFAULT_DIALECT;
  const uri = (schema as { readonly $schema?: unknown }).$schema;
  if (uri === undefined) return DEFAULT_DIALECT;
  return typeof uri === 'string' ? dialectNamed(uri) : undefined;
}
