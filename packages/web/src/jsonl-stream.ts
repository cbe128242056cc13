/**
 * Web adapter for the JSONL decoder: validated values (or records) in order on the readable
 * side, diagnostics through `onDiagnostic`. Bad input never errors the stream — except, with
 * `failFast`, the first line that fails its schema, or whose text in flight already proves it will
 * (`prefixCheck`: `prefixCheckDefault`, fail-fast.ts) (a `ContractViolationError`; a prose,
 * syntax or cut-off line is still skipped and reported); a broken configuration throws from
 * `createJsonlStream` before any input is read.
 */

import {
  createJsonlDecoder,
  type JsonlDecoder,
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
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface JsonlStreamOptions<S extends SchemaInput = SchemaInput> extends JsonlOptions<S>, TextTransformOptions {
  /**
   * Emit `{ value, line, endLine, offset, branch? }` records instead of plain values.
   * Default `false`. A JSON `null` line is delivered as `null` in both modes (a WHATWG stream
   * can enqueue `null`); the Node stream instead drops it in plain mode with a `null-value`
   * diagnostic. `nullValue: 'report'` selects the Node behaviour here too.
   */
  readonly records?: boolean;
}

export interface JsonlStream<T = unknown> extends TransformStream<string | Uint8Array, T> {
  /** Counts of lines, values and diagnostics by reason, updated as the stream runs. */
  readonly stats: Readonly<JsonlStats>;
}

/**
 * Creates a JSONL TransformStream. Throws ConfigurationError for an invalid schema or option.
 * Values are typed from the schema (`SchemaValue`): a Standard Schema's input type, the type
 * json-schema-to-ts infers from a JSON Schema written `as const`; `unknown` for a JSON Schema of
 * a wider type (`JsonSchema`, one read from a file), one with a `$ref`, or none.
 */
export function createJsonlStream<S extends SchemaInput = SchemaInput>(
  options: JsonlStreamOptions<S> & { readonly records: true },
): JsonlStream<JsonlRecord<SchemaValue<S>>>;
export function createJsonlStream<S extends SchemaInput = SchemaInput>(
  options?: JsonlStreamOptions<S> & { readonly records?: false },
): JsonlStream<SchemaValue<S>>;
export function createJsonlStream<S extends SchemaInput = SchemaInput>(
  options?: JsonlStreamOptions<S>,
): JsonlStream<SchemaValue<S> | JsonlRecord<SchemaValue<S>>>;
export function createJsonlStream(options: JsonlStreamOptions = {}): JsonlStream<unknown> {
  checkOptionNames('createJsonlStream', options, JSONL_STREAM_OPTIONS);
  checkChoice('records', options.records, [true, false]);
  const records = options.records === true;
  const decoding = namesChecked({ ...options, prefixCheck: prefixCheckDefault(options) });
  const { stream, engine } = createTextTransformStream<unknown, JsonlDecoder>(options, (output) =>
    createJsonlDecoder(decoding, {
      value(value, info) {
        output.enqueue(records ? ({ value, ...info } satisfies JsonlRecord) : value);
      },
      diagnostic: output.diagnostic,
    }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as JsonlStream;
}
