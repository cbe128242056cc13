/**
 * The provider decoder over every recorded provider stream (shared/corpora/recorded-streams/,
 * from the Vercel AI SDK fixtures), replayed as the AI SDK replays them: each line of a
 * `*.chunks.txt` as `data: <line>\n\n`, then `data: [DONE]\n\n`; a `*.sse` file as is.
 *
 * Every recording is decoded (OpenAI-compatible Chat Completions, Mistral, OpenAI Responses,
 * Anthropic Messages, Google Gemini, Cohere v2 chat, Amazon Bedrock ConverseStream): the text
 * equals the collector's concatenation of the text blocks, the argument pieces of each tool call
 * equal the collector's concatenation (where the collector has `""`, the decoder's documented
 * rule gives the input sent up front, or `{}`), finish reason, usage and model (where the stream
 * names one) are the values the streams carry, and every chunking gives the same result. The
 * Bedrock recordings are also replayed as the binary AWS event-stream frames Bedrock sends them
 * in (encoded by `@smithy/eventstream-codec`), and the Mistral ones under `input: 'mistral'`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test as fcTest } from '@fast-check/vitest';
import { createProviderDecoder, type ProviderInput } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { framesOf } from '../support/bedrock.js';
import { chunkBytes, chunkText, numRuns, splitAt, splitPoints } from '../support/chunking.js';
import { corpus } from '../support/corpora.js';
import { runProviderDecoder } from '../support/provider.js';

interface Derived {
  readonly key: string;
  readonly text: string;
  readonly is_valid_json: boolean;
}

interface IndexEntry {
  readonly file: string;
  readonly api: string;
  readonly kind: string;
  readonly derived_by_collector: { readonly text: Derived[]; readonly tool_arguments: Derived[] };
}

const index = corpus<IndexEntry[]>('recorded-streams/index.json', 'provider decoder over recorded streams');

function body(file: string): string {
  const text = readFileSync(join(index.path, '..', file), 'utf8');
  if (file.endsWith('.sse')) return text;
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return `${lines.map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`;
}

const run = (chunks: readonly string[], input: ProviderInput = 'auto') => runProviderDecoder(chunks, input);

const usage = (inputTokens: number, outputTokens: number, totalTokens: number) => ({
  inputTokens,
  outputTokens,
  totalTokens,
});

/** What each decoded stream carries (read off the recordings). */
const EXPECTED: Record<string, { provider: ProviderInput; model?: string; finishReason: string; usage?: object }> = {
  'anthropic-json-output-format.1.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5-20250929',
    finishReason: 'end_turn',
    usage: usage(313, 305, 618),
  },
  'anthropic-json-tool.1.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-haiku-4-5-20251001',
    finishReason: 'tool_use',
    usage: usage(849, 47, 896),
  },
  'anthropic-json-tool.2.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-haiku-4-5-20251001',
    finishReason: 'tool_use',
    usage: usage(849, 47, 896),
  },
  'anthropic-code-execution-20250825.1.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5-20250929',
    finishReason: 'end_turn',
    usage: usage(8050, 771, 8821),
  },
  // 15 messages: the metadata is the last message's.
  'anthropic-programmatic-tool-calling.1.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5-20250929',
    finishReason: 'end_turn',
    usage: usage(4551, 197, 4748),
  },
  'anthropic-tool-no-args.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5-20250929',
    finishReason: 'tool_use',
    usage: usage(565, 48, 613),
  },
  'anthropic-tool-search-deferred-bm25.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5-20250929',
    finishReason: 'end_turn',
    usage: usage(1639, 95, 1734),
  },
  // message_delta sends output_tokens only; input_tokens comes from the second message_start.
  'anthropic-spliced-message-start.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-3-haiku-20240307',
    finishReason: 'tool_use',
    usage: usage(17, 65, 82),
  },
  'anthropic-text.chunks.txt': {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5-20250929',
    finishReason: 'end_turn',
    usage: usage(12, 30, 42),
  },
  // Four responses in one recording: the last one's.
  'openai-reasoning-encrypted-content.1.chunks.txt': {
    provider: 'openai-responses',
    model: 'gpt-5.1-codex-max',
    finishReason: 'completed',
    usage: usage(299, 12, 311),
  },
  'openai-tool-search.1.chunks.txt': {
    provider: 'openai-responses',
    model: 'gpt-5.4-2026-03-05',
    finishReason: 'completed',
    usage: usage(640, 46, 686),
  },
  'azure-tool-call.1.chunks.txt': {
    provider: 'openai-responses',
    model: 'gpt-5.1',
    finishReason: 'completed',
    usage: usage(45, 24, 69),
  },
  'deepseek-tool-call.chunks.txt': {
    provider: 'openai',
    model: 'deepseek-reasoner',
    finishReason: 'tool_calls',
    usage: usage(339, 83, 422),
  },
  'mistral-incremental-tool-call.chunks.txt': {
    provider: 'openai',
    model: 'zai-glm-5-2',
    finishReason: 'tool_calls',
    usage: usage(171, 14, 185),
  },
  'alibaba-tool-call.chunks.txt': {
    provider: 'openai',
    model: 'qwen3-max',
    finishReason: 'tool_calls',
    usage: usage(295, 22, 317),
  },
  // No usage chunk in this recording.
  'openai-compatible-anthropic-fallback-tool-call.sse': {
    provider: 'openai',
    model: 'claude-haiku-4-5-20251001',
    finishReason: 'tool_calls',
  },
  // Usage repeats on every event; thinking tokens count as output (thoughtsTokenCount).
  'google-text.chunks.txt': {
    provider: 'gemini',
    model: 'gemini-3-pro-preview',
    finishReason: 'STOP',
    usage: usage(9, 208, 217),
  },
  // Vertex partialArgs: arguments streamed as values at JSON paths, assembled per call.
  'google-stream-tool-call-arguments.chunks.txt': {
    provider: 'gemini',
    model: 'gemini-3.1-pro-preview',
    finishReason: 'STOP',
    usage: usage(26, 155, 181),
  },
  'google-vertex-stream-tool-call-arguments-nested.1.chunks.txt': {
    provider: 'gemini',
    model: 'gemini-3.1-pro-preview',
    finishReason: 'STOP',
    usage: usage(31, 1710, 1741),
  },
  'openai-text.chunks.txt': {
    provider: 'openai',
    model: 'gpt-4.1-nano-2025-04-14',
    finishReason: 'stop',
    usage: usage(16, 300, 316),
  },
  'mistral-text.chunks.txt': {
    provider: 'openai',
    model: 'mistral-small-latest',
    finishReason: 'stop',
    usage: usage(13, 8, 21),
  },
  // Cohere and Bedrock stream no model name. Cohere usage: `tokens`, not `billed_units`.
  'cohere-text.chunks.txt': { provider: 'cohere', finishReason: 'COMPLETE', usage: usage(507, 10, 517) },
  'cohere-tool-call.chunks.txt': { provider: 'cohere', finishReason: 'TOOL_CALL', usage: usage(1549, 95, 1644) },
  // The metadata (usage) event comes after messageStop, or before it.
  'amazon-bedrock-text.chunks.txt': { provider: 'bedrock', finishReason: 'end_turn', usage: usage(22, 55, 77) },
  'amazon-bedrock-json-other-tool.1.chunks.txt': {
    provider: 'bedrock',
    finishReason: 'tool_use',
    usage: usage(843, 28, 871),
  },
  'amazon-bedrock-json-tool-text-then-weather-then-json.1.chunks.txt': {
    provider: 'bedrock',
    finishReason: 'tool_use',
    usage: usage(500, 100, 600),
  },
};

/** The decoder's key for a collector's key: Cohere calls are `tool_call<index>`, the collector's `index<n>`. */
const decoderKey = (file: string, key: string) =>
  file.startsWith('cohere-') ? key.replace(/^index/, 'tool_call') : key;

/** Tool calls whose collector concatenation is `""`: the decoder's arguments by the documented rule. */
const EMPTY_PIECES_READ_AS: Record<string, string> = {
  'anthropic-tool-no-args.chunks.txt message1.block1': '{}',
  // A code-execution caller: the input arrives whole in content_block_start.
  'anthropic-programmatic-tool-calling.1.chunks.txt message1.block2': '{"player":"player1"}',
};

const entries = index.present ? index.load() : [];
const decoded = entries;

/** A Bedrock recording as the binary frames Bedrock sends: one `event` frame per recorded event. */
function bedrockFrames(file: string): Uint8Array {
  const events = readFileSync(join(index.path, '..', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return framesOf(events, 'application/json');
}

/** Decodes byte chunks as the adapters do: offered to `bytes` first, else decoded as text. */
function runBytes(chunks: readonly Uint8Array[]) {
  let text = '';
  const tools: Record<string, string> = {};
  const diagnostics: unknown[] = [];
  const decoder = createProviderDecoder(
    { input: 'auto' },
    {
      text: (t) => {
        text += t;
      },
      toolArguments: (key, delta) => {
        tools[key] = (tools[key] ?? '') + delta;
      },
      diagnostic: (d) => diagnostics.push(d),
    },
  );
  const utf8 = new TextDecoder();
  for (const chunk of chunks) if (!decoder.bytes(chunk)) decoder.write(utf8.decode(chunk, { stream: true }));
  decoder.end();
  return {
    text,
    tools,
    diagnostics,
    provider: decoder.provider,
    finishReason: decoder.finishReason,
    usage: decoder.usage,
    toolCalls: decoder.toolCalls,
  };
}

describe.skipIf(!index.present)('provider decoder over recorded streams', () => {
  test('every recording is decoded', () => {
    expect(decoded.map((e) => e.file).sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(decoded.length).toBe(26);
  });

  describe.each(decoded.map((e) => [e.file, e] as const))('%s', (file, entry) => {
    const input = body(file);
    const whole = run([input]);
    const expected = EXPECTED[file] as (typeof EXPECTED)[string];

    test('text, tool arguments, finish reason, usage and model', () => {
      expect(whole.text).toBe(entry.derived_by_collector.text.map((t) => t.text).join(''));
      for (const derived of entry.derived_by_collector.tool_arguments) {
        const [collectorKey, name] = derived.key.split(':') as [string, string | undefined];
        const key = decoderKey(file, collectorKey);
        const call = whole.toolCalls.find((c) => c.key === key);
        expect(call, key).toBeDefined();
        if (name !== undefined) expect(call?.name).toBe(name);
        const args = derived.text === '' ? EMPTY_PIECES_READ_AS[`${file} ${key}`] : derived.text;
        expect(args, `${key}: collector text "" needs a documented reading`).toBeDefined();
        expect(whole.tools[key] ?? '', key).toBe(args);
        expect(call?.arguments).toBe(args);
        if (derived.is_valid_json) {
          expect(call?.complete).toBe(true);
          expect(() => JSON.parse(call?.arguments ?? '')).not.toThrow();
        }
      }
      expect(whole).toMatchObject({
        provider: expected.provider,
        model: expected.model,
        finishReason: expected.finishReason,
      });
      expect(whole.usage).toEqual(expected.usage);
      expect(whole.metadata.at(-1)).toEqual({
        provider: expected.provider,
        ...(expected.model === undefined ? {} : { model: expected.model }),
        finishReason: expected.finishReason,
        ...(expected.usage === undefined ? {} : { usage: expected.usage }),
      });
      expect(run([input], expected.provider)).toEqual(whole);
      if (file.startsWith('mistral-')) {
        const mistral = run([input], 'mistral');
        expect(mistral.provider).toBe('mistral');
        expect(mistral.calls.filter((c) => c[0] !== 'metadata')).toEqual(
          whole.calls.filter((c) => c[0] !== 'metadata'),
        );
      }
    });

    test('diagnostics: none, except the cut tool call of the abnormal recording', () => {
      if (entry.kind !== 'tool-json-abnormal') {
        expect(whole.diagnostics).toEqual([]);
        expect(whole.toolCalls.every((c) => c.complete)).toBe(true);
        return;
      }
      const cut = entry.derived_by_collector.tool_arguments.filter((t) => !t.is_valid_json);
      expect(cut.map((t) => t.key)).toEqual(['message1.block1:test-tool']);
      expect(whole.toolCalls.find((c) => c.key === 'message1.block1')).toMatchObject({
        arguments: '{"value":"Spark',
        complete: false,
      });
      expect(whole.diagnostics.map((d) => [d.reason, d.message])).toEqual([
        [
          'truncated',
          'message 1 ended without message_stop: a new message_start followed; tool call(s) cut off: message1.block1 (test-tool) after 15 characters',
        ],
      ]);
      expect(whole.reasoning).toBe('I will call the tool.Let me call the tool.');
    });

    test('every chunk size from 1 to 64 gives the same result', () => {
      for (let size = 1; size <= 64; size++) expect(run(chunkText(input, size)), `size ${size}`).toEqual(whole);
    });

    fcTest.prop([splitPoints(input.length)], { numRuns: Math.ceil(numRuns / 5) })(
      'arbitrary split points',
      (points) => {
        expect(run(splitAt(input, points))).toEqual(whole);
      },
    );
  });

  test('reasoning is kept apart from the answer (DeepSeek reasoning_content, Responses reasoning summaries)', () => {
    const deepseek = run([body('deepseek-tool-call.chunks.txt')]);
    expect(deepseek.text).toBe('');
    expect(deepseek.reasoning.length).toBeGreaterThan(100);
    const responses = run([body('openai-reasoning-encrypted-content.1.chunks.txt')]);
    expect(responses.reasoning.length).toBeGreaterThan(20);
    expect(responses.text).toBe('The final result is **570**.');
  });

  test('tool uses that arrive complete in message_start are calls with their input', () => {
    const r = run([body('anthropic-programmatic-tool-calling.1.chunks.txt')]);
    const replayed = r.toolCalls.filter((c) => /^message(?:[2-9]|1[0-4])\.block0$/.test(c.key));
    expect(replayed).toHaveLength(13);
    for (const call of replayed) {
      expect(call).toMatchObject({ name: 'rollDie', complete: true });
      expect(JSON.parse(call.arguments)).toEqual({ player: expect.stringMatching(/^player[12]$/) });
    }
  });

  test('Google partialArgs tool calls: arguments assembled at their JSON paths, one call per functionCall name', () => {
    const weather = run([body('google-stream-tool-call-arguments.chunks.txt')]);
    expect(weather.toolCalls.map((c) => [c.key, c.name, JSON.parse(c.arguments), c.complete])).toEqual([
      ['candidate0.function_call0', 'getWeather', { location: 'Boston' }, true],
      ['candidate0.function_call1', 'getWeather', { location: 'San Francisco' }, true],
    ]);
    const nested = run([body('google-vertex-stream-tool-call-arguments-nested.1.chunks.txt')]);
    expect(nested.toolCalls).toHaveLength(1);
    const args = JSON.parse(nested.toolCalls[0]?.arguments ?? '');
    expect(args.recipe.name).toBe('Lasagna');
    expect(args.recipe.ingredients).toHaveLength(10);
    expect(args.recipe.ingredients[0]).toEqual({ amount: '16 oz', name: 'Lasagna noodles' });
    expect(args.recipe.steps).toHaveLength(10);
    expect(args.recipe.steps[1]).toBe('Cook lasagna noodles according to package directions, drain and set aside.');
  });

  describe.each(decoded.filter((e) => e.api.startsWith('Amazon Bedrock')).map((e) => [e.file] as const))(
    '%s as binary event-stream frames',
    (file) => {
      const bytes = bedrockFrames(file);
      const whole = run([body(file)]);
      const expected = { text: whole.text, tools: whole.tools, finishReason: whole.finishReason, usage: whole.usage };

      test('auto recognises the frames; they decode as the JSON events do, at every chunk size', () => {
        const frames = runBytes([bytes]);
        expect(frames).toMatchObject({ provider: 'bedrock', ...expected, diagnostics: [] });
        expect(frames.toolCalls).toEqual(whole.toolCalls);
        for (let size = 1; size <= 64; size++)
          expect(runBytes(chunkBytes(bytes, size)), `size ${size}`).toEqual(frames);
      });

      fcTest.prop([splitPoints(bytes.length)], { numRuns: Math.ceil(numRuns / 5) })(
        'arbitrary split points',
        (points) => {
          expect(runBytes(splitAt(bytes, points))).toEqual(runBytes([bytes]));
        },
      );
    },
  );
});
