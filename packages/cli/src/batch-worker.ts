/**
 * Worker thread for `llmjson batch --workers N`: classifies the records it is sent, in order,
 * and posts back one result per record. All behaviour is `classifyResponse`'s.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { type ClassifyOptions, classifyResponse } from '@llmjson/contracts';
import type { BatchRecord } from './batch-records.js';

export interface RecordResult {
  readonly index: number;
  readonly id: string;
  readonly model: string;
  readonly status: ReturnType<typeof classifyResponse>['status'];
  readonly values: number;
  readonly diagnostics: number;
}

export function classifyRecord(record: BatchRecord, options: ClassifyOptions): RecordResult {
  const result = classifyResponse(record.text, { ...options, finishReason: record.finishReason });
  return {
    index: record.index,
    id: record.id,
    model: record.model,
    status: result.status,
    values: result.values.length,
    diagnostics: result.diagnostics.length,
  };
}

if (parentPort !== null && workerData !== null && typeof workerData === 'object' && 'classify' in workerData) {
  const options = (workerData as { classify: ClassifyOptions }).classify;
  const port = parentPort;
  port.on('message', (records: BatchRecord[]) => {
    port.postMessage(records.map((record) => classifyRecord(record, options)));
  });
}
