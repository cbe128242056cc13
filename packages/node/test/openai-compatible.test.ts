import { EventEmitter, once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createPromptManager } from '@llmjson/contracts';
import { ConfigurationError, openAICompatible, ProviderHttpError } from '@llmjson/node';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chunkBytes, utf8 } from '../../../test/support/chunking.js';
import { corpus } from '../../../test/support/corpora.js';

interface Entry {
  readonly file: string;
  readonly derived_by_collector: { readonly text: { readonly text: string }[] };
}

const recorded = corpus<Entry[]>('recorded-streams/index.json', 'recorded provider streams (openAICompatible)');

const chatChunk = (delta: object, finish: string | null = null) =>
  JSON.stringify({
    object: 'chat.completion.chunk',
    model: 'gpt-inline',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

/** The served stream: openai-text.chunks.txt from the corpus, or a small inline one. */
const served = (() => {
  if (recorded.present) {
    const entry = recorded.load().find((e) => e.file === 'openai-text.chunks.txt') as Entry;
    const lines = readFileSync(join(recorded.path, '..', entry.file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    return {
      lines,
      text: entry.derived_by_collector.text.map((t) => t.text).join(''),
      model: 'gpt-4.1-nano-2025-04-14',
      usage: { inputTokens: 16, outputTokens: 300, totalTokens: 316 },
    };
  }
  return {
    lines: [
      chatChunk({ role: 'assistant', content: '' }),
      chatChunk({ content: 'Holiday — ' }),
      chatChunk({ content: 'cafés 😀' }),
      chatChunk({}, 'stop'),
      JSON.stringify({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 } }),
    ],
    text: 'Holiday — cafés 😀',
    model: 'gpt-inline',
    usage: { inputTokens: 4, outputTokens: 6, totalTokens: 10 },
  };
})();

const SSE = utf8.encode(`${served.lines.map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`);

interface Seen {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  body: any;
}

let server: Server;
let baseURL: string;
const seen: Seen[] = [];
/** Emits a route's path when the server sees the connection of a request to it close. */
const closes = new EventEmitter();

/** Resolves when the server sees the connection to `route` close; fails the test if it never does. */
function connectionClosed(route: string): Promise<unknown> {
  return Promise.race([
    once(closes, route),
    delay(10_000).then(() => {
      throw new Error(`the server never saw the connection to ${route} close`);
    }),
  ]);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** Writes `bytes` in small pieces (cut anywhere, inside UTF-8 characters too) with short pauses. */
async function trickle(response: ServerResponse, bytes: Uint8Array): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const piece of chunkBytes(bytes, 997)) {
    response.write(piece);
    await delay(1);
  }
  response.end();
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const text = await readBody(request);
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization, body });
    const path = request.url ?? '';
    if (path === '/v1/chat/completions') return trickle(response, SSE);
    if (path === '/json/chat/completions') {
      // A structured answer, in two deltas.
      const events = [chatChunk({ content: '{"name":"Ada",' }), chatChunk({ content: '"age":36}' }, 'stop')];
      return trickle(response, utf8.encode(`${events.map((e) => `data: ${e}\n\n`).join('')}data: [DONE]\n\n`));
    }
    if (path === '/unauthorized/chat/completions') {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
      return;
    }
    if (path === '/broken/chat/completions') {
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end('upstream connect error');
      return;
    }
    if (path === '/midstream/chat/completions') {
      const events = [
        chatChunk({ content: 'Par' }),
        JSON.stringify({ error: { message: 'Internal error', type: 'server_error' } }),
      ];
      return trickle(response, utf8.encode(events.map((e) => `data: ${e}\n\n`).join('')));
    }
    if (path === '/cut/chat/completions') {
      // Two deltas, then the connection ends: no finish_reason, no [DONE].
      return trickle(
        response,
        utf8.encode(
          [chatChunk({ content: 'Par' }), chatChunk({ content: 'is' })].map((e) => `data: ${e}\n\n`).join(''),
        ),
      );
    }
    if (path.startsWith('/stalled/') || path.startsWith('/silent/') || path.startsWith('/dripping/')) {
      response.once('close', () => closes.emit(path.split('/')[1] as string));
    }
    if (path === '/stalled/chat/completions') {
      // Headers and one event, then nothing, with the connection open: a hung server.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${chatChunk({ content: 'Par' })}\n\n`);
      return;
    }
    if (path === '/silent/chat/completions') {
      // The request is read, and no response (not even headers) ever comes.
      return;
    }
    if (path === '/dripping/chat/completions') {
      // Never silent for long, never finished: a keep-alive comment every few milliseconds.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${chatChunk({ content: 'Par' })}\n\n`);
      const timer = setInterval(() => response.write(': keep-alive\n\n'), 5);
      response.once('close', () => clearInterval(timer));
      return;
    }
    if (path === '/lingering/chat/completions') {
      // The answer and [DONE], then the connection stays open.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${chatChunk({ content: 'ok' }, 'stop')}\n\ndata: [DONE]\n\n`);
      return;
    }
    response.writeHead(404);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
});

async function consume(output: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of output) pieces.push(piece);
  return pieces;
}

describe('openAICompatible', () => {
  test('streams the answer; usage, finish reason and model are filled in once the output is consumed', async () => {
    const llm = openAICompatible({
      baseURL: `${baseURL}/v1/`,
      apiKey: 'sk-test',
      model: 'gpt-test',
      extraBody: { temperature: 0 },
    });
    const result = await llm({ system: 'Be brief.', prompt: 'Say hello.' });
    expect(result.provider).toBe('openai-compatible');
    expect(result.finishReason).toBeUndefined();
    const pieces = await consume(result.output);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(served.text);
    expect(result).toMatchObject({ finishReason: 'stop', model: served.model, usage: served.usage });

    const request = seen.at(-1) as Seen;
    expect(request).toMatchObject({ method: 'POST', url: '/v1/chat/completions', authorization: 'Bearer sk-test' });
    expect(request.body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello.' },
      ],
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test('a header given by the user replaces the default of the same name, whatever its case', async () => {
    const llm = openAICompatible({
      baseURL: `${baseURL}/v1`,
      apiKey: 'sk-default',
      model: 'gpt-test',
      headers: { Authorization: 'Bearer sk-override' },
    });
    await consume((await llm({ prompt: 'hi' })).output);
    expect(seen.at(-1)?.authorization).toBe('Bearer sk-override');
  });

  test('JSON mode, no system message, no API key', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'local' });
    const result = await llm({ prompt: 'List.', responseFormat: 'json' });
    await consume(result.output);
    const request = seen.at(-1) as Seen;
    expect(request.authorization).toBeUndefined();
    expect(request.body).toMatchObject({
      model: 'local',
      messages: [{ role: 'user', content: 'List.' }],
      response_format: { type: 'json_object' },
      stream: true,
    });
  });

  test('a 4xx response rejects with the status and the body error message', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/unauthorized`, apiKey: 'wrong', model: 'gpt-test' });
    const call = llm({ prompt: 'hi' });
    await expect(call).rejects.toBeInstanceOf(ProviderHttpError);
    await expect(call).rejects.toMatchObject({ status: 401 });
    await expect(call).rejects.toThrow(/HTTP 401.*Incorrect API key provided/);
  });

  test('a 5xx response with a plain-text body rejects with the status and the text', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/broken`, model: 'gpt-test' });
    await expect(llm({ prompt: 'hi' })).rejects.toThrow(/HTTP 502.*upstream connect error/);
  });

  test('an error inside the stream throws from the iteration, after the text before it', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/midstream`, model: 'gpt-test' });
    const result = await llm({ prompt: 'hi' });
    const pieces: string[] = [];
    await expect(
      (async () => {
        for await (const piece of result.output) pieces.push(piece);
      })(),
    ).rejects.toThrow(/provider reported an error in the stream: Internal error/);
    expect(pieces).toEqual(['Par']);
    expect(result.finishReason).toBe('error');
  });

  test('a stream that ends without a finish_reason or [DONE] throws after its text: a cut answer is never a success', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/cut`, model: 'local' });
    const result = await llm({ prompt: 'Hi' });
    const pieces: string[] = [];
    await expect(
      (async () => {
        for await (const piece of result.output) pieces.push(piece);
      })(),
    ).rejects.toThrow('ended before the answer did (no finish_reason and no [DONE])');
    expect(pieces.join('')).toBe('Paris');
  });

  test('the answer ends at [DONE] even when the server keeps the connection open', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/lingering`, model: 'local' });
    const result = await llm({ prompt: 'Hi', signal: AbortSignal.timeout(5_000) });
    expect((await consume(result.output)).join('')).toBe('ok');
    expect(result.finishReason).toBe('stop');
  });

  test('JSON mode is never inferred from the response type by default', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'local' });
    await consume((await llm({ prompt: 'Items?', responseType: 'json' })).output);
    expect((seen.at(-1) as Seen).body).not.toHaveProperty('response_format');
  });
});

describe('openAICompatible structured output (json_schema)', () => {
  const person = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: ['integer', 'null'] } },
    required: ['name', 'age'],
  } as const;
  const personClosed = {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: ['integer', 'null'] } },
    required: ['name', 'age'],
    additionalProperties: false,
  };

  /** The request body the server saw for one call. */
  async function bodyOf(llm: ReturnType<typeof openAICompatible>, request: Parameters<typeof llm>[0]): Promise<any> {
    await consume((await llm(request)).output);
    return (seen.at(-1) as Seen).body;
  }

  test("jsonMode 'schema': a json request's JSON Schema becomes response_format json_schema, closed and strict", async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'gpt-test', jsonMode: 'schema' });
    const body = await bodyOf(llm, { prompt: 'Who?', responseType: 'json', schema: person });
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: personClosed, strict: true },
    });
    expect(body).toMatchObject({ model: 'gpt-test', stream: true });
  });

  test("responseFormat 'schema' with zod 4: an optional property keeps strict off ('auto'); name and description are the factory's", async () => {
    const llm = openAICompatible({
      baseURL: `${baseURL}/v1`,
      model: 'gpt-test',
      structuredOutput: { name: 'person', description: 'The person named in the text.' },
    });
    const schema = z.object({ name: z.string(), age: z.number().optional() });
    const body = await bodyOf(llm, { prompt: 'Who?', responseFormat: 'schema', schema });
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'person',
        description: 'The person named in the text.',
        strict: false,
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, age: { type: 'number' } },
          required: ['name'],
        },
      },
    });
  });

  test('valibot (toStandardJsonSchema) and arktype schemas are sent as their JSON Schema export', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'gpt-test', jsonMode: 'schema' });
    const valibot = toStandardJsonSchema(v.object({ city: v.string() }));
    const ark = type({ city: 'string' });
    const expected = {
      type: 'json_schema',
      json_schema: {
        name: 'response',
        strict: true,
        schema: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
          additionalProperties: false,
        },
      },
    };
    expect((await bodyOf(llm, { prompt: 'Where?', responseType: 'json', schema: valibot })).response_format).toEqual(
      expected,
    );
    expect((await bodyOf(llm, { prompt: 'Where?', responseType: 'json', schema: ark })).response_format).toEqual(
      expected,
    );
  });

  test("'schema' without a schema falls back to JSON mode (json_object)", async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'local', jsonMode: 'schema' });
    expect((await bodyOf(llm, { prompt: 'JSON?', responseType: 'json' })).response_format).toEqual({
      type: 'json_object',
    });
    expect((await bodyOf(llm, { prompt: 'JSON?', responseFormat: 'schema' })).response_format).toEqual({
      type: 'json_object',
    });
  });

  test('jsonMode applies to json requests only; responseFormat and extraBody.response_format override it', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'local', jsonMode: 'schema' });
    for (const responseType of ['jsonl', 'text', undefined]) {
      const body = await bodyOf(llm, { prompt: 'Items?', schema: person, ...(responseType ? { responseType } : {}) });
      expect(body).not.toHaveProperty('response_format');
    }
    const text = await bodyOf(llm, { prompt: 'Hi', responseType: 'json', responseFormat: 'text', schema: person });
    expect(text).not.toHaveProperty('response_format');
    const jsonMode = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'local', jsonMode: 'json' });
    expect((await bodyOf(jsonMode, { prompt: 'JSON', responseType: 'json', schema: person })).response_format).toEqual({
      type: 'json_object',
    });
    const overridden = openAICompatible({
      baseURL: `${baseURL}/v1`,
      model: 'local',
      jsonMode: 'schema',
      extraBody: { response_format: { type: 'text' } },
    });
    expect((await bodyOf(overridden, { prompt: 'x', responseType: 'json', schema: person })).response_format).toEqual({
      type: 'text',
    });
  });

  test('a schema the helper refuses rejects the call before any request: array root, strict: true outside the subset', async () => {
    const before = seen.length;
    const llm = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'local', jsonMode: 'schema' });
    const list = llm({ prompt: 'x', responseType: 'json', schema: { type: 'array', items: { type: 'string' } } });
    await expect(list).rejects.toBeInstanceOf(ConfigurationError);
    await expect(list).rejects.toMatchObject({ code: 'SCHEMA_INVALID' });
    await expect(list).rejects.toThrow(
      /root has type "array", but OpenAI structured output needs a root of type "object"/,
    );
    const strict = openAICompatible({
      baseURL: `${baseURL}/v1`,
      model: 'local',
      jsonMode: 'schema',
      structuredOutput: { strict: true },
    });
    const optional = strict({ prompt: 'x', responseType: 'json', schema: z.object({ a: z.string().optional() }) });
    await expect(optional).rejects.toThrow(/strict: true.*at \/: property "a" is not in "required"/);
    const noExport = llm({ prompt: 'x', responseFormat: 'schema', schema: v.object({ a: v.string() }) });
    await expect(noExport).rejects.toThrow(/toStandardJsonSchema/);
    expect(seen.length).toBe(before);
  });

  test('bad jsonMode or structuredOutput options are configuration errors when the function is made', () => {
    expect(() => openAICompatible({ baseURL, model: 'm', jsonMode: 'yes' as never })).toThrow(
      /jsonMode must be 'off', 'json' or 'schema'/,
    );
    expect(() => openAICompatible({ baseURL, model: 'm', structuredOutput: { name: 'my schema' } })).toThrow(
      ConfigurationError,
    );
  });

  test("through the prompt runner: the prompt's zod schema reaches response_format, and the answer validates", async () => {
    const prompts = createPromptManager({
      prompts: {
        person: {
          prompt: 'Who is in {{text}}?',
          'response-type': 'json',
          schema: z.object({ name: z.string(), age: z.number() }),
        },
      },
    });
    const llm = openAICompatible({ baseURL: `${baseURL}/json`, model: 'gpt-test', jsonMode: 'schema' });
    const envelope = await prompts.run('person', { text: 'a note' }, llm);
    expect(envelope.status).toBe('succeeded');
    expect(envelope.result.json).toEqual({ name: 'Ada', age: 36 });
    expect((seen.at(-1) as Seen).body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        strict: true,
        schema: {
          type: 'object',
          properties: { name: { type: 'string' }, age: { type: 'number' } },
          required: ['name', 'age'],
          additionalProperties: false,
        },
      },
    });
  });
});

describe('openAICompatible timeouts', () => {
  /** Consumes `output`, returning the pieces before the error it throws. */
  async function consumeUntilError(output: AsyncIterable<string>): Promise<{ pieces: string[]; error: unknown }> {
    const pieces: string[] = [];
    try {
      for await (const piece of output) pieces.push(piece);
    } catch (error) {
      return { pieces, error };
    }
    throw new Error('the output ended without an error');
  }

  test('a server that sends headers and one chunk, then stalls: ProviderTimeoutError, and the connection is closed', async () => {
    const closed = connectionClosed('stalled');
    // A limit a loaded machine cannot pass before the headers and the first chunk arrive: the
    // same timer covers the wait for the headers (the next test).
    const llm = openAICompatible({ baseURL: `${baseURL}/stalled`, model: 'local', idleTimeoutMs: 1000 });
    const result = await llm({ prompt: 'Hi' });
    const { pieces, error } = await consumeUntilError(result.output);
    expect(pieces).toEqual(['Par']);
    expect(error).toMatchObject({ name: 'ProviderTimeoutError', code: 'IDLE_TIMEOUT', timeoutMs: 1000 });
    expect((error as Error).message).toMatch(
      /^openai-compatible: POST http:\/\/127\.0\.0\.1:\d+\/stalled\/chat\/completions: the server sent nothing for 1 s in the middle of its answer \(idleTimeoutMs\); the request was aborted$/,
    );
    await closed;
  });

  test('a server that never sends its headers: the call itself rejects, and the connection is closed', async () => {
    const closed = connectionClosed('silent');
    const llm = openAICompatible({ baseURL: `${baseURL}/silent`, model: 'local', idleTimeoutMs: 100 });
    const call = llm({ prompt: 'Hi' });
    await expect(call).rejects.toMatchObject({ name: 'ProviderTimeoutError', code: 'IDLE_TIMEOUT' });
    await expect(call).rejects.toThrow(/sent nothing for 0\.1 s before its response headers/);
    await closed;
  });

  test('totalTimeoutMs bounds a server that never goes silent and never finishes', async () => {
    const closed = connectionClosed('dripping');
    const llm = openAICompatible({
      baseURL: `${baseURL}/dripping`,
      model: 'local',
      idleTimeoutMs: 10_000,
      // Long enough that the headers and the first piece always arrive within it.
      totalTimeoutMs: 1500,
    });
    const { pieces, error } = await consumeUntilError((await llm({ prompt: 'Hi' })).output);
    expect(pieces).toEqual(['Par']);
    expect(error).toMatchObject({ name: 'ProviderTimeoutError', code: 'TOTAL_TIMEOUT', timeoutMs: 1500 });
    expect((error as Error).message).toMatch(/did not finish within 1\.5 s \(totalTimeoutMs\)/);
    await closed;
  });

  test("the caller's signal still aborts the call, with the caller's reason, not a timeout", async () => {
    const closed = connectionClosed('stalled');
    const controller = new AbortController();
    const llm = openAICompatible({ baseURL: `${baseURL}/stalled`, model: 'local' });
    const result = await llm({ prompt: 'Hi', signal: controller.signal });
    const pieces: string[] = [];
    const reason = new Error('the user pressed stop');
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

  test('the idle timer runs only while the call waits on the server: a slow consumer never trips it', async () => {
    const llm = openAICompatible({ baseURL: `${baseURL}/v1`, model: 'local', idleTimeoutMs: 1000 });
    const result = await llm({ prompt: 'Hi' });
    let text = '';
    for await (const piece of result.output) {
      // The first pause is twice the idle limit; the server has finished by then.
      if (text === '') await delay(2000);
      text += piece;
    }
    expect(text).toBe(served.text);
  });

  test('invalid limits are configuration errors', () => {
    for (const idleTimeoutMs of [0, -1, Number.NaN]) {
      expect(() => openAICompatible({ baseURL, model: 'm', idleTimeoutMs })).toThrow(ConfigurationError);
    }
    expect(() => openAICompatible({ baseURL, model: 'm', totalTimeoutMs: 0 })).toThrow(
      /totalTimeoutMs must be a positive number of milliseconds/,
    );
    expect(() =>
      openAICompatible({ baseURL, model: 'm', idleTimeoutMs: Number.POSITIVE_INFINITY, totalTimeoutMs: 1e12 }),
    ).not.toThrow();
  });
});
