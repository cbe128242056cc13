/**
 * The one Node adapter shape every llmjson stream uses: a Transform whose writable side takes
 * strings, Buffers or Uint8Arrays and whose readable side is in object mode.
 *
 * It does three things: decodes bytes with one stateful UTF-8 decoder (a character split
 * across chunks decodes correctly; a string after bytes flushes the pending bytes first; the
 * decoder is flushed at the end), forwards text to a core engine's `write`/`end`, and lets the
 * engine push results and emit diagnostics. An exception from the engine or from a user
 * callback goes to the stream's callback, never out of the process.
 *
 * With `failFast`, the first contract violation ends the stream: the diagnostic is reported,
 * nothing the engine finds after it is, and once the consumer has read every value pushed
 * before it (a destroyed stream drops its buffer), the stream is destroyed with the
 * `ContractViolationError`, so that `pipeline` destroys the source too.
 */

import { Readable, Transform, type TransformCallback } from 'node:stream';
import {
  checkHighWaterMark,
  createDecodedWriter,
  createFailFast,
  type DecodedWriter,
  type Diagnostic,
  type Engine,
  type FailFastOptions,
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
export interface TextTransformOptions extends StreamOptions, FailFastOptions {}

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
  const failFast = createFailFast(options);
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
      } catch (error) {
        callback(error as Error);
        return;
      }
      settle(callback);
    },
    flush(callback: TransformCallback) {
      try {
        if (bytesPending) input.bytes(undefined, utf8.decode());
        engine.end();
      } catch (error) {
        callback(error as Error);
        return;
      }
      settle(callback);
    },
  });
  /**
   * After a violation the callback is held (the writable side takes nothing more) until the
   * buffered values are read; `read` then destroys the stream. No violation: go on.
   */
  const settle = (callback: TransformCallback) => {
    const failure = failFast?.failure;
    if (failure === undefined) callback();
    else if (stream.readableLength === 0) callback(failure);
    else draining = true;
  };
  let draining = false;
  if (failFast !== undefined) {
    // Every consumer (a 'data' listener, pipe, for await, read()) takes values through `read`.
    stream.read = function read(this: Transform, size?: number) {
      const value: unknown = Readable.prototype.read.call(this, size);
      if (draining && this.readableLength === 0) {
        draining = false;
        process.nextTick(() => this.destroy(failFast.failure));
      }
      return value;
    };
  }
  const onDiagnostic = options.onDiagnostic;
  const diagnostic = (d: Diagnostic) => {
    if (failFast?.failure !== undefined) return;
    onDiagnostic?.(d);
    stream.emit('diagnostic', d);
    failFast?.check(d);
  };
  engine = create({
    push: (value) => {
      if (failFast?.failure === undefined) stream.push(value);
    },
    diagnostic,
  });
  input = createDecodedWriter(engine, diagnostic);
  return { stream, engine };
}
