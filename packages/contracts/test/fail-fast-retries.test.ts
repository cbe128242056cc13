/**
 * The prompt runner's `failFast` (the first violation of the answer's contract ends the call and
 * aborts the model's request) and `retries` (the model is called again with the conversation
 * and a correction naming the path and the rule), against scripted model functions.
 */

import { test as fcTest } from '@fast-check/vitest';
import {
  ContractValidationError,
  createPromptManager,
  defaultCorrection,
  type EnvelopeAttempt,
  type Llm,
  type LlmRequest,
} from '@llmjson/contracts';
import { ConfigurationError } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt } from '../../../test/support/chunking.js';

const SECTIONS = {
  type: 'object',
  properties: {
    document_title: { type: 'string' },
    sections: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          title: { type: 'string', minLength: 1 },
          start_line: { type: 'integer', minimum: 1 },
          end_line: { type: 'integer', minimum: 1 },
        },
        required: ['title', 'start_line', 'end_line'],
        additionalProperties: false,
      },
    },
  },
  required: ['sections'],
  additionalProperties: false,
} as const;

const ITEM = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
  required: ['id', 'name'],
} as const;

const config = {
  system: 'Answer in JSON only.',
  prompts: {
    sections: { prompt: 'Divide {{text}} into sections.', 'response-type': 'json', schema: SECTIONS },
    items: { prompt: 'List the items of {{text}}, one per line.', 'response-type': 'jsonl', schema: ITEM },
    list: { prompt: 'List {{text}}.', 'response-type': 'json', schema: { type: 'array', items: ITEM } },
    note: { prompt: 'Say something about {{text}}.' },
  },
};

const vars = { text: 'the sutra' };

/**
 * A scripted model: answers `answers[n]` to its n-th call (the last one again after that), in
 * chunks of `size` characters, and records each request, how many chunks it handed out, and
 * whether it was closed early.
 */
function scripted(answers: readonly string[], size = 4) {
  const requests: LlmRequest[] = [];
  const served: { chunks: number; total: number; closed: boolean; aborted: boolean }[] = [];
  const llm: Llm = (request) => {
    const text = answers[Math.min(requests.length, answers.length - 1)] as string;
    requests.push(request);
    const record = { chunks: 0, total: Math.ceil(text.length / size), closed: false, aborted: false };
    served.push(record);
    request.signal?.addEventListener('abort', () => {
      record.aborted = true;
    });
    async function* output() {
      try {
        for (let i = 0; i < text.length; i += size) {
          await Promise.resolve();
          record.chunks++;
          yield text.slice(i, i + size);
        }
      } finally {
        record.closed = record.chunks < record.total;
      }
    }
    return { output: output(), provider: 'scripted', model: 'm1', usage: { output_tokens: requests.length * 10 } };
  };
  return { llm, requests, served };
}

const longTail = (n: number) =>
  Array.from({ length: n }, (_, i) => `{"title":"part ${i}","start_line":${i + 2},"end_line":${i + 2}}`).join(',');

describe('failFast', () => {
  test('jsonl: the first line that fails its schema ends the call; the request is aborted and the answer closed', async () => {
    const lines = ['{"id":1,"name":"a"}', '{"id":2,"name":"b"}', '{"id":"three","name":"c"}'];
    for (let i = 4; i < 200; i++) lines.push(`{"id":${i},"name":"n${i}"}`);
    const { llm, served } = scripted([lines.join('\n')]);
    const m = createPromptManager(config, { failFast: true });
    const streamed: unknown[] = [];
    const stream = m.stream('items', vars, llm);
    for await (const value of stream) streamed.push(value);
    const envelope = await stream.outcome;
    expect(streamed).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    expect(envelope.status).toBe('failed');
    expect(envelope.error).toMatchObject({
      reason: 'CONTRACT_VALIDATION_FAILED',
      detail: 'SCHEMA_VIOLATION',
      path: '/id',
      rule: 'type',
      message: 'line 3: at /id (type): the value at /id is a string, but the schema allows integer',
      // Found while line 3 streams (prefixCheck is on with failFast), before it completes.
      diagnostic: { reason: 'violation', line: 3 },
    });
    expect(envelope.result).not.toHaveProperty('json');
    expect(served[0]).toMatchObject({ aborted: true, closed: true });
    expect(served[0]?.chunks).toBeLessThan((served[0]?.total ?? 0) / 10);
    expect(envelope.attempts).toHaveLength(1);
    // The line was cut where the violation was found: no complete value to record.
    expect(envelope.attempts?.[0]).toMatchObject({ attempt: 1, status: 'failed' });
    expect(envelope.attempts?.[0]).not.toHaveProperty('correction');
  });

  test('jsonl without failFast: the bad line is dropped and the answer read to its end, as before', async () => {
    const text = ['{"id":1,"name":"a"}', '{"id":"two","name":"b"}', '{"id":3,"name":"c"}'].join('\n');
    const { llm, served } = scripted([text]);
    const envelope = await createPromptManager(config).run('items', vars, llm);
    expect(envelope.status).toBe('succeeded');
    expect(envelope.result.json).toHaveLength(2);
    expect(envelope).not.toHaveProperty('attempts');
    expect(served[0]).toMatchObject({ aborted: false, closed: false });
  });

  test('json: a closed part that fails its sub-schema ends the call while the document streams', async () => {
    const text = `\`\`\`json\n{"document_title":"Sutra","sections":[{"title":"Intro","start_line":"one","end_line":3},${longTail(300)}]}\n\`\`\``;
    const { llm, served, requests } = scripted([text]);
    const m = createPromptManager(config);
    const envelope = await m.run('sections', vars, llm, { failFast: true });
    expect(envelope.status).toBe('failed');
    // A `violation` as soon as the string starts (or, from a builder without stream-time
    // checks, a `schema` diagnostic when the section closes): either names the path and rule.
    expect(envelope.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/sections/0/start_line', rule: 'type' });
    expect(envelope.error?.message).toMatch(/^at \/sections\/0\/start_line \(type\): /);
    expect(['violation', 'schema']).toContain(envelope.error?.diagnostic?.reason);
    // Its offset is the answer's (past the fence line), as for every diagnostic of an answer.
    const offset = envelope.error?.diagnostic?.offset ?? 0;
    const around = envelope.error?.diagnostic?.reason === 'violation' ? '"start_line":"' : '"end_line":3}';
    expect(text.slice(offset - 20, offset + 6)).toContain(around);
    expect(requests[0]?.signal?.aborted).toBe(true);
    expect(served[0]?.chunks).toBeLessThan((served[0]?.total ?? 0) / 10);
    expect(envelope.attempts?.[0]?.value).toMatchObject({ document_title: 'Sutra', sections: [{ title: 'Intro' }] });
    // Without failFast: the whole answer is read, and it is a mismatch.
    const whole = scripted([text]);
    const slow = await m.run('sections', vars, whole.llm);
    expect(slow.error?.detail).toBe('SCHEMA_MISMATCH');
    expect(whole.served[0]?.chunks).toBe(whole.served[0]?.total);
  });

  test('json: a valid document, and a document behind prose, are not stopped', async () => {
    const valid = `{"sections":[${longTail(20)}]}`;
    const ok = scripted([valid]);
    const m = createPromptManager(config, { failFast: true });
    const envelope = await m.run('sections', vars, ok.llm);
    expect(envelope.status).toBe('succeeded');
    expect(envelope.attempts).toEqual([
      { attempt: 1, status: 'succeeded', text: valid, model: 'm1', usage: { output_tokens: 10 } },
    ]);
    expect(ok.served[0]?.aborted).toBe(false);
    const prose = scripted([`Here it is: {"sections":[{"title":"","start_line":1,"end_line":1}]}`]);
    const late = await m.run('sections', vars, prose.llm);
    expect(late.error?.detail).toBe('SCHEMA_MISMATCH');
    expect(prose.served[0]?.chunks).toBe(prose.served[0]?.total);
  });

  test('json arrays: a bad element ends the call after the elements before it were yielded', async () => {
    const elements = [`{"id":1,"name":"a"}`, `{"id":2}`];
    for (let i = 3; i < 300; i++) elements.push(`{"id":${i},"name":"n"}`);
    const { llm, served } = scripted([`[${elements.join(',')}]`]);
    const stream = createPromptManager(config, { failFast: true }).stream('list', vars, llm);
    const got: unknown[] = [];
    for await (const value of stream) got.push(value);
    const envelope = await stream.outcome;
    expect(got).toEqual([{ id: 1, name: 'a' }]);
    expect(envelope.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/1', rule: 'required' });
    expect(served[0]?.chunks).toBeLessThan((served[0]?.total ?? 0) / 10);
  });

  test('invoke throws ContractValidationError naming the path and rule (jsonl too)', async () => {
    const { llm } = scripted(['{"id":1,"name":"a"}\n{"id":2,"name":7}\n{"id":3,"name":"c"}']);
    const m = createPromptManager(config, { failFast: true });
    const error = await m.invoke('items', vars, llm).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractValidationError);
    expect((error as ContractValidationError).outcome).toMatchObject({
      detail: 'SCHEMA_VIOLATION',
      path: '/name',
      rule: 'type',
    });
    expect((error as Error).message).toContain(
      'SCHEMA_VIOLATION: line 2: at /name (type): the value at /name is a number, but the schema allows string',
    );
  });

  test('the caller aborting its signal still aborts the request', async () => {
    const { llm, requests } = scripted(['{"id":1,"name":"a"}']);
    const caller = new AbortController();
    caller.abort(new Error('user left'));
    await createPromptManager(config).run('items', vars, llm, { signal: caller.signal });
    expect(requests[0]?.signal?.aborted).toBe(true);
    expect(requests[0]?.signal?.reason).toEqual(new Error('user left'));
  });
});

describe('failFast never stops a valid answer', () => {
  const section = fc.record({
    title: fc.string({ minLength: 1, maxLength: 8 }),
    start_line: fc.integer({ min: 1, max: 10_000 }),
    end_line: fc.integer({ min: 1, max: 10_000 }),
  });
  const documents = fc.record(
    { document_title: fc.string({ maxLength: 12 }), sections: fc.array(section, { minLength: 1, maxLength: 4 }) },
    { requiredKeys: ['sections'] },
  );
  fcTest.prop(
    [
      documents,
      fc.constantFrom('', '```json\n', '  \n'),
      fc.integer({ min: 0, max: 4 }),
      fc.array(fc.nat(), { maxLength: 12 }),
    ],
    { numRuns },
  )(
    'any valid document, fenced or indented, split anywhere: succeeded, read whole',
    async (doc, open, indent, cuts) => {
      const text = `${open}${JSON.stringify(doc, null, indent)}${open.startsWith('```') ? '\n```' : ''}`;
      const chunks = splitAt(text, cuts);
      const requests: LlmRequest[] = [];
      const llm: Llm = (request) => {
        requests.push(request);
        return (async function* () {
          yield* chunks;
        })();
      };
      const envelope = await createPromptManager(config, { failFast: true, retries: 1 }).run('sections', vars, llm);
      expect(envelope.status).toBe('succeeded');
      expect(envelope.result.json).toEqual(doc);
      expect(envelope.attempts).toHaveLength(1);
      expect(requests[0]?.signal?.aborted).toBe(false);
    },
  );
});

describe('retries', () => {
  const wrong = '{"document_title":"Sutra","sections":[{"title":"Intro","start_line":"one","end_line":3}]}';
  const right = '{"document_title":"Sutra","sections":[{"title":"Intro","start_line":1,"end_line":3}]}';

  test('wrong, then right: succeeded after 2 attempts; the second request carries the conversation and the correction', async () => {
    const { llm, requests } = scripted([wrong, right]);
    const retried: unknown[] = [];
    const m = createPromptManager(config, { retries: 2, onRetry: (f, id) => retried.push([id, f.attempt, f.path]) });
    const envelope = await m.run('sections', vars, llm);
    expect(envelope.status).toBe('succeeded');
    expect(envelope.result.json).toEqual(JSON.parse(right));
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.attempt)).toEqual([1, 2]);
    expect(requests[0]?.messages).toEqual([
      { role: 'system', content: 'Answer in JSON only.' },
      { role: 'user', content: 'Divide the sutra into sections.' },
    ]);
    const second = requests[1];
    expect(second?.prompt).toBe('Divide the sutra into sections.');
    expect(second?.system).toBe('Answer in JSON only.');
    expect(second?.messages?.slice(0, 3)).toEqual([
      { role: 'system', content: 'Answer in JSON only.' },
      { role: 'user', content: 'Divide the sutra into sections.' },
      { role: 'assistant', content: wrong },
    ]);
    const correction = second?.messages?.[3];
    expect(correction?.role).toBe('user');
    expect(correction?.content).toBe(
      [
        'Your previous answer does not match the required JSON schema.',
        'At /sections/0/start_line (rule "type"): must be integer',
        'Offending part: "one"',
        'Expected at /sections/0/start_line: {"type":"integer","minimum":1}',
        'Answer again with the complete corrected answer (one JSON document), and nothing else.',
      ].join('\n'),
    );
    expect(retried).toEqual([['sections', 1, '/sections/0/start_line']]);
    const attempts = envelope.attempts as readonly EnvelopeAttempt[];
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toMatchObject({
      attempt: 1,
      status: 'failed',
      text: wrong,
      error: { detail: 'SCHEMA_MISMATCH' },
      value: JSON.parse(wrong),
      correction: correction?.content,
      usage: { output_tokens: 10 },
    });
    expect(attempts[1]).toMatchObject({ attempt: 2, status: 'succeeded', text: right, usage: { output_tokens: 20 } });
    expect(attempts[1]).not.toHaveProperty('value');
  });

  test('retries run out: failed, every attempt recorded with its text, error and invalid value', async () => {
    const { llm, requests } = scripted(['not json at all', wrong]);
    const envelope = await createPromptManager(config, { retries: 1 }).run('sections', vars, llm, { retries: 2 });
    expect(requests).toHaveLength(3);
    expect(envelope.status).toBe('failed');
    expect(envelope.error?.detail).toBe('SCHEMA_MISMATCH');
    expect(envelope.attempts?.map((a) => [a.attempt, a.error?.detail, a.correction !== undefined])).toEqual([
      [1, 'NOT_JSON', true],
      [2, 'SCHEMA_MISMATCH', true],
      [3, 'SCHEMA_MISMATCH', false],
    ]);
    expect(envelope.attempts?.[0]?.correction).toBe(
      [
        'Your previous answer is not valid JSON: no JSON document in the answer (not as the whole text, in a fence, in inline code or in prose)',
        'Offending part: not json at all',
        'Answer again with the complete corrected answer (one JSON document), and nothing else.',
      ].join('\n'),
    );
    expect(envelope.attempts?.at(-1)?.value).toEqual(JSON.parse(wrong));
    // The conversation grows by one answer and one correction per retry.
    expect(requests[2]?.messages?.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
  });

  test('failFast and retries: the violation is corrected; the cut answer is the assistant turn', async () => {
    const bad = `{"document_title":"Sutra","sections":[{"title":"Intro","start_line":"one","end_line":3},${longTail(200)}]}`;
    const { llm, requests, served } = scripted([bad, right]);
    const envelope = await createPromptManager(config, { failFast: true, retries: 1 }).run('sections', vars, llm);
    expect(envelope.status).toBe('succeeded');
    expect(served[0]?.aborted).toBe(true);
    const assistant = requests[1]?.messages?.[2]?.content ?? '';
    expect(bad.startsWith(assistant)).toBe(true);
    expect(assistant.length).toBeLessThan(bad.length / 5);
    const correction = requests[1]?.messages?.[3]?.content;
    expect(correction).toContain('At /sections/0/start_line (rule "type"): ');
    expect(correction).toContain('Offending part: "one"');
    expect(correction).toContain('Expected at /sections/0/start_line: {"type":"integer","minimum":1}');
    expect(envelope.attempts?.[0]?.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/sections/0/start_line' });
  });

  test('jsonl with failFast: the correction names the line', async () => {
    const { llm, requests } = scripted([
      '{"id":1,"name":"a"}\n{"id":2}\n',
      '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n',
    ]);
    const envelope = await createPromptManager(config, { failFast: true, retries: 1 }).run('items', vars, llm);
    expect(envelope.status).toBe('succeeded');
    expect(envelope.result.json).toHaveLength(2);
    expect(requests[1]?.messages?.[3]?.content).toBe(
      [
        'Your previous answer does not match the required JSON schema.',
        `Line 2: At the root (rule "required"): must have required property 'name'`,
        'Offending part: {"id":2}',
        `Expected at the root: {"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"]}`,
        'Answer again with the complete corrected answer (one JSON object per line), and nothing else.',
      ].join('\n'),
    );
  });

  test('a template string fills its placeholders; a function gets the failure', async () => {
    const { llm, requests } = scripted([wrong, right]);
    const m = createPromptManager(config, {
      retries: 1,
      correction: 'Attempt {{attempt}} broke {{rule}} at {{path}} ({{excerpt}}); want {{expected}} as {{format}}.',
    });
    await m.run('sections', vars, llm);
    expect(requests[1]?.messages?.at(-1)?.content).toBe(
      'Attempt 1 broke type at /sections/0/start_line ("one"); want {"type":"integer","minimum":1} as one JSON document.',
    );
    const again = scripted([wrong, right]);
    await m.run('sections', vars, again.llm, { correction: (f) => `${f.detail} ${f.path} ${f.rule} ${f.attempt}` });
    expect(again.requests[1]?.messages?.at(-1)?.content).toBe('SCHEMA_MISMATCH /sections/0/start_line type 1');
  });

  test('an answer cut off at the token limit and a text prompt are not retried', async () => {
    const { llm, requests } = scripted(['{"sections": [']);
    const cut: Llm = async (request) => ({ ...((await llm(request)) as object), finishReason: 'length' }) as never;
    const envelope = await createPromptManager(config, { retries: 3 }).run('sections', vars, cut);
    expect(envelope.status).toBe('incomplete');
    expect(requests).toHaveLength(1);
    expect(envelope.attempts).toHaveLength(1);
    const text = scripted(['hello']);
    const note = await createPromptManager(config, { retries: 3 }).run('note', vars, text.llm);
    expect(note).toEqual({
      status: 'succeeded',
      result: { text: 'hello', model: 'm1', provider: 'scripted', usage: { output_tokens: 10 } },
    });
  });

  test("stream: onRetry comes between the failed attempt's values and the next attempt's", async () => {
    const { llm } = scripted([
      '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n{"id":3}\n',
      '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n',
    ]);
    const events: unknown[] = [];
    const m = createPromptManager(config, {
      failFast: true,
      retries: 1,
      onRetry: (failure) => events.push(`retry after attempt ${failure.attempt}`),
    });
    const stream = m.stream('items', vars, llm);
    for await (const value of stream) {
      events.push((value as { id: number }).id);
      await new Promise((resolve) => setTimeout(resolve, 1)); // a slow consumer
    }
    expect(events).toEqual([1, 2, 'retry after attempt 1', 1, 2]);
    expect((await stream.outcome).attempts).toHaveLength(2);
  });

  test('onDiagnostic is told the attempt', async () => {
    const seen: [string, number][] = [];
    const { llm } = scripted(['{"id":1}\n', '{"id":1,"name":"a"}\n{"id":"x"}\n']);
    await createPromptManager(config, {
      retries: 1,
      failFast: true,
      onDiagnostic: (d, _id, { attempt }) => seen.push([d.reason, attempt]),
    }).run('items', vars, llm);
    expect(seen).toEqual([
      ['schema', 1],
      ['violation', 2],
    ]);
  });

  test('options are checked before any call: retries a whole number, templates with known placeholders', async () => {
    expect(() => createPromptManager(config, { retries: -1 })).toThrow(ConfigurationError);
    expect(() => createPromptManager(config, { retries: 1.5 })).toThrow(/retries must be a whole number/);
    expect(() => createPromptManager(config, { correction: 'fix {{pth}}' })).toThrow(/\{\{pth\}\}/);
    const { llm, requests } = scripted([wrong]);
    await expect(createPromptManager(config).run('sections', vars, llm, { retries: Number.NaN })).rejects.toThrow(
      ConfigurationError,
    );
    expect(requests).toHaveLength(0);
  });

  test('the default correction caps what it quotes', () => {
    const text = defaultCorrection({
      attempt: 1,
      promptId: 'p',
      responseType: 'json',
      detail: 'SCHEMA_MISMATCH',
      message: 'must be integer',
      path: '/a',
      rule: 'type',
      excerpt: 'x'.repeat(10),
      expected: '{"type":"integer"}',
      errors: [],
    });
    expect(text).toContain('At /a (rule "type"): must be integer');
  });
});
