/**
 * Amazon Bedrock InvokeModelWithResponseStream: the binary AWS event-stream frames of
 * ConverseStream, each event a `chunk` whose `{"bytes": "<base64>"}` holds one event of the
 * model's own format (Anthropic Messages, Titan, Llama, Mistral, Nova's Converse shape, OpenAI
 * chat chunks). The events of fixtures/providers/bedrock-invoke-*.sse are read as real frames
 * (encoded by `@smithy/eventstream-codec`, test/support/bedrock.ts) fed as bytes, and in their
 * unframed forms (JSON lines, SSE), under `auto` and `input: 'bedrock'`, whole, at every chunk
 * size, split in two at every byte and at arbitrary split points.
 */
import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  bedrockFrames,
  bedrockLines,
  chunkEvents,
  fixtureEvents,
  framesOf,
  invokeChunks,
} from '../../../test/support/bedrock.js';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import {
  decodeEverySplit,
  type Run,
  runProviderDecoder as run,
  runProviderDecoderBytes as runBytes,
} from '../../../test/support/provider.js';

const FIXTURES = [
  'bedrock-invoke-anthropic-tool',
  'bedrock-invoke-anthropic-error',
  'bedrock-invoke-titan',
  'bedrock-invoke-llama',
  'bedrock-invoke-mistral',
];

/**
 * What does not depend on the framing: every sink call but diagnostics' positions and metadata
 * (a binary body names its provider before its first frame, a text one with its first event).
 */
const content = (r: Run) =>
  r.calls
    .filter((c) => c[0] !== 'metadata')
    .map((c) => (c[0] === 'diagnostic' ? ['diagnostic', (c[1] as { reason: string }).reason] : c));

const brief = (r: Run) => r.diagnostics.map((d) => [d.reason, d.line, d.message]);

/** `events` (model events) as binary InvokeModel frames. */
const invokeFrames = (events: readonly unknown[]) => framesOf(invokeChunks(events), 'application/json');

describe.each(FIXTURES)('%s', (name) => {
  const bytes = bedrockFrames(name);
  const whole = runBytes([bytes]);

  test('binary frames: auto reads bedrock; every split, and input bedrock, give the same run', () => {
    expect(whole.provider).toBe('bedrock');
    expect(decodeEverySplit(bytes)).toEqual(whole);
    expect(decodeEverySplit(bytes, 'bedrock')).toEqual(whole);
  });

  test('JSON lines and SSE give the same answer as the frames', () => {
    const lines = decodeEverySplit(bedrockLines(name));
    expect(content(lines)).toEqual(content(whole));
    expect(lines.metadata.at(-1)).toEqual(whole.metadata.at(-1));
    expect(lines.provider).toBe('bedrock');
    const sse = run(
      [
        fixtureEvents(name)
          .map((e) => `data: ${JSON.stringify(e)}\n\n`)
          .join(''),
      ],
      'bedrock',
    );
    expect(content(sse)).toEqual(content(whole));
  });

  fcTest.prop([splitPoints(bytes.length)], { numRuns: Math.ceil(numRuns / 5) })('arbitrary byte splits', (points) => {
    expect(runBytes(splitAt(bytes, points))).toEqual(whole);
  });
});

describe('Anthropic models: the Messages events inside the chunks', () => {
  test('text, a streamed tool call, usage from the Messages events, the stop reason', () => {
    const r = runBytes([bedrockFrames('bedrock-invoke-anthropic-tool')]);
    expect(r.text).toBe('Looking up the weather in Zürich ☀️.');
    expect(r.toolCalls).toEqual([
      {
        key: 'message1.block1',
        index: 1,
        id: 'toolu_bdrk_01A',
        name: 'get_weather',
        arguments: '{"city": "Zürich", "days": [1, 2]}',
        complete: true,
      },
    ]);
    expect(r).toMatchObject({
      provider: 'bedrock',
      model: 'claude-sonnet-4-20250514',
      finishReason: 'tool_use',
      usage: { inputTokens: 412, outputTokens: 58, totalTokens: 470 },
      diagnostics: [],
      error: undefined,
    });
    // Each piece of the arguments as it arrived.
    expect(r.calls.filter((c) => c[0] === 'toolArguments').map((c) => c[2])).toEqual([
      '{"city": "Zür',
      'ich", "days": [1, 2]}',
    ]);
  });

  test('an exception frame mid-stream is a provider-error; the text before it is kept', () => {
    const r = runBytes([bedrockFrames('bedrock-invoke-anthropic-error')]);
    expect(r.text).toBe('{"items": [1, ');
    expect(brief(r)).toEqual([
      ['provider-error', 4, 'provider error (modelStreamErrorException): Model stream was interrupted.'],
    ]);
    expect(r).toMatchObject({
      finishReason: 'error',
      error: { message: 'Model stream was interrupted.', code: 'modelStreamErrorException' },
    });
  });

  test('an Anthropic error event inside a chunk is a provider-error with its type', () => {
    const events = chunkEvents(fixtureEvents('bedrock-invoke-anthropic-error')).slice(0, 3);
    const r = decodeEverySplit(
      invokeFrames([...events, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]),
    );
    expect(r.text).toBe('{"items": [1, ');
    expect(brief(r)).toEqual([['provider-error', 4, 'provider error (overloaded_error): Overloaded']]);
  });

  test('a stream cut before message_stop is truncated, naming the open tool call and the end marker', () => {
    const events = chunkEvents(fixtureEvents('bedrock-invoke-anthropic-tool')).slice(0, 8);
    const r = decodeEverySplit(invokeFrames(events));
    expect(r.text).toBe('Looking up the weather in Zürich ☀️.');
    expect(r.toolCalls.map((c) => [c.key, c.arguments, c.complete])).toEqual([
      ['message1.block1', '{"city": "Zür', false],
    ]);
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      [
        'truncated',
        'the stream ended before message_stop; tool call(s) cut off: message1.block1 (get_weather) after 13 characters',
      ],
    ]);
  });

  test('a cut inside a frame: the frames before it are decoded, the cut frame reported', () => {
    const bytes = bedrockFrames('bedrock-invoke-anthropic-tool');
    const r = decodeEverySplit(bytes.subarray(0, bytes.length - 20));
    expect(r.text).toBe('Looking up the weather in Zürich ☀️.');
    expect(r.finishReason).toBe('tool_use');
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['truncated', 'truncated']);
    expect(r.diagnostics[1]?.message).toBe('the stream ended before message_stop');
  });
});

describe('Titan, Llama and Mistral completion chunks', () => {
  test('Titan: outputText, the completionReason, usage from the token counts and invocation metrics', () => {
    const r = runBytes([bedrockFrames('bedrock-invoke-titan')]);
    expect(r.text).toBe('{"answer": "forty-two", "ok": true}');
    expect(r).toMatchObject({
      finishReason: 'FINISH',
      usage: { inputTokens: 11, outputTokens: 14, totalTokens: 25 },
      diagnostics: [],
    });
    expect(r.metadata.map((m) => m.usage)).toEqual([
      undefined,
      { inputTokens: 11 },
      { inputTokens: 11, outputTokens: 14, totalTokens: 25 },
    ]);
  });

  test('Titan CONTENT_FILTERED is a provider-error and stays the finish reason', () => {
    const r = decodeEverySplit(
      invokeFrames([
        { outputText: 'Sure', completionReason: null, inputTextTokenCount: 3 },
        { outputText: '', completionReason: 'CONTENT_FILTERED', totalOutputTextTokenCount: 1 },
      ]),
    );
    expect(r.text).toBe('Sure');
    expect(brief(r)).toEqual([['provider-error', 2, 'provider error (CONTENT_FILTERED): the response was withheld']]);
    expect(r.finishReason).toBe('CONTENT_FILTERED');
  });

  test('Llama: generation text, stop_reason, usage', () => {
    const r = runBytes([bedrockFrames('bedrock-invoke-llama')]);
    expect(JSON.parse(r.text)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(r).toMatchObject({
      finishReason: 'stop',
      usage: { inputTokens: 25, outputTokens: 10, totalTokens: 35 },
      diagnostics: [],
    });
  });

  test('Mistral: outputs[0].text, its stop_reason, usage from the invocation metrics', () => {
    const r = runBytes([bedrockFrames('bedrock-invoke-mistral')]);
    expect(r.text).toBe('Bonjour, café crème…');
    expect(r).toMatchObject({
      finishReason: 'length',
      usage: { inputTokens: 7, outputTokens: 16, totalTokens: 23 },
      diagnostics: [],
    });
  });

  test('a Llama stream cut before its stop_reason is truncated, naming it', () => {
    const events = chunkEvents(fixtureEvents('bedrock-invoke-llama')).slice(0, 2);
    const r = decodeEverySplit(invokeFrames(events));
    expect(r.text).toBe('[{"n": 1}, {"n": 2}]');
    expect(r.diagnostics.map((d) => d.message)).toEqual(['the stream ended before a stop_reason']);
  });
});

describe('other model formats and malformed chunks', () => {
  test('Nova: Converse-shaped events inside the chunks', () => {
    const r = decodeEverySplit(
      invokeFrames([
        { messageStart: { role: 'assistant' } },
        { contentBlockDelta: { delta: { text: 'Hej ' }, contentBlockIndex: 0 } },
        { contentBlockDelta: { delta: { text: 'då' }, contentBlockIndex: 0 } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { messageStop: { stopReason: 'end_turn' } },
        { metadata: { usage: { inputTokens: 4, outputTokens: 2 } } },
      ]),
    );
    expect(r).toMatchObject({
      text: 'Hej då',
      finishReason: 'end_turn',
      usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 },
      diagnostics: [],
    });
  });

  test('OpenAI chat chunks inside the chunks (gpt-oss)', () => {
    const chunk = (delta: object, finish: string | null = null) => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      model: 'openai.gpt-oss-20b-1:0',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const r = decodeEverySplit(
      invokeFrames([chunk({ role: 'assistant', reasoning: 'Think.' }), chunk({ content: 'ok' }), chunk({}, 'stop')]),
    );
    expect(r).toMatchObject({
      text: 'ok',
      reasoning: 'Think.',
      model: 'openai.gpt-oss-20b-1:0',
      finishReason: 'stop',
      diagnostics: [],
    });
  });

  test('a chunk that is not base64, one that is not JSON, one of another model format: reported, skipped', () => {
    const good = invokeChunks([
      { outputText: 'a', completionReason: null },
      { generation: 'x' },
      { outputText: 'b', completionReason: 'FINISH' },
    ]);
    const events = [
      good[0] as Record<string, unknown>,
      { chunk: { bytes: '***' } },
      { chunk: { bytes: Buffer.from('{"outputText": "c"', 'utf8').toString('base64'), p: 'abcdefgh' } },
      good[1] as Record<string, unknown>,
      good[1] as Record<string, unknown>,
      good[2] as Record<string, unknown>,
    ];
    const r = decodeEverySplit(framesOf(events));
    expect(r.text).toBe('ab');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.excerpt])).toEqual([
      ['syntax', 2, '{"bytes":"***"}'],
      ['syntax', 3, '{"outputText": "c"'],
      ['unrecognized', 4, '{"generation":"x"}'],
    ]);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'an InvokeModel chunk whose bytes are not base64; skipped',
      expect.stringMatching(/^an InvokeModel chunk that is not JSON \(/),
      'an InvokeModel chunk that is not a titan event; ignored (and any other such chunk)',
    ]);
    expect(r).toMatchObject({ finishReason: 'FINISH' });
  });

  fcTest.prop(
    [
      fc.array(fc.string({ unit: 'grapheme', maxLength: 10 }), { minLength: 1, maxLength: 5 }),
      fc.constantFrom('titan', 'llama', 'mistral', 'anthropic'),
    ],
    { numRuns },
  )('any text, any model format: the answer is the deltas joined, whatever the byte splits', (deltas, family) => {
    const events: unknown[] =
      family === 'titan'
        ? deltas.map((t, i) => ({ outputText: t, completionReason: i === deltas.length - 1 ? 'FINISH' : null }))
        : family === 'llama'
          ? deltas.map((t, i) => ({ generation: t, stop_reason: i === deltas.length - 1 ? 'stop' : null }))
          : family === 'mistral'
            ? deltas.map((t, i) => ({ outputs: [{ text: t, stop_reason: i === deltas.length - 1 ? 'stop' : null }] }))
            : [
                { type: 'message_start', message: { model: 'claude', usage: { input_tokens: 1 } } },
                ...deltas.map((text) => ({
                  type: 'content_block_delta',
                  index: 0,
                  delta: { type: 'text_delta', text },
                })),
                { type: 'message_stop' },
              ];
    const bytes = invokeFrames(events);
    const whole = runBytes([bytes]);
    expect(whole.text).toBe(deltas.join(''));
    expect(whole.diagnostics).toEqual([]);
    const points = [3, 17, 40, 91].map((p) => p % (bytes.length + 1));
    expect(runBytes(splitAt(bytes, points))).toEqual(whole);
  });
});
