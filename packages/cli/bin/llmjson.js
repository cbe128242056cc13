#!/usr/bin/env node
/**
 * The `llmjson` bin: a launcher for the command itself, the bundle (bundle/llmjson.js, made from
 * the build by scripts/bundle.mjs), else the build (dist/main.js). It is a file of the repository,
 * not of the build, so that installing the workspace (which links every bin before anything is
 * built) finds it, instead of warning twice that it cannot link a file not yet built.
 *
 * In a checkout (where this package's tsconfig.json is; a packed package has none), the bundle
 * runs only if it is newer than the last build of every package it holds (their
 * tsconfig.tsbuildinfo): after `tsc -b` alone, the build runs, never a bundle of older code. In a
 * checkout that is not built, it says what to run instead of a module stack.
 */

import { existsSync, statSync } from 'node:fs';

const here = (path) => new URL(path, import.meta.url);
const bundle = here('../bundle/llmjson.js');
const main = here('../dist/main.js');

/** When a file was last written, in ms; undefined if it does not exist. */
function written(url) {
  try {
    return statSync(url).mtimeMs;
  } catch {
    return undefined;
  }
}

function bundleIsCurrent() {
  const bundled = written(bundle);
  if (bundled === undefined) return false;
  if (!existsSync(here('../tsconfig.json'))) return true;
  const builds = ['cli', 'core', 'contracts', 'node'].map((name) =>
    written(here(`../../${name}/tsconfig.tsbuildinfo`)),
  );
  // Not built (or cleaned): the bundle is of a build that is gone.
  if (builds[0] === undefined) return false;
  return builds.every((build) => build === undefined || build <= bundled);
}

if (bundleIsCurrent()) {
  await import(bundle.href);
} else if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write(
    'llmjson: the command is not built (packages/cli/dist/main.js is missing): run `npx -y pnpm@10 build` at the root of the repository\n',
  );
  process.exitCode = 1;
}
