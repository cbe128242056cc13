/**
 * The one Web adapter shape every llmjson stream uses: a TransformStream whose writable side
 * takes strings or Uint8Arrays and whose readable side carries values.
 *
 * It does three things: decodes bytes with one stateful UTF-8 decoder (a character split
 * across chunks decodes correctly; a string after bytes flushes the pending bytes first; the
 * decoder is flushed at the end), forwards text to a core engine's `write`/`end`, and lets the
 * engine enqueue results and report diagnostics. An exception from the engine or from a user
 * callback goes to `controller.error()`: both sides of the stream error with it.
 */

import {
  checkHighWaterMark,
  createDecodedWriter,
  type Diagnostic,
  type Engine,
  type StreamOptions,
} from '@llmjson/core';

/** A core engine, as the adapter drives it. */
export type TextEngine = Pick<Engine<unknown>, 'write' | 'end' | 'invalidEncoding'>;

/** The adapter's own options (shared by the Node and Web adapters). */
export type TextTransformOptions = StreamOptions;

export interface EngineOutput<T> {
  /** Enqueues a value on the readable side. */
  enqueue(value: T): void;
  /** Reports a diagnostic through the `onDiagnostic` callback. */
  diagnostic(diagnostic: Diagnostic): void;
}

const STREAMING = { stream: true } as const;
const DEFAULT_HIGH_WATER_MARK = 16;

/** Builds the TransformStream around the engine that `create` makes (and may throw from). */
export function createTextTransformStream<T, E extends TextEngine>(
  options: TextTransformOptions,
  create: (output: EngineOutput<T>) => E,
): { stream: TransformStream<string | Uint8Array, T>; engine: E } {
  checkHighWaterMark(options.highWaterMark);
  const highWaterMark = options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK;
  const onDiagnostic = options.onDiagnostic;
  // Set by `start`, which the TransformStream constructor calls before any chunk arrives.
  let controller: TransformStreamDefaultController<T> | undefined;
  const diagnostic = (d: Diagnostic) => onDiagnostic?.(d);
  const engine = create({
    enqueue: (value) => controller?.enqueue(value),
    diagnostic,
  });
  const input = createDecodedWriter(engine, diagnostic);
  const utf8 = new TextDecoder('utf-8');
  let bytesPending = false;
  const stream = new TransformStream<string | Uint8Array, T>(
    {
      start(c) {
        controller = c;
      },
      transform(chunk, c) {
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
          c.error(error);
        }
      },
      flush(c) {
        try {
          if (bytesPending) input.bytes(undefined, utf8.decode());
          engine.end();
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
