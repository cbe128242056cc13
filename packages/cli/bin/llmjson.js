#!/usr/bin/env node
/**
 * The `llmjson` bin: a launcher for the command itself, the bundle (bundle/llmjson.js, made by
 * scripts/bundle.mjs after `tsc -b`), or in a checkout built with `tsc -b` alone, the build
 * (dist/main.js). It is a file of the repository, not of the build, so that installing the
 * workspace (which links every bin before anything is built) finds it, instead of warning twice
 * that it cannot link a file not yet built. In a checkout that is not built, it says what to run
 * instead of a module stack.
 */

import { existsSync } from 'node:fs';

const bundle = new URL('../bundle/llmjson.js', import.meta.url);
const main = new URL('../dist/main.js', import.meta.url);
if (existsSync(bundle)) {
  await import(bundle.href);
} else if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write(
    'llmjson: the command is not built (packages/cli/dist/main.js is missing): run `npx -y pnpm@10 build` at the root of the repository\n',
  );
  process.exitCode = 1;
}
