/**
 * One value through every core engine that validates — the JSONL decoder (a line), the element
 * scanner (an element), the partial builder (the document) and the salvage scanner (a value in
 * prose) — under the given split points, gathering what each emits and reports. Used by the
 * tests of validators that misbehave (Standard Schemas that throw or return malformed results).
 */
import {
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  createSalvageScanner,
  type Diagnostic,
  type SchemaInput,
} from '@llmjson/core';
import { expect } from 'vitest';
import { splitAt } from './chunking.js';

export type EngineName = 'jsonl' | 'elements' | 'partial' | 'salvage';

export interface EngineRun {
  readonly values: unknown[];
  readonly diagnostics: Diagnostic[];
  readonly stats: { readonly diagnostics: Readonly<Record<string, number>> } & Record<string, unknown>;
}

/** The text each engine reads for `json` (one JSON value). */
export function engineText(engine: EngineName, json: string): string {
  switch (engine) {
    case 'jsonl':
      return `${json}\n`;
    case 'elements':
      return `[${json}]`;
    case 'partial':
      return json;
    case 'salvage':
      return `The answer: ${json} as asked.`;
  }
}

export const ENGINES: readonly EngineName[] = ['jsonl', 'elements', 'partial', 'salvage'];

/** Runs `engine` with `schema` over `json`, split at `points` (positions in the engine's text). */
export function runEngine(
  engine: EngineName,
  schema: SchemaInput,
  json: string,
  points: readonly number[] = [],
): EngineRun {
  const values: unknown[] = [];
  const diagnostics: Diagnostic[] = [];
  const diagnostic = (d: Diagnostic) => diagnostics.push(d);
  const chunks = splitAt(engineText(engine, json), points);
  let unit: { write(text: string): void; end(): void; readonly stats: object };
  let partial: ReturnType<typeof createPartialBuilder> | undefined;
  switch (engine) {
    case 'jsonl':
      unit = createJsonlDecoder({ schema }, { value: (v) => values.push(v), diagnostic });
      break;
    case 'elements':
      unit = createElementScanner({ elementSchema: schema }, { value: (v) => values.push(v), diagnostic });
      break;
    case 'partial':
      partial = createPartialBuilder({ schema }, { update() {}, diagnostic });
      unit = partial;
      break;
    case 'salvage':
      unit = createSalvageScanner({ schema }, { value: (v) => values.push(v.value), diagnostic });
      break;
  }
  for (const chunk of chunks) unit.write(chunk);
  unit.end();
  if (partial !== undefined && !diagnostics.some((d) => d.reason === 'schema')) values.push(partial.value);
  return { values, diagnostics, stats: structuredClone(unit.stats) as EngineRun['stats'] };
}

/** Each reason's count in the stats is the number of diagnostics of that reason delivered. */
export function expectStatsAddUp(engine: EngineName, run: EngineRun): void {
  const delivered: Record<string, number> = {};
  for (const d of run.diagnostics) delivered[d.reason] = (delivered[d.reason] ?? 0) + 1;
  const counted = Object.fromEntries(Object.entries(run.stats.diagnostics).filter(([, n]) => n !== 0));
  expect(counted, engine).toEqual(delivered);
  const stats = run.stats as Record<string, number>;
  if (engine === 'jsonl') {
    expect((stats.valueLines ?? 0) + (stats.skippedLines ?? 0) + (stats.reportedLines ?? 0), engine).toBe(stats.lines);
  }
  if (engine === 'elements') {
    expect(stats.elements, engine).toBe(run.values.length + (delivered.schema ?? 0));
  }
}
