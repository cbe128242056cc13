/**
 * The worker thread of `llmjson batch --workers N` (a piscina task module): judges one block of
 * the run (batch-block.ts) and answers with its result lines as one text, its report and its
 * input problems. The run's settings come once, as `workerData` (`BlockContext`); each worker
 * keeps its compiled per-record schemas across blocks (one compilation per schema content per
 * worker: batch-schemas.ts).
 */

import { workerData } from 'piscina';
import { type BlockContext, BlockJudge, type BlockResult, type BlockTask } from './batch-block.js';

let judge: BlockJudge | undefined;

export default function judgeBlock(task: BlockTask): BlockResult {
  judge ??= new BlockJudge(workerData as BlockContext);
  return judge.judge(task);
}
