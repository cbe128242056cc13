/**
 * createToolCallStream (Node): a provider body in, per tool call its arguments as live partial
 * values out; fail fast on a call's arguments stops the model's HTTP response early.
 */

import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ContractViolationError,
  createToolCallStream,
  type Diagnostic,
  type JsonSchema,
  type ToolCallUpdate,
} from '@llmjson/node';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { bedrockFrames, bedrockLines } from '../../../test/support/bedrock.js';
import { chunkBytes, chunkText, utf8 } from '../../../test/support/chunking.js';
import { type ModelServer, startModelServer } from './model-server.js';

const WEATHER: JsonSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } },
  required: ['city'],
  additionalProperties: false,
};

const chunk = (delta: unknown, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  model: 'gpt-test',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const data = (event: unknown) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`;
const call = (index: number, args: string, id?: string, name?: string) =>
  chunk({
    tool_calls: [
      {
        index,
        ...(id === undefined ? {} : { id }),
        function: { ...(name === undefined ? {} : { name }), arguments: args },
      },
    ],
  });

const BODY = [
  chunk({ role: 'assistant', content: 'Let me check. ' }),
  call(0, '', 'call_1', 'weather'),
  call(1, '{"city":"Oslo"}', 'call_2', 'weather'),
  call(0, '{"city":"Ber'),
  call(0, 'lin","unit":"celsius"}'),
  chunk({}, 'tool_calls'),
  '[DONE]',
]
  .map(data)
  .join('');

async function collect(chunks: readonly (string | Uint8Array)[], options = {}) {
  const stream = createToolCallStream({ input: 'auto', tools: { weather: WEATHER }, ...options });
  const updates: ToolCallUpdate[] = [];
  const diagnostics: Diagnostic[] = [];
  let text = '';
  stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
  stream.on('text', (delta: string) => {
    text += delta;
  });
  await pipeline(Readable.from(chunks, { objectMode: true }), stream, async (source: AsyncIterable<ToolCallUpdate>) => {
    for await (const update of source) updates.push(update);
  });
  return { stream, updates, diagnostics, text };
}

describe('createToolCallStream (Node)', () => {
  test('two calls to one tool, interleaved: each a live value, then complete; text as events', async () => {
    const { stream, updates, diagnostics, text } = await collect([BODY]);
    expect(diagnostics).toEqual([]);
    expect(text).toBe('Let me check. ');
    const finals = updates.filter((u) => u.complete).map((u) => [u.id, u.value]);
    expect(finals).toEqual([
      ['call_2', { city: 'Oslo' }],
      ['call_1', { city: 'Berlin', unit: 'celsius' }],
    ]);
    expect(stream.calls.map((c) => [c.id, c.complete])).toEqual([
      ['call_2', true],
      ['call_1', true],
    ]);
    expect(stream.provider).toBe('openai');
    expect(stream.finishReason).toBe('tool_calls');
    expect(stream.stats).toMatchObject({ calls: 2, completeCalls: 2 });
  });

  test('Buffers split anywhere, and strings at every size, give the same final calls', async () => {
    const expected = (await collect([BODY])).stream.calls;
    const bytes = utf8.encode(BODY);
    for (const size of [1, 2, 3, 7, 64]) {
      expect((await collect(chunkBytes(bytes, size))).stream.calls, `bytes ${size}`).toEqual(expected);
      expect((await collect(chunkText(BODY, size))).stream.calls, `text ${size}`).toEqual(expected);
    }
  });

  test('a Standard Schema types the updates by tool name', async () => {
    const lookup = z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']).optional() });
    const stream = createToolCallStream({ input: 'openai', tools: { weather: lookup } });
    const items = await Readable.from([BODY]).pipe(stream).toArray();
    const last = items.at(-1);
    // Typed: `value` is DeepPartial of the schema's output, so `city` is a string.
    const city: string | undefined = last?.value?.city;
    expect(city).toBe('Berlin');
  });

  test('failFast: the first violation in a call ends the stream with ContractViolationError, naming the call', async () => {
    const bad = [call(0, '{"city":"Rome","unit":"kel', 'call_9', 'weather'), call(0, 'vin"}'), '[DONE]']
      .map(data)
      .join('');
    const controller = new AbortController();
    const failed = collect([bad], { failFast: true, abortController: controller });
    const error = (await failed.catch((e: unknown) => e)) as ContractViolationError;
    expect(error).toBeInstanceOf(ContractViolationError);
    expect([error.path, error.rule]).toEqual(['/unit', 'enum']);
    expect(error.diagnostic.toolCall).toEqual({ index: 0, id: 'call_9', name: 'weather' });
    expect(controller.signal.aborted).toBe(true);
  });
});

describe('fail fast against a local model server', () => {
  let server: ModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  // One call whose arguments break the schema early, then go on for about 100 KB.
  const long = 'x'.repeat(60);
  const pieces = [
    data(call(0, '', 'call_1', 'weather')),
    data(call(0, '{"unit":"kelvin","city":"')),
    ...Array.from({ length: 2000 }, () => data(call(0, long))),
    data(call(0, '"}')),
    data('[DONE]'),
  ];

  test('the error destroys the body and the server stops writing', async () => {
    server = await startModelServer(pieces, 'text/event-stream');
    const response = await fetch(server.url);
    const failed = pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>),
      createToolCallStream({ input: 'openai', tools: { weather: WEATHER }, failFast: true }),
      async (source: AsyncIterable<unknown>) => {
        for await (const _ of source) {
          // The updates before the violation.
        }
      },
    );
    await expect(failed).rejects.toBeInstanceOf(ContractViolationError);
    const answered = await server.answered;
    expect(answered.whole).toBe(false);
    expect(answered.written).toBeLessThan(server.total / 10);
    console.info(`tool-call fail fast: the server wrote ${answered.written} of ${server.total} bytes`);
  });
});

describe('createToolCallStream over a binary Bedrock body', () => {
  test('frames split anywhere reach the decoder as bytes; the tool call streams and completes', async () => {
    const frames = bedrockFrames('bedrock-reasoning-tool');
    const expected = bedrockLines('bedrock-reasoning-tool');
    const reference = await collect([expected], { input: 'bedrock', tools: {} });
    expect(reference.stream.calls.length).toBeGreaterThan(0);
    for (const size of [1, 5, 64, frames.length]) {
      const got = await collect(chunkBytes(frames, size), { input: 'auto', tools: {} });
      expect(got.stream.provider, `size ${size}`).toBe('bedrock');
      expect(got.stream.calls, `size ${size}`).toEqual(reference.stream.calls);
      expect(got.updates.at(-1)?.complete).toBe(true);
    }
  });
});
