import { test as fcTest } from '@fast-check/vitest';
import { ConfigurationError, createProviderDecoder, type Diagnostic, type ProviderInput } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { everyChunkSize, numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { type Run, runProviderDecoder } from '../../../test/support/provider.js';

const run = runProviderDecoder;

/** Decodes `body` whole and at every chunk size 1..64; asserts they agree and returns the result. */
function decode(body: string, input: ProviderInput = 'auto', maxEventLength?: number): Run {
  const whole = run([body], input, maxEventLength);
  for (const [label, chunks] of everyChunkSize(body)) expect(run(chunks, input, maxEventLength), label).toEqual(whole);
  return whole;
}

/** The 1-based line and the offset where `needle` starts in `body`. */
function at(body: string, needle: string): { line: number; offset: number } {
  const offset = body.indexOf(needle);
  expect(offset).toBeGreaterThanOrEqual(0);
  return { line: body.slice(0, offset).split(/\r\n|\r|\n/).length, offset };
}

const brief = (r: Run) => r.diagnostics.map((d) => [d.reason, d.line]);

const sse = (...events: unknown[]) =>
  events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');

const chunk = (delta: unknown, finish: string | null = null, extra: object = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  model: 'gpt-test',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

// ---- Bodies ----------------------------------------------------------------------------------

/** Chat completions with CRLF line ends, comments, a multi-line data field, a non-JSON event. */
const CHAT_CRLF = [
  ': keep-alive',
  '',
  `data: ${JSON.stringify(chunk({ role: 'assistant', content: '' }))}`,
  '',
  `data: ${JSON.stringify(chunk({ content: 'Hel' }))}`,
  '',
  'data: not json',
  '',
  ': ping',
  'data: {"choices":[{"index":0,',
  'data: "delta":{"content":"lo ☃"}}]}',
  '',
  `data: ${JSON.stringify(chunk({ content: ' 😀' }, 'stop'))}`,
  '',
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } })}`,
  '',
  'data: [DONE]',
  '',
  '',
].join('\r\n');

const CHAT_TOOLS = sse(
  chunk({ role: 'assistant', content: null, reasoning_content: 'Think' }),
  chunk({ content: null, reasoning_content: 'ing.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{"tz"' } }] }),
  chunk({ tool_calls: [{ index: 0, id: '', function: { name: '', arguments: '{"city":' } }] }),
  chunk({ tool_calls: [{ index: 1, function: { arguments: ':"UTC"}' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
  chunk({}, 'tool_calls', { usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 } }),
  '[DONE]',
);

const RESPONSES = [
  'event: response.created',
  `data: ${JSON.stringify({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress', model: 'gpt-5', usage: null } })}`,
  '',
  'event: response.in_progress',
  `data: ${JSON.stringify({ type: 'response.in_progress', response: { id: 'resp_1' } })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', delta: 'Plan.' })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.output_item.added', output_index: 1, item: { id: 'fc_1', type: 'function_call', arguments: '', call_id: 'call_1', name: 'calc' } })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '{"a":' })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '1}' })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 1, arguments: '{"a":1}' })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.output_item.added', output_index: 2, item: { id: 'fc_2', type: 'function_call', arguments: '', call_id: 'call_2', name: 'noop' } })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.output_item.done', output_index: 2, item: { id: 'fc_2', type: 'function_call', arguments: '', call_id: 'call_2', name: 'noop' } })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_1', delta: 'The answer' })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_1', delta: ' is 1.' })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.output_text.done', item_id: 'msg_1', text: 'The answer is 1.' })}`,
  '',
  `data: ${JSON.stringify({ type: 'response.completed', response: { id: 'resp_1', status: 'completed', model: 'gpt-5-2025', incomplete_details: null, usage: { input_tokens: 7, output_tokens: 9, total_tokens: 16 } } })}`,
  '',
  '',
].join('\n');

const anthropicEvent = (e: { type: string }) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
const ANTHROPIC = [
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      model: 'claude-test',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 0, output_tokens: 1 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'ping' },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Calling ' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'tools.' } },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'content_block_start',
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} },
  },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '' } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"q": "caf' } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: 'é"}' } },
  { type: 'content_block_stop', index: 2 },
  {
    type: 'content_block_start',
    index: 3,
    content_block: { type: 'tool_use', id: 'toolu_2', name: 'refresh', input: {} },
  },
  { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '' } },
  { type: 'content_block_stop', index: 3 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 42 } },
  { type: 'message_stop' },
]
  .map(anthropicEvent)
  .join('');

const OLLAMA_CHAT = [
  {
    model: 'llama3.2',
    created_at: 't',
    message: { role: 'assistant', content: '', thinking: 'Let me see.' },
    done: false,
  },
  { model: 'llama3.2', created_at: 't', message: { role: 'assistant', content: '{"a":' }, done: false },
  { model: 'llama3.2', created_at: 't', message: { role: 'assistant', content: ' 1}\n' }, done: false },
  {
    model: 'llama3.2',
    created_at: 't',
    message: {
      role: 'assistant',
      content: '',
      tool_calls: [{ function: { name: 'get_time', arguments: { tz: 'UTC' } } }],
    },
    done: false,
  },
  {
    model: 'llama3.2',
    created_at: 't',
    message: { role: 'assistant', content: '' },
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 26,
    eval_count: 12,
  },
]
  .map((e) => `${JSON.stringify(e)}\n`)
  .join('');

const OLLAMA_GENERATE = [
  { model: 'qwen3', response: 'Hello', done: false },
  { model: 'qwen3', response: ', world', done: false },
  { model: 'qwen3', response: '', done: true, done_reason: 'length', prompt_eval_count: 3, eval_count: 2 },
]
  .map((e) => JSON.stringify(e))
  .join('\r\n');

// ---- Tests -----------------------------------------------------------------------------------

describe('OpenAI chat completions: what real servers also send', () => {
  test('a server that ignored stream: true sends one message: its content and tool calls are read', () => {
    const r = decode(
      sse({
        id: 'c',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Hello',
              tool_calls: [{ id: 't1', function: { name: 'f', arguments: '{"x":1}' } }],
            },
            finish_reason: 'stop',
          },
        ],
      }),
      'openai',
    );
    expect(r.text).toBe('Hello');
    expect(r.toolCalls.map((c) => [c.name, c.arguments, c.complete])).toEqual([['f', '{"x":1}', true]]);
    expect(r.finishReason).toBe('stop');
  });

  test('parallel calls sent under one index (Ollama /v1) stay separate calls when their ids differ', () => {
    const r = decode(
      sse(
        chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x":1}' } }] }),
        chunk({ tool_calls: [{ index: 0, id: 'b', function: { name: 'g', arguments: '{"y":2}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
      'openai',
    );
    expect(r.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['a', 'f', '{"x":1}'],
      ['b', 'g', '{"y":2}'],
    ]);
  });

  test('object arguments are serialized; a piece after the call closed is reported, not appended', () => {
    const r = decode(
      sse(
        chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: { x: 1 } } }] }),
        chunk({}, 'tool_calls'),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"late":' } }] }),
      ),
      'openai',
    );
    expect(r.toolCalls.map((c) => c.arguments)).toEqual(['{"x":1}']);
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['unrecognized', 'tool call choice0.tool_call0 received arguments after the provider closed it; ignored'],
    ]);
  });

  test('a refusal is not answer text, and not lost: it is reported when the message ends', () => {
    const r = decode(
      sse(chunk({ refusal: "I can't " }), chunk({ refusal: 'help with that.' }), chunk({}, 'stop')),
      'openai',
    );
    expect(r.text).toBe('');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', "the model refused: I can't help with that."],
    ]);
    const responses = decode(
      sse(
        { type: 'response.created', response: {} },
        { type: 'response.refusal.delta', delta: 'No.' },
        { type: 'response.completed', response: { status: 'completed' } },
      ),
      'openai-responses',
    );
    expect(responses.diagnostics.map((d) => d.message)).toEqual(['the model refused: No.']);
  });

  test('a long refusal is kept to its first 500 characters; the message says how long it was', () => {
    const piece = 'No. '.repeat(250);
    const body = sse(...Array.from({ length: 40 }, () => chunk({ refusal: piece })), chunk({}, 'stop'));
    const whole = run([body], 'openai');
    expect(whole.diagnostics).toHaveLength(1);
    expect(whole.diagnostics[0]?.message).toBe(`the model refused: ${'No. '.repeat(125)}… (40000 characters)`);
    for (const size of [1, 9, 1000]) {
      const chunks = Array.from({ length: Math.ceil(body.length / size) }, (_, i) =>
        body.slice(i * size, (i + 1) * size),
      );
      expect(run(chunks, 'openai'), `size ${size}`).toEqual(whole);
    }
  });

  test('complete and closed say whether the end marker and [DONE] arrived', () => {
    const cut = runProviderDecoder([sse(chunk({ content: 'a' }))], 'openai');
    const done = runProviderDecoder([sse(chunk({ content: 'a' }), chunk({}, 'stop'), '[DONE]')], 'openai');
    expect(cut.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
    expect(done.diagnostics).toEqual([]);
  });
});

describe('OpenAI chat completions', () => {
  test('CRLF, comments, multi-line data, a non-JSON event (reported, the stream goes on) and [DONE]', () => {
    const r = decode(CHAT_CRLF, 'openai');
    expect(r.text).toBe('Hello ☃ 😀');
    expect(r.diagnostics).toEqual([
      {
        reason: 'syntax',
        ...at(CHAT_CRLF, 'data: not json'),
        excerpt: 'not json',
        message: expect.stringMatching(/^event data is not JSON/),
      },
    ]);
    expect(r).toMatchObject({
      provider: 'openai',
      model: 'gpt-test',
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 },
      stats: { events: 7, ignoredEvents: 1, diagnostics: { syntax: 1 } },
    });
    expect(r.metadata.at(-1)).toEqual({
      provider: 'openai',
      model: 'gpt-test',
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 },
    });
    expect(decode(CHAT_CRLF, 'auto')).toEqual(r);
  });

  test('LF, CRLF and lone CR line ends give the same result', () => {
    const lf = CHAT_CRLF.replaceAll('\r\n', '\n');
    const cr = CHAT_CRLF.replaceAll('\r\n', '\r');
    const strip = (r: Run) => ({ ...r, calls: [], diagnostics: r.diagnostics.map((d) => d.message) });
    expect(strip(decode(lf))).toEqual(strip(decode(CHAT_CRLF)));
    expect(strip(decode(cr))).toEqual(strip(decode(CHAT_CRLF)));
  });

  test('parallel tool calls are assembled per index; reasoning_content is reasoning, not text', () => {
    const r = decode(CHAT_TOOLS);
    expect(r.text).toBe('');
    expect(r.reasoning).toBe('Thinking.');
    expect(r.tools).toEqual({ 'choice0.tool_call0': '{"city":"Paris"}', 'choice0.tool_call1': '{"tz":"UTC"}' });
    expect(r.toolCalls).toEqual([
      {
        key: 'choice0.tool_call0',
        index: 0,
        id: 'call_a',
        name: 'weather',
        arguments: '{"city":"Paris"}',
        complete: true,
      },
      { key: 'choice0.tool_call1', index: 1, id: 'call_b', name: 'time', arguments: '{"tz":"UTC"}', complete: true },
    ]);
    expect(r.calls.find((c) => c[0] === 'toolArguments')).toEqual([
      'toolArguments',
      'choice0.tool_call1',
      '{"tz"',
      { index: 1, id: 'call_b', name: 'time' },
    ]);
    expect(r).toMatchObject({
      finishReason: 'tool_calls',
      usage: { inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    });
    expect(r.diagnostics).toEqual([]);
  });

  test('a call closed with no arguments is read as {}', () => {
    const r = decode(
      sse(
        chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'ping', arguments: '' } }] }),
        chunk({}, 'tool_calls'),
      ),
    );
    expect(r.tools).toEqual({ 'choice0.tool_call0': '{}' });
    expect(r.toolCalls[0]).toMatchObject({ arguments: '{}', complete: true });
  });

  test('a stream cut before finish_reason and [DONE] reports the open tool call, which is not read as {}', () => {
    const body = sse(
      chunk({ content: 'Sure.' }),
      chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{"x": [1, 2' } }] }),
    );
    const r = decode(body);
    expect(r.text).toBe('Sure.');
    expect(r.toolCalls).toEqual([
      { key: 'choice0.tool_call0', index: 0, id: 'c', name: 'f', arguments: '{"x": [1, 2', complete: false },
    ]);
    expect(brief(r)).toEqual([['truncated', 5]]);
    expect(r.diagnostics[0]?.message).toBe(
      'the stream ended before a finish_reason or [DONE]; tool call(s) cut off: choice0.tool_call0 (f) after 11 characters',
    );
    expect(r.finishReason).toBeUndefined();
  });

  test('an event cut at the end of the body is truncated; a complete one without its blank line is dispatched', () => {
    const complete = decode(`${sse(chunk({ content: 'a' }))}data: ${JSON.stringify(chunk({ content: 'b' }, 'stop'))}`);
    expect(complete.text).toBe('ab');
    expect(complete.diagnostics).toEqual([]);
    const cut = decode(`${sse(chunk({ content: 'a' }))}data: {"choices":[{"index":0,"delta":{"content":"b`);
    expect(cut.text).toBe('a');
    expect(cut.diagnostics.map((d) => [d.reason, d.line, d.message.slice(0, 36)])).toEqual([
      ['truncated', 3, 'the stream ended inside an event (Un'],
      ['truncated', 3, 'the stream ended before a finish_rea'],
    ]);
  });

  test('events after [DONE] are reported once and ignored', () => {
    const body = sse(chunk({ content: 'a' }, 'stop'), '[DONE]', chunk({ content: 'b' }), chunk({ content: 'c' }));
    const r = decode(body);
    expect(r.text).toBe('a');
    expect(brief(r)).toEqual([['syntax', 5]]);
    expect(r.stats).toEqual({ events: 4, ignoredEvents: 2, diagnostics: { syntax: 1 } });
  });

  test('an error object in the stream is a provider error: reported, exposed, finish reason "error"', () => {
    const body = sse(chunk({ content: 'Par' }), { error: { message: 'Rate limit reached', type: 'rate_limit_error' } });
    const r = decode(body);
    expect(r.text).toBe('Par');
    expect(r.error).toEqual({ message: 'Rate limit reached', code: 'rate_limit_error' });
    expect(r.finishReason).toBe('error');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (rate_limit_error): Rate limit reached'],
    ]);
  });

  test('only the first choice is decoded; another choice is reported once', () => {
    const two = (a: string, b: string) => ({
      model: 'm',
      choices: [
        { index: 0, delta: { content: a } },
        { index: 1, delta: { content: b } },
      ],
    });
    const r = decode(sse(two('x', 'y'), two('z', 'w'), chunk({}, 'stop')));
    expect(r.text).toBe('xz');
    expect(brief(r)).toEqual([['unrecognized', 1]]);
  });

  test('legacy completions (choices[0].text) and content parts', () => {
    const r = decode(
      sse(
        { object: 'text_completion', model: 'm', choices: [{ index: 0, text: 'one ', finish_reason: null }] },
        { object: 'text_completion', model: 'm', choices: [{ index: 0, text: 'two', finish_reason: 'length' }] },
      ),
    );
    expect(r).toMatchObject({ text: 'one two', finishReason: 'length', diagnostics: [] });
    const parts = decode(
      sse(
        chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] }] }),
        chunk({ content: [{ type: 'text', text: 'ok' }] }, 'stop'),
      ),
    );
    expect(parts).toMatchObject({ text: 'ok', reasoning: 'hm' });
  });
});

describe('OpenAI Responses', () => {
  test('text, function-call arguments per item, reasoning, event: fields, completed status and usage', () => {
    const r = decode(RESPONSES, 'openai-responses');
    expect(r.text).toBe('The answer is 1.');
    expect(r.reasoning).toBe('Plan.');
    expect(r.tools).toEqual({ fc_1: '{"a":1}', fc_2: '{}' });
    expect(r.toolCalls).toEqual([
      { key: 'fc_1', index: 1, id: 'call_1', name: 'calc', arguments: '{"a":1}', complete: true },
      { key: 'fc_2', index: 2, id: 'call_2', name: 'noop', arguments: '{}', complete: true },
    ]);
    expect(r).toMatchObject({
      provider: 'openai-responses',
      model: 'gpt-5-2025',
      finishReason: 'completed',
      usage: { inputTokens: 7, outputTokens: 9, totalTokens: 16 },
      diagnostics: [],
    });
    expect(decode(RESPONSES, 'auto')).toEqual(r);
  });

  test('response.incomplete gives the reason; response.failed is a provider error', () => {
    const incomplete = decode(
      sse(
        { type: 'response.created', response: { model: 'gpt-5' } },
        { type: 'response.output_text.delta', delta: '{"a":' },
        {
          type: 'response.incomplete',
          response: {
            status: 'incomplete',
            incomplete_details: { reason: 'max_output_tokens' },
            usage: { input_tokens: 1, output_tokens: 2 },
          },
        },
      ),
    );
    expect(incomplete).toMatchObject({
      text: '{"a":',
      finishReason: 'max_output_tokens',
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      diagnostics: [],
    });
    const failed = decode(
      sse(
        { type: 'response.created', response: { model: 'gpt-5' } },
        { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'boom' } } },
      ),
    );
    expect(failed.finishReason).toBe('failed');
    expect(failed.error).toEqual({ message: 'boom', code: 'server_error' });
    expect(failed.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (server_error): boom'],
    ]);
  });

  test('an error event ({type: "error", code, message})', () => {
    const r = decode(
      sse(
        { type: 'response.created', response: {} },
        { type: 'error', code: 'rate_limit_exceeded', message: 'slow down' },
      ),
    );
    expect(r.error).toEqual({ message: 'slow down', code: 'rate_limit_exceeded' });
    expect(brief(r)).toEqual([['provider-error', 3]]);
  });
});

describe('Anthropic Messages', () => {
  test('text, thinking as reasoning, tool input pieces per block, "" arguments read as {}, usage with cache tokens', () => {
    const r = decode(ANTHROPIC, 'anthropic');
    expect(r.text).toBe('Calling tools.');
    expect(r.reasoning).toBe('Hmm.');
    expect(r.tools).toEqual({ 'message1.block2': '{"q": "café"}', 'message1.block3': '{}' });
    expect(r.toolCalls).toEqual([
      { key: 'message1.block2', index: 2, id: 'toolu_1', name: 'search', arguments: '{"q": "café"}', complete: true },
      { key: 'message1.block3', index: 3, id: 'toolu_2', name: 'refresh', arguments: '{}', complete: true },
    ]);
    expect(r).toMatchObject({
      provider: 'anthropic',
      model: 'claude-test',
      finishReason: 'tool_use',
      usage: { inputTokens: 15, outputTokens: 42, totalTokens: 57 },
      diagnostics: [],
      stats: { events: 20, ignoredEvents: 0 },
    });
    expect(decode(ANTHROPIC, 'auto')).toEqual(r);
  });

  test('block indexes restart at each message_start: keys carry the message number', () => {
    const message = (n: number, args: string) =>
      [
        { type: 'message_start', message: { model: 'claude-test', usage: { input_tokens: n, output_tokens: 1 } } },
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: `t${n}`, name: 'f', input: {} },
        },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: args } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'message_delta',
          delta: { stop_reason: n === 1 ? 'tool_use' : 'end_turn' },
          usage: { output_tokens: 5 },
        },
        { type: 'message_stop' },
      ]
        .map(anthropicEvent)
        .join('');
    const r = decode(message(1, '{"n":1}') + message(2, '{"n":2}'));
    expect(r.tools).toEqual({ 'message1.block0': '{"n":1}', 'message2.block0': '{"n":2}' });
    // Metadata describes the last message.
    expect(r).toMatchObject({ finishReason: 'end_turn', usage: { inputTokens: 2, outputTokens: 5, totalTokens: 7 } });
  });

  test('a message cut by a new message_start: the cut call is reported, not merged, and stays incomplete', () => {
    const start = (id: string) => [
      { type: 'message_start', message: { id, model: 'claude-test', usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name: 'f', input: {} } },
    ];
    const events = [
      ...start('first'),
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"v":"Spa' } },
      ...start('second'),
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"v":"Sparkle"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ];
    const body = events.map(anthropicEvent).join('');
    const r = decode(body);
    expect(r.toolCalls.map((c) => [c.key, c.id, c.arguments, c.complete])).toEqual([
      ['message1.block0', 'first', '{"v":"Spa', false],
      ['message2.block0', 'second', '{"v":"Sparkle"}', true],
    ]);
    expect(r.diagnostics).toEqual([
      {
        reason: 'truncated',
        ...at(body, 'event: message_start\ndata: {"type":"message_start","message":{"id":"second"'),
        excerpt: '{"v":"Spa',
        message:
          'message 1 ended without message_stop: a new message_start followed; tool call(s) cut off: message1.block0 (f) after 9 characters',
      },
    ]);
  });

  test.each([
    {
      input: 'cohere' as const,
      body: `${sse({ type: 'message-start', delta: { message: { role: 'assistant' } } })}${sse({ type: 'content-delta', index: 0, delta: { message: { content: { text: 'Hi' } } } })}${sse({ type: 'message-start', delta: { message: { role: 'assistant' } } })}`,
      second: 'data: {"type":"message-start"',
      message: 'message 1 ended without message-end: a new message-start followed',
    },
    {
      input: 'bedrock' as const,
      body: '{"messageStart":{"role":"assistant"}}\n{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hi"}}}\n{"messageStart":{"role":"assistant"}}\n',
      second: '{"messageStart"',
      message: 'message 1 ended without messageStop: a new messageStart followed',
    },
  ])(
    '$input: a message cut by a new start is reported where the new one starts',
    ({ input, body, second, message }) => {
      const r = decode(body, input);
      const where = at(body, second);
      const cut = r.diagnostics.find((d) => d.message === message);
      expect(cut).toMatchObject({ reason: 'truncated', offset: body.indexOf(second, where.offset + 1) });
    },
  );

  test('a tool input given up front (content_block_start input, message_start content) is one piece', () => {
    const r = decode(
      [
        { type: 'message_start', message: { model: 'c', content: [] } },
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'a', name: 'roll', input: { p: 1 } },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_stop' },
        {
          type: 'message_start',
          message: {
            model: 'c',
            stop_reason: 'tool_use',
            content: [{ type: 'tool_use', id: 'b', name: 'roll', input: { p: 2 } }],
          },
        },
        { type: 'message_stop' },
      ]
        .map(anthropicEvent)
        .join(''),
    );
    expect(r.tools).toEqual({ 'message1.block0': '{"p":1}', 'message2.block0': '{"p":2}' });
    expect(r.finishReason).toBe('tool_use');
  });

  test('an error event is a provider error; a stream without message_stop is truncated', () => {
    const body = `${anthropicEvent({ type: 'message_start', message: { model: 'c' } } as { type: string })}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`;
    const r = decode(body);
    expect(r.error).toEqual({ message: 'Overloaded', code: 'overloaded_error' });
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (overloaded_error): Overloaded'],
    ]);
    const cut = decode(anthropicEvent({ type: 'message_start', message: { model: 'c' } } as { type: string }));
    expect(cut.diagnostics.map((d) => d.message)).toEqual(['the stream ended before message_stop']);
  });

  test('an SSE error event whose data is not JSON is still a provider error', () => {
    const r = decode('event: error\ndata: upstream timeout\n\n', 'anthropic');
    expect(r.error).toEqual({ message: 'upstream timeout' });
  });
});

describe('Ollama NDJSON', () => {
  test('/api/chat: content, thinking, tool calls with complete arguments, done_reason and counts', () => {
    const r = decode(OLLAMA_CHAT, 'ollama');
    expect(r.text).toBe('{"a": 1}\n');
    expect(r.reasoning).toBe('Let me see.');
    expect(r.toolCalls).toEqual([
      { key: 'tool_call0', index: 0, name: 'get_time', arguments: '{"tz":"UTC"}', complete: true },
    ]);
    expect(r).toMatchObject({
      provider: 'ollama',
      model: 'llama3.2',
      finishReason: 'stop',
      usage: { inputTokens: 26, outputTokens: 12, totalTokens: 38 },
      diagnostics: [],
      stats: { events: 5 },
    });
    expect(decode(OLLAMA_CHAT, 'auto')).toEqual(r);
  });

  test('/api/generate with CRLF and no final line break', () => {
    const r = decode(OLLAMA_GENERATE);
    expect(r).toMatchObject({ provider: 'ollama', text: 'Hello, world', finishReason: 'length', diagnostics: [] });
  });

  test('a line that is not JSON is reported with its line and offset; {"error"} is a provider error', () => {
    const body = `${JSON.stringify({ model: 'm', response: 'a', done: false })}\n{"model": oops}\n{"error":"model 'x' not found"}\n`;
    const r = decode(body);
    expect(r.text).toBe('a');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.offset])).toEqual([
      ['syntax', 2, body.indexOf('{"model": oops}')],
      ['provider-error', 3, body.indexOf('{"error"')],
    ]);
    expect(r.error).toEqual({ message: "model 'x' not found" });
  });

  test('a cut last line is truncated', () => {
    const r = decode(`${JSON.stringify({ model: 'm', response: 'a', done: false })}\n{"model":"m","resp`);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['truncated', 'truncated']);
  });
});

describe('auto detection and bad input', () => {
  test('an event no format recognises is reported, naming the formats auto knows, never silently dropped', () => {
    const r = decode(sse({ kind: 'delta', text: 'Hi' }, { kind: 'delta', text: '!' }, { kind: 'end' }));
    expect(r.provider).toBeUndefined();
    expect(r.text).toBe('');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.message])).toEqual([
      [
        'unrecognized',
        1,
        'event of an unknown format; auto recognises OpenAI chat completions, OpenAI Responses, Anthropic Messages, Ollama, Google Gemini, Cohere v2 chat, AI SDK fullStream, AG-UI and Amazon Bedrock ConverseStream streams; ignored',
      ],
      ['unrecognized', 7, '2 more event(s) of an unrecognised shape were ignored'],
    ]);
    expect(r.stats).toEqual({ events: 3, ignoredEvents: 3, diagnostics: { unrecognized: 2 } });
  });

  test('an event of another format under a fixed input is reported', () => {
    const r = decode(ANTHROPIC, 'openai');
    expect(r.text).toBe('');
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['unrecognized', 'unrecognized', 'truncated']);
    expect(r.diagnostics[0]?.message).toBe('not an event of the openai stream format; ignored');
  });

  test('a body that is not SSE reports each line as prose', () => {
    const r = decode('<html>\n<body>Bad gateway</body>\n</html>\n');
    expect(brief(r)).toEqual([
      ['prose', 1],
      ['prose', 2],
      ['prose', 3],
      ['truncated', 4],
    ]);
    expect(r.diagnostics[3]?.message).toBe('the input holds no provider event');
  });

  test('an empty body', () => {
    expect(brief(decode(''))).toEqual([['truncated', 1]]);
    expect(decode('', 'openai').diagnostics[0]?.message).toBe('the stream ended before a finish_reason or [DONE]');
  });

  test('JSON that is not an object is reported', () => {
    const r = decode(sse('[1,2]', chunk({ content: 'ok' }, 'stop')));
    expect(r.text).toBe('ok');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['unrecognized', 'event data is JSON but not an object; ignored'],
    ]);
  });

  test('a byte-order mark at the start is dropped', () => {
    expect(decode(`\uFEFF${sse(chunk({ content: 'a' }, 'stop'))}`)).toMatchObject({ text: 'a', diagnostics: [] });
  });

  test('a line longer than maxEventLength is discarded and reported; the stream goes on', () => {
    const long = chunk({ content: 'x'.repeat(200) });
    const body = sse(chunk({ content: 'a' }), long, chunk({ content: 'b' }, 'stop'));
    const r = decode(body, 'openai', 150);
    expect(r.text).toBe('ab');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.offset])).toEqual([
      ['too-long', 3, body.indexOf('data: {', 10)],
    ]);
    // Each line fits, the event's data (the lines joined) does not.
    const multiLine = `data: {"choices":[{"index":0,"delta":{"content":"${'y'.repeat(90)}\ndata: ${'y'.repeat(90)}"}}]}\n\n${sse(chunk({ content: 'c' }, 'stop'))}`;
    const m = decode(multiLine, 'openai', 180);
    expect(m.text).toBe('c');
    expect(m.diagnostics[0]).toMatchObject({ reason: 'too-long', line: 1, offset: 0 });
  });

  test('invalid options throw ConfigurationError', () => {
    const sink = { text() {}, diagnostic() {} };
    expect(() => createProviderDecoder({ input: 'palm' as ProviderInput }, sink)).toThrow(ConfigurationError);
    expect(() => createProviderDecoder({ input: 'auto', maxEventLength: 0 }, sink)).toThrow(ConfigurationError);
  });

  test('metadata is delivered when it changes, at most once per event', () => {
    const r = decode(CHAT_TOOLS);
    expect(r.metadata).toEqual([
      { provider: 'openai', model: 'gpt-test' },
      {
        provider: 'openai',
        model: 'gpt-test',
        finishReason: 'tool_calls',
        usage: { inputTokens: 20, outputTokens: 10, totalTokens: 30 },
      },
    ]);
  });
});

describe('too-long events are dropped whole, once', () => {
  const LIMIT = 200;
  /**
   * Chat chunk data whose content is `text`, written over `lines` data lines (split between
   * tokens), the content early so that lines follow the one where the data stops fitting.
   */
  const multiLineEvent = (text: string, lines: number, name?: string): string => {
    const parts = [
      '{"choices":[{"delta":',
      `{"content":${JSON.stringify(text)}},`,
      '"index":0,',
      '"finish_reason":null}]}',
    ];
    const grouped: string[] = [];
    const per = Math.ceil(parts.length / lines);
    for (let i = 0; i < parts.length; i += per) grouped.push(parts.slice(i, i + per).join(''));
    return `${name === undefined ? '' : `event: ${name}\n`}${grouped.map((g) => `data: ${g}`).join('\n')}\n\n`;
  };
  const done = `${sse(chunk({ content: '' }, 'stop'))}data: [DONE]\n\n`;

  /** The one too-long diagnostic: where the event starts, with a short excerpt quoted from there. */
  const expectOneTooLong = (r: Run, body: string, start: string): void => {
    const tooLong = r.diagnostics.filter((d) => d.reason === 'too-long');
    expect(tooLong).toHaveLength(1);
    const [d] = tooLong;
    expect(d).toMatchObject(at(body, start));
    expect(d?.excerpt.length).toBeLessThanOrEqual(200);
    expect(body.startsWith(d?.excerpt.replace(/…$/, '') ?? '', d?.offset)).toBe(true);
    expect(d?.excerpt).not.toBe('');
  };

  test('data lines that fit one by one but not joined: no piece of the event becomes text', () => {
    // Four data lines, the longest of 181 characters: every line fits, the data joined (232) does
    // not, and it stops fitting at the third line, so a fourth line follows.
    const big = multiLineEvent('z'.repeat(160), 4);
    const body = `${multiLineEvent('a', 4)}${big}${multiLineEvent('b', 2)}${done}`;
    const r = decode(body, 'openai', LIMIT);
    expect(r.text).toBe('ab');
    expectOneTooLong(r, body, big);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['too-long']);
    expect(r.diagnostics[0]?.message).toMatch(/SSE event longer than maxEventLength \(200 characters\)/);
  });

  test('a line too long in the middle of an event drops the lines before and after it', () => {
    const big = `event: delta\ndata: {"choices":[{"index":0,\ndata: "delta":{"content":"${'q'.repeat(300)}"}}]}\ndata: \n\n`;
    const body = `${sse(chunk({ content: 'a' }))}${big}${sse(chunk({ content: 'b' }))}${done}`;
    const r = decode(body, 'openai', LIMIT);
    expect(r.text).toBe('ab');
    expectOneTooLong(r, body, big);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]?.excerpt).toMatch(/^event: delta\ndata: /);
  });

  test('a too-long event at the end of the body, unterminated, is reported once', () => {
    const big = multiLineEvent('w'.repeat(300), 3).trimEnd();
    const body = `${sse(chunk({ content: 'a' }))}${big}`;
    const r = decode(body, 'openai', LIMIT);
    expect(r.text).toBe('a');
    expectOneTooLong(r, body, big);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['too-long', 'truncated']);
  });

  test('a too-long first line decides the framing as a whole line would (auto)', () => {
    const sseBody = `${multiLineEvent('v'.repeat(300), 1)}${sse(chunk({ content: 'a' }, 'stop'))}`;
    const s = decode(sseBody, 'auto', LIMIT);
    expect(s).toMatchObject({ text: 'a', provider: 'openai' });
    expect(s.diagnostics.map((d) => [d.reason, d.line, d.offset])).toEqual([['too-long', 1, 0]]);
    const ndjson = `${JSON.stringify({ model: 'm', response: 'v'.repeat(300), done: false })}\n${JSON.stringify({ model: 'm', response: 'a', done: true })}\n`;
    const n = decode(ndjson, 'auto', LIMIT);
    expect(n).toMatchObject({ text: 'a', provider: 'ollama' });
    expect(n.diagnostics.map((d) => [d.reason, d.line, d.offset])).toEqual([['too-long', 1, 0]]);
  });

  const ollamaLine = (response: string, done = false) => `${JSON.stringify({ model: 'llama3.2', response, done })}\r\n`;
  const ollamaBig = ollamaLine('u'.repeat(500));
  const ollamaBody = `${ollamaLine('a')}${ollamaBig}${ollamaLine('b')}${ollamaLine('', true)}`;

  test('NDJSON (Ollama): a line longer than the limit is dropped whole with one diagnostic', () => {
    const [big, body] = [ollamaBig, ollamaBody];
    const r = decode(body, 'ollama', LIMIT);
    expect(r.text).toBe('ab');
    expectOneTooLong(r, body, big);
    expect(r.diagnostics[0]?.message).toMatch(`line of ${big.length - 2} characters is longer than maxEventLength`);
    expect(r.diagnostics).toHaveLength(1);
  });

  const eventArb = fc.record({
    // Lengths spread evenly up to past the limit, so that events that fit and events that do not mix.
    text: fc
      .tuple(fc.string({ unit: fc.constantFrom('a', 'é', '😀', '"', ' '), maxLength: 10 }), fc.nat(170))
      .map(([s, n]) => s + 'a'.repeat(n)),
    lines: fc.integer({ min: 1, max: 4 }),
    name: fc.option(fc.constant('delta'), { nil: undefined }),
  });
  fcTest.prop([fc.array(eventArb, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 64 })], { numRuns })(
    'arbitrary events and splits: the answer is the events that fit, one diagnostic per other',
    (events, positions) => {
      const bodies = events.map((e) => multiLineEvent(e.text, e.lines, e.name));
      const body = bodies.join('') + done;
      // The oracle: an event fits when each of its lines and its data joined fit.
      const fits = bodies.map((b) => {
        const lines = b.split('\n').filter((l) => l !== '');
        const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
        return lines.every((l) => l.length <= LIMIT) && data.join('\n').length <= LIMIT;
      });
      const whole = run([body], 'openai', LIMIT);
      expect(whole.text).toBe(
        events
          .filter((_, i) => fits[i])
          .map((e) => e.text)
          .join(''),
      );
      expect(whole.diagnostics.map((d) => [d.reason, d.offset])).toEqual(
        bodies.flatMap((b, i) => (fits[i] ? [] : [['too-long', body.indexOf(b)]])),
      );
      const points = positions.map((p) => p % (body.length + 1));
      expect(run(splitAt(body, points), 'openai', LIMIT)).toEqual(whole);
    },
  );

  const ndjsonWhole = run([ollamaBody], 'auto', LIMIT);
  fcTest.prop([splitPoints(ollamaBody.length)], { numRuns })('NDJSON under arbitrary splits', (points) => {
    expect(run(splitAt(ollamaBody, points), 'auto', LIMIT)).toEqual(ndjsonWhole);
  });

  test('memory stays bounded: once an event is too long, its text is counted, not kept', () => {
    const reported: [string, number][] = [];
    let text = '';
    const decoder = createProviderDecoder(
      { input: 'openai', maxEventLength: 1000 },
      { text: (delta) => (text += delta), diagnostic: (d) => reported.push([d.reason, d.offset]) },
    );
    /** The longest string the decoder holds in its own fields (its line and event buffers). */
    const longestHeld = () =>
      Math.max(...Object.values(decoder).map((v: unknown) => (typeof v === 'string' ? v.length : 0)));
    // 200 data lines of 996 characters each (each fits, the second overflows the event), then one
    // line of 200 006, written in 7-character chunks.
    const lines = `data: ${'x'.repeat(990)}\n`.repeat(200);
    const body = `${lines}data: ${'y'.repeat(200_000)}`;
    for (let i = 0; i < body.length; i += 7) {
      decoder.write(body.slice(i, i + 7));
      if (i % 7007 === 0) expect(longestHeld()).toBeLessThanOrEqual(1000);
    }
    decoder.write('\n\ndata: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n');
    decoder.end();
    expect(reported).toEqual([['too-long', 0]]);
    expect(text).toBe('ok');
  });
});

describe('chunking does not matter (arbitrary split points)', () => {
  const bodies: [string, string][] = [
    ['chat CRLF', CHAT_CRLF],
    ['chat tools', CHAT_TOOLS],
    ['responses', RESPONSES],
    ['anthropic', ANTHROPIC],
    ['ollama chat', OLLAMA_CHAT],
    ['ollama generate', OLLAMA_GENERATE],
    ['chat CR only', CHAT_CRLF.replaceAll('\r\n', '\r')],
  ];
  for (const [name, body] of bodies) {
    const whole = run([body], 'auto');
    fcTest.prop([splitPoints(body.length)], { numRuns })(name, (points) => {
      expect(run(splitAt(body, points), 'auto')).toEqual(whole);
    });
  }
});

describe('tool-call arguments: maxArgumentsLength and keepToolArguments', () => {
  /** Every sink call in order, and the decoder's calls, for `body` under `options`, at every chunk size. */
  function decodeWith(body: string, options: { maxArgumentsLength?: number; keepToolArguments?: boolean }) {
    const once = (chunks: readonly string[]) => {
      const calls: unknown[][] = [];
      const decoder = createProviderDecoder(
        { input: 'auto', ...options },
        {
          text: (t) => calls.push(['text', t]),
          diagnostic: (d) => calls.push(['diagnostic', d]),
          toolArguments: (key, delta, info) => calls.push(['toolArguments', key, delta, info]),
          toolCallDropped: (key, info) => calls.push(['toolCallDropped', key, info]),
        },
      );
      for (const c of chunks) decoder.write(c);
      decoder.end();
      return { calls, toolCalls: decoder.toolCalls, complete: decoder.complete };
    };
    const whole = once([body]);
    for (const [label, chunks] of everyChunkSize(body, 32)) expect(once(chunks), label).toEqual(whole);
    return whole;
  }

  // Anthropic: a call's pieces, a second call, text after both.
  const block = (index: number, name: string) => ({
    type: 'content_block_start',
    index,
    content_block: { type: 'tool_use', id: `toolu_${index}`, name, input: {} },
  });
  const piece = (index: number, partial_json: string) => ({
    type: 'content_block_delta',
    index,
    delta: { type: 'input_json_delta', partial_json },
  });
  const ANTHROPIC = sse(
    { type: 'message_start', message: { id: 'm', model: 'claude', usage: { input_tokens: 1 } } },
    block(0, 'big'),
    piece(0, '{"q":"'),
    ...Array.from({ length: 6 }, () => piece(0, 'abcdefghij')),
    piece(0, '"}'),
    { type: 'content_block_stop', index: 0 },
    block(1, 'small'),
    piece(1, '{"n":1}'),
    { type: 'content_block_stop', index: 1 },
    { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'done' } },
    { type: 'content_block_stop', index: 2 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
    { type: 'message_stop' },
  );

  test('past maxArgumentsLength: one too-long diagnostic naming the call, then toolCallDropped; later calls and text go on', () => {
    const r = decodeWith(ANTHROPIC, { maxArgumentsLength: 40 });
    const diagnostics = r.calls.filter((c) => c[0] === 'diagnostic').map((c) => c[1] as Diagnostic);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ reason: 'too-long', toolCall: { index: 0, id: 'toolu_0', name: 'big' } });
    expect(diagnostics[0]?.message).toBe(
      'tool call 0 (big): its arguments are longer than maxArgumentsLength (40 characters); the call is dropped',
    );
    const dropAt = r.calls.findIndex((c) => c[0] === 'toolCallDropped');
    expect(r.calls[dropAt - 1]?.[0]).toBe('diagnostic');
    // No piece of the dropped call after the drop; what was delivered before stayed under the cap.
    const pieces = r.calls.filter((c) => c[0] === 'toolArguments' && c[1] === 'message1.block0').map((c) => c[2]);
    expect(pieces.join('')).toBe(`{"q":"${'abcdefghij'.repeat(3)}`);
    expect(r.calls.slice(dropAt).some((c) => c[0] === 'toolArguments' && c[1] === 'message1.block0')).toBe(false);
    expect(r.toolCalls).toEqual([
      { key: 'message1.block1', index: 1, id: 'toolu_1', name: 'small', arguments: '{"n":1}', complete: true },
    ]);
    expect(r.calls.filter((c) => c[0] === 'text')).toEqual([['text', 'done']]);
    expect(r.complete).toBe(true);
  });

  test('a dropped call left open at the end is not reported again as cut off', () => {
    const body = sse(
      chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: `{"x":"${'y'.repeat(30)}` } }] }),
    );
    const r = decodeWith(body, { maxArgumentsLength: 10 });
    const reasons = r.calls.filter((c) => c[0] === 'diagnostic').map((c) => (c[1] as Diagnostic).reason);
    expect(reasons).toEqual(['too-long', 'truncated']);
    const truncated = r.calls.filter((c) => c[0] === 'diagnostic').map((c) => c[1] as Diagnostic)[1];
    expect(truncated?.message).toBe('the stream ended before a finish_reason or [DONE]');
    expect(r.toolCalls).toEqual([]);
  });

  test('keepToolArguments: false keeps no argument text, but still delivers the pieces and closes calls as {}', () => {
    const kept = decodeWith(ANTHROPIC, {});
    const bare = decodeWith(ANTHROPIC, { keepToolArguments: false });
    expect(bare.calls).toEqual(kept.calls);
    expect(kept.toolCalls.map((c) => c.arguments)).toEqual([`{"q":"${'abcdefghij'.repeat(6)}"}`, '{"n":1}']);
    expect(bare.toolCalls.map((c) => c.arguments)).toEqual(['', '']);
    const empty = sse(
      chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'ping', arguments: '' } }] }),
      chunk({}, 'tool_calls'),
    );
    expect(decodeWith(empty, { keepToolArguments: false }).calls).toEqual(decodeWith(empty, {}).calls);
  });

  test('bad values are configuration errors', () => {
    const sink = { text() {}, diagnostic() {} };
    for (const maxArgumentsLength of [0, -1, 1.5, Number.NaN]) {
      expect(() => createProviderDecoder({ input: 'auto', maxArgumentsLength }, sink)).toThrow(ConfigurationError);
    }
    expect(() => createProviderDecoder({ input: 'auto', keepToolArguments: 'no' as never }, sink)).toThrow(
      ConfigurationError,
    );
  });
});
