/**
 * Node adapter for the element scanner: each element of the JSON array at `path` (default the
 * document itself), as `{ value, index, start, end, branch? }`, as soon as it is complete. An
 * answer cut off at the token limit still yields every complete element, then a `truncated`
 * diagnostic. Bad input never becomes an 'error'.
 */

import type { Transform } from 'node:stream';
import { createElementScanner, type Diagnostic, type ElementOptions, type ElementStats } from '@llmjson/core';
import { createTextTransform, type TextTransformOptions } from './text-transform.js';

export interface ElementStreamOptions extends ElementOptions, TextTransformOptions {}

export interface ElementStream extends Transform {
  /** Counts of characters, elements, values and diagnostics by reason. */
  readonly stats: Readonly<ElementStats>;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Creates an element Transform. Throws ConfigurationError for an invalid path, schema or option. */
export function createElementStream(options: ElementStreamOptions = {}): ElementStream {
  const { stream, engine } = createTextTransform(options, (output) =>
    createElementScanner(options, { value: output.push, diagnostic: output.diagnostic }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as ElementStream;
}
