/**
 * `--diagnostics json` for one value with 100 000 keys that `additionalProperties: false`
 * forbids: one diagnostic line of a few KB (MAX_SCHEMA_ERRORS errors and the count of the
 * others), not the 17 MB of every error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERRORS_OMITTED_KEYWORD, MAX_SCHEMA_ERRORS } from '@llmjson/core';
import { expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { runCli } from '../../../test/support/cli.js';

test('jsonl --diagnostics json: the 1.4 MB line with 100 000 extra keys gives one line under 8 KB', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-error-cap-'));
  const schemaPath = join(dir, 'schema.json');
  writeFileSync(
    schemaPath,
    JSON.stringify({ type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false }),
  );
  const value: Record<string, number> = { a: 1 };
  for (let i = 0; i < 100_000; i++) value[`k${i}`] = i;
  const line = `${JSON.stringify(value)}\n`;
  expect(line.length).toBeGreaterThan(1_400_000);
  for (const stdin of [[line], chunkText(line, 65_536)]) {
    const run = await runCli(['jsonl', '--schema', schemaPath, '--diagnostics', 'json'], { stdin });
    expect(run.out).toBe('');
    expect(run.err.length).toBeLessThan(8 * 1024);
    const diagnostics = run.err
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { reason: string; errors?: { keyword: string; params: { omitted?: number } }[] });
    const schema = diagnostics.filter((d) => d.reason === 'schema');
    expect(schema).toHaveLength(1);
    const errors = schema[0]?.errors ?? [];
    expect(errors).toHaveLength(MAX_SCHEMA_ERRORS + 1);
    expect(errors.at(-1)).toMatchObject({
      keyword: ERRORS_OMITTED_KEYWORD,
      params: { omitted: 100_000 - MAX_SCHEMA_ERRORS },
    });
  }
});
