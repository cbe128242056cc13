/**
 * Growth on one long line arriving in 4-character chunks: a model that writes a large object on a
 * single line. Framing must stay linear in the line's length however small the chunks; a
 * framer that re-splits its pending text on every chunk is quadratic (split2 does, per
 * CONVENTIONS.md: "an 80 KB line: seconds").
 */

import { llmjsonDecoder, llmjsonStream, nativeLines, split2Json, streamJsonl, streamparserJson } from '../entrants.js';
import { exponentOf, measureGrowing } from '../harness.js';
import { charChunks, longLineObject } from '../inputs.js';
import {
  type CaseTimings,
  formatExponent,
  formatRatio,
  formatSize,
  growthPerStep,
  sideBySide,
  timesPerSize,
} from '../report.js';
import type { Case, Scenario, TargetResult } from '../scenario.js';

const FULL_SIZES = [10_000, 100_000, 1_000_000];
const QUICK_SIZES = [2_000, 20_000];
/** An entrant is not run at a size where its predicted time for one run exceeds this. */
const MAX_RUN_MS = 2_000;

function cases(quick: boolean): Case[] {
  return (quick ? QUICK_SIZES : FULL_SIZES).map((chars, i) => {
    const long = longLineObject(chars, 20 + i);
    const tail = { type: 'done' };
    const lines = [JSON.stringify(long), JSON.stringify(tail)];
    const input = charChunks(`${lines[0]}\n${lines[1]}\n`, 4);
    const expected = [long, tail];
    return {
      label: `${formatSize(chars)} line`,
      size: input.size,
      contestants: [
        nativeLines(lines),
        llmjsonDecoder(input.strings),
        streamparserJson(input.strings),
        llmjsonStream(input.writes),
        split2Json(input.writes),
        streamJsonl(input.writes),
      ].map((entrant) => ({ entrant, expected })),
    };
  });
}

export const longLine: Scenario = {
  name: 'long-line',
  title: 'One long JSONL line in 4-character chunks',
  about:
    'One object of growing size written on a single line (then one short line), arriving in 4-character string chunks (streams are written the strings). ' +
    'Growth is the time ratio per 10× input (10× is linear, 100× quadratic); the growth exponent is log(t(largest)/t(smallest)) / log(size ratio), ' +
    'for 10 KB → 1 MB `log10(t(1 MB)/t(10 KB)) / 2` (1.0 is linear, 2.0 quadratic). ' +
    `An entrant whose predicted time for one run at the next size exceeds ${MAX_RUN_MS / 1000} s is not run there.`,
  cases,
  async run(context) {
    // Time of one run at the previous size, and the growth seen so far, per entrant.
    const results = await measureGrowing(cases(context.quick), context, this.name, MAX_RUN_MS);

    const names = results[0]?.timings ?? [];
    const growthTable = growthPerStep('Growth: time ratio per 10× line length (10× is linear).', results, names, true);
    const first = results[0];
    const exponentTable = {
      caption:
        'Growth exponent from the smallest to the largest line each entrant ran on (1.0 is linear, 2.0 quadratic; median over rounds, min–max when wide).',
      header: ['entrant', 'layer', 'exponent', 'from → to'],
      rows: names.map((entrant) => {
        const a = first?.timings.find((t) => t.name === entrant.name);
        const lastRun = [...results].reverse().find((r) => r.timings.some((t) => t.name === entrant.name));
        const b = lastRun?.timings.find((t) => t.name === entrant.name);
        if (first === undefined || a === undefined || lastRun === undefined || b === undefined || lastRun === first) {
          return [entrant.name, entrant.layer, '—', '—'];
        }
        return [
          entrant.name,
          entrant.layer,
          formatExponent(exponentOf(a, first.size, b, lastRun.size)),
          `${first.label} → ${lastRun.label}`,
        ];
      }),
    };
    const targets: TargetResult[] = [];
    const lastResult = results[results.length - 1];
    if (first !== undefined && lastResult !== undefined && lastResult !== first) {
      for (const ours of first.timings.filter((t) => t.ours)) {
        const b = lastResult.timings.find((t) => t.name === ours.name);
        if (b === undefined) continue;
        const e = exponentOf(ours, first.size, b, lastResult.size);
        targets.push({
          target: 'growth exponent ≤ 1.1 (one line, 4-char chunks)',
          basis: `${ours.name}, ${first.label} → ${lastResult.label}`,
          measured: `exponent ${formatExponent(e)}`,
          met: e.median <= 1.1,
        });
      }
    }
    const cases_: CaseTimings[] = results.map((r) => ({ label: r.label, timings: r.timings }));
    const notes = results.flatMap((r) =>
      r.skipped.map(
        (s) =>
          `${s.name} was not run on the ${r.label}: one run was predicted to take about ${formatRatio(s.predictedMs / MAX_RUN_MS)} the ${MAX_RUN_MS / 1000} s budget.`,
      ),
    );
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [
        exponentTable,
        growthTable,
        timesPerSize('Time of one run (median over rounds) at each line length.', results),
        sideBySide('Time at each size, side by side.', cases_),
      ],
      notes,
      targets,
      data: results,
    };
  },
};
