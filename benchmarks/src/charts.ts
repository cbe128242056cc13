/**
 * SVG charts of a benchmark run, drawn from the same tables the markdown report prints (so a
 * chart can never disagree with its table):
 * - a ratio table (columns `<case>: time ÷ llmjson`) becomes horizontal bars, one group per
 *   case, one bar per entrant: how many times llmjson's time each entrant takes (above 1×
 *   llmjson is faster); a logarithmic axis when the values span more than 20×;
 * - a size sweep (columns `1 KB`, `10 KB`, … holding `… ms`) becomes growth curves on log–log
 *   axes: time of one run against input size, one line per entrant.
 * Hand-written SVG (about 200 lines): no charting library draws both of these to a static file
 * without a browser or a canvas, and the output stays diffable text.
 */

import type { Section, Table } from './types.js';

export interface Chart {
  /** File name, e.g. `elements-1.svg`. */
  readonly file: string;
  readonly title: string;
  readonly svg: string;
}

const RATIO_COLUMN = ': time ÷ llmjson';
const RATIO_HEADER = 'time ÷ llmjson';
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif"';

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `2.5× (1.7×–3.7×)` → 2.5; `—`, `not run …` → undefined. */
export function leadingNumber(cell: string, unit: string): number | undefined {
  const match = new RegExp(`^([0-9]+(?:\\.[0-9]+)?)\\s?${unit}`).exec(cell.trim());
  return match === null ? undefined : Number(match[1]);
}

/** `1 KB` → 1000 bytes; undefined when the heading is not a size. */
export function sizeOf(heading: string): number | undefined {
  const match = /^([0-9]+(?:\.[0-9]+)?) (B|KB|MB|GB)$/.exec(heading.trim());
  if (match === null) return undefined;
  const scale = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 }[match[2] as 'B' | 'KB' | 'MB' | 'GB'];
  return Number(match[1]) * scale;
}

function shortTitle(caption: string): string {
  const whole = caption.replace(/`/g, '');
  const first = whole.length <= 110 ? whole : (whole.split(/(?<=[.:;])\s/)[0] ?? whole).replace(/[;:]$/, '');
  return first.length > 110 ? `${first.slice(0, 107)}…` : first;
}

/** A group's heading, and an entrant's label right-aligned before its bar. */
function groupHeading(y: number, name: string): string {
  return name === '' ? '' : `<text x="10" y="${y + 14}" font-weight="600" font-size="13">${xmlEscape(name)}</text>`;
}

function entrantLabel(left: number, y: number, name: string): string {
  const short = name.length > 52 ? `${name.slice(0, 50)}…` : name;
  return `<text x="${left - 8}" y="${y + 13}" text-anchor="end" font-size="12">${xmlEscape(short)}</text>`;
}

function colour(entrant: string): string {
  if (entrant.startsWith('llmjson')) return '#1f6feb';
  if (entrant.startsWith('JSON.parse') || entrant.includes('ceiling')) return '#2da44e';
  if (entrant.includes('floor') || entrant.includes('do-nothing') || entrant.includes('swallows')) return '#8c959f';
  return '#d4a72c';
}

/** Ticks of a log axis between lo and hi (powers of ten, with 2 and 5 when the span is short). */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  const steps = Math.log10(hi / lo) < 2 ? [1, 2, 5] : [1];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const s of steps) {
      const v = s * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
    }
  }
  return ticks;
}

/** 0, then round steps (1, 2 or 5 × a power of ten) up to `hi`. */
function linearTicks(hi: number): number[] {
  const raw = hi / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let t = 0; t <= hi + 1e-9; t += step) ticks.push(Number(t.toPrecision(6)));
  return ticks;
}

function label(value: number, unit: string): string {
  const text =
    value >= 100
      ? value.toFixed(0)
      : value >= 10
        ? value.toFixed(1).replace(/\.0$/, '')
        : String(Number(value.toPrecision(2)));
  return `${text}${unit}`;
}

/** `3202 of 3888 (82%)` → 82. */
export function percentOf(cell: string): number | undefined {
  const match = /\(([0-9]+(?:\.[0-9]+)?)\s?%\)\s*$/.exec(cell.trim());
  return match === null ? undefined : Number(match[1]);
}

/** `2.30×` (a whole cell) → 2.3: a multiple that is not a time ratio (bytes of the answer). */
export function multipleOf(cell: string): number | undefined {
  const match = /^([0-9]+(?:\.[0-9]+)?)×$/.exec(cell.trim());
  return match === null ? undefined : Number(match[1]);
}

/**
 * Plain bars on a linear axis: for a `percent` column, one bar per entrant (0–100 %); for
 * `times` columns (multiples such as `2.30×`), one group per column, one bar per entrant; for
 * `ms` columns, one group per row and one bar per column.
 */
function barChart(
  table: Table,
  columns: number[],
  unit: 'percent' | 'times' | 'ms',
  title: string,
  footer: string,
): string | undefined {
  const groups =
    unit !== 'ms'
      ? columns.map((col) => ({
          name: table.header[col] as string,
          bars: table.rows.map((row) => ({
            entrant: row[0] as string,
            value: (unit === 'percent' ? percentOf(row[col] ?? '') : multipleOf(row[col] ?? '')) as number,
          })),
        }))
      : table.rows.map((row) => ({
          name: `${row[0]}${row[1] === undefined || columns.includes(1) ? '' : ` (${row[1]})`}`,
          bars: columns.map((col) => ({
            entrant: table.header[col] as string,
            value: leadingNumber(row[col] ?? '', ' ?ms') as number,
          })),
        }));
  const values = groups.flatMap((g) => g.bars.map((b) => b.value));
  if (values.length === 0) return undefined;
  const hi = unit === 'percent' ? 100 : Math.max(...values) * 1.1;
  const left = 380;
  const width = 940;
  const plot = width - left - 90;
  const x = (v: number) => left + (v / hi) * plot;
  const suffix = unit === 'percent' ? '%' : unit === 'times' ? '×' : ' ms';
  let y = 60;
  const parts: string[] = [];
  for (const group of groups) {
    parts.push(groupHeading(y, group.name));
    y += 22;
    for (const bar of group.bars) {
      parts.push(
        entrantLabel(left, y, bar.entrant),
        `<rect x="${left}" y="${y + 3}" width="${Math.max(1, x(bar.value) - left).toFixed(1)}" height="14" fill="${colour(bar.entrant)}"/>`,
        `<text x="${(x(bar.value) + 4).toFixed(1)}" y="${y + 13}" font-size="11" fill="#444">${label(bar.value, suffix)}</text>`,
      );
      y += 20;
    }
    y += 8;
  }
  const grid = linearTicks(hi)
    .map(
      (t) =>
        `<line x1="${x(t).toFixed(1)}" y1="54" x2="${x(t).toFixed(1)}" y2="${y}" stroke="#e1e4e8"/><text x="${x(t).toFixed(1)}" y="${y + 14}" text-anchor="middle" font-size="11" fill="#57606a">${label(t, suffix)}</text>`,
    )
    .join('');
  return svg(width, y + 50, title, shortTitle(table.caption), `${grid}${parts.join('')}`, [
    unit === 'percent'
      ? 'share of what the input holds'
      : unit === 'times'
        ? (table.header[0] ?? '')
        : 'time (median over rounds)',
    footer,
  ]);
}

function ratioChart(table: Table, columns: number[], title: string, footer: string): string | undefined {
  const groups = columns.map((col) => ({
    name:
      (table.header[col] as string) === RATIO_HEADER
        ? ''
        : (table.header[col] as string).slice(0, -RATIO_COLUMN.length),
    bars: table.rows
      .map((row) => ({
        entrant: table.header[1] === 'layer' ? `${row[0]} (${row[1]})` : (row[0] as string),
        value: leadingNumber(row[col] ?? '', '×'),
      }))
      .filter((b): b is { entrant: string; value: number } => b.value !== undefined && b.value > 0),
  }));
  const values = groups.flatMap((g) => g.bars.map((b) => b.value));
  if (values.length === 0) return undefined;
  const min = Math.min(1, ...values);
  const max = Math.max(1, ...values);
  const log = max / min > 20;
  const lo = log ? 10 ** Math.floor(Math.log10(min)) : 0;
  const hi = log ? 10 ** Math.ceil(Math.log10(max)) : max * 1.1;
  const left = 380;
  const width = 940;
  const plot = width - left - 70;
  const x = (v: number) => left + (log ? (Math.log10(v / lo) / Math.log10(hi / lo)) * plot : (v / hi) * plot);
  const rowHeight = 20;
  let y = 60;
  const parts: string[] = [];
  for (const group of groups) {
    parts.push(groupHeading(y, group.name));
    y += 22;
    for (const bar of group.bars) {
      const w = Math.max(1, x(bar.value) - x(log ? lo : 0));
      parts.push(
        entrantLabel(left, y, bar.entrant),
        `<rect x="${x(log ? lo : 0)}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowHeight - 6}" fill="${colour(bar.entrant)}"/>`,
        `<text x="${(x(log ? lo : 0) + w + 4).toFixed(1)}" y="${y + 13}" font-size="11" fill="#444">${label(bar.value, '×')}</text>`,
      );
      y += rowHeight;
    }
    y += 8;
  }
  const top = 54;
  const ticks = log ? logTicks(lo, hi) : linearTicks(hi);
  const grid = ticks
    .map(
      (t) =>
        `<line x1="${x(t).toFixed(1)}" y1="${top}" x2="${x(t).toFixed(1)}" y2="${y}" stroke="#e1e4e8"/><text x="${x(t).toFixed(1)}" y="${y + 14}" text-anchor="middle" font-size="11" fill="#57606a">${label(t, '×')}</text>`,
    )
    .join('');
  const one = `<line x1="${x(1).toFixed(1)}" y1="${top}" x2="${x(1).toFixed(1)}" y2="${y}" stroke="#1f6feb" stroke-dasharray="4 3"/>`;
  const height = y + 50;
  return svg(width, height, title, shortTitle(table.caption), `${grid}${one}${parts.join('')}`, [
    `time ÷ llmjson's time in the same layer (above 1× llmjson is faster)${log ? ', log scale' : ''}`,
    footer,
  ]);
}

function growthChart(table: Table, columns: number[], title: string, footer: string): string | undefined {
  const sizes = columns.map((c) => sizeOf(table.header[c] as string) as number);
  const lines = table.rows
    .map((row) => ({
      entrant: row[0] as string,
      points: columns
        .map((c, i) => ({ size: sizes[i] as number, ms: leadingNumber(row[c] ?? '', ' ?ms') }))
        .filter((p): p is { size: number; ms: number } => p.ms !== undefined && p.ms > 0),
    }))
    .filter((l) => l.points.length > 0);
  const all = lines.flatMap((l) => l.points.map((p) => p.ms));
  if (all.length === 0) return undefined;
  const ylo = 10 ** Math.floor(Math.log10(Math.min(...all)));
  const yhi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const xlo = Math.min(...sizes);
  const xhi = Math.max(...sizes);
  const left = 70;
  const width = 940;
  const plotW = 520;
  const top = 50;
  const plotH = 340;
  const px = (s: number) => left + (xhi === xlo ? 0 : (Math.log10(s / xlo) / Math.log10(xhi / xlo)) * plotW);
  const py = (ms: number) => top + plotH - (Math.log10(ms / ylo) / Math.log10(yhi / ylo)) * plotH;
  const parts: string[] = [];
  for (const t of logTicks(ylo, yhi)) {
    parts.push(
      `<line x1="${left}" y1="${py(t).toFixed(1)}" x2="${left + plotW}" y2="${py(t).toFixed(1)}" stroke="#e1e4e8"/><text x="${left - 6}" y="${(py(t) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#57606a">${label(t, ' ms')}</text>`,
    );
  }
  for (const [i, s] of sizes.entries()) {
    parts.push(
      `<text x="${px(s).toFixed(1)}" y="${top + plotH + 16}" text-anchor="middle" font-size="11" fill="#57606a">${xmlEscape(table.header[columns[i] as number] as string)}</text>`,
    );
  }
  const peers = ['#d4a72c', '#cf222e', '#8250df', '#57606a', '#2da44e', '#bf3989', '#953800'];
  let peer = 0;
  for (const [i, l] of lines.entries()) {
    const c = l.entrant.startsWith('llmjson')
      ? i === 0
        ? '#1f6feb'
        : '#54aeff'
      : (peers[peer++ % peers.length] as string);
    const d = l.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${px(p.size).toFixed(1)},${py(p.ms).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${c}" stroke-width="2"/>`);
    for (const p of l.points)
      parts.push(`<circle cx="${px(p.size).toFixed(1)}" cy="${py(p.ms).toFixed(1)}" r="3" fill="${c}"/>`);
    const ly = top + 8 + i * 18;
    parts.push(
      `<line x1="${left + plotW + 20}" y1="${ly}" x2="${left + plotW + 40}" y2="${ly}" stroke="${c}" stroke-width="2"/>`,
      `<text x="${left + plotW + 46}" y="${ly + 4}" font-size="11">${xmlEscape(l.entrant.length > 48 ? `${l.entrant.slice(0, 46)}…` : l.entrant)}</text>`,
    );
  }
  return svg(width, top + plotH + 70, title, shortTitle(table.caption), parts.join(''), [
    'time of one run against input size, log–log: a slope of 1 is linear, 2 quadratic',
    footer,
  ]);
}

function svg(width: number, height: number, title: string, subtitle: string, body: string, notes: string[]): string {
  const foot = notes
    .map((n, i) => `<text x="10" y="${height - 26 + i * 15}" font-size="11" fill="#57606a">${xmlEscape(n)}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" ${FONT}>
<title>${xmlEscape(`${title}. ${subtitle}`)}</title>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="10" y="22" font-size="15" font-weight="600">${xmlEscape(title)}</text>
<text x="10" y="40" font-size="12" fill="#57606a">${xmlEscape(subtitle)}</text>
${body}
${foot}
</svg>
`;
}

/** Every chart a section's tables can be drawn as. `footer` names the run (date, Node, machine). */
export function chartsFor(section: Section, footer: string): Chart[] {
  const charts: Chart[] = [];
  for (const table of section.tables) {
    const ratioColumns = table.header.flatMap((h, i) => (h.endsWith(RATIO_COLUMN) || h === RATIO_HEADER ? [i] : []));
    const percentColumns = table.header.flatMap((_h, i) =>
      i > 0 && table.rows.length > 0 && table.rows.every((row) => percentOf(row[i] ?? '') !== undefined) ? [i] : [],
    );
    const msColumns = table.header.flatMap((h, i) =>
      i > 0 &&
      sizeOf(h) === undefined &&
      table.rows.length > 0 &&
      table.rows.every((row) => leadingNumber(row[i] ?? '', ' ?ms') !== undefined)
        ? [i]
        : [],
    );
    const timesColumns = table.header.flatMap((_h, i) =>
      i > 0 && table.rows.length > 0 && table.rows.every((row) => multipleOf(row[i] ?? '') !== undefined) ? [i] : [],
    );
    const sizeColumns = table.header.flatMap((h, i) => (sizeOf(h) !== undefined ? [i] : []));
    const msCells = table.rows.some((row) =>
      sizeColumns.some((c) => leadingNumber(row[c] ?? '', ' ?ms') !== undefined),
    );
    const drawn: (string | undefined)[] = [];
    if (percentColumns.length > 0) drawn.push(barChart(table, percentColumns, 'percent', section.title, footer));
    if (table.chart === 'times' && timesColumns.length > 0)
      drawn.push(barChart(table, timesColumns, 'times', section.title, footer));
    if (ratioColumns.length > 0) drawn.push(ratioChart(table, ratioColumns, section.title, footer));
    else if (sizeColumns.length >= 2 && msCells) drawn.push(growthChart(table, sizeColumns, section.title, footer));
    else if (msColumns.length >= 2) drawn.push(barChart(table, msColumns, 'ms', section.title, footer));
    for (const svgText of drawn) {
      if (svgText === undefined) continue;
      charts.push({
        file: `${section.scenario}-${charts.length + 1}.svg`,
        title: `${section.title} — ${shortTitle(table.caption)}`,
        svg: svgText,
      });
    }
  }
  return charts;
}

/** The footer every chart of a run carries. */
export function runLabel(env: { date: string; node: string; cpu: string; cores: number; rounds: number }): string {
  return `Run of ${env.date}, Node ${env.node}, ${env.cpu} (${env.cores} cores), median of ${env.rounds} rounds`;
}
