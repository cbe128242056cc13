import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { applyChanges, type Change } from '@llmjson/core';
import { createPartialStream, type Diagnostic } from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkBytes, chunkText, utf8 } from '../../../test/support/chunking.js';
import { nodePartial, replay, SCALAR_DOCUMENTS } from '../../../test/support/partial.js';

const ANSWER =
  'Here it is:\n```json\n{"title": "Café ☕", "summary": "A long summary that streams in", "items": [{"id": 1}, {"id": 2, "tags": ["日本", "😀"]}]}\n```';

async function collect(options: Parameters<typeof createPartialStream>[0], chunks: readonly Uint8Array[]) {
  const out: unknown[] = [];
  const diagnostics: Diagnostic[] = [];
  const stream = createPartialStream({ ...options, onDiagnostic: (d) => diagnostics.push(d) });
  await pipeline(Readable.from(chunks), stream, async (source: AsyncIterable<unknown>) => {
    for await (const item of source) out.push(item);
  });
  return { out, diagnostics, stats: stream.stats };
}

describe('createPartialStream', () => {
  test('snapshots grow to the document; changes applied in order reproduce it; bytes split anywhere', async () => {
    const expected = JSON.parse(ANSWER.slice(ANSWER.indexOf('{'), ANSWER.lastIndexOf('}') + 1));
    for (const size of [1, 2, 5, 64]) {
      const chunks = chunkBytes(utf8.encode(ANSWER), size);
      const snapshots = await collect({}, chunks);
      expect(snapshots.out.at(-1), `size ${size}`).toEqual(expected);
      expect(snapshots.diagnostics).toEqual([]);
      const changes = await collect({ emit: 'changes' }, chunks);
      let state: unknown;
      for (const list of changes.out as Change[][]) state = applyChanges(state, list);
      expect(state).toEqual(expected);
      // 'both' has an item for every update, a `complete`-only one included; 'snapshots' only
      // for those that changed the value.
      const both = (await collect({ emit: 'both' }, chunks)).out as { value: unknown; changes: Change[] }[];
      const values = both.map((b) => b.value);
      expect(values.filter((v, i) => i === 0 || v !== values[i - 1])).toEqual(snapshots.out);
    }
  });

  test('the final value is checked against the schema', async () => {
    const schema = { type: 'object', required: ['title', 'author'] };
    const { diagnostics } = await collect({ schema }, [utf8.encode(ANSWER)]);
    expect(diagnostics.map((d) => d.reason)).toEqual(['schema']);
    expect(diagnostics[0]?.message).toMatch(/author/);
  });

  test('a cut document ends with one truncated diagnostic after its last snapshot', async () => {
    const { out, diagnostics } = await collect({}, [utf8.encode('{"items": [{"id": 1}, {"id": 2, "na')]);
    expect(out.at(-1)).toEqual({ items: [{ id: 1 }, { id: 2 }] });
    expect(diagnostics.map((d) => d.reason)).toEqual(['truncated']);
  });

  test('a snapshot only when the value changed: a chunk that only closes values emits nothing', async () => {
    const text = '{"items": [{"id": 1}, {"id": 2}], "done": true}';
    for (let size = 1; size <= 8; size++) {
      const { out, complete } = await nodePartial(chunkText(text, size));
      out.forEach((snapshot, i) => {
        if (i > 0) expect(snapshot, `size ${size}, item ${i}`).not.toBe(out[i - 1]);
      });
      expect(out.at(-1)).toEqual(JSON.parse(text));
      expect(complete).toBe(true);
    }
    // The last chunk only closes the document: no item for it (its `complete` change is in 'both').
    expect((await nodePartial(['{"a": ["x"', ']', '}'])).out).toEqual([{ a: ['x'] }]);
    expect((await nodePartial(['{"a": ["x"', ']', '}'], { emit: 'both' })).out).toHaveLength(3);
  });

  test('a scalar document ends with its JSON.parse value in every mode, at every chunk size', async () => {
    for (const text of SCALAR_DOCUMENTS) {
      const expected: unknown = JSON.parse(text);
      const bytes = utf8.encode(text);
      for (const size of [1, 2, 3, 4, 5, 6, 7, 8, bytes.length]) {
        const chunks = chunkBytes(bytes, size);
        const label = `${text} at ${size}-byte chunks`;
        const both = await nodePartial(chunks, { emit: 'both' });
        expect(both.diagnostics, label).toEqual([]);
        expect(both.complete, label).toBe(true);
        expect(both.value, label).toEqual(expected);
        expect((both.out.at(-1) as { value: unknown }).value, label).toEqual(expected);
        const changes = await nodePartial(chunks, { emit: 'changes' });
        expect(replay(changes.out as Change[][]), label).toEqual(expected);
        if (expected === null) continue;
        const snapshots = await nodePartial(chunks);
        expect(snapshots.out.at(-1), label).toEqual(expected);
        expect(snapshots.diagnostics, label).toEqual([]);
      }
    }
  });

  test('a null document: snapshots mode cannot push null, so it reports null-value (decision 004); value and complete say it', async () => {
    for (const chunks of [['null'], ['nu', 'll', '\n']]) {
      const { out, diagnostics, value, complete } = await nodePartial(chunks);
      expect(out).toEqual([]);
      expect(diagnostics.map((d) => d.reason)).toEqual(['null-value']);
      expect(value).toBeNull();
      expect(complete).toBe(true);
      expect((await nodePartial(chunks, { emit: 'both' })).out).toEqual([
        {
          value: null,
          changes: [
            { op: 'add', path: [], value: null },
            { op: 'complete', path: [] },
          ],
        },
      ]);
      expect(replay((await nodePartial(chunks, { emit: 'changes' })).out as Change[][])).toBeNull();
    }
  });

  test('complete is false after a truncated, syntax, too-deep or too-long diagnostic', async () => {
    for (const [reason, text, options] of [
      ['truncated', '{"a": [1, 2', {}],
      ['syntax', '{"a": 1 "b": 2}', {}],
      ['too-deep', `[${'['.repeat(20)}`, { maxDepth: 10 }],
      ['too-long', `{"a": "${'x'.repeat(40)}`, { maxValueLength: 10 }],
    ] as const) {
      for (const size of [1, 3, 8, text.length]) {
        const run = await nodePartial(chunkText(text, size), options);
        expect(
          run.diagnostics.map((d) => d.reason),
          `${reason} at ${size}`,
        ).toEqual([reason]);
        expect(run.value).not.toBeUndefined();
        expect(run.complete, `${reason} at ${size}`).toBe(false);
      }
    }
  });
});
