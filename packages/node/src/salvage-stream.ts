/**
 * Node adapter for the salvage scanner: each JSON value found in the text, as
 * `{ value, source, start, end, fence?, branch? }`, as soon as it closes — the same values as
 * `extractAllJson` on the whole text. Bad input never becomes an 'error'.
 */

import type { Transform } from 'node:stream';
import { createSalvageScanner, type Diagnostic, type SalvageOptions, type SalvageStats } from '@llmjson/core';
import { createTextTransform, type TextTransformOptions } from './text-transform.js';

export interface SalvageStreamOptions extends SalvageOptions, TextTransformOptions {}

export interface SalvageStream extends Transform {
  /** Counts of characters, candidates, values and diagnostics by reason. */
  readonly stats: Readonly<SalvageStats>;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Creates a salvage Transform. Throws ConfigurationError for an invalid schema or option. */
export function createSalvageStream(options: SalvageStreamOptions = {}): SalvageStream {
  const { stream, engine } = createTextTransform(options, (output) =>
    createSalvageScanner(options, { value: output.push, diagnostic: output.diagnostic }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as SalvageStream;
}
