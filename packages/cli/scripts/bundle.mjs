#!/usr/bin/env node
/**
 * Bundles the `llmjson` command into `bundle/llmjson.js`, and the worker thread of
 * `llmjson batch --workers N` into `bundle/batch-pool-worker.js`, from the build (`dist`, made by
 * `tsc -b`). The bin (`bin/llmjson.js`) runs the bundle: one file loads faster than the few
 * hundred modules of the workspace's packages, in the main thread and in every worker
 * (docs/decisions/043-cli-bundle.md).
 *
 * Only the workspace's own packages (`@llmjson/*`) and JSON files are bundled. Every other package
 * stays an import, resolved from this package when the bundle runs, so each must be a dependency
 * of @llmjson/cli with the same version range as the workspace package that uses it: the bundle
 * is not written otherwise, and the message names what to add.
 *
 * Run by the root's `build` and `test` scripts after `tsc -b`: `node packages/cli/scripts/bundle.mjs`.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const CLI = new URL('../', import.meta.url);
const PACKAGES = new URL('../../', import.meta.url);

/** The package a bare specifier names: `ajv/dist/2019.js` → `ajv`, `@scope/name/x` → `@scope/name`. */
export function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const readJson = (url) => JSON.parse(readFileSync(url, 'utf8'));

/**
 * What is wrong with the bundle's imports of other packages (`externals`, bare specifiers):
 * one message per package that @llmjson/cli does not depend on, or depends on with a range other
 * than the workspace package's that imports it (`declared`: package → { by, range }).
 */
export function dependencyProblems(externals, cliDependencies, declared) {
  const problems = [];
  for (const name of [...new Set(externals.map(packageName))].sort()) {
    const wanted = declared.get(name);
    const has = cliDependencies[name];
    if (has === undefined) {
      problems.push(
        `the bundle imports ${name}, which @llmjson/cli does not depend on: add "${name}": "${wanted?.range ?? '<range>'}" to its dependencies${wanted === undefined ? '' : ` (the range of ${wanted.by})`}`,
      );
    } else if (wanted !== undefined && has !== wanted.range) {
      problems.push(
        `the bundle imports ${name} as ${wanted.by} does, which depends on "${wanted.range}", but @llmjson/cli depends on "${has}": use the same range`,
      );
    }
  }
  return problems;
}

/** The dependency ranges the bundled workspace packages declare: package → { by, range }. */
function workspaceRanges(bundled) {
  const declared = new Map();
  for (const dir of bundled) {
    const manifest = readJson(new URL(`${dir}/package.json`, PACKAGES));
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      if (!name.startsWith('@llmjson/') && !declared.has(name)) declared.set(name, { by: manifest.name, range });
    }
  }
  return declared;
}

/** Everything that is not the workspace's own or a JSON file stays an import. */
const workspaceOnly = {
  name: 'workspace-only',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@llmjson/') || args.path.endsWith('.json')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Builds the bundle into `outdir` (written only if its imports are all dependencies of @llmjson/cli). */
export async function bundle({ outdir = fileURLToPath(new URL('bundle/', CLI)), write = true } = {}) {
  const result = await build({
    entryPoints: {
      llmjson: fileURLToPath(new URL('dist/main.js', CLI)),
      'batch-pool-worker': fileURLToPath(new URL('dist/batch-pool-worker.js', CLI)),
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir,
    // The code asks whether it runs bundled (batch-command.ts: where the worker's file is).
    define: { __LLMJSON_BUNDLE__: 'true' },
    plugins: [workspaceOnly],
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const externals = [];
  const bundled = new Set(['cli']);
  for (const output of Object.values(result.metafile.outputs)) {
    for (const { path, external } of output.imports) {
      if (external && !path.startsWith('node:')) externals.push(path);
    }
    for (const input of Object.keys(output.inputs)) {
      const inWorkspace =
        /(?:^|\/)packages\/([a-z0-9-]+)\/dist\//.exec(input) ?? /^\.\.\/([a-z0-9-]+)\/dist\//.exec(input);
      if (inWorkspace !== null) bundled.add(inWorkspace[1]);
    }
  }
  const cli = readJson(new URL('package.json', CLI));
  const problems = dependencyProblems(externals, cli.dependencies ?? {}, workspaceRanges(bundled));
  if (problems.length === 0 && write) {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    for (const file of result.outputFiles) {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.contents);
    }
  }
  return {
    externals: [...new Set(externals)].sort(),
    bundled: [...bundled].sort(),
    problems,
    files: result.outputFiles,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { problems } = await bundle();
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`packages/cli/scripts/bundle.mjs: ${problem}\n`);
    process.exitCode = 1;
  }
}
