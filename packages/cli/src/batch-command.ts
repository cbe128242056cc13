/**
 * `llmjson batch FILE…`: classifies recorded model outputs — JSONL files of one record per
 * response, or directories of `.txt` files — per `--mode` and `--schema`, falling back to
 * salvage unless `--no-salvage`. One result line per record (in input order, whatever the
 * number of workers), then a per-model table on stderr and, with `--report`, JSON and markdown.
 * The input is streamed: memory stays flat on a file of any size.
 *
 * Model names and ids come from the records, so they can be anything: the tables (stderr and
 * markdown) show each at most `MAX_CELL_LENGTH` characters, control characters and bidi
 * controls escaped (terminal-text.ts); messages quote them at most 200 characters, escaped the
 * same way. The JSON report and the result lines keep them whole: they are data, joined by
 * programs.
 *
 * `--workers` is clamped to the machine's cores (`availableParallelism()`), with a note on
 * stderr: more threads than cores only cost memory. No output may be an input (`--out
 * runs.jsonl` over `runs.jsonl`), nor two outputs one file: exit 2 before anything is written.
 * A reader of stdout that goes away (`| head -1`) ends the result lines; with `--report` the
 * run goes on, and the report and the summary are still written (exit 0 once they are).
 */

import { createWriteStream, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { AnswerStatus, ClassifyMode, ClassifyOptions } from '@llmjson/contracts';
import { elementSchemaAt, quoteInput } from '@llmjson/core/internal';
import cliProgress from 'cli-progress';
import { Piscina } from 'piscina';
import { type BatchRecord, type InputProblem, inputSize, readRecords, scanInputs } from './batch-records.js';
import { classifyRecord, type RecordResult } from './batch-worker.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { checkOutputsApart, fileProblem, type NamedFile, writableFile } from './output-paths.js';
import { type SchemaFlags, schemaFromFlags } from './schema-options.js';
import type { Io } from './stream-command.js';
import { terminalText } from './terminal-text.js';

export interface BatchFlags extends SchemaFlags {
  readonly mode: ClassifyMode;
  readonly salvage: boolean;
  readonly textField?: string;
  readonly modelField: string;
  readonly idField?: string;
  readonly out?: string;
  readonly report?: string;
  readonly workers?: number;
  readonly progress?: boolean;
}

const STATUSES: readonly AnswerStatus[] = ['valid', 'salvaged', 'truncated', 'invalid', 'empty'];
const BATCH_SIZE = 200;

type Counts = Record<AnswerStatus, number> & { records: number; values: number; diagnostics: number };

function emptyCounts(): Counts {
  return { records: 0, values: 0, diagnostics: 0, valid: 0, salvaged: 0, truncated: 0, invalid: 0, empty: 0 };
}

/** Widest a model name is shown in a table, in characters (an ellipsis marks a cut). */
export const MAX_CELL_LENGTH = 60;

/** A name from the input as a message quotes it: cut (quoteInput), escaped. */
function quoteName(text: string): string {
  return terminalText(quoteInput(text));
}

/** A name as a table shows it: escaped, at most MAX_CELL_LENGTH characters (`…` at a cut); markdown: `|` escaped. */
export function tableCell(text: string, markdown = false): string {
  // Only the head is looked at: a 5 MB name costs no more than a short one.
  let shown = terminalText(text.slice(0, MAX_CELL_LENGTH + 1));
  if (markdown) shown = shown.replace(/[|\\]/g, (c) => `\\${c}`);
  if (shown.length <= MAX_CELL_LENGTH && text.length <= MAX_CELL_LENGTH) return shown;
  let end = MAX_CELL_LENGTH - 1;
  const code = shown.charCodeAt(end);
  if (code >= 0xdc00 && code <= 0xdfff) end--;
  return `${shown.slice(0, end)}…`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}

/** The per-model table: text for stderr, or markdown for the report. */
export function summaryTable(models: ReadonlyMap<string, Counts>, total: Counts, markdown: boolean): string {
  const header = ['model', 'records', ...STATUSES, 'usable'];
  const rows = [...[...models].sort(([a], [b]) => a.localeCompare(b)), ['all', total] as const].map(([model, c]) => [
    tableCell(model, markdown),
    String(c.records),
    ...STATUSES.map((s) => String(c[s])),
    percent(c.valid + c.salvaged, c.records),
  ]);
  if (markdown) {
    return [
      `| ${header.join(' | ')} |`,
      `| --- | ${header
        .slice(1)
        .map(() => '---:')
        .join(' | ')} |`,
      ...rows.map((r) => `| ${r.join(' | ')} |`),
    ].join('\n');
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * The worker threads of `--workers N` (piscina): each task is one batch of records, classified
 * by `batch-worker.ts`. The worker is loaded from the build (`dist/batch-worker.js`, beside this
 * module once built; from the sources, the built copy), as a worker thread runs plain Node.
 */
function workerPool(size: number, options: ClassifyOptions): Piscina<BatchRecord[], RecordResult[]> {
  return new Piscina({
    filename: fileURLToPath(new URL('../dist/batch-worker.js', import.meta.url)),
    minThreads: size,
    maxThreads: size,
    workerData: { classify: options },
  });
}

/** The markdown report beside the JSON one: `report.json` → `report.md`. */
function markdownFile(report: string): string {
  return report.endsWith('.json') ? `${report.slice(0, -5)}.md` : `${report}.md`;
}

export async function runBatchCommand(files: readonly string[], flags: BatchFlags, io: Io): Promise<number> {
  if (files.length === 0) throw new UsageError('give at least one JSONL file or directory of .txt files');
  const inputs = scanInputs(io.cwd, files);
  const { schema } = schemaFromFlags(flags, io);
  if (flags.mode === 'elements' && schema !== undefined) {
    try {
      elementSchemaAt(schema, []);
    } catch (error) {
      throw new UsageError(
        `--mode elements needs the schema of an array document: ${quoteInput((error as Error).message)}`,
      );
    }
  }
  // Every file the run reads: no output may be one of them (it would be emptied before it is read).
  const read: NamedFile[] = [{ label: '--schema', file: flags.schema }];
  for (const input of inputs) {
    if (input.kind === 'records') read.push({ label: 'the input', file: relative(io.cwd, input.path) || input.path });
    else
      for (const f of input.files) read.push({ label: 'the input', file: relative(io.cwd, join(input.path, f.name)) });
  }
  checkOutputsApart(
    io.cwd,
    [
      { label: '--out', file: flags.out },
      { label: '--report', file: flags.report },
      {
        label: '--report (its markdown twin)',
        file: flags.report === undefined ? undefined : markdownFile(flags.report),
      },
    ],
    read,
  );
  const outPath = flags.out === undefined ? undefined : writableFile(io.cwd, flags.out, '--out');
  const reportPath = flags.report === undefined ? undefined : writableFile(io.cwd, flags.report, '--report');
  const markdownPath =
    flags.report === undefined ? undefined : writableFile(io.cwd, markdownFile(flags.report), '--report');
  const options: ClassifyOptions = {
    mode: flags.mode,
    salvage: flags.salvage,
    ...(schema === undefined ? {} : { schema }),
    ...(flags.discriminator === undefined ? {} : { discriminator: flags.discriminator }),
  };
  const cores = availableParallelism();
  let workers = flags.workers ?? Math.max(1, cores - 1);
  if (workers > cores) {
    io.stderr.write(
      `llmjson batch: --workers ${workers} is more than the ${cores} ${cores === 1 ? 'core' : 'cores'} of this machine: using ${cores}\n`,
    );
    workers = cores;
  }
  const out: Writable = outPath === undefined ? io.stdout : createWriteStream(outPath);
  let outError: Error | undefined;
  // The reader of stdout went away (`| head -1`): no more result lines; the run stops, unless
  // it has a report to write, which then counts every record still.
  let stdoutGone = false;
  const stopped = () => stdoutGone && reportPath === undefined;
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (out === io.stdout && (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED')) stdoutGone = true;
    else outError = error;
  });
  const showProgress = flags.progress !== false && (io.stderr as { isTTY?: boolean }).isTTY === true && !io.env.CI;
  const bar = showProgress
    ? new cliProgress.SingleBar(
        {
          stream: io.stderr,
          format: ' {bar} {percentage}% | {records} records | {rate} records/s | ETA {eta_formatted}',
          hideCursor: true,
          noTTYOutput: false,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  const started = performance.now();
  bar?.start(inputSize(inputs), 0, { records: 0, rate: 0 });
  let bytes = 0;

  const models = new Map<string, Counts>();
  const total = emptyCounts();
  const problems: InputProblem[] = [];
  const write = async (line: string) => {
    // Checked before reading, so only a change since (a full disk, a file made read-only).
    if (outError !== undefined) {
      throw new UsageError(`--out ${quoteInput(flags.out ?? '')}: cannot write the results (${fileProblem(outError)})`);
    }
    if (stdoutGone) return;
    if (!out.write(line)) {
      await new Promise<void>((done) => {
        const finish = () => {
          out.off('drain', finish);
          out.off('error', finish);
          done();
        };
        out.on('drain', finish);
        out.on('error', finish);
      });
    }
  };
  const record = async (result: RecordResult) => {
    let counts = models.get(result.model);
    if (counts === undefined) {
      counts = emptyCounts();
      models.set(result.model, counts);
    }
    for (const c of [counts, total]) {
      c.records++;
      c[result.status]++;
      c.values += result.values;
      c.diagnostics += result.diagnostics;
    }
    const { index: _index, error, ...line } = result;
    if (error !== undefined) {
      io.stderr.write(`llmjson batch: record ${quoteName(result.id)}: classified invalid: ${quoteName(error)}\n`);
    }
    await write(`${JSON.stringify(line)}\n`);
    if (bar !== undefined && total.records % 100 === 0) {
      const seconds = (performance.now() - started) / 1000;
      bar.update(bytes, { records: total.records, rate: Math.round(total.records / Math.max(seconds, 0.001)) });
    }
  };
  const records = readRecords(
    inputs,
    {
      modelField: flags.modelField,
      ...(flags.textField === undefined ? {} : { textField: flags.textField }),
      ...(flags.idField === undefined ? {} : { idField: flags.idField }),
    },
    (problem) => {
      problems.push(problem);
      io.stderr.write(
        `llmjson batch: ${quoteName(relative(io.cwd, problem.file))}:${problem.line}: skipped: ${quoteName(problem.message)}\n`,
      );
    },
    (n) => {
      bytes += n;
    },
  );

  if (workers === 0) {
    for await (const r of records) {
      await record(classifyRecord(r, options));
      if (stopped()) break;
    }
  } else {
    const pool = workerPool(workers, options);
    const inFlight: Promise<RecordResult[]>[] = [];
    let batch: BatchRecord[] = [];
    const flushOne = async () => {
      for (const result of await (inFlight.shift() as Promise<RecordResult[]>)) await record(result);
    };
    try {
      for await (const r of records) {
        if (stopped()) break;
        batch.push(r);
        if (batch.length === BATCH_SIZE) {
          inFlight.push(pool.run(batch));
          batch = [];
          // Bounded: at most two batches per worker in flight, so reading never runs ahead.
          while (inFlight.length >= workers * 2) await flushOne();
        }
      }
      if (batch.length > 0) inFlight.push(pool.run(batch));
      while (inFlight.length > 0) await flushOne();
    } finally {
      await pool.destroy();
    }
  }
  bar?.update(bytes, { records: total.records, rate: 0 });
  bar?.stop();
  if (out !== io.stdout) await new Promise<void>((done) => out.end(done));

  io.stderr.write(`${summaryTable(models, total, false)}\n`);
  if (problems.length > 0)
    io.stderr.write(`${problems.length} input ${problems.length === 1 ? 'line' : 'lines'} skipped (not a record)\n`);
  if (reportPath !== undefined && markdownPath !== undefined) {
    const report = {
      mode: flags.mode,
      salvage: flags.salvage,
      inputs: files,
      totals: total,
      models: Object.fromEntries([...models].sort(([a], [b]) => a.localeCompare(b))),
      skippedInputLines: problems.length,
    };
    try {
      writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
      writeFileSync(
        markdownPath,
        `# llmjson batch report\n\nMode: ${flags.mode}${flags.salvage ? ', salvage fallback' : ', no salvage'}. Inputs: ${files.join(', ')}.\n\n${summaryTable(models, total, true)}\n`,
      );
    } catch (error) {
      // Checked before reading, so only a change since (a full disk, a file made read-only).
      throw new UsageError(`--report ${quoteInput(flags.report ?? '')}: cannot write it (${fileProblem(error)})`);
    }
  }
  return ExitCode.ok;
}
