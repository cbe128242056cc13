/**
 * `pnpm bench [--quick] [--rounds N] [--sample-ms N] [scenario …]`: runs the scenarios (all by
 * default) in one process, prints the markdown tables, then the Targets table, and stores
 * them, with the raw timings, in benchmarks/results/ (git-ignored).
 */

import { parseArgs } from 'node:util';
import { environment, renderMarkdown, targetsSection, writeResults } from './report.js';
import { aiSdkOutput } from './scenarios/ai-sdk-output.js';
import { batchScale } from './scenarios/batch-scale.js';
import { cliBig } from './scenarios/cli-big.js';
import { concurrentStreams } from './scenarios/concurrent-streams.js';
import { delivery } from './scenarios/delivery.js';
import { elements } from './scenarios/elements.js';
import { failFast } from './scenarios/fail-fast.js';
import { jsonlMatrix } from './scenarios/jsonl-matrix.js';
import { liveClient } from './scenarios/live-client.js';
import { liveWire } from './scenarios/live-wire.js';
import { longLine } from './scenarios/long-line.js';
import { noisyAnswers } from './scenarios/noisy-answers.js';
import { partial } from './scenarios/partial.js';
import { prefixCheck } from './scenarios/prefix-check.js';
import { providers } from './scenarios/providers.js';
import { salvage } from './scenarios/salvage.js';
import { schemaVendors } from './scenarios/schema-vendors.js';
import type { Scenario, Section } from './types.js';

const scenarios: readonly Scenario[] = [
  jsonlMatrix,
  noisyAnswers,
  longLine,
  delivery,
  salvage,
  elements,
  partial,
  prefixCheck,
  schemaVendors,
  failFast,
  providers,
  concurrentStreams,
  cliBig,
  batchScale,
  liveClient,
  liveWire,
  aiSdkOutput,
];

// `pnpm bench -- --quick` forwards the `--` itself.
const args = process.argv.slice(2);
const { values: flags, positionals } = parseArgs({
  args: args[0] === '--' ? args.slice(1) : args,
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    'sample-ms': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (flags.help) {
  console.log(
    [
      'usage: pnpm bench [--quick] [--rounds N] [--sample-ms N] [scenario …]',
      '  --quick       small inputs and few rounds: checks that every scenario runs (not for quoting)',
      '  --rounds      timed rounds per entrant; figures are medians over rounds (default 5, quick 2)',
      '  --sample-ms   target time per entrant per round, in ms (default 250, quick 25)',
      `scenarios: ${scenarios.map((s) => s.name).join(', ')}`,
    ].join('\n'),
  );
  process.exit(0);
}

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    console.error(`--${name} must be a positive integer, got ${text}`);
    process.exit(2);
  }
  return n;
}

const quick = flags.quick === true;
const rounds = positiveInteger('rounds', flags.rounds, quick ? 2 : 5);
const sampleMs = positiveInteger('sample-ms', flags['sample-ms'], quick ? 25 : 250);
const unknown = positionals.filter((name) => !scenarios.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(`unknown scenario: ${unknown.join(', ')}; known: ${scenarios.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const chosen = positionals.length === 0 ? scenarios : scenarios.filter((s) => positionals.includes(s.name));
if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
  console.error('note: run node with --expose-gc (as `pnpm bench` does) to collect garbage between samples');
}

const sections: Section[] = [];
for (const scenario of chosen) {
  sections.push(await scenario.run({ quick, measure: { rounds, sampleMs }, log: (message) => console.error(message) }));
}
// The targets of every scenario that ran, in one table at the end.
const targets = targetsSection(sections);
if (targets !== undefined) sections.push(targets);
const env = environment(rounds, sampleMs, quick);
console.log(renderMarkdown(env, sections));
const everyScenario = chosen.length === scenarios.length;
console.error(`results: ${writeResults(new URL('../results/', import.meta.url), env, sections, everyScenario)}`);
