/**
 * `coerce` in contracts (issue 13 part 4): `parseJsonResponse` (whole text, and salvage around
 * prose and fences), `parseJsonlResponse`, and the prompt runner's json and jsonl prompts, with
 * and without `failFast`, on answers delivered whole and in chunks. A coerced document is a
 * success with `recovered: true` and one `recovered` diagnostic per repair (`rule`, `path`); what
 * coercion cannot make valid fails exactly as without it.
 */

import { test as fcTest } from '@fast-check/vitest';
import {
  ContractValidationError,
  createPromptManager,
  type Llm,
  parseJsonlResponse,
  parseJsonResponse,
} from '@llmjson/contracts';
import { ConfigurationError, type Diagnostic } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chunkText, numRuns, splitAt } from '../../../test/support/chunking.js';

const ITEM = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    color: { enum: ['red', 'green', 'blue'] },
    done: { type: 'boolean' },
  },
  required: ['id', 'name'],
  additionalProperties: false,
} as const;

const DOC = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    count: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
    items: { type: 'array', items: ITEM },
  },
  required: ['title', 'count'],
  additionalProperties: false,
} as const;

/** What the repairs of a diagnostics list are: `rule` at `path`. */
const fixesOf = (diagnostics: readonly Diagnostic[] | undefined) =>
  (diagnostics ?? []).filter((d) => d.reason === 'recovered' && d.rule !== undefined).map((d) => `${d.rule} ${d.path}`);

describe('parseJsonResponse with coerce', () => {
  const written =
    '{"title": "Sutra", "count": "3", "tags": "intro", "items": [{"id": "1", "name": "a", "color": " Red "}]}';
  const coerced = { title: 'Sutra', count: 3, tags: ['intro'], items: [{ id: 1, name: 'a', color: 'red' }] };

  test("tolerate 'none': the document is coerced, recovered, with one diagnostic per repair", () => {
    const outcome = parseJsonResponse(written, { schema: DOC, tolerate: 'none', coerce: true });
    expect(outcome).toMatchObject({ status: 'succeeded', json: coerced, source: 'document', recovered: true });
    if (outcome.status !== 'succeeded') throw new Error('unreachable');
    expect(fixesOf(outcome.diagnostics)).toEqual([
      'string-to-number /count',
      'single-to-array /tags',
      'string-to-number /items/0/id',
      'enum-case /items/0/color',
    ]);
    for (const d of outcome.diagnostics ?? []) {
      expect(d).toMatchObject({ reason: 'recovered', offset: 0 });
      expect(d.message).toContain(`at ${d.path} (${d.rule})`);
      expect(d.excerpt.length).toBeGreaterThan(0);
    }
  });

  test("tolerate 'none': the offset is the document's start after leading whitespace", () => {
    const outcome = parseJsonResponse(`\n  {"title": "t", "count": "0"}\n`, {
      schema: DOC,
      tolerate: 'none',
      coerce: true,
    });
    expect(outcome).toMatchObject({ status: 'succeeded', json: { title: 't', count: 0 } });
    if (outcome.status !== 'succeeded') throw new Error('unreachable');
    expect(outcome.diagnostics).toEqual([
      expect.objectContaining({ reason: 'recovered', offset: 3, path: '/count', rule: 'string-to-number' }),
    ]);
  });

  test('only the rules listed are applied; a document still invalid fails exactly as without coerce', () => {
    const onlyNumbers = parseJsonResponse(written, { schema: DOC, tolerate: 'none', coerce: ['string-to-number'] });
    const without = parseJsonResponse(written, { schema: DOC, tolerate: 'none' });
    expect(without.status).toBe('failed');
    expect(onlyNumbers).toEqual(without);
    // Partly repairable is not repaired: the validator's verdict on the answer as written stands.
    const text = '{"title": "t", "count": "3", "items": [{"id": 1, "name": "a", "color": "Red"}]}';
    const partly = parseJsonResponse(text, { schema: DOC, tolerate: 'none', coerce: ['enum-case'] });
    expect(partly).toMatchObject({ status: 'failed', detail: 'SCHEMA_MISMATCH' });
    expect(partly).toEqual(parseJsonResponse(text, { schema: DOC, tolerate: 'none' }));
  });

  test('a valid document is never touched, and no recovery is reported', () => {
    const valid = '{"title": "t", "count": 3}';
    expect(parseJsonResponse(valid, { schema: DOC, tolerate: 'none', coerce: true })).toEqual(
      parseJsonResponse(valid, { schema: DOC, tolerate: 'none' }),
    );
    expect(parseJsonResponse(valid, { schema: DOC, coerce: true })).toEqual({
      status: 'succeeded',
      json: { title: 't', count: 3 },
      source: 'document',
    });
  });

  test('salvage: a fenced document behind prose is coerced, after its trailing-comma note', () => {
    const text = `Here you go:\n\`\`\`json\n{"title": "t", "count": "2",}\n\`\`\`\nAnything else?`;
    const outcome = parseJsonResponse(text, { schema: DOC, coerce: true });
    expect(outcome).toMatchObject({
      status: 'succeeded',
      json: { title: 't', count: 2 },
      source: 'fence',
      recovered: true,
    });
    if (outcome.status !== 'succeeded') throw new Error('unreachable');
    const start = text.indexOf('{');
    expect(outcome.diagnostics).toEqual([
      expect.objectContaining({ reason: 'recovered', message: expect.stringContaining('trailing comma') }),
      expect.objectContaining({ reason: 'recovered', offset: start, path: '/count', rule: 'string-to-number' }),
    ]);
    // Without coerce: the same text fails on /count.
    expect(parseJsonResponse(text, { schema: DOC })).toMatchObject({ status: 'failed', detail: 'SCHEMA_MISMATCH' });
  });

  test('salvage: a candidate coerced counts as matching in the order of preference', () => {
    // The first candidate (embedded) fails even coerced; the fenced one is coerced and wins.
    const text = 'First try: {"title": 1, "count": 1}\n```json\n{"title": "t", "count": "5"}\n```\n';
    const outcome = parseJsonResponse(text, { schema: DOC, coerce: true });
    expect(outcome).toMatchObject({
      status: 'succeeded',
      json: { title: 't', count: 5 },
      source: 'fence',
      recovered: true,
    });
    if (outcome.status !== 'succeeded') throw new Error('unreachable');
    expect(outcome.diagnostics).toEqual([
      expect.objectContaining({ offset: text.indexOf('{"title": "t"'), path: '/count', rule: 'string-to-number' }),
    ]);
    // Nothing coercible: the failure is the preferred candidate's, as without coerce.
    const hopeless = 'Answer: {"title": 1, "count": "x"}';
    expect(parseJsonResponse(hopeless, { schema: DOC, coerce: true })).toEqual(
      parseJsonResponse(hopeless, { schema: DOC }),
    );
  });

  test('salvage: the preferred candidate is coerced when only coercion makes it match', () => {
    const text = 'Sure! {"title": "t", "count": "1", "tags": "x"} — hope it helps';
    const outcome = parseJsonResponse(text, { schema: DOC, coerce: ['string-to-number', 'single-to-array'] });
    expect(outcome).toMatchObject({
      status: 'succeeded',
      json: { title: 't', count: 1, tags: ['x'] },
      source: 'embedded',
    });
    if (outcome.status !== 'succeeded') throw new Error('unreachable');
    expect(fixesOf(outcome.diagnostics)).toEqual(['string-to-number /count', 'single-to-array /tags']);
    expect(outcome.diagnostics?.every((d) => d.offset === text.indexOf('{'))).toBe(true);
  });

  test('a Standard Schema (zod) is guided by its JSON Schema export and validated by zod', () => {
    const schema = z.object({ n: z.number().int(), color: z.enum(['red', 'blue']) });
    const outcome = parseJsonResponse('```json\n{"n": "4", "color": "BLUE"}\n```', { schema, coerce: true });
    expect(outcome).toMatchObject({ status: 'succeeded', json: { n: 4, color: 'blue' }, recovered: true });
    if (outcome.status !== 'succeeded') throw new Error('unreachable');
    expect(fixesOf(outcome.diagnostics)).toEqual(['string-to-number /n', 'enum-case /color']);
  });

  test('a broken option is a ConfigurationError, not an outcome', () => {
    expect(() => parseJsonResponse('{}', { coerce: true })).toThrow(ConfigurationError);
    expect(() => parseJsonResponse('{}', { coerce: true, tolerate: 'none' })).toThrow(/coerce needs a schema/);
    expect(() => parseJsonResponse('{}', { schema: DOC, coerce: ['bogus' as never] })).toThrow(/unknown coercion/);
    // Off: nothing is checked or changed.
    expect(parseJsonResponse('{"title": "t", "count": "1"}', { schema: DOC, coerce: false }).status).toBe('failed');
  });
});

describe('parseJsonlResponse with coerce', () => {
  const text = [
    '{"id": "1", "name": "a"}',
    '{"id": 2, "name": "b", "done": "true"}',
    '{"id": "three", "name": "c"}',
    '{"id": 4, "name": "d", "color": "GREEN"}',
  ].join('\n');

  test('lines are coerced, each repair reported on its line; a line still invalid is dropped', () => {
    const outcome = parseJsonlResponse(text, { schema: ITEM, coerce: true });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.json).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b', done: true },
      { id: 4, name: 'd', color: 'green' },
    ]);
    expect(outcome.diagnostics.map((d) => [d.reason, d.line, d.rule, d.path])).toEqual([
      ['recovered', 1, 'string-to-number', '/id'],
      ['recovered', 2, 'string-to-boolean', '/done'],
      ['schema', 3, undefined, undefined],
      ['recovered', 4, 'enum-case', '/color'],
    ]);
    expect(outcome.warnings).toEqual([]);
  });

  test('the rules listed only; without coerce, as before', () => {
    const some = parseJsonlResponse(text, { schema: ITEM, coerce: ['string-to-boolean'] });
    expect(some.json).toEqual([{ id: 2, name: 'b', done: true }]);
    const none = parseJsonlResponse(text, { schema: ITEM });
    expect(none.json).toEqual([]);
    expect(none.diagnostics.every((d) => d.reason === 'schema')).toBe(true);
    expect(() => parseJsonlResponse(text, { coerce: true })).toThrow(ConfigurationError);
  });
});

/** A model answering `text` in chunks of `size` characters (0: whole), recording requests and what it served. */
function model(text: string, size = 0) {
  const served = { chunks: 0, total: size === 0 ? 1 : Math.ceil(text.length / size), aborted: false };
  const llm: Llm = (request) => {
    request.signal?.addEventListener('abort', () => {
      served.aborted = true;
    });
    async function* output() {
      for (const chunk of size === 0 ? [text] : chunkText(text, size)) {
        await Promise.resolve();
        served.chunks++;
        yield chunk;
      }
    }
    return { output: output(), model: 'm1' };
  };
  return { llm, served };
}

/** A model answering the given chunks. */
const chunked =
  (chunks: readonly string[]): Llm =>
  () =>
    (async function* () {
      for (const chunk of chunks) yield chunk;
    })();

const config = {
  prompts: {
    doc: { prompt: 'Describe {{text}}.', 'response-type': 'json', schema: DOC },
    items: { prompt: 'List {{text}}, one per line.', 'response-type': 'jsonl', schema: ITEM },
    list: { prompt: 'List {{text}}.', 'response-type': 'json', schema: { type: 'array', items: ITEM } },
    note: { prompt: 'Say something about {{text}}.' },
  },
};
const vars = { text: 'the sutra' };

const DOC_ANSWER =
  '```json\n{"title": "Sutra", "count": "2", "items": [{"id": "7", "name": "x", "color": "Blue"}]}\n```';
const DOC_VALUE = { title: 'Sutra', count: 2, items: [{ id: 7, name: 'x', color: 'blue' }] };
const DOC_FIXES = ['string-to-number /count', 'string-to-number /items/0/id', 'enum-case /items/0/color'];

const JSONL_ANSWER = [
  '{"id": "1", "name": "a"}',
  'Note: the next one is odd',
  '{"id": 2, "name": "b", "color": "RED"}',
  '{"id": "x", "name": "c"}',
  '{"id": 4, "name": "d"}',
].join('\n');
const JSONL_VALUES = [
  { id: 1, name: 'a' },
  { id: 2, name: 'b', color: 'red' },
  { id: 4, name: 'd' },
];

describe('the prompt runner with coerce', () => {
  for (const size of [0, 1, 3, 16]) {
    const how = size === 0 ? 'whole' : `in chunks of ${size}`;
    for (const failFast of [false, true]) {
      const mode = failFast ? ' with failFast' : '';

      test(`json${mode}, ${how}: the coerced document succeeds; its repairs are the envelope's diagnostics`, async () => {
        const seen: Diagnostic[] = [];
        const m = createPromptManager(config, { coerce: true, failFast, onDiagnostic: (d) => seen.push(d) });
        const { llm, served } = model(DOC_ANSWER, size);
        const stream = m.stream('doc', vars, llm);
        const got: unknown[] = [];
        for await (const value of stream) got.push(value);
        const envelope = await stream.outcome;
        expect(envelope.status).toBe('succeeded');
        expect(envelope.result.json).toEqual(DOC_VALUE);
        expect(got).toEqual([DOC_VALUE]);
        expect(fixesOf(envelope.diagnostics)).toEqual(DOC_FIXES);
        expect(seen).toEqual(envelope.diagnostics);
        expect(served).toMatchObject({ aborted: false, chunks: served.total });
        if (failFast) expect(envelope.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'succeeded' })]);
      });

      test(`jsonl${mode}, ${how}: lines are coerced; a line coercion cannot fix is dropped (or ends a failFast call)`, async () => {
        const m = createPromptManager(config, { coerce: true, failFast });
        const { llm, served } = model(JSONL_ANSWER, size);
        const stream = m.stream('items', vars, llm);
        const got: unknown[] = [];
        for await (const value of stream) got.push(value);
        const envelope = await stream.outcome;
        const fixes = envelope.diagnostics?.filter((d) => d.reason === 'recovered');
        expect(fixes?.map((d) => [d.line, d.rule, d.path])).toEqual([
          [1, 'string-to-number', '/id'],
          [3, 'enum-case', '/color'],
        ]);
        if (failFast) {
          // Line 4 is checked once complete (no prefix checks under coerce), and ends the call there.
          expect(got).toEqual(JSONL_VALUES.slice(0, 2));
          expect(envelope.status).toBe('failed');
          expect(envelope.error).toMatchObject({
            detail: 'SCHEMA_VIOLATION',
            path: '/id',
            rule: 'type',
            diagnostic: { reason: 'schema', line: 4 },
          });
          if (size > 0) expect(served.aborted).toBe(true);
        } else {
          expect(got).toEqual(JSONL_VALUES);
          expect(envelope.status).toBe('succeeded');
          expect(envelope.result.json).toEqual(JSONL_VALUES);
          expect(envelope.diagnostics?.map((d) => d.reason)).toEqual(['recovered', 'prose', 'recovered', 'schema']);
        }
      });
    }
  }

  test('json arrays: each element streams coerced, and the document is the coerced one', async () => {
    const answer = '[{"id": "1", "name": "a"}, {"id": 2, "name": "b", "done": "false"}]';
    for (const failFast of [false, true]) {
      const stream = createPromptManager(config, { coerce: true, failFast }).stream('list', vars, model(answer, 5).llm);
      const got: unknown[] = [];
      for await (const value of stream) got.push(value);
      const envelope = await stream.outcome;
      const expected = [
        { id: 1, name: 'a' },
        { id: 2, name: 'b', done: false },
      ];
      expect(got).toEqual(expected);
      expect(envelope).toMatchObject({ status: 'succeeded', result: { json: expected } });
      expect(fixesOf(envelope.diagnostics)).toEqual(['string-to-number /0/id', 'string-to-boolean /1/done']);
    }
  });

  test('failFast without coerce stops the same answers: the control', async () => {
    const m = createPromptManager(config, { failFast: true });
    const json = await m.run('doc', vars, model(DOC_ANSWER, 3).llm);
    expect(json.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/count' });
    const jsonl = await m.run('items', vars, model(JSONL_ANSWER, 3).llm);
    expect(jsonl.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/id', diagnostic: { line: 1 } });
  });

  test('failFast with some rules: what they do not repair still ends the call while it streams', async () => {
    const answer = `{"title": "t", "count": "1", "items": [{"id": 1, "name": "a", "color": "Purple"}${', {"id": 2, "name": "b"}'.repeat(200)}]}`;
    const { llm, served } = model(answer, 4);
    const envelope = await createPromptManager(config).run('doc', vars, llm, {
      failFast: true,
      coerce: ['string-to-number', 'enum-case'],
    });
    expect(envelope.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/items/0/color' });
    expect(served.aborted).toBe(true);
    expect(served.chunks).toBeLessThan(served.total / 10);
    // enum-case cannot fix "Purple"; "1" for /count was no violation under string-to-number.
    const other = await createPromptManager(config).run('doc', vars, model(answer, 4).llm, {
      failFast: true,
      coerce: ['enum-case'],
    });
    expect(other.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/count' });
  });

  test('a per-call coerce overrides the manager; invoke returns the coerced values', async () => {
    const off = createPromptManager(config);
    expect(await off.invoke('doc', vars, model(DOC_ANSWER).llm, { coerce: true })).toEqual(DOC_VALUE);
    await expect(off.invoke('doc', vars, model(DOC_ANSWER).llm)).rejects.toBeInstanceOf(ContractValidationError);
    const on = createPromptManager(config, { coerce: true });
    expect(await on.invoke('items', vars, model(JSONL_ANSWER).llm)).toEqual(JSONL_VALUES);
    await expect(on.invoke('doc', vars, model(DOC_ANSWER).llm, { coerce: false })).rejects.toBeInstanceOf(
      ContractValidationError,
    );
    // A text prompt is untouched by a manager's coerce.
    expect(await on.invoke('note', vars, model('{"id": "1"}').llm)).toBe('{"id": "1"}');
  });

  test('a coerced answer is a success: no retry is made', async () => {
    let calls = 0;
    const llm: Llm = () => {
      calls++;
      return DOC_ANSWER;
    };
    const envelope = await createPromptManager(config, { coerce: true, retries: 2 }).run('doc', vars, llm);
    expect(envelope.status).toBe('succeeded');
    expect(calls).toBe(1);
    expect(envelope.attempts).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  test('an invalid coerce is a ConfigurationError before the model is called', async () => {
    expect(() => createPromptManager(config, { coerce: ['nope' as never] })).toThrow(
      /createPromptManager: coerce must be true, false or a list of coercions/,
    );
    let called = false;
    const llm: Llm = () => {
      called = true;
      return '{}';
    };
    const m = createPromptManager(config);
    await expect(m.run('doc', vars, llm, { coerce: 'yes' as never })).rejects.toThrow(ConfigurationError);
    // A Standard Schema without a JSON Schema export cannot guide coercion.
    const opaque = {
      '~standard': { version: 1, vendor: 'opaque', validate: (value: unknown) => ({ value }) },
    } as const;
    const withOpaque = createPromptManager({
      prompts: { x: { prompt: 'x', 'response-type': 'json', schema: opaque } },
    });
    await expect(withOpaque.run('x', {}, llm, { coerce: true })).rejects.toThrow(/exports none/);
    expect(called).toBe(false);
  });

  fcTest.prop(
    [
      fc.constantFrom('doc', 'items'),
      fc.boolean(),
      fc.array(fc.nat({ max: Math.max(DOC_ANSWER.length, JSONL_ANSWER.length) }), { maxLength: 12 }),
    ],
    { numRuns },
  )('any chunking gives the same envelope (values, diagnostics, status)', async (id, failFast, cuts) => {
    const answer = id === 'doc' ? DOC_ANSWER : JSONL_ANSWER;
    const m = createPromptManager(config, { coerce: true, failFast });
    const whole = await m.run(id, vars, chunked([answer]));
    const split = await m.run(id, vars, chunked(splitAt(answer, cuts)));
    expect(split.status).toBe(whole.status);
    expect(split.result.json).toEqual(whole.result.json);
    expect(split.diagnostics).toEqual(whole.diagnostics);
    expect(split.error).toEqual(whole.error);
  });
});
