/**
 * `llmjson merge REPORT.json… [--report OUT]` and `llmjson report diff OLD.json NEW.json`: the
 * commands that read batch reports back (batch-report.ts, docs/decisions/040-batch-reports.md).
 *
 * - merge: the shard reports of one run (`llmjson batch --shard k/n --report shard-k.json` on n
 *   machines) into exactly the report one run would have written. Refused (exit 2, before anything
 *   is written): reports of other settings or another version, and reports that overlap (the same
 *   shard twice). Each `--report` is written in the format its extension names; without one, the
 *   JSON goes to stdout. The summary table goes to stderr, as batch prints it.
 * - report diff: per model, records, the usable share under each scoring (in percentage points)
 *   and each status count, from OLD to NEW; a model on one side only says so. Text (escaped for
 *   the terminal), markdown (escaped for markdown; for a pull request's comment) or JSON.
 *
 * Every report is read whole through `readRegularText` (a regular file, at most 64 MiB) and its
 * shape checked (`parseReport`), so a stray file is one line and exit 2, never a stack trace. No
 * output may be one of the inputs (`output-paths.ts`).
 */

import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { quoteInput } from '@llmjson/core/internal';
import {
  alignedTable,
  type BatchReport,
  type CountChange,
  diffReports,
  type ModelDiff,
  markdownText,
  mergeReports,
  type PercentChange,
  parseReport,
  renderReport,
  reportFileFormat,
  summaryText,
  tableCell,
} from './batch-report.js';
import { RECORD_STATUSES, SCORINGS, type Scoring } from './batch-types.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { checkOutputsApart, fileProblem, type NamedFile, writableFile } from './output-paths.js';
import { readRegularText } from './read-file.js';
import type { Io } from './stream-command.js';
import { terminalText } from './terminal-text.js';

export interface MergeFlags {
  /** Output files, each in the format its extension names. */
  readonly report?: readonly string[];
}

export type DiffFormat = 'text' | 'markdown' | 'json';

export interface DiffFlags {
  readonly format: DiffFormat;
}

function readReport(io: Io, file: string): BatchReport {
  return parseReport(readRegularText(resolve(io.cwd, file), file, { label: 'cannot read report' }), quoteInput(file));
}

async function write(stream: Io['stdout'], text: string): Promise<void> {
  await new Promise<void>((done) => {
    if (stream.write(text)) done();
    else stream.once('drain', done);
  });
}

export async function runMergeCommand(files: readonly string[], flags: MergeFlags, io: Io): Promise<number> {
  if (files.length === 0) throw new UsageError('give the report.json of each shard to merge');
  const outputs = flags.report ?? [];
  // The formats first: a wrong extension is exit 2 before anything is read.
  for (const out of outputs) reportFileFormat(out);
  const inputs: NamedFile[] = files.map((file) => ({ label: 'the report', file }));
  checkOutputsApart(
    io.cwd,
    outputs.map((file) => ({ label: '--report', file })),
    inputs,
  );
  const paths = outputs.map((out) => writableFile(io.cwd, out, '--report', inputs));
  const reports = files.map((file) => readReport(io, file));
  const merged = mergeReports(reports, { names: files.map((f) => quoteInput(f)) });
  for (const [i, path] of paths.entries()) {
    const given = outputs[i] as string;
    try {
      writeFileSync(path, renderReport(merged, reportFileFormat(given)));
    } catch (error) {
      throw new UsageError(`--report ${quoteInput(given)}: cannot write it (${fileProblem(error)})`);
    }
  }
  if (outputs.length === 0) await write(io.stdout, renderReport(merged, 'json'));
  io.stderr.write(`${summaryText(merged)}\n`);
  return ExitCode.ok;
}

// --- diff -----------------------------------------------------------------------------------------

const USABLE_LABELS: Readonly<Record<Scoring, string>> = {
  strict: 'usable strict',
  salvage: 'usable salvage',
  coerce: 'usable +coerce',
};

function countCells(c: CountChange, before: boolean, after: boolean): string[] {
  return [before ? String(c.before) : '-', after ? String(c.after) : '-', signedCount(c.change)];
}

function signedCount(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

function percentCell(value: number | null): string {
  return value === null ? '-' : `${value.toFixed(1)}%`;
}

function pointsCell(change: PercentChange): string {
  if (change.points === null) return '-';
  return `${change.points > 0 ? '+' : ''}${change.points.toFixed(1)} pp`;
}

/** The rows of one model: records, usable per scoring, then each status either side has. */
function diffRows(model: ModelDiff): string[][] {
  const before = model.presence !== 'after';
  const after = model.presence !== 'before';
  const rows = [['records', ...countCells(model.records, before, after)]];
  for (const scoring of SCORINGS) {
    const change = model.usablePercent[scoring];
    rows.push([USABLE_LABELS[scoring], percentCell(change.before), percentCell(change.after), pointsCell(change)]);
  }
  for (const status of RECORD_STATUSES) {
    const change = model.statuses[status];
    if (change.before === 0 && change.after === 0) continue;
    rows.push([status, ...countCells(change, before, after)]);
  }
  return rows;
}

function presenceNote(model: ModelDiff, oldName: string, newName: string): string {
  if (model.presence === 'before') return ` (only in ${oldName})`;
  if (model.presence === 'after') return ` (only in ${newName})`;
  return '';
}

/** The diff for a terminal: one block per model, then all; names escaped. */
export function diffText(diff: ReturnType<typeof diffReports>, oldFile: string, newFile: string): string {
  const oldName = terminalText(quoteInput(oldFile));
  const newName = terminalText(quoteInput(newFile));
  const lines = [`${oldName} -> ${newName}`];
  for (const s of diff.settings) {
    lines.push(
      `settings differ: ${s.field} ${terminalText(quoteInput(JSON.stringify(s.before) ?? 'none'))} -> ${terminalText(quoteInput(JSON.stringify(s.after) ?? 'none'))}`,
    );
  }
  for (const model of [...diff.models, diff.totals]) {
    const name = model === diff.totals ? 'all models' : tableCell(model.model);
    // The model's name heads its block; the rows under it are indented.
    const [head = '', ...rows] = alignedTable(
      [`${name}${presenceNote(model, oldName, newName)}`, 'old', 'new', 'change'],
      diffRows(model).map(([label = '', ...cells]) => [`  ${label}`, ...cells]),
    ).split('\n');
    lines.push('', head, ...rows);
  }
  return `${lines.join('\n')}\n`;
}

function arrow(before: string, after: string, change: string): string {
  return `${before} → ${after} (${change})`;
}

/** The diff as one markdown table (for a pull request's comment); names escaped for markdown. */
export function diffMarkdown(diff: ReturnType<typeof diffReports>, oldFile: string, newFile: string): string {
  const md = (s: string) => markdownText(s);
  const out = [`Batch report: ${md(oldFile)} → ${md(newFile)}`, ''];
  for (const s of diff.settings) {
    out.push(
      `- settings differ: ${s.field} ${md(JSON.stringify(s.before) ?? 'none')} → ${md(JSON.stringify(s.after) ?? 'none')}`,
    );
  }
  if (diff.settings.length > 0) out.push('');
  out.push(
    '| model | records | usable strict | usable salvage | usable salvage + coerce | statuses that changed |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const model of [...diff.models, diff.totals]) {
    const before = model.presence !== 'after';
    const after = model.presence !== 'before';
    const [b, a, c] = countCells(model.records, before, after) as [string, string, string];
    const changed = RECORD_STATUSES.filter((s) => model.statuses[s].change !== 0)
      .map((s) => `${s} ${signedCount(model.statuses[s].change)}`)
      .join(', ');
    const name = model === diff.totals ? '**all**' : markdownText(model.model, 60);
    out.push(
      `| ${name}${presenceNote(model, md(oldFile), md(newFile))} | ${arrow(b, a, c)} | ${SCORINGS.map((s) => {
        const p = model.usablePercent[s];
        return arrow(percentCell(p.before), percentCell(p.after), pointsCell(p));
      }).join(' | ')} | ${changed || 'none'} |`,
    );
  }
  return `${out.join('\n')}\n`;
}

export async function runReportDiffCommand(
  oldFile: string,
  newFile: string,
  flags: DiffFlags,
  io: Io,
): Promise<number> {
  const before = readReport(io, oldFile);
  const after = readReport(io, newFile);
  const diff = diffReports(before, after);
  let text: string;
  switch (flags.format) {
    case 'json':
      text = `${JSON.stringify({ old: oldFile, new: newFile, ...diff }, null, 2)}\n`;
      break;
    case 'markdown':
      text = diffMarkdown(diff, oldFile, newFile);
      break;
    default:
      text = diffText(diff, oldFile, newFile);
  }
  await write(io.stdout, text);
  return ExitCode.ok;
}
