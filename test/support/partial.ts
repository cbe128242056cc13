/** Shared checks and collectors for partial values (packages/core/src/engines/partial-value.ts and its streams). */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  applyChanges,
  type Change,
  createPartialBuilder,
  type Diagnostic,
  type PartialOptions,
  type PartialStats,
} from '@llmjson/core';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import { expect } from 'vitest';
import { readAll } from './web.js';

/**
 * Asserts that `later` extends `earlier` as the partial-value invariants allow: strings only
 * grow, arrays only append, keys never disappear, numbers/booleans/null never change. With
 * `identity` (snapshots of one run), complete array elements must be the same objects; across
 * runs they must be equal.
 */
export function grows(earlier: unknown, later: unknown, earlierDone: boolean, identity = true): void {
  if (typeof earlier === 'string') {
    expect(typeof later).toBe('string');
    expect((later as string).startsWith(earlier)).toBe(true);
    return;
  }
  if (Array.isArray(earlier)) {
    expect(Array.isArray(later)).toBe(true);
    const next = later as unknown[];
    expect(next.length).toBeGreaterThanOrEqual(earlier.length);
    earlier.forEach((element, i) => {
      if (i < earlier.length - 1 || earlierDone) {
        if (identity) expect(next[i]).toBe(element);
        else expect(next[i]).toEqual(element);
      } else {
        grows(element, next[i], false, identity);
      }
    });
    return;
  }
  if (typeof earlier === 'object' && earlier !== null) {
    const next = later as Record<string, unknown>;
    for (const key of Object.keys(earlier)) {
      expect(Object.hasOwn(next, key)).toBe(true);
      grows((earlier as Record<string, unknown>)[key], next[key], earlierDone, identity);
    }
    return;
  }
  expect(later).toBe(earlier);
}

/** Everything one builder run hands out. */
export interface PartialRun {
  readonly snapshots: unknown[];
  readonly changes: Change[][];
  readonly diagnostics: Diagnostic[];
  /** `builder.value` after `end()`. */
  readonly final: unknown;
  /** `builder.complete` after `end()`. */
  readonly complete: boolean;
  /** `builder.complete` after each write, then after `end()`. */
  readonly completeAfter: boolean[];
  readonly stats: PartialStats;
}

/** Feeds `chunks` to a fresh partial builder, then ends it. */
export function buildPartial(chunks: readonly string[], options: PartialOptions = {}): PartialRun {
  const snapshots: unknown[] = [];
  const changes: Change[][] = [];
  const diagnostics: Diagnostic[] = [];
  const completeAfter: boolean[] = [];
  const builder = createPartialBuilder(options, {
    update: (value, list) => {
      snapshots.push(value);
      changes.push([...list]);
    },
    diagnostic: (d) => diagnostics.push(d),
  });
  for (const chunk of chunks) {
    builder.write(chunk);
    completeAfter.push(builder.complete);
  }
  builder.end();
  completeAfter.push(builder.complete);
  return {
    snapshots,
    changes,
    diagnostics,
    final: builder.value,
    complete: builder.complete,
    completeAfter,
    stats: structuredClone(builder.stats),
  };
}

/** Applies change lists in order to `undefined`, as a consumer of the changes would. */
export function replay(lists: readonly (readonly Change[])[]): unknown {
  let state: unknown;
  for (const list of lists) state = applyChanges(state, list);
  return state;
}

/** What a partial stream emitted, with its diagnostics and its final `value`, `complete` and stats. */
export interface StreamRun {
  readonly out: unknown[];
  readonly diagnostics: Diagnostic[];
  readonly value: unknown;
  readonly complete: boolean;
  readonly stats: PartialStats;
}

/** Pipes `chunks` through the Node `createPartialStream`. */
export async function nodePartial(
  chunks: readonly (string | Uint8Array)[],
  options: Omit<node.PartialStreamOptions, 'onDiagnostic'> = {},
): Promise<StreamRun> {
  const diagnostics: Diagnostic[] = [];
  const stream = node.createPartialStream({ ...options, onDiagnostic: (d) => diagnostics.push(d) });
  const out: unknown[] = [];
  await pipeline(Readable.from(chunks), stream, async (source: AsyncIterable<unknown>) => {
    for await (const item of source) out.push(item);
  });
  return { out, diagnostics, value: stream.value, complete: stream.complete, stats: structuredClone(stream.stats) };
}

/** Pipes `chunks` through the Web `createPartialStream`. */
export async function webPartial(
  chunks: readonly (string | Uint8Array)[],
  options: Omit<web.PartialStreamOptions, 'onDiagnostic'> = {},
): Promise<StreamRun> {
  const diagnostics: Diagnostic[] = [];
  const stream = web.createPartialStream({ ...options, onDiagnostic: (d) => diagnostics.push(d) });
  const out = await readAll(ReadableStream.from(chunks).pipeThrough(stream));
  return { out, diagnostics, value: stream.value, complete: stream.complete, stats: structuredClone(stream.stats) };
}

/**
 * Whole JSON documents whose root is a string, number or literal (as JSON text, escapes
 * included), with surrounding whitespace in some.
 */
export const SCALAR_DOCUMENTS: readonly string[] = [
  '"plain"',
  '42',
  'true',
  'false',
  'null',
  '"\\ud83e\\uddea"',
  '""',
  '0',
  '-12.5e-3',
  '1E+2',
  ' \n\t"spaced out"\r\n ',
  '\n7\n',
  '"esc\\"aped \\\\ \\/ \\n \\u00e9 tail"',
  '"Café ☕ 日本 😀"',
];

/** Own property names of the prototypes a polluting write would reach. */
export function prototypeKeys(): string[] {
  return [Object.prototype, Array.prototype, Function.prototype].flatMap((p) =>
    Reflect.ownKeys(p).map((k) => String(k)),
  );
}

/** Asserts that no prototype was polluted since `before = prototypeKeys()`. */
export function expectNoPollution(before: readonly string[]): void {
  expect(prototypeKeys()).toEqual(before);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
}

/** Members copied, counted from the snapshots (see copiedBetween). */
export interface Copied {
  /** Array elements. */
  elements: number;
  /** Object members. */
  keys: number;
}

/**
 * What the builder copied between consecutive snapshots of one run, counted from the snapshots
 * themselves: with structural sharing, a container of one snapshot that the next one holds as a
 * different object was copied (a value only grows, so nothing else replaces it), and a copy
 * takes its members. Counted from the earlier snapshot (the copy also takes what the write
 * that made it added: a few members). Only differing containers are walked (a loop), so the
 * count costs what the copies cost.
 */
export function copiedBetween(snapshots: readonly unknown[]): Copied {
  const copied: Copied = { elements: 0, keys: 0 };
  for (let i = 0; i + 1 < snapshots.length; i++) {
    const stack: [unknown, unknown][] = [[snapshots[i], snapshots[i + 1]]];
    while (stack.length > 0) {
      const [a, b] = stack.pop() as [unknown, unknown];
      if (a === b || typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) continue;
      if (Array.isArray(a)) {
        if (!Array.isArray(b)) continue;
        copied.elements += a.length;
        for (let j = 0; j < a.length; j++) stack.push([a[j], b[j]]);
      } else {
        const names = Object.keys(a);
        copied.keys += names.length;
        for (const name of names) {
          const later = Object.hasOwn(b, name) ? (b as Record<string, unknown>)[name] : undefined;
          stack.push([(a as Record<string, unknown>)[name], later]);
        }
      }
    }
  }
  return copied;
}
