/**
 * The Vercel AI SDK (ai 5) as input, with the SDK's own mock language model (`MockLanguageModelV2`
 * from `ai/test`, `simulateReadableStream`), no network: `streamText(...).textStream` through
 * `readableFrom` (Node and Web) into `createJsonlStream`, and `streamText(...).fullStream`
 * through `fromAiSdk` into `createToolCallStream({ input: 'ai-sdk' | 'auto' })`, Node and Web.
 */
import { Readable } from 'node:stream';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import { simulateReadableStream, streamText, type ToolSet, tool } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';

/** What the mock model streams (the SDK's `LanguageModelV2StreamPart`). */
type LanguageModelV2StreamPart =
  Awaited<ReturnType<MockLanguageModelV2['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

const usage = { inputTokens: 10, outputTokens: 20, totalTokens: 30 };

function mockModel(chunks: LanguageModelV2StreamPart[]): MockLanguageModelV2 {
  return new MockLanguageModelV2({
    modelId: 'mock-model',
    doStream: async () => ({ stream: simulateReadableStream({ chunks }) }),
  });
}

function textModel(text: string, pieceLength = 7): MockLanguageModelV2 {
  const deltas: LanguageModelV2StreamPart[] = [];
  for (let i = 0; i < text.length; i += pieceLength)
    deltas.push({ type: 'text-delta', id: 't0', delta: text.slice(i, i + pieceLength) });
  return mockModel([
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't0' },
    ...deltas,
    { type: 'text-end', id: 't0' },
    { type: 'finish', finishReason: 'stop', usage },
  ]);
}

/** Two tool calls, their inputs streamed interleaved, then each `tool-call`. */
function toolModel(): MockLanguageModelV2 {
  return mockModel([
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: 'resp_1', modelId: 'mock-model', timestamp: new Date(0) },
    { type: 'tool-input-start', id: 'call_1', toolName: 'weather' },
    { type: 'tool-input-delta', id: 'call_1', delta: '{"city": "Pa' },
    { type: 'tool-input-start', id: 'call_2', toolName: 'search' },
    { type: 'tool-input-delta', id: 'call_2', delta: '{"query": "str' },
    { type: 'tool-input-delta', id: 'call_1', delta: 'ris", "days": [1, ' },
    { type: 'tool-input-delta', id: 'call_1', delta: '2]}' },
    { type: 'tool-input-end', id: 'call_1' },
    { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: '{"city": "Paris", "days": [1, 2]}' },
    { type: 'tool-input-delta', id: 'call_2', delta: 'awberry", "limit": 3}' },
    { type: 'tool-input-end', id: 'call_2' },
    { type: 'tool-call', toolCallId: 'call_2', toolName: 'search', input: '{"query": "strawberry", "limit": 3}' },
    { type: 'finish', finishReason: 'tool-calls', usage },
  ]);
}

const weather = z.object({ city: z.string(), days: z.array(z.number()) });
const search = z.object({ query: z.string(), limit: z.number() });
// The AI SDK's tool definitions (no execute: the calls are the output). The cast: under this
// workspace's `exactOptionalPropertyTypes`, ai 5's `Tool` types are not assignable to its `ToolSet`.
const sdkTools = { weather: tool({ inputSchema: weather }), search: tool({ inputSchema: search }) } as ToolSet;

const item = z.object({ id: z.number(), name: z.string() });
const JSONL = '{"id": 1, "name": "alpha"}\n{"id": 2, "name": "béta ☕"}\n{"id": 3, "name": "gamma"}\n';
const ITEMS = [
  { id: 1, name: 'alpha' },
  { id: 2, name: 'béta ☕' },
  { id: 3, name: 'gamma' },
];

async function collectWeb<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) return out;
    out.push(next.value);
  }
}

describe('streamText(...).textStream as JSONL', () => {
  test('Node: readableFrom(textStream).pipe(createJsonlStream) gives the objects', async () => {
    const result = streamText({ model: textModel(JSONL), prompt: 'three items' });
    const records = await node
      .readableFrom(result.textStream)
      .pipe(node.createJsonlStream({ schema: item }))
      .toArray();
    expect(records).toEqual(ITEMS);
  });

  test('Readable.from(fromAsync(textStream)) ends cleanly (Readable.from(textStream) alone: ERR_INVALID_STATE on Node 20)', async () => {
    const result = streamText({ model: textModel(JSONL), prompt: 'three items' });
    const records = await Readable.from(node.fromAsync(result.textStream))
      .pipe(node.createJsonlStream({ schema: item }))
      .toArray();
    expect(records).toEqual(ITEMS);
  });

  test('Web: readableFrom(textStream).pipeThrough(createJsonlStream) gives the objects', async () => {
    const result = streamText({ model: textModel(JSONL, 5), prompt: 'three items' });
    const records = await collectWeb(
      web.readableFrom(result.textStream).pipeThrough(web.createJsonlStream({ schema: item })),
    );
    expect(records).toEqual(ITEMS);
  });
});

describe('streamText(...).fullStream with two tool calls', () => {
  const expectCalls = (updates: readonly { key: string; name?: string; value: unknown; complete: boolean }[]) => {
    const of = (key: string) => updates.filter((u) => u.key === key);
    // Live partial values: the weather call shows its city before its arguments are complete.
    expect(of('call_1').map((u) => [u.value, u.complete])).toContainEqual([{ city: 'Pa' }, false]);
    expect(of('call_2').some((u) => !u.complete)).toBe(true);
    expect(of('call_1').at(-1)).toMatchObject({
      name: 'weather',
      value: { city: 'Paris', days: [1, 2] },
      complete: true,
    });
    expect(of('call_2').at(-1)).toMatchObject({
      name: 'search',
      value: { query: 'strawberry', limit: 3 },
      complete: true,
    });
    // The two calls' updates interleave as the pieces did.
    expect(updates.findIndex((u) => u.key === 'call_2')).toBeLessThan(updates.map((u) => u.key).lastIndexOf('call_1'));
  };

  test.each(['ai-sdk', 'auto'] as const)(
    'Node, input %s: each call as live partial values, then complete',
    async (input) => {
      const result = streamText({ model: toolModel(), prompt: 'weather and search', tools: sdkTools });
      const stream = node.createToolCallStream({ input, tools: { weather, search } });
      const diagnostics: unknown[] = [];
      stream.on('diagnostic', (d) => diagnostics.push(d));
      const updates = await Readable.from(node.fromAiSdk(result.fullStream)).pipe(stream).toArray();
      expectCalls(updates);
      expect(diagnostics).toEqual([]);
      expect(stream).toMatchObject({
        provider: 'ai-sdk',
        finishReason: 'tool-calls',
        complete: true,
        model: 'mock-model',
      });
      expect(stream.usage).toEqual({ inputTokens: 10, outputTokens: 20, totalTokens: 30 });
      expect(stream.calls.map((c) => [c.key, c.complete])).toEqual([
        ['call_1', true],
        ['call_2', true],
      ]);
    },
  );

  test('Web, input auto: the same updates', async () => {
    const result = streamText({ model: toolModel(), prompt: 'weather and search', tools: sdkTools });
    const updates = await collectWeb(
      web
        .readableFrom(web.fromAiSdk(result.fullStream))
        .pipeThrough(web.createToolCallStream({ input: 'auto', tools: { weather, search } })),
    );
    expectCalls(updates);
  });

  test('a model error arrives as an error part: a provider-error diagnostic, no stream error', async () => {
    const model = mockModel([
      { type: 'stream-start', warnings: [] },
      { type: 'tool-input-start', id: 'call_1', toolName: 'weather' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"city": "Pa' },
      { type: 'error', error: new Error('Overloaded') },
    ]);
    const result = streamText({ model, prompt: 'x', tools: sdkTools, onError: () => {} });
    const stream = node.createToolCallStream({ input: 'ai-sdk', tools: { weather, search } });
    const diagnostics: { reason: string; message: string }[] = [];
    stream.on('diagnostic', (d) => diagnostics.push(d));
    await Readable.from(node.fromAiSdk(result.fullStream)).pipe(stream).toArray();
    expect(diagnostics.map((d) => d.reason)).toContain('provider-error');
    expect(stream.error).toEqual({ message: 'Overloaded' });
  });
});

describe('readableFrom (Node and Web)', () => {
  async function* failing() {
    yield '{"id": 1, "name": "a"}\n';
    throw new Error('socket hang up');
  }

  test('Node: an exception from the source is a stream error', async () => {
    await expect(node.readableFrom(failing()).toArray()).rejects.toThrow('socket hang up');
  });

  test('Node: bytes and a Web ReadableStream are sources too; the Readable is a byte stream', async () => {
    const bytes = new TextEncoder().encode(JSONL);
    const web = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.subarray(0, 30));
        c.enqueue(bytes.subarray(30));
        c.close();
      },
    });
    const readable = node.readableFrom(web);
    expect(readable.readableObjectMode).toBe(false);
    const records = await readable.pipe(node.createJsonlStream({ schema: item })).toArray();
    expect(records).toEqual(ITEMS);
  });

  test('Web: an exception from the source errors the stream; a ReadableStream is returned as it is', async () => {
    await expect(collectWeb(web.readableFrom(failing()))).rejects.toThrow('socket hang up');
    const stream = new ReadableStream<string>();
    expect(web.readableFrom(stream)).toBe(stream);
  });
});
