/**
 * The HTML page of a batch report (`--report report.html`): one self-contained file, readable
 * offline and attachable to an issue. Per model, three horizontal stacked bars of statuses — one
 * per scoring (strict, salvage, salvage + coerce), so what a naive harness misses shows as the
 * difference between the first bar and the others — then the counts, JSONSchemaBench's codes, the
 * most frequent failing keywords and paths, and example failures with their excerpts.
 *
 * Invariants:
 * - No network at view time and no script: inline CSS, hand-written SVG, and a
 *   Content-Security-Policy of `default-src 'none'` that says so (the icon is a `data:` URL, so
 *   the browser asks for no favicon either).
 * - Everything from the input (model names, ids, keywords, paths, messages, excerpts) is escaped
 *   in full (`& < > " '`), after control and bidi characters are made visible (terminalText): a
 *   model's output can neither inject markup nor reorder what the page shows.
 * - Deterministic, like the report: the same report gives the same bytes.
 */

import type { BatchReport, ReportSummary } from './batch-report.js';
import {
  frequentFailures,
  JSON_SCHEMA_BENCH_CODES,
  MAX_EXAMPLES,
  percent,
  reportRows,
  scoringLabel,
  settingsSentence,
  shownStatuses,
} from './batch-report.js';
import { RECORD_STATUSES, type RecordStatus, SCORINGS, type Scoring } from './batch-types.js';
import { terminalText } from './terminal-text.js';

/** One colour per status (Okabe–Ito, safe for the common colour-vision deficiencies); usable ones cool, failures warm. */
const COLOURS: Readonly<Record<RecordStatus, string>> = {
  valid: '#009E73',
  salvaged: '#56B4E9',
  coerced: '#0072B2',
  truncated: '#E69F00',
  invalid: '#D55E00',
  'not-json': '#CC79A7',
  empty: '#B8B8B8',
  'provider-error': '#6B6B6B',
  'unsupported-schema': '#F0E442',
};

/** `text` from the input, safe in HTML text and attribute values. */
export function htmlText(text: string): string {
  return terminalText(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

/** At most `max` characters, `…` at a cut, before escaping (a cut never splits an escape). */
function short(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

const CSS = `
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6472; --rule: #e3e6eb; --panel: #f7f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1080px; margin: 0 auto; padding: 28px 32px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--rule); }
h3 { font-size: 14px; margin: 18px 0 6px; }
p { margin: 6px 0; }
.settings { color: var(--muted); }
.note { color: var(--muted); font-size: 13px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 8px 0 12px; padding: 0; list-style: none; font-size: 13px; }
.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { width: 12px; height: 12px; border-radius: 2px; display: inline-block; }
svg.bars { display: block; width: 100%; height: auto; }
svg.bars text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: var(--ink); }
svg.bars .model { font-weight: 600; }
svg.bars .scoring, svg.bars .empty { fill: var(--muted); }
svg.bars .track { fill: var(--panel); stroke: var(--rule); }
svg.bars .total { font-weight: 700; }
table { border-collapse: collapse; width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 6px; border-bottom: 1px solid var(--rule); text-align: right; vertical-align: top; }
th { font-weight: 600; background: var(--panel); white-space: nowrap; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
td.scoring { white-space: nowrap; color: var(--muted); }
td.name { min-width: 16em; max-width: 260px; overflow-wrap: anywhere; }
table.bench th { white-space: normal; }
tr.group td { font-weight: 600; padding-top: 10px; border-bottom: none; }
table.counts td.scoring { padding-left: 18px; }
tr.total td { font-weight: 600; border-top: 2px solid var(--rule); }
tr.group.total td { border-top: 2px solid var(--rule); }
td.zero { color: #b5bac2; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 24px; }
.pair h2 { margin-top: 32px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.example { border: 1px solid var(--rule); border-radius: 6px; padding: 8px 12px; margin: 8px 0; background: #fff; }
.example .meta { display: flex; flex-wrap: wrap; gap: 4px 14px; color: var(--muted); font-size: 12px; }
.example .meta b { color: var(--ink); font-weight: 600; }
.example .message { margin: 4px 0; }
.example pre { margin: 6px 0 0; padding: 8px; background: var(--panel); border-radius: 4px; white-space: pre-wrap; word-break: break-all; }
.status { display: inline-block; padding: 0 6px; border-radius: 3px; color: #fff; font-size: 12px; }
${RECORD_STATUSES.map((s) => `.st-${s} { fill: ${COLOURS[s]}; background: ${COLOURS[s]}; }`).join('\n')}
.st-salvaged.status, .st-empty.status, .st-unsupported-schema.status { color: var(--ink); }
`;

const WIDTH = 900;
const NAME_WIDTH = 210;
const LABEL_WIDTH = 110;
const PERCENT_WIDTH = 70;
const BAR_WIDTH = WIDTH - NAME_WIDTH - LABEL_WIDTH - PERCENT_WIDTH;
const BAR_HEIGHT = 16;
const BAR_GAP = 5;
const GROUP_GAP = 18;
const BAR_LABELS: Readonly<Record<Scoring, string>> = { strict: 'strict', salvage: 'salvage', coerce: '+ coerce' };

function fixed(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** The stacked bars: per model (and all models), one bar per scoring, one segment per status present. */
function bars(report: BatchReport): string {
  const rows = reportRows(report);
  const groupHeight = SCORINGS.length * (BAR_HEIGHT + BAR_GAP) - BAR_GAP;
  const height = rows.length * (groupHeight + GROUP_GAP) - GROUP_GAP + 4;
  const parts: string[] = [];
  rows.forEach(({ name, summary, total }, r) => {
    const top = 2 + r * (groupHeight + GROUP_GAP);
    parts.push(
      `<g class="model-bars" data-model="${htmlText(name)}">`,
      `<text class="model${total ? ' total' : ''}" x="0" y="${top + BAR_HEIGHT - 3}"><title>${htmlText(name)}</title>${htmlText(short(name, 26))}</text>`,
      `<text class="empty" x="0" y="${top + 2 * BAR_HEIGHT + BAR_GAP - 3}">${summary.records} ${summary.records === 1 ? 'record' : 'records'}</text>`,
    );
    SCORINGS.forEach((scoring, s) => {
      const y = top + s * (BAR_HEIGHT + BAR_GAP);
      parts.push(
        `<text class="scoring" x="${NAME_WIDTH}" y="${y + BAR_HEIGHT - 3}">${BAR_LABELS[scoring]}</text>`,
        `<rect class="track" x="${NAME_WIDTH + LABEL_WIDTH}" y="${y}" width="${BAR_WIDTH}" height="${BAR_HEIGHT}" rx="2"/>`,
      );
      let x = NAME_WIDTH + LABEL_WIDTH;
      for (const status of RECORD_STATUSES) {
        const n = summary.scores[scoring][status];
        if (n === 0) continue;
        const width = (BAR_WIDTH * n) / summary.records;
        parts.push(
          `<rect class="seg st-${status}" data-scoring="${scoring}" data-status="${status}" x="${fixed(x)}" y="${y}" width="${fixed(width)}" height="${BAR_HEIGHT}"><title>${htmlText(short(name, 80))}, ${scoringLabel(scoring)}: ${status} ${n} (${percent(n, summary.records)})</title></rect>`,
        );
        x += width;
      }
      parts.push(
        `<text x="${WIDTH}" y="${y + BAR_HEIGHT - 3}" text-anchor="end">${percent(summary.usable[scoring], summary.records)}</text>`,
      );
    });
    parts.push('</g>');
  });
  return `<svg class="bars" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="Statuses per model under each scoring">\n${parts.join('\n')}\n</svg>`;
}

function legend(): string {
  return `<ul class="legend">${RECORD_STATUSES.map((s) => `<li><span class="swatch st-${s}"></span>${s}</li>`).join('')}</ul>`;
}

function numberCell(n: number): string {
  return `<td${n === 0 ? ' class="zero"' : ''}>${n}</td>`;
}

/** Per model a row naming it, then one row per scoring: every count, and the usable share. */
function countsTable(report: BatchReport): string {
  const statuses = shownStatuses(report);
  const columns = statuses.length + 3;
  const head = `<tr><th>scoring</th><th>records</th>${statuses.map((s) => `<th>${s}</th>`).join('')}<th>usable</th></tr>`;
  const body = reportRows(report).flatMap(({ name, summary, total }) => [
    `<tr class="group${total ? ' total' : ''}"><td class="text name" colspan="${columns}">${htmlText(short(name, 120))}</td></tr>`,
    ...SCORINGS.map(
      (scoring) =>
        `<tr><td class="text scoring">${scoringLabel(scoring)}</td><td>${summary.records}</td>${statuses.map((s) => numberCell(summary.scores[scoring][s])).join('')}<td><b>${percent(summary.usable[scoring], summary.records)}</b></td></tr>`,
    ),
  ]);
  return `<table class="counts">\n<thead>${head}</thead>\n<tbody>\n${body.join('\n')}\n</tbody>\n</table>`;
}

function benchTable(report: BatchReport): string {
  // The codes are long: they may break after an underscore.
  const head = `<tr><th>model</th>${JSON_SCHEMA_BENCH_CODES.map((c) => `<th>${c.replace(/_/g, '_<wbr>')}</th>`).join('')}</tr>`;
  const body = reportRows(report).map(
    ({ name, summary, total }) =>
      `<tr${total ? ' class="total"' : ''}><td class="text name">${htmlText(short(name, 60))}</td>${JSON_SCHEMA_BENCH_CODES.map((c) => numberCell(summary.jsonschemabench[c])).join('')}</tr>`,
  );
  return `<table class="bench">\n<thead>${head}</thead>\n<tbody>\n${body.join('\n')}\n</tbody>\n</table>`;
}

/** A keyword or a path as code; the empty JSON Pointer (the whole value) said in words. */
function keyCell(which: 'keywords' | 'paths', key: string): string {
  return which === 'paths' && key === '' ? '<i>the whole value</i>' : `<code>${htmlText(short(key, 120))}</code>`;
}

function keyTable(title: string, column: string, summary: ReportSummary, which: 'keywords' | 'paths'): string {
  const list = summary[which];
  const other = which === 'keywords' ? summary.otherKeywords : summary.otherPaths;
  const rest = list.slice(10).reduce((sum, k) => sum + k.count, 0) + other;
  const rows = list
    .slice(0, 10)
    .map((k) => `<tr><td class="text">${keyCell(which, k.key)}</td><td>${k.count}</td></tr>`);
  const table =
    list.length === 0
      ? '<p class="note">None.</p>'
      : `<table class="${which}">\n<thead><tr><th>${column}</th><th>failures</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
  const more = rest > 0 ? `<p class="note">And ${rest} more failures elsewhere.</p>` : '';
  return `<section><h2>${title}</h2>\n${table}${more}</section>`;
}

function examples(report: BatchReport): string {
  const parts: string[] = [];
  for (const { name, summary, total } of reportRows(report)) {
    if (total || summary.examples.length === 0) continue;
    parts.push(`<h3>${htmlText(short(name, 120))}</h3>`);
    const frequent = frequentFailures(summary, (key, which) => keyCell(which, key));
    if (frequent !== '') parts.push(`<p class="note">${frequent}</p>`);
    for (const e of summary.examples) {
      const meta = [
        `<span>position <b>${e.index}</b></span>`,
        `<span>id <b>${htmlText(short(e.id, 80))}</b></span>`,
        `<span class="status st-${e.status}">${e.status}</span>`,
        ...(e.keyword === undefined ? [] : [`<span>keyword <b>${htmlText(e.keyword)}</b></span>`]),
        ...(e.path === undefined ? [] : [`<span>path ${keyCell('paths', e.path)}</span>`]),
      ];
      parts.push(
        `<div class="example"><div class="meta">${meta.join('')}</div>${e.message === undefined ? '' : `<p class="message">${htmlText(e.message)}</p>`}${e.excerpt === undefined ? '' : `<pre>${htmlText(e.excerpt)}</pre>`}</div>`,
      );
    }
  }
  if (parts.length === 0) return '<p class="note">No failures.</p>';
  return parts.join('\n');
}

function problems(report: BatchReport): string {
  if (report.skippedInputLines === 0) return '';
  const items = report.inputProblems.map(
    (p) => `<li><code>${htmlText(p.file)}:${p.line}</code>: ${htmlText(p.message)}</li>`,
  );
  return `<section><h2>Skipped input lines</h2>\n<p>${report.skippedInputLines} input ${report.skippedInputLines === 1 ? 'line is' : 'lines are'} not a record; the first:</p>\n<ul>${items.join('')}</ul></section>`;
}

/** The whole page. */
export function htmlReport(report: BatchReport): string {
  const settings = settingsSentence(report.settings, (s) => `<code>${htmlText(short(s, 200))}</code>`);
  const merged =
    report.shards === undefined
      ? ''
      : `<p class="settings">A merge of shards ${report.shards.indexes.join(', ')} of ${report.shards.count}.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<link rel="icon" href="data:,">
<title>llmjson batch report</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header>
<h1>llmjson batch report</h1>
<p class="settings">${report.totals.records} records, ${report.models.length + (report.otherModels === undefined ? 0 : 1)} ${report.models.length === 1 ? 'model' : 'models'}. ${settings}</p>
${merged}
</header>
<section>
<h2>Statuses by scoring</h2>
<p class="note">Each model is scored three ways: <b>strict</b> is <code>JSON.parse</code> of the whole text, as a naive harness scores it; <b>salvage</b> is llmjson's extraction (fences, prose, recoveries); <b>+ coerce</b> adds schema-guided coercion. The percentage is the usable share (valid, salvaged or coerced).</p>
${legend()}
${bars(report)}
</section>
<section>
<h2>Counts</h2>
${countsTable(report)}
</section>
<section>
<h2>JSONSchemaBench codes</h2>
<p class="note">The run's statuses in JSONSchemaBench's vocabulary.</p>
${benchTable(report)}
</section>
<div class="pair">
${keyTable('Failing keywords', 'keyword', report.totals, 'keywords')}
${keyTable('Failing paths', 'path (array indices as *)', report.totals, 'paths')}
</div>
<section>
<h2>Example failures</h2>
<p class="note">The first ${MAX_EXAMPLES} failures of each model, by position in the run.</p>
${examples(report)}
</section>
${problems(report)}
</main>
</body>
</html>
`;
}
