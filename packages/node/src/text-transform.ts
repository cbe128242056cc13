/**
 * The one Node adapter shape every llmjson stream uses: a Transform whose writable side takes
 * strings, Buffers or Uint8Arrays and whose readable side is in object mode.
 *
 * It does three things: decodes bytes with one stateful UTF-8 decoder (a character split
 * across chunks decodes correctly; a string after bytes flushes the pending bytes first; the
 * decoder is flushed at the end), forwards text to a core engine's `write`/`end`, and lets the
 * engine push results and emit diagnostics. An exception from the engine or from a user
 * callback goes to the stream's callback, never out of the process.
 */

import { Transform, type TransformCallback } from 'node:stream';
import {
  checkHighWaterMark,
  createDecodedWriter,
  type DecodedWriter,
  type Diagnostic,
  type Engine,
  type StreamOptions,
} from '@llmjson/core';

/** A core engine, as the adapter drives it. */
export type TextEngine = Pick<Engine<unknown>, 'write' | 'end' | 'invalidEncoding'>;

/**
 * The async iterator of a typed readable side: `for await` yields `T` (the first member wins),
 * while the stream still satisfies `NodeJS.ReadableStream`, whose iterator yields strings or
 * Buffers, so typed streams keep working with `pipeline` and `pipe`.
 */
export type TypedAsyncIterator<T> = NodeJS.AsyncIterator<T> & NodeJS.AsyncIterator<any>;

/** The adapter's own options (shared by the Node and Web adapters). */
export type TextTransformOptions = StreamOptions;

export interface EngineOutput {
  /** Pushes a value to the readable side. */
  push(value: unknown): void;
  /** Reports a diagnostic through the callback and the `'diagnostic'` event. */
  diagnostic(diagnostic: Diagnostic): void;
}

const STREAMING = { stream: true } as const;

/** Builds the Transform around the engine that `create` makes (and may throw from). */
export function createTextTransform<E extends TextEngine>(
  options: TextTransformOptions,
  create: (output: EngineOutput) => E,
): { stream: Transform; engine: E } {
  checkHighWaterMark(options.highWaterMark);
  const utf8 = new TextDecoder('utf-8');
  let bytesPending = false;
  let engine: E;
  let input: DecodedWriter;
  const stream = new Transform({
    readableObjectMode: true,
    decodeStrings: false,
    ...(options.highWaterMark === undefined ? {} : { readableHighWaterMark: options.highWaterMark }),
    transform(chunk: string | Uint8Array, _encoding: BufferEncoding, callback: TransformCallback) {
      try {
        if (typeof chunk === 'string') {
          if (bytesPending) {
            input.bytes(undefined, utf8.decode());
            bytesPending = false;
          }
          input.text(chunk);
        } else {
          input.bytes(chunk, utf8.decode(chunk, STREAMING));
          bytesPending = true;
        }
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        if (bytesPending) input.bytes(undefined, utf8.decode());
        engine.end();
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  const onDiagnostic = options.onDiagnostic;
  const diagnostic = (d: Diagnostic) => {
    onDiagnostic?.(d);
    stream.emit('diagnostic', d);
  };
  engine = create({
    push: (value) => {
      stream.push(value);
    },
    diagnostic,
  });
  input = createDecodedWriter(engine, diagnostic);
  return { stream, engine };
}
