/**
 * Web collectors: pipe chunks (strings or bytes) from a ReadableStream through an
 * `@llmjson/web` TransformStream and gather every value, diagnostic and the final stats.
 */
import type { Diagnostic, JsonlRecord, SalvagedValue } from '@llmjson/core';
import { createJsonlStream, createSalvageStream, type JsonlStreamOptions } from '@llmjson/web';
import type { Collected } from './collect.js';
import type { Salvaged, SalvageRunOptions } from './salvage.js';

/** Reads a ReadableStream to its end. */
export async function readAll<T>(readable: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of readable) out.push(item);
  return out;
}

/** Pipes `chunks` through the Web `createJsonlStream` in records mode. */
export async function webJsonlChunks(
  chunks: readonly (string | Uint8Array)[],
  options: Omit<JsonlStreamOptions, 'records' | 'onDiagnostic'> = {},
): Promise<Collected> {
  const diagnostics: Diagnostic[] = [];
  const stream = createJsonlStream({ ...options, records: true, onDiagnostic: (d) => diagnostics.push(d) });
  const records: JsonlRecord[] = await readAll(ReadableStream.from(chunks).pipeThrough(stream));
  return { values: records.map((r) => r.value), records, diagnostics, stats: structuredClone(stream.stats) };
}

/** Pipes `chunks` through the Web `createJsonlStream` in plain mode: the values only. */
export async function webJsonlValues(
  chunks: readonly (string | Uint8Array)[],
  options: Omit<JsonlStreamOptions, 'records' | 'onDiagnostic'> = {},
): Promise<unknown[]> {
  return readAll(ReadableStream.from(chunks).pipeThrough(createJsonlStream(options)));
}

/** Pipes `chunks` through the Web `createSalvageStream`. */
export async function webSalvageChunks(
  chunks: readonly (string | Uint8Array)[],
  options: SalvageRunOptions = {},
): Promise<Salvaged & { stats: unknown }> {
  const diagnostics: Diagnostic[] = [];
  const stream = createSalvageStream({ ...options, onDiagnostic: (d) => diagnostics.push(d) });
  const values: SalvagedValue[] = await readAll(ReadableStream.from(chunks).pipeThrough(stream));
  return { values, diagnostics, stats: structuredClone(stream.stats) };
}
