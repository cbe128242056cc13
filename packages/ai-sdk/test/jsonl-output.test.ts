/**
 * `jsonl({ schema })` through `streamText` and `generateText` with the AI SDK's mock model:
 * - each valid object is on `elementStream` as its line completes (before the answer ends), and
 *   the final list holds them all, under arbitrary chunking;
 * - fence, blank and prose lines are skipped; invalid and malformed lines are dropped and
 *   reported with their line numbers; a cut-off last line is reported, the others kept;
 * - `failFast` aborts the request through its signal at the first invalid line;
 * - the provider is asked for text (no JSON mode).
 */
import { test as fcTest } from '@fast-check/vitest';
import type { Diagnostic } from '@llmjson/core';
import { generateText, streamText } from 'ai';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { z } from 'zod';
import { jsonl } from '../src/index.js';
import { chunked, collect, describeAi, mockModel } from './helpers.js';

const Product = z.object({ name: z.string(), price: z.number() });
const products = [
  { name: 'lamp', price: 20 },
  { name: 'desk', price: 150 },
  { name: 'chair', price: 75 },
];
const answer = products.map((p) => JSON.stringify(p)).join('\n');

async function streamed<O>(output: O, chunks: readonly string[]) {
  const mock = mockModel(chunks);
  const result = streamText({ model: mock.model, prompt: 'p', output: output as never });
  const elements: { value: unknown; pulled: number }[] = [];
  for await (const value of result.elementStream as AsyncIterable<unknown>)
    elements.push({ value, pulled: mock.pulled });
  const final = await Promise.resolve(result.output as PromiseLike<unknown>).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { elements, final, mock, chunks };
}

describeAi('jsonl() in streamText and generateText (ai 7)', () => {
  test('each object streams as its line completes; the final list holds them all', async () => {
    const run = await streamed(jsonl({ schema: Product }), chunked(answer, 4));
    expect(run.elements.map((e) => e.value)).toEqual(products);
    expect(run.final).toEqual({ value: products });
    // On a long answer the first object arrives while the model still has most of it to send.
    const many = Array.from({ length: 60 }, (_, i) => ({ name: `p${i}`, price: i }));
    const long = await streamed(jsonl({ schema: Product }), chunked(many.map((p) => JSON.stringify(p)).join('\n'), 4));
    expect(long.elements.map((e) => e.value)).toEqual(many);
    expect(long.elements[0]?.pulled).toBeLessThan(long.chunks.length / 2);
  });

  test('generateText gives every object; the provider is asked for text', async () => {
    const mock = mockModel([answer]);
    const result = await generateText({ model: mock.model, prompt: 'p', output: jsonl({ schema: Product }) });
    expect(result.output).toEqual(products);
    expect(mock.model.doGenerateCalls[0]?.responseFormat).toEqual({ type: 'text' });
  });

  fcTest.prop([fc.array(fc.integer({ min: 1, max: answer.length - 1 }), { maxLength: 12 })], { numRuns: 30 })(
    'any chunking gives the same objects',
    async (cuts) => {
      const points = [...new Set(cuts)].sort((a, b) => a - b);
      const chunks = [0, ...points].map((start, i) => answer.slice(start, points[i] ?? answer.length));
      const run = await streamed(jsonl({ schema: Product }), chunks);
      expect(run.elements.map((e) => e.value)).toEqual(products);
      expect(run.final).toEqual({ value: products });
    },
  );

  test('fences and prose are skipped; invalid, malformed and cut-off lines are reported, not thrown', async () => {
    const text = [
      'Here are the products:',
      '```jsonl',
      JSON.stringify(products[0]),
      '{"name":"broken",',
      JSON.stringify({ name: 'free', price: 'none' }),
      '',
      JSON.stringify(products[1]),
      '```',
      '{"name":"cut',
    ].join('\n');
    const diagnostics: Diagnostic[] = [];
    const run = await streamed(jsonl({ schema: Product, onDiagnostic: (d) => diagnostics.push(d) }), chunked(text, 5));
    expect(run.final).toEqual({ value: [products[0], products[1]] });
    expect(diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['prose', 1],
      ['syntax', 4],
      ['schema', 5],
      ['truncated', 9],
    ]);
  });

  test('failFast aborts the request at the first invalid line', async () => {
    const lines = [JSON.stringify(products[0]), '{"name":"free","price":"none"}'];
    for (let i = 0; i < 100; i++) lines.push(JSON.stringify(products[1]));
    const chunks = chunked(lines.join('\n'), 4);
    const controller = new AbortController();
    const mock = mockModel(chunks);
    const result = streamText({
      model: mock.model,
      prompt: 'p',
      abortSignal: controller.signal,
      output: jsonl({ schema: Product, failFast: true, abortController: controller }),
    });
    const elements = await collect(result.elementStream as AsyncIterable<unknown>).catch(() => []);
    expect((controller.signal.reason as Error).name).toBe('ContractViolationError');
    expect(mock.sawAbort).toBe(true);
    expect(mock.pulled).toBeLessThan(chunks.length / 2);
    expect(elements.length).toBeLessThanOrEqual(1);
    const error = await Promise.resolve(result.output as PromiseLike<unknown>).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The AI SDK rejects an aborted call's output with the signal's reason: the violation itself.
    expect((error as Error).name).toBe('ContractViolationError');
  });

  test('unknown options are refused by name', () => {
    expect(() => jsonl({ schema: Product, onDiagnostics: () => {} } as never)).toThrow(/onDiagnostics/);
  });
});
