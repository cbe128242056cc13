/**
 * Node adapter for the element scanner: each element of the JSON array at `path` (default the
 * document itself), as `{ value, index, start, end, branch? }`, as soon as it is complete. An
 * answer cut off at the token limit still yields every complete element, then a `truncated`
 * diagnostic. Bad input never becomes an 'error' (with `failFast`, the first element that fails
 * its schema, or a `violation` while one streams, does: a `ContractViolationError`).
 * `prefixCheck` follows `failFast` unless given (`prefixCheckDefault`, fail-fast.ts), with
 * `prefixCheckWith` filled in.
 */

import type { Transform } from 'node:stream';
import {
  createElementScanner,
  type Diagnostic,
  type ElementOptions,
  type ElementRecord,
  type ElementStats,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkOptionNames, ELEMENT_STREAM_OPTIONS, namesChecked, prefixCheckDefault } from '@llmjson/core/internal';
import { NODE_DEFAULTS, withAjvDefault } from './json-schema-default.js';
import { createTextTransform, type TextTransformOptions, type TypedAsyncIterator } from './text-transform.js';

export interface ElementStreamOptions<E extends SchemaInput = SchemaInput>
  extends ElementOptions<E>,
    TextTransformOptions {}

/** `T` is the type of each element's `value` (Node itself types the readable side `any`). */
export interface ElementStream<T = unknown> extends Transform {
  /** Counts of characters, elements, values and diagnostics by reason. */
  readonly stats: Readonly<ElementStats>;
  [Symbol.asyncIterator](): TypedAsyncIterator<ElementRecord<T>>;
  toArray(options?: Parameters<Transform['toArray']>[0]): Promise<ElementRecord<T>[]>;
  on(event: 'data', listener: (element: ElementRecord<T>) => void): this;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/**
 * Creates an element Transform. Throws ConfigurationError for an invalid path, schema or
 * option. Elements are typed by a Standard Schema `elementSchema`; otherwise `unknown`.
 */
export function createElementStream<E extends SchemaInput = SchemaInput>(
  options: ElementStreamOptions<E> = {},
): ElementStream<SchemaValue<E>> {
  checkOptionNames('createElementStream', options, ELEMENT_STREAM_OPTIONS);
  const scannerOptions: ElementOptions = namesChecked({
    ...withAjvDefault(options),
    prefixCheck: prefixCheckDefault(options),
    prefixCheckWith: options.prefixCheckWith ?? NODE_DEFAULTS.elementPrefixCheck,
  });
  const { stream, engine } = createTextTransform(
    options,
    (output) =>
      createElementScanner<SchemaInput>(scannerOptions, { value: output.push, diagnostic: output.diagnostic }),
    true,
  );
  // The engine's stats object, updated in place: a data property keeps the stream's property layout fast.
  Object.defineProperty(stream, 'stats', { value: engine.stats, enumerable: true });
  return stream as ElementStream<SchemaValue<E>>;
}
