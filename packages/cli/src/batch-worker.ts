/**
 * Worker thread for `llmjson batch --workers N` (a piscina task module): judges the batch of
 * records it is given, in order, and returns one result line per record (batch-judge.ts).
 *
 * The pool's `workerData` says how:
 * - `{ judge: JudgeOptions }`: `judgeBatch`, the result lines of batch-types.ts, with one
 *   `RecordSchemas` per thread for the whole run (module level), so a schema shared by many
 *   records is compiled once per thread, whatever batch its records arrive in;
 * - `{ classify: ClassifyOptions }`: `classifyBatch`, the earlier result shape (`classifyRecord`:
 *   `classifyResponse`'s status), kept while the command still asks for it.
 * A thread serves one run, so its options never change under it.
 */

import { type ClassifyOptions, classifyResponse } from '@llmjson/contracts';
import { workerData } from 'piscina';
import { type JudgeOptions, judgeRecord } from './batch-judge.js';
import { RecordSchemas } from './batch-schemas.js';
import type { BatchRecord, RecordResult as JudgedRecord } from './batch-types.js';

/** The earlier result shape (`classifyRecord`); the judged one is batch-types' `RecordResult`. */
export interface RecordResult {
  readonly index: number;
  readonly id: string;
  readonly model: string;
  readonly status: ReturnType<typeof classifyResponse>['status'];
  readonly values: number;
  readonly diagnostics: number;
  /** Why classifying the record failed (it is then `invalid`). */
  readonly error?: string;
}

export function classifyRecord(record: BatchRecord, options: ClassifyOptions): RecordResult {
  let result: ReturnType<typeof classifyResponse>;
  try {
    result = classifyResponse(record.text, { ...options, finishReason: record.finishReason });
  } catch (error) {
    // One record must not end the run (a validator overflowing its stack on absurd nesting,
    // say): it is invalid, and the reason is reported with it.
    return {
      index: record.index,
      id: record.id,
      model: record.model,
      status: 'invalid',
      values: 0,
      diagnostics: 1,
      error: (error as Error).message,
    };
  }
  return {
    index: record.index,
    id: record.id,
    model: record.model,
    status: result.status,
    values: result.values.length,
    diagnostics: result.diagnostics.length,
  };
}

/** This thread's schema cache; made on the first batch, from the run's options. */
let schemas: RecordSchemas | undefined;

/** The result lines of one batch, judged with `options` and this thread's schema cache. */
export function judgeBatch(records: readonly BatchRecord[], options: JudgeOptions): JudgedRecord[] {
  schemas ??= new RecordSchemas({
    ...(options.discriminator === undefined ? {} : { discriminator: options.discriminator }),
    ...(options.schemaRoots === undefined ? {} : { schemaRoots: options.schemaRoots }),
  });
  const cache = schemas;
  return records.map((record) => judgeRecord(record, options, cache));
}

/** The earlier task: `classifyRecord` per record. */
export function classifyBatch(records: readonly BatchRecord[], options: ClassifyOptions): RecordResult[] {
  return records.map((record) => classifyRecord(record, options));
}

/** The task run in a worker thread: one batch, with the options the pool was made with. */
export default function runBatch(records: readonly BatchRecord[]): JudgedRecord[] | RecordResult[] {
  const data = workerData as { judge?: JudgeOptions; classify?: ClassifyOptions };
  if (data.judge !== undefined) return judgeBatch(records, data.judge);
  return classifyBatch(records, data.classify as ClassifyOptions);
}
