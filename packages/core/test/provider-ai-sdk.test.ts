/**
 * The AI SDK `fullStream` wire format (`input: 'ai-sdk'`) of the provider decoder: the parts of
 * `streamText(...).fullStream` (ai 5), written one JSON line each by `fromAiSdk` / `aiSdkLine`.
 * The shapes are the ones the real SDK emits (test/conformance/ai-sdk.test.ts runs the SDK's
 * mock model through the Node streams).
 *
 * Every body is decoded whole, at every chunk size from 1 to 64 and at arbitrary split points,
 * under `auto` and under `input: 'ai-sdk'`: all give the same sink calls in the same order.
 */
import { test as fcTest } from '@fast-check/vitest';
import { createProviderDecoder, fromAiSdk, fromAsync, ProviderFormat, type ProviderInput } from '@llmjson/core';
import { aiSdkLine } from '@llmjson/core/internal';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { decodeEverySplit, type Run, runProviderDecoder as run } from '../../../test/support/provider.js';

/** Decodes `body` whole, at every chunk size 1..64 and split at every position, under `input`; asserts they agree. */
const decode = (body: string, input: ProviderInput = 'auto'): Run => decodeEverySplit(body, input);

const lines = (parts: object[]) => parts.map(aiSdkLine).join('');
const usage = { inputTokens: 12, outputTokens: 30, totalTokens: 42 };
const step = (finishReason: string) => ({
  type: 'finish-step',
  finishReason,
  usage,
  response: { id: 'r1', timestamp: '2026-11-23T00:00:00.000Z', modelId: 'mock-model' },
  providerMetadata: undefined,
});

const BODIES: Record<string, string> = {
  text: lines([
    { type: 'start' },
    { type: 'start-step', request: {}, warnings: [] },
    { type: 'reasoning-start', id: 'r0' },
    { type: 'reasoning-delta', id: 'r0', text: 'Counting the rs… 🍓' },
    { type: 'reasoning-end', id: 'r0' },
    { type: 'text-start', id: 't0' },
    { type: 'text-delta', id: 't0', text: '{"word": "straw' },
    { type: 'text-delta', id: 't0', text: 'berry", "note": "café ☕"}\n' },
    { type: 'text-delta', id: 't0', text: '' },
    { type: 'text-end', id: 't0' },
    step('stop'),
    { type: 'finish', finishReason: 'stop', totalUsage: usage },
  ]),
  tools: lines([
    { type: 'start' },
    { type: 'start-step', request: {}, warnings: [] },
    { type: 'tool-input-start', id: 'call_a', toolName: 'weather', dynamic: false },
    { type: 'tool-input-start', id: 'call_b', toolName: 'search' },
    { type: 'tool-input-delta', id: 'call_a', delta: '{"city": "Par' },
    { type: 'tool-input-delta', id: 'call_b', delta: '{"query": "ü' },
    { type: 'tool-input-delta', id: 'call_a', delta: 'is"}' },
    { type: 'tool-input-end', id: 'call_a' },
    { type: 'tool-call', toolCallId: 'call_a', toolName: 'weather', input: { city: 'Paris' } },
    { type: 'tool-input-delta', id: 'call_b', delta: 'ber", "limit": 3}' },
    { type: 'tool-input-end', id: 'call_b' },
    { type: 'tool-call', toolCallId: 'call_b', toolName: 'search', input: { query: 'über', limit: 3 } },
    { type: 'tool-call', toolCallId: 'call_c', toolName: 'now', input: {} },
    { type: 'tool-result', toolCallId: 'call_a', toolName: 'weather', input: { city: 'Paris' }, output: 'sunny' },
    step('tool-calls'),
    { type: 'finish', finishReason: 'tool-calls', totalUsage: usage },
  ]),
  unstreamed: lines([
    { type: 'start' },
    { type: 'tool-call', toolCallId: 'call_x', toolName: 'weather', input: { city: 'Oslo', days: [1, 2] } },
    { type: 'finish', finishReason: 'tool-calls', totalUsage: { inputTokens: 5, outputTokens: 7 } },
  ]),
  error: lines([
    { type: 'start' },
    { type: 'text-delta', id: 't0', text: 'Hel' },
    { type: 'error', error: Object.assign(new Error('Overloaded'), { name: 'AI_APICallError' }) },
  ]),
  cut: lines([
    { type: 'start' },
    { type: 'text-delta', id: 't0', text: 'Hi' },
    { type: 'tool-input-start', id: 'call_a', toolName: 'weather' },
    { type: 'tool-input-delta', id: 'call_a', delta: '{"city": "Pa' },
  ]),
};

describe.each(Object.keys(BODIES))('%s', (name) => {
  const body = BODIES[name] as string;
  const whole = run([body]);

  test('auto detects the format; every chunk size, and input ai-sdk, give the same result', () => {
    expect(whole.provider).toBe(ProviderFormat.aiSdk);
    expect(whole.metadata[0]?.provider).toBe('ai-sdk');
    expect(decode(body)).toEqual(whole);
    expect(decode(body, 'ai-sdk')).toEqual(whole);
  });

  fcTest.prop([splitPoints(body.length)], { numRuns: Math.ceil(numRuns / 5) })('arbitrary split points', (points) => {
    expect(run(splitAt(body, points))).toEqual(whole);
    expect(run(splitAt(body, points), 'ai-sdk')).toEqual(run([body], 'ai-sdk'));
  });
});

describe('what each part becomes', () => {
  test('text-delta is the answer, reasoning-delta reasoning; finish ends it with the total usage', () => {
    const r = decode(BODIES.text as string);
    expect(r.text).toBe('{"word": "strawberry", "note": "café ☕"}\n');
    expect(r.reasoning).toBe('Counting the rs… 🍓');
    expect(r).toMatchObject({ model: 'mock-model', finishReason: 'stop', error: undefined, diagnostics: [] });
    expect(r.usage).toEqual({ inputTokens: 12, outputTokens: 30, totalTokens: 42 });
    expect(r.toolCalls).toEqual([]);
    expect(r.metadata.at(-1)).toEqual({
      provider: 'ai-sdk',
      model: 'mock-model',
      finishReason: 'stop',
      usage: r.usage,
    });
  });

  test('tool-input parts are argument pieces keyed by the call id; tool-call closes a call', () => {
    const r = decode(BODIES.tools as string);
    expect(r.diagnostics).toEqual([]);
    expect(r.tools).toEqual({
      call_a: '{"city": "Paris"}',
      call_b: '{"query": "über", "limit": 3}',
      call_c: '{}',
    });
    expect(r.toolCalls).toEqual([
      { key: 'call_a', index: 0, id: 'call_a', name: 'weather', arguments: '{"city": "Paris"}', complete: true },
      {
        key: 'call_b',
        index: 1,
        id: 'call_b',
        name: 'search',
        arguments: '{"query": "über", "limit": 3}',
        complete: true,
      },
      { key: 'call_c', index: 2, id: 'call_c', name: 'now', arguments: '{}', complete: true },
    ]);
    expect(r.finishReason).toBe('tool-calls');
    // The streamed pieces are delivered as they arrive, the two calls interleaved.
    const pieces = r.calls.filter((c) => c[0] === 'toolArguments').map((c) => [c[1], c[2]]);
    expect(pieces.slice(0, 3)).toEqual([
      ['call_a', '{"city": "Par'],
      ['call_b', '{"query": "ü'],
      ['call_a', 'is"}'],
    ]);
  });

  test('a tool-call part whose input was not streamed delivers the whole input as one piece', () => {
    const r = decode(BODIES.unstreamed as string);
    expect(r.tools).toEqual({ call_x: '{"city":"Oslo","days":[1,2]}' });
    expect(r.toolCalls[0]).toMatchObject({ name: 'weather', complete: true });
    expect(r.usage).toEqual({ inputTokens: 5, outputTokens: 7, totalTokens: 12 });
    expect(r.diagnostics).toEqual([]);
  });

  test('an error part is a provider-error, with the Error written as {message, name}', () => {
    const r = decode(BODIES.error as string);
    expect(r.text).toBe('Hel');
    expect(r.error).toEqual({ message: 'Overloaded' });
    expect(r.finishReason).toBe('error');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([['provider-error', 'provider error: Overloaded']]);
  });

  test('a stream without a finish part is truncated, naming the open call', () => {
    const r = decode(BODIES.cut as string);
    expect(r.toolCalls).toEqual([
      { key: 'call_a', index: 0, id: 'call_a', name: 'weather', arguments: '{"city": "Pa', complete: false },
    ]);
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      [
        'truncated',
        'the stream ended before a finish part; tool call(s) cut off: call_a (weather) after 12 characters',
      ],
    ]);
  });

  test('a part of an unknown type is reported, not decoded into nothing', () => {
    const r = decode(`${lines([{ type: 'text-delta', id: 't', text: 'a' }])}{"type":"mystery"}\n`, 'ai-sdk');
    expect(r.text).toBe('a');
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['unrecognized', 'truncated']);
  });
});

describe('aiSdkLine and fromAiSdk', () => {
  test('parts the decoder ignores are written as their type alone; an Error as {message, name}', () => {
    expect(aiSdkLine({ type: 'file', file: { base64: 'A'.repeat(1000) } })).toBe('{"type":"file"}\n');
    expect(aiSdkLine({ type: 'raw', rawValue: { big: 1n } })).toBe('{"type":"raw"}\n');
    expect(aiSdkLine({ type: 'error', error: new TypeError('bad') })).toBe(
      '{"type":"error","error":{"message":"bad","name":"TypeError"}}\n',
    );
    expect(aiSdkLine({ type: 'text-delta', id: 't', text: 'x' })).toBe('{"type":"text-delta","id":"t","text":"x"}\n');
  });

  test('takes an async iterable or a ReadableStream; a source error propagates', async () => {
    const parts = [{ type: 'text-delta', id: 't', text: 'x' }];
    const collect = async (source: AsyncIterable<string | Uint8Array>) => {
      const out: (string | Uint8Array)[] = [];
      for await (const line of source) out.push(line);
      return out;
    };
    async function* gen() {
      yield* parts;
    }
    expect(await collect(fromAiSdk(gen()))).toEqual(['{"type":"text-delta","id":"t","text":"x"}\n']);
    // A ReadableStream that is not async-iterable (as in Safari) is read through its reader.
    const stream = new ReadableStream<object>({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.close();
      },
    });
    const readerOnly = { getReader: () => stream.getReader() };
    expect(await collect(fromAiSdk(readerOnly))).toEqual(['{"type":"text-delta","id":"t","text":"x"}\n']);
    async function* failing() {
      yield 'a';
      throw new Error('socket hang up');
    }
    await expect(collect(fromAsync(failing()))).rejects.toThrow('socket hang up');
    const failingStream = new ReadableStream<string>({
      start(c) {
        c.enqueue('a');
        c.error(new Error('reset'));
      },
    });
    await expect(collect(fromAsync({ getReader: () => failingStream.getReader() }))).rejects.toThrow('reset');
  });

  test('a consumer stopping early cancels a ReadableStream source', async () => {
    let cancelled = false;
    const stream = new ReadableStream<string>({
      pull(c) {
        c.enqueue('x');
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const chunk of fromAsync({ getReader: () => stream.getReader() })) {
      expect(chunk).toBe('x');
      break;
    }
    expect(cancelled).toBe(true);
  });
});

test('the decoder is the engine the streams use: createProviderDecoder takes ai-sdk', () => {
  expect(() => createProviderDecoder({ input: 'ai-sdk' }, { text() {}, diagnostic() {} })).not.toThrow();
});
