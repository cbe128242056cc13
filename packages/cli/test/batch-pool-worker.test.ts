/**
 * The worker's side of sending schemas by key (batch-pool-worker.ts): a task whose records name a
 * schema key this worker was never sent is answered with the keys missing, and nothing is judged;
 * the main thread then sends the task again with them (batch-command.ts). A key sent once is kept
 * for the tasks after. The whole exchange, with worker threads, is in batch.test.ts (`--schema-field`
 * with `--workers 2` gives the lines of `--workers 0`).
 */
import { describe, expect, test } from 'vitest';
import judgeTask, { type TaskRecord } from '../src/batch-pool-worker.js';

const record = (index: number, schemaKey: number): TaskRecord => ({
  index,
  id: `r${index}`,
  model: 'm',
  text: '{}',
  schemaKey,
});

describe('batch pool worker: schemas by key', () => {
  test('keys never sent here: the task is answered with them, nothing judged; a key sent once is kept', () => {
    expect(judgeTask({ records: [record(0, 7), record(1, 3), record(2, 7)], schemas: [] })).toEqual({
      missing: [7, 3],
    });
    expect(judgeTask({ records: [record(0, 7), record(1, 3)], schemas: [[7, { type: 'object' }]] })).toEqual({
      missing: [3],
    });
    // 7 was kept from the task before: only 4 is missing now.
    expect(judgeTask({ records: [record(0, 7), record(1, 4)], schemas: [[3, true]] })).toEqual({ missing: [4] });
  });
});
