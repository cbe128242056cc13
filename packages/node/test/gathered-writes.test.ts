/**
 * Strings written in a burst are gathered by the stream itself while the burst's first chunk is
 * in flight (text-transform.ts, decision 022), instead of queueing in the Writable's buffer: the
 * Writable's promises hold all the same — `write`'s return value and 'drain', `writableLength`,
 * the order of chunks whatever path each takes, cork, a write after `end`, destroy. A string
 * written to an idle stream goes to the engine at once; the partial stream, whose items are per
 * write, does so for every chunk of a burst too, keeping its promises.
 *
 * Sizes are relative to Node's default high-water mark (`getDefaultHighWaterMark`): 16 KiB on
 * Node 20, 64 KiB from Node 22, and CI runs the suite on both.
 */

import { once } from 'node:events';
import { getDefaultHighWaterMark, Writable } from 'node:stream';
import { fc, test as fcTest } from '@fast-check/vitest';
import { createJsonlStream, createPartialStream, type JsonlStream } from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { numRuns, utf8 } from '../../../test/support/chunking.js';

const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `{"i":${from + i}}\n`).join('');

function collect(stream: JsonlStream): { values: unknown[]; ended: Promise<void> } {
  const values: unknown[] = [];
  stream.on('data', (value: unknown) => values.push(value));
  const ended = new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  return { values, ended };
}

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({ i: from + i }));

/** Node's default high-water mark of a byte stream (a Transform's writable side without options). */
const DEFAULT_MARK = getDefaultHighWaterMark(false);
/** Lines of `{"i":N}` (9 to 12 characters) enough to pass the default mark three times. */
const BURST_LINES = Math.ceil((3 * DEFAULT_MARK) / 9);

describe('gathered writes', () => {
  test('write returns false once a burst passes the writable high-water mark, and drain follows', async () => {
    const stream = createJsonlStream();
    const { values, ended } = collect(stream);
    const limit = stream.writableHighWaterMark;
    const text = lines(0, BURST_LINES);
    expect(text.length).toBeGreaterThan(2 * limit);
    const returned: boolean[] = [];
    for (let at = 0; at < text.length; at += 4) returned.push(stream.write(text.slice(at, at + 4)));
    // As a Writable's buffer would: true while below the mark, false from the chunk that reaches it.
    const first = returned.indexOf(false);
    expect(first).toBeGreaterThan(0);
    expect(returned.slice(0, first).every((r) => r)).toBe(true);
    expect(returned.slice(first).every((r) => !r)).toBe(true);
    expect(first * 4).toBeLessThanOrEqual(limit);
    expect(stream.writableNeedDrain || stream.writableLength >= limit).toBe(true);
    await once(stream, 'drain');
    expect(stream.writableLength).toBe(0);
    stream.end();
    await ended;
    expect(values).toEqual(ids(0, BURST_LINES));
  });

  test('writableLength counts what a burst gathered until the engine has it', async () => {
    const stream = createJsonlStream();
    const { values, ended } = collect(stream);
    // A string written to an idle stream is decoded at once: nothing is left to count.
    stream.write('{"i":0}\n');
    expect(stream.writableLength).toBe(0);
    expect(values).toEqual([{ i: 0 }]);
    // The next one in the same job is in flight until its callback, as in any Writable; the
    // ones after it are gathered, and counted as they are written.
    stream.write('{"i":1}');
    stream.write('\n{"i"');
    expect(stream.writableLength).toBe(7 + 5);
    expect(values).toEqual([{ i: 0 }]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.writableLength).toBe(0);
    stream.end(':2}\n');
    await ended;
    expect(values).toEqual(ids(0, 3));
  });

  fcTest.prop([fc.array(fc.constantFrom('string', 'bytes', 'callback', 'encoding'), { minLength: 1, maxLength: 40 })], {
    numRuns,
  })('chunks taking either path in one burst keep their order', async (kinds) => {
    const stream = createJsonlStream();
    const { values, ended } = collect(stream);
    const called: number[] = [];
    kinds.forEach((kind, i) => {
      const chunk = `{"i":${i}}\n`;
      if (kind === 'string') stream.write(chunk);
      else if (kind === 'bytes') stream.write(utf8.encode(chunk));
      else if (kind === 'callback') stream.write(chunk, () => called.push(i));
      else stream.write(chunk, 'utf8');
    });
    stream.end();
    await ended;
    expect(values).toEqual(ids(0, kinds.length));
    expect(called).toEqual(kinds.flatMap((kind, i) => (kind === 'callback' ? [i] : [])));
  });

  test('a corked stream holds a burst until it is uncorked', async () => {
    const stream = createJsonlStream();
    const { values, ended } = collect(stream);
    stream.write('{"i":0}\n');
    stream.cork();
    stream.write('{"i":1}\n');
    stream.write('{"i":2}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(values).toEqual([{ i: 0 }]);
    stream.uncork();
    stream.end();
    await ended;
    expect(values).toEqual(ids(0, 3));
  });

  test('a write after end in a burst is an error, as on any Writable', async () => {
    const stream = createJsonlStream();
    const { values, ended } = collect(stream);
    ended.catch(() => {});
    stream.write('{"i":0}\n');
    stream.write('{"i":1}\n');
    stream.end();
    const failed = once(stream, 'error');
    stream.write('{"i":2}\n');
    const [error] = (await failed) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ERR_STREAM_WRITE_AFTER_END');
    expect(values).not.toContainEqual({ i: 2 });
  });

  test('a stream destroyed in a burst hands nothing more to the engine', async () => {
    const stream = createJsonlStream();
    const { values } = collect(stream);
    stream.write('{"i":0}\n');
    stream.write('{"i":1}\n');
    stream.write('{"i":2}\n');
    stream.destroy();
    stream.write('{"i":3}\n');
    await once(stream, 'close');
    await new Promise((resolve) => setImmediate(resolve));
    // The first two were handed over as they were written; the gathered one is dropped.
    expect(values).toEqual([{ i: 0 }, { i: 1 }]);
    expect(stream.stats.values).toBe(2);
  });
});

describe('a string written to an idle stream', () => {
  test('is decoded at once; an exception from a listener errors the stream, never the process', async () => {
    const stream = createJsonlStream();
    const boom = new Error('listener failed');
    stream.on('data', () => {
      throw boom;
    });
    const failed = once(stream, 'error');
    expect(stream.write('{"i":0}\n')).toBe(false);
    expect(stream.stats.values).toBe(1);
    expect((await failed)[0]).toBe(boom);
    expect(stream.destroyed).toBe(true);
  });

  test('an unread readable side stops the writes, one turn at a time too', async () => {
    const stream = createJsonlStream({ highWaterMark: 2 });
    const total = 4 * BURST_LINES;
    let accepted = 0;
    let bytes = 0;
    for (let i = 0; i < total; i++) {
      const line = `{"i":${i}}\n`;
      if (!stream.write(line)) break;
      accepted++;
      bytes += line.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Nobody reads: the readable side fills, the Writable's buffer fills behind it, and write
    // says so long before the input runs out: once about a high-water mark of text waits.
    expect(accepted).toBeLessThan(total / 2);
    expect(bytes).toBeLessThan(stream.writableHighWaterMark + 1024);
    // As a Transform: the write that finds the readable side full is still decoded, then held.
    expect(stream.readableLength).toBeLessThanOrEqual(3);
    stream.destroy();
  });
});

describe('the partial stream in a burst: every chunk on its own, directly', () => {
  const document = {
    title: 'burst',
    // About 45 characters an item: twice the default high-water mark, so that a burst fills it.
    items: Array.from({ length: Math.ceil((2 * DEFAULT_MARK) / 45) }, (_, i) => ({
      id: i,
      name: `ünïcode ${i} 😀`,
      done: i % 2 === 0,
    })),
  };
  const text = JSON.stringify(document);
  const chunks = Array.from({ length: Math.ceil(text.length / 4) }, (_, i) => text.slice(i * 4, i * 4 + 4));

  test('snapshots handed out never change, complete items keep their identity, backpressure holds', async () => {
    const stream = createPartialStream({ highWaterMark: 2 });
    const snapshots: { value: { items?: unknown[] }; json: string }[] = [];
    const slow = new Writable({
      objectMode: true,
      highWaterMark: 1,
      write(value: { items?: unknown[] }, _encoding, callback) {
        snapshots.push({ value, json: JSON.stringify(value) });
        setImmediate(callback);
      },
    });
    const done = once(slow, 'finish');
    stream.pipe(slow);
    const accepted = chunks.map((chunk) => stream.write(chunk));
    // Backpressure, before the pipe starts reading: the readable side holds the mark plus one
    // write's item, the rest waits in the Writable's buffer, and write said so.
    expect(stream.readableLength).toBeLessThanOrEqual(3);
    expect(accepted.at(-1)).toBe(false);
    stream.end();
    await done;
    // Paced: fewer snapshots than chunks, the last one whole.
    expect(snapshots.length).toBeGreaterThan(10);
    expect(snapshots.length).toBeLessThan(chunks.length);
    expect(snapshots.at(-1)?.value).toEqual(document);
    for (const { value, json } of snapshots) expect(JSON.stringify(value)).toBe(json);
    const last = snapshots.at(-1)?.value.items as unknown[];
    for (const { value } of snapshots.slice(0, -1)) {
      const items = value.items ?? [];
      // Every item but the one in flight is complete, and is the final snapshot's own object.
      for (let i = 0; i < items.length - 1; i++) expect(items[i]).toBe(last[i]);
    }
  });

  test.each([
    ['snapshots', 200],
    ['both', 60],
  ] as const)(
    "emit '%s': a burst gives the items of the same chunks written one turn at a time",
    async (emit, count) => {
      const run = async (turns: boolean) => {
        const stream = createPartialStream({ emit });
        const items: unknown[] = [];
        stream.on('data', (item: unknown) => items.push(item));
        const ended = once(stream, 'end');
        for (const chunk of chunks.slice(0, count)) {
          stream.write(chunk);
          if (turns) await new Promise((resolve) => setImmediate(resolve));
        }
        stream.end();
        await ended;
        return items;
      };
      const perTurn = await run(true);
      expect(perTurn.length).toBeGreaterThan(30);
      expect(await run(false)).toEqual(perTurn);
    },
  );
});
