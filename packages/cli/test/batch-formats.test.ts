/**
 * Field paths (field-path.ts) and the record formats of `llmjson batch` (batch-formats.ts): every
 * path form and its refusals, each format's lifting of one record, detection from a first record,
 * and hostile records (`__proto__` keys, huge and deep values, fields of the wrong type), which
 * must come out as a record or a problem, never a crash or a polluted prototype.
 */

import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';
import {
  bfclModel,
  detectFormat,
  type FieldPaths,
  type LiftOptions,
  liftRecord,
  parseFieldPaths,
} from '../src/batch-formats.js';
import { BATCH_FORMATS, type BatchFormat } from '../src/batch-types.js';
import { UsageError } from '../src/exit-codes.js';
import { parseFieldPath, valueAt } from '../src/field-path.js';

describe('parseFieldPath', () => {
  test('a dotted path: one segment per name, digits kept as text', () => {
    expect(parseFieldPath('--text-field', 'response.body.choices.0.message.content')).toEqual([
      'response',
      'body',
      'choices',
      '0',
      'message',
      'content',
    ]);
    expect(parseFieldPath('--text-field', 'text')).toEqual(['text']);
    expect(parseFieldPath('--id-field', '__proto__')).toEqual(['__proto__']);
  });

  test('a JSON Pointer: ~1 is "/", ~0 is "~", in that order, and empty segments are keys', () => {
    expect(parseFieldPath('--text-field', '/response/body/choices/0/message/content')).toEqual([
      'response',
      'body',
      'choices',
      '0',
      'message',
      'content',
    ]);
    expect(parseFieldPath('--text-field', '/a~1b/c~0d/~01')).toEqual(['a/b', 'c~d', '~1']);
    expect(parseFieldPath('--text-field', '/a.b')).toEqual(['a.b']);
    expect(parseFieldPath('--text-field', '/')).toEqual(['']);
    expect(parseFieldPath('--text-field', '/a//b')).toEqual(['a', '', 'b']);
  });

  test.each([
    ['', /--model-field: the field path is empty: write a dotted path such as .* or a JSON Pointer such as \//],
    ['a..b', /--model-field: "a\.\.b" has an empty segment .*JSON Pointer/],
    ['.a', /empty segment/],
    ['a.', /empty segment/],
    ['/a~2b', /--model-field: "\/a~2b" is not a valid JSON Pointer: "~" must be followed by 0 .* or 1/],
    ['/a~', /not a valid JSON Pointer/],
  ])('%j is refused with a usage error naming the flag and what to write', (path, message) => {
    let thrown: unknown;
    try {
      parseFieldPath('--model-field', path);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toMatch(message);
  });
});

describe('valueAt', () => {
  const record = JSON.parse(
    '{"response":{"body":{"choices":[{"message":{"content":"hi"}}],"a.b":1,"":2}},"__proto__":{"x":"own"},"list":[10,20]}',
  ) as unknown;

  test('objects by key, arrays by canonical index, whatever is missing is undefined', () => {
    expect(valueAt(record, parseFieldPath('f', 'response.body.choices.0.message.content'))).toBe('hi');
    expect(valueAt(record, parseFieldPath('f', '/response/body/choices/0/message/content'))).toBe('hi');
    expect(valueAt(record, parseFieldPath('f', '/response/body/a.b'))).toBe(1);
    expect(valueAt(record, parseFieldPath('f', '/response/body/'))).toBe(2);
    expect(valueAt(record, ['list', '1'])).toBe(20);
    expect(valueAt(record, ['list', '2'])).toBeUndefined();
    expect(valueAt(record, ['list', '01'])).toBeUndefined();
    expect(valueAt(record, ['list', '-'])).toBeUndefined();
    expect(valueAt(record, ['list', 'length'])).toBeUndefined();
    expect(valueAt(record, ['response', 'body', 'choices', '0', 'message', 'content', 'length'])).toBeUndefined();
    expect(valueAt(record, ['missing', 'deeper'])).toBeUndefined();
    expect(valueAt(null, ['a'])).toBeUndefined();
    expect(valueAt('text', [])).toBe('text');
  });

  test('own properties only: a record\'s own "__proto__" key is read, the prototype chain never', () => {
    expect(valueAt(record, ['__proto__', 'x'])).toBe('own');
    expect(valueAt({}, ['__proto__'])).toBeUndefined();
    expect(valueAt({}, ['constructor'])).toBeUndefined();
    expect(valueAt({}, ['toString'])).toBeUndefined();
    expect(valueAt([], ['constructor'])).toBeUndefined();
    expect(valueAt(Object.create({ inherited: 1 }), ['inherited'])).toBeUndefined();
  });

  fcTest.prop(
    [
      fc.anything({ withNullPrototype: true, withObjectString: true, withBoxedValues: true, maxDepth: 4 }),
      fc.array(
        fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'length', '0', '1')),
        {
          maxLength: 6,
        },
      ),
    ],
    { numRuns },
  )('for any value and any path: never throws, never reads an inherited property', (value, path) => {
    const found = valueAt(value, path);
    // The same walk by hand, over own properties only.
    let expected: unknown = value;
    for (const segment of path) {
      if (typeof expected !== 'object' || expected === null) {
        expected = undefined;
        break;
      }
      if (Array.isArray(expected) && !/^(?:0|[1-9][0-9]*)$/.test(segment)) {
        expected = undefined;
        break;
      }
      expected = Object.hasOwn(expected, segment) ? (expected as Record<string, unknown>)[segment] : undefined;
    }
    expect(found).toBe(expected);
  });

  fcTest.prop([fc.string(), fc.string({ minLength: 1 })], { numRuns })(
    'a JSON Pointer written from any keys parses back to those keys',
    (a, b) => {
      const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
      expect(parseFieldPath('--text-field', `/${pointerKey(a)}/${pointerKey(b)}`)).toEqual([a, b]);
    },
  );
});

const SOURCE = { file: '/runs/out/meta-llama__Llama-3.1-8B/samples_json_2025-01-01T00-00-00.jsonl', line: 7 };

/** The lifted fields of a record, or the problem's message. */
function lift(format: BatchFormat, record: unknown, options: LiftOptions = {}, source = SOURCE) {
  const lifted = liftRecord(format, record as Record<string, unknown>, source, options);
  return 'record' in lifted ? lifted.record : lifted.problem;
}

const paths = (given: FieldPaths) => ({ paths: parseFieldPaths(given) });

const chat = (content: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'batch_req_1',
  custom_id: 'task-1',
  response: {
    status_code: 200,
    request_id: 'req_1',
    body: {
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content, ...extra }, finish_reason: 'stop' }],
    },
  },
  error: null,
});

describe('openai-batch', () => {
  test('a chat completion: custom_id, the body model, the message content and finish reason', () => {
    expect(lift('openai-batch', chat('{"a":1}'))).toEqual({
      id: 'task-1',
      model: 'gpt-4o-mini',
      text: '{"a":1}',
      finishReason: 'stop',
    });
  });

  test("a tool-call answer: the first call's arguments when the content is null", () => {
    const record = chat(null, {
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":2}' } },
        { id: 'c2', type: 'function', function: { name: 'g', arguments: '{"y":3}' } },
      ],
    });
    expect(lift('openai-batch', record)).toMatchObject({ text: '{"x":2}' });
  });

  test('content as a list of parts (OpenAI-compatible servers): the text parts joined', () => {
    expect(
      lift(
        'openai-batch',
        chat([
          { type: 'text', text: '{"a":' },
          { type: 'text', text: '1}' },
        ]),
      ),
    ).toMatchObject({
      text: '{"a":1}',
    });
  });

  test('an error line, a status of 400 or more, a body error: provider errors with the message', () => {
    expect(
      lift('openai-batch', {
        id: 'b',
        custom_id: 'task-2',
        response: null,
        error: {
          code: 'batch_expired',
          message: 'This request could not be executed before the completion window expired.',
        },
      }),
    ).toEqual({
      id: 'task-2',
      model: 'unknown',
      text: '',
      providerError: 'batch_expired: This request could not be executed before the completion window expired.',
    });
    expect(
      lift('openai-batch', {
        custom_id: 'task-3',
        response: { status_code: 500, body: { error: { message: 'The server had an error', type: 'server_error' } } },
        error: null,
      }),
    ).toMatchObject({ id: 'task-3', providerError: 'HTTP status 500: server_error: The server had an error' });
    expect(
      lift('openai-batch', {
        custom_id: 'task-4',
        response: { status_code: 200, body: { error: 'overloaded' } },
        error: null,
      }),
    ).toMatchObject({ providerError: 'overloaded' });
    // Together's error file: a custom_id and an error, no response.
    expect(lift('openai-batch', { custom_id: 'task-5', error: { message: 'Invalid model' } })).toMatchObject({
      providerError: 'Invalid model',
    });
  });

  test('a Responses API body: output_text parts; incomplete gives the reason as finish reason', () => {
    const body = {
      id: 'resp_1',
      object: 'response',
      model: 'gpt-4.1',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [
        { type: 'reasoning', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '{"a": [1, 2' }] },
      ],
    };
    expect(lift('openai-batch', { custom_id: 'r1', response: { status_code: 200, body }, error: null })).toEqual({
      id: 'r1',
      model: 'gpt-4.1',
      text: '{"a": [1, 2',
      finishReason: 'max_output_tokens',
    });
    const call = { ...body, status: 'completed', output: [{ type: 'function_call', name: 'f', arguments: '{"z":1}' }] };
    expect(lift('openai-batch', { custom_id: 'r2', response: { status_code: 200, body: call }, error: null })).toEqual({
      id: 'r2',
      model: 'gpt-4.1',
      text: '{"z":1}',
    });
    const failed = { ...body, status: 'failed', error: { code: 'server_error', message: 'boom' }, output: [] };
    expect(
      lift('openai-batch', { custom_id: 'r3', response: { status_code: 200, body: failed }, error: null }),
    ).toMatchObject({
      providerError: 'server_error: boom',
    });
  });

  test('the Completions endpoint: choices[0].text', () => {
    expect(
      lift('openai-batch', {
        custom_id: 'c',
        response: { status_code: 200, body: { model: 'm', choices: [{ text: '{}', finish_reason: 'length' }] } },
      }),
    ).toEqual({ id: 'c', model: 'm', text: '{}', finishReason: 'length' });
  });

  test('fields of the wrong type are problems naming the format and the field', () => {
    expect(lift('openai-batch', chat(42))).toBe(
      'does not fit --format openai-batch: response.body.choices[0].message.content is a number, not a string',
    );
    expect(lift('openai-batch', { custom_id: 'x', response: { status_code: 200, body: { choices: {} } } })).toMatch(
      /choices is an object, not a list/,
    );
    expect(lift('openai-batch', { custom_id: 'x', response: null, error: null })).toMatch(
      /"response" and "error" are both null/,
    );
    expect(lift('openai-batch', { custom_id: 'x' })).toMatch(/neither "response" nor "error"/);
  });
});

const anthropic = (result: unknown) => ({ custom_id: 'q-1', result });

describe('anthropic-batch', () => {
  test('succeeded: text blocks joined, the model and stop reason', () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: '{"a":' },
        { type: 'text', text: '1}' },
      ],
      stop_reason: 'end_turn',
    };
    expect(lift('anthropic-batch', anthropic({ type: 'succeeded', message }))).toEqual({
      id: 'q-1',
      model: 'claude-sonnet-4-5',
      text: '{"a":1}',
      finishReason: 'end_turn',
    });
  });

  test('a tool_use answer without text: its input as JSON text', () => {
    const message = {
      model: 'm',
      content: [{ type: 'tool_use', id: 't', name: 'f', input: { b: [1] } }],
      stop_reason: 'tool_use',
    };
    expect(lift('anthropic-batch', anthropic({ type: 'succeeded', message }))).toMatchObject({ text: '{"b":[1]}' });
  });

  test("errored (with the API's nested error), canceled and expired are provider errors", () => {
    expect(
      lift(
        'anthropic-batch',
        anthropic({
          type: 'errored',
          error: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large' } },
        }),
      ),
    ).toEqual({
      id: 'q-1',
      model: 'unknown',
      text: '',
      providerError: 'errored: invalid_request_error: max_tokens: too large',
    });
    expect(lift('anthropic-batch', anthropic({ type: 'canceled' }))).toMatchObject({
      providerError: expect.stringMatching(/^canceled/),
    });
    expect(lift('anthropic-batch', anthropic({ type: 'expired' }))).toMatchObject({
      providerError: expect.stringMatching(/^expired/),
    });
  });

  test('an unknown result type or content of the wrong type is a problem', () => {
    expect(lift('anthropic-batch', anthropic({ type: 'pending' }))).toMatch(/result\.type is "pending", not succeeded/);
    expect(lift('anthropic-batch', anthropic({ type: 'succeeded', message: { content: 'x' } }))).toMatch(
      /result\.message\.content is a string, not a list/,
    );
    expect(lift('anthropic-batch', { custom_id: 'x' })).toMatch(/no "result" with a "type"/);
  });
});

describe('lm-eval', () => {
  const sample = (filtered: unknown, resps: unknown = [['raw']]) => ({
    doc_id: 3,
    doc: { question: 'q', json_schema: { type: 'object' } },
    target: '',
    arguments: { gen_args_0: { arg_0: 'prompt', arg_1: { until: ['\n\n'] } } },
    resps,
    filtered_resps: filtered,
    filter: 'none',
    metrics: ['exact_match'],
  });

  test('filtered_resps[0] (a string or a one-element list), else resps[0][0]; the model is the directory', () => {
    expect(lift('lm-eval', sample(['{"a":1}']))).toEqual({
      id: '3',
      model: 'meta-llama__Llama-3.1-8B',
      text: '{"a":1}',
    });
    expect(lift('lm-eval', sample([['{"b":1}']]))).toMatchObject({ text: '{"b":1}' });
    expect(lift('lm-eval', sample(undefined, [['{"c":1}']]))).toMatchObject({ text: '{"c":1}' });
    expect(lift('lm-eval', sample([]))).toMatchObject({ text: 'raw' });
  });

  test("--schema-field doc.json_schema takes the sample's schema; --model-field overrides the directory", () => {
    expect(
      lift('lm-eval', { ...sample(['x']), model: 'named' }, paths({ schema: 'doc.json_schema', model: 'model' })),
    ).toEqual({
      id: '3',
      model: 'named',
      text: 'x',
      schema: { type: 'object' },
    });
  });

  test('a loglikelihood sample has no text: a problem that says so', () => {
    expect(lift('lm-eval', sample([[-1.5, false]], [[[-1.5, false]]]))).toMatch(/hold no generated text/);
  });
});

describe('bfcl', () => {
  const file = (dir: string) => ({ file: `/bfcl/result/${dir}/BFCL_v3_simple_result.json`, line: 1 });

  test('a string result as it is, a list or object as its JSON text; the model is the result folder', () => {
    expect(lift('bfcl', { id: 'simple_0', result: '[f(a=1)]', latency: 1.2 }, {}, file('gpt-4o-2024-11-20'))).toEqual({
      id: 'simple_0',
      model: 'gpt-4o-2024-11-20',
      text: '[f(a=1)]',
    });
    expect(lift('bfcl', { id: 'simple_1', result: [{ f: '{"a":1}' }] }, {}, file('m'))).toMatchObject({
      text: '[{"f":"{\\"a\\":1}"}]',
    });
    expect(lift('bfcl', { id: 'simple_2', result: { a: 1 } }, {}, file('m'))).toMatchObject({ text: '{"a":1}' });
  });

  test("BFCL's own error entry is a provider error", () => {
    expect(
      lift(
        'bfcl',
        { id: 'simple_3', result: 'Error during inference: rate limited', traceback: 'Traceback…' },
        {},
        file('m'),
      ),
    ).toMatchObject({ providerError: 'rate limited', text: '' });
  });

  test("v4's group folders are skipped to find the model folder", () => {
    expect(bfclModel('/r/result/Qwen_Qwen3-8B-FC/non_live/BFCL_v4_simple_python_result.json')).toBe('Qwen_Qwen3-8B-FC');
    expect(bfclModel('/r/result/Qwen_Qwen3-8B-FC/agentic/memory/kv/BFCL_v4_memory_kv_result.json')).toBe(
      'Qwen_Qwen3-8B-FC',
    );
    expect(bfclModel('/r/result/gpt-4o/BFCL_v3_simple_result.json')).toBe('gpt-4o');
  });
});

describe('records', () => {
  test('text, else output; id; model; finish_reason, else stop_reason; a missing id is file:line', () => {
    expect(lift('records', { id: 7, model: 'm', text: 't', finish_reason: 'length' })).toEqual({
      id: '7',
      model: 'm',
      text: 't',
      finishReason: 'length',
    });
    expect(lift('records', { output: 'o', stop_reason: 'end_turn' })).toEqual({
      id: 'samples_json_2025-01-01T00-00-00.jsonl:7',
      model: 'unknown',
      text: 'o',
      finishReason: 'end_turn',
    });
    expect(lift('records', { text: 5 })).toBe('the text field is a number, not a string');
  });

  test('--schema-field: an object, a boolean, a JSON string or a name, as found; nothing there: no schema', () => {
    const options = paths({ schema: 'schema' });
    for (const schema of [{ type: 'string' }, true, '{"type":"string"}', 'kg.definition.v1']) {
      expect(lift('records', { text: '"x"', schema }, options)).toMatchObject({ schema });
    }
    expect(lift('records', { text: '"x"' }, options)).not.toHaveProperty('schema');
    expect(lift('records', { text: '"x"', schema: null }, options)).not.toHaveProperty('schema');
  });
});

describe("field paths override the format's own places", () => {
  test('every flag, dotted and as a JSON Pointer', () => {
    const record = {
      meta: { 'run.id': 'r9', who: 'mine', why: 'length' },
      out: [{ t: '{"a":1}' }],
      s: { type: 'object' },
    };
    expect(
      lift(
        'records',
        record,
        paths({ text: 'out.0.t', id: '/meta/run.id', model: 'meta.who', finish: '/meta/why', schema: 's' }),
      ),
    ).toEqual({ id: 'r9', model: 'mine', text: '{"a":1}', finishReason: 'length', schema: { type: 'object' } });
  });

  test('--text-field stands in for a format text that is missing or of the wrong type; the envelope still counts', () => {
    const record = chat(42, { reasoning: '{"r":1}' });
    expect(lift('openai-batch', record, paths({ text: 'response.body.choices.0.message.reasoning' }))).toMatchObject({
      text: '{"r":1}',
      id: 'task-1',
    });
    expect(lift('openai-batch', { custom_id: 'x', text: 't' }, paths({ text: 'text' }))).toMatch(
      /neither "response" nor "error"/,
    );
  });

  test('a --text-field value that is not a string is a problem naming the flag and path', () => {
    expect(lift('records', { a: { b: [1] } }, paths({ text: 'a.b' }))).toBe(
      '--text-field a.b is a list in this record, not a string',
    );
  });
});

describe('detection', () => {
  test.each([
    [chat('x'), 'openai-batch'],
    [{ custom_id: 'x', error: { message: 'm' } }, 'openai-batch'],
    [anthropic({ type: 'expired' }), 'anthropic-batch'],
    [{ doc_id: 0, doc: {}, resps: [['x']], filtered_resps: ['x'] }, 'lm-eval'],
    [{ id: 'simple_0', result: 'x' }, 'bfcl'],
    [{ id: 'a', text: 'x' }, 'records'],
    [{ id: 'a', result: 'x', text: 'y' }, 'records'],
    [{}, 'records'],
    [JSON.parse('{"__proto__": {"custom_id": 1, "response": {}}}'), 'records'],
  ])('%j is %s', (record, format) => {
    expect(detectFormat(record as Record<string, unknown>)).toBe(format);
  });

  test("a detected file's record of another format is a problem naming both, not a wrong text", () => {
    expect(lift('openai-batch', anthropic({ type: 'succeeded', message: { content: [] } }), { detected: true })).toBe(
      "does not fit the openai-batch format detected from the file's first record: it looks like anthropic-batch instead (give --format, or split the file by format)",
    );
    expect(lift('records', { id: 'simple_0', result: 'x' }, { detected: true })).toMatch(
      /records format detected .*: it has no "text" nor "output", and looks like bfcl instead/,
    );
    expect(lift('lm-eval', { id: 'x', text: 'y' }, { detected: true })).toMatch(
      /lm-eval format detected .*no "doc_id"/,
    );
    // Given with --format, a records file is read as told.
    expect(lift('records', { id: 'simple_0', result: 'x' })).toMatchObject({ text: '' });
  });
});

describe('hostile records', () => {
  test('"__proto__" keys are data: never read through, never polluting', () => {
    const record = JSON.parse(
      '{"custom_id": "h", "response": {"status_code": 200, "body": {"__proto__": {"model": "evil"}, "choices": [{"message": {"__proto__": {"content": "evil"}, "content": "ok"}}]}}, "error": null}',
    );
    expect(lift('openai-batch', record)).toEqual({ id: 'h', model: 'unknown', text: 'ok' });
    expect(lift('records', JSON.parse('{"__proto__": {"text": "evil"}}'))).toMatchObject({ text: '' });
    expect(({} as Record<string, unknown>).model).toBeUndefined();
  });

  test('huge and deep values: a record or a problem, never a throw', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(lift('bfcl', { id: 'd', result: deep }, {}, { file: '/m/x.json', line: 1 })).toMatch(
      /cannot be written as JSON/,
    );
    expect(
      lift(
        'anthropic-batch',
        anthropic({ type: 'succeeded', message: { content: [{ type: 'tool_use', input: deep }] } }),
      ),
    ).toMatch(/cannot be written as JSON/);
    const huge = 'x'.repeat(20_000_000);
    expect(lift('records', { text: huge, id: huge })).toMatchObject({ text: huge });
    expect(lift('records', { id: { a: 1n } as unknown, text: 't' })).toMatchObject({
      id: 'samples_json_2025-01-01T00-00-00.jsonl:7',
    });
  });

  fcTest.prop(
    [fc.constantFrom(...BATCH_FORMATS), fc.anything({ maxDepth: 5, withNullPrototype: true }), fc.boolean()],
    { numRuns },
  )('any value in any format: a record with string fields or a problem, never a throw', (format, value, detected) => {
    const record = {
      custom_id: value,
      response: value,
      result: value,
      doc_id: value,
      resps: value,
      filtered_resps: value,
      id: value,
      text: value,
      error: value,
    };
    for (const candidate of [
      value,
      record,
      { response: { status_code: 200, body: { choices: [{ message: value }] } } },
    ]) {
      if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) continue;
      const lifted = liftRecord(format, candidate as Record<string, unknown>, SOURCE, {
        detected,
        paths: parseFieldPaths({ schema: 'doc_id' }),
      });
      if ('record' in lifted) {
        expect(typeof lifted.record.text).toBe('string');
        expect(typeof lifted.record.id).toBe('string');
        expect(typeof lifted.record.model).toBe('string');
      } else expect(typeof lifted.problem).toBe('string');
    }
  });
});
