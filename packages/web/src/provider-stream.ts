/**
 * Web adapter for the provider decoder: a model server's streamed HTTP body (bytes or text)
 * in, the answer text out as strings — so `response.body.pipeThrough(createProviderStream(...))`
 * pipes straight into `createJsonlStream` and the other llmjson streams in a browser or an edge
 * runtime. Tool-call argument pieces, reasoning and metadata go to callbacks; the metadata is
 * also readable as properties. Bad input never errors the stream.
 *
 * A binary body (Bedrock's AWS event stream, under `input: 'bedrock'` or `'auto'`) must reach
 * the decoder as bytes, not UTF-8-decoded text: the writable side then offers each Uint8Array to
 * the decoder's `bytes` first, and passes it on to the text stream (the shared UTF-8 decoding of
 * text-transform.ts) only when the decoder hands it back. Other inputs use the text stream as is.
 */

import {
  createProviderDecoder,
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
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

/**
 * No `failFast`: this stream validates nothing. Put it on the stream this one feeds: when that
 * one fails, piping both with `pipeline` (Node) or `pipeThrough` (Web) ends this one and the
 * response body too.
 */
export interface ProviderStreamOptions
  extends ProviderDecoderOptions,
    Omit<TextTransformOptions, 'failFast' | 'abortController'> {
  /** Tool-call argument pieces, per call key. Default: none. */
  readonly onToolArguments?: (key: string, delta: string, info: ToolCallInfo) => void;
  /** Reasoning text (not part of the answer). Default: none. */
  readonly onReasoning?: (delta: string) => void;
  /** Called when the model, finish reason, usage or detected provider changes. Default: none. */
  readonly onMetadata?: (metadata: ProviderMetadata) => void;
}

export interface ProviderStream
  extends TransformStream<string | Uint8Array, string>,
    Pick<ProviderDecoder, (typeof PROVIDER_DECODER_STATE)[number]> {}

/** Creates a provider-stream TransformStream. Throws ConfigurationError for an invalid option. */
export function createProviderStream(options: ProviderStreamOptions): ProviderStream {
  checkOptionNames('createProviderStream', options, PROVIDER_STREAM_OPTIONS);
  const { stream, engine } = createTextTransformStream<string, ProviderDecoder>(options, (output) =>
    createProviderDecoder(namesChecked(options), {
      text: output.enqueue,
      diagnostic: output.diagnostic,
      ...(options.onToolArguments === undefined ? {} : { toolArguments: options.onToolArguments }),
      ...(options.onReasoning === undefined ? {} : { reasoning: options.onReasoning }),
      ...(options.onMetadata === undefined ? {} : { metadata: options.onMetadata }),
    }),
  );
  if (options.input === 'auto' || options.input === 'bedrock') offerBytesFirst(stream, engine);
  for (const name of PROVIDER_DECODER_STATE)
    Object.defineProperty(stream, name, { get: () => engine[name], enumerable: true });
  return stream as ProviderStream;
}

/**
 * Puts a writable side in front of the text stream's: a Uint8Array the decoder takes as binary
 * is not decoded as text; everything else is written on, in order (each write waits for the
 * previous one). A write the decoder took is followed by an empty string written on, so that it
 * waits while the readable side is full, as a text write does. An exception from the decoder
 * (a callback that threw) errors both sides, as `controller.error()` does.
 */
export function offerBytesFirst<T>(
  stream: TransformStream<string | Uint8Array, T>,
  engine: Pick<ProviderDecoder, 'bytes'>,
): void {
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<string | Uint8Array>({
    write(chunk) {
      if (typeof chunk !== 'string') {
        let taken: boolean;
        try {
          taken = engine.bytes(chunk);
        } catch (error) {
          writer.abort(error).catch(() => {});
          throw error;
        }
        if (taken) return writer.write('');
      }
      return writer.write(chunk);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  Object.defineProperty(stream, 'writable', { value: writable, configurable: true });
}
