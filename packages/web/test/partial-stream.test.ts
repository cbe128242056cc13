import type { Change } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { chunkBytes, chunkText, utf8 } from '../../../test/support/chunking.js';
import { replay, SCALAR_DOCUMENTS, webPartial } from '../../../test/support/partial.js';

describe('createPartialStream (Web)', () => {
  test('a snapshot only when the value changed: a chunk that only closes values enqueues nothing', async () => {
    const text = '{"items": [{"id": 1}, {"id": 2}], "done": true}';
    for (let size = 1; size <= 8; size++) {
      const { out, complete, value } = await webPartial(chunkText(text, size));
      out.forEach((snapshot, i) => {
        if (i > 0) expect(snapshot, `size ${size}, item ${i}`).not.toBe(out[i - 1]);
      });
      expect(out.at(-1)).toEqual(JSON.parse(text));
      expect(value).toBe(out.at(-1));
      expect(complete).toBe(true);
    }
    expect((await webPartial(['{"a": ["x"', ']', '}'])).out).toEqual([{ a: ['x'] }]);
    expect((await webPartial(['{"a": ["x"', ']', '}'], { emit: 'both' })).out).toHaveLength(3);
  });

  test('a scalar document, null included, ends with its JSON.parse value in every mode, at every chunk size', async () => {
    for (const text of SCALAR_DOCUMENTS) {
      const expected: unknown = JSON.parse(text);
      const bytes = utf8.encode(text);
      for (const size of [1, 2, 3, 4, 5, 6, 7, 8, bytes.length]) {
        const chunks = chunkBytes(bytes, size);
        const label = `${text} at ${size}-byte chunks`;
        const snapshots = await webPartial(chunks);
        expect(snapshots.diagnostics, label).toEqual([]);
        expect(snapshots.out.at(-1), label).toEqual(expected);
        expect(snapshots.complete, label).toBe(true);
        const changes = await webPartial(chunks, { emit: 'changes' });
        expect(replay(changes.out as Change[][]), label).toEqual(expected);
        const both = await webPartial(chunks, { emit: 'both' });
        expect((both.out.at(-1) as { value: unknown }).value, label).toEqual(expected);
      }
    }
  });

  test('complete is false after a truncated or syntax diagnostic', async () => {
    for (const text of ['{"a": [1, 2', '"cut off', '[1 2]']) {
      const run = await webPartial([text]);
      expect(run.diagnostics).toHaveLength(1);
      expect(run.complete, text).toBe(false);
    }
  });
});
