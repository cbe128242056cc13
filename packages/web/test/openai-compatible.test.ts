/**
 * openAICompatible through the Web entry (@llmjson/web), against a local HTTP server: the same
 * function as @llmjson/node's (it lives in core and needs only `fetch` and WHATWG streams), so
 * a page or an edge function gets the streamed answer, usage and finish reason, the idle and
 * total timeouts, the caller's AbortSignal, and the typed HTTP and timeout errors.
 */

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test as fcTest } from '@fast-check/vitest';
import * as core from '@llmjson/core';
import {
  createJsonlStream,
  LlmjsonError,
  openAICompatible,
  ProviderHttpError,
  ProviderTimeoutCode,
  ProviderTimeoutError,
  readableFrom,
} from '@llmjson/web';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints, utf8 } from '../../../test/support/chunking.js';
import { readAll } from '../../../test/support/web.js';

const delta = (content: string | undefined, finish: string | null = null) =>
  JSON.stringify({
    object: 'chat.completion.chunk',
    model: 'served-model',
    choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }],
  });
const sse = (events: readonly string[], done = true) =>
  `${events.map((event) => `data: ${event}\n\n`).join('')}${done ? 'data: [DONE]\n\n' : ''}`;

/** An answer whose characters are 1 to 4 UTF-8 bytes long, so byte splits fall inside them. */
const PIECES = ['Holiday — ', 'cafés ', '😀 ', '日本', '.'];
const ANSWER = PIECES.join('');
const BODY = utf8.encode(
  sse([
    delta(''),
    ...PIECES.map((piece) => delta(piece)),
    delta(undefined, 'stop'),
    JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } }),
  ]),
);

interface Seen {
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: any;
}

let server: Server;
let baseURL: string;
const seen: Seen[] = [];
/** The chunks a `/split/<id>` route writes, one write each. */
const splits = new Map<string, readonly Uint8Array[]>();
/** Resolvers for the close of a route's connection, by route name. */
const closeWaiters = new Map<string, () => void>();

/** Resolves once the server sees the connection of the next request to `route` close. */
function closeOf(route: string): Promise<void> {
  return new Promise((resolve) => closeWaiters.set(route, resolve));
}

async function write(response: ServerResponse, chunks: readonly Uint8Array[]): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunks) {
    response.write(chunk);
    // A turn of the event loop between writes, so that they tend to reach the client apart.
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    let text = '';
    for await (const part of request) text += part;
    const url = request.url ?? '';
    seen.push({ url, headers: request.headers, body: JSON.parse(text) });
    const route = url.split('/')[1] ?? '';
    const waiter = closeWaiters.get(route);
    if (waiter !== undefined) {
      closeWaiters.delete(route);
      response.once('close', waiter);
    }
    if (route === 'split') return write(response, splits.get(url.split('/')[2] ?? '') ?? []);
    if (route === 'jsonl') {
      const lines = ['{"id":1}\n{"i', 'd":2}\nnot json\n', '{"id":3}\n'];
      return write(response, [utf8.encode(sse([...lines.map((l) => delta(l)), delta(undefined, 'stop')]))]);
    }
    if (route === 'unauthorized') {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
      return;
    }
    if (route === 'overloaded') {
      response.writeHead(503, 'Service Unavailable', { 'content-type': 'text/plain' });
      response.end(`upstream overloaded ${'x'.repeat(2000)}`);
      return;
    }
    if (route === 'stalled') {
      // Headers and one piece of the answer, then nothing, the connection left open.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sse([delta('Par')], false));
      return;
    }
    if (route === 'silent') return; // No headers, ever.
    if (route === 'dripping') {
      // Never silent for long, never finished.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sse([delta('Par')], false));
      const timer = setInterval(() => response.write(': keep-alive\n\n'), 5);
      response.once('close', () => clearInterval(timer));
      return;
    }
    response.writeHead(404);
    response.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

async function consume(output: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of output) pieces.push(piece);
  return pieces;
}

/** The pieces `output` yields before it throws, and what it throws. */
async function consumeUntilError(output: AsyncIterable<string>): Promise<{ pieces: string[]; error: unknown }> {
  const pieces: string[] = [];
  try {
    for await (const piece of output) pieces.push(piece);
  } catch (error) {
    return { pieces, error };
  }
  throw new Error('the output ended without an error');
}

describe('openAICompatible from @llmjson/web', () => {
  test('is the function, errors and constants of @llmjson/core (one implementation for Node and Web)', () => {
    expect(openAICompatible).toBe(core.openAICompatible);
    expect(ProviderHttpError).toBe(core.ProviderHttpError);
    expect(ProviderTimeoutError).toBe(core.ProviderTimeoutError);
    expect(ProviderTimeoutCode).toEqual({ idle: 'IDLE_TIMEOUT', total: 'TOTAL_TIMEOUT' });
  });

  let run = 0;
  fcTest.prop([splitPoints(BODY.length)], { numRuns })(
    'the body split anywhere (inside UTF-8 characters too): the same answer, usage, finish reason and model',
    async (cuts) => {
      const id = String(run++);
      splits.set(id, splitAt(BODY, cuts));
      const llm = openAICompatible({ baseURL: `${baseURL}/split/${id}`, apiKey: 'sk-web', model: 'asked-model' });
      const result = await llm({ system: 'Be brief.', prompt: 'Hello?' });
      expect(result).toMatchObject({ provider: 'openai-compatible', model: 'asked-model' });
      expect(result.finishReason).toBeUndefined();
      expect((await consume(result.output)).join('')).toBe(ANSWER);
      expect(result).toMatchObject({
        model: 'served-model',
        finishReason: 'stop',
        usage: { inputTokens: 7, outputTokens: 5, totalTokens: 12 },
      });
      const request = seen.at(-1) as Seen;
      expect(request.url).toBe(`/split/${id}/chat/completions`);
      expect(request.headers).toMatchObject({ authorization: 'Bearer sk-web', accept: 'text/event-stream' });
      expect(request.body).toEqual({
        model: 'asked-model',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello?' },
        ],
        stream: true,
        stream_options: { include_usage: true },
      });
      splits.delete(id);
    },
  );

  test('the answer pipes into the Web streams: readableFrom(output).pipeThrough(createJsonlStream())', async () => {
    const result = await openAICompatible({ baseURL: `${baseURL}/jsonl`, model: 'm' })({ prompt: 'Items?' });
    const diagnostics: string[] = [];
    const values = await readAll(
      readableFrom(result.output).pipeThrough(createJsonlStream({ onDiagnostic: (d) => diagnostics.push(d.reason) })),
    );
    expect(values).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(diagnostics).toEqual(['prose']);
    expect(result.finishReason).toBe('stop');
  });

  test("a fetch of the caller's own gets the URL and a RequestInit, and its Response is read", async () => {
    const calls: { url: string; method: string | undefined }[] = [];
    const llm = openAICompatible({
      baseURL: `${baseURL}/jsonl/`,
      model: 'm',
      headers: { 'X-Trace': 'on' },
      fetch: (url, init) => {
        calls.push({ url, method: init.method });
        return fetch(url, init);
      },
    });
    expect((await consume((await llm({ prompt: 'x' })).output)).join('')).toContain('{"id":3}');
    expect(calls).toEqual([{ url: `${baseURL}/jsonl/chat/completions`, method: 'POST' }]);
    expect((seen.at(-1) as Seen).headers['x-trace']).toBe('on');
  });

  test('HTTP 401: ProviderHttpError with the status, the body, and the error message of the body', async () => {
    const call = openAICompatible({ baseURL: `${baseURL}/unauthorized`, apiKey: 'wrong', model: 'm' })({
      prompt: 'hi',
    });
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error).toBeInstanceOf(LlmjsonError);
    expect(error).toMatchObject({ name: 'ProviderHttpError', code: 'PROVIDER_HTTP_ERROR', status: 401 });
    expect((error as ProviderHttpError).body).toContain('"Incorrect API key provided"');
    expect((error as Error).message).toBe(
      `openai-compatible: POST ${baseURL}/unauthorized/chat/completions failed with HTTP 401 Unauthorized: Incorrect API key provided`,
    );
  });

  test('HTTP 503 with a long plain-text body: the message quotes an excerpt of it, the error keeps the body', async () => {
    const error = await openAICompatible({ baseURL: `${baseURL}/overloaded`, model: 'm' })({ prompt: 'hi' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error).toMatchObject({ status: 503 });
    expect((error as ProviderHttpError).body).toBe(`upstream overloaded ${'x'.repeat(2000)}`);
    const message = (error as Error).message;
    expect(message).toMatch(/HTTP 503 Service Unavailable: upstream overloaded x+$/);
    expect(message.slice(message.indexOf(': upstream') + 2)).toHaveLength(500);
  });
});

describe('openAICompatible from @llmjson/web: timeouts and abort', () => {
  test('a server that stalls mid-answer: IDLE_TIMEOUT from the iteration, and the connection is closed', async () => {
    const closed = closeOf('stalled');
    // A limit a loaded machine cannot pass before the headers and the first chunk arrive: the
    // same timer covers the wait for the headers (the next test).
    const result = await openAICompatible({ baseURL: `${baseURL}/stalled`, model: 'm', idleTimeoutMs: 1000 })({
      prompt: 'hi',
    });
    const { pieces, error } = await consumeUntilError(result.output);
    expect(pieces).toEqual(['Par']);
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(error).toMatchObject({ code: ProviderTimeoutCode.idle, timeoutMs: 1000 });
    expect((error as Error).message).toMatch(/sent nothing for 1 s in the middle of its answer \(idleTimeoutMs\)/);
    await closed;
  });

  test('a server that never sends its headers: the call rejects with IDLE_TIMEOUT, and the connection is closed', async () => {
    const closed = closeOf('silent');
    const call = openAICompatible({ baseURL: `${baseURL}/silent`, model: 'm', idleTimeoutMs: 100 })({ prompt: 'hi' });
    await expect(call).rejects.toBeInstanceOf(ProviderTimeoutError);
    await expect(call).rejects.toThrow(/sent nothing for 0\.1 s before its response headers/);
    await closed;
  });

  test('totalTimeoutMs ends a server that never goes silent and never finishes', async () => {
    const closed = closeOf('dripping');
    // Long enough that the headers and the first piece always arrive within it.
    const llm = openAICompatible({ baseURL: `${baseURL}/dripping`, model: 'm', totalTimeoutMs: 1500 });
    const { pieces, error } = await consumeUntilError((await llm({ prompt: 'hi' })).output);
    expect(pieces).toEqual(['Par']);
    expect(error).toMatchObject({ name: 'ProviderTimeoutError', code: ProviderTimeoutCode.total, timeoutMs: 1500 });
    await closed;
  });

  test("the caller's AbortSignal mid-answer: the iteration throws the caller's reason, and the connection is closed", async () => {
    const closed = closeOf('stalled');
    const controller = new AbortController();
    const result = await openAICompatible({ baseURL: `${baseURL}/stalled`, model: 'm' })({
      prompt: 'hi',
      signal: controller.signal,
    });
    const reason = new Error('the user pressed stop');
    const pieces: string[] = [];
    await expect(
      (async () => {
        for await (const piece of result.output) {
          pieces.push(piece);
          controller.abort(reason);
        }
      })(),
    ).rejects.toBe(reason);
    expect(pieces).toEqual(['Par']);
    await closed;
  });

  test("the caller's AbortSignal before the headers: the call rejects with its reason, and the connection is closed", async () => {
    const closed = closeOf('silent');
    const controller = new AbortController();
    const reason = new Error('navigated away');
    const before = seen.length;
    const call = openAICompatible({ baseURL: `${baseURL}/silent`, model: 'm' })({
      prompt: 'hi',
      signal: controller.signal,
    });
    // Abort once the server has read the request, so that there is a connection to close.
    while (seen.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await closed;
  });

  test('an already aborted signal: no answer, the reason rejects the call', async () => {
    const reason = new Error('too late');
    const call = openAICompatible({ baseURL: `${baseURL}/jsonl`, model: 'm' })({
      prompt: 'hi',
      signal: AbortSignal.abort(reason),
    });
    await expect(call).rejects.toBe(reason);
  });
});
