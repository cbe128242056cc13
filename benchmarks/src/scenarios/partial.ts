/**
 * Partial values: one JSON document streaming in, its current value read every time it is
 * delivered, as a UI re-renders on each model delta. A seeded `{"title": …, "summary": …,
 * "items": [ … ]}` of 10 KB, 100 KB and 1 MB (about 100, 1 050 and 10 400 items) arrives in
 * 4-character deltas. The questions (issue 15, item 1; decision 020): does the default Node
 * `createPartialStream()` — immutable, structurally shared snapshots — run in linear time
 * (growth exponent from 10 KB to 1 MB), and how fast is it against jsonriver, the fastest
 * incremental peer, at 100 KB? The alternatives decision 020 weighs run beside it: a snapshot
 * per chunk (the previous default), snapshots coalesced by time, and no snapshots at all.
 */

import { once } from 'node:events';
import { type Change, createPartialBuilder, type PartialOptions } from '@llmjson/core';
import { createPartialStream, type PartialStreamOptions } from '@llmjson/node';
import { drive, type Entrant, jsonriverPartial, Layer } from '../entrants.js';
import { exponentOf, fastestOf, measureGrowing, ratio, type SizeResult } from '../harness.js';
import { charChunks, random } from '../inputs.js';
import { formatExponent, formatSize, formatSpread, growthPerStep, sideBySide, timesPerSize } from '../report.js';
import type { Case, Scenario, Table, TargetResult } from '../scenario.js';

const FULL_SIZES = [10_000, 100_000, 1_000_000];
const QUICK_SIZES = [1_000, 10_000];
const CHUNK = 4;
/** An entrant is not run at a size where its predicted time for one run exceeds this. */
const MAX_RUN_MS = 5_000;
const EXPONENT_TARGET = 1.1;
/** The default stream must be at least this many times as fast as jsonriver… */
const JSONRIVER_TARGET = 2;
/** …at this size. */
const JSONRIVER_SIZE = 100_000;
/** Runs of each entrant on the smallest case before anything is timed. */
const WARM_UP_RUNS = 10;
/** The time-coalescing alternative: at most one snapshot per display frame. */
const FRAME_MS = 16;

const OURS = 'llmjson createPartialStream() (Node, defaults: paced snapshots)';
const PER_CHUNK = 'llmjson createPartialStream({ snapshots: true }) (a snapshot per chunk: the previous default)';
const CHANGES = "llmjson createPartialStream({ emit: 'changes' }) (change lists, no snapshots)";
const BURST = 'llmjson createPartialStream() (defaults), the chunks written in one burst (batched)';
const JSONRIVER = 'jsonriver parse (async iterable)';
const BUILDER_PACED = "llmjson createPartialBuilder({ snapshots: 'paced' })";

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
 * A compact `{"title", "summary", "items": [ … ]}` of about `bytes` UTF-8 bytes whose items are
 * small records (about 90 bytes: an id, a name, a short text, a score, a flag, mixed-width
 * UTF-8), so the array holds about `bytes / 90` items: 1 100 at 100 KB, 11 000 at 1 MB.
 */
export function itemsDocument(bytes: number, seed: number): string {
  const next = random(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  const title = words(5);
  const summary = words(Math.max(4, Math.round(bytes / 400)));
  const items: unknown[] = [];
  let length = Buffer.byteLength(JSON.stringify({ title, summary, items }));
  while (length < bytes) {
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
  return JSON.stringify({ title, summary, items });
}

/** Where the entrants put each value they read, so the reads are real. */
let sink: unknown;

/** The last value an entrant read (what keeps the reads observable). */
export function lastRead(): unknown {
  return sink;
}

/**
 * The Node stream fed each chunk on its own — `write`, then the next job, as tokens arrive
 * (a burst written in one synchronous run is batched by the adapter: `burst`) — and every item
 * it emits read.
 */
function nodeStream(
  name: string,
  chunks: readonly string[],
  options: PartialStreamOptions,
  ours: boolean,
  burst = false,
): Entrant {
  return {
    name,
    layer: Layer.stream,
    ours,
    async run() {
      const stream = createPartialStream(options);
      const read = (item: unknown) => {
        sink = item;
        return undefined;
      };
      if (burst) {
        await drive(stream, chunks, read);
        return [stream.value];
      }
      const ended = new Promise((resolve, reject) => {
        stream.on('data', read);
        stream.on('end', resolve);
        stream.on('error', reject);
      });
      for (const chunk of chunks) {
        if (!stream.write(chunk)) await once(stream, 'drain');
        else await Promise.resolve();
      }
      stream.end();
      await ended;
      return [stream.value];
    },
  };
}

/**
 * The builder fed the chunks; the value each update delivers is read. `frameMs`: the time
 * alternative — paced with `snapshotBudget: 0` (nothing delivered by cost), and `flush()`
 * after a write once `frameMs` passed since the last delivery (the clock read per write).
 */
function builder(name: string, chunks: readonly string[], options: PartialOptions, frameMs?: number): Entrant {
  return {
    name,
    layer: Layer.engine,
    ours: options.snapshots === 'paced' && frameMs === undefined,
    run() {
      let count = 0;
      let last = performance.now();
      const partial = createPartialBuilder(options, {
        update(value, changes: readonly Change[]) {
          sink = value;
          count += changes.length;
          if (frameMs !== undefined) last = performance.now();
        },
        diagnostic() {},
      });
      for (const chunk of chunks) {
        partial.write(chunk);
        if (frameMs !== undefined && partial.deferred && performance.now() - last >= frameMs) partial.flush();
      }
      partial.end();
      sink = count;
      return [partial.value];
    },
  };
}

function cases(quick: boolean): Case[] {
  return (quick ? QUICK_SIZES : FULL_SIZES).map((bytes, i): Case => {
    const text = itemsDocument(bytes, 110 + i);
    const chunks = charChunks(text, CHUNK).strings;
    const expected = [JSON.parse(text)];
    return {
      label: formatSize(bytes),
      size: Buffer.byteLength(text),
      contestants: [
        nodeStream(OURS, chunks, {}, true),
        nodeStream(PER_CHUNK, chunks, { snapshots: true }, false),
        nodeStream(CHANGES, chunks, { emit: 'changes' }, false),
        nodeStream(BURST, chunks, {}, false, true),
        // Not a stream; in the stream layer so that the tables compare it with the default stream.
        { ...jsonriverPartial(chunks), layer: Layer.stream },
        builder(BUILDER_PACED, chunks, { snapshots: 'paced' }),
        builder(
          `llmjson createPartialBuilder, snapshots coalesced by time (at most one per ${FRAME_MS} ms, clock read per write)`,
          chunks,
          { snapshots: 'paced', snapshotBudget: 0 },
          FRAME_MS,
        ),
        builder('llmjson createPartialBuilder({ snapshots: true }) (a snapshot per write)', chunks, {
          snapshots: true,
        }),
        builder('llmjson createPartialBuilder({ snapshots: false }) (live tree)', chunks, { snapshots: false }),
      ].map((entrant) => ({ entrant, expected })),
    };
  });
}

export const partial: Scenario = {
  name: 'partial',
  title: 'Partial values: snapshots in linear time',
  about:
    'A seeded compact JSON document `{"title": …, "summary": …, "items": [ … ]}` (a short summary, then small records of about 90 bytes: an id, a name, a short text, ' +
    'a score, a flag, mixed-width UTF-8) of 10 KB, 100 KB and 1 MB — about 100, 1 050 and 10 400 items, so the array reaches 10^4 — ' +
    '(1 KB and 10 KB with --quick), fed in 4-character deltas (`4-byte chunks`: 4 code points). ' +
    "llmjson's Node streams get the deltas as strings, each written on its own (`stream.write`, then the next job — a microtask, or 'drain' — as a model's tokens arrive); " +
    'each item they emit is read. One more row writes them in one synchronous burst, which the adapter batches into texts of about 1 KB (decision 022), for comparison. The default `createPartialStream()` paces its immutable snapshots (decision 020): a snapshot only once the input since the ' +
    'previous one pays for the copies it causes (4 slots per character; a snapshot of at most 64 slots always). Beside it: a snapshot per chunk (`snapshots: true`, the previous default), ' +
    "change lists alone (`emit: 'changes'`), and jsonriver's parse over an async iterable of the same deltas (each value it yields read; it updates one tree in place). " +
    'Engine layer: the builder alone, paced; coalesced by time instead (at most one snapshot per 16 ms by the clock, the alternative decision 020 measured); ' +
    'a snapshot per write; the live tree. Every entrant returns its final value, which must equal JSON.parse of the document before it is timed. ' +
    `Growth exponent: log(t(1 MB)/t(10 KB)) / log(size ratio), 1.0 linear, 2.0 quadratic. An entrant whose predicted time for one run at the next size exceeds ${MAX_RUN_MS / 1000} s is not run there.`,
  cases,
  async run(context) {
    const all = cases(context.quick);
    // Warm-up: the harness sizes its samples from a run made just after verifying, and a first
    // entrant's code still cold would get one-run samples (its estimate far too long).
    for (const { entrant } of all[0]?.contestants ?? []) for (let i = 0; i < WARM_UP_RUNS; i++) await entrant.run();
    const results = await measureGrowing(all, context, 'partial', MAX_RUN_MS);
    const names = all[0]?.contestants.map((x) => x.entrant) ?? [];
    const first = results[0] as SizeResult;
    const lastResult = results[results.length - 1] as SizeResult;

    const exponentTable: Table = {
      caption:
        'Growth exponent from the smallest to the largest input each entrant ran on (1.0 is linear, 2.0 quadratic; median over rounds, min–max when wide).',
      header: ['entrant', 'exponent', 'from → to'],
      rows: names.map((entrant) => {
        const a = first.timings.find((t) => t.name === entrant.name);
        const lastRun = [...results].reverse().find((r) => r.timings.some((t) => t.name === entrant.name));
        const b = lastRun?.timings.find((t) => t.name === entrant.name);
        if (a === undefined || lastRun === undefined || b === undefined || lastRun === first) {
          return [entrant.name, '—', '—'];
        }
        return [
          entrant.name,
          formatExponent(exponentOf(a, first.size, b, lastRun.size)),
          `${first.label} → ${lastRun.label}`,
        ];
      }),
    };
    const growthTable = growthPerStep(
      'Growth: time ratio per 10× input (10× is linear, 100× quadratic).',
      results,
      names,
      false,
    );
    const timeTable = timesPerSize('Time of one run (median over rounds), every delivered value read.', results);
    const ratioTable = sideBySide(
      'Time ÷ llmjson at each size (above 1× llmjson is faster): stream layer ÷ the default stream, engine layer ÷ the paced builder; `—`: not run at that size (over the budget).',
      results.map((r) => ({ label: r.label, timings: r.timings })),
    );

    // The same figures from each round's fastest run: less sensitive to other processes taking
    // the CPU of a shared machine (quoted beside the medians, never instead of them).
    const fastest = results.map((r) => ({ ...r, timings: r.timings.map(fastestOf) }));
    const fastestTable: Table = {
      caption:
        "From each round's fastest run instead of its median (other processes on a shared machine slow some runs down, never speed one up): growth exponent 10 KB → 1 MB, and speed relative to jsonriver at 100 KB.",
      header: [
        'entrant',
        'exponent (fastest runs)',
        `${formatSize(JSONRIVER_SIZE)}: jsonriver time ÷ entrant time (fastest runs)`,
      ],
      rows: names.map((entrant) => {
        const f = fastest[0]?.timings.find((t) => t.name === entrant.name);
        const lastRun = [...fastest].reverse().find((r) => r.timings.some((t) => t.name === entrant.name));
        const l = lastRun?.timings.find((t) => t.name === entrant.name);
        const atSize = fastest.find((r) => r.label === formatSize(JSONRIVER_SIZE));
        const riverFast = atSize?.timings.find((t) => t.name === JSONRIVER);
        const mine = atSize?.timings.find((t) => t.name === entrant.name);
        return [
          entrant.name,
          f === undefined || l === undefined || lastRun === fastest[0]
            ? '—'
            : `${formatExponent(exponentOf(f, first.size, l, lastRun?.size ?? first.size))} (${first.label} → ${lastRun?.label})`,
          riverFast === undefined || mine === undefined ? '—' : formatSpread(ratio(riverFast, mine)),
        ];
      }),
    };

    const targets: TargetResult[] = [];
    const oursFirst = first.timings.find((t) => t.name === OURS);
    const oursLast = lastResult.timings.find((t) => t.name === OURS);
    if (oursFirst !== undefined && oursLast !== undefined && lastResult !== first) {
      const e = exponentOf(oursFirst, first.size, oursLast, lastResult.size);
      targets.push({
        target: `partial values: default stream, growth exponent ≤ ${EXPONENT_TARGET} (4-char chunks, every snapshot read, array of 10^4 items at 1 MB)`,
        basis: `${OURS}, ${first.label} → ${lastResult.label}`,
        measured: `exponent ${formatExponent(e)}; fastest runs: ${formatExponent(
          exponentOf(fastestOf(oursFirst), first.size, fastestOf(oursLast), lastResult.size),
        )}`,
        met: e.median <= EXPONENT_TARGET,
      });
    }
    const atRiver = results.find((r) => r.label === formatSize(JSONRIVER_SIZE)) ?? lastResult;
    const river = atRiver.timings.find((t) => t.name === JSONRIVER);
    const oursRiver = atRiver.timings.find((t) => t.name === OURS);
    if (river !== undefined && oursRiver !== undefined) {
      const r = ratio(river, oursRiver);
      targets.push({
        target: `partial values: default stream ≥ ${JSONRIVER_TARGET}× faster than jsonriver at ${formatSize(JSONRIVER_SIZE)}`,
        basis: `${OURS}, ${atRiver.label}`,
        measured: `speed relative to ${JSONRIVER}: ${formatSpread(r)}; fastest runs: ${formatSpread(
          ratio(fastestOf(river), fastestOf(oursRiver)),
        )}`,
        met: r.median >= JSONRIVER_TARGET,
      });
    }

    const notes = [
      'Every entrant returns its final value, which must equal JSON.parse of the document (checked twice before timing); the values it reads are kept so they cannot be optimised away.',
      `Chunks: ${CHUNK} characters (code points); the ${lastResult.label} document is ${all[all.length - 1]?.size ?? 0} bytes.`,
      'Figures from one process run; quote ratios between entrants of the same run, not absolute times (the machine may be shared). ' +
        `Before timing, every entrant ran ${WARM_UP_RUNS} times on the ${first.label} document (JIT warm-up).`,
      ...results.flatMap((r) =>
        r.skipped.map(
          (s) =>
            `${s.name} was not run on the ${r.label} document: one run was predicted to take ${(s.predictedMs / 1000).toFixed(1)} s, over the ${MAX_RUN_MS / 1000} s budget.`,
        ),
      ),
    ];
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [exponentTable, growthTable, timeTable, ratioTable, fastestTable],
      notes,
      targets,
      data: { results },
    };
  },
};
