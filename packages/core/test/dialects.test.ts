/**
 * Every JSON Schema dialect a real schema declares (draft-04, draft-06, draft-07, 2019-09,
 * 2020-12), chosen by the root's `$schema`: for each, a schema whose keywords mean something
 * else in another dialect gives the verdicts plain ajv gives (ajv-draft-04 for draft-04, ajv's
 * draft-07 class with the draft-06 meta-schema for draft-06, Ajv2019, Ajv2020; ajv-formats), through
 * compileSchema, the Node JSONL stream and the module `compileStandaloneModule` writes. Also: the
 * spellings of `$schema`, a `$schema` in a sub-schema (ignored, as plain ajv ignores it), the
 * messages for an unknown dialect and for a schema its meta-schema refuses, reference cycles
 * through draft-04's `id`, and `dialectOf`.
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigurationError, type StandardSchemaV1 } from '@llmjson/core';
import { compileSchema, compileStandaloneModule } from '@llmjson/core/ajv';
import { createJsonlStream } from '@llmjson/node';
import type { Ajv } from 'ajv';
import { afterAll, describe, expect, test } from 'vitest';
import { referenceAjv, dialectOf as referenceDialect } from '../../../test/support/reference-ajv.js';
import { thrownBy } from '../../../test/support/thrown.js';
import { dialectOf } from '../src/schema/schema-dialect.js';
import type { JsonSchema } from '../src/schema/schema-validator.js';

const D04 = 'http://json-schema.org/draft-04/schema#';
const D06 = 'http://json-schema.org/draft-06/schema#';
const D07 = 'http://json-schema.org/draft-07/schema#';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';
const D2020 = 'https://json-schema.org/draft/2020-12/schema';

// Plain ajv as its documentation sets each dialect up: the reference verdicts (test/support/reference-ajv.ts).
function plainAjv(schema: JsonSchema): Ajv {
  return referenceAjv(referenceDialect(schema));
}

/** The meta-schema URI as plain ajv registers it: it knows one spelling of each. */
function canonical(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object' || typeof schema.$schema !== 'string') return schema;
  const $schema = schema.$schema
    .replace(/^https:\/\/json-schema\.org\/draft-0/, 'http://json-schema.org/draft-0')
    .replace(/^http:\/\/json-schema\.org\/draft\/20/, 'https://json-schema.org/draft/20')
    .replace(/(draft\/20[0-9-]+\/schema)#$/, '$1');
  return { ...schema, $schema };
}

/** Plain ajv's verdicts, or the message of what it throws while compiling. */
function plainVerdicts(given: JsonSchema, values: readonly unknown[]): boolean[] | string {
  const schema = canonical(given);
  try {
    const validate = plainAjv(schema).compile(schema);
    return values.map((v) => validate(v));
  } catch (error) {
    return (error as Error).message;
  }
}

interface Case {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly values: readonly object[];
  /** What the keywords mean in this dialect (and what plain ajv says). */
  readonly verdicts: readonly boolean[];
}

const CASES: readonly Case[] = [
  {
    name: 'draft-04: a boolean exclusiveMaximum makes maximum exclusive',
    schema: { $schema: D04, type: 'object', properties: { n: { type: 'number', maximum: 3, exclusiveMaximum: true } } },
    values: [{ n: 2 }, { n: 3 }, { n: 4 }, {}],
    verdicts: [true, false, false, true],
  },
  {
    name: 'draft-04 (https, no "#"): `id` names the root and the $ref resolves against it',
    schema: {
      $schema: 'https://json-schema.org/draft-04/schema',
      id: 'http://example.com/limits.json',
      definitions: { positive: { type: 'number', minimum: 0, exclusiveMinimum: true } },
      properties: { n: { $ref: 'http://example.com/limits.json#/definitions/positive' } },
    },
    values: [{ n: 1 }, { n: 0 }, { n: -1 }],
    verdicts: [true, false, false],
  },
  {
    name: 'draft-06: const and contains',
    schema: { $schema: D06, properties: { kind: { const: 'a' }, tags: { contains: { const: 'x' } } } },
    values: [{ kind: 'a', tags: ['y', 'x'] }, { kind: 'b' }, { tags: ['y'] }, {}],
    verdicts: [true, false, false, true],
  },
  {
    name: 'draft-06: a numeric exclusiveMaximum is a bound of its own',
    schema: { $schema: D06, properties: { n: { exclusiveMaximum: 3 } } },
    values: [{ n: 2.5 }, { n: 3 }],
    verdicts: [true, false],
  },
  {
    name: 'draft-07 (no $schema): dependentRequired is not a draft-07 keyword',
    schema: { dependentRequired: { a: ['b'] }, properties: { n: { exclusiveMaximum: 3 } } },
    values: [{ a: 1 }, { n: 3 }],
    verdicts: [true, false],
  },
  {
    name: '2019-09: dependentRequired',
    schema: { $schema: D2019, dependentRequired: { a: ['b'] } },
    values: [{ a: 1, b: 2 }, { a: 1 }, { b: 2 }],
    verdicts: [true, false, true],
  },
  {
    name: '2020-12 (http, with "#"): prefixItems and items',
    schema: {
      $schema: 'http://json-schema.org/draft/2020-12/schema#',
      properties: { pair: { prefixItems: [{ type: 'number' }, { type: 'string' }], items: false } },
    },
    values: [{ pair: [1, 'a'] }, { pair: ['a', 1] }, { pair: [1, 'a', 2] }, { pair: [1] }],
    verdicts: [true, false, false, true],
  },
  {
    name: '2020-12: prefixItems means nothing in draft-07',
    schema: { $schema: D07, properties: { pair: { prefixItems: [{ type: 'number' }] } } },
    values: [{ pair: ['a'] }],
    verdicts: [true],
  },
];

const TMP = fileURLToPath(new URL(`./.tmp-dialects-${process.pid}/`, import.meta.url));
mkdirSync(TMP, { recursive: true });
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
let written = 0;

/** The module compileStandaloneModule writes for `schema`, imported from inside this package. */
async function standalone(schema: JsonSchema): Promise<StandardSchemaV1> {
  const file = join(TMP, `schema-${written++}.js`);
  writeFileSync(file, compileStandaloneModule(schema));
  return ((await import(pathToFileURL(file).href)) as { default: StandardSchemaV1 }).default;
}

/** The values the Node JSONL stream passes, of one line per value. */
async function streamed(schema: JsonSchema, values: readonly object[]): Promise<unknown[]> {
  const stream = createJsonlStream({ schema, onDiagnostic: () => {} });
  const out: unknown[] = [];
  const done = (async () => {
    for await (const value of stream) out.push(value);
  })();
  stream.end(values.map((v) => `${JSON.stringify(v)}\n`).join(''));
  await done;
  return out;
}

describe.each(CASES)('$name', ({ schema, values, verdicts }) => {
  test('plain ajv gives these verdicts', () => {
    expect(plainVerdicts(schema, values)).toEqual(verdicts);
  });

  test('compileSchema gives them', () => {
    const compiled = compileSchema(schema);
    expect(values.map((v) => compiled.validate(v).valid)).toEqual(verdicts);
  });

  test('the Node JSONL stream passes exactly the accepted values', async () => {
    expect(await streamed(schema, values)).toEqual(values.filter((_, i) => verdicts[i]));
  });

  test('the standalone module gives them', async () => {
    const module = await standalone(schema);
    const results = await Promise.all(values.map((v) => module['~standard'].validate(v)));
    expect(results.map((r) => r.issues === undefined)).toEqual(verdicts);
  });
});

describe('draft-04 standalone code needs only what a project has', () => {
  test('lengths, enums of objects and uniqueItems in draft-04 run from the generated module', async () => {
    const schema: JsonSchema = {
      $schema: D04,
      properties: {
        s: { type: 'string', maxLength: 2 },
        e: { enum: [{ a: 1 }] },
        u: { type: 'array', uniqueItems: true },
        when: { type: 'string', format: 'date' },
      },
    };
    const values = [
      { s: '😀😀' },
      { s: 'abc' },
      { e: { a: 1 } },
      { e: { a: 2 } },
      { u: [1, 2] },
      { u: [{}, {}] },
      { when: '2026-02-30' },
    ];
    const expected = plainVerdicts(schema, values);
    expect(expected).toEqual([true, false, true, false, true, false, false]);
    const module = await standalone(schema);
    const results = await Promise.all(values.map((v) => module['~standard'].validate(v)));
    expect(results.map((r) => r.issues === undefined)).toEqual(expected);
  });
});

describe('a $schema in a sub-schema changes nothing, as in plain ajv', () => {
  const roots: readonly [string, string | undefined][] = [
    ['draft-04', D04],
    ['draft-06', D06],
    ['draft-07', undefined],
    ['2019-09', D2019],
    ['2020-12', D2020],
  ];
  test.each(roots)('%s root, a draft-04 sub-schema: compiled in the root dialect', (_name, root) => {
    const schema: JsonSchema = {
      ...(root === undefined ? {} : { $schema: root }),
      properties: { a: { $schema: D04, type: 'number', maximum: 3 } },
    };
    const values = [{ a: 3 }, { a: 4 }, { a: 'x' }];
    expect(plainVerdicts(schema, values)).toEqual([true, false, false]);
    const compiled = compileSchema(schema);
    expect(values.map((v) => compiled.validate(v).valid)).toEqual([true, false, false]);
  });

  test.each(roots)('%s root, a 2020-12 sub-schema with prefixItems: as the root dialect reads it', (_name, root) => {
    const schema: JsonSchema = {
      ...(root === undefined ? {} : { $schema: root }),
      properties: { a: { $schema: D2020, prefixItems: [{ type: 'number' }] } },
    };
    const values = [{ a: ['x'] }, { a: [1] }];
    const compiled = compileSchema(schema);
    expect(values.map((v) => compiled.validate(v).valid)).toEqual(plainVerdicts(schema, values));
  });

  test('draft-07 root, a draft-04 sub-schema with a boolean exclusiveMaximum: refused, as plain ajv refuses it', () => {
    const schema: JsonSchema = { properties: { a: { $schema: D04, maximum: 3, exclusiveMaximum: true } } };
    expect(plainVerdicts(schema, [])).toMatch(/exclusiveMaximum must be number/);
    const error = thrownBy(ConfigurationError, () => compileSchema(schema));
    expect(error.code).toBe('SCHEMA_INVALID');
    expect(error.message).toContain('"exclusiveMaximum" at #/properties/a/exclusiveMaximum is true: must be number');
  });

  test('an unknown URI in a sub-schema is accepted too', () => {
    const schema: JsonSchema = { properties: { a: { $schema: 'https://example.com/mine', type: 'number' } } };
    expect(compileSchema(schema).validate({ a: 'x' }).valid).toBe(false);
  });
});

describe('refused schemas say what to fix', () => {
  test('a root $schema no dialect knows is SCHEMA_INVALID listing the supported ones', () => {
    const error = thrownBy(ConfigurationError, () =>
      compileSchema({ $schema: 'http://json-schema.org/draft-03/schema#' }),
    );
    expect(error.code).toBe('SCHEMA_INVALID');
    expect(error.message).toBe(
      'unsupported $schema "http://json-schema.org/draft-03/schema#"; supported: draft-04, draft-06, draft-07 (default), 2019-09, 2020-12 (their meta-schema URIs, http or https, with or without "#"); remove $schema for draft-07',
    );
    expect(() => compileStandaloneModule({ $schema: 'http://json-schema.org/draft-03/schema#' })).toThrow(
      /unsupported \$schema/,
    );
  });

  test('a meta-validation failure names the keyword, its pointer and the value given', () => {
    const error = thrownBy(ConfigurationError, () => compileSchema({ properties: { a: { type: 'strin' } } }));
    expect(error.code).toBe('SCHEMA_INVALID');
    expect(error.message).toBe(
      `invalid schema, by its dialect's meta-schema: "type" at #/properties/a/type is "strin": must be equal to one of the allowed values ("array", "boolean", "integer", "null", "number", "object", "string") or must be array`,
    );
  });

  test('draft-04: a numeric exclusiveMaximum is named with its value, and the missing maximum at its object', () => {
    const error = thrownBy(ConfigurationError, () =>
      compileSchema({ $schema: D04, properties: { a: { exclusiveMaximum: 3 } } }),
    );
    expect(error.code).toBe('SCHEMA_INVALID');
    expect(error.message).toContain('the schema object at #/properties/a: must have property maximum');
    expect(error.message).toContain('"exclusiveMaximum" at #/properties/a/exclusiveMaximum is 3: must be boolean');
    expect(() => compileStandaloneModule({ $schema: D04, properties: { a: { exclusiveMaximum: 3 } } })).toThrow(
      /"exclusiveMaximum" at #\/properties\/a\/exclusiveMaximum is 3/,
    );
  });

  test('values quoted in a meta-validation message are cut at 200 characters', () => {
    const error = thrownBy(ConfigurationError, () =>
      compileSchema({ properties: { a: { type: 'x'.repeat(10_000) } } }),
    );
    expect(error.message.length).toBeLessThan(1000);
    expect(error.message).toContain('(10002 characters)');
  });
});

describe('reference cycles in draft-04 and draft-06', () => {
  test('draft-04: a cycle through resources named by `id` is found and named', () => {
    const schema: JsonSchema = {
      $schema: D04,
      id: 'http://example.com/root.json',
      definitions: { a: { id: 'http://example.com/a.json', allOf: [{ $ref: 'root.json' }] } },
      allOf: [{ $ref: 'a.json' }],
    };
    const error = thrownBy(ConfigurationError, () => compileSchema(schema));
    expect(error.code).toBe('SCHEMA_INVALID');
    expect(error.message).toMatch(
      /^schema reference cycle that never descends into the value: # -> #\/allOf\/0 -> #\/definitions\/a -> #\/definitions\/a\/allOf\/0 -> #;/,
    );
  });

  test('draft-04: `$id` names nothing, so no cycle runs through it (ajv cannot resolve the reference)', () => {
    const schema: JsonSchema = {
      $schema: D04,
      id: 'http://example.com/root.json',
      properties: { x: { $id: 'http://example.com/other.json', allOf: [{ $ref: 'other.json' }] } },
    };
    expect(plainVerdicts(schema, [])).toMatch(/can't resolve reference other\.json/);
    const error = thrownBy(ConfigurationError, () => compileSchema(schema));
    expect(error.code).toBe('SCHEMA_INVALID');
    expect(error.message).not.toMatch(/cycle/);
    expect(error.message).toMatch(/can't resolve reference other\.json/);
  });

  test('draft-06: a cycle through `$id` is found; recursion through properties is fine', () => {
    expect(() =>
      compileSchema({ $schema: D06, $id: 'http://example.com/r.json', allOf: [{ $ref: 'r.json' }] }),
    ).toThrow(/reference cycle/);
    const tree = compileSchema({
      $schema: D06,
      $id: 'http://example.com/tree.json',
      properties: { children: { type: 'array', items: { $ref: 'tree.json' } } },
    });
    expect(tree.validate({ children: [{ children: [] }] }).valid).toBe(true);
    expect(tree.validate({ children: [{ children: 1 }] }).valid).toBe(false);
  });
});

describe('dialectOf', () => {
  test.each([
    [{}, 'draft-07', '$id'],
    [true, 'draft-07', '$id'],
    [{ $schema: D04 }, 'draft-04', 'id'],
    [{ $schema: 'https://json-schema.org/draft-04/schema' }, 'draft-04', 'id'],
    [{ $schema: 'http://json-schema.org/draft-06/schema' }, 'draft-06', '$id'],
    [{ $schema: D07 }, 'draft-07', '$id'],
    [{ $schema: `${D2019}#` }, '2019-09', '$id'],
    [{ $schema: 'http://json-schema.org/draft/2020-12/schema' }, '2020-12', '$id'],
  ])('%j is %s (id keyword %s)', (schema, name, idKeyword) => {
    expect(dialectOf(schema)).toMatchObject({ name, idKeyword, booleanExclusiveBounds: name === 'draft-04' });
  });

  test.each([
    { $schema: 'http://json-schema.org/draft-03/schema#' },
    { $schema: 'http://json-schema.org/schema#' },
    { $schema: 'https://example.com/json-schema.org/draft-07/schema' },
    { $schema: 7 },
  ])('%j names no dialect it knows', (schema) => {
    expect(dialectOf(schema)).toBeUndefined();
  });
});
