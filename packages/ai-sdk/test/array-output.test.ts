/**
 * `array({ element })` through `streamText` and `generateText` with the AI SDK's mock model:
 * - on a valid `{ "elements": [...] }` answer the final list equals `Output.array`'s, and the
 *   element stream yields each element once, in order, under arbitrary chunking;
 * - a cut-off answer keeps its complete elements (where `Output.array` throws);
 * - an invalid element is dropped and reported with its path; with `failFast` it aborts the
 *   request through its signal;
 * - scalars, a bare array, and an array in a fenced block are read.
 */
import { test as fcTest } from '@fast-check/vitest';
import type { Diagnostic } from '@llmjson/core';
import { compileSchema } from '@llmjson/web/ajv';
import { generateText, NoObjectGeneratedError, Output, streamText } from 'ai';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { z } from 'zod';
import { array } from '../src/index.js';
import { chunked, collect, describeAi, mockModel } from './helpers.js';

const Item = z.object({ id: z.number(), name: z.string() });
const items = Array.from({ length: 6 }, (_, i) => ({ id: i, name: `item ${i}`, note: 'dropped by zod' }));
const answer = JSON.stringify({ elements: items });
const expected = items.map(({ id, name }) => ({ id, name }));

async function streamed<O>(output: O, chunks: readonly string[], finishReason: 'stop' | 'length' = 'stop') {
  const mock = mockModel(chunks, finishReason);
  const result = streamText({ model: mock.model, prompt: 'p', output: output as never });
  const elements = await collect(result.elementStream as AsyncIterable<unknown>);
  const final = await Promise.resolve(result.output as PromiseLike<unknown>).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { elements, final, mock };
}

describeAi('array() in streamText and generateText (ai 7)', () => {
  test('a valid answer gives the list Output.array gives, each element streamed once', async () => {
    const ours = await streamed(array({ element: Item }), chunked(answer, 5));
    const theirs = await streamed(Output.array({ element: Item }), chunked(answer, 5));
    expect(ours.final).toEqual(theirs.final);
    expect(ours.final).toEqual({ value: expected });
    expect(ours.elements).toEqual(expected);
  });

  test('generateText gives the list Output.array gives, and the provider is asked for the same envelope', async () => {
    const mock = mockModel([answer]);
    const ours = await generateText({ model: mock.model, prompt: 'p', output: array({ element: Item }) });
    const theirs = await generateText({ model: mock.model, prompt: 'p', output: Output.array({ element: Item }) });
    expect(ours.output).toEqual(theirs.output);
    // The same envelope; the element's JSON Schema is zod's own export (the AI SDK converts with its options).
    expect(mock.model.doGenerateCalls[0]?.responseFormat).toMatchObject({
      type: 'json',
      schema: {
        type: 'object',
        required: ['elements'],
        properties: { elements: { type: 'array', items: { type: 'object', required: ['id', 'name'] } } },
      },
    });
  });

  fcTest.prop([fc.array(fc.integer({ min: 1, max: answer.length - 1 }), { maxLength: 16 })], { numRuns: 30 })(
    'any chunking streams every element once and ends with the same list',
    async (cuts) => {
      const points = [...new Set(cuts)].sort((a, b) => a - b);
      const chunks = [0, ...points].map((start, i) => answer.slice(start, points[i] ?? answer.length));
      const ours = await streamed(array({ element: Item }), chunks);
      expect(ours.elements).toEqual(expected);
      expect(ours.final).toEqual({ value: expected });
    },
  );

  test('a cut-off answer keeps its complete elements, where Output.array throws', async () => {
    const cut = answer.slice(0, answer.indexOf('item 4') + 3);
    const diagnostics: Diagnostic[] = [];
    const ours = await streamed(
      array({ element: Item, onDiagnostic: (d) => diagnostics.push(d) }),
      chunked(cut, 4),
      'length',
    );
    expect(ours.final).toEqual({ value: expected.slice(0, 4) });
    expect(diagnostics.map((d) => d.reason)).toEqual(['truncated']);
    const theirs = await streamed(Output.array({ element: Item }), chunked(cut, 4), 'length');
    expect(NoObjectGeneratedError.isInstance((theirs.final as { error: unknown }).error)).toBe(true);
  });

  test('an invalid element is dropped and reported with its path', async () => {
    const text = JSON.stringify({
      elements: [
        { id: 1, name: 'a' },
        { id: 'two', name: 'b' },
        { id: 3, name: 'c' },
      ],
    });
    const diagnostics: Diagnostic[] = [];
    const ours = await streamed(array({ element: Item, onDiagnostic: (d) => diagnostics.push(d) }), chunked(text, 3));
    expect(ours.final).toEqual({
      value: [
        { id: 1, name: 'a' },
        { id: 3, name: 'c' },
      ],
    });
    expect(diagnostics).toMatchObject([{ reason: 'schema', path: '/elements/1' }]);
  });

  test('failFast aborts the request at the first invalid element', async () => {
    const many = [{ id: 'zero', name: 'x' }, ...items];
    const chunks = chunked(JSON.stringify({ elements: [...many, ...many, ...many] }), 4);
    const controller = new AbortController();
    const mock = mockModel(chunks);
    const result = streamText({
      model: mock.model,
      prompt: 'p',
      abortSignal: controller.signal,
      output: array({ element: Item, failFast: true, abortController: controller }),
    });
    await collect(result.fullStream);
    expect((controller.signal.reason as Error).name).toBe('ContractViolationError');
    expect(mock.sawAbort).toBe(true);
    expect(mock.pulled).toBeLessThan(chunks.length / 2);
  });

  test('scalar elements, a bare array and a fenced array', async () => {
    const numbers = await streamed(
      array({ element: { type: 'number' }, compileJsonSchema: compileSchema }),
      chunked('{"elements":[1,22,333,4]}', 2),
    );
    expect(numbers.final).toEqual({ value: [1, 22, 333, 4] });
    expect(numbers.elements).toEqual([1, 22, 333, 4]);
    const bare = await streamed(array({ element: z.string() }), chunked('["a","bc"]', 2));
    expect(bare.final).toEqual({ value: ['a', 'bc'] });
    const fenced = await streamed(
      array({ element: z.string() }),
      chunked('Keys like {a} are fine.\n```json\n{"elements":["x","y"]}\n```', 6),
    );
    expect(fenced.final).toEqual({ value: ['x', 'y'] });
  });

  test('a JSON Schema element without a compiler is refused up front, and unknown options by name', () => {
    expect(() => array({ element: { type: 'number' } })).toThrow(/compileJsonSchema/);
    expect(() => array({ element: Item, elements: Item } as never)).toThrow(/elements/);
  });
});
