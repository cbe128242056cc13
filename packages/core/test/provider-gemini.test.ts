/**
 * The Google Gemini / Vertex wire format (`streamGenerateContent?alt=sse`) of the provider
 * decoder, over hand-written recorded-shape streams in fixtures/providers/ (the AI SDK's three
 * recorded Google streams are replayed with the others in test/corpora/provider-streams.test.ts).
 *
 * Every body is decoded whole, at every chunk size from 1 to 64 and at arbitrary split points,
 * under `auto` and under `input: 'gemini'`: all give the same sink calls in the same order.
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

const FILES = [
  'gemini-text.sse',
  'gemini-max-tokens.sse',
  'gemini-function-call.sse',
  'gemini-safety.sse',
  'gemini-prompt-blocked.sse',
  'gemini-error.sse',
  'gemini-vertex-partial-args.sse',
];

describe.each(FILES)('%s', (file) => {
  const body = fixture(file);
  const whole = run([body]);

  test('auto detects the format; every chunk size, and input gemini, give the same result', () => {
    expect(whole.provider).toBe(ProviderFormat.gemini);
    expect(whole.metadata[0]?.provider).toBe('gemini');
    expect(decode(body)).toEqual(whole);
    expect(decode(body, 'gemini')).toEqual(whole);
  });

  fcTest.prop([splitPoints(body.length)], { numRuns: Math.ceil(numRuns / 5) })('arbitrary split points', (points) => {
    expect(run(splitAt(body, points))).toEqual(whole);
  });
});

describe('text, reasoning, finish reason, usage', () => {
  test('text parts are the answer, thought parts reasoning; CRLF event ends; STOP ends the answer', () => {
    const r = decode(fixture('gemini-text.sse'));
    expect(r.text).toBe('{"word": "strawberry", "r": 3, "note": "café ☕ 🍓"}');
    expect(JSON.parse(r.text)).toEqual({ word: 'strawberry', r: 3, note: 'café ☕ 🍓' });
    expect(r.reasoning).toBe('**Counting letters** I look at each letter of the word.');
    expect(r).toMatchObject({ model: 'gemini-2.5-flash', finishReason: 'STOP', error: undefined, diagnostics: [] });
    // Thinking tokens are output tokens, as OpenAI's completion_tokens count reasoning.
    expect(r.usage).toEqual({ inputTokens: 9, outputTokens: 70, totalTokens: 79 });
    expect(r.toolCalls).toEqual([]);
    expect(r.metadata.at(-1)).toEqual({
      provider: 'gemini',
      model: 'gemini-2.5-flash',
      finishReason: 'STOP',
      usage: { inputTokens: 9, outputTokens: 70, totalTokens: 79 },
    });
  });

  test('MAX_TOKENS is the token limit: the text so far, no diagnostic, the finish reason kept as sent', () => {
    const r = decode(fixture('gemini-max-tokens.sse'));
    expect(r.text).toBe('[{"id": 1, "name": "alpha"}, {"id": 2, "na');
    expect(r).toMatchObject({ finishReason: 'MAX_TOKENS', error: undefined, diagnostics: [] });
    expect(r.usage).toEqual({ inputTokens: 14, outputTokens: 16, totalTokens: 30 });
  });

  test('usage is delivered when it changes, once per event at most', () => {
    const r = decode(fixture('gemini-text.sse'));
    expect(r.metadata.map((m) => m.usage?.outputTokens)).toEqual([51, 55, 70, 70]);
    expect(r.metadata.map((m) => m.finishReason)).toEqual([undefined, undefined, undefined, 'STOP']);
  });

  test('a stream cut before its finishReason is truncated; text before the cut is kept', () => {
    const body = fixture('gemini-text.sse');
    const cut = body.slice(0, body.lastIndexOf('data: '));
    const r = decode(cut);
    expect(r.text).toBe('{"word": "strawberry", "r": 3, "note": "café ☕ 🍓"}');
    expect(r.finishReason).toBeUndefined();
    expect(brief(r)).toEqual([['truncated', 7, 'the stream ended before a finishReason']]);
    const inside = decode(body.slice(0, body.lastIndexOf('"finishReason"')));
    expect(inside.diagnostics.map((d) => d.reason)).toEqual(['truncated', 'truncated']);
    expect(inside.diagnostics[0]?.message).toMatch(/^the stream ended inside an event/);
  });

  test('only candidate 0 is decoded; another candidate is reported once', () => {
    const event = (index: number, text: string, finishReason?: string) => ({
      candidates: [{ index, content: { role: 'model', parts: [{ text }] }, ...(finishReason ? { finishReason } : {}) }],
    });
    const body = [event(0, 'a'), event(1, 'b'), event(1, 'c'), event(0, 'd', 'STOP')]
      .map((e) => `data: ${JSON.stringify(e)}\n\n`)
      .join('');
    const r = decode(body);
    expect(r.text).toBe('ad');
    expect(brief(r)).toEqual([
      [
        'unrecognized',
        3,
        'candidate 1 ignored: only the first candidate is decoded (and any other candidate is ignored)',
      ],
    ]);
  });
});

describe('safety blocks and errors are provider-error diagnostics', () => {
  test('a response stopped by SAFETY: the text before it, the error, the finish reason as sent', () => {
    const r = decode(fixture('gemini-safety.sse'));
    expect(r.text).toBe('Here is how to');
    expect(brief(r)).toEqual([['provider-error', 3, 'provider error (SAFETY): the response was stopped']]);
    expect(r).toMatchObject({ finishReason: 'SAFETY', error: { message: 'the response was stopped', code: 'SAFETY' } });
  });

  test('a finishMessage is quoted (MALFORMED_FUNCTION_CALL)', () => {
    const body = `data: ${JSON.stringify({
      candidates: [
        {
          content: { parts: [] },
          finishReason: 'MALFORMED_FUNCTION_CALL',
          finishMessage: 'Malformed function call: x(',
        },
      ],
    })}\n\n`;
    const r = decode(body);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'provider error (MALFORMED_FUNCTION_CALL): the response was stopped: Malformed function call: x(',
    ]);
    expect(r.finishReason).toBe('MALFORMED_FUNCTION_CALL');
  });

  test('a blocked prompt: no text, one provider-error, the block reason as finish reason', () => {
    const r = decode(fixture('gemini-prompt-blocked.sse'));
    expect(r.text).toBe('');
    expect(brief(r)).toEqual([['provider-error', 1, 'provider error (PROHIBITED_CONTENT): the prompt was blocked']]);
    expect(r).toMatchObject({ finishReason: 'PROHIBITED_CONTENT', usage: { inputTokens: 7, totalTokens: 7 } });
  });

  test('an error object mid-stream: the text before it, the error with its code', () => {
    const r = decode(fixture('gemini-error.sse'));
    expect(r.text).toBe('The first part');
    expect(brief(r)).toEqual([
      ['provider-error', 3, 'provider error (503): The model is overloaded. Please try again later.'],
    ]);
    expect(r).toMatchObject({
      finishReason: 'error',
      error: { message: 'The model is overloaded. Please try again later.', code: '503' },
    });
  });
});

describe('function calls', () => {
  test('whole functionCall parts: one call each, arguments delivered as one piece, parallel calls apart', () => {
    const r = decode(fixture('gemini-function-call.sse'));
    expect(r.text).toBe('Checking both cities.');
    expect(r.toolCalls).toEqual([
      {
        key: 'candidate0.function_call0',
        index: 0,
        id: 'fc-1',
        name: 'get_weather',
        arguments: '{"city":"Paris","units":"celsius"}',
        complete: true,
      },
      {
        key: 'candidate0.function_call1',
        index: 1,
        id: 'fc-2',
        name: 'get_weather',
        arguments: '{"city":"Zürich","units":"celsius","days":[1,2]}',
        complete: true,
      },
    ]);
    expect(r.calls.filter((c) => c[0] === 'toolArguments')).toEqual([
      [
        'toolArguments',
        'candidate0.function_call0',
        '{"city":"Paris","units":"celsius"}',
        { index: 0, id: 'fc-1', name: 'get_weather' },
      ],
      [
        'toolArguments',
        'candidate0.function_call1',
        '{"city":"Zürich","units":"celsius","days":[1,2]}',
        { index: 1, id: 'fc-2', name: 'get_weather' },
      ],
    ]);
    expect(r).toMatchObject({ finishReason: 'STOP', diagnostics: [] });
  });

  test('a call without args reads as {}', () => {
    const r = decode(
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { name: 'now' } }] }, finishReason: 'STOP' }] })}\n\n`,
    );
    expect(r.toolCalls).toEqual([
      { key: 'candidate0.function_call0', index: 0, name: 'now', arguments: '{}', complete: true },
    ]);
  });

  test('Vertex partialArgs are assembled at their jsonPath and delivered whole when the call closes', () => {
    const r = decode(fixture('gemini-vertex-partial-args.sse'));
    expect(r.toolCalls).toHaveLength(1);
    const call = r.toolCalls[0];
    expect(call).toMatchObject({ key: 'candidate0.function_call0', name: 'book_table', complete: true });
    const args = JSON.parse(call?.arguments ?? '');
    expect(args).toEqual(
      JSON.parse(
        '{"restaurant":"Chez Léon","party":{"size":4,"highChair":true,"notes":null},"times":["19:30","20:00"],"__proto__":{"polluted":"no"}}',
      ),
    );
    // `__proto__` is an ordinary key: nothing reached a prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(r.calls.filter((c) => c[0] === 'toolArguments')).toHaveLength(1);
    expect(r).toMatchObject({ finishReason: 'STOP', diagnostics: [] });
    expect(r.usage).toEqual({ inputTokens: 31, outputTokens: 89, totalTokens: 120 });
  });

  test('a stream cut inside a streamed call: the call is open, not complete, and named in the diagnostic', () => {
    const body = fixture('gemini-vertex-partial-args.sse');
    const r = decode(body.slice(0, body.lastIndexOf('data: ')));
    expect(r.toolCalls).toEqual([
      { key: 'candidate0.function_call0', index: 0, name: 'book_table', arguments: '', complete: false },
    ]);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'the stream ended before a finishReason; tool call(s) cut off: candidate0.function_call0 (book_table) after 0 characters',
    ]);
  });

  test('a partialArgs piece without a path or value is reported once, the rest of the call kept', () => {
    const part = (functionCall: object) => ({ candidates: [{ content: { parts: [{ functionCall }] } }] });
    const body = [
      part({ name: 'f', willContinue: true }),
      part({ partialArgs: [{ jsonPath: 'location', stringValue: 'x' }], willContinue: true }),
      part({ partialArgs: [{ jsonPath: '$.a' }], willContinue: true }),
      part({ partialArgs: [{ jsonPath: '$.b', numberValue: 1 }], willContinue: true }),
      { ...part({}), candidates: [{ content: { parts: [{ functionCall: {} }] }, finishReason: 'STOP' }] },
    ]
      .map((e) => `data: ${JSON.stringify(e)}\n\n`)
      .join('');
    const r = decode(body);
    expect(r.toolCalls[0]).toMatchObject({ name: 'f', arguments: '{"b":1}', complete: true });
    expect(brief(r)).toEqual([
      [
        'unrecognized',
        3,
        'function call candidate0.function_call0: a partialArgs piece that is not a {jsonPath, value} this decoder reads; ignored (and any that follow)',
      ],
    ]);
  });
});

describe('Vertex partialArgs past maxArgumentsLength', () => {
  const part = (functionCall: object) => ({ candidates: [{ content: { parts: [{ functionCall }] } }] });
  const sse = (...events: object[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
  const end = {
    candidates: [{ content: { parts: [{ functionCall: { name: 'g', args: { ok: true } } }] }, finishReason: 'STOP' }],
  };

  test("an index far past an array's end (its nulls would pass the cap) drops the call: one too-long, no RangeError", () => {
    const body = sse(
      part({ name: 'f', willContinue: true }),
      part({ partialArgs: [{ jsonPath: '$.a[400000000]', numberValue: 1 }], willContinue: true }),
      part({ partialArgs: [{ jsonPath: '$.b', numberValue: 2 }], willContinue: true }),
      part({}),
      end,
    );
    const r = decode(body);
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      [
        'too-long',
        'tool call 0 (f): its arguments are longer than maxArgumentsLength (8388608 characters); the call is dropped',
      ],
    ]);
    expect(r.diagnostics[0]?.toolCall).toEqual({ index: 0, name: 'f' });
    expect(r.toolCalls).toEqual([
      { key: 'candidate0.function_call1', index: 1, name: 'g', arguments: '{"ok":true}', complete: true },
    ]);
    expect(r.finishReason).toBe('STOP');
  });

  test('string values appended past the cap drop the call once; later pieces of it are ignored', () => {
    const body = sse(
      part({ name: 'f', willContinue: true }),
      ...Array.from({ length: 6 }, () =>
        part({ partialArgs: [{ jsonPath: '$.text', stringValue: 'abcdefghij' }], willContinue: true }),
      ),
      part({}),
      end,
    );
    const once = (chunks: readonly string[]) => {
      const diagnostics: string[] = [];
      const pieces: string[] = [];
      const decoder = createProviderDecoder(
        { input: 'auto', maxArgumentsLength: 40 },
        {
          text: () => undefined,
          diagnostic: (d) => diagnostics.push(`${d.reason}: ${d.message}`),
          toolArguments: (key, delta) => pieces.push(`${key} ${delta}`),
        },
      );
      for (const c of chunks) decoder.write(c);
      decoder.end();
      return { diagnostics, pieces, toolCalls: decoder.toolCalls };
    };
    const whole = once([body]);
    expect(whole.diagnostics).toEqual([
      'too-long: tool call 0 (f): its arguments are longer than maxArgumentsLength (40 characters); the call is dropped',
    ]);
    expect(whole.pieces).toEqual(['candidate0.function_call1 {"ok":true}']);
    expect(whole.toolCalls.map((c) => c.name)).toEqual(['g']);
    for (const size of [1, 7, 50]) {
      const chunks = Array.from({ length: Math.ceil(body.length / size) }, (_, i) =>
        body.slice(i * size, (i + 1) * size),
      );
      expect(once(chunks), `size ${size}`).toEqual(whole);
    }
  });
});

describe('configuration', () => {
  test("'gemini' is an input; the format is detected under auto", () => {
    const sink = { text() {}, diagnostic() {} };
    expect(createProviderDecoder({ input: 'gemini' }, sink).provider).toBe('gemini');
    expect(createProviderDecoder({ input: 'auto' }, sink).provider).toBeUndefined();
  });

  test('a Gemini stream under another input is reported, not decoded', () => {
    const r = decode(fixture('gemini-text.sse'), 'openai');
    expect(r.text).toBe('');
    expect(r.diagnostics[0]?.message).toBe('not an event of the openai stream format; ignored');
  });
});

describe('any Gemini-shaped stream', () => {
  const value = fc.oneof(
    fc.record({ stringValue: fc.string({ maxLength: 6 }) }),
    fc.record({ numberValue: fc.oneof(fc.integer(), fc.double()) }),
    fc.record({ boolValue: fc.boolean() }),
    fc.constant({ nullValue: null }),
    fc.constant({}),
  );
  const piece = fc
    .tuple(
      fc.oneof(
        fc.constantFrom('$.a', '$.a.b', '$.l[0]', '$.l[2]', '$["x y"]', "$['__proto__'].p", '$', '$[0]', 'a'),
        fc.string({ maxLength: 8 }),
      ),
      value,
      fc.boolean(),
    )
    .map(([jsonPath, v, willContinue]) => ({ jsonPath, ...v, ...(willContinue ? { willContinue } : {}) }));
  const functionCall = fc.record(
    {
      name: fc.constantFrom('f', 'g', ''),
      args: fc.dictionary(fc.constantFrom('k', '__proto__', 'z'), fc.jsonValue({ maxDepth: 2 })),
      partialArgs: fc.array(piece, { maxLength: 3 }),
      willContinue: fc.boolean(),
    },
    { requiredKeys: [] },
  );
  const part = fc.oneof(
    fc.record({ text: fc.string({ maxLength: 8 }), thought: fc.boolean() }, { requiredKeys: ['text'] }),
    fc.record({ functionCall }),
  );
  const event = fc.record(
    {
      candidates: fc.array(
        fc.record(
          {
            index: fc.constantFrom(0, 1),
            content: fc.record({ parts: fc.array(part, { maxLength: 3 }) }),
            finishReason: fc.constantFrom('STOP', 'MAX_TOKENS', 'SAFETY', ''),
          },
          { requiredKeys: ['content'] },
        ),
        { maxLength: 2 },
      ),
      usageMetadata: fc.record(
        { promptTokenCount: fc.nat(), candidatesTokenCount: fc.nat(), thoughtsTokenCount: fc.nat() },
        { requiredKeys: [] },
      ),
      promptFeedback: fc.record({ blockReason: fc.constantFrom('SAFETY', '') }),
    },
    { requiredKeys: ['candidates'] },
  );
  const body = fc
    .tuple(fc.array(event, { maxLength: 8 }), fc.constantFrom('\n\n', '\r\n\r\n'))
    .map(([events, end]) => events.map((e) => `data: ${JSON.stringify(e)}${end}`).join(''));

  fcTest.prop([body.chain((b) => fc.tuple(fc.constant(b), splitPoints(b.length)))], { numRuns })(
    'never throws, any split agrees, every closed call parses, no prototype is touched',
    ([b, points]) => {
      const whole = run([b], 'gemini');
      expect(run(splitAt(b, points), 'gemini')).toEqual(whole);
      for (const call of whole.toolCalls) {
        expect(whole.tools[call.key] ?? '').toBe(call.arguments);
        if (call.complete) expect(() => JSON.parse(call.arguments)).not.toThrow();
      }
      expect(({} as Record<string, unknown>).p).toBeUndefined();
    },
  );
});
