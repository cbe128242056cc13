/**
 * Node adapter for the JSONL decoder: validated values (or records) in order, diagnostics as
 * events. Bad input never becomes an 'error' — except, with `failFast`, the first line that
 * fails its schema, or whose text in flight already proves it will (`prefixCheck`:
 * `prefixCheckDefault`, fail-fast.ts) (a `ContractViolationError`; a prose, syntax or cut-off line is still
 * skipped and reported); a broken configuration throws from `createJsonlStream` before any
 * input is read.
 */

import type { Transform } from 'node:stream';
import {
  createJsonlDecoder,
  type Diagnostic,
  type JsonlOptions,
  type JsonlRecord,
  type JsonlStats,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import {
  checkChoice,
  checkOptionNames,
  JSONL_STREAM_OPTIONS,
  namesChecked,
  prefixCheckDefault,
} from '@llmjson/core/internal';
import { NODE_DEFAULTS, withAjvDefault } from './json-schema-default.js';
import { createTextTransform, type TextTransformOptions, type TypedAsyncIterator } from './text-transform.js';

export interface JsonlStreamOptions<S extends SchemaInput = SchemaInput> extends JsonlOptions<S>, TextTransformOptions {
  /**
   * Emit `{ value, line, endLine, offset, branch? }` records instead of plain values.
   * Default `false`. In plain mode a JSON `null` line cannot travel (a Node object-mode stream
   * ends at `push(null)`), so it is dropped with a `null-value` diagnostic; records carry it.
   */
  readonly records?: boolean;
}

/** `T` is what the readable side yields (Node itself types it `any`). */
export interface JsonlStream<T = unknown> extends Transform {
  /** Counts of lines, values and diagnostics by reason, updated as the stream runs. */
  readonly stats: Readonly<JsonlStats>;
  [Symbol.asyncIterator](): TypedAsyncIterator<T>;
  toArray(options?: Parameters<Transform['toArray']>[0]): Promise<T[]>;
  on(event: 'data', listener: (value: T) => void): this;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/**
 * Creates a JSONL Transform. Throws ConfigurationError for an invalid schema or option. Values
 * are typed from the schema (`SchemaValue`): a Standard Schema's input type, the type
 * json-schema-to-ts infers from a JSON Schema written `as const`; `unknown` for a JSON Schema of
 * a wider type (`JsonSchema`, one read from a file), one with a `$ref`, or none.
 */
export function createJsonlStream<S extends SchemaInput = SchemaInput>(
  options: JsonlStreamOptions<S> & { readonly records: true },
): JsonlStream<JsonlRecord<SchemaValue<S>>>;
export function createJsonlStream<S extends SchemaInput = SchemaInput>(
  options?: JsonlStreamOptions<S> & { readonly records?: false },
): JsonlStream<Exclude<SchemaValue<S>, null>>;
export function createJsonlStream<S extends SchemaInput = SchemaInput>(
  options?: JsonlStreamOptions<S>,
): JsonlStream<Exclude<SchemaValue<S>, null> | JsonlRecord<SchemaValue<S>>>;
export function createJsonlStream(options: JsonlStreamOptions = {}): JsonlStream {
  checkOptionNames('createJsonlStream', options, JSONL_STREAM_OPTIONS);
  checkChoice('records', options.records, [true, false]);
  // Checked here too: plain values replace it with 'report' before the decoder sees it.
  checkChoice('nullValue', options.nullValue, ['value', 'report']);
  const records = options.records === true;
  const decoding = namesChecked({
    ...options,
    prefixCheck: prefixCheckDefault(options),
    prefixCheckWith: options.prefixCheckWith ?? NODE_DEFAULTS.linePrefixCheck,
  });
  const { stream, engine } = createTextTransform(
    options,
    (output) =>
      createJsonlDecoder(withAjvDefault(records ? decoding : { ...decoding, nullValue: 'report' }), {
        value(value, info) {
          output.push(records ? ({ value, ...info } satisfies JsonlRecord) : value);
        },
        diagnostic: output.diagnostic,
      }),
    true,
  );
  // The engine's stats object, updated in place: a data property keeps the stream's property layout fast.
  Object.defineProperty(stream, 'stats', { value: engine.stats, enumerable: true });
  return stream as JsonlStream;
}
