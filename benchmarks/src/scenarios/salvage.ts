/**
 * Salvage: pulling a model's JSON answer out of the text around it. Prose of 10 KB, 100 KB
 * and 1 MB with brackets that never close, quotes, apostrophes and `[n]` citations, then the
 * answer in a ```json fence; and an answer that is one ~100 KB document in a fence. The
 * questions: does the scan stay linear however bad the prose, how does it compare with
 * `JSON.parse` over a valid document of the same size, and with the peers a user would pick
 * (the nested-loop bracket matcher most code uses, best-effort-json-parser, jsonrepair where
 * its input model fits)? Then bracket-dense prose (a `{` or `[` every few characters, each
 * opening a candidate that dies at once) of 100 KB and 1 MB before a fenced answer: extractJson
 * against `JSON.parse` of as much JSON and against best-effort-json-parser (issue 15).
 */

import { jsonrepair } from 'jsonrepair';
import {
  bestEffortJson,
  jsonrepairParse,
  llmjsonExtractAll,
  llmjsonExtractOne,
  llmjsonSalvageScanner,
  nativeDocument,
  nestedLoopMatcher,
} from '../entrants.js';
import { compare, exponentOf, measureGrowing, ratio, type SizeResult, type Skipped } from '../harness.js';
import {
  charChunks,
  fencedDocument,
  jsonDocument,
  type ProseAnswer,
  proseThenFence,
  salvageAnswer,
} from '../inputs.js';
import {
  type CaseTimings,
  formatExponent,
  formatRatio,
  formatSize,
  formatSpread,
  growthPerStep,
  sideBySide,
  timesPerSize,
} from '../report.js';
import type { Case, Scenario, Table, TargetResult } from '../scenario.js';

const FULL_SIZES = [10_000, 100_000, 1_000_000];
const QUICK_SIZES = [5_000, 50_000];
const FULL_FENCED = 100_000;
const QUICK_FENCED = 10_000;
/** An entrant is not run at a size where its predicted time for one run exceeds this. */
const MAX_RUN_MS = 2_000;
/** The scan of 1 MB of prose must be at least as fast as `JSON.parse` of a document as large. */
const CEILING_TARGET = 1;
/** …and at least this many times as fast as best-effort-json-parser. */
const BEST_EFFORT_TARGET = 20;
const SCANNER = 'llmjson createSalvageScanner, 4-char chunks';

/**
 * Bracket-dense prose (issue 15): every few characters a `{` or `[` that opens a candidate
 * which dies within a few characters, and an odd number of quotes per repeat. Repeated to
 * the size, then the answer in a ```json fence.
 */
export const DENSE_UNIT = 'a set {x, y and see [3 and {"k": then "quoted } text ';
const DENSE_SIZES = [100_000, 1_000_000];
const QUICK_DENSE_SIZES = [10_000, 100_000];
/** Targets for bracket-dense prose: extractJson vs JSON.parse of as much JSON, and vs best-effort-json-parser. */
const DENSE_CEILING_TARGET = 0.5;
const DENSE_BEST_EFFORT_TARGET = 20;
const DENSE_EXPONENT_TARGET = 1.1;

/** About `bytes` of bracket-dense prose (`DENSE_UNIT` repeated), then the answer in a ```json fence. */
export function bracketDenseProse(bytes: number): { readonly text: string; readonly answer: unknown } {
  const answer = salvageAnswer(9);
  const fenced = `\n\nHere is the answer:\n\n\`\`\`json\n${JSON.stringify(answer, null, 2)}\n\`\`\`\n`;
  const repeats = Math.max(1, Math.ceil((bytes - Buffer.byteLength(fenced)) / DENSE_UNIT.length));
  return { text: `${DENSE_UNIT.repeat(repeats)}${fenced}`, answer };
}

/** The bracket-dense cases (growing): extractJson, the JSON.parse ceiling, best-effort-json-parser. */
export function denseCases(quick: boolean): Case[] {
  return (quick ? QUICK_DENSE_SIZES : DENSE_SIZES).map((bytes, i): Case => {
    const input = bracketDenseProse(bytes);
    const size = Buffer.byteLength(input.text);
    const document = jsonDocument(size, 90 + i);
    return {
      label: `${formatSize(bytes)} bracket-dense prose + fence`,
      size,
      contestants: [
        { entrant: nativeDocument(document), expected: [JSON.parse(document)] },
        { entrant: llmjsonExtractOne(input.text), expected: [input.answer] },
        // It parses the fence's contents and ignores the prose before it.
        { entrant: bestEffortJson(input.text), expected: [input.answer] },
      ],
    };
  });
}

/** A same-run ratio as `median (min–max over rounds)`, the spread always shown. */
function medianAndSpread(r: { median: number; min: number; max: number }): string {
  return `${formatRatio(r.median)} (${formatRatio(r.min)}–${formatRatio(r.max)})`;
}

/** The prose input of the `i`-th size. */
function proseInput(quick: boolean, i: number): ProseAnswer {
  return proseThenFence((quick ? QUICK_SIZES : FULL_SIZES)[i] as number, 60 + i);
}

/** The prose cases (growing), then the fenced-only answer. */
function cases(quick: boolean): Case[] {
  const prose = (quick ? QUICK_SIZES : FULL_SIZES).map((bytes, i): Case => {
    const input = proseInput(quick, i);
    const size = Buffer.byteLength(input.text);
    const document = jsonDocument(size, 70 + i);
    const all = [...input.citations, input.answer];
    return {
      label: `${formatSize(bytes)} prose + fence`,
      size,
      contestants: [
        { entrant: nativeDocument(document), expected: [JSON.parse(document)] },
        { entrant: llmjsonExtractAll(input.text), expected: all },
        { entrant: llmjsonSalvageScanner(charChunks(input.text, 4).strings, SCANNER), expected: all },
        { entrant: llmjsonExtractOne(input.text), expected: [input.answer] },
        { entrant: nestedLoopMatcher(input.text), expected: all },
        // It parses the first fence's contents and ignores the prose around it.
        { entrant: bestEffortJson(input.text), expected: [input.answer] },
      ],
    };
  });
  const fenced = fencedDocument(quick ? QUICK_FENCED : FULL_FENCED, 80);
  const expected = [fenced.document];
  const fencedOnly: Case = {
    label: 'fenced-only answer',
    size: Buffer.byteLength(fenced.text),
    contestants: [
      nativeDocument(JSON.stringify(fenced.document, null, 2)),
      llmjsonExtractAll(fenced.text),
      llmjsonSalvageScanner(charChunks(fenced.text, 4).strings, SCANNER),
      llmjsonExtractOne(fenced.text),
      nestedLoopMatcher(fenced.text),
      bestEffortJson(fenced.text),
      jsonrepairParse(fenced.text),
    ].map((entrant) => ({ entrant, expected })),
  };
  return [...prose, fencedOnly];
}

/** What jsonrepair makes of prose around a fence: why it is run only on the fenced-only answer. */
function jsonrepairOnProse(text: string): string {
  try {
    const value: unknown = JSON.parse(jsonrepair(text));
    if (Array.isArray(value)) {
      const strings = value.filter((v) => typeof v === 'string').length;
      return `returns an array of ${value.length} items (${strings} of them strings of prose), not the answer`;
    }
    return `returns ${JSON.stringify(value)?.slice(0, 60)}, not the answer`;
  } catch (error) {
    return `throws (${(error as Error).message.slice(0, 80)})`;
  }
}

export const salvage: Scenario = {
  name: 'salvage',
  title: 'Salvage: JSON out of prose and fences',
  about:
    'Seeded prose with brackets that never close or never opened (`{light`, `[see`, `}`, `]`, openers outnumbering closers), ' +
    'quoted phrases, a lone quote now and then, apostrophes and `[n]` citations, followed by a ```json fence holding the answer object ' +
    '(whose strings also hold citations and brackets) and a closing sentence; 10 KB, 100 KB and 1 MB. Then a fenced-only answer: one pretty-printed ' +
    '~100 KB document in a ```json fence. llmjson: extractAllJson (every value: the citations and the answer), createSalvageScanner fed 4-character ' +
    'chunks (the same values), extractJson (the answer). Peers: a nested-loop bracket matcher written here as most code does it (from each `{`/`[`, ' +
    'count brackets outside strings, JSON.parse the balanced span, on failure start again at the next bracket), which finds the same values; ' +
    "best-effort-json-parser's parse, which returns the first fence's contents; jsonrepair (+ JSON.parse) on the fenced-only answer only. " +
    'The ceiling is JSON.parse of a valid compact JSON document of the same size. ' +
    `Then bracket-dense prose (\`${DENSE_UNIT.trim()}\` repeated, a candidate opened every few characters, then the answer in a \`\`\`json fence), 100 KB and 1 MB: ` +
    'extractJson against JSON.parse of as much valid JSON and against best-effort-json-parser on the same text, as same-run ratios. ' +
    `Growth exponent: log(t(largest)/t(smallest)) / log(size ratio), 1.0 linear, 2.0 quadratic. An entrant whose predicted time for one run at the next size exceeds ${MAX_RUN_MS / 1000} s is not run there.`,
  cases,
  async run(context) {
    const all = cases(context.quick);
    const fencedCase = all[all.length - 1];
    const proseCases = all.slice(0, -1);
    if (fencedCase === undefined || proseCases.length < 2) throw new Error('salvage: no cases');
    const results = await measureGrowing(proseCases, context, 'salvage', MAX_RUN_MS);

    context.log(`salvage: ${fencedCase.label}, ${formatSize(fencedCase.size)}`);
    const fencedSkipped: Skipped[] = [];
    const fencedTimings = await compare(fencedCase.contestants, context.measure, {
      maxRunMs: MAX_RUN_MS,
      skipped: fencedSkipped,
    });

    const denseAll = denseCases(context.quick);
    const dense = await measureGrowing(denseAll, context, 'salvage (bracket-dense)', MAX_RUN_MS);
    const denseSmall = dense[0] as SizeResult;
    const denseLarge = dense[dense.length - 1] as SizeResult;
    const denseOurs = (r: SizeResult) => r.timings.find((t) => t.name === 'llmjson extractJson');
    const denseTargets: TargetResult[] = [];
    const denseRows: string[][] = [];
    {
      const mine = denseOurs(denseLarge);
      const ceilingTiming = denseLarge.timings.find((t) => t.layer === 'ceiling');
      const peer = denseLarge.timings.find((t) => t.name === 'best-effort-json-parser parse');
      const small = denseOurs(denseSmall);
      if (mine !== undefined && ceilingTiming !== undefined) {
        const r = ratio(ceilingTiming, mine);
        denseRows.push([
          `extractJson vs ${ceilingTiming.name} (speed ratio)`,
          denseLarge.label,
          medianAndSpread(r),
          `≥ ${formatRatio(DENSE_CEILING_TARGET)}`,
        ]);
        denseTargets.push({
          target: `salvage: extractJson on bracket-dense prose ≥ ${formatRatio(DENSE_CEILING_TARGET)} JSON.parse of as much JSON`,
          basis: `llmjson extractJson, ${denseLarge.label}`,
          measured: `speed relative to ${ceilingTiming.name}: ${medianAndSpread(r)}`,
          met: r.median >= DENSE_CEILING_TARGET,
        });
      }
      if (mine !== undefined && peer !== undefined) {
        const r = ratio(peer, mine);
        denseRows.push([
          `extractJson vs ${peer.name} on the same prose (speed ratio)`,
          denseLarge.label,
          medianAndSpread(r),
          `≥ ${formatRatio(DENSE_BEST_EFFORT_TARGET)}`,
        ]);
        denseTargets.push({
          target: `salvage: extractJson on bracket-dense prose ≥ ${DENSE_BEST_EFFORT_TARGET}× faster than best-effort-json-parser`,
          basis: `llmjson extractJson, ${denseLarge.label}`,
          measured: `speed relative to ${peer.name}: ${medianAndSpread(r)}`,
          met: r.median >= DENSE_BEST_EFFORT_TARGET,
        });
      }
      if (mine !== undefined && small !== undefined && denseLarge !== denseSmall) {
        const e = exponentOf(small, denseSmall.size, mine, denseLarge.size);
        const spread = `${e.median.toFixed(2)} (${e.min.toFixed(2)}–${e.max.toFixed(2)})`;
        denseRows.push([
          'extractJson growth exponent',
          `${denseSmall.label} → ${denseLarge.label}`,
          spread,
          `≤ ${DENSE_EXPONENT_TARGET.toFixed(1)}`,
        ]);
        denseTargets.push({
          target: `salvage: growth exponent ≤ ${DENSE_EXPONENT_TARGET.toFixed(1)} on bracket-dense prose`,
          basis: `llmjson extractJson, ${denseSmall.label} → ${denseLarge.label}`,
          measured: `exponent ${spread}`,
          met: e.median <= DENSE_EXPONENT_TARGET,
        });
      }
    }
    const denseTable: Table = {
      caption: `Bracket-dense prose (\`${DENSE_UNIT.trim()}\` repeated, then the answer in a \`\`\`json fence): same-run ratios, median over rounds (min–max over rounds).`,
      header: ['comparison', 'input', 'median (min–max)', 'target'],
      rows: denseRows,
    };

    const names = proseCases[0]?.contestants.map((x) => x.entrant) ?? [];
    const first = results[0] as SizeResult;
    const lastResult = results[results.length - 1] as SizeResult;
    const exponentTable: Table = {
      caption:
        'Growth exponent from the smallest to the largest input each entrant ran on (1.0 is linear, 2.0 quadratic; median over rounds, min–max when wide).',
      header: ['entrant', 'layer', 'exponent', 'from → to'],
      rows: names.map((entrant) => {
        const a = first.timings.find((t) => t.name === entrant.name);
        const lastRun = [...results].reverse().find((r) => r.timings.some((t) => t.name === entrant.name));
        const b = lastRun?.timings.find((t) => t.name === entrant.name);
        if (a === undefined || lastRun === undefined || b === undefined || lastRun === first) {
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
    const growthTable = growthPerStep('Growth: time ratio per 10× input (10× is linear).', results, names, true);
    const proseTimings: CaseTimings[] = results.map((r) => ({ label: r.label, timings: r.timings }));
    const fencedTable = sideBySide(
      `Fenced-only answer: ${formatSize(fencedCase.size)}, one pretty-printed document in a \`\`\`json fence; the ceiling is JSON.parse of the document without the fence.`,
      [{ label: 'fenced-only', timings: fencedTimings }],
    );

    const targets: TargetResult[] = [];
    const ours = first.timings.filter((t) => t.ours);
    for (const mine of ours) {
      const b = lastResult.timings.find((t) => t.name === mine.name);
      if (b === undefined || lastResult === first) continue;
      const e = exponentOf(mine, first.size, b, lastResult.size);
      targets.push({
        target: 'salvage: growth exponent ≤ 1.1 (prose with unbalanced brackets + fence)',
        basis: `${mine.name}, ${first.label} → ${lastResult.label}`,
        measured: `exponent ${formatExponent(e)}`,
        met: e.median <= 1.1,
      });
    }
    const ceiling = lastResult.timings.find((t) => t.layer === 'ceiling');
    const bestEffort = lastResult.timings.find((t) => t.name === 'best-effort-json-parser parse');
    for (const mine of lastResult.timings.filter((t) => t.ours)) {
      if (ceiling !== undefined) {
        const r = ratio(ceiling, mine);
        targets.push({
          target: `salvage: scanning prose at least as fast as JSON.parse of a valid document of the same size (≥ ${formatRatio(CEILING_TARGET)})`,
          basis: `${mine.name}, ${lastResult.label}`,
          measured: `speed relative to ${ceiling.name}: ${formatSpread(r)}`,
          met: r.median >= CEILING_TARGET,
        });
      }
      if (bestEffort !== undefined) {
        const r = ratio(bestEffort, mine);
        targets.push({
          target: `salvage: ≥ ${BEST_EFFORT_TARGET}× faster than best-effort-json-parser`,
          basis: `${mine.name}, ${lastResult.label}`,
          measured: `speed relative to ${bestEffort.name}: ${formatSpread(r)}`,
          met: r.median >= BEST_EFFORT_TARGET,
        });
      }
    }

    const citations = (proseCases[0]?.contestants[1]?.expected.length ?? 1) - 1;
    const notes = [
      "Every entrant delivers exactly the values listed for it before it is timed: llmjson extractAllJson, the scanner and the nested-loop matcher the prose's `[n]` citations and the answer; extractJson and best-effort-json-parser the answer; on the fenced-only answer, every entrant the document.",
      `The ${first.label} holds ${citations} citations; none of the citations and brackets inside the answer's strings is reported.`,
      `jsonrepair is timed on the fenced-only answer only: on the ${first.label} it ${jsonrepairOnProse(proseInput(context.quick, 0).text)}.`,
      ...results.flatMap((r) =>
        r.skipped.map(
          (s) =>
            `${s.name} was not run on the ${r.label}: one run was predicted to take about ${formatRatio(s.predictedMs / MAX_RUN_MS)} the ${MAX_RUN_MS / 1000} s budget.`,
        ),
      ),
      ...fencedSkipped.map(
        (s) => `${s.name}, fenced-only answer: not timed; its one verifying run took ${(s.runMs / 1000).toFixed(1)} s.`,
      ),
    ];
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [
        exponentTable,
        growthTable,
        timesPerSize('Prose + fence: time of one run (median over rounds) at each size.', results),
        sideBySide('Prose + fence: time at each size, side by side.', proseTimings),
        fencedTable,
        denseTable,
        timesPerSize('Bracket-dense prose + fence: time of one run (median over rounds) at each size.', dense),
      ],
      notes,
      targets: [...targets, ...denseTargets],
      data: { prose: results, fenced: fencedTimings, fencedSkipped, dense },
    };
  },
};
