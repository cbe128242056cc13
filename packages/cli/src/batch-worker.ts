/**
 * Worker thread for `llmjson batch --workers N` (a piscina task module): classifies the batch of
 * records it is given, in order, and returns one result per record. All behaviour is
 * `classifyResponse`'s.
 */

import { type ClassifyOptions, classifyResponse } from '@llmjson/contracts';
import { workerData } from 'piscina';
import type { BatchRecord } from './batch-records.js';

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

/** The task run in a worker thread: one batch, with the options the pool was made with. */
export default function classifyBatch(records: readonly BatchRecord[]): RecordResult[] {
  const options = (workerData as { classify: ClassifyOptions }).classify;
  return records.map((record) => classifyRecord(record, options));
}
