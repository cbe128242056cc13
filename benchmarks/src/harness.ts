/**
 * Measuring entrants side by side in one process, and turning times into the figures the
 * benchmarks quote: ratios between entrants of the same round, and growth per 10× input.
 *
 * Method: every entrant is first run once and its output checked against what it must
 * deliver (a benchmark that times different work is worse than none). Then, for each of
 * `rounds` rounds, every entrant is timed by tinybench for about `sampleMs` (the median of
 * its samples); the order of entrants rotates each round so none always runs first or last.
 * A ratio is the median over rounds of the per-round ratio, so drift of the machine during
 * the run cancels out; min and max over rounds are kept to show the spread.
 */

import { isDeepStrictEqual } from 'node:util';
import { Bench } from 'tinybench';
import type { Entrant } from './entrants.js';
import { formatSize } from './format.js';
import type { Case, Exponent, MeasureOptions, Ratio, RunContext, SizeResult, Skipped, Timing } from './types.js';

// The measurement types moved to types.ts (the bottom of the import graph); scenarios still
// import them from here.
export type { Exponent, MeasureOptions, Ratio, SizeResult, Skipped, Timing } from './types.js';

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The same timing read from its fastest run per round (`roundsMinMs`) instead of its median. */
export function fastestOf(t: Timing): Timing {
  const roundsMs = t.roundsMinMs ?? t.roundsMs;
  return { ...t, roundsMs, medianMs: median(roundsMs) };
}

/** `a` time ÷ `b` time, round by round (both measured in the same rounds). */
export function ratio(a: Timing, b: Timing): Ratio {
  if (a.roundsMs.length !== b.roundsMs.length) throw new Error(`${a.name} and ${b.name} ran different rounds`);
  const ratios = a.roundsMs.map((ms, i) => ms / (b.roundsMs[i] as number));
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/**
 * Time ratio per 10× input between two sizes: 10 for linear work, 100 for quadratic. Sizes
 * need not be exactly 10× apart; the ratio is scaled to a factor of 10 on a log scale.
 */
export function growthPer10x(smallMs: number, smallSize: number, largeMs: number, largeSize: number): number {
  return (largeMs / smallMs) ** (1 / Math.log10(largeSize / smallSize));
}

/** Where two value lists first differ, for a readable verification failure. */
function firstDifference(actual: readonly unknown[], expected: readonly unknown[]): string {
  const n = Math.min(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (!isDeepStrictEqual(actual[i], expected[i])) {
      return `value ${i} is ${JSON.stringify(actual[i])?.slice(0, 120)}, expected ${JSON.stringify(expected[i])?.slice(0, 120)}`;
    }
  }
  return `delivered ${actual.length} values, expected ${expected.length}`;
}

export class VerificationError extends Error {
  override readonly name = 'VerificationError';
}

/** Runs `entrant` once; throws unless it delivered exactly `expected`. Returns the run's time in ms. */
export async function verify(entrant: Entrant, expected: readonly unknown[]): Promise<number> {
  const started = performance.now();
  const values = await entrant.run();
  const ms = performance.now() - started;
  if (!isDeepStrictEqual(values, expected)) {
    throw new VerificationError(`${entrant.name}: ${firstDifference(values, expected)}`);
  }
  return ms;
}

const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;

/** Times one entrant once with tinybench; returns the median and the fastest sample in milliseconds. */
async function sample(entrant: Entrant, iterations: number): Promise<{ readonly p50: number; readonly min: number }> {
  gc?.();
  const bench = new Bench({
    iterations,
    time: 0,
    warmupIterations: Math.max(1, Math.ceil(iterations / 4)),
    warmupTime: 0,
    throws: true,
  });
  bench.add(entrant.name, entrant.run);
  await bench.run();
  const task = bench.tasks[0];
  const result = task?.result;
  if (result === undefined || (result.state !== 'completed' && result.state !== 'aborted-with-statistics')) {
    throw new Error(`${entrant.name}: tinybench did not complete (${result?.state ?? 'no task'})`);
  }
  return { p50: result.latency.p50, min: result.latency.min };
}

/**
 * Times `entrants` over `options.rounds` rounds. `estimateMs` (from `verify`) sizes the
 * iteration count so each sample takes about `options.sampleMs`.
 */
export async function measure(
  entrants: readonly { readonly entrant: Entrant; readonly estimateMs: number }[],
  options: MeasureOptions,
): Promise<Timing[]> {
  const rounds = entrants.map((): number[] => []);
  const fastest = entrants.map((): number[] => []);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < entrants.length; k++) {
      const i = (k + round) % entrants.length;
      const { entrant, estimateMs } = entrants[i] as (typeof entrants)[number];
      const iterations = Math.max(1, Math.min(10_000, Math.round(options.sampleMs / Math.max(estimateMs, 0.001))));
      const { p50, min } = await sample(entrant, iterations);
      (rounds[i] as number[]).push(p50);
      (fastest[i] as number[]).push(min);
    }
  }
  return entrants.map(({ entrant }, i) => {
    const roundsMs = rounds[i] as number[];
    const roundsMinMs = fastest[i] as number[];
    return {
      name: entrant.name,
      layer: entrant.layer,
      ours: entrant.ours,
      roundsMs,
      roundsMinMs,
      medianMs: median(roundsMs),
    };
  });
}

/**
 * Verifies each entrant against its expected output, then times them all side by side. With
 * `maxRunMs`, an entrant whose verifying run took longer is not timed (a quadratic peer on
 * long lines would take minutes); it is listed in `skipped` with that run's time.
 */
export async function compare(
  entrants: readonly { readonly entrant: Entrant; readonly expected: readonly unknown[] }[],
  options: MeasureOptions,
  budget?: { readonly maxRunMs: number; readonly skipped: Skipped[] },
): Promise<Timing[]> {
  const estimated: { entrant: Entrant; estimateMs: number }[] = [];
  for (const { entrant, expected } of entrants) {
    const firstMs = await verify(entrant, expected);
    if (budget !== undefined && firstMs > budget.maxRunMs) {
      budget.skipped.push({ name: entrant.name, layer: entrant.layer, runMs: firstMs });
      continue;
    }
    // The second run is the estimate: the first paid for compiling the code paths.
    estimated.push({ entrant, estimateMs: await verify(entrant, expected) });
  }
  return measure(estimated, options);
}

/**
 * Growth exponent between two sizes: log(t2/t1) / log(s2/s1), 1.0 for linear work, 2.0 for
 * quadratic. For 10 KB → 1 MB it is `log10(t(1 MB)/t(10 KB)) / 2`.
 */
export function growthExponent(smallMs: number, smallSize: number, largeMs: number, largeSize: number): number {
  return Math.log(largeMs / smallMs) / Math.log(largeSize / smallSize);
}

/** The growth exponent per round (rounds paired by index), with its median, min and max. */
export function exponentOf(small: Timing, smallSize: number, large: Timing, largeSize: number): Exponent {
  const r = ratio(large, small);
  const e = (x: number) => growthExponent(1, smallSize, x, largeSize);
  return { median: e(r.median), min: e(r.min), max: e(r.max) };
}

/**
 * Runs cases of growing size, smallest first, for the size sweeps (long line, salvage,
 * partial values). An entrant whose time for one run, extrapolated from the sizes before with
 * the growth seen so far (at least linear), exceeds `maxRunMs` is not run at that size or any
 * larger one: a quadratic peer is measured where it can be, not waited for.
 */
export async function measureGrowing(
  cases: readonly Case[],
  context: RunContext,
  scenario: string,
  maxRunMs: number,
): Promise<SizeResult[]> {
  const results: SizeResult[] = [];
  const last = new Map<string, { ms: number; size: number; growth: number }>();
  const dropped = new Set<string>();
  for (const c of cases) {
    context.log(`${scenario}: ${c.label}, ${formatSize(c.size)}`);
    const run: { entrant: Entrant; estimateMs: number }[] = [];
    const skipped: SizeResult['skipped'] = [];
    for (const { entrant, expected } of c.contestants) {
      if (dropped.has(entrant.name)) continue;
      const before = last.get(entrant.name);
      if (before !== undefined) {
        const predictedMs = before.ms * before.growth ** Math.log10(c.size / before.size);
        if (predictedMs > maxRunMs) {
          skipped.push({ name: entrant.name, predictedMs });
          dropped.add(entrant.name);
          continue;
        }
      }
      await verify(entrant, expected);
      const ms = await verify(entrant, expected);
      const growth = before === undefined ? 10 : Math.max(10, growthPer10x(before.ms, before.size, ms, c.size));
      last.set(entrant.name, { ms, size: c.size, growth });
      run.push({ entrant, estimateMs: ms });
    }
    for (const s of skipped) {
      context.log(`  ${s.name}: not run, one run predicted to take ${Math.round(s.predictedMs / 1000)} s`);
    }
    results.push({ label: c.label, size: c.size, timings: await measure(run, context.measure), skipped });
  }
  return results;
}
