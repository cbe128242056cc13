/**
 * Web adapter for the salvage scanner: each JSON value found in the text, as
 * `{ value, source, start, end, fence?, branch? }`, as soon as it closes — the same values as
 * `extractAllJson` on the whole text. Bad input never errors the stream (with `failFast`, the
 * first value that fails its schema does: a `ContractViolationError`).
 */

import {
  createSalvageScanner,
  type SalvagedValue,
  type SalvageOptions,
  type SalvageScanner,
  type SalvageStats,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkOptionNames, namesChecked, SALVAGE_STREAM_OPTIONS } from '@llmjson/core/internal';
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface SalvageStreamOptions<S extends SchemaInput = SchemaInput>
  extends SalvageOptions<S>,
    TextTransformOptions {}

/** `T` is the type of each salvaged `value`. */
export interface SalvageStream<T = unknown> extends TransformStream<string | Uint8Array, SalvagedValue<T>> {
  /** Counts of characters, candidates, values and diagnostics by reason. */
  readonly stats: Readonly<SalvageStats>;
}

/** Creates a salvage TransformStream. Throws ConfigurationError for an invalid schema or option. */
export function createSalvageStream<S extends SchemaInput = SchemaInput>(
  options: SalvageStreamOptions<S> = {},
): SalvageStream<SchemaValue<S>> {
  checkOptionNames('createSalvageStream', options, SALVAGE_STREAM_OPTIONS);
  const { stream, engine } = createTextTransformStream<SalvagedValue<SchemaValue<S>>, SalvageScanner>(
    options,
    (output) => createSalvageScanner(namesChecked(options), { value: output.enqueue, diagnostic: output.diagnostic }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as SalvageStream<SchemaValue<S>>;
}
