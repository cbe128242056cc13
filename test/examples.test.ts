/**
 * The runnable examples the README points to: each runs as a user would run it (`node …`),
 * and prints what the README says it prints.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

test('examples/contracts/prompt-runner.mjs: catalog, streamed objects, typed failure, envelope', () => {
  const out = execFileSync(process.execPath, ['examples/contracts/prompt-runner.mjs'], { cwd: root, encoding: 'utf8' });
  expect(out).toContain('catalog: ok, 6 prompts');
  expect(out.match(/^object: /gm)).toHaveLength(3);
  expect(out).toContain('[agent-kg-extract] dropped line 5: schema: branch "relationship": at /object: must be string');
  expect(out).toContain('outcome: succeeded');
  expect(out).toContain('failed: SCHEMA_MISMATCH: at /sections/0/start_line: must be integer');
  expect(out).toContain('envelope: {"status":"succeeded","text":"{\\"document_title\\":\\"On the Heart Sutra\\"');
});
