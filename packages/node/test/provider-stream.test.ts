import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createProviderDecoder, type ProviderMetadata } from '@llmjson/core';
import {
  ConfigurationError,
  createJsonlStream,
  createPartialStream,
  createProviderStream,
  type Diagnostic,
  type ProviderInput,
} from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkBytes, utf8 } from '../../../test/support/chunking.js';
import { corpus } from '../../../test/support/corpora.js';

const recorded = corpus<unknown>('recorded-streams/index.json', 'recorded provider streams (Node provider stream)');

/** A recorded stream replayed as SSE; a small inline stream when the corpus is absent. */
function recordedBody(file: string, inline: string): string {
  if (!recorded.present) return inline;
  const lines = readFileSync(join(recorded.path, '..', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  return `${lines.map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`;
}

const chatChunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'gpt-inline', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const INLINE_TEXT = [
  chatChunk({ role: 'assistant', content: '' }),
  chatChunk({ content: 'Holiday — “cafés”' }),
  chatChunk({ content: ' and 😀 emoji' }),
  chatChunk({}, 'stop'),
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 } })}\n\n`,
  'data: [DONE]\n\n',
].join('');

/** The core decoder's answer for the whole body: the oracle. */
function coreText(body: string): string {
  let text = '';
  const decoder = createProviderDecoder({ input: 'auto' }, { text: (t) => (text += t), diagnostic: () => {} });
  decoder.write(body);
  decoder.end();
  return text;
}

async function collect(chunks: readonly (string | Uint8Array)[], input: ProviderInput = 'auto') {
  const stream = createProviderStream({ input });
  const texts: string[] = [];
  const metadata: ProviderMetadata[] = [];
  const diagnostics: Diagnostic[] = [];
  const tools: Record<string, string> = {};
  stream.on('metadata', (m: ProviderMetadata) => metadata.push(m));
  stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
  stream.on('toolArguments', (key: string, delta: string) => {
    tools[key] = (tools[key] ?? '') + delta;
  });
  await pipeline(Readable.from(chunks, { objectMode: true }), stream, async (source: AsyncIterable<string>) => {
    for await (const text of source) texts.push(text);
  });
  return { stream, texts, metadata, diagnostics, tools };
}

describe('createProviderStream', () => {
  const body = recordedBody('openai-text.chunks.txt', INLINE_TEXT);
  const expected = coreText(body);

  test('Buffers split anywhere (inside UTF-8 characters) give the core decoder text, as strings', async () => {
    expect(expected).toMatch(/[—“’😀]/u);
    const bytes = utf8.encode(body);
    for (const size of [1, 2, 3, 5, 7, 64, 1000, bytes.length]) {
      const { texts, diagnostics } = await collect(chunkBytes(bytes, size));
      expect(texts.every((t) => typeof t === 'string' && t !== '')).toBe(true);
      expect(texts.join(''), `size ${size}`).toBe(expected);
      expect(diagnostics).toEqual([]);
    }
  });

  test('metadata as events and as properties', async () => {
    const { stream, metadata } = await collect([utf8.encode(body)]);
    const last = metadata.at(-1);
    expect(last).toMatchObject({ provider: 'openai', finishReason: 'stop' });
    expect(stream.provider).toBe('openai');
    expect(stream.finishReason).toBe('stop');
    expect(stream.model).toBe(last?.model);
    expect(stream.usage).toEqual(last?.usage);
    expect(stream.usage?.totalTokens).toBeGreaterThan(0);
    expect(stream.stats.ignoredEvents).toBe(0);
    expect(stream.error).toBeUndefined();
  });

  test('tool arguments as events; a no-argument call reads as {}', async () => {
    const inline = [
      { type: 'message_start', message: { model: 'claude-inline', usage: { input_tokens: 1, output_tokens: 1 } } },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 't', name: 'refresh', input: {} },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ]
      .map((e) => `data: ${JSON.stringify(e)}\n\n`)
      .join('');
    const anthropic = recordedBody('anthropic-tool-no-args.chunks.txt', inline);
    const { stream, tools } = await collect(chunkBytes(utf8.encode(anthropic), 3), 'anthropic');
    expect(Object.values(tools)).toEqual(['{}']);
    expect(stream.toolCalls.map((c) => [c.arguments, c.complete])).toEqual([['{}', true]]);
    expect(stream.finishReason).toBe('tool_use');
  });

  test('pipes into createJsonlStream: JSONL streamed as answer text becomes values', async () => {
    const pieces = ['{"type":"a",', '"n":1}\n{"ty', 'pe":"b","n":2}', '\n{"type":"c","n":3}'];
    const sse = `${pieces.map((p) => chatChunk({ content: p })).join('')}${chatChunk({}, 'stop')}data: [DONE]\n\n`;
    const values: unknown[] = [];
    const provider = createProviderStream({ input: 'openai' });
    await pipeline(
      Readable.from(chunkBytes(utf8.encode(sse), 5), { objectMode: true }),
      provider,
      createJsonlStream(),
      async (source: AsyncIterable<unknown>) => {
        for await (const value of source) values.push(value);
      },
    );
    expect(values).toEqual([
      { type: 'a', n: 1 },
      { type: 'b', n: 2 },
      { type: 'c', n: 3 },
    ]);
    expect(provider.finishReason).toBe('stop');
  });

  test('pipes into createPartialStream: a JSON document streamed as text', async () => {
    const inline = [
      { type: 'message_start', message: { model: 'claude-inline' } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ...['{"characters":[{"na', 'me":"Théo"},', '{"name":"Lyra"}]}'].map((text) => ({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      })),
      { type: 'content_block_stop', index: 0 },
      { type: 'message_stop' },
    ]
      .map((e) => `data: ${JSON.stringify(e)}\n\n`)
      .join('');
    const json = recordedBody('anthropic-json-output-format.1.chunks.txt', inline);
    const snapshots: unknown[] = [];
    await pipeline(
      Readable.from(chunkBytes(utf8.encode(json), 7), { objectMode: true }),
      createProviderStream({ input: 'auto' }),
      createPartialStream(),
      async (source: AsyncIterable<unknown>) => {
        for await (const snapshot of source) snapshots.push(snapshot);
      },
    );
    expect(snapshots.length).toBeGreaterThan(1);
    expect(snapshots.at(-1)).toEqual(JSON.parse(coreText(json)));
  });

  test('bad input is a diagnostic, never an error; a bad option throws at creation', async () => {
    const { texts, diagnostics } = await collect(['data: {oops\n\n', chatChunk({ content: 'ok' }, 'stop')]);
    expect(texts).toEqual(['ok']);
    expect(diagnostics.map((d) => d.reason)).toEqual(['syntax']);
    expect(() => createProviderStream({ input: 'nope' as ProviderInput })).toThrow(ConfigurationError);
  });
});
