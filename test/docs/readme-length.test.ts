/**
 * The README is a README: what llmjson is, the quick start, install, one short example per
 * capability, the guarantees, the benchmark table and links — at most 300 lines. The manual is
 * in docs/guide/; a capability that needs more than its short example gets a chapter there.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

test('README.md has at most 300 lines', () => {
  const lines = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  expect(lines.length).toBeLessThanOrEqual(300);
});
