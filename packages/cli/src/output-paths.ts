/**
 * Files named on the command line are checked before any input is read (exit 2): an input
 * must open as something readable that is not a directory; an output must be a writable file
 * or a new name in a writable directory. Checking only the directory's permission is not
 * enough: an existing read-only file, or a "directory" that is a regular file, passes it and
 * then fails after the whole input was consumed. Every message quotes the name at most
 * `MAX_QUOTED_LENGTH` characters.
 */

import { accessSync, constants, type ReadStream, type Stats, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Envelope, writeOutputFile } from '@llmjson/contracts';
import { quoteInput } from '@llmjson/core/internal';
import { UsageError } from './exit-codes.js';

/** Why a file system call failed, in a few words (never the path, which the caller quotes itself). */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file (or a symlink to nothing)';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'ELOOP':
      return 'too many levels of symlinks';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    default:
      return code ?? (error as Error).message;
  }
}

/** The absolute path of an output file, after checking it can be written; else a UsageError naming the flag. */
export function writableFile(cwd: string, file: string, flag: string): string {
  const path = resolve(cwd, file);
  const name = `${flag} ${quoteInput(file)}`;
  let stat: Stats | undefined;
  try {
    stat = statSync(path);
  } catch (error) {
    // ENOENT: does not exist yet, and its directory is checked below. Anything else is a path
    // that can never be written: ENOTDIR, say, for a "directory" that is a regular file, which
    // access(2) on that file would let root through.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new UsageError(`${name}: cannot write there (${fileProblem(error)})`);
    }
  }
  if (stat?.isDirectory()) throw new UsageError(`${name} is a directory, not a file`);
  if (stat !== undefined) {
    try {
      accessSync(path, constants.W_OK);
    } catch {
      throw new UsageError(`${name}: the file exists and is not writable`);
    }
    return path;
  }
  const parent = dirname(path);
  try {
    accessSync(parent, constants.W_OK | constants.X_OK);
  } catch {
    throw new UsageError(
      `${name}: cannot write there (the directory ${quoteInput(parent)} does not exist or is not writable)`,
    );
  }
  return path;
}

/**
 * Opens an input file before anything is read, so that a directory, a symlink to nothing or a
 * file without read permission is a usage error (exit 2), not a read error once the command
 * has started (`access(2)` alone lets a directory through, and root through everything).
 */
export async function openInputFile(cwd: string, file: string): Promise<ReadStream> {
  const name = `cannot read input file ${quoteInput(file)}`;
  let handle: FileHandle;
  try {
    handle = await open(resolve(cwd, file), 'r');
  } catch (error) {
    throw new UsageError(`${name}: ${fileProblem(error)}`);
  }
  let directory: boolean;
  try {
    directory = (await handle.stat()).isDirectory();
  } catch (error) {
    await handle.close();
    throw new UsageError(`${name}: ${fileProblem(error)}`);
  }
  if (directory) {
    await handle.close();
    throw new UsageError(`${name}: it is a directory`);
  }
  return handle.createReadStream();
}

/**
 * Writes the envelope to an `--output-file` checked by `writableFile` before any input was
 * read, so a failure here is a change since (a full disk, a file made read-only): one line,
 * exit 2, never a stack trace after the work is done.
 */
export function writeCheckedOutputFile(envelope: Envelope, path: string, given: string): void {
  try {
    writeOutputFile(envelope, path);
  } catch (error) {
    throw new UsageError(`--output-file ${quoteInput(given)}: cannot write it (${fileProblem(error)})`);
  }
}
