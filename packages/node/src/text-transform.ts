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
 * Writes that arrive together are handed to the engine together: after a chunk, the Transform's
 * callback waits for the end of the current job (a microtask), so that chunks written in the
 * same synchronous run (a loop over tokens, a burst from a socket) queue up and reach `writev`
 * as one batch, whose consecutive short strings the engine gets joined, about 1 KiB at a time.
 * A chunk written on its own — a token that arrives in its own event-loop turn, as a model's
 * tokens do — is decoded the moment it is written, exactly as before; only the Writable
 * machinery's per-chunk cost is saved on bursts (docs/decisions/022-batched-writes.md).
 * Backpressure holds as in a Transform: while the readable side is over its high-water mark
 * the callback waits for a read. The JSONL, element and salvage streams batch; the partial
 * stream does not (its snapshots are per write) nor does the provider stream.
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
/** Consecutive strings of a batch are joined into texts of about this many UTF-16 units. */
const BATCH_TEXT = 1024;

/**
 * Builds the Transform around the engine that `create` makes (and may throw from). `batched`:
 * chunks written together reach the engine together (see the file's comment); false for an
 * engine whose outputs are per write (the partial stream's snapshots).
 */
export function createTextTransform<E extends TextEngine>(
  options: TextTransformOptions,
  create: (output: EngineOutput) => E,
  batched = false,
): { stream: Transform; engine: E } {
  checkHighWaterMark(options.highWaterMark);
  const failFast = createFailFast(options);
  const utf8 = new TextDecoder('utf-8');
  let bytesPending = false;
  let engine: E;
  let input: DecodedWriter;
  const write = (chunk: string | Uint8Array): void => {
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
  };
  // A writev batch being handed to the engine: its chunks, the next one, and its callback.
  let batch: readonly { chunk: string | Uint8Array }[] = [];
  let batchAt = 0;
  let batchCallback: ((error?: Error | null) => void) | undefined;
  /**
   * Hands the batch to the engine, consecutive short strings joined into texts of about
   * BATCH_TEXT units; between two texts, a readable side that this call pushed to and that is
   * over its high-water mark stops it until the next read (a Transform holds its callback the
   * same way), so a burst never turns into more buffered values than one text holds.
   */
  const drain = (): void => {
    const callback = batchCallback as (error?: Error | null) => void;
    const before = stream.readableLength;
    try {
      while (batchAt < batch.length) {
        // Stop only after a push: a `_read` that pushes nothing would not be called again.
        if (stream.readableLength !== before && stream.readableLength >= stream.readableHighWaterMark) return;
        if (failFast?.failure !== undefined) break;
        const chunk = (batch[batchAt++] as { chunk: string | Uint8Array }).chunk;
        if (typeof chunk !== 'string' || chunk.length >= BATCH_TEXT) {
          write(chunk);
          continue;
        }
        let text = chunk;
        while (batchAt < batch.length && text.length < BATCH_TEXT) {
          const next = (batch[batchAt] as { chunk: string | Uint8Array }).chunk;
          if (typeof next !== 'string') break;
          text += next;
          batchAt++;
        }
        write(text);
      }
    } catch (error) {
      batchCallback = undefined;
      batch = [];
      callback(error as Error);
      return;
    }
    batchCallback = undefined;
    batch = [];
    settle((error) => {
      if (error == null && stream.readableLength !== before && stream.readableLength >= stream.readableHighWaterMark) {
        // As a Transform does: the next write waits until the values pushed are read.
        batchCallback = callback;
      } else {
        callback(error);
      }
    });
  };
  const stream = new Transform({
    readableObjectMode: true,
    decodeStrings: false,
    ...(options.highWaterMark === undefined ? {} : { readableHighWaterMark: options.highWaterMark }),
    transform(chunk: string | Uint8Array, _encoding: BufferEncoding, callback: TransformCallback) {
      try {
        write(chunk);
      } catch (error) {
        callback(error as Error);
        return;
      }
      // Chunks written before this job ends queue up for `writev` (see the file's comment).
      if (batched) queueMicrotask(() => settle(callback));
      else settle(callback);
    },
    ...(batched
      ? {
          writev(chunks: { chunk: string | Uint8Array }[], callback: (error?: Error | null) => void) {
            batch = chunks;
            batchAt = 0;
            batchCallback = callback;
            drain();
          },
        }
      : {}),
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
  if (batched)
    stream._read = function read(this: Transform, size: number) {
      const callback = batchCallback;
      if (callback !== undefined) {
        // A batch stopped for backpressure goes on, or its callback, held, is released.
        if (batchAt < batch.length) drain();
        else {
          batchCallback = undefined;
          callback();
        }
      }
      Transform.prototype._read.call(this, size);
    };
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
