/**
 * Web adapter for the salvage scanner: each JSON value found in the text, as
 * `{ value, source, start, end, fence?, branch? }`, as soon as it closes — the same values as
 * `extractAllJson` on the whole text. Bad input never errors the stream.
 */

import {
  createSalvageScanner,
  type SalvagedValue,
  type SalvageOptions,
  type SalvageScanner,
  type SalvageStats,
} from '@llmjson/core';
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface SalvageStreamOptions extends SalvageOptions, TextTransformOptions {}

export interface SalvageStream extends TransformStream<string | Uint8Array, SalvagedValue> {
  /** Counts of characters, candidates, values and diagnostics by reason. */
  readonly stats: Readonly<SalvageStats>;
}

/** Creates a salvage TransformStream. Throws ConfigurationError for an invalid schema or option. */
export function createSalvageStream(options: SalvageStreamOptions = {}): SalvageStream {
  const { stream, engine } = createTextTransformStream<SalvagedValue, SalvageScanner>(options, (output) =>
    createSalvageScanner(options, { value: output.enqueue, diagnostic: output.diagnostic }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as SalvageStream;
}
