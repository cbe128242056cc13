/**
 * Records for `llmjson batch`, streamed: JSONL files with one record per response (read line
 * by line, never whole), or directories of `.txt` files (one response each, read one at a
 * time). Memory stays flat however large the input.
 */

import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';

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

/** Total bytes of the inputs (for the progress bar's ETA). */
export function inputSize(paths: readonly string[]): number {
  let total = 0;
  for (const path of paths) {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) if (name.endsWith('.txt')) total += statSync(join(path, name)).size;
    } else {
      total += stat.size;
    }
  }
  return total;
}

export async function* readRecords(
  paths: readonly string[],
  fields: FieldOptions,
  onProblem: (problem: InputProblem) => void,
  onBytes: (bytes: number) => void,
): AsyncGenerator<BatchRecord> {
  let index = 0;
  for (const path of paths) {
    if (statSync(path).isDirectory()) {
      const model = basename(path);
      for (const name of readdirSync(path)
        .filter((n) => n.endsWith('.txt'))
        .sort()) {
        const text = readFileSync(join(path, name), 'utf8');
        onBytes(Buffer.byteLength(text));
        yield { index: index++, id: name.slice(0, -4), model, text };
      }
      continue;
    }
    const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
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
