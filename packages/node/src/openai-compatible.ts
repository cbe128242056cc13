/**
 * An `llm` function for any OpenAI-compatible Chat Completions server (OpenAI, vLLM,
 * llama.cpp, Ollama's /v1, LM Studio, OpenRouter...): POSTs `{baseURL}/chat/completions` with
 * `stream: true` and resolves, once the response headers arrive, to the answer text as an async
 * iterable plus what the provider reports about it.
 *
 * `usage`, `finishReason` and `model` are plain properties filled in while `output` is
 * consumed: read them after the iteration ends (`model` is the requested one until the
 * stream names the model that answered). A non-2xx response rejects with a
 * `ProviderHttpError` carrying the status and the body's error message; an error the provider
 * sends inside the stream throws from the iteration. Uses the global `fetch` (Node 20).
 */

import { createProviderDecoder, type Diagnostic, type ProviderError, type Usage } from '@llmjson/core';

export interface OpenAICompatibleOptions {
  /** The API root, including its version segment: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`. Default: none (local servers). */
  readonly apiKey?: string;
  readonly model: string;
  /** Extra request headers (they override the defaults). Default: none. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch to use. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Merged into the request body (`temperature`, `max_tokens`, a `response_format`...). `stream` stays `true`. */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  /** Called with each diagnostic of the stream decoder (an event that is not JSON...). Default: none. */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

export interface OpenAICompatibleRequest {
  readonly system?: string;
  readonly prompt: string;
  readonly signal?: AbortSignal;
  /** `'json'` asks for JSON mode (`response_format: { type: 'json_object' }`). Default `'text'` (never inferred from the response type). */
  readonly responseFormat?: 'text' | 'json';
  /** The prompt runner's response type (informational; JSON mode is only `responseFormat: 'json'`). */
  readonly responseType?: string;
}

export interface LlmResult {
  /** The answer text as it streams. Iterate it once. */
  readonly output: AsyncIterable<string>;
  model?: string;
  readonly provider: 'openai-compatible';
  usage?: Usage;
  finishReason?: string;
}

/** A non-2xx response from the server. */
export class ProviderHttpError extends Error {
  override readonly name = 'ProviderHttpError';
  constructor(
    readonly status: number,
    readonly body: string,
    message: string,
  ) {
    super(message);
  }
}

/** The error message inside an error response body (`{error: {message}}`, `{error: "..."}`, `{message}`, `{detail}`). */
function errorMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const { error, message, detail } = parsed as Record<string, unknown>;
      const inner = typeof error === 'object' && error !== null ? (error as Record<string, unknown>).message : error;
      const text = [inner, message, detail].find((m) => typeof m === 'string');
      if (typeof text === 'string') return text;
    }
  } catch {
    // Not JSON: the body itself is the message.
  }
  return body.trim().slice(0, 500) || '(empty body)';
}

function streamError(error: ProviderError): Error {
  return new Error(`openai-compatible: the provider reported an error in the stream: ${error.message}`);
}

/** Creates the `llm` function for an OpenAI-compatible server. */
export function openAICompatible(
  options: OpenAICompatibleOptions,
): (request: OpenAICompatibleRequest) => Promise<LlmResult> {
  const url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const fetchImpl = options.fetch ?? fetch;
  const extraBody = options.extraBody ?? {};
  return async (request) => {
    const messages = [
      ...(request.system === undefined ? [] : [{ role: 'system', content: request.system }]),
      { role: 'user', content: request.prompt },
    ];
    // JSON mode only when asked for: OpenAI rejects it unless the prompt says "JSON", it forces
    // a top-level object (an array schema could never match), and some servers only take
    // `json_schema`. The answer is validated locally either way.
    const format = request.responseFormat ?? 'text';
    const body = {
      model: options.model,
      messages,
      ...(format === 'json' ? { response_format: { type: 'json_object' } } : {}),
      ...extraBody,
      stream: true,
      stream_options: 'stream_options' in extraBody ? extraBody.stream_options : { include_usage: true },
    };
    // Header names are case-insensitive: `set` lets a user's `Authorization` replace ours, not join it.
    const headers = new Headers({ 'content-type': 'application/json', accept: 'text/event-stream' });
    if (options.apiKey !== undefined) headers.set('authorization', `Bearer ${options.apiKey}`);
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    const response = await fetchImpl(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new ProviderHttpError(
        response.status,
        text,
        `openai-compatible: POST ${url} failed with HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: ${errorMessage(text)}`,
      );
    }
    const stream = response.body;
    if (stream === null) throw new Error(`openai-compatible: POST ${url} returned no body`);

    const result: LlmResult = { output: answer(), provider: 'openai-compatible', model: options.model };
    async function* answer(): AsyncGenerator<string> {
      const texts: string[] = [];
      const decoder = createProviderDecoder(
        { input: 'openai' },
        {
          text: (delta) => texts.push(delta),
          diagnostic: (d) => options.onDiagnostic?.(d),
          metadata: (m) => {
            if (m.model !== undefined) result.model = m.model;
            if (m.usage !== undefined) result.usage = m.usage;
            if (m.finishReason !== undefined) result.finishReason = m.finishReason;
          },
        },
      );
      const utf8 = new TextDecoder('utf-8');
      const reader = (stream as ReadableStream<Uint8Array>).getReader();
      let finished = false;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          decoder.write(utf8.decode(value, { stream: true }));
          yield* texts.splice(0);
          if (decoder.error !== undefined) throw streamError(decoder.error);
          // Nothing after `[DONE]` counts: do not wait for a server that keeps the connection open.
          if (decoder.closed) break;
        }
        finished = !decoder.closed;
        if (decoder.closed) await reader.cancel().catch(() => undefined);
        decoder.write(utf8.decode());
        decoder.end();
        yield* texts.splice(0);
        if (decoder.error !== undefined) throw streamError(decoder.error);
        if (!decoder.complete) {
          // The connection ended before a finish_reason or [DONE]: the answer may be cut anywhere.
          throw new Error(
            `openai-compatible: the stream from POST ${url} ended before the answer did (no finish_reason and no [DONE])`,
          );
        }
        finished = true;
      } finally {
        // Stopped early (a `break`, an error): release the connection.
        if (!finished) await reader.cancel().catch(() => undefined);
        reader.releaseLock();
      }
    }
    return result;
  };
}
