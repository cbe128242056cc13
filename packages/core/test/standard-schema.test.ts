/**
 * Standard Schema behind the validator seam (packages/core/src/schema/standard-schema.ts): issue paths
 * as JSON Pointers, async validation refused, whole-value validation without dispatch, the
 * depth result, and the salvage, element and partial engines with zod 4.
 */
import {
  type CompiledSchema,
  ConfigurationError,
  ConfigurationErrorCode,
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  type Diagnostic,
  type ElementRecord,
  extractJson,
  type JsonSchema,
  type PartialOptions,
  type SchemaInput,
  type StandardSchemaV1,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { compileStandardSchema, issuePointer, jsonSchemaOf } from '@llmjson/core/internal';
import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { everyChunkSize } from '../../../test/support/chunking.js';
import { decodeEverySplit } from '../../../test/support/collect.js';
import { definitionRelationshipValibot, definitionRelationshipZod } from '../../../test/support/standard-schemas.js';

/** A hand-made Standard Schema around `validate`. */
function standard(validate: StandardSchemaV1['~standard']['validate'], vendor = 'test'): StandardSchemaV1 {
  return { '~standard': { version: 1, vendor, validate } };
}

function invalid(compiled: CompiledSchema, value: unknown) {
  const result = compiled.validate(value);
  if (result.valid) throw new Error('expected an invalid result');
  return result;
}

describe('issue paths as JSON Pointers', () => {
  test.each([
    [undefined, ''],
    [[], ''],
    [['a', 0], '/a/0'],
    [[{ key: 'a' }, { key: 0 }], '/a/0'],
    [['a/b', '~c'], '/a~1b/~0c'],
    [[{ key: 'items' }, 2, 'name'], '/items/2/name'],
    [[Symbol('tag')], '/tag'],
  ] as const)('%j → %j', (path, pointer) => {
    expect(issuePointer(path as StandardSchemaV1.Issue['path'])).toBe(pointer);
  });

  test('zod and valibot issues land at the same pointer', () => {
    const value = { items: [{ name: 'a' }, { name: 3 }] };
    const zod = z.object({ items: z.array(z.object({ name: z.string() })) });
    const valibot = v.object({ items: v.array(v.object({ name: v.string() })) });
    for (const schema of [zod, valibot]) {
      const result = invalid(compileStandardSchema(schema), value);
      expect(result.errors.map((e) => e.path)).toEqual(['/items/1/name']);
      expect(result.message).toMatch(/^at \/items\/1\/name: /);
    }
  });
});

describe('async validation is a configuration error', () => {
  test('a zod schema with an async refinement: the first value throws, saying why', () => {
    const schema = z.object({ id: z.string() }).refine(async () => true);
    const decoder = createJsonlDecoder({ schema }, { value() {}, diagnostic() {} });
    let thrown: unknown;
    try {
      decoder.write('{"id": "a"}\n');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).code).toBe(ConfigurationErrorCode.schemaAsync);
    expect((thrown as ConfigurationError).code).toBe('SCHEMA_ASYNC');
    expect((thrown as Error).message).toMatch(/async validation is not supported by the synchronous engines/);
  });

  test('salvage lets it through instead of reporting the value', () => {
    const schema = standard(() => Promise.reject(new Error('never awaited')));
    expect(() => extractJson('answer: {"a": 1}', { schema })).toThrow(/async validation is not supported/);
  });
});

describe('a Standard Schema without a discriminated union', () => {
  const schema = z.object({ name: z.string().min(1), count: z.number().int() });

  test('validates whole values: no dispatch, vendor codes as keywords, ajv-style messages', () => {
    const compiled = compileStandardSchema(schema);
    expect(compiled.discriminator).toBeUndefined();
    expect(compiled.validate({ name: 'a', count: 1 })).toEqual({ valid: true });
    const result = invalid(compiled, { name: '', count: 1.5 });
    expect(result.errors.map((e) => [e.path, e.keyword])).toEqual([
      ['/name', 'too_small'],
      ['/count', 'invalid_type'],
    ]);
    expect(result.message).toMatch(/^at \/name: .+; at \/count: /);
  });

  test('JSONL at every chunk size', () => {
    const run = decodeEverySplit('{"name": "a", "count": 1}\n{"name": "b", "count": "2"}\n', { schema });
    expect(run.values).toEqual([{ name: 'a', count: 1 }]);
    expect(run.diagnostics.map((d) => [d.reason, d.line, d.branch])).toEqual([['schema', 2, undefined]]);
  });

  test('an explicit discriminator needs a JSON Schema export that has one', () => {
    expect(() => compileStandardSchema(schema, { discriminator: 'name' })).toThrow(
      expect.objectContaining({ code: ConfigurationErrorCode.discriminatorInvalid }),
    );
    expect(() => compileStandardSchema(definitionRelationshipValibot, { discriminator: 'type' })).toThrow(
      /offers no JSON Schema export/,
    );
    const zod = compileStandardSchema(definitionRelationshipZod, { discriminator: 'type' });
    expect([zod.discriminator, zod.branches]).toEqual(['type', ['definition', 'relationship']]);
    expect(compileStandardSchema(definitionRelationshipZod, { discriminator: false }).discriminator).toBeUndefined();
  });

  test('is compiled once per schema object', () => {
    expect(compileStandardSchema(schema)).toBe(compileStandardSchema(schema));
  });

  test('a version other than 1 is refused', () => {
    const future = { '~standard': { version: 2, vendor: 'x', validate: () => ({ value: 1 }) } };
    expect(() => compileStandardSchema(future as unknown as StandardSchemaV1)).toThrow(/supported: version 1/);
  });
});

describe('depth', () => {
  test('a stack overflow in the vendor’s validate is the depth result, as with ajv', () => {
    const recurse = (n: number): number => recurse(n + 1) + 1;
    const result = invalid(compileStandardSchema(standard(() => ({ value: recurse(0) }))), {});
    expect(result.errors.map((e) => e.keyword)).toEqual(['depth']);
  });

  test('any other exception is the value’s schema result, naming the vendor and what it threw', () => {
    const compiled = compileStandardSchema(
      standard(() => {
        throw new TypeError('vendor bug');
      }),
    );
    const result = invalid(compiled, {});
    expect(result.errors.map((e) => e.keyword)).toEqual(['standard-validate']);
    expect(result.message).toMatch(/^the test schema's validate threw TypeError: vendor bug; /);
  });
});

describe('salvage with zod', () => {
  test('extractJson picks the first value the schema accepts, with its branch', () => {
    const text =
      'First try: {"type": "definition", "entity": ""} then {"type": "definition", "entity": "a", "definition": "b"}';
    const diagnostics: Diagnostic[] = [];
    const found = extractJson(text, { schema: definitionRelationshipZod, onDiagnostic: (d) => diagnostics.push(d) });
    expect(found?.value).toEqual({ type: 'definition', entity: 'a', definition: 'b' });
    expect(found?.branch).toBe('definition');
    expect(diagnostics.map((d) => [d.reason, d.branch])).toEqual([['schema', 'definition']]);
  });
});

/** Runs the element scanner over `text` at every chunk size; returns the whole-text run after checking they agree. */
function elementsEverySplit(text: string, options: Parameters<typeof createElementScanner>[0]) {
  const run = (chunks: readonly string[]) => {
    const records: ElementRecord[] = [];
    const diagnostics: Diagnostic[] = [];
    const scanner = createElementScanner(options, {
      value: (r) => records.push(r),
      diagnostic: (d) => diagnostics.push(d),
    });
    for (const chunk of chunks) scanner.write(chunk);
    scanner.end();
    return { records, diagnostics };
  };
  const whole = run([text]);
  for (const [label, chunks] of everyChunkSize(text)) expect(run(chunks), label).toEqual(whole);
  return whole;
}

describe('elements with zod', () => {
  const item = z.object({ id: z.number().int(), name: z.string() });
  const document = z.object({ items: z.array(item) });
  const text = '{"items": [{"id": 1, "name": "a"}, {"id": "2", "name": "b"}, {"id": 3, "name": "c"}]}';

  test('the element schema comes from the document schema’s JSON Schema export', () => {
    const fromDocument = elementsEverySplit(text, {
      path: '$.items',
      schema: document,
      compileJsonSchema: compileSchema,
    });
    const fromElement = elementsEverySplit(text, { path: '$.items', elementSchema: item });
    expect(fromDocument.records.map((r) => r.value)).toEqual([
      { id: 1, name: 'a' },
      { id: 3, name: 'c' },
    ]);
    expect(fromElement.records).toEqual(fromDocument.records);
    expect(fromDocument.diagnostics.map((d) => [d.reason, d.offset])).toEqual(
      fromElement.diagnostics.map((d) => [d.reason, d.offset]),
    );
  });

  test('a document schema without an export needs elementSchema', () => {
    const valibot = v.object({ items: v.array(v.object({ id: v.number() })) });
    expect(() => createElementScanner({ path: '$.items', schema: valibot }, { value() {}, diagnostic() {} })).toThrow(
      /pass the element schema as elementSchema/,
    );
    const run = elementsEverySplit('[{"id": 1}, {"id": "x"}]', { elementSchema: v.object({ id: v.number() }) });
    expect(run.records.map((r) => r.value)).toEqual([{ id: 1 }]);
    expect(run.diagnostics.map((d) => d.reason)).toEqual(['schema']);
  });
});

/** The partial builder over `text` at every chunk size; returns the diagnostics, checked to agree. */
function partialDiagnostics(text: string, schema: SchemaInput, options: PartialOptions = {}): Diagnostic[] {
  const run = (chunks: readonly string[]) => {
    const diagnostics: Diagnostic[] = [];
    const builder = createPartialBuilder(
      { ...options, schema },
      { update() {}, diagnostic: (d) => diagnostics.push(d) },
    );
    for (const chunk of chunks) builder.write(chunk);
    builder.end();
    return diagnostics;
  };
  const whole = run([text]);
  for (const [label, chunks] of everyChunkSize(text)) expect(run(chunks), label).toEqual(whole);
  return whole;
}

describe('partial values with zod', () => {
  const zod = z.object({ title: z.string(), sections: z.array(z.object({ start: z.number().int() })) });
  const json: JsonSchema = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      sections: {
        type: 'array',
        items: { type: 'object', properties: { start: { type: 'integer' } }, required: ['start'] },
      },
    },
    required: ['title', 'sections'],
  };
  const text = '{"title": "T", "sections": [{"start": 1}, {"start": 1.5}, {"start": 3}]}';

  test('subtrees are checked through the export as they close, the document by zod at the end', () => {
    const withZod = partialDiagnostics(text, zod, { compileJsonSchema: compileSchema });
    const withJson = partialDiagnostics(text, json, { compileJsonSchema: compileSchema });
    const summary = (d: Diagnostic) => [d.reason, d.offset, d.path, d.rule, d.errors?.map((e) => e.path)];
    expect(withZod.map(summary)).toEqual(withJson.map(summary));
    // The export also drives the prefix check: 1.5 is certainly not an integer once the number
    // ends (offset 55; until then an exponent could still make it one).
    expect(withZod[0]).toMatchObject({ reason: 'violation', path: '/sections/1/start', rule: 'type', offset: 55 });
    // Each closing subtree on the way up (the number, its object, the array) is checked by ajv
    // against the export; the complete document by zod itself.
    expect(withZod.map((d) => d.message)).toEqual([
      'the number at /sections/1/start is 1.5, which is not an integer',
      'the value at /sections/1/start does not match its schema: at /: must be integer',
      'the value at /sections/1 does not match its schema: at /start: must be integer',
      'the value at /sections does not match its schema: at /1/start: must be integer',
      expect.stringMatching(/^the complete document does not match the schema: at \/sections\/1\/start: /),
    ]);
    expect(withZod.at(-1)?.errors?.map((e) => e.keyword)).toEqual(['invalid_type']);
  });

  test('without an export only the complete document is checked', () => {
    const valibot = v.object({
      title: v.string(),
      sections: v.array(v.object({ start: v.pipe(v.number(), v.integer()) })),
    });
    expect(jsonSchemaOf(valibot)).toBeUndefined();
    const diagnostics = partialDiagnostics(text, valibot, { compileJsonSchema: compileSchema });
    expect(diagnostics.map((d) => [d.reason, d.errors?.map((e) => e.path)])).toEqual([
      ['schema', ['/sections/1/start']],
    ]);
    expect(diagnostics[0]?.message).toMatch(/^the complete document does not match the schema: /);
  });
});
