/**
 * Node adapter for the salvage scanner: each JSON value found in the text, as
 * `{ value, source, start, end, fence?, branch? }`, as soon as it closes — the same values as
 * `extractAllJson` on the whole text. Bad input never becomes an 'error' (with `failFast`, the
 * first value that fails its schema does: a `ContractViolationError`).
 */

import type { Transform } from 'node:stream';
import {
  createSalvageScanner,
  type Diagnostic,
  type SalvagedValue,
  type SalvageOptions,
  type SalvageStats,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkOptionNames, namesChecked, SALVAGE_STREAM_OPTIONS } from '@llmjson/core/internal';
import { withAjvDefault } from './json-schema-default.js';
import { createTextTransform, type TextTransformOptions, type TypedAsyncIterator } from './text-transform.js';

export interface SalvageStreamOptions<S extends SchemaInput = SchemaInput>
  extends SalvageOptions<S>,
    TextTransformOptions {}

/** `T` is the type of each salvaged `value` (Node itself types the readable side `any`). */
export interface SalvageStream<T = unknown> extends Transform {
  /** Counts of characters, candidates, values and diagnostics by reason. */
  readonly stats: Readonly<SalvageStats>;
  [Symbol.asyncIterator](): TypedAsyncIterator<SalvagedValue<T>>;
  toArray(options?: Parameters<Transform['toArray']>[0]): Promise<SalvagedValue<T>[]>;
  on(event: 'data', listener: (value: SalvagedValue<T>) => void): this;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Creates a salvage Transform. Throws ConfigurationError for an invalid schema or option. */
export function createSalvageStream<S extends SchemaInput = SchemaInput>(
  options: SalvageStreamOptions<S> = {},
): SalvageStream<SchemaValue<S>> {
  checkOptionNames('createSalvageStream', options, SALVAGE_STREAM_OPTIONS);
  const scannerOptions = namesChecked(withAjvDefault(options));
  const { stream, engine } = createTextTransform(
    options,
    (output) =>
      createSalvageScanner<SchemaInput>(scannerOptions, { value: output.push, diagnostic: output.diagnostic }),
    true,
  );
  // The engine's stats object, updated in place: a data property keeps the stream's property layout fast.
  Object.defineProperty(stream, 'stats', { value: engine.stats, enumerable: true });
  return stream as SalvageStream<SchemaValue<S>>;
}
