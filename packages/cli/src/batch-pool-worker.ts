/**
 * The worker thread of `llmjson batch --workers N` (a piscina task module): judges one block of
 * the run (batch-block.ts) and answers with its result lines as one text and its input problems.
 * The run's settings come once, as `workerData` (`PoolWorkerData`); each worker keeps its
 * compiled per-record schemas across blocks (one compilation per schema content per worker:
 * batch-schemas.ts).
 *
 * Each worker also folds its results into a report of its own as it judges them, so the main
 * thread never reads a result line back: at the end of the run it asks every worker for its
 * report on the run's broadcast channel (`REPORT_REQUEST`) and merges them, which gives the
 * one-builder report exactly (batch-report.ts: the fold is commutative). The answer names the
 * worker (`threadId`), as each block's result does, so the main thread knows whom to wait for.
 */

import { BroadcastChannel, threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import {
  BlockJudge,
  type BlockResult,
  type BlockTask,
  type PoolWorkerData,
  REPORT_REQUEST,
  type WorkerReport,
} from './batch-block.js';
import { ReportBuilder } from './batch-report.js';

let judge: BlockJudge | undefined;
let builder: ReportBuilder | undefined;
let channel: BroadcastChannel | undefined;

export default function judgeBlock(task: BlockTask): BlockResult {
  const data = workerData as PoolWorkerData;
  judge ??= new BlockJudge(data.context);
  if (builder === undefined) {
    const own = new ReportBuilder(data.settings);
    builder = own;
    channel = new BroadcastChannel(data.channel);
    // The pool keeps the worker alive; the channel must not.
    channel.unref();
    channel.onmessage = (event) => {
      if ((event as MessageEvent).data !== REPORT_REQUEST) return;
      const answer: WorkerReport = { worker: threadId, report: own.report() };
      channel?.postMessage(answer);
    };
  }
  const result = judge.judge(task, builder);
  // The result lines as UTF-8 in a buffer of their own, moved to the main thread rather than
  // cloned: the main thread would encode the text to write it anyway, and a clone of a block's
  // 27 KB of text cost both threads a copy (docs/decisions/042, addendum).
  const bytes = encoder.encode(result.text);
  return move({
    [transferableSymbol]: bytes.buffer,
    [valueSymbol]: { ...result, text: bytes, worker: threadId } satisfies BlockResult,
  }) as unknown as BlockResult;
}

const encoder = new TextEncoder();
