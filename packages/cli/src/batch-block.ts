/**
 * One unit of `llmjson batch` work (a task, batch-tasks.ts), judged whole by the thread that owns
 * it (the main thread, or a worker thread with `--workers` 2 or more): a block of JSONL lines as
 * bytes (batch-lines.ts), or a few records already read (the `.txt` responses of a directory). The
 * answer is the block's result lines as one text (from a worker, as one buffer of UTF-8, moved:
 * not an object per record), and its input problems.
 *
 * Parsing every line, lifting it out of its format, looking up its schema and judging it happen
 * here, on every thread in parallel (docs/decisions/042, 044). The results are folded into the
 * report of the thread that judges them (each worker's own, merged at the end of the run), so the
 * main thread never reads a result line back.
 *
 * A block is judged the way `readRecords` reads a file (the same `forEachLine`, `isBlankLine` and
 * `liftLine`), from the position and line number its first line has in the run: positions depend
 * only on the inputs, so `--shard` and `--resume` hold whatever the number of workers.
 */

import { type FieldPaths, parseFieldPaths } from './batch-formats.js';
import { type JudgeOptions, judgeRecord, resultText } from './batch-judge.js';
import { decodeBlock, forEachLine, isBlankLine } from './batch-lines.js';
import { type LineLiftOptions, liftLine, splitSchemaAllowed } from './batch-records.js';
import type { BatchReport, ReportBuilder, ReportSettings } from './batch-report.js';
import { RecordSchemas } from './batch-schemas.js';
import { inShard, type PositionSetData, type Shard } from './batch-shard.js';
import type { TaskSource } from './batch-tasks.js';
import type { BatchFormat, BatchRecord, InputProblem } from './batch-types.js';

/** What stays the same for every block of a run (a worker's `workerData`). */
export interface BlockContext {
  readonly judge: JudgeOptions;
  readonly shard: Shard;
  /** The field paths as given (`--text-field`, …). */
  readonly paths: FieldPaths;
}

/** A worker thread's `workerData` (batch-pool-worker.ts). */
export interface PoolWorkerData {
  readonly context: BlockContext;
  /** The report's settings (a worker's report is merged into the main thread's). */
  readonly settings: ReportSettings;
  /** The inputs, read by the worker itself (batch-tasks.ts), and the positions already judged. */
  readonly source: Omit<TaskSource, 'finished'> & { readonly finished?: PositionSetData };
  /** The tasks it judges: those whose number modulo `count` is `index` (the main thread's is 0). */
  readonly part: { readonly index: number; readonly count: number };
}

/**
 * What the main thread tells a worker: that the result lines of one of its tasks are written (it
 * may judge one task further ahead), where the main thread's reading ended, or to send its report.
 */
export type ToWorker =
  | { readonly kind: 'written'; readonly number: number }
  /** The main thread's reading ended with `tasks` tasks: a worker reads no task past them. */
  | { readonly kind: 'end'; readonly tasks: number }
  | { readonly kind: 'report' };

/** What a worker tells the main thread: a task judged, its report, or why it stopped. */
export type FromWorker =
  | { readonly kind: 'judged'; readonly number: number; readonly result: BlockResult }
  /** Its reading ended, with `tasks` tasks numbered (the main thread's count, when the inputs held still). */
  | { readonly kind: 'done'; readonly tasks: number }
  | { readonly kind: 'report'; readonly report: BatchReport }
  | { readonly kind: 'failed'; readonly name: string; readonly message: string };

/** Lines of one JSONL file, whole (batch-lines.ts `readBlocks`). */
export interface LinesTask {
  readonly kind: 'lines';
  /** The block's bytes (moved to the worker: the buffer is its own). */
  readonly bytes: Uint8Array;
  /** The file's path, as problems name it and the BFCL / lm-eval formats read the model from it. */
  readonly file: string;
  /** The file's format (undefined: no record yet in the file, so every item here is a problem). */
  readonly format: BatchFormat | undefined;
  /** Whether the format was detected from the file's first record (not given with --format). */
  readonly detected: boolean;
  /** Position in the run, and line number in the file, of the block's first line. */
  readonly index: number;
  readonly line: number;
  /** `--resume`: the positions of this block that are already judged (ascending). */
  readonly finished?: readonly number[];
}

/** Records already read (and already in the shard, not yet judged). */
export interface RecordsTask {
  readonly kind: 'records';
  readonly records: readonly BatchRecord[];
}

export type BlockTask = LinesTask | RecordsTask;

export interface BlockResult {
  /**
   * The result lines, each ending with a line break, in position order: as text where judged
   * (`BlockJudge`), as UTF-8 from a worker thread (batch-pool-worker.ts), whose buffer is moved to
   * the main thread, which writes it as it is.
   */
  readonly text: string | Uint8Array;
  readonly problems: readonly InputProblem[];
  /** Records judged. */
  readonly judged: number;
  /** Records skipped because `--resume` found them already judged. */
  readonly resumed: number;
}

/** A block as `BlockJudge` gives it: its result lines as text. */
export interface JudgedBlock extends BlockResult {
  readonly text: string;
}

/** Judges blocks for one run; keeps the compiled per-record schemas across blocks. */
export class BlockJudge {
  private readonly schemas: RecordSchemas;
  private readonly liftOptions: LineLiftOptions;

  constructor(private readonly context: BlockContext) {
    const { judge } = context;
    this.schemas = new RecordSchemas({
      ...(judge.discriminator === undefined ? {} : { discriminator: judge.discriminator }),
      ...(judge.schemaRoots === undefined ? {} : { schemaRoots: judge.schemaRoots }),
    });
    const paths = parseFieldPaths(context.paths);
    this.liftOptions = { paths, detected: false, splitSchema: splitSchemaAllowed(paths) };
  }

  /** Judges `task`, folding its results into `builder`. */
  judge(task: BlockTask, builder: Pick<ReportBuilder, 'add'>): JudgedBlock {
    // Built by concatenation: Array.prototype.join costs about 1 µs a line, as much as writing it.
    let text = '';
    let judged = 0;
    const one = (record: BatchRecord) => {
      const result = judgeRecord(record, this.context.judge, this.schemas);
      builder.add(result);
      text += `${resultText(result)}\n`;
      judged++;
    };
    if (task.kind === 'records') {
      for (const record of task.records) one(record);
      return { text, problems: [], judged, resumed: 0 };
    }
    const { file, format } = task;
    const lines = decodeBlock(task.bytes);
    const shard = this.context.shard;
    const liftOptions = task.detected ? { ...this.liftOptions, detected: true } : this.liftOptions;
    const finished = task.finished ?? [];
    const problems: InputProblem[] = [];
    let position = task.index;
    let lineNumber = task.line - 1;
    let resumed = 0;
    let next = 0;
    forEachLine(lines, (start, end) => {
      lineNumber++;
      if (isBlankLine(lines, start, end)) return;
      const index = position++;
      if (!inShard(shard, index)) return;
      const lifted = liftLine(lines.slice(start, end), format ?? 'records', { file, line: lineNumber }, liftOptions);
      if ('problem' in lifted) {
        problems.push({ index, file, line: lineNumber, message: lifted.problem });
        return;
      }
      while (next < finished.length && (finished[next] as number) < index) next++;
      if (finished[next] === index) {
        resumed++;
        return;
      }
      one({ index, ...lifted.record });
    });
    return { text, problems, judged, resumed };
  }
}
