/**
 * The Mistral chat wire format (`/v1/chat/completions` with `stream: true`) of the provider
 * decoder: OpenAI chat chunks whose `content` may be an array of chunks (text, thinking) and
 * whose tool calls may arrive whole or in pieces. `input: 'mistral'` reads them with the chat
 * reader and reports `mistral`; `auto` reads them identically and reports `openai` (the AI
 * SDK's two recorded Mistral streams are replayed in test/corpora/provider-streams.test.ts).
 *
 * Every body is decoded whole, at every chunk size from 1 to 64 and at arbitrary split points.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test as fcTest } from '@fast-check/vitest';
import { createProviderDecoder, ProviderFormat, type ProviderInput } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { decodeEverySplit, type Run, runProviderDecoder as run } from '../../../test/support/provider.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/providers');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const decode = (body: string, input: ProviderInput = 'mistral'): Run => decodeEverySplit(body, input);

/** The same run with the provider `auto` reports (the chat wire is OpenAI's). */
const asOpenAI = (r: Run): Run =>
  JSON.parse(JSON.stringify(r).replaceAll('"provider":"mistral"', '"provider":"openai"')) as Run;

const sse = (...events: unknown[]) => `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;

const chunk = (delta: object, finish_reason: string | null = null, extra: object = {}) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  model: 'mistral-small-latest',
  choices: [{ index: 0, delta, finish_reason }],
  ...extra,
});

const FILES = ['mistral-thinking.sse', 'mistral-whole-tool-calls.sse'];

describe.each(FILES)('%s', (file) => {
  const body = fixture(file);
  const whole = run([body], 'mistral');

  test("input 'mistral' reports mistral; auto decodes the same and reports openai; every chunk size agrees", () => {
    expect(whole.provider).toBe(ProviderFormat.mistral);
    expect(whole.metadata[0]?.provider).toBe('mistral');
    expect(decode(body)).toEqual(whole);
    const auto = decode(body, 'auto');
    expect(auto.provider).toBe('openai');
    expect(auto).toEqual(asOpenAI(whole));
    expect(decode(body, 'openai')).toEqual(auto);
  });

  fcTest.prop([splitPoints(body.length)], { numRuns: Math.ceil(numRuns / 5) })('arbitrary split points', (points) => {
    expect(run(splitAt(body, points), 'mistral')).toEqual(whole);
  });
});

describe('content chunks', () => {
  test('thinking chunks are reasoning; text chunks and string content are the answer; references carry no text', () => {
    const r = decode(fixture('mistral-thinking.sse'));
    expect(r.reasoning).toBe("Count the r's in strawberry.");
    expect(r.text).toBe('{"word": "strawberry", "r": 3, "note": "café ☕ 🍓"}');
    expect(JSON.parse(r.text)).toEqual({ word: 'strawberry', r: 3, note: 'café ☕ 🍓' });
    expect(r).toMatchObject({
      model: 'magistral-medium-latest',
      finishReason: 'stop',
      error: undefined,
      diagnostics: [],
    });
    expect(r.usage).toEqual({ inputTokens: 21, outputTokens: 54, totalTokens: 75 });
    expect(r.metadata.at(-1)).toEqual({
      provider: 'mistral',
      model: 'magistral-medium-latest',
      finishReason: 'stop',
      usage: { inputTokens: 21, outputTokens: 54, totalTokens: 75 },
    });
  });

  test('content parts that are not objects or not text are skipped without a report', () => {
    const r = decode(
      sse(
        chunk({ content: [null, 3, { type: 'image_url', image_url: 'x' }, { type: 'text', text: 'ok' }] }),
        chunk({ content: [{ type: 'thinking', thinking: 'not an array' }] }),
        chunk({ content: '' }, 'stop'),
      ),
    );
    expect(r).toMatchObject({ text: 'ok', reasoning: '', diagnostics: [] });
  });
});

describe('tool calls', () => {
  test('whole calls: one piece each; a new id under index 0 is a new call; object arguments are serialized', () => {
    const r = decode(fixture('mistral-whole-tool-calls.sse'));
    expect(r.toolCalls).toEqual([
      {
        key: 'choice0.tool_call0',
        index: 0,
        id: 'D681PevKs',
        name: 'get_weather',
        arguments: '{"city": "Paris"}',
        complete: true,
      },
      {
        key: 'choice0.tool_call0.Qz7kT2mWx',
        index: 0,
        id: 'Qz7kT2mWx',
        name: 'get_weather',
        arguments: '{"city": "Zürich"}',
        complete: true,
      },
      { key: 'choice0.tool_call1', index: 1, id: 'Lr5nB8vYc', name: 'now', arguments: '{}', complete: true },
    ]);
    expect(r.calls.filter((c) => c[0] === 'toolArguments').map((c) => c[2])).toEqual([
      '{"city": "Paris"}',
      '{"city": "Zürich"}',
      '{}',
    ]);
    expect(r).toMatchObject({ model: 'mistral-large-latest', finishReason: 'tool_calls', diagnostics: [] });
    expect(r.usage).toEqual({ inputTokens: 88, outputTokens: 33, totalTokens: 121 });
  });

  test('incremental calls: an id and name first, then pieces with an empty name, keep the first name', () => {
    const r = decode(
      sse(
        chunk({ tool_calls: [{ id: 'call1', function: { name: 'search', arguments: '' }, index: 0 }] }),
        chunk({ tool_calls: [{ function: { name: '', arguments: '{"q": "Ber' }, index: 0 }] }),
        chunk({ tool_calls: [{ function: { name: '', arguments: 'lin"}' }, index: 0 }] }),
        chunk({ content: '' }, 'tool_calls'),
      ),
    );
    expect(r.toolCalls).toEqual([
      {
        key: 'choice0.tool_call0',
        index: 0,
        id: 'call1',
        name: 'search',
        arguments: '{"q": "Berlin"}',
        complete: true,
      },
    ]);
    expect(r.diagnostics).toEqual([]);
  });

  test('a call cut by the end of the stream is not complete', () => {
    const r = decode(
      `data: ${JSON.stringify(chunk({ tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{"a":' }, index: 0 }] }))}\n\n`,
    );
    expect(r.toolCalls[0]).toMatchObject({ arguments: '{"a":', complete: false });
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
  });
});

describe('finish reasons and errors', () => {
  test("model_length is kept as sent (the context window); 'error' is a provider error", () => {
    expect(decode(sse(chunk({ content: 'a' }), chunk({}, 'model_length'))).finishReason).toBe('model_length');
    const r = decode(sse(chunk({ content: 'partial' }), chunk({}, 'error')));
    expect(r.text).toBe('partial');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.message])).toEqual([
      ['provider-error', 3, 'provider error (error): the response was stopped by an error'],
    ]);
    expect(r).toMatchObject({ finishReason: 'error', error: { code: 'error' } });
  });

  test('an error body in the stream (Mistral and vLLM send {object: "error"}) is a provider error', () => {
    const r = decode(
      sse(chunk({ content: 'a' }), {
        object: 'error',
        message: 'Service tier capacity exceeded',
        type: 'service_tier_capacity_exceeded',
        code: '3505',
      }),
    );
    expect(r.text).toBe('a');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (service_tier_capacity_exceeded): Service tier capacity exceeded'],
    ]);
    const e = decode(sse(chunk({ content: 'a' }), { error: { message: 'Rate limit exceeded', type: 'rate_limited' } }));
    expect(e.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (rate_limited): Rate limit exceeded'],
    ]);
  });
});

describe('configuration', () => {
  test("'mistral' is an input, with its own provider name", () => {
    const sink = { text() {}, diagnostic() {} };
    expect(createProviderDecoder({ input: 'mistral' }, sink).provider).toBe('mistral');
    expect(Object.values(ProviderFormat)).toContain('mistral');
  });
});

describe('any Mistral-shaped stream', () => {
  const part = fc.oneof(
    fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 5 }) }),
    fc.record({
      type: fc.constant('thinking'),
      thinking: fc.array(fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 5 }) }), { maxLength: 2 }),
    }),
    fc.jsonValue({ maxDepth: 1 }),
  );
  const call = fc.record(
    {
      id: fc.constantFrom('a', 'b', ''),
      index: fc.nat(1),
      function: fc.record(
        {
          name: fc.constantFrom('f', ''),
          arguments: fc.oneof(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 })),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['function'] },
  );
  const delta = fc.record(
    {
      content: fc.oneof(fc.string({ maxLength: 5 }), fc.array(part, { maxLength: 3 })),
      tool_calls: fc.array(call, { maxLength: 2 }),
    },
    { requiredKeys: [] },
  );
  const event = fc
    .tuple(delta, fc.constantFrom(null, null, 'stop', 'tool_calls', 'error', 'length'))
    .map(([d, finish]) => chunk(d, finish));
  const body = fc
    .array(event, { maxLength: 8 })
    .map((events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));

  fcTest.prop([body.chain((b) => fc.tuple(fc.constant(b), splitPoints(b.length)))], { numRuns })(
    'never throws, any split agrees, auto reads it as input mistral does, pieces concatenate to each call',
    ([b, points]) => {
      const whole = run([b], 'mistral');
      expect(run(splitAt(b, points), 'mistral')).toEqual(whole);
      if (b !== '') expect(run([b], 'auto')).toEqual(asOpenAI(whole));
      for (const c of whole.toolCalls) expect(whole.tools[c.key] ?? '').toBe(c.arguments);
    },
  );
});
