/**
 * Hostile input for the "nothing crashes" campaign: deep nesting (closed and unclosed),
 * random characters and bytes, long strings, hostile keys, broken fences and provider
 * events, mixed into answers; schemas that are recursive or carry catastrophic patterns;
 * sinks that throw. The schemas include zod ones (a discriminated union, a recursive `z.lazy`
 * tree), so that every engine also runs with a Standard Schema validated by its vendor.
 * A JSON Schema always comes with ajv as `compileJsonSchema` (an engine refuses one without a
 * compiler); a zod schema comes with or without it (with it, sub-schemas of its JSON Schema
 * export are checked too).
 */
import type { JsonSchemaCompiler, SchemaInput } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { isStandardSchema } from '@llmjson/core/internal';
import fc from 'fast-check';
import { z } from 'zod';

/** Runs of the campaign: `HOSTILE_RUNS` (the nightly script sets 10 000), else 300 on CI, 60 locally. */
export const hostileRuns = Number(process.env.HOSTILE_RUNS ?? (process.env.CI ? 300 : 60));

const nested = fc
  .tuple(fc.integer({ min: 1, max: 4000 }), fc.constantFrom('[', '{"a":', '[{"b":'), fc.boolean())
  .map(([depth, open, closed]) => {
    const close = open === '[' ? ']' : open === '{"a":' ? '}' : '}]';
    return open.repeat(depth) + (closed ? `1${close.repeat(depth)}` : '');
  });

const longString = fc
  .tuple(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom('a', 'é', '\\"', '😀', '\\u00'))
  .map(([n, unit]) => `{"long":"${unit.repeat(Math.ceil(n / unit.length))}"}`);

const catastrophic = fc.integer({ min: 10, max: 60 }).map((n) => `{"word":"${'a'.repeat(n)}!","${'x'.repeat(n)}":1}`);

const hostileKey = fc
  .constantFrom('__proto__', 'constructor', 'prototype')
  .map((k) => `{"${k}":{"polluted":true},"type":"definition"}`);

const fragment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.json() },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: nested },
  { weight: 1, arbitrary: longString },
  { weight: 1, arbitrary: catastrophic },
  { weight: 1, arbitrary: hostileKey },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '```json',
      '```',
      '~~~',
      '`{"a":1}`',
      'data: {"choices":[{"delta":{"content":"{\\"a\\":"}}]}',
      'data: [DONE]',
      'event: content_block_delta',
      '{"message":{"content":"x"},"done":false}',
      '\r',
      '\r\n',
      '\uFEFF',
      '\uD800',
      '{"a":1},',
      '[',
      ']',
      'Here you go:',
      '- item',
      'null',
      '"plain"',
      '1e999',
      '-0',
    ),
  },
);

/** An answer: hostile fragments joined by line breaks, spaces or nothing. */
export const hostileText: fc.Arbitrary<string> = fc
  .array(fc.tuple(fragment, fc.constantFrom('\n', '\n\n', ' ', '', '\r\n', '\r')), { maxLength: 12 })
  .map((parts) => parts.map(([text, sep]) => text + sep).join(''));

/** Hostile bytes: the text's UTF-8 with arbitrary bytes spliced in. */
export const hostileBytes: fc.Arbitrary<Uint8Array> = fc
  .tuple(hostileText, fc.array(fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 3 })), { maxLength: 4 }))
  .map(([text, splices]) => {
    const bytes = [...new TextEncoder().encode(text)];
    for (const [at, inserted] of splices) bytes.splice(at % (bytes.length + 1), 0, ...inserted);
    return Uint8Array.from(bytes);
  });

export const TREE_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
} as const;

export const CATASTROPHIC_SCHEMA = {
  type: 'object',
  properties: { word: { type: 'string', pattern: '^(a+)+$' } },
  patternProperties: { '^(x+x+)+y$': { type: 'number' } },
} as const;

export const DISCRIMINATED_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      properties: { type: { const: 'definition' }, entity: { type: 'string' }, children: { $ref: '#' } },
      required: ['type', 'entity'],
    },
    {
      type: 'object',
      properties: { type: { const: 'relationship' }, subject: { type: 'string' } },
      required: ['type', 'subject'],
    },
  ],
} as const;

interface ZodTree {
  name?: string | undefined;
  children?: ZodTree[] | undefined;
}

/** TREE_SCHEMA in zod: recursive through `z.lazy` (exported as JSON Schema with `$ref: "#"`). */
export const ZOD_TREE: z.ZodType<ZodTree> = z.lazy(() =>
  z.object({ name: z.string().optional(), children: z.array(ZOD_TREE).optional() }),
);

/** DISCRIMINATED_SCHEMA in zod: a discriminated union on `type`, one branch recursive. */
export const ZOD_DISCRIMINATED = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('definition'),
    entity: z.string(),
    get children() {
      return ZOD_DISCRIMINATED.optional();
    },
  }),
  z.object({ type: z.literal('relationship'), subject: z.string() }),
]);

/** The schemas a hostile run picks from (`undefined`: none): JSON Schemas and zod schemas. */
export const hostileSchema: fc.Arbitrary<SchemaInput | undefined> = fc.constantFrom<SchemaInput | undefined>(
  undefined,
  true,
  TREE_SCHEMA,
  CATASTROPHIC_SCHEMA,
  DISCRIMINATED_SCHEMA,
  { type: 'array', items: TREE_SCHEMA },
  ZOD_TREE,
  ZOD_DISCRIMINATED,
  z.array(ZOD_TREE),
);

/** A hostile schema and the JSON Schema compiler to give with it, if any. */
export interface HostileSchemaOptions {
  readonly schema?: SchemaInput;
  readonly compileJsonSchema?: JsonSchemaCompiler;
}

/**
 * The schema options a hostile run picks from: no schema; a JSON Schema with ajv; a zod schema
 * with or without ajv for the sub-schemas of its JSON Schema export.
 */
export const hostileSchemaOptions: fc.Arbitrary<HostileSchemaOptions> = fc
  .tuple(hostileSchema, fc.boolean())
  .map(([schema, compiler]): HostileSchemaOptions => {
    if (schema === undefined) return {};
    if (!isStandardSchema(schema) || compiler) return { schema, compileJsonSchema: compileSchema };
    return { schema };
  });

/** Where a sink throws: never, or at its n-th call. */
export const throwAt = fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined, freq: 3 });

/** The error a throwing sink throws; whatever escapes an engine must be this very object. */
export class SinkFailure extends Error {
  override readonly name = 'SinkFailure';
}

/** Wraps sink callbacks so that the `at`-th call (counting all of them) throws a SinkFailure. */
export function throwingCalls(at: number | undefined): () => void {
  let calls = 0;
  return () => {
    calls++;
    if (at !== undefined && calls === at) throw new SinkFailure(`sink call ${calls} failed`);
  };
}
