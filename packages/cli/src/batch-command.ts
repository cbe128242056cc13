/**
 * `llmjson batch FILE…`: scores recorded model outputs — batch-API result files, benchmark
 * sample logs, JSONL records of any shape (`--format`, field paths), or directories of `.txt`
 * files — one result line per record (batch-types.ts `RecordResult`, on `--out` or stdout, in
 * position order whatever the number of workers), then a per-model summary on stderr and, with
 * `--report`, a report in JSON, markdown or HTML (by the extension; the flag may be repeated).
 * The stages are their own modules: reading (batch-records.ts, batch-formats.ts, batch-tasks.ts),
 * judging (batch-judge.ts, batch-block.ts; on worker threads too: batch-pool-worker.ts), the
 * report (batch-report.ts), the shard and the resume (batch-shard.ts). This file wires them and
 * keeps the guarantees:
 *
 * - The input is streamed: memory stays flat on a file of any size. The inputs are read as
 *   numbered tasks (batch-tasks.ts): JSONL files in blocks of whole lines (batch-lines.ts), `.txt`
 *   responses a few at a time. With `--workers N` (N ≥ 2), N threads judge: this one and N − 1
 *   worker threads. Each reads the inputs itself and judges the tasks whose number modulo N is its
 *   own, folding them into a report of its own; a worker sends each task's result lines as one
 *   buffer, this thread writes every task's lines in task order, and the workers' reports are
 *   merged at the end (docs/decisions/044-batch-threads-read-for-themselves.md).
 * - The result lines are the unit of truth: the report is a fold over them and the input
 *   problems. `--shard k/n` judges only its positions (and counts only its problems); `--resume`
 *   folds the lines already in `--out`, skips their positions and appends the rest, so a resumed
 *   run's `--out` and report are those of an uninterrupted one, and `merge` of the shards'
 *   reports is the report of one run.
 * - `--workers` is clamped to the machine's cores (`availableParallelism()`), with a note on
 *   stderr: more threads than cores only cost memory. 0 and 1 both judge on this thread alone.
 * - No output may be an input (`--out runs.jsonl` over `runs.jsonl`, a `--report` over a schema),
 *   nor two outputs one file: exit 2 before anything is read or written. `--resume` appends to
 *   `--out`, which is still never an input.
 * - A reader of stdout that goes away (`| head -1`) ends the result lines; with `--report` the
 *   run goes on, and the report and the summary are still written (exit 0 once they are).
 * - SIGTERM or SIGINT stops reading; the results already judged are written as whole lines, the
 *   report is not written (it would count part of the run), and the exit code is 143 or 130:
 *   `--resume` continues the run. A second signal ends the process at once.
 * - The progress bar is shown on a terminal only, never in CI.
 *
 * Model names and ids come from the records, so they can be anything: what goes to a terminal
 * is escaped and cut (terminal-text.ts, batch-report.ts); the result lines keep them whole.
 */

import { createWriteStream } from 'node:fs';
import { availableParallelism, constants as osConstants } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ClassifyMode } from '@llmjson/contracts';
import { elementSchemaAt, quoteInput } from '@llmjson/core/internal';
import cliProgress from 'cli-progress';
import {
  type BlockContext,
  BlockJudge,
  type BlockResult,
  type BlockTask,
  type FromWorker,
  type PoolWorkerData,
  type ToWorker,
} from './batch-block.js';
import type { FieldPaths } from './batch-formats.js';
import type { JudgeOptions } from './batch-judge.js';
import { inputSize, scanInputs } from './batch-records.js';
import {
  type BatchReport,
  coerceSetting,
  ReportBuilder,
  type ReportSettings,
  reportFileFormat,
  summaryText,
  writeReport,
} from './batch-report.js';
import { type PositionSet, readResume, type Shard, shardFromFlag, WHOLE_RUN } from './batch-shard.js';
import { readTasks, type TaskSource } from './batch-tasks.js';
import type { BatchFormat } from './batch-types.js';
import { coerceFromFlag } from './coerce-flag.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { parseFieldPath } from './field-path.js';
import { checkOutputsApart, fileProblem, type NamedFile, writableFile } from './output-paths.js';
import { type SchemaFlags, schemaFromFlags } from './schema-options.js';
import type { Io } from './stream-command.js';
import { terminalText } from './terminal-text.js';

export interface BatchFlags extends SchemaFlags {
  readonly mode: ClassifyMode;
  readonly salvage: boolean;
  readonly format?: BatchFormat;
  readonly textField?: string;
  readonly idField?: string;
  readonly modelField?: string;
  readonly finishField?: string;
  readonly schemaField?: string;
  readonly coerce?: string | boolean;
  readonly statuses?: 'llmjson' | 'jsonschemabench';
  readonly shard?: string;
  readonly resume?: boolean;
  readonly out?: string;
  /** Repeatable: one file per format wanted. */
  readonly report?: readonly string[];
  readonly workers?: number;
  readonly progress?: boolean;
}

/**
 * The worker threads' young generations, in MB: one worker gets 48 (about what V8 gives the main
 * thread, the other thread that judges); two or more share 32, 8 at least each.
 */
const ONE_WORKER_YOUNG_GENERATION_MB = 48;
const YOUNG_GENERATION_BUDGET_MB = 32;
const MIN_YOUNG_GENERATION_MB = 8;

/** A worker thread's young generation, in MB, when `workers` worker threads run. */
export function workerYoungGenerationMb(workers: number): number {
  if (workers <= 1) return ONE_WORKER_YOUNG_GENERATION_MB;
  return Math.max(MIN_YOUNG_GENERATION_MB, Math.floor(YOUNG_GENERATION_BUDGET_MB / workers));
}

/**
 * Inputs smaller than this, in bytes, are judged on the main thread when `--workers` is not
 * given: starting the workers (each loads the modules and compiles every schema it meets) costs
 * more than they save. On 2 cores, 15 MB (30 000 records) took 1.27–1.30 s on the main thread
 * against 1.81–1.90 s with two workers, 50 MB 2.09–2.15 s against 2.50–2.53 s, and 150 MB was even
 * (docs/decisions/042, fifth addendum); with more cores the workers pay off sooner, so the line is
 * drawn well below where two cores break even.
 */
export const SMALL_INPUT_BYTES = 32 * 1024 * 1024;

/**
 * The default number of threads that judge (`--workers`): the main thread alone (0) for an input
 * under SMALL_INPUT_BYTES, else one per core, the main thread being one of them.
 */
export function defaultWorkers(cores: number, inputBytes: number): number {
  return inputBytes < SMALL_INPUT_BYTES ? 0 : Math.max(1, cores);
}

/** Exit code for a run stopped by a signal, as a shell reports one: 128 + its number. */
function signalExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? ExitCode.interrupted : 128 + (osConstants.signals[signal] ?? 15);
}

/** A name from the input as a message quotes it: cut (quoteInput), escaped. */
function quoteName(text: string): string {
  return terminalText(quoteInput(text));
}

/**
 * Judges the run's tasks (batch-tasks.ts), each where it is owned: all on this thread
 * (`--workers` 0 or 1), or shared with worker threads (`threadJudge`).
 */
export interface Judge {
  /** Which tasks this thread judges. */
  owns(number: number): boolean;
  /** The result of task `number`: `task` judged here when this thread owns it, else a worker's. */
  judge(number: number, task: BlockTask | undefined): Promise<BlockResult>;
  /** Task `number`'s result lines are written. */
  written(number: number): void;
  /**
   * This thread's reading has ended with `tasks` tasks: all of the inputs (`complete`), or part,
   * stopped by a signal or a reader of stdout gone.
   */
  ended(tasks: number, complete: boolean): void;
  /** The reports the workers folded their results into (none inline), once every task is written. */
  reports(): Promise<readonly BatchReport[]>;
  close(): Promise<void>;
}

/** Judges `task` on this thread, once the event loop has turned (see inlineJudge). */
async function judgeHere(judge: BlockJudge, task: BlockTask | undefined, builder: ReportBuilder): Promise<BlockResult> {
  await new Promise<void>((turned) => setImmediate(turned));
  if (task === undefined) throw new Error('llmjson batch: a task of this thread came without its content');
  return judge.judge(task, builder);
}

/**
 * Judges on this thread. Each task first lets the event loop turn: `.txt` responses are read
 * synchronously and stdout (a file or a pipe) is written synchronously, so without it a run would
 * hear SIGTERM or SIGINT, or stdout's EPIPE, only once it had judged everything.
 */
function inlineJudge(context: BlockContext, builder: ReportBuilder): Judge {
  const judge = new BlockJudge(context);
  return {
    owns: () => true,
    judge: (_, task) => judgeHere(judge, task, builder),
    written: () => {},
    ended: () => {},
    reports: async () => [],
    close: async () => {},
  };
}

/**
 * How long the workers have, once every task is written, to finish reading (passing over the last
 * tasks, which are not theirs) and send their reports.
 */
const REPORTS_TIMEOUT_MS = 60_000;

/** Defined as `true` in the bundle (scripts/bundle.mjs); not defined in the build or the sources. */
declare const __LLMJSON_BUNDLE__: boolean | undefined;

/**
 * The worker's file: the bundled worker beside the bundle (`bundle/batch-pool-worker.js`), else
 * the build's (`dist/batch-pool-worker.js`, beside this module once built; from the sources, the
 * built copy, as a worker thread runs plain Node).
 */
const WORKER_FILE = fileURLToPath(
  new URL(
    typeof __LLMJSON_BUNDLE__ !== 'undefined' && __LLMJSON_BUNDLE__
      ? './batch-pool-worker.js'
      : '../dist/batch-pool-worker.js',
    import.meta.url,
  ),
);

/** An error a worker thread reported, as the main thread would have thrown it. */
function workerFailure(message: Extract<FromWorker, { kind: 'failed' }>): Error {
  if (message.name === 'UsageError') return new UsageError(message.message);
  const error = new Error(message.message);
  error.name = message.name;
  return error;
}

/**
 * `threads` threads judge: this one and `threads - 1` worker threads (batch-pool-worker.ts). Each
 * reads the inputs itself and judges the tasks whose number modulo `threads` is its own (this
 * thread's is 0); the workers send their result lines, and this thread writes every task's in
 * order (docs/decisions/044). A worker that fails (an input it cannot read, a crash) fails the
 * run at its task's turn, as the same failure on this thread would.
 */
export function threadJudge(
  threads: number,
  context: BlockContext,
  settings: ReportSettings,
  source: TaskSource,
  builder: ReportBuilder,
): Judge {
  const here = new BlockJudge(context);
  const { finished, ...rest } = source;
  const waiting = new Map<number, { resolve: (result: BlockResult) => void; reject: (error: Error) => void }>();
  const arrived = new Map<number, BlockResult>();
  const reports = new Map<number, BatchReport>();
  // How many tasks each worker numbered once its reading ended, and this thread's count.
  const numbered = new Map<number, number>();
  let ownCount: { readonly tasks: number; readonly complete: boolean } | undefined;
  // The last task each worker sent, and why a worker stopped: from the task after its last on,
  // its tasks fail (the others' do not), so every task before is written, as on one thread.
  const lastSent = new Map<number, number>();
  const stoppedWorkers = new Map<number, { readonly error: Error; readonly after: number }>();
  let failure: Error | undefined;
  let closing = false;
  let reportsWanted: (() => void) | undefined;
  const ownerOf = (number: number) => (number % threads) - 1;
  const fail = (error: Error) => {
    failure ??= error;
    for (const { reject } of waiting.values()) reject(failure);
    waiting.clear();
    reportsWanted?.();
  };
  const failWorker = (i: number, error: Error) => {
    if (stoppedWorkers.has(i)) return;
    const after = lastSent.get(i) ?? -1;
    stoppedWorkers.set(i, { error, after });
    for (const [number, { reject }] of waiting) {
      if (ownerOf(number) === i && number > after) {
        waiting.delete(number);
        reject(error);
      }
    }
    reportsWanted?.();
  };
  // The threads cut a file into blocks alike only while it stays as it was (a file that grows is
  // read to the size it had: batch-tasks.ts); one cut shorter or rewritten meanwhile can number
  // the tasks differently on each thread.
  const changed = (counts: string) =>
    new UsageError(
      `the inputs changed while the run read them (its threads found ${counts} blocks): run again once the files are complete`,
    );
  const workers = Array.from({ length: threads - 1 }, (_, i) => {
    const workerData: PoolWorkerData = {
      context,
      settings,
      source: { ...rest, ...(finished === undefined ? {} : { finished: finished.toData() }) },
      part: { index: i + 1, count: threads },
    };
    const worker = new Worker(WORKER_FILE, {
      workerData,
      // V8's default young generation for each worker would add up: with piscina's workers, a run
      // of 1 000 000 records on two workers peaked at 369 MB with it; one worker at 48 MB scavenged
      // 126 times on 300 000 records against 227–228 times at 16 MB (decision 042, addenda 2, 3, 6).
      resourceLimits: { maxYoungGenerationSizeMb: workerYoungGenerationMb(threads - 1) },
      // Its stdout would interleave with the result lines: it writes nothing there, and whatever a
      // dependency might print is dropped. Its failures come as messages.
      stdout: true,
    });
    worker.stdout.resume();
    worker.on('message', (message: FromWorker) => {
      if (message.kind === 'judged') {
        lastSent.set(i, message.number);
        const result = message.result;
        const waiter = waiting.get(message.number);
        if (waiter === undefined) arrived.set(message.number, result);
        else {
          waiting.delete(message.number);
          waiter.resolve(result);
        }
      } else if (message.kind === 'done') {
        numbered.set(i, message.tasks);
        // A task of this worker past the end of its reading will never come.
        for (const [number, { reject }] of waiting) {
          if (ownerOf(number) === i && number >= message.tasks) {
            waiting.delete(number);
            reject(changed(`${number + 1} and ${message.tasks}`));
          }
        }
        reportsWanted?.();
      } else if (message.kind === 'report') {
        reports.set(i, message.report);
        reportsWanted?.();
      } else failWorker(i, workerFailure(message));
    });
    // An exception the worker did not catch may be told before the results it had already sent
    // arrive: its tasks fail only once it has exited, when every result it sent has come.
    let crash: Error | undefined;
    worker.on('error', (error) => {
      crash ??= error;
    });
    worker.on('exit', (code) => {
      if (!closing) {
        failWorker(i, crash ?? new Error(`llmjson batch: worker thread ${i + 1} stopped (exit code ${code})`));
      }
    });
    return worker;
  });
  const owner = (number: number) => workers[ownerOf(number)] as Worker;
  const tell = (worker: Worker, message: ToWorker) => worker.postMessage(message);
  return {
    owns: (number) => number % threads === 0,
    judge: (number, task) => {
      if (number % threads === 0) return judgeHere(here, task, builder);
      // A task judged before a failure was heard is written still, as it would be on one thread.
      const result = arrived.get(number);
      if (result !== undefined) {
        arrived.delete(number);
        return Promise.resolve(result);
      }
      if (failure !== undefined) return Promise.reject(failure);
      const stopped = stoppedWorkers.get(ownerOf(number));
      if (stopped !== undefined && number > stopped.after) return Promise.reject(stopped.error);
      const read = numbered.get(ownerOf(number));
      if (read !== undefined && number >= read) return Promise.reject(changed(`${number + 1} and ${read}`));
      return new Promise((resolve, reject) => waiting.set(number, { resolve, reject }));
    },
    written: (number) => {
      if (number % threads !== 0) tell(owner(number), { kind: 'written', number });
    },
    ended: (tasks, complete) => {
      ownCount = { tasks, complete };
      for (const worker of workers) tell(worker, { kind: 'end', tasks });
    },
    reports: () =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const reading = workers.map((_, i) => i).filter((i) => !numbered.has(i));
          const missing = workers.map((_, i) => i).filter((i) => !reports.has(i));
          const which = (list: number[]) => list.map((i) => i + 1).join(', ');
          fail(
            new Error(
              reading.length > 0
                ? `llmjson batch: worker threads ${which(reading)} did not finish reading within ${REPORTS_TIMEOUT_MS / 1000} s of the last result`
                : `llmjson batch: worker threads ${which(missing)} did not send their reports within ${REPORTS_TIMEOUT_MS / 1000} s`,
            ),
          );
        }, REPORTS_TIMEOUT_MS);
        // First every worker's reading ends (its count checked against this thread's), then the
        // reports are asked for and awaited.
        let asked = false;
        reportsWanted = () => {
          const [stopped] = stoppedWorkers.values();
          if (stopped !== undefined) failure ??= stopped.error;
          if (failure === undefined && !asked) {
            if (numbered.size < workers.length) return;
            const counts = [...numbered.values()];
            if (ownCount?.complete === true && counts.some((tasks) => tasks !== ownCount?.tasks)) {
              fail(changed([ownCount.tasks, ...counts].join(', ')));
              return;
            }
            asked = true;
            for (const worker of workers) tell(worker, { kind: 'report' });
            return;
          }
          if (failure === undefined && reports.size < workers.length) return;
          clearTimeout(timer);
          reportsWanted = undefined;
          if (failure !== undefined) reject(failure);
          else resolve([...reports.values()]);
        };
        reportsWanted();
      }),
    close: async () => {
      closing = true;
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}

export async function runBatchCommand(files: readonly string[], flags: BatchFlags, io: Io): Promise<number> {
  if (files.length === 0) throw new UsageError('give at least one JSONL file or directory of .txt files');
  const inputs = scanInputs(io.cwd, files);
  if (flags.schemaField !== undefined && (flags.schema !== undefined || flags.schemaRef !== undefined)) {
    throw new UsageError(
      `give --schema-field for each record's own schema, or ${flags.schema === undefined ? '--schema-ref' : '--schema'} for one schema for every record, not both`,
    );
  }
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
  const paths: { -readonly [K in keyof FieldPaths]: string } = {};
  for (const [key, flag, given] of [
    ['text', '--text-field', flags.textField],
    ['id', '--id-field', flags.idField],
    ['model', '--model-field', flags.modelField],
    ['finish', '--finish-field', flags.finishField],
    ['schema', '--schema-field', flags.schemaField],
  ] as const) {
    if (given === undefined) continue;
    parseFieldPath(flag, given);
    paths[key] = given;
  }
  const coerce = coerceFromFlag(flags.coerce);
  if (coerce !== undefined && schema === undefined && flags.schemaField === undefined) {
    throw new UsageError('--coerce needs a schema: give --schema, --schema-ref or --schema-field');
  }
  const statuses = flags.statuses ?? 'llmjson';
  let shard: Shard = WHOLE_RUN;
  if (flags.shard !== undefined) {
    const choice = shardFromFlag(flags.shard, io.env);
    shard = choice.shard;
    if (choice.note !== undefined) io.stderr.write(`llmjson batch: --shard auto: ${choice.note}\n`);
  }
  if (flags.resume === true && (flags.out === undefined || flags.out === '-')) {
    throw new UsageError('--resume continues the results in --out: give the --out of the run to resume');
  }
  const reports = flags.report ?? [];
  // Every file the run reads: no output may be one of them (it would be emptied before it is read).
  const read: NamedFile[] = [{ label: '--schema', file: flags.schema }];
  for (const input of inputs) {
    if (input.kind === 'records') read.push({ label: 'the input', file: relative(io.cwd, input.path) || input.path });
    else
      for (const f of input.files) read.push({ label: 'the input', file: relative(io.cwd, join(input.path, f.name)) });
  }
  checkOutputsApart(
    io.cwd,
    [{ label: '--out', file: flags.out }, ...reports.map((file) => ({ label: '--report', file }))],
    read,
  );
  for (const file of reports) reportFileFormat(file);
  const outPath = flags.out === undefined || flags.out === '-' ? undefined : writableFile(io.cwd, flags.out, '--out');
  const reportPaths = reports.map((file) => ({ file, path: writableFile(io.cwd, file, '--report') }));

  const judgeOptions: JudgeOptions = {
    mode: flags.mode,
    salvage: flags.salvage,
    statuses,
    ...(coerce === undefined ? {} : { coerce }),
    ...(schema === undefined ? {} : { schema }),
    ...(flags.discriminator === undefined ? {} : { discriminator: flags.discriminator }),
    ...(flags.schemaField === undefined ? {} : { schemaField: flags.schemaField }),
    ...(flags.schemaRoot === undefined ? {} : { schemaRoots: flags.schemaRoot.map((dir) => resolve(io.cwd, dir)) }),
  };
  const settings: ReportSettings = {
    mode: flags.mode,
    salvage: flags.salvage,
    coerce: coerceSetting(coerce),
    format: flags.format ?? 'auto',
    ...(flags.schema !== undefined ? { schema: flags.schema } : {}),
    ...(flags.schemaRef !== undefined ? { schema: flags.schemaRef } : {}),
    ...(Object.keys(paths).length === 0 ? {} : { fields: paths }),
    statuses,
    inputs: [...files],
    ...(shard.count === 1 ? {} : { shard: { index: shard.index + 1, count: shard.count } }),
  };
  const builder = new ReportBuilder(settings, { cwd: io.cwd });

  // Everything is checked: only now is --out read (and its cut last line cut) for --resume.
  let finished: PositionSet | undefined;
  if (flags.resume === true && outPath !== undefined) {
    const state = await readResume(
      outPath,
      { shard, jsonschemabench: statuses === 'jsonschemabench', shown: quoteInput(flags.out ?? '') },
      (result) => builder.add(result),
    );
    finished = state.finished;
    io.stderr.write(
      `llmjson batch: --resume: ${state.finished.size} ${state.finished.size === 1 ? 'record' : 'records'} already in --out${state.cutBytes > 0 ? ' (an unfinished last line cut off)' : ''}\n`,
    );
  }

  const cores = availableParallelism();
  let workers = flags.workers ?? defaultWorkers(cores, inputSize(inputs));
  if (workers > cores) {
    io.stderr.write(
      `llmjson batch: --workers ${workers} is more than the ${cores} ${cores === 1 ? 'core' : 'cores'} of this machine: using ${cores}\n`,
    );
    workers = cores;
  }
  const out: Writable =
    outPath === undefined ? io.stdout : createWriteStream(outPath, { flags: finished === undefined ? 'w' : 'a' });
  let outError: Error | undefined;
  // The reader of stdout went away (`| head -1`): no more result lines; the run stops, unless
  // it has a report to write, which then counts every record still.
  let stdoutGone = false;
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (out === io.stdout && (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED')) stdoutGone = true;
    else outError = error;
  });

  // A signal stops the reading; what was judged is written whole, so --resume loses nothing. A
  // listener of its own replaces the binary's immediate exit on SIGINT for the run's duration.
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted !== undefined) process.exit(signalExitCode(signal));
    interrupted = signal;
  };
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
  const stopped = () => interrupted !== undefined || (stdoutGone && reportPaths.length === 0);

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
  let judged = 0;
  let matchedResumed = 0;

  const write = async (line: string | Uint8Array) => {
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
  // A block's result lines come as one text and go out in one write: a write per line costs a
  // system call each when stdout is a file (Node writes files synchronously).
  const take = async (result: BlockResult) => {
    for (const problem of result.problems) {
      builder.addProblem(problem);
      io.stderr.write(
        `llmjson batch: ${quoteName(relative(io.cwd, problem.file))}:${problem.line}: skipped: ${quoteName(problem.message)}\n`,
      );
    }
    judged += result.judged;
    matchedResumed += result.resumed;
    if (result.text.length > 0) await write(result.text);
    if (bar !== undefined) {
      const seconds = (performance.now() - started) / 1000;
      bar.update(bytes, { records: judged, rate: Math.round(judged / Math.max(seconds, 0.001)) });
    }
  };
  const onBytes = (n: number) => {
    bytes += n;
  };
  // Which layout a file was detected as: a wrong guess (every text empty) is then plain to see.
  const formatNote = (file: string, format: BatchFormat, detected: boolean) =>
    detected
      ? `llmjson batch: ${quoteName(relative(io.cwd, file))}: read as ${format} (detected from its first record; --format to choose)\n`
      : undefined;

  const context: BlockContext = { judge: judgeOptions, shard, paths };
  const source: TaskSource = {
    inputs,
    shard,
    ...(flags.format === undefined ? {} : { format: flags.format }),
    ...(finished === undefined ? {} : { finished }),
  };
  const judge = workers <= 1 ? inlineJudge(context, builder) : threadJudge(workers, context, settings, source, builder);
  // From here on, the finally below removes them again.
  for (const signal of signals) process.on(signal, onSignal);
  try {
    const inFlight: { readonly number: number; readonly result: Promise<BlockResult> }[] = [];
    // A failure is heard when its task's turn comes, not before: no unhandled rejection meanwhile.
    // What a task's reading had to say (a file's format, detected there), said when its lines are
    // written: stderr then reads as one thread's would, whatever the number of threads.
    const toldAt = new Map<number, string[]>();
    const flushOne = async () => {
      const { number, result } = inFlight.shift() as (typeof inFlight)[number];
      const done = await result;
      for (const text of toldAt.get(number) ?? []) io.stderr.write(text);
      toldAt.delete(number);
      await take(done);
      judge.written(number);
    };
    // Bounded: at most two tasks per thread in flight, so reading never runs far ahead.
    const bound = Math.max(1, workers * 2);
    const tasks = readTasks(source, {
      owns: (number) => judge.owns(number),
      stopped,
      onBytes,
      onFormat: (file, format, detected, number) => {
        const text = formatNote(file, format, detected);
        if (text !== undefined) toldAt.set(number, [...(toldAt.get(number) ?? []), text]);
      },
      onResumed: () => {
        matchedResumed++;
      },
    });
    let count = 0;
    try {
      for await (const { number, task } of tasks) {
        count = number + 1;
        const result = judge.judge(number, task);
        result.catch(() => {});
        inFlight.push({ number, result });
        while (inFlight.length >= bound) await flushOne();
      }
    } catch (error) {
      // The reading failed (an input gone since the scan): the tasks read before it are written
      // first, as one thread writes them, unless one of them failed, which is then the failure.
      while (inFlight.length > 0) await flushOne();
      throw error;
    }
    judge.ended(count, !stopped());
    while (inFlight.length > 0) await flushOne();
    // An interrupted run writes no report.
    if (interrupted === undefined) for (const report of await judge.reports()) builder.addReport(report);
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    await judge.close();
    bar?.update(bytes, { records: judged, rate: 0 });
    bar?.stop();
    if (out !== io.stdout) await new Promise<void>((done) => out.end(done));
  }
  if (outError !== undefined) {
    throw new UsageError(`--out ${quoteInput(flags.out ?? '')}: cannot write the results (${fileProblem(outError)})`);
  }
  if (interrupted !== undefined) {
    io.stderr.write(
      `llmjson batch: stopped by ${interrupted} after ${judged} ${judged === 1 ? 'record' : 'records'}; ${outPath === undefined ? 'the results printed are complete lines' : `--out holds whole result lines: run the same command with --resume to continue`}; no report written\n`,
    );
    return signalExitCode(interrupted);
  }
  if (finished !== undefined && matchedResumed < finished.size) {
    io.stderr.write(
      `llmjson batch: --resume: ${finished.size - matchedResumed} of the results in --out are of positions that are not records of these inputs: were the inputs changed since?\n`,
    );
  }

  const report = builder.report();
  io.stderr.write(`${summaryText(report)}\n`);
  for (const { file, path } of reportPaths) {
    try {
      writeReport(path, report);
    } catch (error) {
      // Checked before reading, so only a change since (a full disk, a file made read-only).
      throw new UsageError(`--report ${quoteInput(file)}: cannot write it (${fileProblem(error)})`);
    }
  }
  return ExitCode.ok;
}
