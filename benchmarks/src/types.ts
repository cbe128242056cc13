/**
 * The data every module of the benchmarks passes around: what a scenario is (cases,
 * contestants, the run context), what a measurement produces (timings, ratios, exponents,
 * skipped entrants) and what a report is made of (sections, tables, targets).
 *
 * Types only, at the bottom of the import graph: the scenarios, the harness, the report and
 * the charts all import from here, and this module imports nothing but the entrant types, so
 * none of them has to import another to name a shape (that is what made them import each
 * other in a circle).
 *
 * A scenario's `cases` are public so the tests can check, without timing anything, that
 * every entrant of every case delivers exactly what the scenario says it must.
 */

import type { Entrant, Layer } from './entrants.js';

export interface MeasureOptions {
  /** Timed rounds per entrant; the figures are medians over rounds. */
  readonly rounds: number;
  /** Target time per entrant per round, in milliseconds. */
  readonly sampleMs: number;
}

export interface Timing {
  readonly name: string;
  readonly layer: Layer;
  /** llmjson's own entrant: the reference of its layer. */
  readonly ours: boolean;
  /** Median time of one run in each round, in milliseconds. */
  readonly roundsMs: readonly number[];
  /**
   * Fastest run in each round, in milliseconds: less sensitive than the median to other
   * processes taking the CPU (a busy machine); quoted only where a scenario says so.
   */
  readonly roundsMinMs?: readonly number[];
  /** Median over rounds, in milliseconds. */
  readonly medianMs: number;
}

export interface Ratio {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** An entrant verified but not timed: one run took longer than the budget. */
export interface Skipped {
  readonly name: string;
  readonly layer: Layer;
  /** Time of the one (verifying) run, in milliseconds. */
  readonly runMs: number;
}

/** A growth exponent measured over rounds: the median, and the min and max over rounds. */
export interface Exponent {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** The timings of one size of a growing input, and the entrants not run there. */
export interface SizeResult {
  readonly label: string;
  readonly size: number;
  readonly timings: Timing[];
  /** Entrants not run at this size, with the predicted time of one run in ms. */
  readonly skipped: { readonly name: string; readonly predictedMs: number }[];
}

/** An entrant and the values it must deliver on its case's input. */
export interface Contestant {
  readonly entrant: Entrant;
  readonly expected: readonly unknown[];
}

export interface Case {
  /** Short label (a column heading): `token chunks`, `80 KB line`. */
  readonly label: string;
  /** Input size in UTF-8 bytes. */
  readonly size: number;
  readonly contestants: readonly Contestant[];
}

export interface RunContext {
  readonly measure: MeasureOptions;
  /** Smaller inputs: a smoke run that checks the scenario works, not a measurement to quote. */
  readonly quick: boolean;
  log(message: string): void;
}

export interface Table {
  readonly caption: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** `'times'`: the cells are multiples (`2.30×`) that are not time ratios, drawn as bars per column. */
  readonly chart?: 'times';
}

/** One target of the benchmarks and how this run measured against it. */
export interface TargetResult {
  /** The target as the issue words it: `4-char chunks, parse + validation: ≥ 0.85× the do-nothing Transform`. */
  readonly target: string;
  /** Which entrants and input the figure comes from. */
  readonly basis: string;
  /** The figure, formatted: `speed relative to X: 0.91× (0.85×–0.97×)`, `exponent 1.02`. */
  readonly measured: string;
  readonly met: boolean;
}

export interface Section {
  readonly scenario: string;
  readonly title: string;
  readonly about: string;
  readonly tables: readonly Table[];
  readonly notes: readonly string[];
  /** Targets this section measures; `pnpm bench` prints them all in one table at the end. */
  readonly targets?: readonly TargetResult[];
  /** Raw timings (milliseconds) for the JSON results file; never quoted directly. */
  readonly data: unknown;
}

export interface Scenario {
  /** The file name, used to pick scenarios on the command line. */
  readonly name: string;
  readonly title: string;
  /** What is measured and why it matters, in one paragraph. */
  readonly about: string;
  cases(quick: boolean): Case[];
  run(context: RunContext): Promise<Section>;
}
