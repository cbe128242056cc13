/**
 * Batched writes (text-transform.ts, decision 022): chunks written in one synchronous run reach
 * the engine together, and none of the stream's promises change — the values, diagnostics and
 * stats of any chunking, strings and bytes mixed, backpressure, a chunk written on its own
 * decoded the moment it is written.
 */

import { Writable } from 'node:stream';
import {
  createElementStream,
  createJsonlStream,
  createSalvageStream,
  type Diagnostic,
  type JsonlRecord,
} from '@llmjson/node';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { utf8 } from '../../../test/support/chunking.js';

const SCHEMA = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 8 } },
  required: ['id'],
  additionalProperties: false,
};

const LINES = [
  '{"id":1,"name":"café"}',
  'a sentence the model wrote',
  '{"id":2,"name":"far too long a name"}',
  '{"id":3,"name":"😀"}',
  '{"id":',
  '{"id":4}',
];
const ANSWER = `${LINES.join('\n')}\n{"id":5,"na`;

/** Writes every chunk in one synchronous run, then ends; resolves with what came out. */
function burst(
  stream: ReturnType<typeof createJsonlStream>,
  chunks: readonly (string | Uint8Array)[],
): Promise<{ values: unknown[]; diagnostics: Diagnostic[] }> {
  const values: unknown[] = [];
  const diagnostics: Diagnostic[] = [];
  stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
  return new Promise((resolve, reject) => {
    stream.on('data', (value: unknown) => values.push(value));
    stream.on('error', reject);
    stream.on('end', () => resolve({ values, diagnostics }));
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
  });
}

/** Cuts `text` at the given positions (sorted, deduplicated). */
function cut(text: string, at: readonly number[]): string[] {
  const points = [...new Set(at.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

/** Cuts `bytes` at the given positions. */
function cutBytes(bytes: Uint8Array, at: readonly number[]): Uint8Array[] {
  const points = [...new Set(at.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}

describe('batched writes', () => {
  test('property: a burst of chunks cut anywhere gives the records, diagnostics and stats of one write', async () => {
    const whole = await burst(createJsonlStream({ schema: SCHEMA, records: true }), [ANSWER]);
    expect(whole.values.map((r) => (r as JsonlRecord).value)).toEqual([
      { id: 1, name: 'café' },
      { id: 3, name: '😀' },
      { id: 4 },
    ]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 200 }), fc.boolean(), async (at, bytes) => {
        // Strings cut anywhere (between surrogates too), or the text's bytes cut anywhere
        // (inside UTF-8 sequences too).
        const chunks = bytes ? cutBytes(utf8.encode(ANSWER), at) : cut(ANSWER, at);
        const stream = createJsonlStream({ schema: SCHEMA, records: true });
        const got = await burst(stream, chunks);
        expect(got.values).toEqual(whole.values);
        expect(got.diagnostics).toEqual(whole.diagnostics);
        expect(stream.stats.lines).toBe(LINES.length + 1);
      }),
      { numRuns: 150 },
    );
  });

  test('strings and bytes mixed in one burst keep their order', async () => {
    const text = '{"id":1,"name":"é"}\n{"id":2}\n';
    const bytes = utf8.encode(text);
    // A character split across two byte chunks, then strings, then bytes again.
    const chunks = [bytes.subarray(0, 17), bytes.subarray(17, 18), '"}\n', '{"id"', utf8.encode(':2}\n')];
    const got = await burst(createJsonlStream({ schema: SCHEMA }), chunks);
    expect(got.values).toEqual([{ id: 1, name: 'é' }, { id: 2 }]);
    expect(got.diagnostics).toEqual([]);
  });

  test('a chunk written on its own is decoded the moment it is written', () => {
    const stream = createJsonlStream();
    const seen: unknown[] = [];
    stream.on('data', (value: unknown) => seen.push(value));
    stream.write('{"a":1}\n');
    // Synchronously: the value is found and pushed (flowing mode delivers it at once).
    expect(stream.stats.values).toBe(1);
    expect(seen).toEqual([{ a: 1 }]);
    stream.destroy();
  });

  test('backpressure: a burst of 20 000 tiny chunks never buffers more than a batch of values', async () => {
    const total = 5_000;
    const text = Array.from({ length: total }, (_, i) => `{"i":${i}}\n`).join('');
    const chunks = cut(
      text,
      Array.from({ length: Math.floor(text.length / 4) }, (_, i) => i * 4),
    );
    expect(chunks.length).toBeGreaterThan(10_000);
    const stream = createJsonlStream({ highWaterMark: 2 });
    let maxBuffered = 0;
    const received: number[] = [];
    const slow = new Writable({
      objectMode: true,
      highWaterMark: 1,
      write(value: { i: number }, _encoding, callback) {
        received.push(value.i);
        maxBuffered = Math.max(maxBuffered, stream.readableLength);
        setImmediate(callback);
      },
    });
    const done = new Promise<void>((resolve, reject) => {
      slow.on('finish', resolve);
      stream.on('error', reject);
    });
    stream.pipe(slow);
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
    await done;
    expect(received).toEqual(Array.from({ length: total }, (_, i) => i));
    // One joined text of about 1 KiB holds about 100 of these lines: the buffer stays near that,
    // far below the 5 000 values the burst holds.
    expect(maxBuffered).toBeLessThan(200);
  });

  test('the element and salvage streams batch too, with the results of one write', async () => {
    const array = `[${Array.from({ length: 300 }, (_, i) => `{"id":${i}}`).join(',')}]`;
    const chunks = cut(
      array,
      Array.from({ length: array.length }, (_, i) => i),
    );
    const elements = createElementStream({});
    const values: unknown[] = [];
    elements.on('data', (record: { value: unknown }) => values.push(record.value));
    await new Promise<void>((resolve, reject) => {
      elements.on('end', resolve);
      elements.on('error', reject);
      for (const chunk of chunks) elements.write(chunk);
      elements.end();
    });
    expect(values).toEqual(JSON.parse(array));

    const prose = `Sure: ${array} and also {"id": 7} here`;
    const salvage = createSalvageStream({});
    const found: unknown[] = [];
    salvage.on('data', (record: { value: unknown }) => found.push(record.value));
    await new Promise<void>((resolve, reject) => {
      salvage.on('end', resolve);
      salvage.on('error', reject);
      for (const chunk of cut(
        prose,
        Array.from({ length: prose.length }, (_, i) => i),
      ))
        salvage.write(chunk);
      salvage.end();
    });
    expect(found).toEqual([JSON.parse(array), { id: 7 }]);
  });

  test('an exception from a user callback in a batch errors the stream, never the process', async () => {
    const stream = createJsonlStream({
      onDiagnostic() {
        throw new Error('callback failed');
      },
    });
    const error = await new Promise<Error>((resolve) => {
      stream.on('error', resolve);
      stream.resume();
      for (const chunk of ['{"a":1}\n', 'prose', '\n', '{"b":2}\n']) stream.write(chunk);
      stream.end();
    });
    expect(error.message).toBe('callback failed');
  });
});
