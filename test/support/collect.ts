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
