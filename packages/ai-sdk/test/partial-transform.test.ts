/**
 * `partialObjectTransform` in `streamText({ experimental_transform })` with the AI SDK's mock
 * model: every part the model sent reaches `fullStream` unchanged and in order; `llmjson.partial`
 * parts follow the deltas that changed the value and grow to `llmjson.value`, the complete
 * document; a violation is an `llmjson.diagnostic` part, after which no partial is added; with
 * `failFast` the transform stops the stream and aborts the request's controller.
 */
import { streamText, type TextStreamPart, type ToolSet } from 'ai';
import { expect, test } from 'vitest';
import { z } from 'zod';
import { PartKind, partialObjectTransform } from '../src/index.js';
import { chunked, collect, describeAi, mockModel } from './helpers.js';

const Person = z.object({ name: z.string(), tags: z.array(z.string()) });
const answer = JSON.stringify({ name: 'Ada', tags: ['math', 'engines', 'poetry'] });

type Part = TextStreamPart<ToolSet>;
const llmjson = (part: Part) => (part as { providerMetadata?: { llmjson?: unknown } }).providerMetadata?.llmjson;

async function parts(transform: ReturnType<typeof partialObjectTransform>, chunks: readonly string[]) {
  const mock = mockModel(chunks);
  const controller = new AbortController();
  const result = streamText({
    model: mock.model,
    prompt: 'p',
    abortSignal: controller.signal,
    experimental_transform: transform,
  });
  return { parts: (await collect(result.fullStream)) as Part[], mock, controller };
}

describeAi('partialObjectTransform in fullStream (ai 7)', () => {
  test('partials and the final value are added after the deltas; the model parts pass unchanged', async () => {
    const chunks = chunked(answer, 4);
    const { parts: all } = await parts(partialObjectTransform({ schema: Person }), chunks);
    const deltas = all.filter((p) => p.type === 'text-delta').map((p) => (p as { text: string }).text);
    expect(deltas.join('')).toBe(answer);
    const ours = all.filter((p) => p.type === 'custom');
    const partials = ours
      .filter((p) => p.kind === PartKind.partial)
      .map((p) => (llmjson(p) as { value: unknown }).value);
    const finals = ours.filter((p) => p.kind === PartKind.value).map((p) => (llmjson(p) as { value: unknown }).value);
    expect(partials.length).toBeGreaterThan(4);
    expect(partials.at(-1)).toEqual(JSON.parse(answer));
    expect(finals).toEqual([JSON.parse(answer)]);
    // Each partial comes right after a text delta.
    all.forEach((part, i) => {
      if (part.type === 'custom' && part.kind === PartKind.partial) expect(all[i - 1]?.type).toBe('text-delta');
    });
  });

  test('a violation is a diagnostic part, and no partial follows it', async () => {
    const text = '{"name":"Ada","tags":["a",7,"b"]}';
    const { parts: all } = await parts(partialObjectTransform({ schema: Person }), chunked(text, 3));
    const ours = all.filter((p) => p.type === 'custom');
    const at = ours.findIndex((p) => p.kind === PartKind.diagnostic);
    expect(llmjson(ours[at] as Part)).toMatchObject({ reason: 'violation', path: '/tags/1' });
    expect(ours.slice(at).some((p) => p.kind === PartKind.partial || p.kind === PartKind.value)).toBe(false);
  });

  test('failFast stops the stream and aborts the request', async () => {
    const text = `{"name":7,"tags":[${'"x",'.repeat(300)}"y"]}`;
    const chunks = chunked(text, 4);
    const mock = mockModel(chunks);
    const controller = new AbortController();
    const result = streamText({
      model: mock.model,
      prompt: 'p',
      abortSignal: controller.signal,
      experimental_transform: partialObjectTransform({ schema: Person, failFast: true, abortController: controller }),
    });
    const all = (await collect(result.fullStream)) as Part[];
    expect((controller.signal.reason as Error).name).toBe('ContractViolationError');
    expect(mock.pulled).toBeLessThan(chunks.length / 2);
    expect(all.filter((p) => p.type === 'text-delta').length).toBeLessThan(chunks.length / 2);
  });

  test('unknown options are refused by name', () => {
    expect(() => partialObjectTransform({ schemas: Person } as never)).toThrow(/schemas/);
  });
});
