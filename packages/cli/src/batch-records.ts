/**
 * Records for `llmjson batch`, streamed: JSONL files with one record per response (read line
 * by line, never whole), or directories of `.txt` files (one response each, read one at a
 * time). Memory stays flat however large the input. Every file is checked before the first
 * is read (`scanInputs`), so a file that cannot be read is a usage error (exit 2), not a
 * failure halfway through the run. Every input must be a regular file (a FIFO would block the
 * run, a device never end), and a `.txt` response, read whole, at most `MAX_RESPONSE_BYTES`.
 */

/** Largest `.txt` response of a batch directory, in bytes (each is read whole): 64 MiB. */
export const MAX_RESPONSE_BYTES = DEFAULT_MAX_FILE_BYTES;

import { accessSync, constants, createReadStream, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { quoteInput } from '@llmjson/core/internal';
import { UsageError } from './exit-codes.js';
import { fileProblem } from './output-paths.js';
import { DEFAULT_MAX_FILE_BYTES, notRegular, openRegularFile, readRegularText } from './read-file.js';

export interface BatchRecord {
  /** Position in the whole run, from 0. */
  readonly index: number;
  readonly id: string;
  readonly model: string;
  readonly text: string;
  readonly finishReason?: string;
}

export interface FieldOptions {
  /** Field holding the response text; default: `text`, else `output`. */
  readonly textField?: string;
  /** Default `model`. */
  readonly modelField: string;
  /** Default: `id`, else `<file>:<line>`. */
  readonly idField?: string;
}

export interface InputProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

function field(record: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
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

export async function* readRecords(
  inputs: readonly BatchInput[],
  fields: FieldOptions,
  onProblem: (problem: InputProblem) => void,
  onBytes: (bytes: number) => void,
): AsyncGenerator<BatchRecord> {
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
    let lineNumber = 0;
    for await (const raw of lines) {
      lineNumber++;
      const line = lineNumber === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
      onBytes(Buffer.byteLength(raw) + 1);
      if (line.trim() === '') continue;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        onProblem({ file: path, line: lineNumber, message: `not JSON: ${(error as Error).message}` });
        continue;
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        onProblem({ file: path, line: lineNumber, message: 'a record must be a JSON object' });
        continue;
      }
      const r = record as Record<string, unknown>;
      const text =
        fields.textField === undefined ? (field(r, 'text') ?? field(r, 'output')) : field(r, fields.textField);
      if (text !== undefined && text !== null && typeof text !== 'string') {
        onProblem({ file: path, line: lineNumber, message: `the text field is ${typeof text}, not a string` });
        continue;
      }
      const id = field(r, fields.idField ?? 'id');
      const model = field(r, fields.modelField);
      const finish = field(r, 'finish_reason') ?? field(r, 'stop_reason');
      yield {
        index: index++,
        id: id === undefined ? `${basename(path)}:${lineNumber}` : String(id),
        model: model === undefined || model === null ? 'unknown' : String(model),
        text: typeof text === 'string' ? text : '',
        ...(typeof finish === 'string' ? { finishReason: finish } : {}),
      };
    }
  }
}
