/**
 * The `llmjson` bin runs a bundle of the build (scripts/bundle.mjs): the workspace's own packages
 * in one file for the command and one for the batch worker, every other package an import that
 * @llmjson/cli must depend on, with the range of the workspace package that uses it. The bundle
 * is run here from a folder that holds no build at all, as the packed package's files are laid
 * out, so that nothing it needs is found in `dist` by accident: the batch worker's file, the
 * built-in schemas of @llmjson/contracts, the demo and the version.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPOSITORY } from '../../../test/support/cli.js';

const PACKAGE = join(REPOSITORY, 'packages/cli');
const script = (await import(join(PACKAGE, 'scripts/bundle.mjs'))) as {
  packageName(specifier: string): string;
  dependencyProblems(
    externals: string[],
    dependencies: Record<string, string>,
    declared: Map<string, { by: string; range: string }[]>,
  ): string[];
  workspaceRanges(
    bundled: string[],
    read?: (dir: string) => { name: string; dependencies?: Record<string, string> },
  ): Map<string, { by: string; range: string }[]>;
  ownUrlProblems(text: string): string[];
  bundle(options?: { outdir?: string; write?: boolean }): Promise<{
    externals: string[];
    bundled: string[];
    problems: string[];
  }>;
};
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  files: string[];
};

describe('the bundle of the llmjson command', () => {
  test('a bare specifier names its package', () => {
    expect(
      ['ajv', 'ajv/dist/2019.js', '@smithy/eventstream-codec', '@scope/name/deep/file.js'].map(script.packageName),
    ).toEqual(['ajv', 'ajv', '@smithy/eventstream-codec', '@scope/name']);
  });

  test('an import of a package that @llmjson/cli does not depend on, or on another range than a bundled package declares, is named with what to write', () => {
    const declared = new Map([
      ['ajv', [{ by: '@llmjson/core', range: '8.20.0' }]],
      [
        'handlebars',
        [
          { by: '@llmjson/contracts', range: '4.7.8' },
          { by: '@llmjson/node', range: '4.7.9' },
        ],
      ],
    ]);
    expect(script.dependencyProblems(['ajv/dist/2019.js', 'ajv'], { ajv: '8.20.0' }, declared)).toEqual([]);
    expect(script.dependencyProblems(['ajv/dist/2020.js', 'ajv'], {}, declared)).toEqual([
      'the bundle imports ajv, which @llmjson/cli does not depend on: add "ajv": "8.20.0" to its dependencies (the range of @llmjson/core)',
    ]);
    expect(script.dependencyProblems(['handlebars'], { handlebars: '4.7.8' }, declared)).toEqual([
      'the bundle imports handlebars as @llmjson/node does, which depends on "4.7.9", but @llmjson/cli depends on "4.7.8": use the same range',
    ]);
  });

  test("the ranges checked are the bundled workspace packages' own, never @llmjson/cli's", () => {
    const manifests: Record<string, { name: string; dependencies: Record<string, string> }> = {
      cli: { name: '@llmjson/cli', dependencies: { ajv: 'catalog:', '@llmjson/core': 'workspace:*' } },
      core: { name: '@llmjson/core', dependencies: { ajv: '^9.0.0' } },
    };
    const declared = script.workspaceRanges(['cli', 'core'], (dir) => manifests[dir] as never);
    expect(declared.get('ajv')).toEqual([{ by: '@llmjson/core', range: '^9.0.0' }]);
    expect(script.dependencyProblems(['ajv'], { ajv: 'catalog:' }, declared)).toEqual([
      'the bundle imports ajv as @llmjson/core does, which depends on "^9.0.0", but @llmjson/cli depends on "catalog:": use the same range',
    ]);
    // On the real manifests: ajv as core declares it, canonicalize as contracts does.
    const real = script.workspaceRanges(['cli', 'contracts', 'core', 'node']);
    expect(real.get('ajv')?.map((d) => d.by)).toEqual(['@llmjson/core']);
    expect(real.get('canonicalize')?.map((d) => d.by)).toEqual(['@llmjson/contracts']);
  });

  test('a bundled module that finds a file from its own URL is refused unless allowed', () => {
    const text = [
      '// packages/cli/dist/program.js',
      "var VERSION = readFileSync(new URL('../package.json', import.meta.url));",
      '// packages/core/dist/loader.js',
      "var data = new URL('../data/', import.meta.url);",
      'var again = import.meta.url;',
    ].join('\n');
    expect(script.ownUrlProblems(text)).toEqual([
      "packages/core/dist/loader.js uses import.meta.url, which in the bundle is the bundle's own file: find the file by package name (as packages/contracts/src/package-root.ts does), or, if it is the same from the bundle's folder, add the module to OWN_URL_ALLOWED in packages/cli/scripts/bundle.mjs",
    ]);
  });

  test('bundles core, contracts, node and the command; imports only packages @llmjson/cli depends on, with the same ranges', async () => {
    const { externals, bundled, problems } = await script.bundle({ write: false });
    expect(problems).toEqual([]);
    expect(bundled).toEqual(expect.arrayContaining(['cli', 'contracts', 'core', 'node']));
    expect(externals.filter((specifier) => specifier.startsWith('@llmjson/'))).toEqual([]);
    for (const name of new Set(externals.map(script.packageName))) {
      expect(manifest.dependencies, name).toHaveProperty([name]);
    }
    expect(manifest.files).toContain('bundle');
  });

  test('runs from the files of the package with no build beside it: version, demo (built-in schemas), batch with worker threads', async () => {
    const root = mkdtempSync(join(tmpdir(), 'llmjson-bundle-'));
    const { problems } = await script.bundle({ outdir: join(root, 'bundle') });
    expect(problems).toEqual([]);
    cpSync(join(PACKAGE, 'bin'), join(root, 'bin'), { recursive: true });
    cpSync(join(PACKAGE, 'demo'), join(root, 'demo'), { recursive: true });
    cpSync(join(PACKAGE, 'package.json'), join(root, 'package.json'));
    // The dependencies, as an install puts them beside the package.
    symlinkSync(join(PACKAGE, 'node_modules'), join(root, 'node_modules'));
    expect(existsSync(join(root, 'dist'))).toBe(false);
    const llmjson = (args: string[], cwd = root) =>
      spawnSync(process.execPath, [join(root, 'bin/llmjson.js'), ...args], { cwd, encoding: 'utf8' });

    const version = llmjson(['--version']);
    expect(version.stderr).toBe('');
    expect(version.stdout.trim()).toBe(manifest.version);

    const demo = llmjson(['demo', '--speed', '0']);
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('document complete');

    const work = join(root, 'work');
    mkdirSync(work);
    const schema = (key: string) => ({ type: 'object', properties: { [key]: { type: 'integer' } }, required: [key] });
    const lines = Array.from({ length: 600 }, (_, i) =>
      JSON.stringify({
        id: `r${i}`,
        model: `m${i % 2}`,
        schema: schema(`k${i % 5}`),
        text: i % 3 === 0 ? `{"k${i % 5}": "x"}` : `{"k${i % 5}": ${i}}`,
      }),
    );
    writeFileSync(join(work, 'run.jsonl'), `${lines.join('\n')}\n`);
    const pooled = llmjson(['batch', 'run.jsonl', '--schema-field', 'schema', '--workers', '2', '--no-progress'], work);
    expect(pooled.status, pooled.stderr).toBe(0);
    const results = pooled.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; status: string });
    expect(results.map((r) => r.id)).toEqual(lines.map((_, i) => `r${i}`));
    expect(results.map((r) => r.status)).toEqual(lines.map((_, i) => (i % 3 === 0 ? 'invalid' : 'valid')));
    const inline = llmjson(['batch', 'run.jsonl', '--schema-field', 'schema', '--workers', '0', '--no-progress'], work);
    expect(inline.stdout).toBe(pooled.stdout);
  });
});
