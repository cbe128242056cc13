/**
 * Linear work, counted where it is done: every text the parsers hand to an llmjson engine
 * (`createPartialBuilder`'s and `createJsonlDecoder`'s `write`) is counted, and over a whole
 * streamed run the count is at most the answer's length, for 1- to 16-character chunks and
 * every `emit` mode. A parser that re-fed the text so far per chunk (what LangChain's
 * JsonOutputParser does with its parse) would count about n²/2c here. The engines' own per-character
 * linearity is core's invariant, tested there.
 */

import type { JsonlSink, PartialSink } from '@llmjson/core';
import { JsonlOutputParser, PartialJsonOutputParser } from '@llmjson/langchain';
import { describe, expect, test, vi } from 'vitest';
import { chain, streamed } from './helpers.js';

const written = { characters: 0 };

vi.mock('@llmjson/core', async (importOriginal) => {
  const core = await importOriginal<typeof import('@llmjson/core')>();
  /** Wraps an engine factory so that each `write` adds its text's length to the count. */
  const counted =
    <A extends unknown[], E extends { write(text: string): void }>(factory: (...args: A) => E) =>
    (...args: A): E => {
      const engine = factory(...args);
      const write = engine.write.bind(engine);
      engine.write = (text: string) => {
        written.characters += text.length;
        write(text);
      };
      return engine;
    };
  return {
    ...core,
    createPartialBuilder: counted(
      core.createPartialBuilder as (o: object, s: PartialSink) => ReturnType<typeof core.createPartialBuilder>,
    ),
    createJsonlDecoder: counted(
      core.createJsonlDecoder as (o: object, s: JsonlSink) => ReturnType<typeof core.createJsonlDecoder>,
    ),
  };
});

const items = Array.from({ length: 80 }, (_, i) => `{"id": ${i}, "name": "item ${i}", "tags": ["a", "b"]}`);
const DOCUMENT = `\`\`\`json\n{"items": [${items.join(', ')}]}\n\`\`\``;
const LINES = `${items.join('\n')}\n`;

function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

describe('the characters the parsers hand to llmjson engines, over a streamed run', () => {
  test.each([1, 3, 16])(
    'PartialJsonOutputParser, %i-character chunks, every emit mode: at most the answer',
    async (size) => {
      for (const emit of ['values', 'changes', 'patch'] as const) {
        written.characters = 0;
        const outputs = await streamed(chain(chunked(DOCUMENT, size), new PartialJsonOutputParser({ emit })));
        expect(outputs.length).toBeGreaterThan(10);
        expect(written.characters, emit).toBeLessThanOrEqual(DOCUMENT.length);
        expect(written.characters, emit).toBeGreaterThan(DOCUMENT.length / 2);
      }
    },
  );

  test.each([1, 3, 16])('JsonlOutputParser, %i-character chunks: at most the answer', async (size) => {
    written.characters = 0;
    const outputs = await streamed(chain(chunked(LINES, size), new JsonlOutputParser()));
    expect(outputs).toHaveLength(items.length);
    expect(written.characters).toBeLessThanOrEqual(LINES.length);
    expect(written.characters).toBeGreaterThan(LINES.length / 2);
  });
});
