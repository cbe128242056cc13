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
 * same synchronous run (a loop over tokens, a burst from a socket) are handed over as one
 * batch, whose consecutive short strings the engine gets joined, about 1 KiB at a time. The
 * strings of such a burst are joined by `write` itself as they come (none of the Writable's
 * per-chunk buffering), counted in `writableLength`, with `write`'s return value and 'drain'
 * as the Writable's own buffer would give; anything else (bytes, a write with a callback or an
 * encoding, a corked stream) queues up in the Writable's buffer and reaches `writev`, in order.
 * A chunk written on its own — a token that arrives in its own event-loop turn, as a model's
 * tokens do — is decoded the moment it is written, exactly as before; only the Writable
 * machinery's per-chunk cost is saved on bursts (docs/decisions/022-batched-writes.md).
 * Backpressure holds as in a Transform: while the readable side is over its high-water mark
 * the callback waits for a read. The JSONL, element and salvage streams batch; the partial
 * stream, whose items are per write, writes directly (each string written to an idle stream
 * goes to the engine at once, without the Writable's per-chunk machinery, bursts too); the
 * provider stream does neither.
 *
 * With `failFast`, the first contract violation ends the stream: the diagnostic is reported,
 * nothing the engine finds after it is, and once the consumer has read every value pushed
 * before it (a destroyed stream drops its buffer), the stream is destroyed with the
 * `ContractViolationError`, so that `pipeline` destroys the source too.
 */

import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { Diagnostic, Engine, FailFastOptions } from '@llmjson/core';
import {
  checkHighWaterMark,
  createDecodedWriter,
  createFailFast,
  createUtf8Chunks,
  type DecodedWriter,
  type StreamOptions,
} from '@llmjson/core/internal';

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

/** Consecutive strings of a batch are joined into texts of about this many UTF-16 units. */
const BATCH_TEXT = 1024;

const RESOLVED = Promise.resolve();

/** What a batch holds: a text gathered by `write`, or an entry of the Writable's `writev`. */
type BatchEntry = string | { readonly chunk: string | Uint8Array };
const chunkOf = (entry: BatchEntry): string | Uint8Array => (typeof entry === 'string' ? entry : entry.chunk);

/** What a batched or direct stream's own methods call into: the state of one `createTextTransform`. */
interface Gathering {
  /** A string written without an encoding or a callback. */
  write(self: GatheringTransform, chunk: string): boolean;
  /** The stream is corked, ended or destroyed: nothing more is gathered. */
  stop(): void;
  /** Units gathered and not yet handed to the engine. */
  length(): number;
  /** The readable side wants more: a batch held for backpressure goes on. */
  read(): void;
}

const GATHER = Symbol('gather');

/**
 * The Transform of a batched or direct stream: `write` gathers a burst's strings, or hands a
 * string to the engine at once. Its methods are the class's, not each stream's own properties,
 * so that every stream keeps the Transform's fast property layout.
 */
class GatheringTransform extends Transform {
  declare [GATHER]: Gathering;

  override write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    if (typeof chunk === 'string' && encoding === undefined && callback === undefined) {
      return this[GATHER].write(this, chunk);
    }
    this[GATHER].stop();
    return (Transform.prototype.write as (...args: unknown[]) => boolean).call(this, chunk, encoding, callback);
  }

  override cork(): void {
    this[GATHER].stop();
    Transform.prototype.cork.call(this);
  }

  override end(...args: unknown[]): this {
    this[GATHER].stop();
    return (Transform.prototype.end as (...args: unknown[]) => this).apply(this, args);
  }

  override _read(size: number): void {
    this[GATHER].read();
    Transform.prototype._read.call(this, size);
  }
}

// Counts what is gathered, as the Writable counts what it buffers.
const writableLengthOf = (() => {
  for (let proto: object | null = Transform.prototype; proto !== null; proto = Object.getPrototypeOf(proto)) {
    const getter = Object.getOwnPropertyDescriptor(proto, 'writableLength')?.get;
    if (getter !== undefined) return getter as (this: Transform) => number;
  }
  throw new Error('node:stream has no writableLength');
})();
Object.defineProperty(GatheringTransform.prototype, 'writableLength', {
  get(this: GatheringTransform) {
    return writableLengthOf.call(this) + this[GATHER].length();
  },
  configurable: true,
});

/**
 * Builds the Transform around the engine that `create` makes (and may throw from). `batched`:
 * true, chunks written together reach the engine together (see the file's comment); `'direct'`,
 * each chunk reaches the engine on its own, as with false, and a string written to an idle
 * stream skips the Writable's machinery — for an engine whose outputs are promised per write
 * (the partial stream's snapshots and change lists).
 */
export function createTextTransform<E extends TextEngine>(
  options: TextTransformOptions,
  create: (output: EngineOutput) => E,
  batched: boolean | 'direct' = false,
): { stream: Transform; engine: E } {
  checkHighWaterMark(options.highWaterMark);
  const failFast = createFailFast(options);
  const utf8 = createUtf8Chunks();
  let engine: E;
  let input: DecodedWriter;
  const write = (chunk: string | Uint8Array): void => {
    if (typeof chunk === 'string') {
      if (utf8.pending) input.bytes(undefined, utf8.flush());
      input.text(chunk);
    } else {
      input.bytes(chunk, utf8.decode(chunk));
    }
  };
  // A batch being handed to the engine (texts gathered by `write`, or the chunks of a writev):
  // its entries, the next one, and its callback.
  let batch: readonly BatchEntry[] = [];
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
        const chunk = chunkOf(batch[batchAt++] as BatchEntry);
        if (typeof chunk !== 'string' || chunk.length >= BATCH_TEXT) {
          write(chunk);
          continue;
        }
        let text = chunk;
        while (batchAt < batch.length && text.length < BATCH_TEXT) {
          const next = chunkOf(batch[batchAt] as BatchEntry);
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
  const stream = new (batched ? GatheringTransform : Transform)({
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
      // Chunks written before this job ends are gathered, or queue up for `writev` (see the
      // file's comment).
      if (batched === true) {
        gathering = true;
        inFlight = typeof chunk === 'string' ? chunk.length : chunk.byteLength;
        firstCallback = callback;
        // A reaction of a settled promise: a microtask, without queueMicrotask's async context.
        RESOLVED.then(burst);
      } else settle(callback);
    },
    ...(batched === true
      ? {
          writev(chunks: { chunk: string | Uint8Array }[], callback: (error?: Error | null) => void) {
            batch = chunks;
            batchAt = 0;
            batchCallback = callback;
            drain();
          },
        }
      : {}),
    destroy(error: Error | null, callback: (error?: Error | null) => void) {
      gathering = false;
      callback(error);
    },
    flush(callback: TransformCallback) {
      try {
        if (utf8.pending) input.bytes(undefined, utf8.flush());
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
  /**
   * Strings written while the first chunk of a burst waits for the end of the job are joined
   * here, in texts of about BATCH_TEXT units, instead of each becoming an entry of the Writable's
   * buffer: what the buffer would cost per chunk is most of a burst's cost. Only while nothing
   * else is queued, so the order of chunks is kept; anything else (bytes, a callback or an
   * encoding, a corked or ending stream) takes the Writable's own path and ends the gathering.
   */
  let gathering = false;
  let gathered: string[] = [];
  let text = '';
  /** Units gathered and not yet handed to the engine, and the length of the chunk in flight. */
  let gatheredLength = 0;
  let inFlight = 0;
  /** A gathering `write` returned false: 'drain' is owed once the burst is handed over. */
  let owesDrain = false;
  const writableHighWaterMark = stream.writableHighWaterMark;
  /** The callback of the burst's first chunk: one write at a time is in flight. */
  let firstCallback: TransformCallback | undefined;
  /** At the end of the job of a burst's first chunk: the texts gathered go to the engine. */
  const burst = (): void => {
    const callback = firstCallback as TransformCallback;
    firstCallback = undefined;
    gathering = false;
    if (text !== '') {
      gathered.push(text);
      text = '';
    }
    if (gathered.length === 0) {
      settle(callback);
      return;
    }
    batch = gathered;
    gathered = [];
    batchAt = 0;
    batchCallback = (error) => {
      gatheredLength = 0;
      callback(error);
      if (owesDrain) {
        owesDrain = false;
        // The Writable emits its own 'drain' when it has a buffer of its own over the mark.
        if (error == null && !stream.writableNeedDrain) process.nextTick(emitDrain);
      }
    };
    if (stream.destroyed) {
      batch = [];
      settle(batchCallback);
      return;
    }
    drain();
  };
  /** A string was decoded at once in this job: the next one goes the Writable's way. */
  let justWritten = false;
  const endOfJob = (): void => {
    justWritten = false;
  };
  /**
   * Nothing in flight or queued, nothing in the way (cork, end, destroy, a full readable side),
   * and no fail fast (whose hold on the callback the Writable's path keeps): a string written
   * now can go to the engine at once.
   */
  const idle = (self: GatheringTransform): boolean =>
    failFast === undefined &&
    firstCallback === undefined &&
    batchCallback === undefined &&
    self.writableLength === 0 &&
    self.writableCorked === 0 &&
    !self.writableEnded &&
    !self.destroyed &&
    self.readableLength < self.readableHighWaterMark;
  const emitDrain = (): void => {
    if (!stream.destroyed && !stream.writableEnded) stream.emit('drain');
  };
  if (stream instanceof GatheringTransform) {
    stream[GATHER] = {
      write(self, chunk) {
        if (!gathering) {
          if (!justWritten && idle(self)) {
            // Decoded at once, as the Writable would, without its per-chunk machinery. Batched,
            // a next write in the same job starts a burst on the Writable's path.
            if (batched === true) {
              justWritten = true;
              RESOLVED.then(endOfJob);
            }
            try {
              write(chunk);
            } catch (error) {
              self.destroy(error as Error);
              return false;
            }
            return true;
          }
          return (Transform.prototype.write as (chunk: string) => boolean).call(self, chunk);
        }
        text += chunk;
        if (text.length >= BATCH_TEXT) {
          gathered.push(text);
          text = '';
        }
        gatheredLength += chunk.length;
        if (gatheredLength + inFlight < writableHighWaterMark) return true;
        owesDrain = true;
        return false;
      },
      stop() {
        gathering = false;
      },
      length: () => gatheredLength,
      read() {
        const callback = batchCallback;
        if (callback === undefined) return;
        // A batch stopped for backpressure goes on, or its callback, held, is released.
        if (batchAt < batch.length) drain();
        else {
          batchCallback = undefined;
          callback();
        }
      },
    };
  }
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
