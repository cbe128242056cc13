#!/usr/bin/env node
/** The `llmjson` binary: runs one command on the process's stdio and exits with its code. */

import { ExitCode } from './exit-codes.js';
import { main } from './program.js';

process.on('SIGINT', () => process.exit(ExitCode.interrupted));
// A reader that goes away (`llmjson … | head -1`) ends the command quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(ExitCode.ok);
});

main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`llmjson: internal error: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
