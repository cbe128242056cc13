/**
 * References mean to the partial builder's subtree checks and to the prefix checks what they
 * mean to the validator (schema-index.ts): definitions nested in definitions, nested `$id`
 * resources whose `#/…` is their own, `$anchor`s, draft-04 `id`, a `$ref` beside keywords that
 * apply too. For each schema, a valid document draws no diagnostic at any chunk size (never
 * early, never a stream that dies), and an invalid one draws the violation or the subtree
 * diagnostic at the path where the validator finds the fault.
 */
import type { Diagnostic, JsonSchema } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { subSchemaAt, subSchemaPointer } from '@llmjson/core/internal';
import { describe, expect, test } from 'vitest';
import { everyChunkSize } from '../../../test/support/chunking.js';
import { buildPartial } from '../../../test/support/partial.js';

interface Case {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly valid: unknown;
  readonly invalid: unknown;
  /** What the invalid document draws while it streams: a violation's path and rule, or a subtree's path. */
  readonly expected:
    | { readonly reason: 'violation'; readonly path: string; readonly rule: string }
    | {
        readonly reason: 'schema';
        readonly pointer: string;
      };
}

const cases: readonly Case[] = [
  {
    // SchemaStore's bamboo-spec: a definition with definitions of its own, whose members refer
    // to the document's definitions; a copy of the member carrying only its own lost them.
    name: 'definitions inside a definition, referring to the document',
    schema: {
      type: 'object',
      properties: { job: { $ref: '#/definitions/job' } },
      definitions: {
        docker: { type: 'string', minLength: 2 },
        job: {
          type: 'object',
          definitions: { local: { type: 'integer' } },
          properties: {
            image: { $ref: '#/definitions/docker' },
            count: { $ref: '#/definitions/job/definitions/local' },
          },
        },
      },
    },
    valid: { job: { image: 'alpine', count: 3 } },
    invalid: { job: { image: 'a', count: 3 } },
    expected: { reason: 'schema', pointer: '/job/image' },
  },
  {
    name: "a nested $id resource: its '#/definitions/n' is its own",
    schema: {
      $id: 'https://example.com/root.json',
      type: 'object',
      properties: { item: { $ref: 'item.json' } },
      definitions: {
        n: { type: 'string' },
        item: {
          $id: 'item.json',
          type: 'object',
          properties: { n: { $ref: '#/definitions/n' } },
          definitions: { n: { type: 'integer' } },
        },
      },
    },
    valid: { item: { n: 3 } },
    invalid: { item: { n: 'three' } },
    expected: { reason: 'violation', path: '/item/n', rule: 'type' },
  },
  {
    name: 'an $anchor (2020-12)',
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { $ref: '#num' } },
      $defs: { num: { $anchor: 'num', type: 'number' } },
    },
    valid: { a: 1.5 },
    invalid: { a: 'x' },
    expected: { reason: 'violation', path: '/a', rule: 'type' },
  },
  {
    name: "draft-04's id names a resource",
    schema: {
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'http://example.com/r.json',
      type: 'object',
      properties: { a: { $ref: 'b.json' } },
      definitions: { b: { id: 'b.json', type: 'boolean' } },
    },
    valid: { a: true },
    invalid: { a: 'yes' },
    expected: { reason: 'violation', path: '/a', rule: 'type' },
  },
  {
    name: 'a $ref beside keywords that apply too: the part is checked whole',
    schema: {
      type: 'object',
      properties: {
        a: { $ref: '#/definitions/o', properties: { b: { type: 'string' } } },
      },
      definitions: { o: { type: 'object', properties: { b: { minLength: 2 } } } },
    },
    valid: { a: { b: 'xy' } },
    invalid: { a: { b: 'x' } },
    expected: { reason: 'schema', pointer: '/a' },
  },
];

function faults(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => d.reason === 'violation' || d.reason === 'schema');
}

describe.each(cases)('$name', ({ schema, valid, invalid, expected }) => {
  test('the validator is the reference: it accepts the valid document and refuses the invalid one', () => {
    expect(compileSchema(schema).validate(valid).valid).toBe(true);
    expect(compileSchema(schema).validate(invalid).valid).toBe(false);
  });

  test('the valid document draws nothing, at every chunk size', () => {
    for (const [label, chunks] of everyChunkSize(JSON.stringify(valid))) {
      const run = buildPartial(chunks, { schema, compileJsonSchema: compileSchema });
      expect(faults(run.diagnostics), label).toEqual([]);
      expect(run.final, label).toEqual(valid);
    }
  });

  test('the invalid document draws its fault where the validator finds it, at every chunk size', () => {
    for (const [label, chunks] of everyChunkSize(JSON.stringify(invalid))) {
      const found = faults(buildPartial(chunks, { schema, compileJsonSchema: compileSchema }).diagnostics);
      if (expected.reason === 'violation') {
        expect(found.filter((d) => d.reason === 'violation').map((d) => [d.path, d.rule])[0], label).toEqual([
          expected.path,
          expected.rule,
        ]);
      } else {
        expect(
          found.some((d) => d.reason === 'schema' && d.message.startsWith(`the value at ${expected.pointer} `)),
          `${label}: ${JSON.stringify(found.map((d) => d.message))}`,
        ).toBe(true);
      }
    }
  });
});

describe('subSchemaPointer', () => {
  const schema = cases[0]?.schema as JsonSchema;

  test('follows a reference to where its target lies in the document', () => {
    expect(subSchemaPointer(schema, ['job'])).toBe('/definitions/job');
    expect(subSchemaPointer(schema, ['job', 'image'])).toBe('/definitions/docker');
    expect(subSchemaPointer(schema, ['job', 'count'])).toBe('/definitions/job/definitions/local');
  });

  test('is undefined where the sub-schema is not one schema alone, as subSchemaAt is', () => {
    const beside = cases[4]?.schema as JsonSchema;
    expect(subSchemaPointer(beside, ['a', 'b'])).toBeUndefined();
    expect(subSchemaAt(beside, ['a', 'b'])).toBeUndefined();
    expect(subSchemaPointer(beside, ['a'])).toBe('/properties/a');
  });

  test('escapes keys as JSON pointer tokens', () => {
    const odd: JsonSchema = { properties: { 'a/b~c': { type: 'string' } } };
    expect(subSchemaPointer(odd, ['a/b~c'])).toBe('/properties/a~1b~0c');
    expect(compileSchema(odd).at?.('/properties/a~1b~0c')?.validate(1).valid).toBe(false);
  });
});

describe('a root $id written with a trailing #', () => {
  test('dispatches its discriminated oneOf as one without the #', () => {
    const branches = [
      { type: 'object', required: ['type'], properties: { type: { const: 'a' }, n: { type: 'number' } } },
      { type: 'object', required: ['type'], properties: { type: { const: 'b' } } },
    ];
    for (const $id of ['https://example.com/s.json#', 'https://example.com/s.json']) {
      const compiled = compileSchema({ $id, oneOf: branches });
      expect(compiled.discriminator, $id).toBe('type');
      expect(compiled.validate({ type: 'a', n: 'x' }), $id).toMatchObject({ valid: false, branch: 'a' });
      expect(compiled.validate({ type: 'b' }).valid, $id).toBe(true);
    }
  });
});
