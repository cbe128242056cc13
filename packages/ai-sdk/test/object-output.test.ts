/**
 * `object({ schema })` through the AI SDK's own `streamText` and `generateText`, driven by the
 * AI SDK's mock language model (`ai/test`):
 * - on valid answers the final value equals what the AI SDK's `Output.object` gives for the
 *   same chunks (zod: the vendor's output, unknown keys stripped), under arbitrary chunking;
 * - partials are prefixes that grow to the final value, and none is given after a violation;
 * - fences and prose around the document are skipped; an invalid or cut-off answer is the AI
 *   SDK's `NoObjectGeneratedError` with llmjson's reason;
 * - `failFast` aborts the request's controller at the first violation: the mock model sees its
 *   call's signal aborted and stops being read;
 * - a JSON Schema works with a compiler, and the same output object serves calls one after
 *   another (each restarts).
 */
import { test as fcTest } from '@fast-check/vitest';
import { compileSchema } from '@llmjson/web/ajv';
import { generateText, NoObjectGeneratedError, Output, streamText } from 'ai';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { z } from 'zod';
import { object } from '../src/index.js';
import { chunked, collect, describeAi, mockModel } from './helpers.js';

const Person = z.object({ name: z.string(), age: z.number(), tags: z.array(z.string()) });
const answer = JSON.stringify({ name: 'Ada Lovelace', age: 36, tags: ['math', 'engines'], extra: true });

async function streamed<O>(output: O, chunks: readonly string[]) {
  const mock = mockModel(chunks);
  const result = streamText({ model: mock.model, prompt: 'p', output: output as never });
  const partials = await collect(result.partialOutputStream as AsyncIterable<unknown>);
  const final = await Promise.resolve(result.output as PromiseLike<unknown>).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { partials, final, mock };
}

describeAi('object() in streamText and generateText (ai 7)', () => {
  test('the final value equals Output.object on a valid answer, and the partials grow to it', async () => {
    const ours = await streamed(object({ schema: Person }), chunked(answer, 3));
    const theirs = await streamed(Output.object({ schema: Person }), chunked(answer, 3));
    expect(ours.final).toEqual(theirs.final);
    expect(ours.final).toEqual({ value: { name: 'Ada Lovelace', age: 36, tags: ['math', 'engines'] } });
    expect(ours.partials.length).toBeGreaterThan(5);
    expect(ours.partials.at(-1)).toEqual(JSON.parse(answer));
    for (let i = 1; i < ours.partials.length; i++) {
      const before = JSON.stringify(ours.partials[i - 1]).replace(/["}\]]+$/, '');
      expect(JSON.stringify(ours.partials[i]).startsWith(before)).toBe(true);
    }
  });

  test('generateText returns the same value as Output.object', async () => {
    const mock = mockModel([answer]);
    const ours = await generateText({ model: mock.model, prompt: 'p', output: object({ schema: Person }) });
    const theirs = await generateText({ model: mock.model, prompt: 'p', output: Output.object({ schema: Person }) });
    expect(ours.output).toEqual(theirs.output);
  });

  test('the provider gets the JSON response format with the schema', async () => {
    const mock = mockModel([answer]);
    await generateText({ model: mock.model, prompt: 'p', output: object({ schema: Person, name: 'person' }) });
    const format = mock.model.doGenerateCalls[0]?.responseFormat as { type: string; schema: unknown; name: string };
    expect(format.type).toBe('json');
    expect(format.name).toBe('person');
    expect(format.schema).toMatchObject({ type: 'object', properties: { name: { type: 'string' } } });
  });

  fcTest.prop([fc.array(fc.integer({ min: 1, max: answer.length - 1 }), { maxLength: 12 })], { numRuns: 40 })(
    'any chunking gives the final value Output.object gives',
    async (cuts) => {
      const points = [...new Set(cuts)].sort((a, b) => a - b);
      const chunks = [0, ...points].map((start, i) => answer.slice(start, points[i] ?? answer.length));
      const ours = await streamed(object({ schema: Person }), chunks);
      const theirs = await streamed(Output.object({ schema: Person }), chunks);
      expect(ours.final).toEqual(theirs.final);
      expect(ours.partials.at(-1)).toEqual(JSON.parse(answer));
    },
  );

  test('a fence and prose around the document are skipped', async () => {
    const text = `Here is the person:\n\`\`\`json\n${answer}\n\`\`\`\nAnything else?`;
    const ours = await streamed(object({ schema: Person }), chunked(text, 5));
    expect(ours.final).toEqual({ value: { name: 'Ada Lovelace', age: 36, tags: ['math', 'engines'] } });
    const theirs = await streamed(Output.object({ schema: Person }), chunked(text, 5));
    expect(theirs.final).toHaveProperty('error');
  });

  test('prose with a stray brace before the fenced answer is salvaged at the end', async () => {
    const text = `Use {name} as the key.\n\`\`\`json\n${answer}\n\`\`\``;
    const ours = await streamed(object({ schema: Person }), chunked(text, 7));
    expect(ours.final).toEqual({ value: { name: 'Ada Lovelace', age: 36, tags: ['math', 'engines'] } });
  });

  test('an answer the schema rejects is NoObjectGeneratedError with the reason, and no partial after the violation', async () => {
    const diagnostics: string[] = [];
    const text = '{"name":"Ada","age":"thirty-six","tags":[]}';
    const ours = await streamed(
      object({ schema: Person, onDiagnostic: (d) => diagnostics.push(d.reason) }),
      chunked(text, 4),
    );
    const error = (ours.final as { error: unknown }).error;
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/age/);
    expect(diagnostics[0]).toBe('violation');
    for (const partial of ours.partials) expect((partial as { age?: unknown }).age).toBeUndefined();
  });

  test('a cut-off answer is NoObjectGeneratedError (truncated)', async () => {
    const ours = await streamed(object({ schema: Person }), chunked(answer.slice(0, 30), 4));
    const error = (ours.final as { error: Error }).error;
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/truncated/);
  });

  test('failFast aborts the request through its AbortSignal at the first violation', async () => {
    const text = `{"name":"Ada","age":"x${' padding'.repeat(200)}","tags":[]}`;
    const chunks = chunked(text, 4);
    const controller = new AbortController();
    const mock = mockModel(chunks);
    const result = streamText({
      model: mock.model,
      prompt: 'p',
      abortSignal: controller.signal,
      output: object({ schema: Person, failFast: true, abortController: controller }),
    });
    const parts = await collect(result.fullStream);
    expect(controller.signal.aborted).toBe(true);
    expect((controller.signal.reason as Error).name).toBe('ContractViolationError');
    expect(mock.sawAbort).toBe(true);
    expect(mock.pulled).toBeLessThan(chunks.length / 2);
    expect(parts.some((part) => part.type === 'abort' || part.type === 'error')).toBe(true);
  });

  test('a JSON Schema with a compiler types nothing but validates everything', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'number' } },
      required: ['name', 'age'],
    } as const;
    const good = await streamed(
      object({ schema, compileJsonSchema: compileSchema }),
      chunked('{"name":"A","age":1}', 3),
    );
    expect(good.final).toEqual({ value: { name: 'A', age: 1 } });
    const bad = await streamed(object({ schema, compileJsonSchema: compileSchema }), chunked('{"name":"A"}', 3));
    expect(NoObjectGeneratedError.isInstance((bad.final as { error: unknown }).error)).toBe(true);
  });

  test('one output object serves calls one after another', async () => {
    const output = object({ schema: Person });
    const first = await streamed(output, chunked(answer, 6));
    const other = JSON.stringify({ name: 'Grace', age: 85, tags: [] });
    const second = await streamed(output, chunked(other, 6));
    expect(first.final).toEqual({ value: { name: 'Ada Lovelace', age: 36, tags: ['math', 'engines'] } });
    expect(second.final).toEqual({ value: { name: 'Grace', age: 85, tags: [] } });
    expect(second.partials.at(-1)).toEqual({ name: 'Grace', age: 85, tags: [] });
  });

  test('unknown options are refused by name', () => {
    expect(() => object({ schema: Person, failfast: true } as never)).toThrow(/failfast/);
  });
});
