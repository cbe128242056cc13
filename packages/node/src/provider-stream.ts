/**
 * Node adapter for the provider decoder: a model server's streamed HTTP body (bytes or text)
 * in, the answer text out as strings — so it pipes straight into `createJsonlStream` and the
 * other llmjson streams. Tool-call argument pieces, reasoning, metadata and diagnostics are
 * events; the metadata is also readable as properties. Bad input never becomes an 'error'.
 */

import type { Transform } from 'node:stream';
import {
  createProviderDecoder,
  type Diagnostic,
  PROVIDER_DECODER_STATE,
  type ProviderDecoder,
  type ProviderDecoderOptions,
  type ProviderMetadata,
  type ToolCallInfo,
} from '@llmjson/core';
import { createTextTransform, type TextTransformOptions } from './text-transform.js';

/**
 * No `failFast`: this stream validates nothing. Put it on the stream this one feeds: when that
 * one fails, piping both with `pipeline` (Node) or `pipeThrough` (Web) ends this one and the
 * response body too.
 */
export interface ProviderStreamOptions
  extends ProviderDecoderOptions,
    Omit<TextTransformOptions, 'failFast' | 'abortController'> {}

export interface ProviderStream extends Transform, Pick<ProviderDecoder, (typeof PROVIDER_DECODER_STATE)[number]> {
  on(event: 'metadata', listener: (metadata: ProviderMetadata) => void): this;
  on(event: 'toolArguments', listener: (key: string, delta: string, info: ToolCallInfo) => void): this;
  on(event: 'reasoning', listener: (delta: string) => void): this;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Creates a provider-stream Transform. Throws ConfigurationError for an invalid option. */
export function createProviderStream(options: ProviderStreamOptions): ProviderStream {
  const { stream, engine } = createTextTransform(options, (output) =>
    createProviderDecoder(options, {
      text: output.push,
      diagnostic: output.diagnostic,
      toolArguments: (key, delta, info) => stream.emit('toolArguments', key, delta, info),
      reasoning: (delta) => stream.emit('reasoning', delta),
      metadata: (metadata) => stream.emit('metadata', metadata),
    }),
  );
  for (const name of PROVIDER_DECODER_STATE)
    Object.defineProperty(stream, name, { get: () => engine[name], enumerable: true });
  return stream as ProviderStream;
}
