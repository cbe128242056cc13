#!/usr/bin/env node
/**
 * The `llmjson` bin: a launcher for the command itself (dist/main.js). It is a file of the
 * repository, not of the build, so that installing the workspace (which links every bin before
 * `tsc -b` has written dist) finds it, instead of warning twice that it cannot link a file not
 * yet built. In a checkout that is not built, it says what to run instead of a module stack.
 */

import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write(
    'llmjson: the command is not built (packages/cli/dist/main.js is missing): run `npx -y pnpm@10 build` at the root of the repository\n',
  );
  process.exitCode = 1;
}
