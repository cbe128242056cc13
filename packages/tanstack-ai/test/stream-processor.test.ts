/**
 * The parser inside TanStack AI's own `StreamProcessor` (what `ChatClient` and `useChat` run, and
 * where `streamProcessor: { jsonParser }` goes): AG-UI chunks of a run with parallel tool calls
 * whose TOOL_CALL_ARGS alternate are processed twice, with the incremental parser and with
 * TanStack's default; after every args event each call's `parsedArguments` is what the default
 * gives (but for a number in flight, decision 037), the final `input` is the same, and the
 * incremental parser read each argument character once.
 */

import { test as fcTest } from '@fast-check/vitest';
import { createIncrementalJsonParser } from '@llmjson/tanstack-ai';
import { type StreamChunk, StreamProcessor } from '@tanstack/ai';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';
import { documents, oracle } from './helpers.js';

interface Call {
  readonly id: string;
  readonly name: string;
  readonly args: string;
}

/** A run whose calls start together and send their arguments `step` characters at a time, in turn. */
function run(calls: readonly Call[], step: number): StreamChunk[] {
  const chunks: unknown[] = [{ type: 'RUN_STARTED', runId: 'run-1', threadId: 'thread-1', timestamp: 0 }];
  for (const call of calls) {
    chunks.push({ type: 'TOOL_CALL_START', toolCallId: call.id, toolCallName: call.name, timestamp: 0 });
  }
  const longest = Math.max(...calls.map((call) => call.args.length));
  for (let from = 0; from < longest; from += step) {
    for (const call of calls) {
      const delta = call.args.slice(from, from + step);
      if (delta !== '') chunks.push({ type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta, timestamp: 0 });
    }
  }
  for (const call of calls) chunks.push({ type: 'TOOL_CALL_END', toolCallId: call.id, timestamp: 0 });
  chunks.push({ type: 'RUN_FINISHED', runId: 'run-1', threadId: 'thread-1', finishReason: 'tool_calls', timestamp: 0 });
  return chunks as StreamChunk[];
}

/** Each call's `parsedArguments` (and its raw text) after every chunk, through `processor`. */
function observe(processor: StreamProcessor, chunks: readonly StreamChunk[]): [string, string, unknown][] {
  const seen: [string, string, unknown][] = [];
  for (const chunk of chunks) {
    processor.processChunk(chunk);
    if (chunk.type !== 'TOOL_CALL_ARGS') continue;
    const call = processor.getState().toolCalls.get(chunk.toolCallId);
    seen.push([chunk.toolCallId, call?.arguments ?? '', call?.parsedArguments]);
  }
  return seen;
}

const inputs = (processor: StreamProcessor) =>
  processor
    .getMessages()
    .flatMap((message) => message.parts)
    .flatMap((part) => (part.type === 'tool-call' ? [[part.id, part.state, part.input]] : []));

fcTest.prop(
  [
    fc.array(
      documents.filter((text) => /^\s*\{/.test(text)),
      { minLength: 1, maxLength: 4 },
    ),
    fc.integer({ min: 1, max: 12 }),
  ],
  { numRuns },
)('parallel tool calls: parsedArguments after every args event, and the final input', (texts, step) => {
  const calls = texts.map((args, i) => ({ id: `call-${i}`, name: `tool${i % 2}`, args }));
  const chunks = run(calls, step);
  const jsonParser = createIncrementalJsonParser();
  const ours = new StreamProcessor({ jsonParser });
  const theirs = new StreamProcessor();

  const seen = observe(ours, chunks);
  const reference = observe(theirs, chunks);
  expect(seen.map(([id, text]) => [id, text])).toEqual(reference.map(([id, text]) => [id, text]));
  for (const [, text, value] of seen) expect(value, JSON.stringify(text)).toEqual(oracle(text));

  expect(inputs(ours)).toEqual(inputs(theirs));
  expect(inputs(ours).map(([, , input]) => input)).toEqual(texts.map((text) => JSON.parse(text)));
  const total = texts.reduce((sum, text) => sum + text.length, 0);
  // At most: calls whose texts are alike share what was read (a text equal to a followed one is not read again).
  expect(jsonParser.stats.charactersRead).toBeLessThanOrEqual(total);
  expect(jsonParser.stats.fullParses).toBeLessThanOrEqual(texts.length);
});

test('a recorded run replayed with StreamProcessor.replay: the same messages as with the default parser', async () => {
  const calls: Call[] = [
    { id: 'call-a', name: 'getWeather', args: '{"city": "Oslo", "unit": "celsius", "days": 3}' },
    { id: 'call-b', name: 'getWeather', args: '{"city": "Osaka", "unit": "celsius", "days": 10}' },
  ];
  const recording = {
    version: '1.0' as const,
    timestamp: 0,
    chunks: run(calls, 4).map((chunk, index) => ({ chunk, timestamp: index, index })),
  };
  const jsonParser = createIncrementalJsonParser();
  const ours = await StreamProcessor.replay(recording, { jsonParser });
  const theirs = await StreamProcessor.replay(recording);
  expect(ours).toEqual(theirs);
  expect(jsonParser.stats.calls).toBeGreaterThan(20);
  expect(jsonParser.stats.charactersRead).toBe(calls.reduce((sum, call) => sum + call.args.length, 0));
});
