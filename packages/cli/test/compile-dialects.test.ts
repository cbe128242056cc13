/**
 * `llmjson compile` supports every dialect `compileSchema` does: a draft-04 and a draft-06 schema
 * file compile to a module that imports (from inside this package, as a project would) and gives
 * compileSchema's verdicts; an unknown root `$schema` is exit 2 naming the supported dialects.
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { JsonSchema, StandardSchemaV1 } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';

const TMP = fileURLToPath(new URL(`./.tmp-compile-dialects-${process.pid}/`, import.meta.url));
mkdirSync(TMP, { recursive: true });
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

let written = 0;
/** Writes `schema` to a file, runs `llmjson compile` on it, and imports what it printed. */
async function compiled(schema: JsonSchema): Promise<StandardSchemaV1> {
  const n = written++;
  const file = join(TMP, `schema-${n}.json`);
  writeFileSync(file, JSON.stringify(schema));
  const r = await runCli(['compile', file], { cwd: TMP });
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const module = join(TMP, `module-${n}.js`);
  writeFileSync(module, r.out);
  return ((await import(pathToFileURL(module).href)) as { default: StandardSchemaV1 }).default;
}

const CASES: readonly [string, JsonSchema, readonly unknown[]][] = [
  [
    'draft-04: boolean exclusiveMaximum, id',
    {
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'http://example.com/n.json',
      definitions: { small: { type: 'number', maximum: 3, exclusiveMaximum: true } },
      properties: { n: { $ref: '#/definitions/small' }, s: { type: 'string', maxLength: 1 } },
    },
    [{ n: 2 }, { n: 3 }, { s: '😀' }, { s: 'ab' }],
  ],
  [
    'draft-06: const, contains, numeric exclusiveMaximum',
    {
      $schema: 'http://json-schema.org/draft-06/schema#',
      properties: { k: { const: 'a' }, t: { contains: { const: 1 } }, n: { exclusiveMaximum: 3 } },
    },
    [{ k: 'a', t: [0, 1], n: 2 }, { k: 'b' }, { t: [0] }, { n: 3 }],
  ],
];

describe.each(CASES)('%s', (_name, schema, values) => {
  test('the module gives compileSchema verdicts', async () => {
    const module = await compiled(schema);
    const runtime = compileSchema(schema);
    const got = await Promise.all(
      values.map(async (v) => (await module['~standard'].validate(v)).issues === undefined),
    );
    expect(got).toEqual(values.map((v) => runtime.validate(v).valid));
    expect(got).toContain(true);
    expect(got).toContain(false);
  });
});

test('an unknown root $schema is exit 2, naming the supported dialects', async () => {
  const file = join(TMP, 'draft-03.json');
  writeFileSync(file, JSON.stringify({ $schema: 'http://json-schema.org/draft-03/schema#' }));
  const r = await runCli(['compile', file], { cwd: TMP });
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  expect(r.err).toContain('supported: draft-04, draft-06, draft-07 (default), 2019-09, 2020-12');
});
