/**
 * A piscina task module that judges batches of records as they are (batch-judge.ts): the pool's
 * `workerData` is `{ judge: JudgeOptions }`, and each task, an array of records, comes back as
 * their result lines, in order. One `RecordSchemas` per thread for the whole run (module level),
 * so a schema shared by many records is compiled once per thread, whatever batch its records
 * arrive in.
 *
 * `llmjson batch` itself uses batch-pool-worker.ts, which also sends each distinct schema to a
 * worker about once instead of with every record; this module is the plain form, for records
 * that carry their schemas (or none) themselves.
 */

import { workerData } from 'piscina';
import { type JudgeOptions, judgeRecord } from './batch-judge.js';
import { RecordSchemas } from './batch-schemas.js';
import type { BatchRecord, RecordResult } from './batch-types.js';

/** This thread's schema cache; made on the first batch, from the run's options. */
let schemas: RecordSchemas | undefined;

/** The result lines of one batch, judged with `options` and this thread's schema cache. */
export function judgeBatch(records: readonly BatchRecord[], options: JudgeOptions): RecordResult[] {
  schemas ??= new RecordSchemas({
    ...(options.discriminator === undefined ? {} : { discriminator: options.discriminator }),
    ...(options.schemaRoots === undefined ? {} : { schemaRoots: options.schemaRoots }),
  });
  const cache = schemas;
  return records.map((record) => judgeRecord(record, options, cache));
}

/** The task run in a worker thread: one batch, with the options the pool was made with. */
export default function runBatch(records: readonly BatchRecord[]): RecordResult[] {
  return judgeBatch(records, (workerData as { judge: JudgeOptions }).judge);
}
