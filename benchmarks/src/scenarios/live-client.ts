/**
 * Live UIs, the browser's side: what does the client pay per model token, in Chromium?
 *
 * A seeded `{"title": …, "items": [ … ]}` answer of 10 KB and 100 KB (1 KB and 10 KB with
 * --quick) arrives in 4-character tokens. Three client paths run in one page, timed with
 * `performance.now()` inside `page.evaluate` (live-client-work.ts, bundled by esbuild):
 * llmjson's wire (each token's change list — decoded in Node before the clock starts, as the
 * server would — applied to `createPartialStore()` and the snapshot read), the AI SDK's way
 * (the text so far re-parsed with `parsePartialJson` from `ai` after every token), and the
 * client decoding the raw model text itself (`createPartialStream({ emit: 'changes' })` of
 * `@llmjson/web` into a store: the no-server path). Each path must reach `JSON.parse` of the
 * document in the page (and in Node, in the tests) before anything is timed.
 *
 * Targets: at 100 KB the AI SDK's way takes ≥ 50× llmjson's time, and llmjson's time grows
 * with exponent ≤ 1.1 from 10 KB to 100 KB (1.0: the same cost per token however long the
 * answer already is). A fourth path applies the lists of 32 tokens (a 16 ms frame at 2 000
 * tokens/s) as one, to show what the per-token copies of the open containers cost.
 *
 * The default path, what `useJsonStream` runs: the wire's bytes (made in Node on a virtual
 * clock at 2 000 tokens/s by `toEventStream(createPartialStream({ emit: 'changes' }))`, with
 * `throttle: 0` — an event per token, the client's worst case — and with its defaults) offered
 * to `createLiveJson(response)` in the page by a stream paced at the times the server wrote them
 * (what arrived within a 16 ms tick as one chunk), publishing once per real animation frame.
 * Wall time is the pace's, so what is measured is the page's main-thread CPU time (the DevTools
 * protocol's `ThreadTime`, a thread clock, so a loaded machine's waits are not counted) over the
 * run, minus that of the same delivery read by a reader that drops the bytes (the pace's own
 * timers and reads). Targets as the store's: ≥ 50× less than the re-parse at 100 KB, exponent ≤ 1.1.
 *
 * React (live-react-page.ts): answers lasting 3 s (0.5 s with --quick) at 50 and 2 000 tokens/s,
 * streamed from a paced ReadableStream into `useJsonStream` (defaults), `useJsonStream` with
 * `throttle: 0`, and the AI SDK's `useObject` way written by hand; `<Profiler onRender>` counts
 * the commits and a `requestAnimationFrame` loop the frames of the same wall time. Target: the
 * hook's commits that carry tokens are at most the frames (the mount's and the status changes'
 * commits are published at once by design and counted apart).
 *
 * Without Chromium on the machine the scenario reports that and measures nothing (CI has it;
 * a user's machine may not).
 */

import { isDeepStrictEqual } from 'node:util';
import { type Change, createPartialBuilder } from '@llmjson/core';
import { createPartialStream, type ToEventStreamOptions, toEventStream } from '@llmjson/web';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { bundlePage, findChromium, launchChromium, MISSING_CHROMIUM, openPage } from '../browser/chromium.js';
import type { ClientPath, LiveClientCpu, LiveWay, TimedWrite } from '../browser/live-client-page.js';
import {
  applyChangeLists,
  applyChangeListsPerFrame,
  decodeInClient,
  reparseEachToken,
  TOKENS_PER_FRAME,
} from '../browser/live-client-work.js';
import type { LiveReact, ReactRun, RenderWay } from '../browser/live-react-page.js';
import { type Entrant, Layer } from '../entrants.js';
import { exponentOf, fastestOf, median, ratio, type SizeResult, type Timing, VerificationError } from '../harness.js';
import { charChunks, random } from '../inputs.js';
import { formatExponent, formatSize, formatSpread, sideBySide, timesPerSize } from '../report.js';
import type { Case, RunContext, Scenario, Table, TargetResult } from '../scenario.js';

const FULL_SIZES = [10_000, 100_000];
/** Token rates of the React part: a typical model, and a fast one (or a replay). */
const RATES = [50, 2_000];
/** The React part's window: each answer lasts this long at its rate (shorter with --quick). */
const WINDOW_SECONDS = 3;
const QUICK_WINDOW_SECONDS = 0.5;
const QUICK_SIZES = [1_000, 10_000];
const CHUNK = 4;
/** At 100 KB the AI SDK's way must take at least this many times llmjson's time… */
const REPARSE_TARGET = 50;
/** …and llmjson's time must grow at most with this exponent from 10 KB to 100 KB. */
const EXPONENT_TARGET = 1.1;
/** Runs of each path on the smallest case before anything is timed (JIT warm-up). */
const WARM_UP_RUNS = 5;
/** A path whose verifying run takes longer is verified once, not twice. */
const SLOW_RUN_MS = 5_000;

const STORE = "llmjson createPartialStore().apply(changes) + getSnapshot() per token (the wire's change lists)";
const STORE_FRAME = `llmjson createPartialStore().apply(changes) + getSnapshot(), the lists of ${TOKENS_PER_FRAME} tokens as one (a 16 ms frame at 2 000 tokens/s)`;
const REPARSE = 'AI SDK: accumulated += token; await parsePartialJson(accumulated) (ai)';
const DECODE = "llmjson createPartialStream({ emit: 'changes' }) in the page + store (raw model text, no server)";

/** The pace at which the default path's wire was written and is delivered to the page. */
const LIVE_RATE = 2_000;
const LIVE_PER_TOKEN = `llmjson createLiveJson(response) (defaults: a publish per animation frame) on toEventStream({ throttle: 0 })'s wire (an event per token), delivered at ${LIVE_RATE.toLocaleString('en-US').replace(/,/g, ' ')} tokens/s: main-thread CPU`;
const LIVE_DEFAULT = `llmjson createLiveJson(response) (defaults) on toEventStream()'s wire (defaults: an event per 50 ms), delivered at ${LIVE_RATE.toLocaleString('en-US').replace(/,/g, ' ')} tokens/s: main-thread CPU`;

const WIRES: readonly { readonly wire: string; readonly name: string; readonly options: ToEventStreamOptions }[] = [
  { wire: 'per-token', name: LIVE_PER_TOKEN, options: { throttle: 0 } },
  { wire: 'default', name: LIVE_DEFAULT, options: {} },
];

const PATHS: readonly { readonly path: ClientPath; readonly name: string; readonly ours: boolean }[] = [
  { path: 'store', name: STORE, ours: true },
  { path: 'store-frame', name: STORE_FRAME, ours: false },
  { path: 'reparse', name: REPARSE, ours: false },
  { path: 'decode', name: DECODE, ours: false },
];

const HOOK = '@llmjson/react useJsonStream(source) (defaults: at most one publish per animation frame)';
const HOOK_EVERY = 'useJsonStream(source, { throttle: 0 }) (a publish after every change list)';
const NAIVE = "the AI SDK's useObject way by hand: parsePartialJson per token, setState when the value differs";

const WAYS: readonly { readonly way: RenderWay; readonly name: string }[] = [
  { way: 'hook', name: HOOK },
  { way: 'hook-every', name: HOOK_EVERY },
  { way: 'naive', name: NAIVE },
];

const WORDS = [
  'light',
  'water',
  'carbon',
  'leaf',
  'cell',
  'réaction',
  'Zellkern',
  'ミトコンドリア',
  '叶绿体',
  '🌱',
  'a',
  'the',
];

/**
 * A compact `{"title", "items": [ … ]}` of about `bytes` UTF-8 bytes, items of about 90 bytes
 * (an id, a name, a short text, a score, a flag; mixed-width UTF-8): about 110 items at 10 KB,
 * 1 100 at 100 KB.
 */
export function answerDocument(bytes: number, seed: number): string {
  const next = random(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  const title = words(5);
  const items: unknown[] = [];
  let length = Buffer.byteLength(JSON.stringify({ title, items }));
  for (;;) {
    const item = {
      id: items.length,
      name: words(2),
      text: words(1 + Math.floor(next() * 5)),
      score: Math.round(next() * 1e3) / 1e3,
      done: next() < 0.5,
    };
    const itemLength = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (items.length > 0 && length + itemLength > bytes) break;
    items.push(item);
    length += itemLength;
  }
  return JSON.stringify({ title, items });
}

/**
 * What the server would send for each token: the change list the partial builder (no snapshots,
 * changes tracked) produces for that write, copied at once (an `add` may carry a container the
 * builder fills later). A token that changes nothing gets an empty list; `end` adds its own.
 */
export function changeListsPerToken(tokens: readonly string[]): Change[][] {
  const lists: Change[][] = [];
  let current: Change[] = [];
  const builder = createPartialBuilder(
    { snapshots: false },
    {
      update(_value, changes) {
        current.push(...(JSON.parse(JSON.stringify(changes)) as Change[]));
      },
      diagnostic(d) {
        throw new Error(`the seeded answer must decode without diagnostics: ${d.message}`);
      },
    },
  );
  for (const token of tokens) {
    builder.write(token);
    lists.push(current);
    current = [];
  }
  builder.end();
  if (current.length > 0) lists.push(current);
  return lists;
}

interface ClientInput {
  readonly label: string;
  readonly size: number;
  readonly document: unknown;
  readonly tokens: string[];
  readonly lists: Change[][];
}

/**
 * Runs `run` with `setTimeout`, `clearTimeout` and `performance.now` on a clock that moves only
 * when nothing else can run: after every pending job (a real `setImmediate` turn), time jumps to
 * the earliest timer, which fires. So a paced answer of minutes is written in a second, with the
 * events `toEventStream`'s throttle makes at that pace whatever the machine's load.
 */
async function onVirtualClock<T>(run: () => Promise<T>): Promise<T> {
  const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, now: performance.now };
  const timers = new Map<number, { readonly at: number; readonly fire: () => void }>();
  let now = 0;
  let ids = 0;
  globalThis.setTimeout = ((fire: () => void, ms?: number) => {
    timers.set(++ids, { at: now + Math.max(0, ms ?? 0), fire });
    return ids;
  }) as unknown as typeof setTimeout;
  globalThis.clearTimeout = ((id: number) => {
    timers.delete(id);
  }) as unknown as typeof clearTimeout;
  Object.defineProperty(performance, 'now', { value: () => now, configurable: true, writable: true });
  try {
    let settled = false;
    const result = run().finally(() => {
      settled = true;
    });
    result.catch(() => {});
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return await result;
      // Earliest first; among equal times the first set (a Map iterates in insertion order).
      let earliest: [number, { readonly at: number; readonly fire: () => void }] | undefined;
      for (const entry of timers) if (earliest === undefined || entry[1].at < earliest[1].at) earliest = entry;
      if (earliest === undefined) throw new Error('virtual clock: the run waits for nothing, yet has not ended');
      timers.delete(earliest[0]);
      now = earliest[1].at;
      earliest[1].fire();
    }
  } finally {
    globalThis.setTimeout = real.setTimeout;
    globalThis.clearTimeout = real.clearTimeout;
    Object.defineProperty(performance, 'now', { value: real.now, configurable: true, writable: true });
  }
}

/**
 * The server's writes for `tokens` arriving at `rate` per second, through
 * `toEventStream(createPartialStream({ emit: 'changes' }), options)`: each write's text and its
 * time in ms from the first token, on a virtual clock (so the throttle groups what it would at
 * that pace, and this takes no real wait).
 */
export function wireWrites(
  tokens: readonly string[],
  rate: number,
  options: ToEventStreamOptions,
): Promise<TimedWrite[]> {
  return onVirtualClock(async () => {
    let next = 0;
    const model = new ReadableStream<string>({
      async pull(controller) {
        const wait = (next * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        controller.enqueue(tokens[next++] as string);
        if (next === tokens.length) controller.close();
      },
    });
    const events = toEventStream(model.pipeThrough(createPartialStream({ emit: 'changes' })), options);
    const decoder = new TextDecoder();
    const writes: TimedWrite[] = [];
    for await (const chunk of events as unknown as AsyncIterable<Uint8Array>) {
      writes.push({ at: performance.now(), text: decoder.decode(chunk, { stream: true }) });
    }
    return writes;
  });
}

function inputs(quick: boolean): ClientInput[] {
  return (quick ? QUICK_SIZES : FULL_SIZES).map((bytes, i) => {
    const text = answerDocument(bytes, 210 + i);
    const tokens = charChunks(text, CHUNK).strings as string[];
    return {
      label: formatSize(bytes),
      size: Buffer.byteLength(text),
      document: JSON.parse(text),
      tokens,
      lists: changeListsPerToken(tokens),
    };
  });
}

/** Per case, the default path's wires (made when the browser part runs, not for the Node cases). */
async function wiresOf(input: ClientInput): Promise<Map<string, TimedWrite[]>> {
  const made = new Map<string, TimedWrite[]>();
  for (const { wire, options } of WIRES) made.set(wire, await wireWrites(input.tokens, LIVE_RATE, options));
  return made;
}

/** The same three paths in Node, for the tests: the page runs these very functions. */
function nodeEntrant(path: ClientPath, name: string, ours: boolean, input: ClientInput): Entrant {
  return {
    name,
    layer: Layer.engine,
    ours,
    async run() {
      if (path === 'store') return [applyChangeLists(input.lists)];
      if (path === 'store-frame') return [applyChangeListsPerFrame(input.lists, TOKENS_PER_FRAME)];
      if (path === 'reparse') return [await reparseEachToken(input.tokens)];
      return [await decodeInClient(input.tokens)];
    },
  };
}

function cases(quick: boolean): Case[] {
  return inputs(quick).map((input) => ({
    label: input.label,
    size: input.size,
    contestants: PATHS.map(({ path, name, ours }) => ({
      entrant: nodeEntrant(path, name, ours, input),
      expected: [input.document],
    })),
  }));
}

/**
 * The page's API from Node. Each function given to `page.evaluate` is sent as source text, so
 * it names the page's global itself and closes over nothing.
 */
function cpuApi(page: Page) {
  type Global = { liveClientCpu: LiveClientCpu };
  return {
    load: (id: string, json: string) =>
      page.evaluate(([i, j]) => (globalThis as unknown as Global).liveClientCpu.load(i, j), [id, json] as const),
    verify: (path: ClientPath, id: string) =>
      page.evaluate(([p, i]) => (globalThis as unknown as Global).liveClientCpu.verify(p, i), [path, id] as const),
    sample: (path: ClientPath, id: string, iterations: number) =>
      page.evaluate(([p, i, n]) => (globalThis as unknown as Global).liveClientCpu.sample(p, i, n), [
        path,
        id,
        iterations,
      ] as const),
    loadWire: (id: string, json: string) =>
      page.evaluate(([i, j]) => (globalThis as unknown as Global).liveClientCpu.loadWire(i, j), [id, json] as const),
    collect: () => page.evaluate(() => (globalThis as unknown as Global).liveClientCpu.collect()),
    live: (way: LiveWay, id: string, paced: boolean, withValue: boolean) =>
      page.evaluate(([w, i, p, v]) => (globalThis as unknown as Global).liveClientCpu.live(w, i, p, v), [
        way,
        id,
        paced,
        withValue,
      ] as const),
  };
}

/** One default-path run's figures: main-thread CPU of the controller's run and of the baseline's, publishes, wall time. */
interface LiveRun {
  readonly cpuMs: number;
  readonly baselineMs: number;
  readonly publishes: number;
  readonly wallMs: number;
}

/** The page's main-thread CPU time so far, in ms (a thread clock: time the thread waited is not in it). */
async function threadMs(session: CDPSession): Promise<number> {
  const { metrics } = await session.send('Performance.getMetrics');
  const found = metrics.find((m) => m.name === 'ThreadTime');
  if (found === undefined)
    throw new Error('Chromium reported no ThreadTime metric: a Chromium of 2020 or later is needed');
  return found.value * 1000;
}

/**
 * The default path on every case: each wire loaded, then run once paced and its value checked
 * (also the warm-up), then per round the baseline (the delivery drained) and the controller's
 * run, order alternating, each between two reads of the thread's CPU clock, garbage collected
 * before. Adds a Timing per wire to each case's results: the controller's CPU minus the
 * baseline's, per round.
 */
async function measureLive(
  page: Page,
  all: readonly ClientInput[],
  results: SizeResult[],
  context: RunContext,
): Promise<Record<string, Record<string, LiveRun[]>>> {
  const api = cpuApi(page);
  const session = await page.context().newCDPSession(page);
  await session.send('Performance.enable', { timeDomain: 'threadTicks' });
  const data: Record<string, Record<string, LiveRun[]>> = {};
  for (const [n, input] of all.entries()) {
    const wires = await wiresOf(input);
    data[input.label] = {};
    for (const { wire, name } of WIRES) {
      const id = `${input.label}/${wire}`;
      await api.loadWire(id, JSON.stringify(wires.get(wire)));
      context.log(`live-client: createLiveJson, ${wire} wire, ${input.label}: checking its value in Chromium`);
      const checked = await api.live('controller', id, true, true);
      if (!isDeepStrictEqual(checked.value, input.document)) {
        throw new VerificationError(
          `${name} (${input.label}, in Chromium): its final value is not JSON.parse of the document`,
        );
      }
    }
    const runs = WIRES.map((): LiveRun[] => []);
    for (let round = 0; round < context.measure.rounds; round++) {
      context.log(`live-client: createLiveJson CPU in Chromium, ${input.label}, round ${round + 1}`);
      for (let k = 0; k < WIRES.length; k++) {
        const i = (k + round) % WIRES.length;
        const id = `${input.label}/${WIRES[i]?.wire}`;
        const ways: LiveWay[] = round % 2 === 0 ? ['drain', 'controller'] : ['controller', 'drain'];
        const cpu: Partial<Record<LiveWay, { ms: number; publishes: number; wallMs: number }>> = {};
        for (const way of ways) {
          await api.collect();
          const before = await threadMs(session);
          const run = await api.live(way, id, true, false);
          cpu[way] = { ms: (await threadMs(session)) - before, publishes: run.publishes, wallMs: run.ms };
        }
        const controller = cpu.controller as { ms: number; publishes: number; wallMs: number };
        runs[i]?.push({
          cpuMs: controller.ms,
          baselineMs: cpu.drain?.ms ?? 0,
          publishes: controller.publishes,
          wallMs: controller.wallMs,
        });
      }
    }
    for (const [i, { wire, name }] of WIRES.entries()) {
      const own = runs[i] as LiveRun[];
      (data[input.label] as Record<string, LiveRun[]>)[wire] = own;
      // A difference at or below zero (a tiny answer on a noisy machine) is kept just above it, so ratios stay finite.
      const roundsMs = own.map((r) => Math.max(0.01, r.cpuMs - r.baselineMs));
      results[n]?.timings.push({
        name,
        layer: Layer.engine,
        ours: false,
        roundsMs,
        roundsMinMs: roundsMs,
        medianMs: median(roundsMs),
      });
    }
  }
  await session.detach();
  return data;
}

/** Verifies every path on every case in the page, then times them over rounds (order rotating). */
async function measureCpu(page: Page, all: readonly ClientInput[], context: RunContext): Promise<SizeResult[]> {
  const api = cpuApi(page);
  for (const input of all) await api.load(input.label, JSON.stringify({ lists: input.lists, tokens: input.tokens }));
  const first = all[0] as ClientInput;
  for (const { path } of PATHS) {
    for (let i = 0; i < WARM_UP_RUNS; i++) await api.verify(path, first.label);
  }
  const results: SizeResult[] = [];
  for (const input of all) {
    context.log(`live-client: CPU per token in Chromium, ${input.label}`);
    const estimates: number[] = [];
    for (const { path, name } of PATHS) {
      let ms = 0;
      // The second run is the estimate (the first paid for compiling); a path that takes seconds
      // (the re-parse at 100 KB) is estimated well enough by its first.
      for (let run = 0; run < 2 && ms < SLOW_RUN_MS; run++) {
        const verified = await api.verify(path, input.label);
        if (!isDeepStrictEqual(verified.value, input.document)) {
          throw new VerificationError(
            `${name} (${input.label}, in Chromium): its final value is not JSON.parse of the document`,
          );
        }
        ms = verified.ms;
      }
      estimates.push(ms);
    }
    const rounds = PATHS.map((): number[] => []);
    const fastest = PATHS.map((): number[] => []);
    for (let round = 0; round < context.measure.rounds; round++) {
      for (let k = 0; k < PATHS.length; k++) {
        const i = (k + round) % PATHS.length;
        const iterations = Math.max(
          1,
          Math.min(1_000, Math.round(context.measure.sampleMs / Math.max(estimates[i] as number, 0.01))),
        );
        const { p50, min } = await api.sample(PATHS[i]?.path as ClientPath, input.label, iterations);
        rounds[i]?.push(p50);
        fastest[i]?.push(min);
      }
    }
    const timings: Timing[] = PATHS.map(({ name, ours }, i) => ({
      name,
      layer: Layer.engine,
      ours,
      roundsMs: rounds[i] as number[],
      roundsMinMs: fastest[i] as number[],
      medianMs: median(rounds[i] as number[]),
    }));
    results.push({ label: input.label, size: input.size, timings, skipped: [] });
  }
  return results;
}

/** `7.12 µs`, `41.0 µs`, `2 980 µs`: three significant digits, no exponent notation. */
function microseconds(us: number): string {
  if (us >= 1000) return `${(Math.round(us / 10) * 10).toLocaleString('en-US').replace(/,/g, ' ')} µs`;
  return `${us.toPrecision(3)} µs`;
}

function perTokenTable(results: readonly SizeResult[], all: readonly ClientInput[]): Table {
  return {
    caption:
      'Client CPU per model token in Chromium, microseconds (median over rounds): the whole answer’s time ÷ its number of 4-character tokens.',
    header: [
      'entrant',
      ...results.map((r) => `${r.label}: µs per token`),
      `growth exponent ${results[0]?.label} → ${results.at(-1)?.label}`,
    ],
    rows: [...PATHS.map((p) => p.name), ...WIRES.map((w) => w.name)].map((name) => {
      const cells = results.map((r, i) => {
        const t = r.timings.find((x) => x.name === name);
        const tokens = all[i]?.tokens.length ?? 1;
        return t === undefined ? '—' : microseconds((t.medianMs * 1000) / tokens);
      });
      const a = results[0]?.timings.find((x) => x.name === name);
      const b = results.at(-1)?.timings.find((x) => x.name === name);
      const exponent =
        a === undefined || b === undefined || results.length < 2
          ? '—'
          : formatExponent(exponentOf(a, results[0]?.size ?? 1, b, results.at(-1)?.size ?? 1));
      return [name, ...cells, exponent];
    }),
  };
}

function cpuTargets(results: readonly SizeResult[]): TargetResult[] {
  const first = results[0];
  const last = results.at(-1);
  if (first === undefined || last === undefined || first === last) return [];
  const find = (r: SizeResult, name: string) => r.timings.find((t) => t.name === name) as Timing;
  const r = ratio(find(last, REPARSE), find(last, STORE));
  const e = exponentOf(find(first, STORE), first.size, find(last, STORE), last.size);
  const ef = exponentOf(fastestOf(find(first, STORE)), first.size, fastestOf(find(last, STORE)), last.size);
  return [
    {
      target: `live client: the wire's change lists applied to the store take ≥ ${REPARSE_TARGET}× less CPU per token than the AI SDK's re-parse at 100 KB (Chromium)`,
      basis: `${STORE}, ${last.label}, 4-char tokens`,
      measured: `speed relative to the AI SDK's parsePartialJson per token: ${formatSpread(r)}; fastest runs: ${formatSpread(
        ratio(fastestOf(find(last, REPARSE)), fastestOf(find(last, STORE))),
      )}`,
      met: r.median >= REPARSE_TARGET,
    },
    {
      target: `live client: the store's time grows with exponent ≤ ${EXPONENT_TARGET} from 10 KB to 100 KB (Chromium)`,
      basis: `${STORE}, ${first.label} → ${last.label}`,
      measured: `exponent ${formatExponent(e)}; fastest runs: ${formatExponent(ef)}`,
      met: e.median <= EXPONENT_TARGET,
    },
    ...liveTargets(first, last),
  ];
}

/** The same two targets for the default path (the default wire), the per-token wire's figures beside. */
function liveTargets(first: SizeResult, last: SizeResult): TargetResult[] {
  const find = (r: SizeResult, name: string) => r.timings.find((t) => t.name === name);
  const reparse = find(last, REPARSE);
  const [perToken, byDefault] = [LIVE_PER_TOKEN, LIVE_DEFAULT].map((name) => ({
    small: find(first, name),
    large: find(last, name),
  }));
  if (reparse === undefined || byDefault?.small === undefined || byDefault.large === undefined) return [];
  const exponent = (t: { small: Timing | undefined; large: Timing | undefined } | undefined) =>
    t?.small === undefined || t.large === undefined ? undefined : exponentOf(t.small, first.size, t.large, last.size);
  const r = ratio(reparse, byDefault.large);
  const e = exponent(byDefault) as ReturnType<typeof exponentOf>;
  const rp = perToken?.large === undefined ? undefined : ratio(reparse, perToken.large);
  const ep = exponent(perToken);
  return [
    {
      target: `live client, the default path: createLiveJson on the default wire takes ≥ ${REPARSE_TARGET}× less main-thread CPU per token than the AI SDK's re-parse at 100 KB (Chromium)`,
      basis: `${LIVE_DEFAULT}, ${last.label}, minus the same delivery drained`,
      measured: `${formatSpread(r)}${rp === undefined ? '' : `; on the per-token wire (throttle: 0): ${formatSpread(rp)}`}`,
      met: r.median >= REPARSE_TARGET,
    },
    {
      target: `live client, the default path: its CPU grows with exponent ≤ ${EXPONENT_TARGET} from 10 KB to 100 KB (Chromium)`,
      basis: `${LIVE_DEFAULT}, ${first.label} → ${last.label}`,
      measured: `exponent ${formatExponent(e)}${ep === undefined ? '' : `; on the per-token wire (throttle: 0): ${formatExponent(ep)}`}`,
      met: e.median <= EXPONENT_TARGET,
    },
  ];
}

/** An answer whose tokens last about `seconds` at `rate` tokens per second. */
function pacedAnswer(rate: number, seconds: number, seed: number): { text: string; tokens: string[] } {
  const sample = answerDocument(10_000, seed);
  const bytesPerChar = Buffer.byteLength(sample) / [...sample].length;
  const text = answerDocument(Math.max(200, Math.round(rate * seconds * CHUNK * bytesPerChar)), seed);
  return { text, tokens: charChunks(text, CHUNK).strings as string[] };
}

interface ReactResult {
  readonly rate: number;
  readonly tokens: number;
  readonly runs: Map<RenderWay, ReactRun[]>;
}

/** Each rate, each way (order rotating), `rounds` times; every run's final value checked. */
async function measureReact(page: Page, context: RunContext): Promise<ReactResult[]> {
  type Global = { liveReact: LiveReact };
  const seconds = context.quick ? QUICK_WINDOW_SECONDS : WINDOW_SECONDS;
  const results: ReactResult[] = RATES.map((rate, i) => {
    const { tokens } = pacedAnswer(rate, seconds, 310 + i);
    return { rate, tokens: tokens.length, runs: new Map(WAYS.map(({ way }) => [way, []])) };
  });
  for (let round = 0; round < context.measure.rounds; round++) {
    for (const [i, result] of results.entries()) {
      const { text, tokens } = pacedAnswer(result.rate, seconds, 310 + i);
      const expected = JSON.parse(text) as unknown;
      context.log(`live-client: React commits at ${result.rate} tokens/s, round ${round + 1}`);
      for (let k = 0; k < WAYS.length; k++) {
        const { way, name } = WAYS[(k + round) % WAYS.length] as (typeof WAYS)[number];
        const run = await page.evaluate(([w, t, r]) => (globalThis as unknown as Global).liveReact.run(w, t, r), [
          way,
          tokens,
          result.rate,
        ] as const);
        if (!isDeepStrictEqual(run.value, expected)) {
          throw new VerificationError(
            `${name} at ${result.rate} tokens/s: the final commit is not JSON.parse of the answer`,
          );
        }
        result.runs.get(way)?.push(run);
      }
    }
  }
  return results;
}

function perSecond(count: number, ms: number): number {
  return (count * 1000) / ms;
}

function reactTable(results: readonly ReactResult[]): Table {
  return {
    caption:
      'React commits (<Profiler onRender>) and animation frames (a requestAnimationFrame counter) over the same wall time: from the first token offered to the final commit (medians over rounds).',
    header: [
      'way',
      'tokens/s',
      'commits/s',
      'frames/s',
      'commits ÷ frames',
      'commits carrying tokens ÷ frames',
      'React render time per second',
    ],
    rows: results.flatMap((result) =>
      WAYS.map(({ way, name }) => {
        const runs = result.runs.get(way) ?? [];
        const commits = median(runs.map((r) => perSecond(r.commits, r.ms)));
        const frames = median(runs.map((r) => perSecond(r.frames, r.ms)));
        const share = median(runs.map((r) => r.commits / Math.max(1, r.frames)));
        const tokenShare = median(runs.map((r) => (r.commits - r.statusCommits) / Math.max(1, r.frames)));
        const render = median(runs.map((r) => perSecond(r.renderMs, r.ms)));
        return [
          name,
          result.rate.toLocaleString('en-US').replace(/,/g, ' '),
          commits.toFixed(1),
          frames.toFixed(1),
          `${share.toFixed(2)}×`,
          `${tokenShare.toFixed(2)}×`,
          `${render.toFixed(1)} ms`,
        ];
      }),
    ),
  };
}

function reactTargets(results: readonly ReactResult[]): TargetResult[] {
  return results.map((result) => {
    const runs = result.runs.get('hook') ?? [];
    const naive = result.runs.get('naive') ?? [];
    const tokenCommits = (r: ReactRun) => r.commits - r.statusCommits;
    const worst = Math.max(...runs.map((r) => tokenCommits(r) / Math.max(1, r.frames)));
    return {
      target: `live client: useJsonStream commits at most once per animation frame at ${result.rate.toLocaleString('en-US').replace(/,/g, ' ')} tokens/s (Chromium)`,
      basis: `${HOOK}, ${result.tokens} tokens at ${result.rate} tokens/s; commits that carry tokens (not the mount's, 'streaming''s or 'done''s status commit, published at once by design) ÷ frames, in the worst run`,
      measured: `${worst.toFixed(2)}× (runs, token commits + status commits / frames: ${runs
        .map((r) => `${tokenCommits(r)} + ${r.statusCommits} / ${r.frames}`)
        .join(
          ', ',
        )}); the AI SDK's way: ${median(naive.map((r) => tokenCommits(r) / Math.max(1, r.frames))).toFixed(2)}×`,
      met: worst <= 1,
    };
  });
}

export const liveClient: Scenario = {
  name: 'live-client',
  title: 'Live UIs in the browser: client CPU per token',
  about:
    'A seeded compact `{"title": …, "items": [ … ]}` answer (items of about 90 bytes, mixed-width UTF-8) of 10 KB and 100 KB (1 KB and 10 KB with --quick) in 4-character tokens, ' +
    "the client's work timed in headless Chromium (Debian's chromium, driven by playwright-core) with performance.now() inside page.evaluate. " +
    "llmjson's wire: each token's change list, decoded in Node before the clock starts (the builder, as the server runs it), shipped to the page and applied with createPartialStore().apply, the snapshot read after each (what every binding does). " +
    "The AI SDK's way: the text so far grows by the token and is parsed whole again with parsePartialJson from ai (awaited, as useObject does). " +
    "The no-server path: the raw model text decoded in the page by @llmjson/web's createPartialStream({ emit: 'changes' }) into a store. " +
    'The three paths are one module (browser/live-client-work.ts), bundled by esbuild into the page; each must reach JSON.parse of the document in the page before it is timed. ' +
    `The default path (what useJsonStream runs): createLiveJson(response) with its defaults (a publish per animation frame, real requestAnimationFrame) on the wire toEventStream(createPartialStream({ emit: 'changes' })) wrote for tokens arriving at ${LIVE_RATE} per second (made in Node on a virtual clock; with throttle: 0, an event per token, and with the default 50 ms throttle), ` +
    'delivered in the page by a ReadableStream on a 16 ms timer (what the server wrote within each 16 ms as one chunk); wall time is the pace’s, so the figure is the main thread’s CPU time (the DevTools protocol’s ThreadTime, a thread clock) over the run minus that of the same delivery drained by a bare reader. ' +
    'The growth exponent is of the whole answer’s time: 1.0 is the same cost per token however long the answer already is, 2.0 a cost per token growing with the answer. ' +
    `React: answers lasting ${WINDOW_SECONDS} s (${QUICK_WINDOW_SECONDS} s with --quick) at ${RATES.join(' and ')} tokens per second, offered by a paced ReadableStream (every token due enqueued as its own chunk, then a timer), rendered as a title and a list of memoised items; ` +
    "<Profiler onRender> (react-dom's profiling build) counts the commits and a requestAnimationFrame loop the frames, from the first token offered to the final commit, whose value must equal JSON.parse of the answer in every run. " +
    "Three ways: useJsonStream(source) from @llmjson/react with its defaults (at most one publish per animation frame), the same with throttle: 0, and the AI SDK's useObject way written by hand (parsePartialJson after every token, setState when isDeepEqualData says the value changed).",
  cases,
  async run(context) {
    const base = { scenario: this.name, title: this.title, about: this.about };
    if (findChromium() === undefined) {
      context.log(`live-client: not run: ${MISSING_CHROMIUM}`);
      return { ...base, tables: [], notes: [`Not run: ${MISSING_CHROMIUM}.`], data: {} };
    }
    const all = inputs(context.quick);
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const { page, errors } = await openPage(browser, await bundlePage('live-client-page'));
      const results = await measureCpu(page, all, context);
      const live = await measureLive(page, all, results, context);
      if (errors.length > 0) throw new Error(`the page threw: ${errors.join('; ')}`);
      await page.close();
      const react = await openPage(browser, await bundlePage('live-react-page'));
      const reactResults = await measureReact(react.page, context);
      if (react.errors.length > 0) throw new Error(`the React page threw: ${react.errors.join('; ')}`);
      const version = browser.version();
      const tables = [
        perTokenTable(results, all),
        timesPerSize('Time of the whole answer, token by token (median over rounds).', results),
        sideBySide(
          'Time ÷ llmjson’s store at each size (above 1× the store is faster).',
          results.map((r) => ({ label: r.label, timings: r.timings })),
        ),
        reactTable(reactResults),
      ];
      const notes = [
        `Chromium ${version}, headless; the page bundled by esbuild (production React where React is used).`,
        `Tokens: ${all.map((x) => `${x.label} ${x.tokens.length} tokens, ${x.lists.length} change lists`).join('; ')}.`,
        'Every path returns its final value, which must equal JSON.parse of the document (checked in the page before timing, twice unless one run takes over 5 s; the tests run the same module in Node).',
        `Before timing, every path ran ${WARM_UP_RUNS} times on the ${all[0]?.label} answer (JIT warm-up); a sample collects garbage first.`,
        `The default path: ${LIVE_RATE} tokens/s, so the 10 KB and 100 KB answers last about ${all.map((x) => `${(x.tokens.length / LIVE_RATE).toFixed(1)} s`).join(' and ')}; each round runs the baseline (the delivery drained) and the controller, order alternating, garbage collected before each; its value is checked against JSON.parse in the page once per wire and size before the rounds (also the warm-up).`,
        'Figures from one process run; quote ratios between paths of the same run, not absolute times (the machine may be shared).',
        `React: ${reactResults.map((r) => `${r.tokens} tokens at ${r.rate} tokens/s`).join(', ')}; each way ran ${context.measure.rounds} times per rate (order rotating). ` +
          "A status commit is one whose render showed a new status (the mount's 'idle', 'streaming', 'done'): the live controller publishes a status change at once, not throttled; the other commits carry tokens. " +
          'Frames counted in a loaded headless Chromium can fall below 60 per second when the main thread is busy (the throttle: 0 rows).',
      ];
      const reactData = reactResults.map((r) => ({ rate: r.rate, tokens: r.tokens, runs: Object.fromEntries(r.runs) }));
      return {
        ...base,
        tables,
        notes,
        targets: [...cpuTargets(results), ...reactTargets(reactResults)],
        data: { results, live, react: reactData, chromium: version },
      };
    } finally {
      await browser?.close();
    }
  },
};
