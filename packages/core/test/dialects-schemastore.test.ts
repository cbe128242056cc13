/**
 * Cross-check of the dialects against the schemas users have: every schema of the SchemaStore
 * corpus that declares a dialect other than draft-07 and that plain ajv compiles (ajv-draft-04 for draft-04, the draft-07 class with the draft-06
 * meta-schema for draft-06, Ajv2019, Ajv2020; ajv-formats) is compiled by compileSchema, whatever
 * its dialect, and gives plain ajv's verdict on the corpus's own files — except the schemas
 * llmjson refuses by design, each for a reason its message names: a pattern that needs a
 * backtracking regex engine (decision 013). Every schema plain ajv refuses is refused too
 * (references by URL to files that are not given), never as an `unsupported $schema`.
 */

import { compileSchema } from '@llmjson/core/ajv';
import type { AnySchemaObject, ValidateFunction } from 'ajv';
import { describe, expect, test } from 'vitest';
import { corpus } from '../../../test/support/corpora.js';
import { referenceAjv, dialectOf as referenceDialect } from '../../../test/support/reference-ajv.js';
import { dialectOf } from '../src/schema/schema-dialect.js';
import type { JsonSchema } from '../src/schema/schema-validator.js';

interface StoredFile {
  readonly file: string;
  readonly data: unknown;
}
interface StoredSchema {
  readonly schema: JsonSchema;
  readonly valid: readonly StoredFile[];
  readonly invalid: readonly StoredFile[];
}

const store = corpus<Record<string, StoredSchema>>('schemastore/schemastore.json', 'SchemaStore dialect cross-check');

/** Plain ajv's validator for `schema` (test/support/reference-ajv.ts), or undefined when plain ajv refuses it. */
function plain(schema: JsonSchema): ValidateFunction | undefined {
  try {
    return referenceAjv(referenceDialect(schema)).compile(schema as AnySchemaObject);
  } catch {
    return undefined;
  }
}

/** What a refusal by design says: a regex llmjson will not run (linear-regexp.ts). */
const BY_DESIGN = /pattern|regular expression/i;

describe.skipIf(!store.present)('SchemaStore: every dialect is compiled', () => {
  const entries = store.present ? Object.entries(store.load()) : [];

  test('no draft-04, 2019-09 or 2020-12 schema plain ajv compiles is refused for its $schema; the rest only by design', () => {
    const byDialect = new Map<string, { compiled: number; refusedByDesign: string[] }>();
    const wrong: string[] = [];
    for (const [name, { schema }] of entries) {
      const dialect = dialectOf(schema)?.name ?? 'unknown';
      // draft-07 schemas were compiled before draft-04 and draft-06 were: the conformance suite
      // (test/conformance) checks them all; here, only that their dialect is read.
      if (dialect === 'draft-07') {
        byDialect.set(dialect, { compiled: 0, refusedByDesign: [] });
        continue;
      }
      const tally = byDialect.get(dialect) ?? { compiled: 0, refusedByDesign: [] };
      byDialect.set(dialect, tally);
      const reference = plain(schema);
      let refusal: string | undefined;
      try {
        compileSchema(schema);
      } catch (error) {
        refusal = (error as Error).message;
      }
      if (refusal?.startsWith('unsupported $schema')) wrong.push(`${name}: ${refusal}`);
      else if (reference === undefined && refusal === undefined)
        wrong.push(`${name}: plain ajv refuses it, llmjson compiles it`);
      else if (reference !== undefined && refusal === undefined) tally.compiled++;
      else if (reference !== undefined && refusal !== undefined) {
        if (BY_DESIGN.test(refusal)) tally.refusedByDesign.push(name);
        else wrong.push(`${name}: ${refusal}`);
      }
    }
    expect(wrong).toEqual([]);
    // Every dialect the corpus declares is there and compiled (numbers as of the corpus's commit).
    expect([...byDialect.keys()].sort()).toEqual(['2019-09', '2020-12', 'draft-04', 'draft-07']);
    expect(byDialect.get('draft-04')?.compiled).toBeGreaterThanOrEqual(90);
    expect(byDialect.get('2019-09')?.compiled).toBeGreaterThanOrEqual(1);
    expect(byDialect.get('2020-12')?.compiled).toBeGreaterThanOrEqual(1);
  });

  test('draft-04 schemas give plain ajv verdicts on the corpus files', () => {
    const disagreements: string[] = [];
    let files = 0;
    for (const [name, { schema, valid, invalid }] of entries) {
      if (dialectOf(schema)?.name !== 'draft-04') continue;
      const reference = plain(schema);
      if (reference === undefined) continue;
      let compiled: ReturnType<typeof compileSchema>;
      try {
        compiled = compileSchema(schema);
      } catch {
        continue; // refused by design: counted above
      }
      for (const { file, data } of [...valid, ...invalid]) {
        files++;
        const expected = reference(data);
        if (compiled.validate(data).valid !== expected)
          disagreements.push(`${name}/${file}: plain ajv says ${expected}`);
      }
    }
    expect(disagreements).toEqual([]);
    expect(files).toBeGreaterThan(100);
  });
});
