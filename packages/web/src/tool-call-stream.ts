/**
 * Web adapter for the tool-call engine (core's tool-calls.ts): a model server's streamed body
 * in (`response.body.pipeThrough(createToolCallStream(...))`), per tool call its arguments as a
 * live partial value out — one `ToolCallUpdate` per chunk that changed a call, validated against
 * the call's tool schema in `tools`. The answer text, reasoning and metadata go to callbacks;
 * the provider's state and the calls are readable as properties. Bad input never errors the
 * stream (with `failFast`, the first `violation` or `schema` diagnostic does:
 * `ContractViolationError`).
 *
 * JSON Schemas in `tools` need `compileJsonSchema` (`compileSchema` from `@llmjson/web/ajv`), as
 * in every Web stream; Standard Schemas (zod, valibot, arktype) need nothing.
 */

import {
  createToolCallDecoder,
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
import { offerBytesFirst } from './provider-stream.js';
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface ToolCallStreamOptions<T extends ToolSchemas = ToolSchemas>
  extends ToolCallOptions<T>,
    TextTransformOptions {
  /** Pieces of the answer text the stream also holds. Default: none. */
  readonly onText?: (delta: string) => void;
  /** Reasoning text (not part of the answer). Default: none. */
  readonly onReasoning?: (delta: string) => void;
  /** Called when the model, finish reason, usage or detected provider changes. Default: none. */
  readonly onMetadata?: (metadata: ProviderMetadata) => void;
}

/** A call's updates, typed by its tool's schema where it is a Standard Schema. */
export type ToolCallItem<T extends ToolSchemas> = {
  [K in keyof T & string]: ToolCallUpdate<SchemaValue<T[K]>> & { readonly name?: K };
}[keyof T & string];

export interface ToolCallStream<Item = ToolCallUpdate>
  extends TransformStream<string | Uint8Array, Item>,
    Pick<ProviderDecoder, Exclude<(typeof PROVIDER_DECODER_STATE)[number], 'stats'>> {
  /** Calls, updates and diagnostics counted; `provider` holds the decoder's own counts. */
  readonly stats: Readonly<ToolCallStats>;
  /** Every call seen, in order of its first argument piece: its value so far, `complete`. */
  readonly calls: readonly ToolCallState[];
}

/** Creates a tool-call TransformStream. Throws ConfigurationError for an invalid option or schema. */
export function createToolCallStream<T extends ToolSchemas = ToolSchemas>(
  options: ToolCallStreamOptions<T>,
): ToolCallStream<ToolCallItem<T>> {
  checkOptionNames('createToolCallStream', options, TOOL_CALL_STREAM_OPTIONS);
  const { stream, engine } = createTextTransformStream<ToolCallUpdate, ToolCallDecoder>(options, (output) =>
    createToolCallDecoder(namesChecked(options), {
      update: output.enqueue,
      diagnostic: output.diagnostic,
      ...(options.onText === undefined ? {} : { text: options.onText }),
      ...(options.onReasoning === undefined ? {} : { reasoning: options.onReasoning }),
      ...(options.onMetadata === undefined ? {} : { metadata: options.onMetadata }),
    }),
  );
  // A binary body (Bedrock's AWS event stream) reaches the decoder as bytes, as in the provider stream.
  if (options.input === 'auto' || options.input === 'bedrock') offerBytesFirst(stream, engine);
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  Object.defineProperty(stream, 'calls', { get: () => engine.calls, enumerable: true });
  for (const name of PROVIDER_DECODER_STATE) {
    if (name !== 'stats') Object.defineProperty(stream, name, { get: () => engine.provider[name], enumerable: true });
  }
  return stream as unknown as ToolCallStream<ToolCallItem<T>>;
}
