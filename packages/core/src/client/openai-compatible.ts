/**
 * An `llm` function for any OpenAI-compatible Chat Completions server (OpenAI, vLLM,
 * llama.cpp, Ollama's /v1, LM Studio, OpenRouter...): POSTs `{baseURL}/chat/completions` with
 * `stream: true` and resolves, once the response headers arrive, to the answer text as an async
 * iterable plus what the provider reports about it.
 *
 * `usage`, `finishReason` and `model` are plain properties filled in while `output` is
 * consumed: read them after the iteration ends (`model` is the requested one until the
 * stream names the model that answered). A non-2xx response rejects with a
 * `ProviderHttpError` carrying the status and the body's error message, from at most the first
 * `MAX_ERROR_BODY_BYTES` (8 KiB) of the body (the rest is cancelled, and the message says it was
 * cut); an error the provider
 * sends inside the stream throws from the iteration. Uses the global `fetch`, so the same
 * function runs on Node (20+), in browsers and in edge runtimes (re-exported by @llmjson/node and
 * @llmjson/web).
 *
 * Timeouts: a server that accepts the request and then goes silent would otherwise hold the
 * call for as long as the HTTP client's own limits (undici: 300 s for the headers, 300 s
 * between body reads). `idleTimeoutMs` bounds each wait for the server (for the response
 * headers, then for each piece of the body): 60 s by default. It runs only while the call
 * waits on the server, so a consumer that is slow to iterate never trips it. `totalTimeoutMs`
 * bounds the whole call, output included; by default there is none, because the idle timeout
 * already catches a stalled server and a total limit would cut legitimate long answers (a
 * local model on a CPU at 5 tokens/s takes 10 minutes for 3 000 tokens; openai-node's 10-minute
 * `timeout` likewise covers only the wait for the headers). On expiry the request is aborted
 * (its connection closed) and the call rejects, or the iteration throws, a
 * `ProviderTimeoutError` whose `code` says which limit expired. The caller's `signal` aborts
 * the same request.
 *
 * Output format: a request's `responseFormat` says what to ask for; without one, a request whose
 * `responseType` is `'json'` (the prompt runner's json prompts) gets the factory's `jsonMode`,
 * and any other request none. `'json'` is JSON mode (`response_format: { type: 'json_object' }`).
 * `'schema'` is structured output from the request's `schema` (the prompt runner passes the
 * prompt's JSON Schema, or a Standard Schema's export): `response_format: { type: 'json_schema',
 * json_schema: { name, schema, strict } }`, built by `structuredOutput('openai-chat', ...)` from
 * @llmjson/core with the `structuredOutput` options (strict `'auto'` by default: strict when
 * the schema is in OpenAI's strict subset). A `'schema'` request without a `schema` falls back
 * to JSON mode (the prompt runner gives none for a Standard Schema without a JSON Schema
 * export); a schema the helper refuses (a Standard Schema without an export, a root that is not
 * an object, `strict: true` outside the subset) rejects the call with its ConfigurationError
 * before any request is sent. jsonl prompts are never given a format: their answer is
 * many documents, and both formats ask for one. The answer is validated locally either way,
 * and `extraBody.response_format` overrides all of this.
 *
 * Runtime-neutral: core's lib declares no `fetch`, `AbortController` or timers,
 * so the code reaches them through `globalThis`, typed by the few members it uses. The public
 * types name the platform's own `RequestInit`, `Response` and `AbortSignal`: core declares them
 * as empty interfaces, which merge with the real ones wherever the DOM lib or @types/node is
 * loaded, so a Node or browser user passes and receives exactly the platform's types.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { type Diagnostic, quoteInput } from '../diagnostics/diagnostics.js';
import { LlmjsonError } from '../diagnostics/errors.js';
import { checkChoice, checkOptionNames, optionNames } from '../options/option-checks.js';
import { createProviderDecoder } from '../provider/decoder.js';
import type { ProviderError, Usage } from '../provider/types.js';
import type { SchemaInput } from '../schema/standard-schema.js';
import { createUtf8Chunks } from '../text/utf8-chunks.js';
import type { ReadableStreamLike } from './from-async.js';
import type { LlmResult } from './llm-result.js';
import { checkStructuredOutputOptions, type StructuredOutputOptions, structuredOutput } from './structured-output.js';

declare global {
  // The platform's fetch types, merged with the DOM lib's or @types/node's declarations where
  // those are loaded (see the file's comment); core itself reads them through the views below.
  interface RequestInit {}
  interface Response {}
  interface AbortSignal {}
}

/** What is used of the platform's `AbortSignal`. */
interface SignalView {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options: { readonly once: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What is used of the platform's `Response`. */
interface ResponseView {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  /** `null` for no body; `undefined` from a caller's fetch that returns a look-alike without one. */
  readonly body: ReadableStreamLike<Uint8Array> | null | undefined;
  text(): Promise<string>;
}

/** What is used of the platform's globals; a timer handle is a number or, on Node, an object with `unref`. */
interface Platform {
  fetch(url: string, init: RequestInit): Promise<Response>;
  readonly AbortController: new () => { readonly signal: AbortSignal; abort(reason?: unknown): void };
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const platform = (): Platform => globalThis as unknown as Platform;

export interface OpenAICompatibleOptions {
  /** The API root, including its version segment: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`. Default: none (local servers). */
  readonly apiKey?: string;
  readonly model: string;
  /** Extra request headers (they override the defaults). Default: none. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The fetch to use (the global `fetch`'s type fits; a wrapper gets a string URL and a
   * `RequestInit`). Default: the global `fetch`.
   */
  readonly fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Merged into the request body (`temperature`, `max_tokens`, a `response_format`...). `stream` stays `true`. */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  /** Called with each diagnostic of the stream decoder (an event that is not JSON...). Default: none. */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
  /**
   * Longest wait for the server, in milliseconds: for the response headers, then between two
   * pieces of the body. Default 60_000 (`DEFAULT_IDLE_TIMEOUT_MS`); `Infinity`: no limit. A
   * server that loads the model or reads a long prompt before it sends anything, or a reasoning
   * model that streams nothing while it thinks, may need more.
   */
  readonly idleTimeoutMs?: number;
  /**
   * Longest time for the whole call, in milliseconds, from the request to the end of the
   * answer (the output's iteration included). Default `Infinity` (no limit: see the header).
   */
  readonly totalTimeoutMs?: number;
  /**
   * What to ask for when a request has `responseType: 'json'` and no `responseFormat` (the
   * prompt runner's json prompts): `'schema'` (structured output from the request's `schema`,
   * JSON mode when it has none), `'json'` (JSON mode) or `'off'`. Default `'off'`, as before
   * this option: OpenAI refuses JSON mode for a prompt that does not say "JSON", and not every
   * OpenAI-compatible server takes `json_schema`.
   */
  readonly jsonMode?: 'off' | 'json' | 'schema';
  /** `name`, `description` and `strict` of the structured output (`'schema'`). Default: name `'response'`, strict `'auto'`. */
  readonly structuredOutput?: StructuredOutputOptions;
}

export interface OpenAICompatibleRequest {
  readonly system?: string;
  readonly prompt: string;
  readonly signal?: AbortSignal;
  /**
   * `'json'` asks for JSON mode (`response_format: { type: 'json_object' }`), `'schema'` for
   * structured output from `schema` (JSON mode without one), `'text'` for neither. Default:
   * the factory's `jsonMode` when `responseType` is `'json'`, else `'text'`.
   */
  readonly responseFormat?: 'text' | 'json' | 'schema';
  /** The prompt runner's response type: `'json'` applies the factory's `jsonMode`; others ask for no format. */
  readonly responseType?: string;
  /** The schema of the answer, for `'schema'`: a JSON Schema, or a Standard Schema with a JSON Schema export. */
  readonly schema?: SchemaInput;
  /**
   * The whole conversation, sent as the chat `messages` instead of `system` + `prompt` when it
   * is not empty: the prompt runner's retries pass the earlier answers (`assistant`) and the
   * corrections (`user`) here.
   */
  readonly messages?: readonly { readonly role: 'system' | 'user' | 'assistant'; readonly content: string }[];
  /** The prompt runner's request id: accepted and not sent (the server gets no such field). */
  readonly id?: string;
  /** The prompt runner's attempt number (1 for the first call): accepted and not sent. */
  readonly attempt?: number;
}

/**
 * What a call returns: core's `LlmResult` (the one the prompt runner takes), its `output` the
 * answer text as it streams (iterate it once), `provider` `'openai-compatible'`, `usage`
 * normalised; `model`, `usage` and `finishReason` filled in as the stream reports them.
 */
export type OpenAICompatibleResult = LlmResult<AsyncIterable<string>> & {
  readonly provider: 'openai-compatible';
  readonly usage?: Usage | undefined;
};

/** A non-2xx response from the server (`code` `PROVIDER_HTTP_ERROR`; `body`: an excerpt of what it sent). */
export class ProviderHttpError extends LlmjsonError {
  override readonly name: string = 'ProviderHttpError';
  declare readonly code: 'PROVIDER_HTTP_ERROR';
  constructor(
    readonly status: number,
    readonly body: string,
    message: string,
  ) {
    super('PROVIDER_HTTP_ERROR', message);
  }
}

/** Default `idleTimeoutMs`: a minute of silence from a server that is streaming an answer is a stall. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** Which limit a `ProviderTimeoutError` reports. */
export const ProviderTimeoutCode = {
  /** `idleTimeoutMs`: the server sent nothing for that long. */
  idle: 'IDLE_TIMEOUT',
  /** `totalTimeoutMs`: the call did not finish in time. */
  total: 'TOTAL_TIMEOUT',
} as const;
export type ProviderTimeoutCode = (typeof ProviderTimeoutCode)[keyof typeof ProviderTimeoutCode];

/** The server did not answer in time: the request was aborted. */
export class ProviderTimeoutError extends LlmjsonError {
  override readonly name: string = 'ProviderTimeoutError';
  declare readonly code: ProviderTimeoutCode;
  constructor(
    code: ProviderTimeoutCode,
    /** The limit that expired, in milliseconds. */
    readonly timeoutMs: number,
    message: string,
  ) {
    super(code, message);
  }
}

/** Longest delay `setTimeout` honours (a longer one fires at once): past it (24.8 days), there is no limit. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

function timeoutOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `${name} must be a positive number of milliseconds (Infinity: no limit), got ${String(value)}`,
    );
  }
  return value;
}

function startTimer(ms: number, expire: () => void): unknown {
  if (ms > MAX_TIMER_DELAY) return undefined;
  const timer = platform().setTimeout(expire, ms);
  // On Node, a timer alone must not keep the process alive: the connection it watches does, while it is open.
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

function stopTimer(timer: unknown): void {
  if (timer !== undefined) platform().clearTimeout(timer);
}

/**
 * One call's abort controller and its two limits. Waits on the server go through `wait`, which
 * runs the idle timer for their duration; whatever a wait rejects with after a limit expired
 * (the abort reason, or a custom fetch's own AbortError), the call rejects with the timeout.
 */
class CallLimits {
  readonly #controller = new (platform().AbortController)();
  readonly signal = this.#controller.signal;
  #expired: ProviderTimeoutError | undefined;
  #idleTimer: unknown;
  readonly #totalTimer: unknown;
  readonly #unlink: () => void = () => undefined;

  readonly #url: string;
  readonly #idleTimeoutMs: number;

  constructor(url: string, idleTimeoutMs: number, totalTimeoutMs: number, signal: AbortSignal | undefined) {
    this.#url = url;
    this.#idleTimeoutMs = idleTimeoutMs;
    const callerSignal = signal as SignalView | undefined;
    // Forwarded by hand rather than with AbortSignal.any, which Node 20 has only from 20.3.
    if (callerSignal?.aborted) {
      this.#controller.abort(callerSignal.reason);
    } else if (callerSignal !== undefined) {
      const forward = () => this.#controller.abort(callerSignal.reason);
      callerSignal.addEventListener('abort', forward, { once: true });
      this.#unlink = () => callerSignal.removeEventListener('abort', forward);
    }
    this.#totalTimer = startTimer(totalTimeoutMs, () =>
      this.#expire(
        new ProviderTimeoutError(
          ProviderTimeoutCode.total,
          totalTimeoutMs,
          `openai-compatible: POST ${url} did not finish within ${totalTimeoutMs / 1000} s (totalTimeoutMs); the request was aborted`,
        ),
      ),
    );
  }

  /** Waits for the server to deliver `promise`, `phase` naming what it waits for in the error. */
  async wait<T>(promise: Promise<T>, phase: string): Promise<T> {
    const ms = this.#idleTimeoutMs;
    this.#idleTimer = startTimer(ms, () =>
      this.#expire(
        new ProviderTimeoutError(
          ProviderTimeoutCode.idle,
          ms,
          `openai-compatible: POST ${this.#url}: the server sent nothing for ${ms / 1000} s ${phase} (idleTimeoutMs); the request was aborted`,
        ),
      ),
    );
    try {
      return await promise;
    } catch (error) {
      throw this.#expired ?? error;
    } finally {
      stopTimer(this.#idleTimer);
    }
  }

  /** The call is over (answered, failed or abandoned): no timer may fire for it any more. */
  close(): void {
    stopTimer(this.#idleTimer);
    stopTimer(this.#totalTimer);
    this.#unlink();
  }

  #expire(error: ProviderTimeoutError): void {
    if (this.#expired !== undefined || (this.signal as SignalView).aborted) return;
    this.#expired = error;
    // Aborting the fetch closes the connection, so the stalled server is not left holding a socket.
    this.#controller.abort(error);
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

/**
 * Most of an error response's body read, in bytes: the error is in its first lines, and a server
 * (or a proxy) that answers an error with an endless or huge body must not hold the call or
 * fill memory.
 */
const MAX_ERROR_BODY_BYTES = 8 * 1024;

/**
 * The first `MAX_ERROR_BODY_BYTES` of an error response's body, whatever its content type; the
 * rest is cancelled (the connection released). A read that fails or times out keeps what came.
 */
async function readErrorBody(response: ResponseView, limits: CallLimits): Promise<{ text: string; cut: boolean }> {
  const stream = response.body;
  if (stream === null) return { text: '', cut: false };
  if (stream === undefined) {
    // Not a platform Response (a caller's fetch that returns a look-alike): its text, cut.
    const text = await limits.wait(response.text(), 'in its error response').catch(() => '');
    const cut = text.length > MAX_ERROR_BODY_BYTES;
    return { text: cut ? text.slice(0, MAX_ERROR_BODY_BYTES) : text, cut };
  }
  const reader = stream.getReader();
  const utf8 = createUtf8Chunks();
  let text = '';
  let bytes = 0;
  let cut = false;
  let done = false;
  try {
    while (!cut) {
      const read = await limits.wait(reader.read(), 'in its error response');
      if (read.done) {
        done = true;
        break;
      }
      const room = MAX_ERROR_BODY_BYTES - bytes;
      const piece = read.value.length > room ? read.value.subarray(0, room) : read.value;
      cut = piece !== read.value;
      bytes += piece.length;
      text += utf8.decode(piece);
    }
  } catch {
    // A broken or stalled error body: what was read is the message.
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  return { text: text + utf8.flush(), cut };
}

function streamError(error: ProviderError): Error {
  // The provider's message is as long as its event (up to maxEventLength): quoted, bounded.
  return new Error(
    `openai-compatible: the provider reported an error in the stream: ${quoteInput(error.message, 1000)}`,
  );
}

/** Creates the `llm` function for an OpenAI-compatible server. */
export function openAICompatible(
  options: OpenAICompatibleOptions,
): (request: OpenAICompatibleRequest) => Promise<OpenAICompatibleResult> {
  checkOptionNames('openAICompatible', options, OPENAI_COMPATIBLE_OPTIONS);
  const url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const fetchImpl = options.fetch ?? ((input: string, init: RequestInit) => platform().fetch(input, init));
  const extraBody = options.extraBody ?? {};
  const idleTimeoutMs = timeoutOption('idleTimeoutMs', options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS);
  const totalTimeoutMs = timeoutOption('totalTimeoutMs', options.totalTimeoutMs, Number.POSITIVE_INFINITY);
  const jsonMode = options.jsonMode ?? 'off';
  checkChoice('jsonMode', jsonMode, ['off', 'json', 'schema']);
  checkStructuredOutputOptions(options.structuredOutput);
  return async (request) => {
    checkOptionNames('openAICompatible request', request, OPENAI_COMPATIBLE_REQUEST_FIELDS);
    checkChoice('responseFormat', request.responseFormat, ['text', 'json', 'schema']);
    const messages =
      request.messages !== undefined && request.messages.length > 0
        ? request.messages.map(({ role, content }) => ({ role, content }))
        : [
            ...(request.system === undefined ? [] : [{ role: 'system', content: request.system }]),
            { role: 'user', content: request.prompt },
          ];
    // JSON mode only when asked for: OpenAI rejects it unless the prompt says "JSON", it forces
    // a top-level object (an array schema could never match), and some servers only take
    // `json_schema`. The answer is validated locally either way.
    const format =
      request.responseFormat ?? (request.responseType === 'json' && jsonMode !== 'off' ? jsonMode : 'text');
    const body = {
      model: options.model,
      messages,
      ...(format === 'schema' && request.schema !== undefined
        ? structuredOutput('openai-chat', request.schema, options.structuredOutput)
        : format === 'json' || format === 'schema'
          ? { response_format: { type: 'json_object' } }
          : {}),
      ...extraBody,
      stream: true,
      stream_options: 'stream_options' in extraBody ? extraBody.stream_options : { include_usage: true },
    };
    // Header names are case-insensitive: lower-cased, a user's `Authorization` replaces ours, not joins it.
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    const limits = new CallLimits(url, idleTimeoutMs, totalTimeoutMs, request.signal);
    const init = { method: 'POST', headers, body: JSON.stringify(body), signal: limits.signal };
    let response: ResponseView;
    try {
      response = (await limits.wait(fetchImpl(url, init), 'before its response headers')) as ResponseView;
    } catch (error) {
      limits.close();
      throw error;
    }
    if (!response.ok) {
      const { text, cut } = await readErrorBody(response, limits);
      limits.close();
      throw new ProviderHttpError(
        response.status,
        text,
        `openai-compatible: POST ${url} failed with HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: ${errorMessage(text)}${cut ? ` (the error body was cut: only its first ${MAX_ERROR_BODY_BYTES} bytes were read)` : ''}`,
      );
    }
    const stream = response.body;
    if (stream === null || stream === undefined) {
      limits.close();
      throw new Error(`openai-compatible: POST ${url} returned no body`);
    }

    const result: { -readonly [K in keyof OpenAICompatibleResult]: OpenAICompatibleResult[K] } = {
      output: answer(),
      provider: 'openai-compatible',
      model: options.model,
    };
    async function* answer(): AsyncGenerator<string> {
      const texts: string[] = [];
      // The answer is the text: tool-call arguments are not kept (they could grow without bound).
      const decoder = createProviderDecoder(
        { input: 'openai', keepToolArguments: false },
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
      const utf8 = createUtf8Chunks();
      const reader = (stream as ReadableStreamLike<Uint8Array>).getReader();
      let finished = false;
      try {
        for (;;) {
          const { done, value } = await limits.wait(reader.read(), 'in the middle of its answer');
          if (done) break;
          decoder.write(utf8.decode(value));
          yield* texts.splice(0);
          if (decoder.error !== undefined) throw streamError(decoder.error);
          // Nothing after `[DONE]` counts: do not wait for a server that keeps the connection open.
          if (decoder.doneMarker) break;
        }
        finished = !decoder.doneMarker;
        if (decoder.doneMarker) await reader.cancel().catch(() => undefined);
        decoder.write(utf8.flush());
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
        limits.close();
      }
    }
    return result;
  };
}

// ---- option names (the options policy: options/option-checks.ts) ----------------------------

/** The options `openAICompatible` takes. */
export const OPENAI_COMPATIBLE_OPTIONS = /* @__PURE__ */ optionNames<OpenAICompatibleOptions>()([
  'baseURL',
  'apiKey',
  'model',
  'headers',
  'fetch',
  'extraBody',
  'onDiagnostic',
  'idleTimeoutMs',
  'totalTimeoutMs',
  'jsonMode',
  'structuredOutput',
]);

/**
 * The fields a request to the function `openAICompatible` returns takes: a misspelt one
 * (`sytem`) rejects the call with OPTION_INVALID instead of quietly sending no system prompt.
 * The prompt runner's `id` and `attempt` are among them, so its requests pass as they are.
 */
export const OPENAI_COMPATIBLE_REQUEST_FIELDS = /* @__PURE__ */ optionNames<OpenAICompatibleRequest>()([
  'system',
  'prompt',
  'signal',
  'responseFormat',
  'responseType',
  'schema',
  'messages',
  'id',
  'attempt',
]);
