/**
 * Node adapter for the JSONL decoder: a Transform whose writable side takes strings, Buffers
 * or Uint8Arrays and whose readable side (object mode) emits validated values in order.
 *
 * The adapter only moves data: bytes are decoded with one stateful UTF-8 decoder (so a
 * character split across chunks decodes correctly, and is flushed at the end), text goes to
 * the core decoder, values are pushed, diagnostics become events. Bad input never becomes an
 * 'error'; a broken configuration throws from `createJsonlStream` before any input is read.
 */

import { Transform, type TransformCallback } from 'node:stream';
import {
  createJsonlDecoder,
  type Diagnostic,
  type JsonlDecoder,
  type JsonlOptions,
  type JsonlRecord,
  type JsonlStats,
} from '@llmjson/core';

export interface JsonlStreamOptions extends JsonlOptions {
  /**
   * Emit `{ value, line, endLine, offset, branch? }` records instead of plain values.
   * Default `false`. In plain mode a JSON `null` line cannot travel (a Node object-mode stream
   * ends at `push(null)`), so it is dropped with a `null-value` diagnostic; records carry it.
   */
  readonly records?: boolean;
  /** Called with each diagnostic, in input order (the `'diagnostic'` event carries the same). */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
  /** Readable-side buffer, in values. Default 16 (Node's object-mode default). */
  readonly highWaterMark?: number;
}

export interface JsonlStream extends Transform {
  /** Counts of lines, values and diagnostics by reason, updated as the stream runs. */
  readonly stats: Readonly<JsonlStats>;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

const STREAMING = { stream: true } as const;

/** Creates a JSONL Transform. Throws ConfigurationError for an invalid schema or option. */
export function createJsonlStream(options: JsonlStreamOptions = {}): JsonlStream {
  const records = options.records === true;
  const onDiagnostic = options.onDiagnostic;
  const utf8 = new TextDecoder('utf-8');
  let bytesPending = false;
  let decoder: JsonlDecoder;

  const stream = new Transform({
    readableObjectMode: true,
    decodeStrings: false,
    ...(options.highWaterMark === undefined ? {} : { readableHighWaterMark: options.highWaterMark }),
    transform(chunk: string | Uint8Array, _encoding: BufferEncoding, callback: TransformCallback) {
      try {
        if (typeof chunk === 'string') {
          if (bytesPending) {
            decoder.write(utf8.decode());
            bytesPending = false;
          }
          decoder.write(chunk);
        } else {
          decoder.write(utf8.decode(chunk, STREAMING));
          bytesPending = true;
        }
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        if (bytesPending) decoder.write(utf8.decode());
        decoder.end();
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  }) as JsonlStream;

  decoder = createJsonlDecoder(records ? options : { ...options, nullValue: 'report' }, {
    value(value, info) {
      stream.push(records ? ({ value, ...info } satisfies JsonlRecord) : value);
    },
    diagnostic(diagnostic) {
      onDiagnostic?.(diagnostic);
      stream.emit('diagnostic', diagnostic);
    },
  });
  Object.defineProperty(stream, 'stats', { get: () => decoder.stats, enumerable: true });
  return stream;
}
