/**
 * A json prompt whose schema gives every array element one `items` schema streams its elements
 * (the element scanner): what that scanner reports — an element that fails its schema, an
 * array cut off — reaches `onDiagnostic` and the envelope, as the runner promises.
 */
import { createPromptManager, type Llm } from '@llmjson/contracts';
import type { Diagnostic } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';

const config = {
  prompts: {
    list: {
      prompt: 'List the items.',
      'response-type': 'json',
      schema: {
        type: 'array',
        items: {
          type: 'object',
          properties: { n: { type: 'integer' } },
          required: ['n'],
          additionalProperties: false,
        },
      },
    },
  },
} as const;

function scripted(text: string, size: number, finishReason?: string): Llm {
  return () => {
    async function* output() {
      for (const chunk of chunkText(text, size)) {
        await Promise.resolve();
        yield chunk;
      }
    }
    return { output: output(), ...(finishReason === undefined ? {} : { finishReason }) };
  };
}

async function runStream(text: string, size: number, options: { coerce?: boolean; finishReason?: string } = {}) {
  const seen: [Diagnostic, string][] = [];
  const m = createPromptManager(config, {
    ...(options.coerce === undefined ? {} : { coerce: options.coerce }),
    onDiagnostic: (d, id) => seen.push([d, id]),
  });
  const stream = m.stream('list', {}, scripted(text, size, options.finishReason));
  const values: unknown[] = [];
  for await (const value of stream) values.push(value);
  return { values, seen, outcome: await stream.outcome };
}

describe('json prompt streaming array elements: element diagnostics are delivered', () => {
  test.each([1, 3, 64])(
    'an element that fails its schema is reported through onDiagnostic (chunks of %i)',
    async (size) => {
      const r = await runStream('[{"n": 1}, {"n": "two"}, {"n": 3}]', size);
      expect(r.values).toEqual([{ n: 1 }, { n: 3 }]);
      const schema = r.seen.filter(([d]) => d.reason === 'schema');
      expect(schema).toHaveLength(1);
      expect(schema[0]?.[1]).toBe('list');
      expect(schema[0]?.[0].message).toMatch(/^element 1: /);
      expect(r.outcome.status).toBe('failed');
      expect(r.outcome.diagnostics?.map((d) => d.reason)).toContain('schema');
    },
  );

  test('an array cut off at the token limit: the elements before the cut, and the cut reported', async () => {
    const r = await runStream('[{"n": 1}, {"n": 2}, {"n": 3', 4, { finishReason: 'length' });
    expect(r.values).toEqual([{ n: 1 }, { n: 2 }]);
    expect(r.seen.map(([d]) => d.reason)).toEqual(['truncated']);
    expect(r.outcome.status).toBe('incomplete');
  });

  test('a coerced element is reported once (by the document), not once per engine', async () => {
    const r = await runStream('[{"n": "1"}, {"n": 2}]', 5, { coerce: true });
    expect(r.values).toEqual([{ n: 1 }, { n: 2 }]);
    expect(r.seen.map(([d]) => [d.reason, d.path])).toEqual([['recovered', '/0/n']]);
    expect(r.outcome.status).toBe('succeeded');
  });

  test('a valid answer reports nothing', async () => {
    const r = await runStream('[{"n": 1}, {"n": 2}]', 2);
    expect(r.values).toEqual([{ n: 1 }, { n: 2 }]);
    expect(r.seen).toEqual([]);
  });
});
