import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extractElements } from '@llmjson/core';
import { createElementStream, type Diagnostic, type ElementRecord } from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkBytes, utf8 } from '../../../test/support/chunking.js';

const ANSWER =
  'Sure! Here are the results:\n```json\n{"title": "Épreuves", "items": [\n  {"id": 1, "name": "café ☕"},\n  {"id": 2, "name": "日本"},\n  {"id": 3, "name": "cut off';

describe('createElementStream', () => {
  test('UTF-8 bytes split anywhere give the one-shot result; a cut answer keeps its complete elements', async () => {
    const expected = extractElements(ANSWER, { path: '$.items' });
    expect(expected.values).toEqual([
      { id: 1, name: 'café ☕' },
      { id: 2, name: '日本' },
    ]);
    const bytes = utf8.encode(ANSWER);
    for (const size of [1, 2, 3, 5, 64, bytes.length]) {
      const records: ElementRecord[] = [];
      const diagnostics: Diagnostic[] = [];
      const stream = createElementStream({ path: '$.items' });
      stream.on('diagnostic', (d) => diagnostics.push(d));
      await pipeline(Readable.from(chunkBytes(bytes, size)), stream, async (source: AsyncIterable<ElementRecord>) => {
        for await (const record of source) records.push(record);
      });
      expect(records, `size ${size}`).toEqual(expected.records);
      expect(diagnostics, `size ${size}`).toEqual(expected.diagnostics);
      expect(stream.stats).toMatchObject({ elements: 2, values: 2, diagnostics: { truncated: 1 } });
    }
  });

  test('an element is readable before the array closes', async () => {
    const stream = createElementStream();
    const reader = stream[Symbol.asyncIterator]();
    stream.write('[{"a": 1}, {"b"');
    expect(await reader.next()).toMatchObject({ done: false, value: { value: { a: 1 }, index: 0 } });
    stream.end(': 2}]');
    expect(await reader.next()).toMatchObject({ done: false, value: { value: { b: 2 }, index: 1 } });
    expect((await reader.next()).done).toBe(true);
  });

  test('a broken configuration throws at creation', () => {
    expect(() => createElementStream({ path: 'items' })).toThrow(/path must be/);
  });
});
