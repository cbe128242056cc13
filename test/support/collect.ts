/** Collectors: run the core decoder or a Node stream over chunks and gather everything. */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  createJsonlDecoder,
  type Diagnostic,
  type JsonlOptions,
  type JsonlRecord,
  type JsonlStats,
} from '@llmjson/core';
import { createJsonlStream, type JsonlStreamOptions } from '@llmjson/node';
import { expect } from 'vitest';
import { everyChunkSize } from './chunking.js';

export interface Collected {
  values: unknown[];
  records: JsonlRecord[];
  diagnostics: Diagnostic[];
  stats: JsonlStats;
}

/** Feeds `chunks` to a fresh core decoder, then ends it. */
export function decodeChunks(chunks: readonly string[], options: JsonlOptions = {}): Collected {
  const values: unknown[] = [];
  const records: JsonlRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  const decoder = createJsonlDecoder(options, {
    value(value, info) {
      values.push(value);
      records.push({ value, ...info });
    },
    diagnostic(d) {
      diagnostics.push(d);
    },
  });
  for (const chunk of chunks) decoder.write(chunk);
  decoder.end();
  return { values, records, diagnostics, stats: structuredClone(decoder.stats) };
}

/**
 * Decodes `text` whole and at every chunk size 1..`maxSize`; asserts that every chunking gives
 * the same records, diagnostics and stats and that every line is accounted for, and returns
 * the whole-text result.
 */
export function decodeEverySplit(text: string, options: JsonlOptions = {}, maxSize = 64): Collected {
  const whole = decodeChunks([text], options);
  for (const [label, chunks] of everyChunkSize(text, maxSize)) {
    const chunked = decodeChunks(chunks, options);
    expect(chunked.records, label).toEqual(whole.records);
    expect(chunked.diagnostics, label).toEqual(whole.diagnostics);
    expect(chunked.stats, label).toEqual(whole.stats);
  }
  const { stats } = whole;
  expect(stats.valueLines + stats.skippedLines + stats.reportedLines).toBe(stats.lines);
  return whole;
}

/** Pipes `chunks` (strings or bytes) through `createJsonlStream` in records mode. */
export async function streamChunks(
  chunks: readonly (string | Uint8Array)[],
  options: JsonlStreamOptions = {},
): Promise<Collected> {
  const records: JsonlRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  const stream = createJsonlStream({ ...options, records: true });
  stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
  await pipeline(Readable.from(chunks, { objectMode: true }), stream, async (source: AsyncIterable<JsonlRecord>) => {
    for await (const record of source) records.push(record);
  });
  return { values: records.map((r) => r.value), records, diagnostics, stats: structuredClone(stream.stats) };
}
