/**
 * Web adapter for the provider decoder: a model server's streamed HTTP body (bytes or text)
 * in, the answer text out as strings — so `response.body.pipeThrough(createProviderStream(...))`
 * pipes straight into `createJsonlStream` and the other llmjson streams in a browser or an edge
 * runtime. Tool-call argument pieces, reasoning and metadata go to callbacks; the metadata is
 * also readable as properties. Bad input never errors the stream.
 */

import {
  createProviderDecoder,
  PROVIDER_DECODER_STATE,
  type ProviderDecoder,
  type ProviderDecoderOptions,
  type ProviderMetadata,
  type ToolCallInfo,
} from '@llmjson/core';
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
  const { stream, engine } = createTextTransformStream<string, ProviderDecoder>(options, (output) =>
    createProviderDecoder(options, {
      text: output.enqueue,
      diagnostic: output.diagnostic,
      ...(options.onToolArguments === undefined ? {} : { toolArguments: options.onToolArguments }),
      ...(options.onReasoning === undefined ? {} : { reasoning: options.onReasoning }),
      ...(options.onMetadata === undefined ? {} : { metadata: options.onMetadata }),
    }),
  );
  for (const name of PROVIDER_DECODER_STATE)
    Object.defineProperty(stream, name, { get: () => engine[name], enumerable: true });
  return stream as ProviderStream;
}
