/**
 * Web adapter for the element scanner: each element of the JSON array at `path` (default the
 * document itself), as `{ value, index, start, end, branch? }`, as soon as it is complete; a
 * cut-off array still yields its complete elements. Bad input never errors the stream
 * (with `failFast`, the first element that fails its schema, or a `violation` while one streams,
 * does: a `ContractViolationError`).
 *
 * `failFast` turns on the prefix check of the element in flight (`prefixCheck`) when the check
 * was given (`prefixCheckWith: elementPrefixCheck`, not bundled unless imported): a bad element
 * then ends the stream the moment its text proves it, not when it completes.
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
  // failFast checks the element in flight too (`prefixCheck`) when the check was given
  // (`prefixCheckWith: elementPrefixCheck`: not bundled unless imported), unless the caller says otherwise.
  const scannerOptions: ElementOptions<E> = {
    ...options,
    prefixCheck: options.prefixCheck ?? (options.failFast === true && options.prefixCheckWith !== undefined),
  };
  const { stream, engine } = createTextTransformStream<ElementRecord<SchemaValue<E>>, ElementScanner>(
    options,
    (output) => createElementScanner(scannerOptions, { value: output.enqueue, diagnostic: output.diagnostic }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as ElementStream<SchemaValue<E>>;
}
