/** Output files named on the command line are checked before any input is read (exit 2). */

import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from './exit-codes.js';

/** The absolute path of an output file, after checking it can be written; else a UsageError naming the flag. */
export function writableFile(cwd: string, file: string, flag: string): string {
  const path = resolve(cwd, file);
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    // Does not exist yet: its directory must.
  }
  if (isDirectory) throw new UsageError(`${flag} ${file} is a directory, not a file`);
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch {
    throw new UsageError(
      `${flag} ${file}: cannot write there (the directory ${dirname(path)} does not exist or is not writable)`,
    );
  }
  return path;
}
