/**
 * Web adapter for the element scanner: each element of the JSON array at `path` (default the
 * document itself), as `{ value, index, start, end, branch? }`, as soon as it is complete; a
 * cut-off array still yields its complete elements. Bad input never errors the stream.
 */

import {
  createElementScanner,
  type ElementOptions,
  type ElementRecord,
  type ElementScanner,
  type ElementStats,
} from '@llmjson/core';
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface ElementStreamOptions extends ElementOptions, TextTransformOptions {}

export interface ElementStream extends TransformStream<string | Uint8Array, ElementRecord> {
  /** Counts of characters, elements, values and diagnostics by reason. */
  readonly stats: Readonly<ElementStats>;
}

/** Creates an element TransformStream. Throws ConfigurationError for an invalid path, schema or option. */
export function createElementStream(options: ElementStreamOptions = {}): ElementStream {
  const { stream, engine } = createTextTransformStream<ElementRecord, ElementScanner>(options, (output) =>
    createElementScanner(options, { value: output.enqueue, diagnostic: output.diagnostic }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as ElementStream;
}
