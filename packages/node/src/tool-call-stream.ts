/**
 * Node adapter for the tool-call engine (core's tool-calls.ts): a model server's streamed body
 * (bytes or text, any format the provider decoder reads) in; per tool call, its arguments as a
 * live partial value out — one `ToolCallUpdate` per chunk that changed a call (the call's key,
 * index, id and name, the arguments' snapshot, the changes, `complete`), validated against the
 * call's tool schema in `tools`. The answer text, reasoning and metadata go to the options'
 * callbacks, as on the Web, and are events too; the provider's state and the calls are
 * readable as properties. Bad input never becomes an 'error' (with `failFast`, the first
 * `violation` — a call's arguments that no completion can make valid — or `schema` diagnostic
 * does: a `ContractViolationError`, and the request is aborted through `abortController`).
 */

import type { Transform } from 'node:stream';
import {
  createToolCallDecoder,
  type Diagnostic,
  type ProviderDecoder,
  type ProviderMetadata,
  type SchemaValue,
  type ToolCallDecoder,
  type ToolCallOptions,
  type ToolCallState,
  type ToolCallStats,
  type ToolCallUpdate,
  type ToolSchemas,
} from '@llmjson/core';
import {
  checkOptionNames,
  namesChecked,
  PROVIDER_DECODER_STATE,
  TOOL_CALL_STREAM_OPTIONS,
} from '@llmjson/core/internal';
import { withAjvDefault } from './json-schema-default.js';
import { answerSideEvents, defineProviderState, offerBytesFirst } from './provider-stream.js';
import { createTextTransform, type TextTransformOptions, type TypedAsyncIterator } from './text-transform.js';

export interface ToolCallStreamOptions<T extends ToolSchemas = ToolSchemas>
  extends ToolCallOptions<T>,
    TextTransformOptions {
  /** Pieces of the answer text the stream also holds (also the `'text'` event). Default: none. */
  readonly onText?: (delta: string) => void;
  /** Reasoning text, not part of the answer (also the `'reasoning'` event). Default: none. */
  readonly onReasoning?: (delta: string) => void;
  /**
   * Called when the model, finish reason, usage or detected provider changes (also the
   * `'metadata'` event). Default: none.
   */
  readonly onMetadata?: (metadata: ProviderMetadata) => void;
}

/** A call's updates, typed by its tool's schema where it is a Standard Schema. */
export type ToolCallItem<T extends ToolSchemas> = {
  [K in keyof T & string]: ToolCallUpdate<SchemaValue<T[K]>> & { readonly name?: K };
}[keyof T & string];

export interface ToolCallStream<Item = ToolCallUpdate>
  extends Transform,
    Pick<ProviderDecoder, Exclude<(typeof PROVIDER_DECODER_STATE)[number], 'stats'>> {
  /** Calls, updates and diagnostics counted; `provider` holds the decoder's own counts. */
  readonly stats: Readonly<ToolCallStats>;
  /** Every call seen, in order of its first argument piece: its value so far, `complete`. */
  readonly calls: readonly ToolCallState[];
  [Symbol.asyncIterator](): TypedAsyncIterator<Item>;
  toArray(options?: Parameters<Transform['toArray']>[0]): Promise<Item[]>;
  on(event: 'data', listener: (update: Item) => void): this;
  on(event: 'text', listener: (delta: string) => void): this;
  on(event: 'reasoning', listener: (delta: string) => void): this;
  on(event: 'metadata', listener: (metadata: ProviderMetadata) => void): this;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/**
 * Creates a tool-call Transform. JSON Schemas in `tools` are compiled with ajv unless
 * `compileJsonSchema` says otherwise. Throws ConfigurationError for an invalid option or schema.
 */
export function createToolCallStream<T extends ToolSchemas = ToolSchemas>(
  options: ToolCallStreamOptions<T>,
): ToolCallStream<ToolCallItem<T>> {
  checkOptionNames('createToolCallStream', options, TOOL_CALL_STREAM_OPTIONS);
  const decoderOptions = namesChecked(withAjvDefault(options));
  let decoder!: ToolCallDecoder;
  const { stream } = createTextTransform(
    options,
    (output) => {
      decoder = createToolCallDecoder(decoderOptions, {
        update: output.push,
        diagnostic: output.diagnostic,
        text: (delta) => {
          options.onText?.(delta);
          stream.emit('text', delta);
        },
        ...answerSideEvents(options, (): Transform => stream),
      });
      return decoder;
    },
    true,
  );
  // A binary body (Bedrock's AWS event stream) reaches the decoder as bytes, as in the provider stream.
  if (options.input === 'auto' || options.input === 'bedrock') offerBytesFirst(stream, decoder);
  // The decoder's own stats and calls; the provider's state (model, usage…) but its stats.
  Object.defineProperty(stream, 'stats', { value: decoder.stats, enumerable: true });
  (stream as WithToolCalls)[TOOL_CALLS] = decoder;
  Object.defineProperty(stream, 'calls', { get: callsOf, enumerable: true });
  defineProviderState(
    stream,
    decoder.provider,
    PROVIDER_DECODER_STATE.filter((name) => name !== 'stats'),
  );
  return stream as ToolCallStream<ToolCallItem<T>>;
}

const TOOL_CALLS = Symbol('tool-call decoder');
type WithToolCalls = Transform & { [TOOL_CALLS]: ToolCallDecoder };
/** `calls`, read afresh each time (one getter for every stream, not a closure each). */
function callsOf(this: WithToolCalls): readonly ToolCallState[] {
  return this[TOOL_CALLS].calls;
}
