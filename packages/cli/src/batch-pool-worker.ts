/**
 * A worker thread of `llmjson batch --workers N` (N ≥ 2): one of the N threads that judge the run,
 * the main thread being another (batch-command.ts `threadJudge`). It reads the inputs itself
 * (batch-tasks.ts), numbering the tasks as every thread does, and judges the tasks it owns: those
 * whose number modulo N is its `part.index`. Nothing is handed to it but its settings, once
 * (`workerData`): the main thread reads the inputs too, for its own tasks, and only the result
 * lines travel, one buffer of UTF-8 per task, moved (docs/decisions/044).
 *
 * Bounded: it judges at most `AHEAD` tasks whose result lines the main thread has not written yet;
 * the main thread writes in task order and tells it (`written`). When its reading ends it says how
 * many tasks it numbered (`done`), which the main thread checks against its own count; it reads no
 * task past the main thread's last (`end`). Its results are folded into its report as it judges
 * them, which the main thread asks for once every task is written. A run that stops early writes
 * no report; its summary on stderr (a reader of stdout gone, no `--report`) may count a few tasks
 * judged ahead and not written.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { BlockJudge, type FromWorker, type PoolWorkerData, type ToWorker } from './batch-block.js';
import { ReportBuilder } from './batch-report.js';
import { PositionSet } from './batch-shard.js';
import { readTasks } from './batch-tasks.js';

/** Tasks judged ahead of the main thread's writing, at most. */
const AHEAD = 2;

const port = parentPort;
if (port === null) throw new Error('batch-pool-worker.js runs as a worker thread of llmjson batch');
const data = workerData as PoolWorkerData;
const { index, count } = data.part;
const builder = new ReportBuilder(data.settings);
const judge = new BlockJudge(data.context);
// The tasks judged and not yet written.
const unwritten = new Set<number>();
let wake: (() => void) | undefined;

const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

// Where the main thread's reading ended: no task from there on is judged.
let end = Number.POSITIVE_INFINITY;

port.on('message', (message: ToWorker) => {
  if (message.kind === 'written') {
    unwritten.delete(message.number);
    wake?.();
  } else if (message.kind === 'end') {
    end = message.tasks;
    wake?.();
  } else post({ kind: 'report', report: builder.report() });
});

const encoder = new TextEncoder();
const turn = () => new Promise<void>((turned) => setImmediate(turned));

async function run(): Promise<void> {
  const { finished, ...source } = data.source;
  const tasks = readTasks(
    { ...source, ...(finished === undefined ? {} : { finished: PositionSet.from(finished) }) },
    { owns: (number) => number % count === index },
  );
  let numbered = 0;
  for await (const { number, task } of tasks) {
    numbered = number + 1;
    if (number >= end) break;
    if (task === undefined) continue;
    // The main thread's messages are heard between tasks; past AHEAD, wait for one.
    await turn();
    while (unwritten.size >= AHEAD && number < end) await new Promise<void>((woken) => (wake = woken));
    wake = undefined;
    if (number >= end) break;
    const judged = judge.judge(task, builder);
    unwritten.add(number);
    // The result lines as UTF-8 in a buffer of their own, moved to the main thread rather than
    // cloned: it would encode the text to write it anyway.
    const text = encoder.encode(judged.text);
    post({ kind: 'judged', number, result: { ...judged, text } }, [text.buffer as ArrayBuffer]);
  }
  post({ kind: 'done', tasks: numbered });
}

run().catch((error: unknown) => {
  const failure = error instanceof Error ? error : new Error(String(error));
  post({ kind: 'failed', name: failure.name, message: failure.message });
});
