/**
 * Records for `llmjson batch`, streamed: JSONL files with one record per response (read line
 * by line, never whole), or directories of `.txt` files (one response each, read one at a
 * time). Memory stays flat however large the input. Every file is checked before the first
 * is read (`scanInputs`), so a file that cannot be read is a usage error (exit 2), not a
 * failure halfway through the run. Every input must be a regular file (a FIFO would block the
 * run, a device never end), and a `.txt` response, read whole, at most `MAX_RESPONSE_BYTES`.
 *
 * Each line of a JSONL file is lifted out of its format (batch-formats.ts): the one `--format`
 * names, or, without it, the one detected from the file's first record (each file on its own,
 * told to `onFormat`). A line that is not a record of it is a problem, never a crash.
 *
 * Positions: every item, a record or not — each non-blank line of a JSONL file (a problem
 * too), each `.txt` file of a directory — takes the next position, from 0 over the inputs in the
 * order given. `--shard` and `--resume` rely on this: positions depend only on the inputs.
 * A byte-order mark before the first line and CRLF line ends are read as nothing.
 */

/** Largest `.txt` response of a batch directory, in bytes (each is read whole): 64 MiB. */
export const MAX_RESPONSE_BYTES = DEFAULT_MAX_FILE_BYTES;

import { accessSync, constants, createReadStream, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { quoteInput } from '@llmjson/core/internal';
import { detectFormat, type FieldPaths, liftRecord, type ParsedFieldPaths, parseFieldPaths } from './batch-formats.js';
import type { BatchFormat, BatchRecord, InputProblem } from './batch-types.js';
import { UsageError } from './exit-codes.js';
import { fileProblem } from './output-paths.js';
import { DEFAULT_MAX_FILE_BYTES, notRegular, openRegularFile, readRegularText } from './read-file.js';

export type { BatchFormat, BatchRecord, InputProblem } from './batch-types.js';

/** The fields of the first `llmjson batch` (plain names of top-level fields); `ReadOptions` supersedes them. */
export interface FieldOptions {
  /** Field holding the response text; default: `text`, else `output`. */
  readonly textField?: string;
  /** Default `model`. */
  readonly modelField: string;
  /** Default: `id`, else `<file>:<line>`. */
  readonly idField?: string;
}

/** How the records of a run are read. */
export interface ReadOptions {
  /** The format of every file; undefined: detected per file from its first record. */
  readonly format?: BatchFormat;
  /** `--text-field` and the others: a dotted path or a JSON Pointer each (a bad one: UsageError). */
  readonly paths: FieldPaths;
  /** Told once per JSONL file, at its first record, which format its records are read as. */
  readonly onFormat?: (format: FileFormat) => void;
}

/** The format a file is read as (`detected`: from its first record, not from `--format`). */
export interface FileFormat {
  readonly file: string;
  readonly format: BatchFormat;
  readonly detected: boolean;
}

/** One input of a run, checked: a JSONL file of records, or a directory and its `.txt` responses. */
export type BatchInput =
  | { readonly kind: 'records'; readonly path: string; readonly size: number }
  | { readonly kind: 'texts'; readonly path: string; readonly files: readonly TextFile[] };

export interface TextFile {
  readonly name: string;
  readonly size: number;
}

/**
 * Checks every input before anything is read: each named file, and each `.txt` file of each
 * named directory, must exist, be a file and be readable. Throws a UsageError naming the first
 * that is not (a symlink to nothing, a directory called `x.txt`, a file without permission).
 */
export function scanInputs(cwd: string, names: readonly string[]): BatchInput[] {
  const readable = (path: string, name: string) => {
    try {
      accessSync(path, constants.R_OK);
    } catch (error) {
      throw new UsageError(`cannot read ${quoteInput(name)}: ${fileProblem(error)}`);
    }
  };
  return names.map((name) => {
    const path = resolve(cwd, name);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch (error) {
      throw new UsageError(`cannot read ${quoteInput(name)}: ${fileProblem(error)}`);
    }
    readable(path, name);
    if (!stat.isDirectory()) {
      const why = notRegular(stat);
      if (why !== undefined) throw new UsageError(`cannot read ${quoteInput(name)}: ${why}`);
      return { kind: 'records', path, size: stat.size };
    }
    let entries: string[];
    try {
      entries = readdirSync(path);
    } catch (error) {
      throw new UsageError(`cannot read the directory ${quoteInput(name)}: ${fileProblem(error)}`);
    }
    const files = entries
      .filter((n) => n.endsWith('.txt'))
      .sort()
      .map((entry) => {
        const shown = join(name, entry);
        let size: number;
        try {
          const s = statSync(join(path, entry));
          if (s.isDirectory())
            throw new UsageError(`cannot read ${quoteInput(shown)}: it is a directory, not a response`);
          const why = notRegular(s);
          if (why !== undefined) throw new UsageError(`cannot read ${quoteInput(shown)}: ${why}`);
          if (s.size > MAX_RESPONSE_BYTES) {
            throw new UsageError(
              `cannot read ${quoteInput(shown)}: larger than ${MAX_RESPONSE_BYTES} bytes (the limit for a response read whole)`,
            );
          }
          size = s.size;
        } catch (error) {
          if (error instanceof UsageError) throw error;
          throw new UsageError(`cannot read ${quoteInput(shown)}: ${fileProblem(error)}`);
        }
        readable(join(path, entry), shown);
        return { name: entry, size };
      });
    return { kind: 'texts', path, files };
  });
}

/** Total bytes of the inputs (for the progress bar's ETA). */
export function inputSize(inputs: readonly BatchInput[]): number {
  let total = 0;
  for (const input of inputs) {
    if (input.kind === 'records') total += input.size;
    else for (const file of input.files) total += file.size;
  }
  return total;
}

/** The first command's field names as paths: each a top-level field, read as records always were. */
function legacyOptions(fields: FieldOptions): { format: BatchFormat; paths: ParsedFieldPaths } {
  const top = (flag: string, name: string | undefined) =>
    name === undefined ? undefined : { flag, path: name, segments: [name] };
  const text = top('--text-field', fields.textField);
  const id = top('--id-field', fields.idField);
  const model = top('--model-field', fields.modelField);
  return {
    format: 'records',
    paths: {
      ...(text === undefined ? {} : { text }),
      ...(id === undefined ? {} : { id }),
      ...(model === undefined ? {} : { model }),
    },
  };
}

/**
 * The records of the inputs, in order, each with its position (`index`); what is not a record
 * goes to `onProblem` with its position. `onBytes` counts the bytes read (the progress bar).
 */
export async function* readRecords(
  inputs: readonly BatchInput[],
  options: ReadOptions | FieldOptions,
  onProblem: (problem: InputProblem) => void,
  onBytes: (bytes: number) => void,
): AsyncGenerator<BatchRecord> {
  const { format: given, paths } =
    'paths' in options ? { format: options.format, paths: parseFieldPaths(options.paths) } : legacyOptions(options);
  const onFormat = 'paths' in options ? options.onFormat : undefined;
  const liftOptions = { paths, detected: given === undefined };
  let index = 0;
  for (const input of inputs) {
    const path = input.path;
    if (input.kind === 'texts') {
      const model = basename(path);
      for (const { name } of input.files) {
        // Checked again on the open handle: the name may have been swapped since the scan.
        const text = readRegularText(join(path, name), join(basename(path), name), { maxBytes: MAX_RESPONSE_BYTES });
        onBytes(Buffer.byteLength(text));
        yield { index: index++, id: name.slice(0, -4), model, text };
      }
      continue;
    }
    // Streamed, so no cap on its size; but opened without blocking and checked on the handle to
    // be a regular file still (a FIFO swapped in since the scan would block the run).
    const { fd } = openRegularFile(path, basename(path), { maxBytes: Number.POSITIVE_INFINITY });
    const lines = createInterface({ input: createReadStream('', { fd }), crlfDelay: Number.POSITIVE_INFINITY });
    let format = given;
    // Whether onFormat heard of this file: at its first record, detected or given.
    let told = false;
    let lineNumber = 0;
    for await (const raw of lines) {
      lineNumber++;
      const line = lineNumber === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
      onBytes(Buffer.byteLength(raw) + 1);
      if (line.trim() === '') continue;
      const position = index++;
      const problem = (message: string) => onProblem({ index: position, file: path, line: lineNumber, message });
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        problem(`not JSON: ${(error as Error).message}`);
        continue;
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        problem('a record must be a JSON object');
        continue;
      }
      const r = record as Record<string, unknown>;
      if (format === undefined) {
        format = detectFormat(r);
        onFormat?.({ file: path, format, detected: true });
      } else if (!told) onFormat?.({ file: path, format, detected: false });
      told = true;
      const lifted = liftRecord(format, r, { file: path, line: lineNumber }, liftOptions);
      if ('problem' in lifted) {
        problem(lifted.problem);
        continue;
      }
      yield { index: position, ...lifted.record };
    }
  }
}
