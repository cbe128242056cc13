/**
 * Node adapter for the JSONL decoder: validated values (or records) in order, diagnostics as
 * events. Bad input never becomes an 'error'; a broken configuration throws from
 * `createJsonlStream` before any input is read.
 */

import type { Transform } from 'node:stream';
import {
  createJsonlDecoder,
  type Diagnostic,
  type JsonlOptions,
  type JsonlRecord,
  type JsonlStats,
} from '@llmjson/core';
import { createTextTransform, type TextTransformOptions } from './text-transform.js';

export interface JsonlStreamOptions extends JsonlOptions, TextTransformOptions {
  /**
   * Emit `{ value, line, endLine, offset, branch? }` records instead of plain values.
   * Default `false`. In plain mode a JSON `null` line cannot travel (a Node object-mode stream
   * ends at `push(null)`), so it is dropped with a `null-value` diagnostic; records carry it.
   */
  readonly records?: boolean;
}

export interface JsonlStream extends Transform {
  /** Counts of lines, values and diagnostics by reason, updated as the stream runs. */
  readonly stats: Readonly<JsonlStats>;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Creates a JSONL Transform. Throws ConfigurationError for an invalid schema or option. */
export function createJsonlStream(options: JsonlStreamOptions = {}): JsonlStream {
  const records = options.records === true;
  const { stream, engine } = createTextTransform(options, (output) =>
    createJsonlDecoder(records ? options : { ...options, nullValue: 'report' }, {
      value(value, info) {
        output.push(records ? ({ value, ...info } satisfies JsonlRecord) : value);
      },
      diagnostic: output.diagnostic,
    }),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as JsonlStream;
}
