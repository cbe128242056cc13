import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConfigurationError, createJsonlStream, type Diagnostic } from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkBytes, utf8 } from '../../../test/support/chunking.js';
import { decodeChunks, streamChunks } from '../../../test/support/collect.js';

const ANSWER = [
  'Here is what I found:',
  '```jsonl',
  '{"type":"definition","entity":"日本","definition":"Japan 🗾, an island country"}',
  '{"type":"relationship","subject":"café","predicate":"serves","object":"crème brûlée"},',
  '{"type":"definition","entity":"broken","definition":"oops',
  '{"type":"definition","entity":"😀","definition":"\\ud83d\\ude00 escaped"}',
  '```',
  '{"type":"definition","entity":"cut","defin',
].join('\r\n');

async function collectValues(
  stream: NodeJS.ReadableStream & NodeJS.WritableStream,
  chunks: readonly (string | Uint8Array)[],
) {
  const values: unknown[] = [];
  await pipeline(Readable.from(chunks, { objectMode: true }), stream, async (source: AsyncIterable<unknown>) => {
    for await (const value of source) values.push(value);
  });
  return values;
}

describe('createJsonlStream', () => {
  test('Buffer chunks split anywhere (inside UTF-8 sequences and CRLF) give the core result', async () => {
    const expected = decodeChunks([ANSWER]);
    expect(expected.values).toHaveLength(3);
    const bytes = utf8.encode(ANSWER);
    for (const size of [1, 2, 3, 4, 5, 7, 13, 64, bytes.length]) {
      const got = await streamChunks(chunkBytes(bytes, size));
      expect(got.records, `size ${size}`).toEqual(expected.records);
      expect(got.diagnostics, `size ${size}`).toEqual(expected.diagnostics);
      expect(got.stats, `size ${size}`).toEqual(expected.stats);
    }
  });

  test('emits plain values in order and works with for await', async () => {
    const stream = createJsonlStream();
    stream.end('{"a":1}\n{"b":2}\n3\n');
    const values: unknown[] = [];
    for await (const value of stream) values.push(value);
    expect(values).toEqual([{ a: 1 }, { b: 2 }, 3]);
  });

  test('a value is readable as soon as its line is written, before the input ends', async () => {
    const stream = createJsonlStream();
    const reader = stream[Symbol.asyncIterator]();
    stream.write('{"first":');
    stream.write(' 1}\n{"second"');
    expect(await reader.next()).toEqual({ done: false, value: { first: 1 } });
    expect(stream.writableEnded).toBe(false);
    stream.end(': 2}\n');
    expect(await reader.next()).toEqual({ done: false, value: { second: 2 } });
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  test('null lines: dropped with a null-value diagnostic in plain mode, delivered in records mode', async () => {
    const diagnostics: Diagnostic[] = [];
    const plain = createJsonlStream({ onDiagnostic: (d) => diagnostics.push(d) });
    expect(await collectValues(plain, ['1\nnull\n2\n'])).toEqual([1, 2]);
    expect(diagnostics).toMatchObject([{ reason: 'null-value', line: 2, message: expect.stringMatching(/records/) }]);
    expect(plain.stats).toMatchObject({ lines: 3, values: 2, reportedLines: 1 });
    const records = createJsonlStream({ records: true });
    expect(await collectValues(records, ['1\nnull\n2\n'])).toEqual([
      { value: 1, line: 1, endLine: 1, offset: 0 },
      { value: null, line: 2, endLine: 2, offset: 2 },
      { value: 2, line: 3, endLine: 3, offset: 7 },
    ]);
  });

  test('diagnostics arrive through the event and the callback, in order, and are counted', async () => {
    const viaCallback: Diagnostic[] = [];
    const viaEvent: Diagnostic[] = [];
    const stream = createJsonlStream({ onDiagnostic: (d) => viaCallback.push(d) });
    stream.on('diagnostic', (d) => viaEvent.push(d));
    const values = await collectValues(stream, ['prose\n{"a":1}\n{"b":\n', '[1,]\n']);
    expect(values).toEqual([{ a: 1 }]);
    expect(viaEvent).toEqual(viaCallback);
    // `{"b":` opens a value that `[1,]` (a new value at its indentation) breaks: both are reported.
    expect(viaEvent.map((d) => [d.reason, d.line])).toEqual([
      ['prose', 1],
      ['syntax', 3],
      ['syntax', 4],
    ]);
    expect(stream.stats).toMatchObject({ lines: 4, values: 1, diagnostics: { prose: 1, syntax: 2 } });
  });

  test('garbage input never errors the stream', async () => {
    const garbage = new Uint8Array(4096);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 256;
    const stream = createJsonlStream({ maxLineLength: 100 });
    const values = await collectValues(stream, [...chunkBytes(garbage, 17), '\n{"ok":true}\n']);
    expect(values.at(-1)).toEqual({ ok: true });
    expect(stream.stats.valueLines + stream.stats.skippedLines + stream.stats.reportedLines).toBe(stream.stats.lines);
  });

  test('a broken configuration throws when the stream is created', () => {
    expect(() => createJsonlStream({ schema: { type: 'object', properties: { a: { type: 'nope' } } } })).toThrow(
      ConfigurationError,
    );
    expect(() => createJsonlStream({ maxLineLength: -1 })).toThrow(/maxLineLength/);
    expect(() => createJsonlStream({ highWaterMark: -1 })).toThrow(ConfigurationError);
    expect(() => createJsonlStream({ highWaterMark: 1.5 })).toThrow(/highWaterMark must be a non-negative integer/);
    expect(() => createJsonlStream({ schema: { oneOf: [] }, discriminator: 'type' })).toThrow(ConfigurationError);
  });

  test('an exception thrown by onDiagnostic errors the stream instead of crashing the process', async () => {
    const stream = createJsonlStream({
      onDiagnostic: () => {
        throw new Error('callback failed');
      },
    });
    await expect(collectValues(stream, ['nope\n'])).rejects.toThrow('callback failed');
  });

  test('honours backpressure: a slow consumer holds the producer back, and nothing is lost', async () => {
    const total = 2000;
    const lines = Array.from({ length: total }, (_, i) => `{"i":${i}}\n`);
    const stream = createJsonlStream({ highWaterMark: 2 });
    let maxBuffered = 0;
    let writesRefused = 0;
    const received: number[] = [];
    const slow = new Writable({
      objectMode: true,
      highWaterMark: 1,
      write(value: { i: number }, _enc, callback) {
        received.push(value.i);
        maxBuffered = Math.max(maxBuffered, stream.readableLength);
        setImmediate(callback);
      },
    });
    const source = new Readable({
      read() {
        // Each read pushes one chunk of 100 lines; a refused write shows backpressure reached the source.
        const next = lines.splice(0, 100);
        if (next.length === 0) this.push(null);
        else if (!this.push(next.join(''))) writesRefused++;
      },
      highWaterMark: 1,
    });
    await pipeline(source, stream, slow);
    expect(received).toEqual(Array.from({ length: total }, (_, i) => i));
    // A written chunk of 100 lines can overshoot the readable buffer, and at the end Node
    // transforms the writes already queued (bounded by the writable highWaterMark), but the
    // buffer never holds a large part of the input.
    expect(maxBuffered).toBeLessThan(total / 4);
    expect(writesRefused).toBeGreaterThan(0);
  });

  test('strings after bytes: a pending partial character is flushed first', async () => {
    const bytes = utf8.encode('{"a":"é"}\n');
    const values = await collectValues(createJsonlStream(), [bytes.subarray(0, 7), bytes.subarray(7), '{"b":2}\n']);
    expect(values).toEqual([{ a: 'é' }, { b: 2 }]);
  });
});
