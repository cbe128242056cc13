/**
 * Node adapter for the provider decoder: a model server's streamed HTTP body (bytes or text)
 * in, the answer text out as strings — so it pipes straight into `createJsonlStream` and the
 * other llmjson streams. Tool-call argument pieces, reasoning, metadata and diagnostics go to
 * the options' callbacks, as on the Web, and are events too; the metadata is also readable as
 * properties. Bad input never becomes an 'error'.
 *
 * A binary body (Bedrock's AWS event stream, under `input: 'bedrock'` or `'auto'`) must reach
 * the decoder as bytes, not UTF-8-decoded text: each Buffer is first offered to the decoder's
 * `bytes`, and goes the text way (the shared UTF-8 decoding of text-transform.ts) only when the
 * decoder hands it back. Other inputs use the text Transform unchanged.
 */

import type { Transform, TransformCallback } from 'node:stream';
import {
  createProviderDecoder,
  type Diagnostic,
  type ProviderDecoder,
  type ProviderDecoderOptions,
  type ProviderMetadata,
  type ToolCallInfo,
} from '@llmjson/core';
import {
  checkOptionNames,
  namesChecked,
  PROVIDER_DECODER_STATE,
  PROVIDER_STREAM_OPTIONS,
} from '@llmjson/core/internal';
import { createTextTransform, type TextTransformOptions, type TypedAsyncIterator } from './text-transform.js';

/**
 * No `failFast`: this stream validates nothing. Put it on the stream this one feeds: when that
 * one fails, piping both with `pipeline` (Node) or `pipeThrough` (Web) ends this one and the
 * response body too.
 */
export interface ProviderStreamOptions
  extends ProviderDecoderOptions,
    Omit<TextTransformOptions, 'failFast' | 'abortController'> {
  /** Tool-call argument pieces, per call key (also the `'toolArguments'` event). Default: none. */
  readonly onToolArguments?: (key: string, delta: string, info: ToolCallInfo) => void;
  /** Reasoning text, not part of the answer (also the `'reasoning'` event). Default: none. */
  readonly onReasoning?: (delta: string) => void;
  /**
   * Called when the model, finish reason, usage or detected provider changes (also the
   * `'metadata'` event). Default: none.
   */
  readonly onMetadata?: (metadata: ProviderMetadata) => void;
}

/** The readable side yields the answer text, as strings (Node itself types it `any`). */
export interface ProviderStream extends Transform, Pick<ProviderDecoder, (typeof PROVIDER_DECODER_STATE)[number]> {
  [Symbol.asyncIterator](): TypedAsyncIterator<string>;
  toArray(options?: Parameters<Transform['toArray']>[0]): Promise<string[]>;
  on(event: 'data', listener: (text: string) => void): this;
  on(event: 'metadata', listener: (metadata: ProviderMetadata) => void): this;
  on(event: 'toolArguments', listener: (key: string, delta: string, info: ToolCallInfo) => void): this;
  on(event: 'reasoning', listener: (delta: string) => void): this;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Creates a provider-stream Transform. Throws ConfigurationError for an invalid option. */
export function createProviderStream(options: ProviderStreamOptions): ProviderStream {
  checkOptionNames('createProviderStream', options, PROVIDER_STREAM_OPTIONS);
  const { stream, engine } = createTextTransform(options, (output) =>
    createProviderDecoder(namesChecked(options), {
      text: output.push,
      diagnostic: output.diagnostic,
      toolArguments: (key, delta, info) => {
        options.onToolArguments?.(key, delta, info);
        stream.emit('toolArguments', key, delta, info);
      },
      ...answerSideEvents(options, (): Transform => stream),
    }),
  );
  if (options.input === 'auto' || options.input === 'bedrock') offerBytesFirst(stream, engine);
  defineProviderState(stream, engine, PROVIDER_DECODER_STATE);
  return stream as ProviderStream;
}

/**
 * The reasoning and metadata callbacks of a provider decoder, as the provider and tool-call
 * streams give them: the option's callback, then the stream's event of the same name.
 * `stream` is read when one fires (the decoder is made before the stream exists).
 */
export function answerSideEvents(
  options: {
    readonly onReasoning?: ((delta: string) => void) | undefined;
    readonly onMetadata?: ((metadata: ProviderMetadata) => void) | undefined;
  },
  stream: () => Transform,
): { reasoning(delta: string): void; metadata(metadata: ProviderMetadata): void } {
  return {
    reasoning(delta) {
      options.onReasoning?.(delta);
      stream().emit('reasoning', delta);
    },
    metadata(metadata) {
      options.onMetadata?.(metadata);
      stream().emit('metadata', metadata);
    },
  };
}

const DECODER = Symbol('provider decoder');
type WithDecoder = Transform & { [DECODER]: Record<string, unknown> };
/**
 * The stream's properties that read the decoder's state (`model`, `usage`…): one getter per
 * name for every stream, not a closure each, so that streams share their property layout.
 */
const STATE_GETTERS: Readonly<Record<string, (this: WithDecoder) => unknown>> = Object.fromEntries(
  PROVIDER_DECODER_STATE.map((name) => [
    name,
    function (this: WithDecoder) {
      return this[DECODER][name];
    },
  ]),
);

/** Defines on `stream` the properties `names` that read `decoder`'s state of the same names. */
export function defineProviderState(stream: Transform, decoder: object, names: readonly string[]): void {
  (stream as WithDecoder)[DECODER] = decoder as Record<string, unknown>;
  for (const name of names) {
    const get = STATE_GETTERS[name];
    if (get !== undefined) Object.defineProperty(stream, name, { get, enumerable: true });
  }
}

type Writev = (chunks: { chunk: string | Uint8Array }[], callback: (error?: Error | null) => void) => void;

/**
 * Offers each Uint8Array to the decoder's `bytes` before the text Transform decodes it, on both
 * ways a Transform receives chunks (`_transform`, and `_writev` for a batch). Once the decoder
 * took a chunk the body is binary: every later chunk goes to the decoder here (a string as its
 * UTF-8 bytes, through `write`). Once it handed one back the body is text: every chunk goes the
 * text way, at the cost of one comparison. Backpressure: `_transform`'s callback is held by the
 * Transform itself; a batch taken here holds its callback until the next read, as a text batch.
 */
export function offerBytesFirst(stream: Transform, engine: Pick<ProviderDecoder, 'bytes' | 'write'>): void {
  let body: 'undecided' | 'text' | 'binary' = 'undecided';
  /** Whether the decoder took `chunk` (an empty Uint8Array holds nothing: taken, whatever the body). */
  const take = (chunk: string | Uint8Array): boolean => {
    if (body === 'text') return false;
    if (typeof chunk === 'string') {
      if (body !== 'binary') return false;
      engine.write(chunk);
      return true;
    }
    if (chunk.length === 0) return true;
    const taken = engine.bytes(chunk);
    body = taken ? 'binary' : 'text';
    return taken;
  };
  const transform = stream._transform;
  stream._transform = function offered(chunk: string | Uint8Array, encoding, callback: TransformCallback) {
    let taken: boolean;
    try {
      taken = take(chunk);
    } catch (error) {
      callback(error as Error);
      return;
    }
    if (taken) callback();
    else transform.call(this, chunk, encoding, callback);
  };
  // A Transform without batching has `_writev` null: its chunks all come through `_transform`.
  const writev = stream._writev as Writev | null | undefined;
  if (writev == null) return;
  let held: (() => void) | undefined;
  stream._writev = function offeredBatch(chunks, callback) {
    let i = 0;
    try {
      while (i < chunks.length && take((chunks[i] as { chunk: string | Uint8Array }).chunk)) i++;
    } catch (error) {
      callback(error as Error);
      return;
    }
    if (i < chunks.length) writev.call(this, i === 0 ? chunks : chunks.slice(i), callback);
    else if (this.readableLength >= this.readableHighWaterMark) held = () => callback();
    else callback();
  };
  const read = stream._read;
  stream._read = function released(size: number) {
    const callback = held;
    held = undefined;
    callback?.();
    read.call(this, size);
  };
}
