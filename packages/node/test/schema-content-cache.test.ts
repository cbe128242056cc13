/**
 * The Node streams compile a schema once per content (schema-intern.ts): a stream created with a
 * new object of the same content (parsed from the schema's text per request, spread from a base)
 * validates exactly as one created with the original object, and a caller changing its schema
 * object after use changes nothing for the other streams of that content.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SCHEMA_CACHE_LIMIT as CORE_LIMIT, schemaCache as coreCache } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import {
  createJsonlStream,
  createPartialStream,
  type Diagnostic,
  type JsonSchema,
  SCHEMA_CACHE_LIMIT,
  schemaCache,
} from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';

const SCHEMA_TEXT = JSON.stringify({
  oneOf: [
    {
      type: 'object',
      properties: {
        type: { const: 'definition' },
        entity: { type: 'string', minLength: 1 },
        definition: { type: 'string' },
      },
      required: ['type', 'entity', 'definition'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        type: { const: 'relationship' },
        subject: { type: 'string' },
        predicate: { enum: ['enables', 'contains'] },
        object: { type: 'string' },
      },
      required: ['type', 'subject', 'predicate', 'object'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { type: { const: 'attribute' }, entity: { type: 'string' }, value: { type: ['string', 'number'] } },
      required: ['type', 'entity', 'value'],
      additionalProperties: false,
    },
  ],
});

const ANSWER = [
  '{"type":"definition","entity":"leaf","definition":"where light becomes sugar"}',
  '{"type":"relationship","subject":"leaf","predicate":"contains","object":"chloroplasts"}',
  '{"type":"definition","entity":"","definition":"an empty entity"}',
  '{"type":"relationship","subject":"a","predicate":"eats","object":"b"}',
  '{"type":"attribute","entity":"leaf","value":true}',
  '{"type":"unknown"}',
  '{"type":"attribute","entity":"leaf","value":3.5}',
  '',
].join('\n');

const PARTIAL_ANSWER = '{"type":"relationship","subject":"leaf","predicate":"eats","object":"light"}';

async function runJsonl(schema: JsonSchema) {
  const diagnostics: Diagnostic[] = [];
  const values: unknown[] = [];
  const stream = createJsonlStream({ schema, onDiagnostic: (d) => diagnostics.push(d) });
  await pipeline(Readable.from(chunkText(ANSWER, 4)), stream, async (source: AsyncIterable<unknown>) => {
    for await (const value of source) values.push(value);
  });
  return { values, diagnostics, stats: stream.stats };
}

async function runPartial(schema: JsonSchema) {
  const diagnostics: Diagnostic[] = [];
  const stream = createPartialStream({ schema, onDiagnostic: (d) => diagnostics.push(d) });
  const snapshots: unknown[] = [];
  await pipeline(Readable.from(chunkText(PARTIAL_ANSWER, 4)), stream, async (source: AsyncIterable<unknown>) => {
    for await (const snapshot of source) snapshots.push(snapshot);
  });
  return { snapshots, diagnostics, value: stream.value };
}

describe('streams with a new object of the same schema content', () => {
  test('@llmjson/node re-exports the one schema cache of core', () => {
    expect(schemaCache).toBe(coreCache);
    expect(SCHEMA_CACHE_LIMIT).toBe(CORE_LIMIT);
    expect(SCHEMA_CACHE_LIMIT).toBe(1000);
  });

  test('a JSONL stream created with a parsed copy or a spread copy validates as with the original', async () => {
    const original = JSON.parse(SCHEMA_TEXT) as JsonSchema;
    const expected = await runJsonl(original);
    expect(expected.values).toHaveLength(3);
    expect(expected.diagnostics.map((d) => d.reason)).toEqual(['schema', 'schema', 'schema', 'schema']);
    const parsed = JSON.parse(SCHEMA_TEXT) as JsonSchema;
    const spread = { ...(JSON.parse(SCHEMA_TEXT) as Record<string, unknown>) };
    for (const copy of [parsed, spread]) {
      const got = await runJsonl(copy);
      expect(got.values).toEqual(expected.values);
      expect(got.diagnostics).toEqual(expected.diagnostics);
      expect(got.stats).toEqual(expected.stats);
      // Compiled once for the content: the copy's validator is the original's.
      expect(compileSchema(copy)).toBe(compileSchema(original));
    }
  });

  test('a partial stream created with a parsed copy validates as with the original', async () => {
    const expected = await runPartial(JSON.parse(SCHEMA_TEXT) as JsonSchema);
    expect(expected.value).toEqual(JSON.parse(PARTIAL_ANSWER));
    expect(expected.diagnostics.length).toBeGreaterThan(0);
    const got = await runPartial(JSON.parse(SCHEMA_TEXT) as JsonSchema);
    expect(got).toEqual(expected);
  });

  test('a schema object changed by its owner after use changes nothing for a stream of the original content', async () => {
    const owned = JSON.parse(SCHEMA_TEXT) as { oneOf: { properties: { entity?: { minLength?: number } } }[] };
    const before = await runJsonl(owned as JsonSchema);
    const definition = owned.oneOf[0]?.properties.entity;
    if (definition === undefined) throw new Error('the schema has a definition branch with an entity');
    delete definition.minLength;
    const other = await runJsonl(JSON.parse(SCHEMA_TEXT) as JsonSchema);
    expect(other.values).toEqual(before.values);
    expect(other.diagnostics).toEqual(before.diagnostics);
  });
});
