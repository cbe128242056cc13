/**
 * Web adapter for the element scanner: each element of the JSON array at `path` (default the
 * document itself), as `{ value, index, start, end, branch? }`, as soon as it is complete; a
 * cut-off array still yields its complete elements. Bad input never errors the stream
 * (with `failFast`, the first element that fails its schema, or a `violation` while one streams,
 * does: a `ContractViolationError`).
 * `prefixCheck` follows `failFast` unless given (`prefixCheckDefault`, fail-fast.ts).
 */

import {
  createElementScanner,
  type ElementOptions,
  type ElementRecord,
  type ElementScanner,
  type ElementStats,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkOptionNames, ELEMENT_STREAM_OPTIONS, namesChecked, prefixCheckDefault } from '@llmjson/core/internal';
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface ElementStreamOptions<E extends SchemaInput = SchemaInput>
  extends ElementOptions<E>,
    TextTransformOptions {}

/** `T` is the type of each element's `value`. */
export interface ElementStream<T = unknown> extends TransformStream<string | Uint8Array, ElementRecord<T>> {
  /** Counts of characters, elements, values and diagnostics by reason. */
  readonly stats: Readonly<ElementStats>;
}

/**
 * Creates an element TransformStream. Throws ConfigurationError for an invalid path, schema or
 * option. Elements are typed by a Standard Schema `elementSchema`; otherwise `unknown`.
 */
export function createElementStream<E extends SchemaInput = SchemaInput>(
  options: ElementStreamOptions<E> = {},
): ElementStream<SchemaValue<E>> {
  checkOptionNames('createElementStream', options, ELEMENT_STREAM_OPTIONS);
  const scannerOptions: ElementOptions<E> = namesChecked({ ...options, prefixCheck: prefixCheckDefault(options) });
  const { stream, engine } = createTextTransformStream<ElementRecord<SchemaValue<E>>, ElementScanner>(
    options,
    (output) => createElementScanner(scannerOptions, { value: output.enqueue, diagnostic: output.diagnostic }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as ElementStream<SchemaValue<E>>;
}
