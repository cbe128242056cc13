/**
 * The record formats of `llmjson batch`: what one parsed JSON line of each file kind means, lifted
 * into the fields of a `BatchRecord` (id, model, text, finish reason, provider error, schema).
 *
 * - `openai-batch`: OpenAI Batch output and error lines (`{id, custom_id, response: {status_code,
 *   body}, error}`), with a Chat Completions body (`choices[0].message.content`, else the first
 *   tool call's `function.arguments`; `choices[0].text` of the Completions endpoint) or a
 *   Responses body (`output[].content[]` of type `output_text`, else a `function_call`'s
 *   arguments; `status: incomplete` gives `incomplete_details.reason` as the finish reason).
 *   Together, Mistral, OpenRouter and other OpenAI-compatible batch APIs write the same line;
 *   their extra fields (`usage`, `prompt`, a message's `reasoning`/`reasoning_content`, …) are
 *   not the answer and are ignored. An error line (`response: null` and an `error`), a status of
 *   400 or more, or a body's `error` is a provider error.
 * - `anthropic-batch`: Message Batches results (`{custom_id, result: {type, message | error}}`);
 *   the text blocks joined, else the first `tool_use` block's `input` as JSON text. `errored`,
 *   `canceled` and `expired` are provider errors.
 * - `lm-eval`: lm-evaluation-harness `--log_samples` lines (`{doc_id, doc, resps,
 *   filtered_resps, …}`); the text is `filtered_resps[0]` (a string, or a one-element list of
 *   one), else `resps[0][0]`. No model is in the record: lm-eval writes
 *   `<output_path>/<model name, sanitised>/samples_<task>_<date>.jsonl`, so it is the name of
 *   the file's directory.
 * - `bfcl`: Berkeley Function Calling Leaderboard result lines (`{id, result, …}`, JSON Lines in
 *   a `.json` file); `result` as it is when a string, else its JSON text. An entry whose result
 *   is BFCL's `Error during inference: …` is a provider error. The model is the directory BFCL
 *   wrote the file in: `result/<model>/BFCL_v3_<category>_result.json`, or in v4
 *   `result/<model>/<group>/BFCL_v4_<category>_result.json` (the group folders — `non_live`,
 *   `live`, `multi_turn`, `agentic` with its `memory/<backend>`, `format_sensitivity` — are
 *   skipped).
 * - `records`: the flat shape (`text`, else `output`; `id`; `model`; `finish_reason`, else
 *   `stop_reason`).
 *
 * The field paths (`--text-field`, `--id-field`, `--model-field`, `--finish-field`,
 * `--schema-field`) override a format's own place for that field; the format still decides what a
 * provider error is.
 *
 * Invariants:
 * - Lifting never throws, whatever the record holds (`__proto__` keys, huge or deeply nested
 *   values, fields of the wrong type): it returns the fields or a problem, one sentence saying what
 *   is wrong and what to do. Fields are read as own data properties only (field-path.ts).
 * - Detection never guesses wrong silently: a file's format is detected from its first record,
 *   and each later record must fit it; one that does not (another format's envelope, or the
 *   detected format's fields missing) is a problem naming the format and what is missing, not a
 *   record with a wrong or empty text.
 */

import { basename, dirname } from 'node:path';
import type { BatchFormat, BatchRecord } from './batch-types.js';
import { parseFieldPath, rawValueAt, valueAt } from './field-path.js';

/** The field paths of the flags, as given (a dotted path or a JSON Pointer each). */
export interface FieldPaths {
  readonly text?: string;
  readonly id?: string;
  readonly model?: string;
  readonly finish?: string;
  readonly schema?: string;
}

/** One field path, parsed: its flag and text (for messages) and its segments. */
export interface FieldPath {
  readonly flag: string;
  readonly path: string;
  readonly segments: readonly string[];
}

/** The field paths parsed (`parseFieldPaths`). */
export interface ParsedFieldPaths {
  readonly text?: FieldPath;
  readonly id?: FieldPath;
  readonly model?: FieldPath;
  readonly finish?: FieldPath;
  readonly schema?: FieldPath;
}

const FLAGS = {
  text: '--text-field',
  id: '--id-field',
  model: '--model-field',
  finish: '--finish-field',
  schema: '--schema-field',
} as const;

/** Parses every path given; a bad one is a UsageError naming its flag (call it before reading anything). */
export function parseFieldPaths(paths: FieldPaths): ParsedFieldPaths {
  const parsed: Record<string, FieldPath> = {};
  for (const key of Object.keys(FLAGS) as (keyof FieldPaths)[]) {
    const path = paths[key];
    if (path !== undefined) parsed[key] = { flag: FLAGS[key], path, segments: parseFieldPath(FLAGS[key], path) };
  }
  return parsed as ParsedFieldPaths;
}

/** A record's fields, before its position is known. */
export type LiftedRecord = Omit<BatchRecord, 'index'>;

/** One line's lifting: the record's fields, or why it is not a record of the format. */
export type Lifted = { readonly record: LiftedRecord } | { readonly problem: string };

/** Where a record comes from: its file (the model of lm-eval and BFCL files) and line (a missing id). */
export interface RecordSource {
  readonly file: string;
  readonly line: number;
  /** The line's JSON text, when the record was parsed from one. */
  readonly json?: string;
  /** The schema's text, when it was parsed apart from the line (batch-records.ts `liftSplit`). */
  readonly schemaText?: string;
}

export interface LiftOptions {
  readonly paths?: ParsedFieldPaths;
  /**
   * The format was detected from the file's first record (not given with `--format`): a record
   * that looks like another format is then a problem, even where the format would accept it.
   */
  readonly detected?: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property of an object (never inherited), as `valueAt(value, [key])` without the array. */
function own(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
    ? (value as Json)[key]
    : undefined;
}

function has(record: Json, key: string): boolean {
  return Object.hasOwn(record, key);
}

/**
 * The format of a file, from its first record. `records` when nothing else fits. The checks are on
 * each format's envelope, the fields every line of it has, so that any line of such a file is
 * recognised, whether it succeeded or not.
 */
export function detectFormat(record: Record<string, unknown>): BatchFormat {
  if (has(record, 'custom_id')) {
    const result = own(record, 'result');
    if (isObject(result) && typeof own(result, 'type') === 'string') return 'anthropic-batch';
    if (has(record, 'response') || has(record, 'error')) return 'openai-batch';
  }
  if (has(record, 'doc_id') && (has(record, 'filtered_resps') || has(record, 'resps'))) return 'lm-eval';
  if (has(record, 'id') && has(record, 'result') && !has(record, 'text') && !has(record, 'output')) return 'bfcl';
  return 'records';
}

/** How a value's type is named in a message. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** JSON text of a value, or undefined when it has none (too deep to serialise, a bigint). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** An id as text: strings as they are, numbers and booleans printed, anything else its JSON. */
function idText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return jsonText(value);
}

/** The one sentence of a provider's error object: `type: message`, `code: message`, or its JSON. */
function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (!isObject(error)) return jsonText(error) ?? 'an error';
  // Anthropic wraps the error: {type: 'error', error: {type, message}}.
  const inner = own(error, 'error');
  if (isObject(inner)) return errorText(inner);
  const message = own(error, 'message');
  const kind = own(error, 'type') ?? own(error, 'code');
  if (typeof message === 'string') return typeof kind === 'string' && kind !== '' ? `${kind}: ${message}` : message;
  return jsonText(error) ?? 'an error';
}

/** Why a record does not fit its format. */
class Misfit {
  constructor(readonly message: string) {}
}

function misfit(format: BatchFormat, what: string, detected: boolean): Misfit {
  return new Misfit(
    detected
      ? `does not fit the ${format} format detected from the file's first record: ${what} (give --format, or split the file by format)`
      : `does not fit --format ${format}: ${what}`,
  );
}

/**
 * Fields a format lifts from its own places, before the flags' paths override them. One shape
 * for every record (all fields present from the start): lifting a million records then costs a few
 * property stores each, not an object spread per step.
 */
class FormatFields {
  id: string | undefined = undefined;
  model: string | undefined = undefined;
  text: string | undefined = undefined;
  finishReason: string | undefined = undefined;
  providerError: string | undefined = undefined;
  /**
   * Only the text does not fit (a field of the wrong type, or none): a problem, unless a
   * `--text-field` path stands in for it. A wrong envelope is a `Misfit` returned instead.
   */
  textMisfit: Misfit | undefined = undefined;
}

/** Fills `fields` from the record; returns a Misfit when the record's envelope is not the format's. */
type Lifter = (record: Json, fields: FormatFields, source: RecordSource, detected: boolean) => Misfit | undefined;

/** Chat Completions content: a string, or a list of parts whose text parts are joined. */
function contentText(content: unknown, where: string, detected: boolean): string | undefined | Misfit {
  if (content === undefined || content === null) return undefined;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    let text: string | undefined;
    for (const part of content) {
      const value = own(part, 'text');
      if (typeof value === 'string') text = (text ?? '') + value;
    }
    return text;
  }
  return misfit('openai-batch', `${where} is ${typeName(content)}, not a string`, detected);
}

/** A Chat Completions (or Completions) body's text and finish reason; a Misfit when only the text does not fit. */
function chatCompletion(body: Json, fields: FormatFields, detected: boolean): Misfit | undefined {
  const choices = own(body, 'choices');
  if (!Array.isArray(choices)) {
    return misfit('openai-batch', `response.body.choices is ${typeName(choices)}, not a list`, detected);
  }
  const choice: unknown = choices[0];
  if (choice === undefined) {
    fields.text = '';
    return undefined;
  }
  if (!isObject(choice)) {
    return misfit('openai-batch', `response.body.choices[0] is ${typeName(choice)}, not an object`, detected);
  }
  const finish = own(choice, 'finish_reason');
  if (typeof finish === 'string') fields.finishReason = finish;
  const message = own(choice, 'message');
  if (!isObject(message)) {
    // The Completions endpoint: {choices: [{text}]}.
    const text = own(choice, 'text');
    if (typeof text === 'string') fields.text = text;
    else if (message === undefined || message === null) fields.text = '';
    else {
      return misfit(
        'openai-batch',
        `response.body.choices[0].message is ${typeName(message)}, not an object`,
        detected,
      );
    }
    return undefined;
  }
  const content = contentText(own(message, 'content'), 'response.body.choices[0].message.content', detected);
  if (content instanceof Misfit) return content;
  if (content !== undefined && content !== '') {
    fields.text = content;
    return undefined;
  }
  // A tool-call answer: the structured output is the first call's arguments.
  const call =
    valueAt(message, ['tool_calls', '0', 'function', 'arguments']) ?? valueAt(message, ['function_call', 'arguments']);
  fields.text = typeof call === 'string' ? call : (content ?? '');
  return undefined;
}

/** A Responses body's text (its output_text parts, else a function call's arguments) and finish reason. */
function responsesBody(body: Json, fields: FormatFields, detected: boolean): Misfit | undefined {
  const output = own(body, 'output');
  if (!Array.isArray(output)) {
    return misfit('openai-batch', `response.body.output is ${typeName(output)}, not a list`, detected);
  }
  let text: string | undefined;
  let call: string | undefined;
  for (const item of output) {
    const content = own(item, 'content');
    if (Array.isArray(content)) {
      for (const part of content) {
        const value = own(part, 'text');
        if (own(part, 'type') === 'output_text' && typeof value === 'string') text = (text ?? '') + value;
      }
    }
    const args = own(item, 'arguments');
    if (call === undefined && own(item, 'type') === 'function_call' && typeof args === 'string') call = args;
  }
  fields.text = text ?? call ?? '';
  if (own(body, 'status') === 'incomplete') {
    const reason = own(own(body, 'incomplete_details'), 'reason');
    fields.finishReason = typeof reason === 'string' ? reason : 'incomplete';
  }
  return undefined;
}

const openaiBatch: Lifter = (record, fields, _source, detected) => {
  if (!has(record, 'response') && !has(record, 'error')) {
    return misfit('openai-batch', 'it has neither "response" nor "error"', detected);
  }
  fields.id = idText(own(record, 'custom_id')) ?? idText(own(record, 'id'));
  const response = own(record, 'response');
  const body = own(response, 'body');
  const model = own(body, 'model');
  if (typeof model === 'string') fields.model = model;
  const error = own(record, 'error');
  if (error !== undefined && error !== null) {
    fields.providerError = errorText(error);
    return undefined;
  }
  if (response === undefined || response === null) {
    return misfit('openai-batch', '"response" and "error" are both null', detected);
  }
  if (!isObject(response)) {
    return misfit('openai-batch', `"response" is ${typeName(response)}, not an object`, detected);
  }
  const status = own(response, 'status_code');
  const bodyError = own(body, 'error');
  if (typeof status === 'number' && status >= 400) {
    const why = bodyError === undefined || bodyError === null ? '' : `: ${errorText(bodyError)}`;
    fields.providerError = `HTTP status ${status}${why}`;
  } else if (bodyError !== undefined && bodyError !== null) {
    fields.providerError = errorText(bodyError);
  } else if (!isObject(body)) {
    fields.textMisfit = misfit('openai-batch', `response.body is ${typeName(body)}, not an object`, detected);
  } else {
    fields.textMisfit =
      has(body, 'output') || own(body, 'object') === 'response'
        ? responsesBody(body, fields, detected)
        : chatCompletion(body, fields, detected);
  }
  return undefined;
};

const anthropicBatch: Lifter = (record, fields, _source, detected) => {
  const result = own(record, 'result');
  const type = own(result, 'type');
  if (!isObject(result) || typeof type !== 'string') {
    return misfit('anthropic-batch', 'it has no "result" with a "type"', detected);
  }
  fields.id = idText(own(record, 'custom_id'));
  const message = own(result, 'message');
  const model = own(message, 'model');
  if (typeof model === 'string') fields.model = model;
  switch (type) {
    case 'errored':
      fields.providerError = `errored: ${errorText(own(result, 'error'))}`;
      return undefined;
    case 'canceled':
      fields.providerError = 'canceled: the batch was canceled before this request was processed';
      return undefined;
    case 'expired':
      fields.providerError = 'expired: the batch ended before this request was processed';
      return undefined;
    case 'succeeded':
      break;
    default:
      return misfit(
        'anthropic-batch',
        `result.type is ${JSON.stringify(type.slice(0, 40))}, not succeeded, errored, canceled or expired`,
        detected,
      );
  }
  if (!isObject(message)) {
    fields.textMisfit = misfit('anthropic-batch', `result.message is ${typeName(message)}, not an object`, detected);
    return undefined;
  }
  const stop = own(message, 'stop_reason');
  if (typeof stop === 'string') fields.finishReason = stop;
  const content = own(message, 'content');
  if (!Array.isArray(content)) {
    fields.textMisfit = misfit(
      'anthropic-batch',
      `result.message.content is ${typeName(content)}, not a list`,
      detected,
    );
    return undefined;
  }
  let text: string | undefined;
  let toolInput: unknown;
  for (const block of content) {
    const value = own(block, 'text');
    const kind = own(block, 'type');
    if (kind === 'text' && typeof value === 'string') text = (text ?? '') + value;
    else if (kind === 'tool_use' && toolInput === undefined) toolInput = own(block, 'input');
  }
  if (text === undefined && toolInput !== undefined) {
    text = jsonText(toolInput);
    if (text === undefined) {
      fields.textMisfit = misfit(
        'anthropic-batch',
        'the tool_use input cannot be written as JSON (nested too deep)',
        detected,
      );
      return undefined;
    }
  }
  fields.text = text ?? '';
  return undefined;
};

/** An lm-eval response: a string, or a one-element list of a string (filters keep lists). */
function firstText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

const lmEval: Lifter = (record, fields, source, detected) => {
  if (!has(record, 'doc_id') || !(has(record, 'filtered_resps') || has(record, 'resps'))) {
    return misfit('lm-eval', 'it has no "doc_id" and "filtered_resps" or "resps"', detected);
  }
  fields.model = basename(dirname(source.file));
  fields.id = idText(own(record, 'doc_id'));
  fields.text = firstText(valueAt(record, ['filtered_resps', '0'])) ?? firstText(valueAt(record, ['resps', '0']));
  if (fields.text === undefined) {
    fields.textMisfit = misfit(
      'lm-eval',
      'filtered_resps[0] and resps[0][0] hold no generated text (only generate_until tasks have one; a loglikelihood task logs numbers)',
      detected,
    );
  }
  return undefined;
};

/** BFCL v4's grouping folders under a model's result folder (bfcl_eval's get_directory_structure). */
const BFCL_GROUPS = new Set(['non_live', 'live', 'multi_turn', 'agentic', 'format_sensitivity']);

/** The model folder of a BFCL result file: its directory, past v4's group folders. */
export function bfclModel(file: string): string {
  let dir = dirname(file);
  // agentic/memory/<backend>: the memory categories' folders.
  if (basename(dirname(dir)) === 'memory' && basename(dirname(dirname(dir))) === 'agentic') dir = dirname(dirname(dir));
  if (BFCL_GROUPS.has(basename(dir))) dir = dirname(dir);
  return basename(dir);
}

const BFCL_ERROR = 'Error during inference: ';

const bfcl: Lifter = (record, fields, source, detected) => {
  if (!has(record, 'id') || !has(record, 'result')) return misfit('bfcl', 'it has no "id" and "result"', detected);
  fields.model = bfclModel(source.file);
  fields.id = idText(own(record, 'id'));
  const result = own(record, 'result');
  if (typeof result === 'string' && result.startsWith(BFCL_ERROR)) {
    fields.providerError = result.slice(BFCL_ERROR.length);
  } else if (typeof result === 'string') {
    fields.text = result;
  } else if (result === null) {
    fields.text = '';
  } else {
    fields.text = jsonText(result);
    if (fields.text === undefined) {
      fields.textMisfit = misfit('bfcl', '"result" cannot be written as JSON (nested too deep)', detected);
    }
  }
  return undefined;
};

const flatRecords: Lifter = (record, fields, _source, detected) => {
  const text = own(record, 'text') ?? own(record, 'output');
  if (detected && text === undefined) {
    const looks = detectFormat(record);
    if (looks !== 'records') {
      return misfit('records', `it has no "text" nor "output", and looks like ${looks} instead`, true);
    }
  }
  if (typeof text === 'string') fields.text = text;
  else if (text !== undefined && text !== null) {
    fields.textMisfit = new Misfit(`the text field is ${typeName(text)}, not a string`);
  }
  fields.id = idText(own(record, 'id'));
  const model = own(record, 'model');
  if (typeof model === 'string') fields.model = model;
  else if (typeof model === 'number' || typeof model === 'boolean') fields.model = String(model);
  const finish = own(record, 'finish_reason') ?? own(record, 'stop_reason');
  if (typeof finish === 'string') fields.finishReason = finish;
  return undefined;
};

const LIFTERS: Readonly<Record<BatchFormat, Lifter>> = {
  records: flatRecords,
  'openai-batch': openaiBatch,
  'anthropic-batch': anthropicBatch,
  'lm-eval': lmEval,
  bfcl,
};

/**
 * One parsed line of a file of `format` as a record's fields, or the problem that keeps it from
 * being one. Never throws.
 */
export function liftRecord(format: BatchFormat, record: Json, source: RecordSource, options: LiftOptions = {}): Lifted {
  const detected = options.detected === true;
  const paths = options.paths ?? {};
  if (detected && format !== 'records') {
    const looks = detectFormat(record);
    if (looks !== format && looks !== 'records') {
      return { problem: misfit(format, `it looks like ${looks} instead`, true).message };
    }
  }
  const fields = new FormatFields();
  const misfitted = LIFTERS[format](record, fields, source, detected);
  if (misfitted !== undefined) return { problem: misfitted.message };
  // A text given by --text-field stands in for the format's own, wrong or missing.
  if (fields.textMisfit !== undefined && paths.text === undefined) return { problem: fields.textMisfit.message };

  let text = fields.text;
  if (paths.text !== undefined) {
    const value = valueAt(record, paths.text.segments);
    if (value !== undefined && value !== null && typeof value !== 'string') {
      return { problem: `--text-field ${quoted(paths.text.path)} is ${typeName(value)} in this record, not a string` };
    }
    text = typeof value === 'string' ? value : '';
  }
  let id = fields.id;
  if (paths.id !== undefined) id = idText(valueAt(record, paths.id.segments));
  let model = fields.model;
  if (paths.model !== undefined) {
    const value = valueAt(record, paths.model.segments);
    model =
      typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : undefined;
  }
  let finish = fields.finishReason;
  if (paths.finish !== undefined) {
    const value = valueAt(record, paths.finish.segments);
    finish = typeof value === 'string' ? value : undefined;
  }
  const out: { -readonly [K in keyof LiftedRecord]: LiftedRecord[K] } = {
    id: id ?? `${basename(source.file)}:${source.line}`,
    model: model === undefined || model === '' ? 'unknown' : model,
    text: text ?? '',
  };
  if (finish !== undefined) out.finishReason = finish;
  if (fields.providerError !== undefined) out.providerError = fields.providerError;
  if (paths.schema !== undefined && source.schemaText !== undefined) out.schemaText = source.schemaText;
  else if (paths.schema !== undefined) {
    const schema = valueAt(record, paths.schema.segments);
    if (schema !== undefined && schema !== null) {
      out.schema = schema;
      // The schema as the line writes it: a repeat is then known by its text (batch-schemas.ts).
      if (source.json !== undefined && typeof schema === 'object' && !Array.isArray(schema)) {
        const written = rawValueAt(source.json, paths.schema.segments);
        if (written !== undefined) out.schemaText = written;
      }
    }
  }
  return { record: out };
}

/** A path as a message shows it: at most 200 characters of it. */
function quoted(path: string): string {
  return path.length > 200 ? `${path.slice(0, 199)}…` : path;
}
