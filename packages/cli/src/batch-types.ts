/**
 * The shapes `llmjson batch` is built from, shared by its stages: reading records in any of the
 * formats evaluation runs produce (batch-formats.ts, batch-records.ts), judging each one
 * (batch-judge.ts, in worker threads), and the report that aggregates the judgements
 * (batch-report.ts), which `llmjson merge` and `llmjson report diff` read back.
 *
 * The result line (`RecordResult`, one per record on `--out`) is the unit of truth: it carries
 * everything the report counts. So a report is a fold over result lines, which is what makes
 * `--resume` (fold the lines already written, then the new ones) and `merge` (fold the shards'
 * folds) give exactly the report of one uninterrupted run.
 *
 * Positions: every item of the input (a non-blank line of a JSONL file, a `.txt` file of a
 * directory), a record or not, has a position in the whole run, counted from 0 over the inputs in
 * the order given. `--shard k/n` and `--resume` work on positions, so they depend only on the
 * inputs, never on timing or on the number of workers.
 */

/** The record layouts `--format` names; `records` is the flat `{id, model, text}` shape. */
export type BatchFormat = 'records' | 'openai-batch' | 'anthropic-batch' | 'lm-eval' | 'bfcl';

export const BATCH_FORMATS: readonly BatchFormat[] = ['records', 'openai-batch', 'anthropic-batch', 'lm-eval', 'bfcl'];

/** One record of the run, as the worker needs it: already lifted out of its format. */
export interface BatchRecord {
  /** Position of the item in the whole run (see the file comment). */
  readonly index: number;
  readonly id: string;
  readonly model: string;
  /** The response text ('' when the record has none). */
  readonly text: string;
  readonly finishReason?: string;
  /**
   * Set when the provider says the request itself failed (a batch entry errored, expired or
   * canceled, an HTTP status of 400 or more): the record is `provider-error`, whatever its text.
   */
  readonly providerError?: string;
  /**
   * `--schema-field`: the record's own schema as found there — an object or boolean schema, a
   * JSON text of one, or a name to resolve through `--schema-root`. Absent without the flag, or
   * when the record has nothing at that path (the record is then `unsupported-schema`).
   */
  readonly schema?: unknown;
  /**
   * When the schema is an object read from a JSONL line: its JSON text exactly as the line writes
   * it (field-path.ts `rawValueAt`), by which a repeated schema is recognised without writing the
   * object out again. A worker parses the schema apart from the rest of the line
   * (batch-records.ts `liftSplit`): the record then has this text and no `schema`.
   */
  readonly schemaText?: string;
}

/**
 * llmjson's statuses for one record.
 * - `provider-error`: the provider reported a failure (see `BatchRecord.providerError`).
 * - `unsupported-schema`: the record's own schema does not compile (or is missing).
 * - `empty`: no text, or only whitespace.
 * - `valid`: the whole text is what the mode asks for, as it stands.
 * - `salvaged`: valid once found by salvage (fences, prose, documented recoveries).
 * - `coerced`: valid once schema-guided coercion repaired it.
 * - `truncated`: cut off (the finish reason says so, or the text ends inside a value).
 * - `invalid`: JSON is there but it fails: a syntax error, or the schema (`keyword`, `path`).
 * - `not-json`: no JSON value in the text at all.
 */
export type RecordStatus =
  | 'valid'
  | 'salvaged'
  | 'coerced'
  | 'truncated'
  | 'invalid'
  | 'not-json'
  | 'empty'
  | 'provider-error'
  | 'unsupported-schema';

export const RECORD_STATUSES: readonly RecordStatus[] = [
  'valid',
  'salvaged',
  'coerced',
  'truncated',
  'invalid',
  'not-json',
  'empty',
  'provider-error',
  'unsupported-schema',
];

/**
 * The three ways the report scores every record, side by side:
 * - `strict`: `JSON.parse` of the whole text, then the schema (what a naive harness does);
 * - `salvage`: llmjson's extraction;
 * - `coerce`: extraction, then schema-guided coercion.
 */
export type Scoring = 'strict' | 'salvage' | 'coerce';

export const SCORINGS: readonly Scoring[] = ['strict', 'salvage', 'coerce'];

/** JSONSchemaBench's per-output codes (and its compile status for a schema it cannot use). */
export type JsonSchemaBenchCode =
  | 'MATCH'
  | 'SYNTAX_ERROR'
  | 'SEMANTIC_ERROR'
  | 'JSON_NOT_FOUND_ERROR'
  | 'EMPTY_INPUT_OR_BAD_FORMAT'
  | 'UNSUPPORTED_SCHEMA';

/** One result line of `--out` (JSON, one per record, in position order within a run). */
export interface RecordResult {
  readonly index: number;
  readonly id: string;
  readonly model: string;
  /** The status under the run's settings: `salvage` scoring by default, `strict` with `--no-salvage`, `coerce` with `--coerce`. */
  readonly status: RecordStatus;
  /** The record's status under each scoring. */
  readonly scores: Readonly<Record<Scoring, RecordStatus>>;
  /** With `--statuses jsonschemabench`: `status` in JSONSchemaBench's vocabulary. */
  readonly jsonschemabench?: JsonSchemaBenchCode;
  /** Usable values found (the document, objects or elements). */
  readonly values: number;
  readonly diagnostics: number;
  /** `invalid` by the schema: the first failing keyword and the JSON Pointer of the value concerned. */
  readonly keyword?: string;
  readonly path?: string;
  /** Why it is not valid, one sentence (a syntax error, the schema's message, the provider's error). */
  readonly message?: string;
  /** Up to 200 characters of the text around the failure, for the report's examples. */
  readonly excerpt?: string;
  /** `--schema-field`: a short hash of the record's schema content (same content, same id). */
  readonly schemaId?: string;
}

/** An input item that is not a record (not JSON, not an object, a text field of the wrong type). */
export interface InputProblem {
  /** Position of the item in the whole run. */
  readonly index: number;
  readonly file: string;
  readonly line: number;
  readonly message: string;
}
