/**
 * Formatting and storing results: ratios as text, markdown tables, the machine description,
 * and the results folder (git-ignored) that the README's table is copied from.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform, release, totalmem } from 'node:os';
import { chartsFor, runLabel } from './charts.js';
import { referenceLayer } from './entrants.js';
import { formatRatio, formatSpread } from './format.js';
import { growthPer10x, ratio } from './harness.js';
import type { Section, SizeResult, Table, TargetResult, Timing } from './types.js';

// The formatting functions moved to format.ts (the bottom of the import graph); scenarios
// still import them from here.
export { formatExponent, formatRatio, formatSize, formatSpread } from './format.js';

export function markdownTable(table: Table): string {
  const cellText = (cell: string) => cell.replace(/\|/g, '\\|');
  const lines = [
    `| ${table.header.map(cellText).join(' | ')} |`,
    `|${table.header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...table.rows.map((row) => `| ${row.map(cellText).join(' | ')} |`),
  ];
  return lines.join('\n');
}

export interface Environment {
  readonly date: string;
  readonly node: string;
  readonly os: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memory: string;
  readonly rounds: number;
  readonly sampleMs: number;
  readonly quick: boolean;
}

export function environment(rounds: number, sampleMs: number, quick: boolean): Environment {
  const cpu = cpus();
  return {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    os: `${platform()} ${release()} ${arch()}`,
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    rounds,
    sampleMs,
    quick,
  };
}

export function renderMarkdown(env: Environment, sections: readonly Section[]): string {
  const out: string[] = [
    `Run of ${env.date} on Node ${env.node}, ${env.os}, ${env.cpu} (${env.cores} cores, ${env.memory}).`,
    `Median of ${env.rounds} rounds of about ${env.sampleMs} ms per entrant${env.quick ? '; quick mode (small inputs, not for quoting)' : ''}.`,
  ];
  for (const section of sections) {
    out.push('', `### ${section.title}`, '', section.about);
    for (const table of section.tables) out.push('', table.caption, '', markdownTable(table));
    if (section.notes.length > 0) out.push('', ...section.notes.map((n) => `- ${n}`));
  }
  return `${out.join('\n')}\n`;
}

/**
 * Writes `<stamp>.md` and `<stamp>.json` into `dir` and, for a full run, `latest.md` (the
 * table the README quotes). Returns the markdown path.
 */
export function writeResults(dir: URL, env: Environment, sections: readonly Section[], everyScenario = true): string {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const markdown = renderMarkdown(env, sections);
  const file = new URL(`${stamp}${env.quick ? '-quick' : ''}.md`, dir);
  writeFileSync(file, markdown);
  writeFileSync(
    new URL(`${stamp}${env.quick ? '-quick' : ''}.json`, dir),
    `${JSON.stringify({ env, sections }, null, 2)}\n`,
  );
  // A full run (every scenario, not quick) is the latest and owns benchmarks/charts/ (committed,
  // embedded in the READMEs); any other run keeps its charts beside its results.
  const full = !env.quick && everyScenario;
  if (full) writeFileSync(new URL('latest.md', dir), markdown);
  const chartDir = full ? new URL('../charts/', dir) : new URL(`${stamp}${env.quick ? '-quick' : ''}-charts/`, dir);
  writeCharts(chartDir, env, sections);
  return file.pathname;
}

/** Writes every section's charts (SVG) into `dir`, and an index of them. Returns the files written. */
export function writeCharts(dir: URL, env: Environment, sections: readonly Section[]): string[] {
  mkdirSync(dir, { recursive: true });
  const footer = runLabel(env);
  const written: string[] = [];
  const index: string[] = [`Charts of the run of ${env.date} (Node ${env.node}, ${env.cpu}, ${env.cores} cores).`, ''];
  for (const section of sections) {
    for (const chart of chartsFor(section, footer)) {
      writeFileSync(new URL(chart.file, dir), chart.svg);
      written.push(chart.file);
      index.push(`- [${chart.title}](${chart.file}) (${section.scenario})`);
    }
  }
  if (written.length > 0) writeFileSync(new URL('index.md', dir), `${index.join('\n')}\n`);
  return written;
}

/** The timings of one case, labelled for a column heading. */
export interface CaseTimings {
  readonly label: string;
  readonly timings: readonly Timing[];
}

/**
 * One row per entrant, and for each case: its time ÷ the `JSON.parse` ceiling (when the
 * case has one) and its time ÷ llmjson's entrant of the same layer (above 1: llmjson is
 * faster; a floor is compared with llmjson's stream). Entrants absent from a case show `—`.
 */
export function sideBySide(caption: string, cases: readonly CaseTimings[]): Table {
  const header = ['entrant', 'layer'];
  for (const c of cases) {
    if (c.timings.some((t) => t.layer === 'ceiling')) header.push(`${c.label}: time ÷ JSON.parse`);
    header.push(`${c.label}: time ÷ llmjson`);
  }
  const names: Timing[] = [];
  for (const c of cases) for (const t of c.timings) if (!names.some((n) => n.name === t.name)) names.push(t);
  const rows = names.map((entrant) => {
    const row = [entrant.name, entrant.layer];
    for (const c of cases) {
      const mine = c.timings.find((t) => t.name === entrant.name);
      const ceiling = c.timings.find((t) => t.layer === 'ceiling');
      const reference = c.timings.find((t) => t.layer === referenceLayer(entrant.layer) && t.ours);
      if (ceiling !== undefined) row.push(mine === undefined ? '—' : formatSpread(ratio(mine, ceiling)));
      row.push(
        mine === undefined || reference === undefined || entrant.layer === 'ceiling'
          ? '—'
          : formatSpread(ratio(mine, reference)),
      );
    }
    return row;
  });
  return { caption, header, rows };
}

/** The targets of every section, in one table: what was aimed at, what was measured, met or missed. */
export function targetsSection(sections: readonly Section[]): Section | undefined {
  const targets: TargetResult[] = sections.flatMap((s) => s.targets ?? []);
  if (targets.length === 0) return undefined;
  const met = targets.filter((t) => t.met).length;
  return {
    scenario: 'targets',
    title: 'Targets',
    about:
      'Each target of the benchmarks, measured in this run. "Speed relative to X" is time(X) ÷ time(llmjson), ' +
      'so above 1× llmjson is faster, and a target "≥ 0.85× X" is met when llmjson runs at least 0.85 times as fast as X. ' +
      'Medians over rounds, with (min–max over rounds) when the spread exceeds 10 %.',
    tables: [
      {
        caption: `${met} of ${targets.length} met.`,
        header: ['target', 'measured on', 'measured', 'met?'],
        rows: targets.map((t) => [t.target, t.basis, t.measured, t.met ? 'met' : 'missed']),
      },
    ],
    notes: [],
    data: targets,
  };
}

/**
 * Time of one run of each entrant at each size of a sweep (what the growth charts draw):
 * `… ms`, or `not run (over budget)` where the entrant was dropped.
 */
export function timesPerSize(caption: string, results: readonly SizeResult[]): Table {
  const names: string[] = [];
  for (const r of results) {
    for (const t of r.timings) if (!names.includes(t.name)) names.push(t.name);
    for (const skipped of r.skipped) if (!names.includes(skipped.name)) names.push(skipped.name);
  }
  return {
    caption,
    header: ['entrant', ...results.map((r) => r.label)],
    rows: names.map((name) => [
      name,
      ...results.map((r) => {
        const t = r.timings.find((x) => x.name === name);
        if (t !== undefined) return t.medianMs < 10 ? `${t.medianMs.toFixed(2)} ms` : `${Math.round(t.medianMs)} ms`;
        return r.skipped.some((x) => x.name === name) ? 'not run (over budget)' : '—';
      }),
    ]),
  };
}

/**
 * Growth between consecutive sizes of a sweep: how many times longer each entrant took per
 * 10× input (10× is linear, 100× quadratic); `not run (over budget)` once it was dropped.
 */
export function growthPerStep(
  caption: string,
  results: readonly SizeResult[],
  entrants: readonly { readonly name: string; readonly layer: string }[],
  withLayer: boolean,
): Table {
  const steps = results.slice(1).map((r, i) => ({ from: results[i] as SizeResult, to: r }));
  return {
    caption,
    header: ['entrant', ...(withLayer ? ['layer'] : []), ...steps.map(({ from, to }) => `${from.label} → ${to.label}`)],
    rows: entrants.map((entrant) => [
      entrant.name,
      ...(withLayer ? [entrant.layer] : []),
      ...steps.map(({ from, to }) => {
        const a = from.timings.find((t) => t.name === entrant.name);
        const b = to.timings.find((t) => t.name === entrant.name);
        if (a === undefined) return '—';
        if (b === undefined) return 'not run (over budget)';
        return formatRatio(growthPer10x(a.medianMs, from.size, b.medianMs, to.size));
      }),
    ]),
  };
}
