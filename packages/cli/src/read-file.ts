/**
 * Files the command reads whole (a schema, a prompt configuration, template variables, a tools
 * file, a response of a batch directory) are read by `readRegularFile` only: the file must be a
 * regular file, and at most `maxBytes` long (default `DEFAULT_MAX_FILE_BYTES`, 64 MiB). A FIFO
 * would block until a writer comes and then never end; `/dev/zero` never ends at all; either
 * would grow memory without bound before anything else happened. Past either check the command
 * stops with one line and exit 2 (a UsageError), before any input is read.
 *
 * The checks are made on the opened handle (`fstat`), not on the path, so a path swapped for
 * something else between the check and the read is still caught; the open is non-blocking, so
 * a FIFO without a writer does not stall it; and at most `maxBytes + 1` bytes are ever read, so
 * a file that grows while it is read cannot get past the cap either.
 */

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { quoteInput } from '@llmjson/core/internal';
import { UsageError } from './exit-codes.js';
import { fileProblem } from './output-paths.js';

/** Default cap on a file read whole, in bytes: 64 MiB (the same as json's `--max-length` in characters). */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** `O_NONBLOCK` where the platform has it: opening a FIFO for reading then returns at once. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A file that cannot be read whole: one line, exit 2. `code` is the file system's (`ENOENT`…), or why it was refused. */
export class UnreadableFileError extends UsageError {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** What kind of file `stat` describes, as a message says it ("a FIFO"), when it is not a regular file. */
export function fileKind(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

/** Why a file of this kind is refused, or undefined for a regular file. */
export function notRegular(stat: Stats): string | undefined {
  if (stat.isFile()) return undefined;
  return stat.isDirectory() ? 'it is a directory' : `it is not a regular file (${fileKind(stat)})`;
}

export interface ReadFileOptions {
  /** How the file is named in a message, before the quoted name: `--prompts`, `cannot read`… Default `cannot read`. */
  readonly label?: string;
  /** Largest file read, in bytes. Default `DEFAULT_MAX_FILE_BYTES`. */
  readonly maxBytes?: number;
}

/**
 * Opens `path` for reading without blocking and checks on the handle that it is a regular file
 * of at most `maxBytes`. Returns the descriptor (the caller closes it) and its size. Throws an
 * UnreadableFileError naming `shown` (the name as the user gave it).
 */
export function openRegularFile(
  path: string,
  shown: string,
  options: ReadFileOptions = {},
): { fd: number; size: number } {
  const label = options.label ?? 'cannot read';
  const fail = (why: string, code: string): never => {
    throw new UnreadableFileError(`${label} ${quoteInput(shown)}: ${why}`, code);
  };
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return fail(fileProblem(error), (error as NodeJS.ErrnoException).code ?? 'EIO');
  }
  try {
    const stat = fstatSync(fd);
    const why = notRegular(stat);
    if (why !== undefined) fail(why, stat.isDirectory() ? 'EISDIR' : 'NOT_REGULAR');
    const max = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (stat.size > max) fail(tooLarge(max), 'TOO_LARGE');
    return { fd, size: stat.size };
  } catch (error) {
    closeSync(fd);
    if (error instanceof UnreadableFileError) throw error;
    return fail(fileProblem(error), (error as NodeJS.ErrnoException).code ?? 'EIO');
  }
}

function tooLarge(max: number): string {
  return `larger than ${max} bytes (the limit for a file read whole)`;
}

/**
 * The whole content of a regular file of at most `maxBytes` bytes (see the file's comment).
 * Reads at most `maxBytes + 1` bytes whatever the file claims, so one that grows is caught too.
 */
export function readRegularFile(path: string, shown: string, options: ReadFileOptions = {}): Buffer {
  const max = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const { fd, size } = openRegularFile(path, shown, options);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    // The size fstat gave, plus one byte to see whether the file grew past the cap since.
    let chunk = Buffer.allocUnsafe(Math.min(max + 1, Math.max(size + 1, 4096)));
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, Math.min(chunk.length, max + 1 - total), null);
      } catch (error) {
        throw new UnreadableFileError(
          `${options.label ?? 'cannot read'} ${quoteInput(shown)}: ${fileProblem(error)}`,
          (error as NodeJS.ErrnoException).code ?? 'EIO',
        );
      }
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > max) {
        throw new UnreadableFileError(
          `${options.label ?? 'cannot read'} ${quoteInput(shown)}: ${tooLarge(max)}`,
          'TOO_LARGE',
        );
      }
      if (n === chunk.length) chunk = Buffer.allocUnsafe(Math.min(max + 1 - total, 1 << 20) || 1);
      else chunk = chunk.subarray(n);
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** `readRegularFile` as UTF-8 text (a BOM is kept: callers that tolerate one strip it). */
export function readRegularText(path: string, shown: string, options: ReadFileOptions = {}): string {
  return readRegularFile(path, shown, options).toString('utf8');
}
