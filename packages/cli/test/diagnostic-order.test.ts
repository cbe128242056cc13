/**
 * The stream modes print their diagnostics in offset order. A value that cannot be printed (a
 * number beyond the double range) is reported when the engine delivers it, as the engine
 * reports what it finds; it was reported when printed, and a value waits in the stream's buffer
 * while stdout is slow (here: a first value over the 64 KiB output batch), so the diagnostics
 * of later input came first. No value waits for it: each is printed as soon as it is read.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { runCli } from '../../../test/support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'llmjson-order-'));
const ITEMS = join(dir, 'items.schema.json');
writeFileSync(
  ITEMS,
  JSON.stringify({
    type: 'array',
    items: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
  }),
);
const DOCUMENT = join(dir, 'document.schema.json');
writeFileSync(DOCUMENT, JSON.stringify({ type: 'object', properties: { c: { type: 'number' } } }));

const BIG = 'x'.repeat(70_000);

/** The reason and offset of each diagnostic line of a text stderr. */
function reported(err: string): { reason: string; offset: number }[] {
  return [...err.matchAll(/^llmjson \w+: .*?offset (\d+): ([\w-]+):/gm)].map((m) => ({
    reason: m[2] as string,
    offset: Number(m[1]),
  }));
}

const inOrder = (list: { offset: number }[]) =>
  list.every((d, i) => i === 0 || (list[i - 1] as { offset: number }).offset <= d.offset);

describe('diagnostics in offset order', () => {
  const elements = `[{"a":1,"s":"${BIG}"},{"a":1e999},{"b":2},{"a":"y"},{"a":4}]`;
  test.each([elements.length, 4096, 100])('elements, chunks of %i', async (size) => {
    const r = await runCli(['elements', '--schema', ITEMS], { stdin: chunkText(elements, size) });
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([{ a: 1, s: BIG }, { a: 4 }]);
    const list = reported(r.err);
    expect(list.map((d) => d.reason)).toEqual(['out-of-range', 'schema', 'schema']);
    expect(inOrder(list), r.err.replace(BIG, '…')).toBe(true);
  });

  const partial = `{"s":"${BIG}","a":1e999,"c":"x","d":1}`;
  test.each([4096, 1000])('partial with a slow stdout, chunks of %i', async (size) => {
    const r = await runCli(['partial', '--emit', 'snapshots', '--schema', DOCUMENT], {
      stdin: chunkText(partial, size),
    });
    expect(r.code).toBe(4);
    const list = reported(r.err);
    expect(list.map((d) => d.reason)).toEqual(expect.arrayContaining(['out-of-range', 'violation', 'schema']));
    expect(inOrder(list), r.err.replace(BIG, '…')).toBe(true);
  });

  // The builder delivers a chunk's value, then reports the syntax error it met in that chunk; the
  // report of the number (said at how far the input was read: a snapshot does not say where its
  // number sits) comes after it.
  const broken = '{"a":1e999,"b":[1,],"c":2}';
  test.each(['changes', 'snapshots', 'both'])('partial --emit %s, a syntax error in the same chunk', async (emit) => {
    for (const size of [broken.length, 16, 5, 1]) {
      const r = await runCli(['partial', '--emit', emit], { stdin: chunkText(broken, size) });
      expect(r.code).toBe(4);
      const list = reported(r.err);
      expect(list.map((d) => d.reason).sort()).toEqual(['out-of-range', 'syntax']);
      expect(inOrder(list), `chunks of ${size}: ${r.err}`).toBe(true);
    }
  });
});
