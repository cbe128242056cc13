/**
 * One unit of `llmjson batch` work, judged whole where it lands (a worker thread, or the main
 * thread with `--workers 0`): a block of JSONL lines as text (batch-lines.ts), or a few records
 * already read (the `.txt` responses of a directory). The answer is everything the main thread
 * needs and nothing per record: the block's result lines as one text, the report of the block (a
 * fold the main thread adds with `ReportBuilder.addReport`, exact by construction: a report of
 * parts adds up to the report of the whole, as `llmjson merge` relies on), and its input problems.
 *
 * So the main thread reads, counts positions, writes and adds reports; parsing every line,
 * lifting it out of its format, looking up its schema, judging, writing its result line and
 * folding it all happen here, in parallel (docs/decisions/042).
 *
 * A block is judged the way `readRecords` reads a file (the same `forEachLine`, `isBlankLine` and
 * `liftLine`), from the position and line number its first line has in the run: positions depend
 * only on the inputs, so `--shard` and `--resume` hold whatever the number of workers.
 */

import { type FieldPaths, parseFieldPaths } from './batch-formats.js';
import { type JudgeOptions, judgeRecord } from './batch-judge.js';
import { decodeBlock, forEachLine, isBlankLine } from './batch-lines.js';
import { liftLine } from './batch-records.js';
import { type BatchReport, ReportBuilder, type ReportSettings } from './batch-report.js';
import { RecordSchemas } from './batch-schemas.js';
import { inShard, type Shard } from './batch-shard.js';
import type { BatchFormat, BatchRecord, InputProblem } from './batch-types.js';

/** What stays the same for every block of a run (a worker's `workerData`). */
export interface BlockContext {
  readonly judge: JudgeOptions;
  readonly report: ReportSettings;
  /** Input problems name their file relative to it in the report. */
  readonly cwd: string;
  readonly shard: Shard;
  /** The field paths as given (`--text-field`, …). */
  readonly paths: FieldPaths;
}

/** Lines of one JSONL file, whole (batch-lines.ts `readBlocks`). */
export interface LinesTask {
  readonly kind: 'lines';
  /** The block's bytes (moved to the worker: the buffer is its own). */
  readonly bytes: Uint8Array;
  /** Its text, when judged on the thread that decoded it already. */
  readonly text?: string;
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
  /** The result lines, each ending with a line break, in position order. */
  readonly text: string;
  /** The report of these results (without the input problems: they are in `problems`). */
  readonly report: BatchReport;
  readonly problems: readonly InputProblem[];
  /** Records judged. */
  readonly judged: number;
  /** Records skipped because `--resume` found them already judged. */
  readonly resumed: number;
}

/** Judges blocks for one run; keeps the compiled per-record schemas across blocks. */
export class BlockJudge {
  private readonly schemas: RecordSchemas;
  private readonly liftOptions: { readonly paths: ReturnType<typeof parseFieldPaths>; readonly detected: boolean };

  constructor(private readonly context: BlockContext) {
    const { judge } = context;
    this.schemas = new RecordSchemas({
      ...(judge.discriminator === undefined ? {} : { discriminator: judge.discriminator }),
      ...(judge.schemaRoots === undefined ? {} : { schemaRoots: judge.schemaRoots }),
    });
    this.liftOptions = { paths: parseFieldPaths(context.paths), detected: false };
  }

  judge(task: BlockTask): BlockResult {
    const builder = new ReportBuilder(this.context.report, { cwd: this.context.cwd });
    // Built by concatenation: Array.prototype.join costs about 1 µs a line, as much as writing it.
    let text = '';
    let judged = 0;
    const one = (record: BatchRecord) => {
      const result = judgeRecord(record, this.context.judge, this.schemas);
      builder.add(result);
      text += `${JSON.stringify(result)}\n`;
      judged++;
    };
    if (task.kind === 'records') {
      for (const record of task.records) one(record);
      return { text, report: builder.report(), problems: [], judged, resumed: 0 };
    }
    const { file, format } = task;
    const lines = task.text ?? decodeBlock(task.bytes);
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
    return { text, report: builder.report(), problems, judged, resumed };
  }
}
