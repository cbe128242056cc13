/**
 * The page script of the `live-client` scenario's CPU part (bundled by esbuild, run in
 * Chromium): it holds the inputs the scenario loads (per case: the change lists decoded in Node,
 * the raw tokens) and times the three client paths of live-client-work.ts on them with
 * `performance.now()`, so only the client's own work is on the clock — not the transfer, not
 * the decoding the server did.
 *
 * It installs `globalThis.liveClientCpu`; the scenario calls it through `page.evaluate`.
 * A sample collects garbage first (Chromium started with `--js-flags=--expose-gc`) and runs
 * the path `iterations` times; the median and the fastest run go back to Node.
 *
 * The default path (`live`): the wire's bytes, grouped per delivery tick at load, offered by a
 * paced stream to `createLiveJson` (or to a reader that only drains them, the baseline). Its CPU
 * is not timed here but by the scenario, as the main thread's CPU time (the DevTools protocol's
 * `ThreadTime`) around the call: the work is spread over timers, reads and animation frames.
 */

import type { Change } from '@llmjson/core';
import {
  applyChangeLists,
  applyChangeListsPerFrame,
  chunksPerTick,
  decodeInClient,
  drainBody,
  lastRead,
  pacedBody,
  readLiveJson,
  reparseEachToken,
  TOKENS_PER_FRAME,
} from './live-client-work.js';

/** The three paths the page times. */
export type ClientPath = 'store' | 'store-frame' | 'reparse' | 'decode';

interface Input {
  readonly lists: readonly (readonly Change[])[];
  readonly tokens: readonly string[];
}

const inputs = new Map<string, Input>();

/** A wire as the server wrote it: each write's bytes (text) and when, in ms from the first token. */
export interface TimedWrite {
  readonly at: number;
  readonly text: string;
}

/** What the default path reads: `createLiveJson`, or the baseline that only drains the delivery. */
export type LiveWay = 'controller' | 'drain';

const wires = new Map<string, (Uint8Array | undefined)[]>();

function wire(id: string): (Uint8Array | undefined)[] {
  const found = wires.get(id);
  if (found === undefined) throw new Error(`no wire ${id} loaded in the page: call loadWire first`);
  return found;
}

function input(id: string): Input {
  const found = inputs.get(id);
  if (found === undefined) throw new Error(`no input ${id} loaded in the page: call load first`);
  return found;
}

async function runPath(path: ClientPath, id: string): Promise<unknown> {
  const { lists, tokens } = input(id);
  if (path === 'store') return applyChangeLists(lists);
  if (path === 'store-frame') return applyChangeListsPerFrame(lists, TOKENS_PER_FRAME);
  if (path === 'reparse') return reparseEachToken(tokens);
  return decodeInClient(tokens);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const api = {
  /** Keeps one case's inputs (a JSON text: parsing it here is faster than Playwright's argument transfer). */
  load(id: string, json: string): number {
    const parsed = JSON.parse(json) as Input;
    inputs.set(id, parsed);
    return parsed.tokens.length;
  },
  /** Collects garbage (called before the CPU clock is read, so the collection is outside it). */
  collect(): void {
    (globalThis as { gc?: () => void }).gc?.();
  },
  /** Keeps one wire's writes, grouped per delivery tick; returns the number of ticks. */
  loadWire(id: string, json: string): number {
    const chunks = chunksPerTick(JSON.parse(json) as TimedWrite[]);
    wires.set(id, chunks);
    return chunks.length;
  },
  /**
   * One run of the default path on the wire `id`, delivered at its pace (or all at once): the
   * value if `withValue` (else `undefined`: serialising it for Node would be on the CPU clock),
   * the publishes, the wall time in ms.
   */
  async live(
    way: LiveWay,
    id: string,
    paced: boolean,
    withValue: boolean,
  ): Promise<{ value: unknown; publishes: number; ms: number }> {
    const body = pacedBody(wire(id), paced);
    const started = performance.now();
    if (way === 'drain') {
      await drainBody(body);
      return { value: undefined, publishes: 0, ms: performance.now() - started };
    }
    const { value, publishes } = await readLiveJson(body);
    return { value: withValue ? value : undefined, publishes, ms: performance.now() - started };
  },
  /** One run: the final value (checked in Node against JSON.parse of the document) and its time in ms. */
  async verify(path: ClientPath, id: string): Promise<{ value: unknown; ms: number }> {
    const started = performance.now();
    const value = await runPath(path, id);
    return { value, ms: performance.now() - started };
  },
  /** `iterations` timed runs after a collection; the median and the fastest, in ms. */
  async sample(path: ClientPath, id: string, iterations: number): Promise<{ p50: number; min: number }> {
    (globalThis as { gc?: () => void }).gc?.();
    const times: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const started = performance.now();
      await runPath(path, id);
      times.push(performance.now() - started);
    }
    // Read once so the values read are observable from outside the loop.
    if (lastRead() === Symbol.for('never')) times.push(0);
    return { p50: median(times), min: Math.min(...times) };
  },
};

export type LiveClientCpu = typeof api;

(globalThis as { liveClientCpu?: LiveClientCpu }).liveClientCpu = api;
