import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { applyChanges, type Change } from '@llmjson/core';
import { createPartialStream, type Diagnostic } from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkBytes, utf8 } from '../../../test/support/chunking.js';

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
      const both = (await collect({ emit: 'both' }, chunks)).out as { value: unknown; changes: Change[] }[];
      expect(both.map((b) => b.value)).toEqual(snapshots.out);
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
});
