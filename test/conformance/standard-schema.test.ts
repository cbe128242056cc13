/**
 * One recorded answer (fixtures/answers/definition-relationship.txt) decoded with the JSON
 * Schema and with the equivalent zod 4, valibot 1 and arktype 2 schemas, through JSONL and
 * salvage, whole and at every chunk size 1..64: values, lines, offsets, branches, diagnostic
 * reasons and stats must be the JSON Schema run's. Messages (and the errors' keywords) are the
 * vendor's own, except for a value that names no branch, which every dispatching validator
 * reports in the same words.
 *
 * Listed differences, with their reason:
 * - valibot without a JSON Schema export: no dispatch, so no `branch` on values or on the
 *   diagnostic of a value that fails its branch (schema-limited; see
 *   docs/decisions/016-standard-schema.md). Everything else is the same.
 *
 * The JSON Schema runs get ajv as `compileJsonSchema`; the vendor runs get no compiler (a
 * Standard Schema validates, and dispatches, without one).
 */
import { readFileSync } from 'node:fs';
import type { Diagnostic, SchemaInput } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { isStandardSchema } from '@llmjson/core/internal';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { everyChunkSize } from '../support/chunking.js';
import { decodeEverySplit, streamChunks } from '../support/collect.js';
import { salvageChunks } from '../support/salvage.js';
import { definitionRelationshipJsonSchema, definitionRelationshipVendors } from '../support/standard-schemas.js';

const text = readFileSync(new URL('../../fixtures/answers/definition-relationship.txt', import.meta.url), 'utf8');

/** A diagnostic without what may differ between vendors (message and errors). */
function shape(d: Diagnostic, keepBranch: boolean): Partial<Diagnostic> {
  const { message: _message, errors: _errors, branch, ...rest } = d;
  return keepBranch && branch !== undefined ? { ...rest, branch } : rest;
}

function withoutBranch<T extends { branch?: string }>(record: T): Omit<T, 'branch'> {
  const { branch: _branch, ...rest } = record;
  return rest;
}

/** A JSON Schema with ajv as its compiler; a Standard Schema alone. */
const options = (schema: SchemaInput) =>
  isStandardSchema(schema) ? { schema } : { schema, compileJsonSchema: compileSchema };

/** Salvage at every chunk size: asserts they agree and returns the whole-text run. */
function salvageEverySplit(schema: SchemaInput) {
  const whole = salvageChunks([text], options(schema));
  for (const [label, chunks] of everyChunkSize(text)) {
    const run = salvageChunks(chunks, options(schema));
    expect(run.values, label).toEqual(whole.values);
    expect(run.diagnostics, label).toEqual(whole.diagnostics);
    expect(run.stats, label).toEqual(whole.stats);
  }
  return whole;
}

describe('JSONL: the same answer through JSON Schema and Standard Schema', () => {
  const reference = decodeEverySplit(text, options(definitionRelationshipJsonSchema));

  test('the JSON Schema run is the recorded expectation', () => {
    expect(reference.records.map((r) => r.branch)).toEqual([
      'definition',
      'definition',
      'relationship',
      'relationship',
      'definition',
    ]);
    expect(reference.diagnostics.map((d) => [d.reason, d.line, d.branch])).toEqual([
      ['prose', 1, undefined],
      ['schema', 7, 'relationship'],
      ['schema', 8, undefined],
    ]);
  });

  describe.each(definitionRelationshipVendors)('$name', ({ schema, dispatches }) => {
    const run = decodeEverySplit(text, options(schema));

    test('values, lines, offsets and stats are the JSON Schema run’s', () => {
      expect(run.values).toEqual(reference.values);
      expect(run.stats).toEqual(reference.stats);
      if (dispatches) expect(run.records).toEqual(reference.records);
      else expect(run.records).toEqual(reference.records.map(withoutBranch));
    });

    test('diagnostics: same reasons, lines, offsets, excerpts and branches', () => {
      expect(run.diagnostics.map((d) => shape(d, dispatches))).toEqual(
        reference.diagnostics.map((d) => shape(d, dispatches)),
      );
    });

    test('the branch failure carries the vendor’s issue at a JSON Pointer', () => {
      const failure = run.diagnostics.find((d) => d.line === 7);
      expect(failure?.errors?.map((e) => e.path)).toEqual(['/object']);
      expect(failure?.message).toMatch(/at \/object: /);
      if (dispatches) expect(failure?.message).toMatch(/^branch "relationship": at \/object: /);
    });

    test('an unknown discriminator: the JSON Schema run’s words with dispatch, the vendor’s without', () => {
      const unknown = run.diagnostics.find((d) => d.line === 8);
      const expected = reference.diagnostics.find((d) => d.line === 8);
      if (dispatches) {
        expect(unknown?.message).toBe(expected?.message);
        // schemaPath points into the vendor's export, whose root may be anyOf (arktype).
        expect(unknown?.errors?.map(({ schemaPath: _, ...e }) => e)).toEqual(
          expected?.errors?.map(({ schemaPath: _, ...e }) => e),
        );
        expect(unknown?.message).toContain('unknown discriminator "type": "process"; expected one of');
      } else {
        expect(unknown?.message).not.toContain('unknown discriminator');
        expect(unknown?.errors?.map((e) => e.path)).toEqual(['/type']);
      }
    });
  });
});

describe('salvage: the same answer through JSON Schema and Standard Schema', () => {
  const reference = salvageEverySplit(definitionRelationshipJsonSchema);

  test('the JSON Schema run finds the five valid values', () => {
    expect(reference.values).toHaveLength(5);
    expect(reference.diagnostics.filter((d) => d.reason === 'schema')).toHaveLength(2);
  });

  describe.each(definitionRelationshipVendors)('$name', ({ schema, dispatches }) => {
    const run = salvageEverySplit(schema);

    test('values, diagnostics and stats are the JSON Schema run’s (messages aside)', () => {
      if (dispatches) expect(run.values).toEqual(reference.values);
      else expect(run.values).toEqual(reference.values.map(withoutBranch));
      expect(run.diagnostics.map((d) => shape(d, dispatches))).toEqual(
        reference.diagnostics.map((d) => shape(d, dispatches)),
      );
      expect(run.stats).toEqual(reference.stats);
    });
  });
});

describe('a vendor whose validate misbehaves, through the Node JSONL stream', () => {
  test('a zod refine that throws: each line is a schema diagnostic, the stream ends normally', async () => {
    const schema = z.object({ id: z.string() }).refine(() => {
      throw new Error('refine exploded');
    });
    const lines = '{"id": "a"}\n{"id": "b"}\n';
    for (const [label, chunks] of everyChunkSize(lines, 8)) {
      const run = await streamChunks(chunks, { schema });
      expect(run.values, label).toEqual([]);
      expect(
        run.diagnostics.map((d) => [d.reason, d.line]),
        label,
      ).toEqual([
        ['schema', 1],
        ['schema', 2],
      ]);
      expect(run.diagnostics[0]?.message).toMatch(/^the zod schema's validate threw Error: refine exploded; /);
    }
  });
});
