/**
 * openAICompatible (core's openai-compatible.ts) against a local server that sends too much: an
 * error response whose body is huge or endless is read up to a bounded prefix and the rest
 * cancelled; tool-call arguments in the answer (which the answer text does not use) are not
 * kept, and past maxArgumentsLength they are reported once while the text goes on.
 */

import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Diagnostic, openAICompatible, ProviderHttpError } from '@llmjson/node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

let server: Server;
let baseURL: string;
/** Per path, resolved when the server sees the response's connection close. */
const closed = new Map<string, () => void>();

const MIB = 1024 * 1024;

/** Writes `chunk` `count` times (or forever), waiting for the socket to drain, until the client goes away; then ends if `end`. */
async function pour(
  response: ServerResponse,
  chunk: string,
  count = Number.POSITIVE_INFINITY,
  end = '',
): Promise<void> {
  for (let i = 0; i < count && !response.destroyed; i++) {
    if (!response.write(chunk)) await Promise.race([once(response, 'drain'), once(response, 'close')]);
  }
  if (!response.destroyed) response.end(end);
}

const chatChunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

beforeAll(async () => {
  server = createServer(async (request, response) => {
    request.resume();
    const path = (request.url ?? '').replace(/\/chat\/completions$/, '');
    response.on('close', () => closed.get(path)?.());
    if (path === '/huge-json-error') {
      // 64 MiB of one JSON error message: read whole, it became the error's message.
      response.writeHead(500, { 'content-type': 'application/json' });
      response.write('{"error":{"message":"');
      await pour(response, 'x'.repeat(MIB), 64, '"}}');
      return;
    }
    if (path === '/endless-error') {
      response.writeHead(503, { 'content-type': 'text/html' });
      await pour(response, `<p>${'overloaded '.repeat(6000)}</p>\n`);
      return;
    }
    if (path === '/small-error') {
      response.writeHead(429, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'Rate limit reached' } }));
      return;
    }
    if (path === '/long-tool-arguments') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunk({ content: 'Before. ' }));
      response.write(
        chatChunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'search', arguments: '{"q":"' } }] }),
      );
      const piece = chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'x'.repeat(MIB) } }] });
      await pour(
        response,
        piece,
        12,
        `${chatChunk({ content: 'After.' })}${chatChunk({}, 'tool_calls')}data: [DONE]\n\n`,
      );
      return;
    }
    if (path === '/long-stream-error') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`data: ${JSON.stringify({ error: { message: 'y'.repeat(MIB), type: 'server_error' } })}\n\n`);
      return;
    }
    response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

function connectionClosed(path: string): Promise<void> {
  return new Promise((resolve) => closed.set(path, resolve));
}

async function failure(path: string): Promise<ProviderHttpError> {
  const error = await openAICompatible({ baseURL: `${baseURL}${path}`, model: 'm' })({ prompt: 'hi' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderHttpError);
  return error as ProviderHttpError;
}

describe('openAICompatible: error bodies are read up to a bounded prefix', () => {
  test('a 64 MiB JSON error body: the error keeps its first 8 KiB, the message is bounded and says the body was cut', async () => {
    const error = await failure('/huge-json-error');
    expect(error.status).toBe(500);
    expect(error.body.length).toBeLessThanOrEqual(8 * 1024);
    expect(error.body.startsWith('{"error":{"message":"xxx')).toBe(true);
    expect(error.message.length).toBeLessThan(1000);
    expect(error.message).toMatch(
      /^openai-compatible: POST http:\/\/127\.0\.0\.1:\d+\/huge-json-error\/chat\/completions failed with HTTP 500 Internal Server Error: \{"error":\{"message":"x+ \(the error body was cut: only its first 8192 bytes were read\)$/,
    );
  });

  test('an endless HTML error body: the call fails with a bounded message, and the connection is closed', async () => {
    const gone = connectionClosed('/endless-error');
    const error = await failure('/endless-error');
    expect(error.status).toBe(503);
    expect(error.body.length).toBeLessThanOrEqual(8 * 1024);
    expect(error.message).toContain('HTTP 503 Service Unavailable: <p>overloaded overloaded');
    expect(error.message).toContain('(the error body was cut: only its first 8192 bytes were read)');
    expect(error.message.length).toBeLessThan(1000);
    await gone;
  });

  test('a small error body is read whole, its message quoted, no cut note', async () => {
    const error = await failure('/small-error');
    expect(error.body).toBe('{"error":{"message":"Rate limit reached"}}');
    expect(error.message).toMatch(/HTTP 429 Too Many Requests: Rate limit reached$/);
  });
});

describe('openAICompatible: tool-call arguments', () => {
  test('arguments past maxArgumentsLength (8 MiB) are reported once through onDiagnostic; the answer text goes on', async () => {
    const diagnostics: Diagnostic[] = [];
    const llm = openAICompatible({
      baseURL: `${baseURL}/long-tool-arguments`,
      model: 'm',
      onDiagnostic: (d) => diagnostics.push(d),
    });
    const result = await llm({ prompt: 'hi' });
    let text = '';
    for await (const piece of result.output) text += piece;
    expect(text).toBe('Before. After.');
    expect(result.finishReason).toBe('tool_calls');
    expect(diagnostics.map((d) => d.reason)).toEqual(['too-long']);
    expect(diagnostics[0]).toMatchObject({ toolCall: { index: 0, id: 'call_1', name: 'search' } });
  });
});

describe('openAICompatible: an error in the stream', () => {
  test('a 1 MiB error message in the stream throws a bounded message that gives its length', async () => {
    const result = await openAICompatible({ baseURL: `${baseURL}/long-stream-error`, model: 'm' })({ prompt: 'hi' });
    const error = await (async () => {
      for await (const _ of result.output);
    })().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(
      /^openai-compatible: the provider reported an error in the stream: y+… \(1048576 characters\)$/,
    );
    expect(error?.message.length).toBeLessThan(1200);
  });
});
