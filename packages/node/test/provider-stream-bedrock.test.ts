/**
 * The Node provider stream over a binary Bedrock ConverseStream body (AWS event-stream frames,
 * encoded by `@smithy/eventstream-codec` from the events of fixtures/providers/bedrock-*.sse): Buffers reach the decoder as bytes, never as UTF-8 text,
 * under `input: 'bedrock'` and `'auto'`; split anywhere, they give what the core decoder gives
 * for the whole body. Text bodies under the same inputs still go the text way.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createProviderDecoder } from '@llmjson/core';
import { createProviderStream, type Diagnostic, type ProviderInput } from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { bedrockFrames, bedrockLines } from '../../../test/support/bedrock.js';
import { chunkBytes, splitAt, utf8 } from '../../../test/support/chunking.js';

const BINARY = bedrockFrames('bedrock-reasoning-tool');
const THROTTLED = bedrockFrames('bedrock-throttling');
const LINES = bedrockLines('bedrock-reasoning-tool');

/** The core decoder over the whole body, bytes offered first: the oracle. */
function core(bytes: Uint8Array) {
  let text = '';
  let reasoning = '';
  const tools: Record<string, string> = {};
  const decoder = createProviderDecoder(
    { input: 'auto' },
    {
      text: (t) => {
        text += t;
      },
      reasoning: (t) => {
        reasoning += t;
      },
      toolArguments: (key, delta) => {
        tools[key] = (tools[key] ?? '') + delta;
      },
      diagnostic: () => {},
    },
  );
  expect(decoder.bytes(bytes)).toBe(true);
  decoder.end();
  return { text, reasoning, tools, toolCalls: decoder.toolCalls, finishReason: decoder.finishReason };
}

async function collect(chunks: readonly (string | Uint8Array)[], input: ProviderInput = 'auto') {
  const stream = createProviderStream({ input });
  const texts: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const tools: Record<string, string> = {};
  let reasoning = '';
  stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
  stream.on('reasoning', (t: string) => {
    reasoning += t;
  });
  stream.on('toolArguments', (key: string, delta: string) => {
    tools[key] = (tools[key] ?? '') + delta;
  });
  await pipeline(Readable.from(chunks, { objectMode: true }), stream, async (source: AsyncIterable<string>) => {
    for await (const text of source) texts.push(text);
  });
  return { stream, text: texts.join(''), texts, diagnostics, tools, reasoning };
}

describe('createProviderStream over binary Bedrock frames', () => {
  const expected = core(BINARY);

  test.each(['auto', 'bedrock'] as const)(
    'input %s: Buffers split anywhere decode as the whole body',
    async (input) => {
      expect(expected.text).toBe('Checking Zürich ☕ 🍓.');
      for (const size of [1, 2, 3, 5, 7, 12, 13, 64, 1000, BINARY.length]) {
        const r = await collect(
          chunkBytes(BINARY, size).map((c) => Buffer.from(c)),
          input,
        );
        expect(r.texts.every((t) => typeof t === 'string' && t !== '')).toBe(true);
        expect(r.text, `size ${size}`).toBe(expected.text);
        expect(r.reasoning).toBe(expected.reasoning);
        expect(r.tools).toEqual(expected.tools);
        expect(r.diagnostics).toEqual([]);
        expect(r.stream).toMatchObject({
          provider: 'bedrock',
          finishReason: 'tool_use',
          complete: true,
          toolCalls: expected.toolCalls,
          usage: { inputTokens: 1410, outputTokens: 96, totalTokens: 1506 },
        });
      }
    },
  );

  test('Uint8Arrays at uneven split points, with empty chunks, give the same', async () => {
    const points = [0, 0, 1, 11, 12, 13, 200, 201, 999, 2000, 2000];
    const r = await collect(splitAt(BINARY, points));
    expect(r.text).toBe(expected.text);
    expect(r.tools).toEqual(expected.tools);
  });

  test('chunks written in one synchronous burst (a writev batch), with empty ones and a text start, decode the same', async () => {
    for (const size of [1, 7, 100]) {
      const stream = createProviderStream({ input: 'auto', highWaterMark: 1 });
      let text = '';
      const ended = new Promise<void>((resolve) => stream.on('end', resolve));
      for (const chunk of [new Uint8Array(0), ...chunkBytes(BINARY, size)]) stream.write(chunk);
      stream.end();
      // Read late: the writes wait for reads (backpressure) and resume with them.
      await new Promise((resolve) => setTimeout(resolve, 10));
      stream.on('data', (t: string) => {
        text += t;
      });
      await ended;
      expect(text, `size ${size}`).toBe(expected.text);
      expect(stream.toolCalls).toEqual(expected.toolCalls);
    }
    const lines = createProviderStream({ input: 'auto' });
    let text = '';
    lines.on('data', (t: string) => {
      text += t;
    });
    const ended = new Promise<void>((resolve) => lines.on('end', resolve));
    for (const chunk of chunkBytes(utf8.encode(LINES), 5)) lines.write(chunk);
    lines.end();
    await ended;
    expect(text).toBe(expected.text);
  });

  test('an exception frame is a provider-error diagnostic, not a stream error', async () => {
    const r = await collect(chunkBytes(THROTTLED, 7));
    expect(r.text).toBe('The first part');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (throttlingException): Too many requests, please wait before trying again.'],
    ]);
    expect(r.stream.error).toEqual({
      message: 'Too many requests, please wait before trying again.',
      code: 'throttlingException',
    });
  });

  test('a damaged frame is a diagnostic; the stream ends normally', async () => {
    const bad = BINARY.slice();
    bad[300] = (bad[300] as number) ^ 0xff;
    const r = await collect(chunkBytes(bad, 5));
    expect(r.diagnostics.map((d) => d.reason)).toContain('syntax');
    expect(r.stream.finishReason).toBe('tool_use');
  });

  test('the JSON-lines form, as Buffers, goes the text way (split inside UTF-8 characters)', async () => {
    const bytes = utf8.encode(LINES);
    for (const input of ['auto', 'bedrock'] as const) {
      const r = await collect(
        chunkBytes(bytes, 3).map((c) => Buffer.from(c)),
        input,
      );
      expect(r.text).toBe(expected.text);
      expect(r.tools).toEqual(expected.tools);
      expect(r.diagnostics).toEqual([]);
    }
  });

  test('under another input, a binary body is not decoded as frames', async () => {
    const r = await collect([Buffer.from(BINARY)], 'openai');
    expect(r.text).toBe('');
    expect(r.stream.provider).toBe('openai');
    expect(r.diagnostics.length).toBeGreaterThan(0);
  });

  test('an exception from a listener goes to the stream, not out of the process', async () => {
    const stream = createProviderStream({ input: 'bedrock' });
    stream.on('toolArguments', () => {
      throw new Error('listener failed');
    });
    await expect(
      pipeline(Readable.from([Buffer.from(BINARY)]), stream, async (source: AsyncIterable<string>) => {
        for await (const _ of source);
      }),
    ).rejects.toThrow('listener failed');
  });
});
