/**
 * The provider decoder's public types: the options, what the sink receives, and the decoder's
 * readable state. Every wire format module delivers through these shapes, so a user reads the
 * same outputs whatever the provider (see decoder.ts for the contract).
 */

import type { Diagnostic } from '../diagnostics/diagnostics.js';
import type { DiagnosticCounts, Engine } from '../engines/engine.js';

/** The wire formats the decoder reads. */
export const ProviderFormat = {
  openai: 'openai',
  openaiResponses: 'openai-responses',
  anthropic: 'anthropic',
  ollama: 'ollama',
  gemini: 'gemini',
  cohere: 'cohere',
  mistral: 'mistral',
  bedrock: 'bedrock',
  aiSdk: 'ai-sdk',
  agUi: 'ag-ui',
} as const;
export type ProviderFormat = (typeof ProviderFormat)[keyof typeof ProviderFormat];

export type ProviderInput = ProviderFormat | 'auto';

export interface ProviderDecoderOptions {
  /** The body's wire format, or `'auto'` to detect it from the first lines and events. */
  readonly input: ProviderInput;
  /**
   * Longest line, and longest SSE event data, kept, in UTF-16 code units (for a JSON-array
   * body: longest element; for a binary AWS event stream: longest frame, in bytes); a longer
   * one is discarded with a `too-long` diagnostic. Default 8 MiB (8_388_608).
   */
  readonly maxEventLength?: number;
  /**
   * Longest tool call's arguments, in UTF-16 code units: the piece that would make a call's
   * arguments longer is not delivered, the call is dropped with one `too-long` diagnostic (it
   * leaves `toolCalls`, and no later piece of it is delivered or reported), and the stream goes
   * on. Default 8 MiB (8_388_608), as a value in flight.
   */
  readonly maxArgumentsLength?: number;
  /**
   * Whether `toolCalls[i].arguments` keeps each call's argument text. Default `true`; `false`
   * (a consumer that reads only the answer text) keeps none: the pieces still go to the sink's
   * `toolArguments`, and `arguments` is `''`.
   */
  readonly keepToolArguments?: boolean;
}

/** Token counts, normalised across providers (a field is absent when the provider did not send it). */
export type Usage = {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
};

export type ProviderMetadata = {
  /** The wire format decoded (under `auto`, once recognised). */
  readonly provider?: ProviderFormat;
  readonly model?: string;
  readonly finishReason?: string;
  readonly usage?: Usage;
};

export interface ToolCallInfo {
  /**
   * The provider's index: chat `tool_calls[j].index`, Anthropic block index, Responses `output_index`,
   * Ollama and Gemini the call's number in the stream (from 0), Cohere the tool-call `index`,
   * Bedrock the `contentBlockIndex`, AI SDK parts and AG-UI events the call's number in the stream (from 0).
   */
  readonly index: number;
  /** The provider's call id (`call_...`, `toolu_...`), once known. */
  readonly id?: string;
  /** The tool's name, once known. */
  readonly name?: string;
}

export interface ToolCall extends ToolCallInfo {
  /** The key the argument pieces were delivered under. */
  readonly key: string;
  /** The argument pieces concatenated (see the tool-call rule in the file header). */
  readonly arguments: string;
  /** Whether the provider closed the call; `false` for a call the stream cut off. */
  readonly complete: boolean;
}

/** An error the provider reported inside the stream. */
export interface ProviderError {
  readonly message: string;
  /** The provider's error type or code (`overloaded_error`, `server_error`...), when given. */
  readonly code?: string;
}

export interface ProviderSink {
  /** A piece of the answer text (never empty). */
  text(delta: string): void;
  diagnostic(diagnostic: Diagnostic): void;
  /** A piece of a tool call's argument JSON (never empty), under the call's key. */
  toolArguments?(key: string, delta: string, info: ToolCallInfo): void;
  /**
   * The call under `key` was dropped (its arguments grew past `maxArgumentsLength`), right
   * after its `too-long` diagnostic: no more of its pieces will come.
   */
  toolCallDropped?(key: string, info: ToolCallInfo): void;
  /** A piece of reasoning text (DeepSeek `reasoning_content`, Anthropic thinking...): not answer text. */
  reasoning?(delta: string): void;
  /** The metadata, each time an event changed it. */
  metadata?(metadata: ProviderMetadata): void;
}

export interface ProviderStats {
  /** SSE events dispatched, JSON lines read, JSON-array elements read, or binary frames read. */
  events: number;
  /** Events that carried nothing usable and were reported (not JSON, unknown shape, after `[DONE]`). */
  ignoredEvents: number;
  /** Diagnostics by reason. */
  diagnostics: DiagnosticCounts;
}

export interface ProviderDecoder extends Engine<ProviderStats> {
  /**
   * Offers a piece of the raw body, before any text decoding. Returns true when the decoder took
   * it: the body is a binary AWS event stream (Bedrock ConverseStream or
   * InvokeModelWithResponseStream, `application/vnd.amazon.eventstream`), which
   * `input: 'bedrock'` and `'auto'` recognise by its first byte (a frame starts with the high
   * byte of its length; no text body starts with a control byte). Returns false when the body is text: the caller decodes it (UTF-8) and
   * `write`s it, as for every format. The first non-empty piece (or a first `write`) decides
   * for the whole stream; other inputs always return false. After a binary start, `write(text)`
   * takes the text's UTF-8 bytes.
   */
  bytes(chunk: Uint8Array): boolean;
  /** The wire format decoded: the `input` option, or what `auto` recognised (until then `undefined`). */
  readonly provider: ProviderFormat | undefined;
  /** The model the provider named, once it did. */
  readonly model: string | undefined;
  /** The provider's finish reason for the last message, once sent (see the header). */
  readonly finishReason: string | undefined;
  /** The normalised token counts of the last message, once sent. */
  readonly usage: Usage | undefined;
  /** Every tool call seen, in order of first appearance; final after `end()`. */
  readonly toolCalls: readonly ToolCall[];
  /** The last error the provider reported in the stream, if any. */
  readonly error: ProviderError | undefined;
  /**
   * True once the stream's end marker arrived (`[DONE]`, a chat `finish_reason`, Anthropic
   * `message_stop`, Responses `response.completed`/`.incomplete`/`.failed`, Ollama `done`,
   * Gemini `finishReason`, Cohere `message-end`, Bedrock `messageStop`, an AI SDK `finish` part,
   * AG-UI `RUN_FINISHED`):
   * after `end()`, false means the body was cut before the answer ended.
   */
  readonly complete: boolean;
  /**
   * True once `data: [DONE]` arrived: nothing after it is decoded, so a client may stop reading.
   * (Not `closed`: on a Node stream that name is `Readable#closed`, whether the stream emitted `close`.)
   */
  readonly doneMarker: boolean;
}

/** The decoder's readable state, as the Node and Web adapters expose it on their streams. */
export const PROVIDER_DECODER_STATE = [
  'provider',
  'model',
  'finishReason',
  'usage',
  'toolCalls',
  'error',
  'complete',
  'doneMarker',
  'stats',
] as const;
