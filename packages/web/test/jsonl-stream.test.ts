import { parseJsonl } from '@llmjson/core';
import { ConfigurationError, createJsonlStream, type Diagnostic, type JsonlRecord } from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { describe, expect, test } from 'vitest';
import { chunkBytes, utf8 } from '../../../test/support/chunking.js';
import { readAll } from '../../../test/support/web.js';

/** Lets queued stream operations run to completion. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

function pipe<T>(chunks: readonly (string | Uint8Array)[], stream: TransformStream<string | Uint8Array, T>) {
  return readAll(ReadableStream.from(chunks).pipeThrough(stream));
}

describe('createJsonlStream (Web)', () => {
  test('a byte split inside any multi-byte character decodes as the whole text does', async () => {
    const text = '{"a":"é"}\n{"b":"日本"}\n{"c":"😀 𝄞"}\n';
    const expected = parseJsonl(text).values;
    expect(expected).toHaveLength(3);
    const bytes = utf8.encode(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const values = await pipe([bytes.subarray(0, cut), bytes.subarray(cut)], createJsonlStream());
      expect(values, `cut at byte ${cut}`).toEqual(expected);
    }
    for (const size of [1, 2, 3]) {
      expect(await pipe(chunkBytes(bytes, size), createJsonlStream()), `${size}-byte chunks`).toEqual(expected);
    }
  });

  test('strings after bytes: a pending partial character is flushed first', async () => {
    const bytes = utf8.encode('{"a":"é"}\n');
    const values = await pipe([bytes.subarray(0, 7), bytes.subarray(7), '{"b":2}\n'], createJsonlStream());
    expect(values).toEqual([{ a: 'é' }, { b: 2 }]);
  });

  test('a character cut off at the end of input becomes U+FFFD in a truncated line, not an error', async () => {
    const bytes = utf8.encode('{"a":1}\n{"b":"é');
    const diagnostics: Diagnostic[] = [];
    const values = await pipe([bytes.subarray(0, -1)], createJsonlStream({ onDiagnostic: (d) => diagnostics.push(d) }));
    expect(values).toEqual([{ a: 1 }]);
    expect(diagnostics).toMatchObject([
      { reason: 'encoding', line: 2, column: 6 },
      { reason: 'truncated', line: 2, excerpt: '{"b":"\uFFFD' },
    ]);
  });

  test('null lines are delivered as values in plain mode, with no diagnostic', async () => {
    const diagnostics: Diagnostic[] = [];
    const stream = createJsonlStream({ onDiagnostic: (d) => diagnostics.push(d) });
    expect(await pipe(['1\nnull\n2\n'], stream)).toEqual([1, null, 2]);
    expect(diagnostics).toEqual([]);
    expect(stream.stats).toMatchObject({ lines: 3, values: 3, valueLines: 3, reportedLines: 0 });
  });

  test("nullValue: 'report' drops null lines with a null-value diagnostic, as the Node stream does", async () => {
    const diagnostics: Diagnostic[] = [];
    const stream = createJsonlStream({ nullValue: 'report', onDiagnostic: (d) => diagnostics.push(d) });
    expect(await pipe(['1\nnull\n2\n'], stream)).toEqual([1, 2]);
    expect(diagnostics).toMatchObject([{ reason: 'null-value', line: 2 }]);
    expect(stream.stats).toMatchObject({ lines: 3, values: 2, reportedLines: 1 });
  });

  test('records mode carries value, line, end line and offset', async () => {
    const records: JsonlRecord[] = await pipe(['1\nnull\n{\n"a": 2\n}\n'], createJsonlStream({ records: true }));
    expect(records).toEqual([
      { value: 1, line: 1, endLine: 1, offset: 0 },
      { value: null, line: 2, endLine: 2, offset: 2 },
      { value: { a: 2 }, line: 3, endLine: 5, offset: 7 },
    ]);
  });

  test('a value is readable as soon as its line is written, before the input ends', async () => {
    const stream = createJsonlStream();
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    void writer.write('{"first":');
    void writer.write(' 1}\n{"second"');
    expect(await reader.read()).toEqual({ done: false, value: { first: 1 } });
    void writer.write(': 2}\n');
    void writer.close();
    expect(await reader.read()).toEqual({ done: false, value: { second: 2 } });
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  test('backpressure: a slow reader holds the writer back at the readable highWaterMark, and nothing is lost', async () => {
    for (const highWaterMark of [0, 1, 2, 5]) {
      const total = 40;
      const stream = createJsonlStream({ highWaterMark });
      const writer = stream.writable.getWriter();
      const reader = stream.readable.getReader();
      const writes = Array.from({ length: total }, (_, i) => writer.write(`{"i":${i}}\n`));
      const closed = writer.close();
      await settle();
      // No reads yet: the engine has decoded exactly as many values as the readable queue holds.
      expect(stream.stats.values, `highWaterMark ${highWaterMark}`).toBe(highWaterMark);
      expect(writer.desiredSize, `highWaterMark ${highWaterMark}`).toBeLessThanOrEqual(0);
      const received: number[] = [];
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        received.push((next.value as { i: number }).i);
        await settle();
        // Each line is one chunk and one value: what is decoded but unread never exceeds the
        // queue (a pending read takes one value straight through when the queue is empty).
        expect(stream.stats.values - received.length).toBeLessThanOrEqual(Math.max(highWaterMark, 1));
      }
      await Promise.all([...writes, closed]);
      expect(received).toEqual(Array.from({ length: total }, (_, i) => i));
    }
  });

  test('an exception thrown by onDiagnostic reaches the readable side as a rejection', async () => {
    const failing = () =>
      createJsonlStream({
        onDiagnostic: () => {
          throw new Error('callback failed');
        },
      });
    await expect(pipe(['{"a":1}\nnope\n{"b":2}\n'], failing())).rejects.toThrow('callback failed');
    // Reported at the end of input (a truncated last line): the error comes from flush.
    await expect(pipe(['{"a":1}\n{"b":'], failing())).rejects.toThrow('callback failed');
    const stream = failing();
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    await writer.write('nope\n').catch(() => undefined);
    await expect(reader.read()).rejects.toThrow('callback failed');
    await expect(writer.write('{"c":3}\n')).rejects.toThrow('callback failed');
  });

  test('garbage input never errors the stream', async () => {
    const garbage = new Uint8Array(4096);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 256;
    const stream = createJsonlStream({ maxLineLength: 100 });
    const values = await pipe([...chunkBytes(garbage, 17), '\n{"ok":true}\n'], stream);
    expect(values.at(-1)).toEqual({ ok: true });
    expect(stream.stats.valueLines + stream.stats.skippedLines + stream.stats.reportedLines).toBe(stream.stats.lines);
  });

  test('a broken configuration throws when the stream is created', () => {
    const compileJsonSchema = compileSchema;
    expect(() =>
      createJsonlStream({ schema: { type: 'object', properties: { a: { type: 'nope' } } }, compileJsonSchema }),
    ).toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID' }));
    expect(() =>
      createJsonlStream({
        schema: { oneOf: [{ type: 'object' }, { type: 'object' }] },
        discriminator: 'type',
        compileJsonSchema,
      }),
    ).toThrow(expect.objectContaining({ code: 'DISCRIMINATOR_INVALID' }));
    expect(() => createJsonlStream({ maxLineLength: -1 })).toThrow(/maxLineLength/);
    expect(() => createJsonlStream({ highWaterMark: -1 })).toThrow(ConfigurationError);
    expect(() => createJsonlStream({ highWaterMark: 1.5 })).toThrow(/highWaterMark/);
  });
});
