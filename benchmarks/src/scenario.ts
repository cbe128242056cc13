/**
 * What a scenario is: one question about llmjson's speed against its peers, answered by
 * timing entrants on cases (inputs), and reported as tables of ratios.
 *
 * A scenario's `cases` are public so the tests can check, without timing anything, that
 * every entrant of every case delivers exactly what the scenario says it must.
 */

import type { Entrant } from './entrants.js';
import type { MeasureOptions } from './harness.js';

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
