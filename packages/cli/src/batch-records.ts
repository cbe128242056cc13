/**
 * Records for `llmjson batch`, streamed: JSONL files with one record per response (read in
 * blocks of whole lines, batch-lines.ts, never whole), or directories of `.txt` files (one response each, read one at a
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

import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { quoteInput } from '@llmjson/core/internal';
import {
  detectFormat,
  type FieldPaths,
  type Lifted,
  type LiftOptions,
  liftRecord,
  type ParsedFieldPaths,
  parseFieldPaths,
  type RecordSource,
} from './batch-formats.js';
import { decodeBlock, forEachLine, isBlankLine, readBlocks } from './batch-lines.js';
import { ownCopy } from './batch-schemas.js';
import type { BatchFormat, BatchRecord, InputProblem } from './batch-types.js';
import { UsageError } from './exit-codes.js';
import { firstSpanAt, valueAt } from './field-path.js';
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
  | {
      readonly kind: 'records';
      readonly path: string;
      readonly size: number;
      /**
       * The file the scan found (its device, inode and time of last change): a file put in its
       * place since is refused.
       */
      readonly file?: { readonly dev: number; readonly ino: number; readonly mtimeMs: number };
    }
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
      return { kind: 'records', path, size: stat.size, file: { dev: stat.dev, ino: stat.ino, mtimeMs: stat.mtimeMs } };
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

/** Why a line is not a record: it is not JSON, or not a JSON object. */
function notAnObject(line: string): { readonly problem: string } | { readonly record: Record<string, unknown> } {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return { problem: 'a record must be a JSON object' };
  }
  return { record: record as Record<string, unknown> };
}

/**
 * One line of a JSONL input as a record of `format` (batch-formats.ts `liftRecord`), or why it
 * is not one. Never throws. The reader (`readRecords`) and the workers (batch-block.ts) lift each
 * line with it.
 */
export function liftLine(line: string, format: BatchFormat, source: RecordSource, options: LineLiftOptions): Lifted {
  const schemaPath = options.paths?.schema;
  if (options.splitSchema === true && schemaPath !== undefined) {
    const span = firstSpanAt(line, schemaPath.segments, knownSchemaEnd);
    if (span !== undefined && line.charCodeAt(span[0]) === 0x7b) {
      const split = liftSplit(line, span, schemaPath.segments, format, source, options);
      if (split !== undefined) return split;
    }
  }
  const parsed = notAnObject(line);
  if ('problem' in parsed) return parsed;
  return liftRecord(format, parsed.record, { file: source.file, line: source.line, json: line }, options);
}

export interface LineLiftOptions extends LiftOptions {
  /**
   * Parse a line's object schema apart (`splitSchemaAllowed`): the record then carries the
   * schema as its text only (`schemaText`, no `schema`), and a schema met before costs no parse.
   */
  readonly splitSchema?: boolean;
}

/**
 * Top-level fields whose values some format reads (batch-formats.ts; `test/batch-records.test.ts`
 * checks every format against this list). A schema under any other field can be parsed apart.
 */
export const FIELDS_FORMATS_READ: ReadonlySet<string> = new Set([
  'custom_id',
  'doc_id',
  'error',
  'filtered_resps',
  'finish_reason',
  'id',
  'model',
  'output',
  'response',
  'resps',
  'result',
  'stop_reason',
  'text',
]);

/**
 * Whether `--schema-field` can be parsed apart from the rest of each line: no format reads its
 * top-level field, and no other field path is inside it or holds it.
 */
export function splitSchemaAllowed(paths: ParsedFieldPaths): boolean {
  const schema = paths.schema?.segments;
  if (schema === undefined || FIELDS_FORMATS_READ.has(schema[0] as string)) return false;
  for (const other of [paths.text, paths.id, paths.model, paths.finish]) {
    if (other === undefined) continue;
    const shared = Math.min(other.segments.length, schema.length);
    if (other.segments.slice(0, shared).every((segment, i) => segment === schema[i])) return false;
  }
  return true;
}

/**
 * Schema texts known to be JSON objects (each parsed once), so that a repeat is neither parsed
 * again nor scanned for its end: a text of at least `PROBE_LENGTH` characters is found by its
 * first `PROBE_LENGTH` characters (a bucket of at most `MAX_BUCKET` texts each), then compared
 * whole where the line has it. Bounded by characters; past the bound they are forgotten at once.
 * A text that matches at a value's start is that value (a JSON object text is no prefix of
 * another value), so its end needs no scan.
 */
const knownSchemaTexts = new Map<string, string[]>();
let knownCharacters = 0;
const MAX_KNOWN_CHARACTERS = 4 * 1024 * 1024;
const PROBE_LENGTH = 128;
const MAX_BUCKET = 8;

/** The known schema text that starts at `at` in `line`, or undefined. */
function knownSchemaAt(line: string, at: number): string | undefined {
  if (line.length - at < PROBE_LENGTH || line.charCodeAt(at) !== 0x7b) return undefined;
  const bucket = knownSchemaTexts.get(line.slice(at, at + PROBE_LENGTH));
  if (bucket === undefined) return undefined;
  // A slice compared with ===, not startsWith(text, at): on Node 20 that is about 20 times slower
  // for a schema of 250 characters.
  for (const text of bucket) if (line.slice(at, at + text.length) === text) return text;
  return undefined;
}

/** The last text `knownSchemaEnd` found, and where: `liftSplit` takes it without a second probe. */
let lastFound: { line: string; at: number; text: string } | undefined;

/** `firstSpanAt`'s `leafEnd`: the end of a known schema text at `at`, else -1 (scan). */
function knownSchemaEnd(line: string, at: number): number {
  const text = knownSchemaAt(line, at);
  if (text === undefined) return -1;
  lastFound = { line, at, text };
  return at + text.length;
}

/** `text`, as the one copy kept when it is a JSON object (remembered), else undefined. */
function knownJsonObject(text: string): string | undefined {
  if (text.length >= PROBE_LENGTH) {
    const bucket = knownSchemaTexts.get(text.slice(0, PROBE_LENGTH));
    const known = bucket?.find((candidate) => candidate === text);
    if (known !== undefined) return known;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  // Short texts are not kept (a scan is cheap), nor long ones (an eighth of the bound, 512 Ki
  // characters): one huge schema must not take the cache, nor be copied.
  if (text.length < PROBE_LENGTH || text.length > MAX_KNOWN_CHARACTERS / 8) return text;
  if (knownCharacters + text.length > MAX_KNOWN_CHARACTERS) {
    knownSchemaTexts.clear();
    knownCharacters = 0;
  }
  // Kept as a copy of its own: the slice would keep the whole block it came from (ownCopy).
  const kept = ownCopy(text);
  const probe = kept.slice(0, PROBE_LENGTH);
  let bucket = knownSchemaTexts.get(probe);
  if (bucket === undefined) {
    bucket = [];
    knownSchemaTexts.set(probe, bucket);
  }
  if (bucket.length >= MAX_BUCKET) return text;
  bucket.push(kept);
  knownCharacters += kept.length;
  return kept;
}

/**
 * What `liftSplit` writes in the schema's place: a JSON string no input can be expected to hold
 * (random per process). Found there once the line is parsed, it proves that the span was the
 * last key of its name at each level of the path, the one JSON.parse keeps.
 */
const SENTINEL = `\u0000llmjson-schema-${randomBytes(8).toString('hex')}`;
const SENTINEL_JSON = JSON.stringify(SENTINEL);

/**
 * A line lifted with its schema (at `span`, an object) parsed apart: the rest of the line with a
 * sentinel in the schema's place, and the schema's text checked to be JSON (once per distinct
 * text). Both parse exactly when the whole line does, and no format reads the schema's field
 * (`splitSchemaAllowed`), so the record is the one `liftLine` would give, with `schemaText` for
 * `schema`. Undefined when either part does not parse, or the sentinel is not where it was
 * written (a key of the path is repeated later in the line, and JSON.parse keeps the later one):
 * the whole line is then parsed.
 */
function liftSplit(
  line: string,
  [start, end]: readonly [number, number],
  path: readonly string[],
  format: BatchFormat,
  source: RecordSource,
  options: LineLiftOptions,
): Lifted | undefined {
  let rest: unknown;
  try {
    rest = JSON.parse(`${line.slice(0, start)}${SENTINEL_JSON}${line.slice(end)}`);
  } catch {
    return undefined;
  }
  if (typeof rest !== 'object' || rest === null || Array.isArray(rest) || valueAt(rest, path) !== SENTINEL) {
    return undefined;
  }
  const found = lastFound;
  lastFound = undefined;
  const schemaText =
    found !== undefined && found.line === line && found.at === start && found.text.length === end - start
      ? found.text
      : knownJsonObject(line.slice(start, end));
  if (schemaText === undefined) return undefined;
  return liftRecord(
    format,
    rest as Record<string, unknown>,
    { file: source.file, line: source.line, schemaText },
    options,
  );
}

/** The format a file's first record shows, when `line` is a record (a JSON object); else undefined. */
export function lineFormat(line: string): BatchFormat | undefined {
  const parsed = notAnObject(line);
  return 'problem' in parsed ? undefined : detectFormat(parsed.record);
}

/**
 * The records of the inputs, in order, each with its position (`index`); what is not a record
 * goes to `onProblem` with its position. `onBytes` counts the bytes read (the progress bar).
 * `llmjson batch` itself reads JSONL inputs in blocks handed to its workers (batch-block.ts);
 * this is the same reading, record by record, on one thread.
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
      for (const record of readTexts(input, index, onBytes)) {
        index++;
        yield record;
      }
      continue;
    }
    const { fd } = openRecordsFile(input);
    let format = given;
    let told = false;
    let lineNumber = 0;
    try {
      for await (const { bytes } of readBlocks(fd, onBytes)) {
        const text = decodeBlock(bytes);
        const items: ({ problem: InputProblem } | { record: BatchRecord })[] = [];
        forEachLine(text, (start, end) => {
          lineNumber++;
          if (isBlankLine(text, start, end)) return;
          const position = index++;
          const line = text.slice(start, end);
          if (!told) {
            const found = lineFormat(line);
            if (found !== undefined) {
              format ??= found;
              onFormat?.({ file: path, format, detected: given === undefined });
              told = true;
            }
          }
          const lifted = liftLine(line, format ?? 'records', { file: path, line: lineNumber }, liftOptions);
          if ('problem' in lifted) {
            items.push({ problem: { index: position, file: path, line: lineNumber, message: lifted.problem } });
          } else items.push({ record: { index: position, ...lifted.record } });
        });
        for (const item of items) {
          if ('problem' in item) onProblem(item.problem);
          else yield item.record;
        }
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** The responses of a directory of `.txt` files as records, from position `first` on. */
export function* readTexts(
  input: Extract<BatchInput, { kind: 'texts' }>,
  first: number,
  onBytes: (bytes: number) => void,
): Generator<BatchRecord> {
  for (const entry of textEntries(input, first)) {
    const record = readText(entry);
    onBytes(Buffer.byteLength(record.text));
    yield record;
  }
}

/** A `.txt` response of a directory, not read yet: where it is and the record it will be. */
export interface TextEntry {
  readonly index: number;
  readonly path: string;
  /** As messages name it: the directory's name, then the file's. */
  readonly shown: string;
  readonly id: string;
  readonly model: string;
  /** Its size when the directory was scanned. */
  readonly size: number;
}

/** The `.txt` responses of a directory, from position `first` on, without reading them. */
export function* textEntries(input: Extract<BatchInput, { kind: 'texts' }>, first: number): Generator<TextEntry> {
  const model = basename(input.path);
  let index = first;
  for (const { name, size } of input.files) {
    yield {
      index: index++,
      path: join(input.path, name),
      shown: join(model, name),
      id: name.slice(0, -4),
      model,
      size,
    };
  }
}

/** The record of a `.txt` response: its file read whole. */
export function readText(entry: TextEntry): BatchRecord {
  // Checked again on the open handle: the name may have been swapped since the scan.
  const text = readRegularText(entry.path, entry.shown, { maxBytes: MAX_RESPONSE_BYTES });
  return { index: entry.index, id: entry.id, model: entry.model, text };
}

/**
 * A JSONL input opened for reading. Streamed, so no cap on its size; but opened without blocking
 * and checked on the handle to be a regular file still (a FIFO swapped in since the scan would
 * block the run). The caller closes the descriptor.
 */
export function openRecordsFile(input: Extract<BatchInput, { kind: 'records' }>): { readonly fd: number } {
  return openRegularFile(input.path, basename(input.path), { maxBytes: Number.POSITIVE_INFINITY });
}
