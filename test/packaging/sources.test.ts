/**
 * The suite tests the sources: vitest.config.ts resolves every `@llmjson/*` entry to the
 * package's `src`, so a test run after editing `src` never exercises a stale `dist`. Each entry
 * of each package's `exports` map, imported by its name, must be the very module loaded from
 * its source file; an entry added without its alias fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const PACKAGES = new URL('../../packages/', import.meta.url);

const entries = readdirSync(PACKAGES).flatMap((dir) => {
  const manifest = JSON.parse(readFileSync(new URL(`${dir}/package.json`, PACKAGES), 'utf8')) as {
    name: string;
    exports: Record<string, { default: string } | string>;
  };
  // A `./package.json` entry is the manifest itself, not a module of the package.
  const modules = Object.entries(manifest.exports).filter(
    (entry): entry is [string, { default: string }] => typeof entry[1] !== 'string',
  );
  return modules.map(([subpath, target]) => ({
    specifier: `${manifest.name}${subpath.slice(1)}`,
    source: fileURLToPath(
      new URL(`${dir}/${target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')}`, PACKAGES),
    ),
  }));
});

test('every package has its entries checked', () => {
  expect(entries.map((entry) => entry.specifier)).toEqual(
    expect.arrayContaining(['@llmjson/core', '@llmjson/core/ajv', '@llmjson/node', '@llmjson/web', '@llmjson/cli']),
  );
});

test.each(entries)('$specifier is its src module', async ({ specifier, source }) => {
  const byName = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
  const bySource = (await import(/* @vite-ignore */ source)) as Record<string, unknown>;
  const functions = Object.keys(bySource).filter((key) => typeof bySource[key] === 'function');
  expect(functions.length).toBeGreaterThan(0);
  for (const key of functions) expect(byName[key], key).toBe(bySource[key]);
});
