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
 * of @llmjson/cli with the same version range as every bundled workspace package that declares
 * it. A bundled module that finds a file from its own URL (`import.meta.url`) would look beside
 * the bundle instead: only the modules listed in OWN_URL_ALLOWED may. The bundle is not written
 * when either check fails, and the message says what to change.
 *
 * Run by the root's `build` and `test` scripts after `tsc -b`, by vitest's global setup, and
 * before `pnpm pack`: `node packages/cli/scripts/bundle.mjs`.
 */

import { existsSync, mkdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const CLI = new URL('../', import.meta.url);
const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The bundled modules that may use their own URL, each for what is the same from the bundle's
 * folder as from the build's (one folder below the package root) or is found by package name.
 */
export const OWN_URL_ALLOWED = new Set([
  // @llmjson/contracts finds its folder by its name (`@llmjson/contracts/package.json`).
  'packages/contracts/dist/package-root.js',
  // The version: @llmjson/cli's package.json, one folder up.
  'packages/cli/dist/program.js',
  // The demo's files: @llmjson/cli's demo folder, one folder up.
  'packages/cli/dist/demo-command.js',
  // The batch worker: beside the bundle when bundled (`__LLMJSON_BUNDLE__`).
  'packages/cli/dist/batch-command.js',
]);

/** The package a bare specifier names: `ajv/dist/2019.js` → `ajv`, `@scope/name/x` → `@scope/name`. */
export function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The manifest of the workspace package in folder `dir` of packages/. */
function readManifest(dir) {
  return JSON.parse(readFileSync(new URL(`../${dir}/package.json`, CLI), 'utf8'));
}

/**
 * The ranges the bundled workspace packages other than @llmjson/cli declare for each dependency
 * that is not the workspace's: package → [{ by, range }], one per package that declares it.
 */
export function workspaceRanges(bundled, read = readManifest) {
  const declared = new Map();
  for (const dir of [...bundled].sort()) {
    if (dir === 'cli') continue;
    const manifest = read(dir);
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      if (name.startsWith('@llmjson/')) continue;
      declared.set(name, [...(declared.get(name) ?? []), { by: manifest.name, range }]);
    }
  }
  return declared;
}

/**
 * What is wrong with the bundle's imports of other packages (`externals`, bare specifiers): one
 * message per package that @llmjson/cli does not depend on, or depends on with a range other than
 * one of the bundled workspace packages that declare it (`declared`, from workspaceRanges).
 */
export function dependencyProblems(externals, cliDependencies, declared) {
  const problems = [];
  for (const name of [...new Set(externals.map(packageName))].sort()) {
    const wanted = declared.get(name) ?? [];
    const has = cliDependencies[name];
    if (has === undefined) {
      const from = wanted[0];
      problems.push(
        `the bundle imports ${name}, which @llmjson/cli does not depend on: add "${name}": "${from?.range ?? '<range>'}" to its dependencies${from === undefined ? '' : ` (the range of ${from.by})`}`,
      );
      continue;
    }
    for (const { by, range } of wanted) {
      if (range !== has) {
        problems.push(
          `the bundle imports ${name} as ${by} does, which depends on "${range}", but @llmjson/cli depends on "${has}": use the same range`,
        );
      }
    }
  }
  return problems;
}

/**
 * The modules of an output file (esbuild marks each with a `// path` comment, relative to the
 * repository) that use `import.meta.url` without being in `allowed`.
 */
export function ownUrlProblems(text, allowed = OWN_URL_ALLOWED) {
  const problems = new Set();
  let module = '(the start of the file)';
  for (const line of text.split('\n')) {
    const marker = /^\/\/ ((?:packages|node_modules)\/\S+)$/.exec(line);
    if (marker !== null) module = marker[1];
    else if (line.includes('import.meta.url') && !allowed.has(module)) {
      problems.add(
        `${module} uses import.meta.url, which in the bundle is the bundle's own file: find the file by package name (as packages/contracts/src/package-root.ts does), or, if it is the same from the bundle's folder, add the module to OWN_URL_ALLOWED in packages/cli/scripts/bundle.mjs`,
      );
    }
  }
  return [...problems];
}

/** Everything that is not the workspace's own, a JSON file or one of Node's modules stays an import. */
const workspaceOnly = {
  name: 'workspace-only',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./#]/ }, (args) => {
      if (isBuiltin(args.path) || isAbsolute(args.path)) return undefined;
      if (args.path.startsWith('@llmjson/') || args.path.endsWith('.json')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * Writes `contents` to `path` whole or not at all (a run may start the bundle meanwhile). Unchanged
 * bytes are not rewritten, but the file's time is set to now: the bin runs the bundle only if it is
 * newer than the build (bin/llmjson.js).
 */
function writeWhole(path, contents) {
  if (existsSync(path) && Buffer.compare(readFileSync(path), contents) === 0) {
    const now = new Date();
    utimesSync(path, now, now);
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/** Builds the bundle into `outdir` (written only if every check passes). */
export async function bundle({ outdir = fileURLToPath(new URL('bundle/', CLI)), write = true } = {}) {
  const result = await build({
    entryPoints: {
      llmjson: fileURLToPath(new URL('dist/main.js', CLI)),
      'batch-pool-worker': fileURLToPath(new URL('dist/batch-pool-worker.js', CLI)),
    },
    // Module names in the output relative to the repository, wherever the script runs from.
    absWorkingDir: REPOSITORY,
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
  const bundled = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const { path, external } of output.imports) {
      if (external && !isBuiltin(path)) externals.push(path);
    }
    for (const input of Object.keys(output.inputs)) {
      const inWorkspace = /^packages\/([a-z0-9-]+)\/dist\//.exec(input);
      if (inWorkspace !== null) bundled.add(inWorkspace[1]);
    }
  }
  const cli = JSON.parse(readFileSync(new URL('package.json', CLI), 'utf8'));
  const problems = [
    ...dependencyProblems(externals, cli.dependencies ?? {}, workspaceRanges(bundled)),
    ...result.outputFiles.flatMap((file) => ownUrlProblems(file.text)),
  ];
  if (problems.length === 0 && write) for (const file of result.outputFiles) writeWhole(file.path, file.contents);
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
