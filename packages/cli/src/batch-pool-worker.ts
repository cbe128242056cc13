/**
 * The worker thread of `llmjson batch --workers N` (a piscina task module): judges one batch of
 * records (batch-judge.ts) and returns their results in order.
 *
 * Schemas travel apart from records: a run of a million records over a hundred schemas must not
 * clone a schema into the worker a million times. The main thread (batch-command.ts, `JudgePool`)
 * gives each distinct schema content a small number (`key`), sends the content with the first
 * tasks that use it, and after that only the key. This worker keeps what it was sent (`schemas`,
 * bounded by the main thread's own bound on keys). A task may land on a worker that was never
 * sent one of its keys: it is then answered with `{ missing }` and nothing judged, and the main
 * thread sends it again with those contents. So each worker receives each schema about once, and
 * a result never depends on which worker judged it.
 *
 * Per-record compilation is cached here too (`RecordSchemas`: one compilation per content per
 * worker), so a worker compiles each schema once.
 */

import { workerData } from 'piscina';
import { type JudgeOptions, judgeRecord } from './batch-judge.js';
import { RecordSchemas } from './batch-schemas.js';
import type { BatchRecord, RecordResult } from './batch-types.js';

/** A record as a task carries it: `schemaKey` in place of a shared schema (-1: none shared; `schema` then is its own). */
export interface TaskRecord extends BatchRecord {
  readonly schemaKey: number;
}

export interface JudgeTask {
  readonly records: readonly TaskRecord[];
  /** Schema contents by key, for keys this worker may not have yet. */
  readonly schemas: readonly (readonly [number, unknown])[];
}

export type JudgeTaskResult = { readonly results: RecordResult[] } | { readonly missing: number[] };

export interface PoolWorkerData {
  readonly judge: JudgeOptions;
}

const schemas = new Map<number, unknown>();
let recordSchemas: RecordSchemas | undefined;

/** Judges `task.records` with the worker's options; `{ missing }` when a schema key was never sent here. */
export default function judgeTask(task: JudgeTask): JudgeTaskResult {
  for (const [key, schema] of task.schemas) schemas.set(key, schema);
  const missing = new Set<number>();
  for (const record of task.records) {
    if (record.schemaKey >= 0 && !schemas.has(record.schemaKey)) missing.add(record.schemaKey);
  }
  if (missing.size > 0) return { missing: [...missing] };
  const { judge } = workerData as PoolWorkerData;
  recordSchemas ??= new RecordSchemas({
    ...(judge.discriminator === undefined ? {} : { discriminator: judge.discriminator }),
    ...(judge.schemaRoots === undefined ? {} : { schemaRoots: judge.schemaRoots }),
  });
  const schemasHere = recordSchemas;
  return {
    results: task.records.map(({ schemaKey, ...record }) =>
      judgeRecord(schemaKey < 0 ? record : { ...record, schema: schemas.get(schemaKey) }, judge, schemasHere),
    ),
  };
}
