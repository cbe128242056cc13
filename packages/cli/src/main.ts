#!/usr/bin/env node
/** The `llmjson` binary: runs one command on the process's stdio and exits with its code. */

import { ExitCode } from './exit-codes.js';
import { outputFilesRequested } from './output-paths.js';
import { main } from './program.js';

// At once, unless a command listens itself: batch stops reading and writes what it judged as
// whole lines, so that --resume continues the run; it exits 130 then.
process.on('SIGINT', () => {
  if (process.listenerCount('SIGINT') === 1) process.exit(ExitCode.interrupted);
});
// A reader that goes away (`llmjson … | head -1`) ends the printing quietly. A command asked
// to write files (`--report`, `--out`, `--output-file`, `-o`) goes on and writes them: it sees
// the same error on stdout and stops printing, and its exit code says whether the files were
// written. Any other command has nothing left to do, and ends at once.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE' && !outputFilesRequested()) process.exit(ExitCode.ok);
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
