/**
 * The one Web adapter shape every llmjson stream uses: a TransformStream whose writable side
 * takes strings or Uint8Arrays and whose readable side carries values.
 *
 * It does three things: decodes bytes with one stateful UTF-8 decoder (a character split
 * across chunks decodes correctly; a string after bytes flushes the pending bytes first; the
 * decoder is flushed at the end), forwards text to a core engine's `write`/`end`, and lets the
 * engine enqueue results and report diagnostics. An exception from the engine or from a user
 * callback goes to `controller.error()`: both sides of the stream error with it.
 *
 * With `failFast`, the first contract violation ends the stream: the diagnostic is reported,
 * nothing the engine finds after it is, the writable side errors at once with the
 * `ContractViolationError` (so `pipeThrough` cancels the source), and the readable side errors
 * with it once the consumer has read every value enqueued before it. Erroring a WHATWG stream
 * drops its queue, so under fail fast the readable side is a ReadableStream of the adapter's
 * own, which can wait for its queue to drain: `stream.readable` is that stream.
 */

import type { Diagnostic, Engine, FailFastOptions } from '@llmjson/core';
import {
  checkHighWaterMark,
  createDecodedWriter,
  createFailFast,
  createUtf8Chunks,
  type FailFast,
  type StreamOptions,
} from '@llmjson/core/internal';

/** A core engine, as the adapter drives it. */
export type TextEngine = Pick<Engine<unknown>, 'write' | 'end' | 'invalidEncoding'>;

/** The adapter's own options (shared by the Node and Web adapters). */
export interface TextTransformOptions extends StreamOptions, FailFastOptions {}

export interface EngineOutput<T> {
  /** Enqueues a value on the readable side. */
  enqueue(value: T): void;
  /** Reports a diagnostic through the `onDiagnostic` callback. */
  diagnostic(diagnostic: Diagnostic): void;
}

const DEFAULT_HIGH_WATER_MARK = 16;

/** Builds the TransformStream around the engine that `create` makes (and may throw from). */
export function createTextTransformStream<T, E extends TextEngine>(
  options: TextTransformOptions,
  create: (output: EngineOutput<T>) => E,
): { stream: TransformStream<string | Uint8Array, T>; engine: E } {
  checkHighWaterMark(options.highWaterMark);
  const failFast = createFailFast(options);
  const highWaterMark = options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK;
  const onDiagnostic = options.onDiagnostic;
  // Set before any chunk arrives (by `start`, which the stream constructors call at once).
  let enqueue: ((value: T) => void) | undefined;
  const diagnostic = (d: Diagnostic) => {
    if (failFast?.failure !== undefined) return;
    onDiagnostic?.(d);
    failFast?.check(d);
  };
  const engine = create({
    enqueue: (value) => {
      if (failFast?.failure === undefined) enqueue?.(value);
    },
    diagnostic,
  });
  const input = createDecodedWriter(engine, diagnostic);
  const utf8 = createUtf8Chunks();
  const text: TextSink = {
    write(chunk) {
      if (typeof chunk === 'string') {
        if (utf8.pending) input.bytes(undefined, utf8.flush());
        input.text(chunk);
      } else {
        input.bytes(chunk, utf8.decode(chunk));
      }
    },
    end() {
      if (utf8.pending) input.bytes(undefined, utf8.flush());
      engine.end();
    },
  };
  if (failFast !== undefined) {
    const sides = failFastSides<T>(text, failFast, highWaterMark, (f) => {
      enqueue = f;
    });
    // A TransformStream to every caller (`instanceof`, the types), with fail fast's two sides.
    const stream = new TransformStream<string | Uint8Array, T>();
    Object.defineProperty(stream, 'readable', { value: sides.readable, configurable: true });
    Object.defineProperty(stream, 'writable', { value: sides.writable, configurable: true });
    return { stream, engine };
  }
  const stream = new TransformStream<string | Uint8Array, T>(
    {
      start(c) {
        enqueue = (value) => c.enqueue(value);
      },
      transform(chunk, c) {
        try {
          text.write(chunk);
        } catch (error) {
          c.error(error);
        }
      },
      flush(c) {
        try {
          text.end();
        } catch (error) {
          c.error(error);
        }
      },
    },
    undefined,
    { highWaterMark },
  );
  return { stream, engine };
}

/** Decoded text in, through the engine. */
interface TextSink {
  write(chunk: string | Uint8Array): void;
  end(): void;
}

/**
 * Fail fast's two sides. The writable side errors the moment a write or the end finds the
 * violation (a pipe into it cancels its source); the readable side errors with the same error
 * once its queue is empty, so that every value enqueued before the violation is read first.
 * A write waits while the readable queue is full, as a TransformStream's does.
 */
function failFastSides<T>(
  text: TextSink,
  failFast: FailFast,
  highWaterMark: number,
  setEnqueue: (enqueue: (value: T) => void) => void,
): { readable: ReadableStream<T>; writable: WritableStream<string | Uint8Array> } {
  let out!: ReadableStreamDefaultController<T>;
  let writer: WritableStreamDefaultController | undefined;
  /** The error the readable side ends with once its queue is empty. */
  let ending: { readonly error: unknown } | undefined;
  let wanted: (() => void) | undefined;
  const wake = () => {
    const resolve = wanted;
    wanted = undefined;
    resolve?.();
  };
  const empty = () => out.desiredSize === highWaterMark;
  const readable = new ReadableStream<T>(
    {
      start(c) {
        out = c;
        setEnqueue((value) => c.enqueue(value));
      },
      pull(c) {
        if (ending !== undefined && empty()) c.error(ending.error);
        wake();
      },
      cancel(reason) {
        // As a TransformStream does: the writable side errors, and a pipe into it cancels its source.
        writer?.error(reason);
        wake();
      },
    },
    { highWaterMark },
  );
  /** Ends both sides: the readable one at once, or after its queue for a violation. */
  const fail = (error: unknown): never => {
    if (ending === undefined) {
      ending = { error };
      if (error !== failFast.failure || empty()) out.error(error);
    }
    wake();
    throw error;
  };
  const room = (): Promise<void> | undefined =>
    (out.desiredSize ?? 0) > 0
      ? undefined
      : new Promise<void>((resolve) => {
          wanted = resolve;
        });
  const writable = new WritableStream<string | Uint8Array>({
    start(c) {
      writer = c;
    },
    write(chunk) {
      try {
        text.write(chunk);
      } catch (error) {
        fail(error);
      }
      if (failFast.failure !== undefined) fail(failFast.failure);
      return room();
    },
    close() {
      try {
        text.end();
      } catch (error) {
        fail(error);
      }
      if (failFast.failure !== undefined) fail(failFast.failure);
      out.close();
    },
    abort(reason) {
      if (ending === undefined) {
        ending = { error: reason };
        out.error(reason);
      }
      wake();
    },
  });
  return { readable, writable };
}
