/**
 * `toAgUiToolCalls`: a tool-call stream's updates as AG-UI TOOL_CALL_* events, every one
 * accepted by @ag-ui/core's own schema; the ARGS deltas are the model's raw argument text, the
 * same whatever the chunking of the body; llmjson's verdict travels as CUSTOM llmjson.diagnostic
 * events; a failFast violation or a cut call ends an agUiRun with RUN_ERROR. And the round trip:
 * our events read back through `input: 'ag-ui'` give the same argument values.
 */
import { readFileSync } from 'node:fs';
import { test as fcTest } from '@fast-check/vitest';
import {
  agUiRun,
  DIAGNOSTIC_EVENT,
  fromAgUi,
  IncompleteToolCallsError,
  type ToolCallEvent,
  toAgUiToolCalls,
} from '@llmjson/ag-ui';
import { createToolCallStream, readableFrom } from '@llmjson/web';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { bytes, collect, collectUntilError, expectAgUiEvents, openAiToolBody } from './helpers.js';

const FIXTURE = readFileSync(
  new URL('../../../fixtures/providers/openai-parallel-tool-calls.sse', import.meta.url),
  'utf8',
);
const tools = {
  get_weather: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']).optional() }),
  get_time: z.object({ timezone: z.string() }),
};

/** The body, split into `chunks`, through createToolCallStream and toAgUiToolCalls. */
async function agUi(chunks: readonly string[], failFast = false) {
  const stream = createToolCallStream({ input: 'auto', tools, failFast, onDiagnostic: (d) => events.diagnostic(d) });
  const events = toAgUiToolCalls(stream);
  bytes(chunks)
    .pipeTo(stream.writable)
    .catch(() => {});
  return { stream, events };
}

/** What must not depend on chunking: per call its start, joined args and end, in order; the diagnostics. */
function summary(events: readonly ToolCallEvent[]) {
  const args: Record<string, string> = {};
  const order: string[] = [];
  for (const e of events) {
    if (e.type === 'TOOL_CALL_START') order.push(`start ${e.toolCallId} ${e.toolCallName}`);
    if (e.type === 'TOOL_CALL_END') order.push(`end ${e.toolCallId}`);
    if (e.type === 'TOOL_CALL_ARGS') args[e.toolCallId] = (args[e.toolCallId] ?? '') + e.delta;
    if (e.type === 'CUSTOM') order.push(`diagnostic ${(e.value as { reason: string }).reason}`);
  }
  return { args, order };
}

describe('out: TOOL_CALL_START / ARGS / END', () => {
  test('parallel calls: AG-UI accepts every event; each call starts, carries its raw arguments, ends', async () => {
    const { stream, events } = await agUi([FIXTURE]);
    const out = await collect(events);
    expectAgUiEvents(out);
    const { args, order } = summary(out);
    expect(order).toEqual(['start call_w1 get_weather', 'start call_t1 get_time', 'end call_t1', 'end call_w1']);
    // Byte for byte the provider's argument text: an AG-UI client parses what the model wrote.
    expect(args).toEqual(Object.fromEntries(stream.toolCalls.map((c) => [c.id, c.arguments])));
    expect(JSON.parse(args.call_w1 as string)).toEqual({ city: 'Lisbon', unit: 'celsius' });
    // Every ARGS of a call comes after its START and before its END.
    for (const id of ['call_w1', 'call_t1']) {
      const at = (type: string) => out.findIndex((e) => e.type === type && 'toolCallId' in e && e.toolCallId === id);
      const last = out.map((e) => e.type === 'TOOL_CALL_ARGS' && e.toolCallId === id).lastIndexOf(true);
      expect(at('TOOL_CALL_START')).toBeLessThan(at('TOOL_CALL_ARGS'));
      expect(last).toBeLessThan(at('TOOL_CALL_END'));
    }
  });

  const whole = agUi([FIXTURE]).then(async ({ events }) => summary(await collect(events)));
  fcTest.prop([splitPoints(FIXTURE.length)], { numRuns: Math.ceil(numRuns / 4) })(
    'chunking does not matter: the same calls, arguments and diagnostics at any split points',
    async (points) => {
      const { events } = await agUi(splitAt(FIXTURE, points));
      const out = await collect(events);
      expectAgUiEvents(out);
      expect(summary(out)).toEqual(await whole);
    },
  );

  test('a violation is a CUSTOM llmjson.diagnostic event the moment it is certain; the call still ends', async () => {
    const body = openAiToolBody([{ id: 'w', name: 'get_weather', pieces: ['{"city": "Oslo", "unit": "k', 'elvin"}'] }]);
    const { events } = await agUi([body]);
    const out = await collect(events);
    expectAgUiEvents(out);
    const custom = out.filter((e) => e.type === 'CUSTOM');
    expect(custom.map((e) => [e.name, (e.value as { reason: string }).reason])).toEqual([
      [DIAGNOSTIC_EVENT, 'violation'],
      [DIAGNOSTIC_EVENT, 'schema'],
    ]);
    expect(out.findIndex((e) => e.type === 'CUSTOM')).toBeLessThan(out.findIndex((e) => e.type === 'TOOL_CALL_END'));
    expect(summary(out).args.w).toBe('{"city": "Oslo", "unit": "kelvin"}');
  });

  test('failFast inside agUiRun: the violation, then RUN_ERROR with its code, and nothing after', async () => {
    const body = openAiToolBody([{ id: 'w', name: 'get_weather', pieces: ['{"city": "Oslo", "unit": "k', 'elvin"}'] }]);
    const { events } = await agUi([body], true);
    const out = await collect(agUiRun(events, { threadId: 't', runId: 'r' }));
    expectAgUiEvents(out);
    expect(out[0]).toEqual({ type: 'RUN_STARTED', threadId: 't', runId: 'r' });
    expect(out.at(-2)).toMatchObject({ type: 'CUSTOM', name: DIAGNOSTIC_EVENT, value: { reason: 'violation' } });
    expect(out.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CONTRACT_VALIDATION_FAILED' });
    expect(out.some((e) => e.type === 'TOOL_CALL_END' || e.type === 'RUN_FINISHED')).toBe(false);
  });

  test('a call cut off by the end of the body: its text so far, the truncated diagnostic, then an IncompleteToolCallsError', async () => {
    const body = openAiToolBody([{ id: 'w', name: 'get_weather', pieces: ['{"city": "Os'] }], false);
    const { events } = await agUi([body]);
    const { items, error } = await collectUntilError(events);
    expectAgUiEvents(items);
    expect(error).toBeInstanceOf(IncompleteToolCallsError);
    expect((error as IncompleteToolCallsError).toolCallIds).toEqual(['w']);
    // Two verdicts on the cut: the body ended before the provider's end, and the arguments mid-value.
    expect(summary(items)).toEqual({
      args: { w: '{"city": "Os' },
      order: ['start w get_weather', 'diagnostic truncated', 'diagnostic truncated'],
    });
    const { events: again } = await agUi([body]);
    const run = await collect(agUiRun(again, { threadId: 't', runId: 'r' }));
    expect(run.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'TOOL_CALLS_INCOMPLETE' });
  });

  test('a consumer that stops early cancels the tool-call stream (and so the model request)', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new TextEncoder().encode(openAiToolBody([{ id: 'w', name: 'get_weather', pieces: ['{"ci'] }], false)),
        );
      },
      cancel() {
        cancelled = true;
      },
    });
    const stream = createToolCallStream({ input: 'openai', tools });
    body.pipeTo(stream.writable).catch(() => {});
    for await (const event of toAgUiToolCalls(stream)) {
      expect(event.type).toBe('TOOL_CALL_START');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled).toBe(true);
  });

  test('configuration mistakes say what to pass', () => {
    const stream = createToolCallStream({ input: 'openai', tools });
    expect(() => toAgUiToolCalls(stream.readable as never)).toThrow(/pass the stream createToolCallStream returned/);
    expect(() => toAgUiToolCalls(stream, { parentMesageId: 'm' } as never)).toThrow(/parentMesageId/);
    const events = toAgUiToolCalls(stream, { parentMessageId: 'm' });
    void events[Symbol.asyncIterator]();
    expect(() => events[Symbol.asyncIterator]()).toThrow(/can be read once/);
  });
});

describe('round trip: our events, read back as input ag-ui', () => {
  const calls = [
    { id: 'w', name: 'get_weather', pieces: ['{"city": "Lis', 'bon", "un', 'it": "celsius"}'] },
    { id: 't', name: 'get_time', pieces: ['{"timezone"', ': "Europe/Lisbon"}'] },
  ];
  const body = openAiToolBody(calls);

  fcTest.prop([splitPoints(body.length)], { numRuns: Math.ceil(numRuns / 4) })(
    'the same calls, names and argument values, at any split points of the original body',
    async (points) => {
      const { stream, events } = await agUi(splitAt(body, points));
      const out = await collect(agUiRun(events, { threadId: 't', runId: 'r' }));
      expectAgUiEvents(out);
      const back = readableFrom(fromAgUi(out)).pipeThrough(createToolCallStream({ input: 'ag-ui', tools }));
      const updates = await collect(
        back as unknown as AsyncIterable<{ id?: string; name?: string; value: unknown; complete: boolean }>,
      );
      const final = (list: readonly { id?: string; name?: string; value: unknown; complete: boolean }[]) =>
        Object.fromEntries(list.filter((u) => u.complete).map((u) => [u.id, [u.name, u.value]]));
      expect(final(updates)).toEqual({
        w: ['get_weather', { city: 'Lisbon', unit: 'celsius' }],
        t: ['get_time', { timezone: 'Europe/Lisbon' }],
      });
      expect(stream.calls.map((c) => c.value)).toEqual([
        { city: 'Lisbon', unit: 'celsius' },
        { timezone: 'Europe/Lisbon' },
      ]);
      // Every partial value read back is one the original stream also held at some point: a prefix.
      for (const u of updates.filter((u) => u.value !== undefined)) {
        const original = JSON.stringify(
          u.id === 'w' ? { city: 'Lisbon', unit: 'celsius' } : { timezone: 'Europe/Lisbon' },
        );
        const partial = JSON.stringify(u.value);
        expect(original.startsWith(partial.replace(/["}\]]+$/, ''))).toBe(true);
      }
    },
  );
});
