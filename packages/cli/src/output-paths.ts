/**
 * Files named on the command line are checked before any input is read (exit 2): an input
 * must open as something readable that is not a directory; an output must be a writable file
 * or a new name in a writable directory. Checking only the directory's permission is not
 * enough: an existing read-only file, or a "directory" that is a regular file, passes it and
 * then fails after the whole input was consumed. Every message quotes the name at most
 * `MAX_QUOTED_LENGTH` characters.
 *
 * An output must also not be one of the command's inputs, nor another of its outputs: opening
 * `--out runs.jsonl` for writing would empty `runs.jsonl` before a record of it is read. Names are
 * compared as the file system sees them: an existing output is the same file as an input when
 * their device and inode agree (the same name, a hard link, a symlink); outputs are compared by
 * their real paths too, since neither need exist yet. Such a pair is exit 2, naming both.
 */

import { accessSync, constants, type ReadStream, realpathSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
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
    case 'ENXIO':
      return 'it is not a regular file (a socket, or a device that is not there)';
    default:
      return code ?? (error as Error).message;
  }
}

/** A file a command reads or writes, as a message names it: `--schema` and `schema.json`, say. */
export interface NamedFile {
  /** The flag, or how the file is named in a message (`the input file`). */
  readonly label: string;
  /** The name as given (relative to the working directory); undefined or `-` (stdin/stdout): no file. */
  readonly file: string | undefined;
}

let outputsRequested = 0;

/**
 * Whether this process was asked to write a file (an output checked by `writableFile`): when the
 * reader of stdout goes away, the command then goes on to write it rather than exit at once.
 */
export function outputFilesRequested(): boolean {
  return outputsRequested > 0;
}

function identity(path: string): { dev: number; ino: number } | undefined {
  try {
    const stat = statSync(path);
    return { dev: stat.dev, ino: stat.ino };
  } catch {
    return undefined;
  }
}

/** The real path a name has or would have: symlinks in it resolved, as far as they exist. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : resolve(realPath(parent), basename(path));
  }
}

function isFileName(file: string | undefined): file is string {
  return file !== undefined && file !== '-';
}

/**
 * Throws a UsageError when an output is an input (device and inode of existing files) or two
 * outputs are one file (device and inode, or real paths): called before anything is opened for
 * writing. Inputs that do not exist are left to the checks that read them.
 */
export function checkOutputsApart(cwd: string, outputs: readonly NamedFile[], inputs: readonly NamedFile[]): void {
  const named = (f: NamedFile & { file: string }) => `${f.label} ${quoteInput(f.file)}`;
  const files = (list: readonly NamedFile[]) =>
    list
      .filter((f): f is NamedFile & { file: string } => isFileName(f.file))
      .map((f) => {
        const path = resolve(cwd, f.file);
        return { ...f, id: identity(path), real: realPath(path) };
      });
  const ins = files(inputs);
  const outs = files(outputs);
  for (const [i, out] of outs.entries()) {
    if (out.id !== undefined) {
      for (const input of ins) {
        if (input.id !== undefined && input.id.dev === out.id.dev && input.id.ino === out.id.ino) {
          throw new UsageError(
            `${named(out)} is the same file as ${named(input)}: writing it would destroy what is to be read; write somewhere else`,
          );
        }
      }
    }
    for (const other of outs.slice(0, i)) {
      const sameId =
        out.id !== undefined && other.id !== undefined && out.id.dev === other.id.dev && out.id.ino === other.id.ino;
      if (sameId || out.real === other.real) {
        throw new UsageError(`${named(out)} is the same file as ${named(other)}: give each output its own file`);
      }
    }
  }
}

/**
 * The absolute path of an output file, after checking it can be written and is none of
 * `inputs`; else a UsageError naming the flag (and the input).
 */
export function writableFile(cwd: string, file: string, flag: string, inputs: readonly NamedFile[] = []): string {
  checkOutputsApart(cwd, [{ label: flag, file }], inputs);
  outputsRequested++;
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
  // A socket cannot be opened at all; a FIFO or a device (/dev/null, /dev/stdout) is written as a
  // shell's `>` writes it.
  if (stat?.isSocket()) throw new UsageError(`${name} is a socket, not a file`);
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
