/**
 * @llmjson/contracts finds its own folder by its name, not from its module's URL, so that the
 * built-in schemas and Handlebars are found when its code is bundled into another file (the
 * `llmjson` command's bundle, packages/cli/scripts/bundle.mjs; run from a folder with no build in
 * packages/cli/test/bundle.test.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { BUILTIN_SCHEMA_ROOT } from '../src/index.js';
import { PACKAGE_JSON, PACKAGE_ROOT, requireFromPackage } from '../src/package-root.js';

const HERE = fileURLToPath(new URL('../', import.meta.url));

test('the package root is this package, found by name; the built-in schemas and Handlebars are found from it', () => {
  expect(PACKAGE_ROOT).toBe(HERE.replace(/\/$/, ''));
  expect((JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { name: string }).name).toBe('@llmjson/contracts');
  // Found by name (the `./package.json` entry of its exports), not by the fallback beside the module.
  expect(createRequire(import.meta.url).resolve('@llmjson/contracts/package.json')).toBe(PACKAGE_JSON);
  expect(BUILTIN_SCHEMA_ROOT).toBe(join(HERE, 'schemas', 'prompt-contracts', '/'));
  expect(
    readFileSync(join(BUILTIN_SCHEMA_ROOT, 'llmjson', 'kg', 'definition_relationship', 'v1.schema.json'), 'utf8')
      .length,
  ).toBeGreaterThan(0);
  const handlebars = requireFromPackage('handlebars') as { create: unknown };
  expect(typeof handlebars.create).toBe('function');
  expect(requireFromPackage.resolve('handlebars')).toContain('handlebars');
});
