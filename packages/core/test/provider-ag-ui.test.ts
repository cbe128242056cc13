/**
 * The AG-UI wire format (`input: 'ag-ui'`) of the provider decoder: an AG-UI agent's SSE body
 * (`data: <event JSON>` and a blank line, as AG-UI's own encoder writes it) or its events as
 * JSON lines. The event shapes are the protocol's (1.0); @llmjson/ag-ui's tests check the ones
 * it writes against @ag-ui/core's own schemas.
 *
 * Every body is decoded whole, at every chunk size from 1 to 64 and at arbitrary split points,
 * under `auto` and under `input: 'ag-ui'`: all give the same sink calls in the same order.
 */
import { test as fcTest } from '@fast-check/vitest';
import { createProviderDecoder, ProviderFormat, type ProviderInput } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { decodeEverySplit, type Run, runProviderDecoder as run } from '../../../test/support/provider.js';

const decode = (body: string, input: ProviderInput = 'auto'): Run => decodeEverySplit(body, input);

/** AG-UI's HTTP transport: one SSE event per AG-UI event, `data:` only. */
const sse = (events: object[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
const lines = (events: object[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');

const run1 = { threadId: 't1', runId: 'r1' };
const TOOLS = [
  { type: 'RUN_STARTED', ...run1 },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Looking it up… ☕' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  { type: 'TOOL_CALL_START', toolCallId: 'call_a', toolCallName: 'weather', parentMessageId: 'm1' },
  { type: 'TOOL_CALL_START', toolCallId: 'call_b', toolCallName: 'search' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_a', delta: '{"city": "Par' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_b', delta: '{"query": "ü' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_a', delta: 'is"}' },
  { type: 'TOOL_CALL_END', toolCallId: 'call_a' },
  { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/x', value: 1 }] },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_b', delta: 'ber", "limit": 3}' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_b', delta: '' },
  { type: 'TOOL_CALL_END', toolCallId: 'call_b' },
  { type: 'TOOL_CALL_START', toolCallId: 'call_c', toolCallName: 'now' },
  { type: 'TOOL_CALL_END', toolCallId: 'call_c' },
  { type: 'TOOL_CALL_RESULT', messageId: 'm2', toolCallId: 'call_a', content: 'sunny' },
  { type: 'CUSTOM', name: 'x', value: { a: 1 } },
  {
    type: 'RUN_FINISHED',
    ...run1,
    usage: [
      { provider: 'openai', model: 'gpt-x', inputTokens: 10, outputTokens: 20 },
      { provider: 'openai', model: 'gpt-y', inputTokens: 2, outputTokens: 10 },
    ],
  },
];

const BODIES: Record<string, string> = {
  sse: sse(TOOLS),
  jsonl: lines(TOOLS),
  reasoning: sse([
    { type: 'RUN_STARTED', ...run1 },
    { type: 'REASONING_START', messageId: 'r' },
    { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r', delta: 'Counting 🍓' },
    { type: 'REASONING_END', messageId: 'r' },
    { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', role: 'assistant', delta: '{"a": ' },
    { type: 'TEXT_MESSAGE_CHUNK', delta: '1}' },
    { type: 'RUN_FINISHED', ...run1, outcome: { type: 'interrupt', interrupts: [] } },
  ]),
  chunks: sse([
    { type: 'RUN_STARTED', ...run1 },
    { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'weather', delta: '{"city":' },
    { type: 'TOOL_CALL_CHUNK', delta: '"Oslo"}' },
    { type: 'TOOL_CALL_CHUNK', toolCallId: 'c2', toolCallName: 'now' },
    { type: 'RUN_FINISHED', ...run1 },
  ]),
  error: sse([
    { type: 'RUN_STARTED', ...run1 },
    { type: 'TOOL_CALL_START', toolCallId: 'call_a', toolCallName: 'weather' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'call_a', delta: '{"ci' },
    { type: 'RUN_ERROR', message: 'Overloaded', code: 'rate_limit' },
  ]),
  cut: sse([
    { type: 'RUN_STARTED', ...run1 },
    { type: 'TOOL_CALL_START', toolCallId: 'call_a', toolCallName: 'weather' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'call_a', delta: '{"city": "Pa' },
  ]),
  hostile: sse([
    { type: 'RUN_STARTED', ...run1 },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'ghost', delta: '{"x":1}' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'ghost', delta: '{"x":2}' },
    { type: 'TOOL_CALL_END', toolCallId: 'ghost' },
    { type: 'TOOL_CALL_START', toolCallName: 'nameless' },
    { type: 'TOOL_CALL_START', toolCallId: '__proto__', toolCallName: 'constructor' },
    { type: 'TOOL_CALL_ARGS', toolCallId: '__proto__', delta: 42 },
    { type: 'TOOL_CALL_ARGS', toolCallId: '__proto__', delta: '{}' },
    { type: 'TOOL_CALL_END', toolCallId: '__proto__' },
    { type: 'TOOL_CALL_ARGS', toolCallId: '__proto__', delta: 'late' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: { not: 'text' } },
    { type: 'TOOL_CALL_CHUNK', delta: 'orphan' },
    { type: 'RUN_FINISHED', ...run1, usage: 'many', outcome: 7 },
  ]),
};

describe.each(Object.keys(BODIES))('%s', (name) => {
  const body = BODIES[name] as string;
  const whole = run([body]);

  test('auto detects the format; every chunk size, and input ag-ui, give the same result', () => {
    expect(whole.provider).toBe(ProviderFormat.agUi);
    expect(decode(body)).toEqual(whole);
    expect(decode(body, 'ag-ui')).toEqual(whole);
  });

  fcTest.prop([splitPoints(body.length)], { numRuns: Math.ceil(numRuns / 5) })('arbitrary split points', (points) => {
    expect(run(splitAt(body, points))).toEqual(whole);
    expect(run(splitAt(body, points), 'ag-ui')).toEqual(run([body], 'ag-ui'));
  });
});

describe('what each event becomes', () => {
  test('tool-call events are argument pieces keyed by the call id, interleaved calls apart; RUN_FINISHED ends the run', () => {
    for (const body of [BODIES.sse as string, BODIES.jsonl as string]) {
      const r = decode(body);
      expect(r.diagnostics).toEqual([]);
      expect(r.text).toBe('Looking it up… ☕');
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
        // A call closed with no arguments gets `{}`, as for every format.
        { key: 'call_c', index: 2, id: 'call_c', name: 'now', arguments: '{}', complete: true },
      ]);
      expect(r).toMatchObject({ finishReason: 'success', model: 'gpt-x', error: undefined });
      expect(r.usage).toEqual({ inputTokens: 12, outputTokens: 30, totalTokens: 42 });
      const pieces = r.calls.filter((c) => c[0] === 'toolArguments').map((c) => [c[1], c[2]]);
      expect(pieces.slice(0, 3)).toEqual([
        ['call_a', '{"city": "Par'],
        ['call_b', '{"query": "ü'],
        ['call_a', 'is"}'],
      ]);
    }
  });

  test('reasoning events are reasoning, TEXT_MESSAGE_CHUNK is text; the outcome is the finish reason', () => {
    const r = decode(BODIES.reasoning as string);
    expect(r.reasoning).toBe('Counting 🍓');
    expect(r.text).toBe('{"a": 1}');
    expect(r.finishReason).toBe('interrupt');
    expect(r.diagnostics).toEqual([]);
  });

  test('TOOL_CALL_CHUNK: an id opens a call, a chunk without one continues it, another id closes it', () => {
    const r = decode(BODIES.chunks as string);
    expect(r.toolCalls).toEqual([
      { key: 'c1', index: 0, id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}', complete: true },
      { key: 'c2', index: 1, id: 'c2', name: 'now', arguments: '{}', complete: true },
    ]);
    expect(r.diagnostics).toEqual([]);
  });

  test('RUN_ERROR is a provider error, with its code', () => {
    const r = decode(BODIES.error as string);
    expect(r.error).toEqual({ message: 'Overloaded', code: 'rate_limit' });
    expect(r.finishReason).toBe('error');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (rate_limit): Overloaded'],
      ['truncated', 'the stream ended with tool calls open; tool call(s) cut off: call_a (weather) after 4 characters'],
    ]);
  });

  test('a stream without RUN_FINISHED is truncated, naming the open call', () => {
    const r = decode(BODIES.cut as string);
    expect(r.toolCalls).toEqual([
      { key: 'call_a', index: 0, id: 'call_a', name: 'weather', arguments: '{"city": "Pa', complete: false },
    ]);
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['truncated', 'the stream ended before RUN_FINISHED; tool call(s) cut off: call_a (weather) after 12 characters'],
    ]);
  });

  test('hostile events: args for a call never started, fields of the wrong type, __proto__ ids are diagnostics or data, never a throw', () => {
    const r = decode(BODIES.hostile as string);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(r.toolCalls).toEqual([
      { key: '__proto__', index: 0, id: '__proto__', name: 'constructor', arguments: '{}', complete: true },
    ]);
    expect(r.text).toBe('');
    expect(r.finishReason).toBe('success');
    expect(r.usage).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      [
        'unrecognized',
        'TOOL_CALL_ARGS for tool call "ghost", which no TOOL_CALL_START opened; ignored (send TOOL_CALL_START first)',
      ],
      ['unrecognized', 'TOOL_CALL_START without a toolCallId; ignored'],
      ['unrecognized', 'tool call __proto__ received arguments after the provider closed it; ignored'],
      [
        'unrecognized',
        'TOOL_CALL_CHUNK for no toolCallId, which no TOOL_CALL_START opened; ignored (send TOOL_CALL_START first)',
      ],
    ]);
  });

  test('JSON that is no AG-UI event is reported once the format is known', () => {
    const r = decode(`${sse([{ type: 'RUN_STARTED', ...run1 }])}data: {"type":"mystery"}\n\n`, 'ag-ui');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['unrecognized', 'not an event of the ag-ui stream format; ignored'],
      ['truncated', 'the stream ended before RUN_FINISHED'],
    ]);
  });
});

test('the decoder is the engine the streams use: createProviderDecoder takes ag-ui', () => {
  expect(() => createProviderDecoder({ input: 'ag-ui' }, { text() {}, diagnostic() {} })).not.toThrow();
});
