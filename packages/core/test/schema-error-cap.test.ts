/**
 * Validator errors are capped per value (MAX_SCHEMA_ERRORS): a value with 100 000 keys that
 * `additionalProperties: false` forbids gets a diagnostic with the first MAX_SCHEMA_ERRORS
 * errors and one final `errors-omitted` entry that counts the rest, from ajv and from a
 * Standard Schema alike, in every engine and under any chunking.
 */

import { fc, test } from '@fast-check/vitest';
import {
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  createSalvageScanner,
  type Diagnostic,
  ERRORS_OMITTED_KEYWORD,
  MAX_SCHEMA_ERRORS,
  type SchemaError,
  type StandardSchemaV1,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { compileStandardSchema } from '@llmjson/core/internal';
import { describe, expect } from 'vitest';
import { chunkText, everyChunkSize, splitAt, splitPoints } from '../../../test/support/chunking.js';

const EXTRA_KEYS = 100_000;
const schema = { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false } as const;

/** The line of the report: about 1.4 MB, one allowed key and 100 000 forbidden ones. */
function wideLine(extra = EXTRA_KEYS): string {
  const value: Record<string, number> = { a: 1 };
  for (let i = 0; i < extra; i++) value[`k${i}`] = i;
  return JSON.stringify(value);
}
const line = wideLine();

/** The cap's shape: MAX_SCHEMA_ERRORS real errors, then the count of the others. */
function expectCapped(errors: readonly SchemaError[] | undefined, total: number, pointer = ''): void {
  expect(errors).toBeDefined();
  const list = errors as readonly SchemaError[];
  expect(list).toHaveLength(MAX_SCHEMA_ERRORS + 1);
  for (const error of list.slice(0, -1)) expect(error.keyword).not.toBe(ERRORS_OMITTED_KEYWORD);
  expect(list.at(-1)).toEqual({
    path: pointer,
    keyword: ERRORS_OMITTED_KEYWORD,
    message: `${total - MAX_SCHEMA_ERRORS} more errors left out (at most ${MAX_SCHEMA_ERRORS} are kept per value)`,
    schemaPath: '',
    params: { omitted: total - MAX_SCHEMA_ERRORS },
  });
}

/** Chunkings of the 1.4 MB line: whole, a few sizes (size 1 would take 1.4 million writes). */
const chunkings: readonly (readonly [string, string[]])[] = [
  ['whole', [`${line}\n`]],
  ['size 7', chunkText(`${line}\n`, 7)],
  ['size 4096', chunkText(`${line}\n`, 4096)],
];

function jsonl(chunks: readonly string[]): { values: unknown[]; diagnostics: Diagnostic[] } {
  const values: unknown[] = [];
  const diagnostics: Diagnostic[] = [];
  const decoder = createJsonlDecoder(
    { schema, compileJsonSchema: compileSchema },
    { value: (v) => values.push(v), diagnostic: (d) => diagnostics.push(d) },
  );
  for (const chunk of chunks) decoder.write(chunk);
  decoder.end();
  return { values, diagnostics };
}

describe('ajv: at most MAX_SCHEMA_ERRORS errors per value, then the count of the rest', () => {
  test('the validator result for the 100 000-key line', () => {
    const result = compileSchema(schema).validate(JSON.parse(line));
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expectCapped(result.errors, EXTRA_KEYS);
    expect(result.errors[0]).toMatchObject({ keyword: 'additionalProperties', params: { additionalProperty: 'k0' } });
    // The one-line message counts every error, kept or not.
    expect(result.message).toMatch(/; and 99997 more$/);
  });

  test('a value with exactly MAX_SCHEMA_ERRORS errors has no omitted entry', () => {
    const value: Record<string, number> = {};
    for (let i = 0; i < MAX_SCHEMA_ERRORS; i++) value[`k${i}`] = i;
    const result = compileSchema(schema).validate(value);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors).toHaveLength(MAX_SCHEMA_ERRORS);
    expect(result.errors.some((e) => e.keyword === ERRORS_OMITTED_KEYWORD)).toBe(false);
    expect(result.message).toMatch(new RegExp(`; and ${MAX_SCHEMA_ERRORS - 3} more$`));
  });

  test.each(chunkings)('JSONL decoder, %s: one schema diagnostic with the capped errors', (_, chunks) => {
    const { values, diagnostics } = jsonl(chunks);
    expect(values).toEqual([]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.reason).toBe('schema');
    expectCapped(diagnostics[0]?.errors, EXTRA_KEYS);
    expect(JSON.stringify(diagnostics[0]).length).toBeLessThan(8 * 1024);
  });

  test.prop([splitPoints(line.length)], { numRuns: 5 })('JSONL decoder under arbitrary split points', (points) => {
    const { diagnostics } = jsonl(splitAt(`${line}\n`, points));
    expect(diagnostics).toHaveLength(1);
    expectCapped(diagnostics[0]?.errors, EXTRA_KEYS);
  });

  // The other engines take a narrower object (300 forbidden keys) at every chunk size.
  const narrow = wideLine(300);
  test.each([...everyChunkSize(narrow, 64)])(
    'element scanner, salvage scanner and partial builder, %s',
    (_, chunks) => {
      const got: Record<string, Diagnostic[]> = { elements: [], salvage: [], partial: [] };
      const elements = createElementScanner(
        { elementSchema: schema, compileJsonSchema: compileSchema },
        { value: () => {}, diagnostic: (d) => got.elements?.push(d) },
      );
      const salvage = createSalvageScanner(
        { schema, compileJsonSchema: compileSchema },
        { value: () => {}, diagnostic: (d) => got.salvage?.push(d) },
      );
      const partial = createPartialBuilder(
        { schema, compileJsonSchema: compileSchema },
        { update: () => {}, diagnostic: (d) => got.partial?.push(d) },
      );
      elements.write('[');
      for (const chunk of chunks) {
        elements.write(chunk);
        salvage.write(chunk);
        partial.write(chunk);
      }
      elements.write(']');
      elements.end();
      salvage.end();
      partial.end();
      for (const [engine, diagnostics] of Object.entries(got)) {
        // The partial builder also reports each forbidden member as its subtree closes: one error each.
        const schemaDiagnostics = diagnostics.filter((d) => d.reason === 'schema' && (d.errors?.length ?? 0) > 1);
        expect(schemaDiagnostics, engine).toHaveLength(1);
        expectCapped(schemaDiagnostics[0]?.errors, 300);
      }
    },
  );
});

describe('Standard Schema: issues capped the same way', () => {
  const issues = Array.from({ length: 5000 }, (_, i) => ({ message: `bad ${i}`, path: [`k${i}`] }));
  const standard: StandardSchemaV1 = {
    '~standard': { version: 1, vendor: 'many', validate: () => ({ issues }) },
  };

  test('the compiled result keeps MAX_SCHEMA_ERRORS issues and counts the rest', () => {
    const result = compileStandardSchema(standard).validate({});
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expectCapped(result.errors, issues.length);
    expect(result.errors[0]).toMatchObject({ path: '/k0', message: 'bad 0' });
    expect(result.message).toMatch(/; and 4997 more$/);
  });

  test('through the JSONL decoder, at every chunk size 1..64', () => {
    const text = '{"a": 1}\n{"b": 2}\n';
    for (let size = 1; size <= 64; size++) {
      const diagnostics: Diagnostic[] = [];
      const decoder = createJsonlDecoder(
        { schema: standard },
        { value: () => {}, diagnostic: (d) => diagnostics.push(d) },
      );
      for (const chunk of chunkText(text, size)) decoder.write(chunk);
      decoder.end();
      expect(diagnostics).toHaveLength(2);
      for (const d of diagnostics) expectCapped(d.errors, issues.length);
    }
  });
});

test('fast-check: for any number of errors, the list holds min(n, cap) errors plus the omitted count', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 3 * MAX_SCHEMA_ERRORS }), (count) => {
      const value: Record<string, number> = {};
      for (let i = 0; i < count; i++) value[`k${i}`] = i;
      const result = compileSchema(schema).validate(value);
      if (result.valid) return false;
      const omitted = result.errors.filter((e) => e.keyword === ERRORS_OMITTED_KEYWORD);
      const kept = result.errors.length - omitted.length;
      const left = omitted.length === 0 ? 0 : (omitted[0]?.params.omitted as number);
      return kept === Math.min(count, MAX_SCHEMA_ERRORS) && kept + left === count && omitted.length <= 1;
    }),
  );
});
