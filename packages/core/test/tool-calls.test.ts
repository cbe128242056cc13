/**
 * Tool calls as live partial values (tool-calls.ts): per call, the arguments as a partial value
 * validated against that tool's schema — parallel and interleaved calls apart, a reused index
 * apart, prefix violations while a call streams, unknown tools, cut calls, every chunking.
 */

import {
  applyChanges,
  ConfigurationError,
  createToolCallDecoder,
  type Diagnostic,
  type JsonSchema,
  type ProviderInput,
  type ToolCallOptions,
  type ToolCallUpdate,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { everyChunkSize, numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';

const WEATHER: JsonSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', maxLength: 40 },
    unit: { enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 14 },
  },
  required: ['city'],
  additionalProperties: false,
};
const TIME: JsonSchema = {
  type: 'object',
  properties: { tz: { type: 'string' } },
  required: ['tz'],
  additionalProperties: false,
};
const TOOLS = { weather: WEATHER, time: TIME };

const chunk = (delta: unknown, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  model: 'gpt-test',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const sse = (...events: unknown[]) =>
  `${events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}`).join('\n\n')}\n\n`;
const call = (index: number, args: string, id?: string, name?: string) =>
  chunk({
    tool_calls: [
      {
        index,
        ...(id === undefined ? {} : { id, type: 'function' }),
        function: { ...(name === undefined ? {} : { name }), arguments: args },
      },
    ],
  });

/** Two calls streamed interleaved, piece by piece, as parallel tool calls arrive. */
const PARALLEL = sse(
  chunk({ role: 'assistant', content: null }),
  call(0, '', 'call_w', 'weather'),
  call(1, '{"tz"', 'call_t', 'time'),
  call(0, '{"city":"Par'),
  call(1, ':"Europe/'),
  call(0, 'is","unit":"cel'),
  call(1, 'Paris"}'),
  call(0, 'sius","days":3}'),
  chunk({}, 'tool_calls'),
  '[DONE]',
);

interface Run {
  updates: ToolCallUpdate[];
  diagnostics: Diagnostic[];
  text: string;
  finals: Record<string, unknown>;
  calls: ReturnType<typeof createToolCallDecoder>['calls'];
}

function run(chunks: readonly string[], options: Partial<ToolCallOptions> = {}, input: ProviderInput = 'auto'): Run {
  const r: Run = { updates: [], diagnostics: [], text: '', finals: {}, calls: [] };
  const decoder = createToolCallDecoder(
    { input, tools: TOOLS, compileJsonSchema: compileSchema, ...options },
    {
      update: (u) => r.updates.push(u),
      diagnostic: (d) => r.diagnostics.push(d),
      text: (t) => {
        r.text += t;
      },
    },
  );
  for (const c of chunks) decoder.write(c);
  decoder.end();
  r.calls = decoder.calls;
  // By call id (every call here has one); the decoder's key is the fallback.
  for (const u of r.updates) if (u.complete) r.finals[u.id ?? u.key] = u.value;
  return r;
}

/** What a chunking must not change: final values, diagnostics, calls; and each call's changes rebuild its value. */
function outcome(r: Run) {
  const rebuilt: Record<string, unknown> = {};
  for (const u of r.updates) rebuilt[u.id ?? u.key] = applyChanges(rebuilt[u.id ?? u.key], u.changes);
  return { finals: r.finals, diagnostics: r.diagnostics, calls: r.calls, text: r.text, rebuilt };
}

describe('createToolCallDecoder', () => {
  test('parallel calls that interleave stay apart; each ends complete and valid', () => {
    const r = run([PARALLEL]);
    expect(r.diagnostics).toEqual([]);
    expect(r.finals).toEqual({
      call_w: { city: 'Paris', unit: 'celsius', days: 3 },
      call_t: { tz: 'Europe/Paris' },
    });
    // In order of their first argument piece (the weather call's first delta held none).
    expect(r.calls).toMatchObject([
      { index: 1, id: 'call_t', name: 'time', value: r.finals.call_t, complete: true },
      { index: 0, id: 'call_w', name: 'weather', value: r.finals.call_w, complete: true },
    ]);
    expect(new Set(r.calls.map((c) => c.key)).size).toBe(2);
    // The arguments arrive as they stream: the city is visible before its call completes.
    const early = r.updates.find((u) => u.id === 'call_w' && !u.complete && (u.value as { city?: string })?.city);
    expect(early?.value).toEqual({ city: 'Par' });
    expect(early).toMatchObject({ index: 0, id: 'call_w', name: 'weather' });
    // Snapshots are immutable: an early one is not changed by later pieces.
    expect(r.updates.filter((u) => u.complete).map((u) => u.id)).toEqual(['call_t', 'call_w']);
  });

  test('every chunk size and arbitrary splits give the same calls, values and diagnostics', () => {
    const expected = outcome(run([PARALLEL]));
    expect(expected.rebuilt).toEqual(expected.finals);
    for (const [label, chunks] of everyChunkSize(PARALLEL)) expect(outcome(run(chunks)), label).toEqual(expected);
    fc.assert(
      fc.property(splitPoints(PARALLEL.length), (points) => {
        expect(outcome(run(splitAt(PARALLEL, points)))).toEqual(expected);
      }),
      { numRuns },
    );
  });

  test('a prefix that breaks the tool schema is a violation while the call streams, with the call and path', () => {
    const body = sse(
      call(0, '', 'call_w', 'weather'),
      call(0, '{"city":"Paris","unit":"kel'),
      call(0, 'vin"}'),
      chunk({}, 'tool_calls'),
      '[DONE]',
    );
    // Delivered piece by piece: the violation comes with the piece that makes it certain.
    const events: string[] = [];
    const decoder = createToolCallDecoder(
      { input: 'openai', tools: TOOLS, compileJsonSchema: compileSchema },
      {
        update: (u) => events.push(`update ${JSON.stringify(u.value)}`),
        diagnostic: (d) => events.push(`${d.reason} ${d.path ?? ''}`),
      },
    );
    const pieces = body.split('\n\n');
    for (const piece of pieces) decoder.write(`${piece}\n\n`);
    decoder.end();
    expect(events.indexOf('violation /unit')).toBeGreaterThan(-1);
    // Then, once the call completes, the member and the whole arguments fail their schemas.
    expect(events.indexOf('violation /unit')).toBeLessThan(events.indexOf('schema '));
    const r = run([body]);
    const violation = r.diagnostics.find((d) => d.reason === 'violation');
    expect(violation).toMatchObject({
      reason: 'violation',
      path: '/unit',
      rule: 'enum',
      toolCall: { index: 0, id: 'call_w', name: 'weather' },
    });
    expect(violation?.message).toMatch(/^tool call 0 \(weather\): /);
    // The offset counts from the start of the call's arguments: the `k` of "kel".
    expect(violation?.offset).toBe('{"city":"Paris","unit":"k'.length - 1);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['violation', 'schema', 'schema']);
  });

  test('with prefixCheck: false the call is checked only once complete', () => {
    const body = sse(call(0, '{"city":"Paris","unit":"kelvin"}', 'call_w', 'weather'), chunk({}, 'tool_calls'));
    // The member `/unit`, then the whole arguments.
    expect(run([body], { prefixCheck: false }).diagnostics.map((d) => [d.reason, d.offset])).toEqual([
      ['schema', '{"city":"Paris","unit":"kelvin"'.length],
      ['schema', '{"city":"Paris","unit":"kelvin"}'.length],
    ]);
  });

  test('a call to a tool not in `tools` is a schema diagnostic (rule tool); its arguments still arrive', () => {
    const body = sse(call(0, '{"q":"x"}', 'call_s', 'search'), chunk({}, 'tool_calls'), '[DONE]');
    const r = run([body]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ reason: 'schema', rule: 'tool', toolCall: { index: 0, name: 'search' } });
    expect(r.diagnostics[0]?.message).toContain('not one of the tools (weather, time)');
    expect(r.finals).toEqual({ call_s: { q: 'x' } });
    // Without `tools`, nothing is checked.
    const unchecked: Diagnostic[] = [];
    const decoder = createToolCallDecoder({ input: 'openai' }, { update() {}, diagnostic: (d) => unchecked.push(d) });
    decoder.write(body);
    decoder.end();
    expect(unchecked).toEqual([]);
    expect(decoder.calls).toMatchObject([{ name: 'search', value: { q: 'x' }, complete: true }]);
  });

  test.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'])(
    'a call to %s (a member of Object.prototype, not a tool) is the unknown-tool diagnostic, under every chunking',
    (name) => {
      const body = sse(
        call(0, '{"city":', 'call_p', name),
        call(0, '"Oslo"}'),
        call(1, '{"tz":"UTC"}', 'call_t', 'time'),
        chunk({}, 'tool_calls'),
        '[DONE]',
      );
      const expected = outcome(run([body]));
      expect(expected.diagnostics).toHaveLength(1);
      expect(expected.diagnostics[0]).toMatchObject({ reason: 'schema', rule: 'tool', toolCall: { index: 0, name } });
      expect(expected.diagnostics[0]?.message).toContain('which is not one of the tools (weather, time)');
      // Its arguments still arrive, unchecked; the real tool's call is checked and complete.
      expect(expected.finals).toEqual({ call_p: { city: 'Oslo' }, call_t: { tz: 'UTC' } });
      for (const [label, chunks] of everyChunkSize(body, 16)) expect(outcome(run(chunks)), label).toEqual(expected);
      fc.assert(
        fc.property(splitPoints(body.length), (points) => {
          expect(outcome(run(splitAt(body, points)))).toEqual(expected);
        }),
        { numRuns: 20 },
      );
    },
  );

  test('a call whose arguments pass maxArgumentsLength: one too-long diagnostic, the call is dropped, the stream goes on', () => {
    const body = sse(
      chunk({ content: 'Calling. ' }),
      call(0, '{"city":"', 'call_big', 'weather'),
      ...Array.from({ length: 8 }, () => call(0, 'x'.repeat(20))),
      call(0, '"}'),
      call(1, '{"tz":"UTC"}', 'call_t', 'time'),
      chunk({ content: 'Done.' }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    );
    const options = { maxArgumentsLength: 100, prefixCheck: false };
    const expected = outcome(run([body], options));
    expect(expected.diagnostics).toHaveLength(1);
    expect(expected.diagnostics[0]).toMatchObject({
      reason: 'too-long',
      toolCall: { index: 0, id: 'call_big', name: 'weather' },
    });
    expect(expected.diagnostics[0]?.message).toContain(
      'longer than maxArgumentsLength (100 characters); the call is dropped',
    );
    // The dropped call never completes and is gone from `calls`; the next call and the text go on.
    expect(expected.finals).toEqual({ call_t: { tz: 'UTC' } });
    expect(expected.calls).toMatchObject([{ id: 'call_t', complete: true }]);
    expect(expected.text).toBe('Calling. Done.');
    for (const [label, chunks] of everyChunkSize(body, 16))
      expect(outcome(run(chunks, options)), label).toEqual(expected);
    // The decoder forgot the dropped call's text: only the kept call is in `toolCalls`.
    const decoder = createToolCallDecoder({ input: 'openai', ...options }, { update() {}, diagnostic() {} });
    decoder.write(body);
    decoder.end();
    expect(decoder.provider.toolCalls.map((c) => c.id)).toEqual(['call_t']);
  });

  test('arguments past the default cap (8 MiB) in 1 MiB pieces: dropped with one diagnostic', () => {
    const piece = 'x'.repeat(1024 * 1024);
    const diagnostics: Diagnostic[] = [];
    const updates: ToolCallUpdate[] = [];
    const decoder = createToolCallDecoder(
      { input: 'openai', tools: TOOLS, compileJsonSchema: compileSchema },
      { update: (u) => updates.push(u), diagnostic: (d) => diagnostics.push(d) },
    );
    decoder.write(sse(call(0, '{"tz":"', 'call_big', 'time')));
    // Without the cap, 560 such pieces made a string longer than V8 allows (RangeError).
    for (let i = 0; i < 12; i++) decoder.write(sse(call(0, piece)));
    decoder.write(sse(call(1, '{"tz":"UTC"}', 'call_t', 'time'), chunk({}, 'tool_calls'), '[DONE]'));
    decoder.end();
    expect(diagnostics.map((d) => d.reason)).toEqual(['too-long']);
    expect(diagnostics[0]?.message).toContain(`maxArgumentsLength (${8 * 1024 * 1024} characters)`);
    expect(diagnostics[0]?.toolCall).toMatchObject({ id: 'call_big' });
    expect(updates.filter((u) => u.complete).map((u) => u.id)).toEqual(['call_t']);
    expect(decoder.calls.map((c) => c.id)).toEqual(['call_t']);
  });

  test('maxArgumentsLength must be a positive integer', () => {
    expect(() =>
      createToolCallDecoder({ input: 'openai', maxArgumentsLength: 0 }, { update() {}, diagnostic() {} }),
    ).toThrow(ConfigurationError);
  });

  test('a call the stream cuts ends with truncated, naming the call; complete calls before it stand', () => {
    const body = sse(call(0, '{"tz":"UTC"}', 'call_t', 'time'), call(1, '{"city":"Ber', 'call_w', 'weather'));
    const r = run([body]);
    expect(r.finals).toEqual({ call_t: { tz: 'UTC' } });
    const cut = r.diagnostics.filter((d) => d.reason === 'truncated');
    // The decoder reports the cut stream; the call's builder reports its cut arguments.
    expect(cut.some((d) => d.toolCall?.name === 'weather')).toBe(true);
    expect(r.calls.map((c) => [c.id, c.complete, c.value])).toEqual([
      ['call_t', true, { tz: 'UTC' }],
      ['call_w', false, { city: 'Ber' }],
    ]);
  });

  test('Ollama: calls arrive whole; several calls to the same tool stay apart', () => {
    const line = (calls: unknown[], done = false) =>
      `${JSON.stringify({ model: 'llama3.2', message: { role: 'assistant', content: '', tool_calls: calls }, done })}\n`;
    const body =
      line([{ function: { name: 'time', arguments: { tz: 'UTC' } } }]) +
      line([{ function: { name: 'time', arguments: { tz: 'Asia/Tokyo' } } }]) +
      line([], true);
    const r = run([body], {}, 'ollama');
    expect(r.diagnostics).toEqual([]);
    expect(Object.values(r.finals)).toEqual([{ tz: 'UTC' }, { tz: 'Asia/Tokyo' }]);
    expect(r.calls.map((c) => c.index)).toEqual([0, 1]);
  });

  test('Anthropic tool_use blocks, with a Standard Schema (zod)', () => {
    const event = (e: { type: string }) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
    const body = [
      { type: 'message_start', message: { model: 'claude-test', usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
      },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"ids":[1,' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '2,"three"]}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]
      .map(event)
      .join('');
    const lookup = z.object({ ids: z.array(z.number()) });
    const r = run([body], { tools: { lookup } }, 'anthropic');
    expect(r.text).toBe('Checking.');
    expect(r.finals).toEqual({ toolu_1: { ids: [1, 2, 'three'] } });
    // The prefix check reads zod's JSON Schema export: the string is a violation when it starts.
    expect(r.diagnostics[0]).toMatchObject({ reason: 'violation', path: '/ids/2', toolCall: { name: 'lookup' } });
    expect(r.diagnostics[0]?.offset).toBe('{"ids":[1,2,'.length);
    // Then, complete, the parts the export checks (ajv) and the whole arguments (zod itself).
    expect(r.diagnostics.slice(1).every((d) => d.reason === 'schema' && d.toolCall?.name === 'lookup')).toBe(true);
    expect(r.diagnostics.at(-1)?.message).toMatch(/^tool call 1 \(lookup\): the complete document does not match/);
  });

  test('configuration errors throw at creation: tools not a map, a broken schema, a JSON Schema without a compiler', () => {
    expect(() =>
      createToolCallDecoder({ input: 'openai', tools: [] as never }, { update() {}, diagnostic() {} }),
    ).toThrow(/tools must be an object/);
    expect(() =>
      createToolCallDecoder(
        { input: 'openai', tools: { bad: { type: 'nope' } }, compileJsonSchema: compileSchema },
        { update() {}, diagnostic() {} },
      ),
    ).toThrow(ConfigurationError);
    expect(() => createToolCallDecoder({ input: 'openai', tools: TOOLS }, { update() {}, diagnostic() {} })).toThrow(
      /compileJsonSchema/,
    );
  });

  test('an exception from the sink reaches the caller of write, and the decoder state stays readable', () => {
    const decoder = createToolCallDecoder(
      { input: 'openai', tools: TOOLS, compileJsonSchema: compileSchema },
      {
        update() {
          throw new Error('consumer failed');
        },
        diagnostic() {},
      },
    );
    expect(() => decoder.write(PARALLEL)).toThrow('consumer failed');
    expect(decoder.stats.calls).toBeGreaterThan(0);
  });
});
