/**
 * The Web provider stream over a binary Bedrock ConverseStream body (AWS event-stream frames,
 * encoded by `@smithy/eventstream-codec` from the events of fixtures/providers/bedrock-*.sse):
 * Uint8Arrays reach the decoder as bytes, never as UTF-8 text, under `input: 'bedrock'` and
 * `'auto'`; split anywhere, they give what the core decoder gives for the whole body. Text
 * bodies under the same inputs still go the text way.
 */
import type { ProviderInput } from '@llmjson/core';
import { createProviderDecoder } from '@llmjson/core';
import { createProviderStream, type Diagnostic } from '@llmjson/web';
import { describe, expect, test } from 'vitest';
import { bedrockFrames, bedrockLines } from '../../../test/support/bedrock.js';
import { chunkBytes, splitAt, utf8 } from '../../../test/support/chunking.js';

const BINARY = bedrockFrames('bedrock-reasoning-tool');
const THROTTLED = bedrockFrames('bedrock-throttling');
const LINES = bedrockLines('bedrock-reasoning-tool');

function core(bytes: Uint8Array) {
  let text = '';
  const tools: Record<string, string> = {};
  const decoder = createProviderDecoder(
    { input: 'auto' },
    {
      text: (t) => {
        text += t;
      },
      toolArguments: (key, delta) => {
        tools[key] = (tools[key] ?? '') + delta;
      },
      diagnostic: () => {},
    },
  );
  expect(decoder.bytes(bytes)).toBe(true);
  decoder.end();
  return { text, tools, toolCalls: decoder.toolCalls };
}

const source = (chunks: readonly (string | Uint8Array)[]) =>
  new ReadableStream<string | Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });

async function collect(chunks: readonly (string | Uint8Array)[], input: ProviderInput = 'auto') {
  const diagnostics: Diagnostic[] = [];
  const tools: Record<string, string> = {};
  let reasoning = '';
  const stream = createProviderStream({
    input,
    onDiagnostic: (d) => diagnostics.push(d),
    onReasoning: (t) => {
      reasoning += t;
    },
    onToolArguments: (key, delta) => {
      tools[key] = (tools[key] ?? '') + delta;
    },
  });
  const texts: string[] = [];
  for await (const text of source(chunks).pipeThrough(stream)) texts.push(text);
  return { stream, text: texts.join(''), texts, diagnostics, tools, reasoning };
}

describe('createProviderStream (Web) over binary Bedrock frames', () => {
  const expected = core(BINARY);

  test.each(['auto', 'bedrock'] as const)(
    'input %s: Uint8Arrays split anywhere decode as the whole body',
    async (input) => {
      expect(expected.text).toBe('Checking Zürich ☕ 🍓.');
      for (const size of [1, 2, 3, 5, 7, 12, 13, 64, 1000, BINARY.length]) {
        const r = await collect(chunkBytes(BINARY, size), input);
        expect(r.stream).toBeInstanceOf(TransformStream);
        expect(r.texts.every((t) => typeof t === 'string' && t !== '')).toBe(true);
        expect(r.text, `size ${size}`).toBe(expected.text);
        expect(r.reasoning).toBe('The user wants the weather.');
        expect(r.tools).toEqual(expected.tools);
        expect(r.diagnostics).toEqual([]);
        expect(r.stream).toMatchObject({
          provider: 'bedrock',
          finishReason: 'tool_use',
          complete: true,
          toolCalls: expected.toolCalls,
        });
      }
    },
  );

  test('uneven split points with empty chunks give the same', async () => {
    const r = await collect(splitAt(BINARY, [0, 0, 1, 11, 12, 13, 200, 201, 999, 2000, 2000]));
    expect(r.text).toBe(expected.text);
    expect(r.tools).toEqual(expected.tools);
  });

  test('an exception frame is a provider-error diagnostic, not a stream error', async () => {
    const r = await collect(chunkBytes(THROTTLED, 7));
    expect(r.text).toBe('The first part');
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['provider-error']);
    expect(r.stream.error).toEqual({
      message: 'Too many requests, please wait before trying again.',
      code: 'throttlingException',
    });
  });

  test('the JSON-lines form, and SSE text, go the text way under the same inputs', async () => {
    for (const input of ['auto', 'bedrock'] as const) {
      const r = await collect(chunkBytes(utf8.encode(LINES), 3), input);
      expect(r.text).toBe(expected.text);
      expect(r.tools).toEqual(expected.tools);
      expect(r.diagnostics).toEqual([]);
    }
    const sse = await collect([
      'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n',
      utf8.encode('data: {"choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop"}]}\n\n'),
    ]);
    expect(sse.text).toBe('hi there');
    expect(sse.stream.provider).toBe('openai');
  });

  test('backpressure: with a readable side nobody reads, writes of frames wait', async () => {
    const stream = createProviderStream({ input: 'bedrock', highWaterMark: 1 });
    const writer = stream.writable.getWriter();
    const frames = chunkBytes(BINARY, 200);
    let written = 0;
    const writes = frames.map((f) => writer.write(f).then(() => written++));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(written).toBeLessThan(frames.length);
    const reader = stream.readable.getReader();
    let text = '';
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += value;
      }
    })();
    await Promise.all(writes);
    await writer.close();
    await reading;
    expect(text).toBe(expected.text);
  });

  test('an exception from a callback errors both sides', async () => {
    const stream = createProviderStream({
      input: 'bedrock',
      onToolArguments: () => {
        throw new Error('callback failed');
      },
    });
    const reading = (async () => {
      for await (const _ of stream.readable);
    })();
    const writer = stream.writable.getWriter();
    await expect(writer.write(BINARY)).rejects.toThrow('callback failed');
    await expect(reading).rejects.toThrow('callback failed');
  });
});
