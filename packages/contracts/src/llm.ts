/**
 * The user's model function, as the prompt runner calls it.
 *
 * `llm(request)` may return (or resolve to) the answer as a string, an async iterable of text
 * chunks (strings or UTF-8 bytes; a Node Readable is one), or a WHATWG ReadableStream — or an
 * `LlmResult` object holding such an `output` plus what the provider reported: `model`,
 * `provider`, `usage`, `finishReason`. Those may be filled in while `output` streams (a
 * streaming client learns the finish reason and usage at the end): the runner reads them
 * after the output is consumed.
 */

import type { JsonSchema, LlmOutput, LlmResult } from '@llmjson/core';
import { createUtf8Chunks } from '@llmjson/core/internal';

export type { LlmOutput, LlmResult };

export type ResponseType = 'text' | 'json' | 'jsonl';

export interface LlmRequest {
  /** The prompt's id in the configuration. */
  readonly id: string;
  readonly system?: string;
  /** The rendered prompt. */
  readonly prompt: string;
  readonly responseType: ResponseType;
  /**
   * The JSON Schema the answer must match (json and jsonl prompts), for providers with
   * structured output. For a prompt with a Standard Schema: the vendor's JSON Schema export,
   * omitted when the vendor has none.
   */
  readonly schema?: JsonSchema;
  /**
   * Aborts the call. The runner always passes its own signal, linked to the caller's
   * `CallOptions.signal`: it fires when the caller aborts, and when the runner gives up on the
   * answer (`failFast`: the first violation of the contract). A client should close its
   * connection on it, so the model stops generating.
   */
  readonly signal?: AbortSignal;
  /** Which attempt this call is, 1-based: 2 and more are retries after a failed contract (`retries`). */
  readonly attempt?: number;
  /**
   * The conversation so far, for clients that send a message list: the system prompt (when
   * there is one) and the rendered prompt, then, on a retry, each earlier answer as an
   * `assistant` turn followed by its correction as a `user` turn. `system` and `prompt` stay
   * the first call's, so a client that reads only them sends the first call again.
   */
  readonly messages?: readonly LlmMessage[];
}

/** One turn of the conversation (`LlmRequest.messages`). */
export interface LlmMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export type Llm = (request: LlmRequest) => LlmOutput | LlmResult | Promise<LlmOutput | LlmResult>;

function isOutput(value: unknown): value is LlmOutput {
  if (typeof value === 'string') return true;
  if (typeof value !== 'object' || value === null) return false;
  return Symbol.asyncIterator in value || typeof (value as ReadableStream).getReader === 'function';
}

/** The answer's text chunks, decoded, and the result whose fields are read once they are consumed. */
export function normalizeLlmResult(value: LlmOutput | LlmResult): { chunks: AsyncIterable<string>; result: LlmResult } {
  const result: LlmResult = isOutput(value) ? { output: value } : value;
  if (!isOutput(result.output)) {
    throw new TypeError(
      'the llm function must return a string, an async iterable of text chunks, a Node Readable, a ReadableStream, or { output, model?, provider?, usage?, finishReason? }',
    );
  }
  return { chunks: textChunks(result.output), result };
}

async function* textChunks(output: LlmOutput): AsyncIterable<string> {
  if (typeof output === 'string') {
    yield output;
    return;
  }
  const utf8 = createUtf8Chunks();
  const iterable: AsyncIterable<string | Uint8Array> =
    Symbol.asyncIterator in output ? output : readableIterable(output as ReadableStream<string | Uint8Array>);
  for await (const chunk of iterable) {
    if (typeof chunk === 'string') {
      const rest = utf8.flush();
      if (rest !== '') yield rest;
      if (chunk !== '') yield chunk;
    } else {
      const text = utf8.decode(chunk);
      if (text !== '') yield text;
    }
  }
  const rest = utf8.flush();
  if (rest !== '') yield rest;
}

async function* readableIterable<T>(stream: ReadableStream<T>): AsyncIterable<T> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
