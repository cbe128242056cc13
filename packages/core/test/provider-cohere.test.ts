/**
 * The Cohere v2 chat wire format (`/v2/chat` with `stream: true`) of the provider decoder, over
 * hand-written recorded-shape streams in fixtures/providers/ (the AI SDK's two recorded Cohere
 * streams are replayed with the others in test/corpora/provider-streams.test.ts).
 *
 * Every body is decoded whole, at every chunk size from 1 to 64 and at arbitrary split points,
 * under `auto` and under `input: 'cohere'`: all give the same sink calls in the same order.
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

/** Decodes `body` whole, at every chunk size 1..64 and split at every position, under `input`; asserts they agree. */
const decode = (body: string, input: ProviderInput = 'auto'): Run => decodeEverySplit(body, input);

const brief = (r: Run) => r.diagnostics.map((d) => [d.reason, d.line, d.message]);

/** Cohere's SSE: an `event:` line naming the type, then the data. */
const sse = (...events: ({ type: string } & Record<string, unknown>)[]) =>
  events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');

const START = { id: 'm1', type: 'message-start', delta: { message: { role: 'assistant', content: [] } } };
const text = (t: string, index = 0) => ({
  type: 'content-delta',
  index,
  delta: { message: { content: { text: t } } },
});
const end = (finish_reason: string, extra: object = {}) => ({
  type: 'message-end',
  delta: { finish_reason, usage: { tokens: { input_tokens: 5, output_tokens: 2 } }, ...extra },
});

const FILES = ['cohere-reasoning.sse', 'cohere-tool-call.sse', 'cohere-error.sse'];

describe.each(FILES)('%s', (file) => {
  const body = fixture(file);
  const whole = run([body]);

  test('auto detects the format; every chunk size, and input cohere, give the same result', () => {
    expect(whole.provider).toBe(ProviderFormat.cohere);
    expect(whole.metadata[0]?.provider).toBe('cohere');
    expect(decode(body)).toEqual(whole);
    expect(decode(body, 'cohere')).toEqual(whole);
  });

  fcTest.prop([splitPoints(body.length)], { numRuns: Math.ceil(numRuns / 5) })('arbitrary split points', (points) => {
    expect(run(splitAt(body, points))).toEqual(whole);
  });
});

describe('text, reasoning, finish reason, usage', () => {
  test('thinking blocks are reasoning, text blocks the answer; COMPLETE ends it; usage is the token counts', () => {
    const r = decode(fixture('cohere-reasoning.sse'));
    expect(r.text).toBe('{"word": "strawberry", "r": 3, "note": "café ☕ 🍓"}');
    expect(JSON.parse(r.text)).toEqual({ word: 'strawberry', r: 3, note: 'café ☕ 🍓' });
    expect(r.reasoning).toBe('The user wants a JSON object.');
    expect(r).toMatchObject({ finishReason: 'COMPLETE', error: undefined, diagnostics: [], model: undefined });
    // `tokens` (what the model read and wrote), not `billed_units`.
    expect(r.usage).toEqual({ inputTokens: 498, outputTokens: 34, totalTokens: 532 });
    expect(r.toolCalls).toEqual([]);
    expect(r.metadata.at(-1)).toEqual({
      provider: 'cohere',
      finishReason: 'COMPLETE',
      usage: { inputTokens: 498, outputTokens: 34, totalTokens: 532 },
    });
  });

  test('billed_units are the usage when no token counts are sent', () => {
    const r = decode(
      sse(START, text('a'), {
        type: 'message-end',
        delta: { finish_reason: 'MAX_TOKENS', usage: { billed_units: { input_tokens: 3, output_tokens: 4 } } },
      }),
    );
    expect(r).toMatchObject({ text: 'a', finishReason: 'MAX_TOKENS', diagnostics: [] });
    expect(r.usage).toEqual({ inputTokens: 3, outputTokens: 4, totalTokens: 7 });
  });

  test('a stream cut before message-end is truncated; the text before the cut is kept', () => {
    const body = fixture('cohere-reasoning.sse');
    const r = decode(body.slice(0, body.lastIndexOf('event: message-end')));
    expect(r.text).toBe('{"word": "strawberry", "r": 3, "note": "café ☕ 🍓"}');
    expect(r.finishReason).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['truncated', 'the stream ended before message-end'],
    ]);
  });

  test('citation and content-end events deliver nothing and are not reported', () => {
    const r = decode(
      sse(
        START,
        { type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } },
        text('Paris.'),
        { type: 'citation-start', index: 0, delta: { message: { citations: { start: 0, end: 5 } } } },
        { type: 'citation-end', index: 0 },
        { type: 'content-end', index: 0 },
        end('COMPLETE'),
      ),
    );
    expect(r).toMatchObject({ text: 'Paris.', diagnostics: [], stats: { ignoredEvents: 0 } });
  });
});

describe('tool calls', () => {
  test('tool-call-start/delta/end: pieces per call, a whole call, a call without arguments reads as {}', () => {
    const r = decode(fixture('cohere-tool-call.sse'));
    expect(r.text).toBe('');
    // The tool plan is what the model means to do: reasoning, not the answer.
    expect(r.reasoning).toBe('I will look up the weather in Paris and Zürich.');
    expect(r.toolCalls).toEqual([
      {
        key: 'tool_call0',
        index: 0,
        id: 'get_weather_1a2b3c',
        name: 'get_weather',
        arguments: '{"city": "Paris"}',
        complete: true,
      },
      {
        key: 'tool_call1',
        index: 1,
        id: 'get_weather_4d5e6f',
        name: 'get_weather',
        arguments: '{"city": "Zürich", "days": [1, 2]}',
        complete: true,
      },
      { key: 'tool_call2', index: 2, id: 'now_7a8b9c', name: 'now', arguments: '{}', complete: true },
    ]);
    const pieces = r.calls.filter((c) => c[0] === 'toolArguments');
    expect(pieces.map((c) => c[2])).toEqual([
      '{"',
      'city',
      '": "',
      'Paris"',
      '}',
      '{"city": "Zürich", "days": [1, 2]}',
      '{}',
    ]);
    expect(pieces[0]?.[3]).toEqual({ index: 0, id: 'get_weather_1a2b3c', name: 'get_weather' });
    expect(r).toMatchObject({ finishReason: 'TOOL_CALL', diagnostics: [] });
    expect(r.usage).toEqual({ inputTokens: 1200, outputTokens: 52, totalTokens: 1252 });
  });

  test('a call cut by the end of the stream is not complete and is named', () => {
    const body = fixture('cohere-tool-call.sse');
    const r = decode(body.slice(0, body.indexOf('event: tool-call-end')));
    expect(r.toolCalls).toEqual([
      {
        key: 'tool_call0',
        index: 0,
        id: 'get_weather_1a2b3c',
        name: 'get_weather',
        arguments: '{"city": "Paris"}',
        complete: false,
      },
    ]);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'the stream ended before message-end; tool call(s) cut off: tool_call0 (get_weather) after 17 characters',
    ]);
  });

  test('a piece after tool-call-end is reported, not appended', () => {
    const call = (type: string, args: string) => ({
      type,
      index: 0,
      delta: { message: { tool_calls: { id: 'c1', function: { name: 'f', arguments: args } } } },
    });
    const r = decode(
      sse(
        START,
        call('tool-call-start', '{"a":1}'),
        { type: 'tool-call-end', index: 0 },
        call('tool-call-delta', 'x'),
        end('TOOL_CALL'),
      ),
    );
    expect(r.toolCalls[0]).toMatchObject({ arguments: '{"a":1}', complete: true });
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['unrecognized']);
  });
});

describe('errors are provider-error diagnostics', () => {
  test('finish reason ERROR: the text before it, the error, the finish reason as sent', () => {
    const r = decode(fixture('cohere-error.sse'));
    expect(r.text).toBe('The first part');
    expect(brief(r)).toEqual([
      ['provider-error', 10, 'provider error (ERROR): the response was stopped: internal server error, please retry'],
    ]);
    expect(r).toMatchObject({
      finishReason: 'ERROR',
      error: { message: 'the response was stopped: internal server error, please retry', code: 'ERROR' },
    });
  });

  test('an error event (as any format sends) is a provider error', () => {
    const r = decode(`${sse(START, text('a'))}data: {"message":"rate limited","type":"error"}\n\n`);
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error: rate limited'],
    ]);
  });

  test('TIMEOUT is a provider error too', () => {
    const r = decode(sse(START, text('a'), end('TIMEOUT')));
    expect(r.diagnostics.map((d) => d.message)).toEqual(['provider error (TIMEOUT): the response was stopped']);
    expect(r.finishReason).toBe('TIMEOUT');
  });
});

describe('configuration', () => {
  test("'cohere' is an input; the format is detected under auto", () => {
    const sink = { text() {}, diagnostic() {} };
    expect(createProviderDecoder({ input: 'cohere' }, sink).provider).toBe('cohere');
    expect(createProviderDecoder({ input: 'auto' }, sink).provider).toBeUndefined();
  });

  test('a Cohere stream under another input is reported, not decoded; Anthropic events are not Cohere ones', () => {
    const r = decode(fixture('cohere-tool-call.sse'), 'anthropic');
    expect(r.text).toBe('');
    expect(r.diagnostics[0]?.message).toBe('not an event of the anthropic stream format; ignored');
    const a = decode('data: {"type":"message_start","message":{"model":"claude"}}\n\n', 'auto');
    expect(a.provider).toBe('anthropic');
  });
});

describe('any Cohere-shaped stream', () => {
  const args = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('{"a":', '1}', '', ' '), fc.jsonValue());
  const event = fc.oneof(
    fc.constant(START),
    fc.record({
      type: fc.constant('content-start'),
      index: fc.nat(2),
      delta: fc.record({
        message: fc.record({ content: fc.record({ type: fc.constantFrom('text', 'thinking', 'x') }) }),
      }),
    }),
    fc.record({
      type: fc.constant('content-delta'),
      index: fc.nat(2),
      delta: fc.record({
        message: fc.record({
          content: fc.record(
            { text: fc.string({ maxLength: 5 }), thinking: fc.string({ maxLength: 5 }) },
            {
              requiredKeys: [],
            },
          ),
        }),
      }),
    }),
    fc.record({
      type: fc.constantFrom('tool-call-start', 'tool-call-delta'),
      index: fc.nat(2),
      delta: fc.record({
        message: fc.record({
          tool_calls: fc.record(
            {
              id: fc.constantFrom('a', 'b', ''),
              function: fc.record({ name: fc.constantFrom('f', ''), arguments: args }),
            },
            { requiredKeys: [] },
          ),
        }),
      }),
    }),
    fc.record({ type: fc.constantFrom('tool-call-end', 'content-end', 'citation-start'), index: fc.nat(2) }),
    fc.record({
      type: fc.constant('tool-plan-delta'),
      delta: fc.record({ message: fc.record({ tool_plan: fc.string() }) }),
    }),
    fc.record({
      type: fc.constant('message-end'),
      delta: fc.record(
        {
          finish_reason: fc.constantFrom('COMPLETE', 'ERROR', 'TOOL_CALL', ''),
          usage: fc.record({ tokens: fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat() }) }),
          error: fc.oneof(fc.string(), fc.jsonValue()),
        },
        { requiredKeys: [] },
      ),
    }),
  );
  const body = fc
    .tuple(fc.array(event, { maxLength: 10 }), fc.constantFrom('\n\n', '\r\n\r\n'))
    .map(([events, sep]) =>
      events.map((e) => `event: ${e.type}${sep.slice(0, sep.length / 2)}data: ${JSON.stringify(e)}${sep}`).join(''),
    );

  fcTest.prop([body.chain((b) => fc.tuple(fc.constant(b), splitPoints(b.length)))], { numRuns })(
    'never throws, any split agrees, pieces concatenate to each call, every closed call is delivered whole',
    ([b, points]) => {
      const whole = run([b], 'cohere');
      expect(run(splitAt(b, points), 'cohere')).toEqual(whole);
      for (const call of whole.toolCalls) {
        expect(whole.tools[call.key] ?? '').toBe(call.arguments);
        if (call.complete) expect(call.arguments.trim()).not.toBe('');
      }
    },
  );
});
