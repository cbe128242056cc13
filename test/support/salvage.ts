/**
 * Salvage collectors: run the one-shot `extractAllJson`, the core salvage scanner over string
 * chunks, or the Node salvage stream over string or byte chunks, and gather every value and
 * diagnostic in the order they were produced.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  createSalvageScanner,
  type Diagnostic,
  extractAllJson,
  type SalvagedValue,
  type SalvageOptions,
} from '@llmjson/core';
import { createSalvageStream } from '@llmjson/node';

export interface Salvaged {
  values: SalvagedValue[];
  diagnostics: Diagnostic[];
}

/** Options without the one-shot `onDiagnostic` callback (the collectors install their own). */
export type SalvageRunOptions = Omit<SalvageOptions, 'onDiagnostic'>;

/** One-shot: `extractAllJson` with diagnostics gathered through `onDiagnostic`. */
export function salvageOneShot(text: string, options: SalvageRunOptions = {}): Salvaged {
  const diagnostics: Diagnostic[] = [];
  const values = extractAllJson(text, { ...options, onDiagnostic: (d) => diagnostics.push(d) });
  return { values, diagnostics };
}

/** Feeds `chunks` to a fresh core salvage scanner, then ends it. */
export function salvageChunks(
  chunks: readonly string[],
  options: SalvageRunOptions = {},
): Salvaged & { stats: unknown } {
  const values: SalvagedValue[] = [];
  const diagnostics: Diagnostic[] = [];
  const scanner = createSalvageScanner(options, {
    value(v) {
      values.push(v);
    },
    diagnostic(d) {
      diagnostics.push(d);
    },
  });
  for (const chunk of chunks) scanner.write(chunk);
  scanner.end();
  return { values, diagnostics, stats: structuredClone(scanner.stats) };
}

/** Pipes `chunks` (strings or bytes) through `createSalvageStream`. */
export async function salvageStreamChunks(
  chunks: readonly (string | Uint8Array)[],
  options: SalvageRunOptions = {},
): Promise<Salvaged & { stats: unknown }> {
  const values: SalvagedValue[] = [];
  const diagnostics: Diagnostic[] = [];
  const stream = createSalvageStream(options);
  stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
  await pipeline(Readable.from(chunks, { objectMode: true }), stream, async (source: AsyncIterable<SalvagedValue>) => {
    for await (const value of source) values.push(value);
  });
  return { values, diagnostics, stats: structuredClone((stream as unknown as { stats: unknown }).stats) };
}
