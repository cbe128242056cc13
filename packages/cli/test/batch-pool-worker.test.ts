/**
 * A block as the worker judges it (batch-block.ts): lines from the position and line number the
 * main thread gave, blank lines skipped, problems named by line, `--resume`'s positions skipped,
 * the result lines in order with their report. The whole run with worker threads is in
 * batch.test.ts (`--workers 2` gives the lines of `--workers 0`).
 */
import { describe, expect, test } from 'vitest';
import { BlockJudge, type JudgedBlock, type LinesTask } from '../src/batch-block.js';
import { ReportBuilder, type ReportSettings } from '../src/batch-report.js';

const settings: ReportSettings = {
  mode: 'json',
  salvage: true,
  coerce: false,
  format: 'records',
  statuses: 'llmjson',
  inputs: ['in.jsonl'],
};

function judge(shard = { index: 0, count: 1 }) {
  return new BlockJudge({
    judge: { mode: 'json', salvage: true, statuses: 'llmjson', schemaField: 'schema' },
    shard,
    paths: { schema: 'schema' },
  });
}

const text = [
  '{"id":"a","model":"m","text":"{\\"n\\":1}","schema":{"type":"object"}}',
  '',
  'not json',
  '  ',
  '{"id":"b","model":"m","text":"[1]","schema":{"type":"object"}}',
  '{"id":"c","model":"m","text":"{}","schema" : { "type" : "object" }}',
].join('\n');
const bytes = new TextEncoder().encode(text);

/** The block above as a task whose first line has position `index` and number `line`. */
function task(index: number, line: number, finished?: number[]): LinesTask {
  return {
    kind: 'lines',
    bytes,
    file: '/work/in.jsonl',
    format: 'records',
    detected: false,
    index,
    line,
    ...(finished === undefined ? {} : { finished }),
  };
}

const ids = (result: JudgedBlock) =>
  result.text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line).id);

describe('batch worker: a block of lines', () => {
  test('positions from the block’s first, line numbers from its first line; problems by line; results in order', () => {
    const builder = new ReportBuilder(settings);
    const result = judge().judge(task(10, 101), builder);
    const lines = result.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((r) => [r.index, r.id, r.status])).toEqual([
      [10, 'a', 'valid'],
      [12, 'b', 'invalid'],
      [13, 'c', 'valid'],
    ]);
    // The same content written two ways is one schema.
    expect(lines[0].schemaId).toBe(lines[2].schemaId);
    expect(result.problems).toEqual([
      { index: 11, file: '/work/in.jsonl', line: 103, message: expect.stringMatching(/^not JSON: /) },
    ]);
    expect(result.judged).toBe(3);
    // The results folded as they were judged are the result lines written.
    const fromLines = new ReportBuilder(settings);
    for (const line of lines) fromLines.add(line);
    expect(builder.report()).toEqual(fromLines.report());
    expect(builder.report().totals.records).toBe(3);
  });

  test('--resume: the finished positions are skipped and counted; --shard: other positions are not read', () => {
    const resumed = judge().judge(task(0, 1, [0, 3]), new ReportBuilder(settings));
    expect(ids(resumed)).toEqual(['b']);
    expect(resumed.resumed).toBe(2);
    const shard = judge({ index: 1, count: 2 }).judge(task(0, 1), new ReportBuilder(settings));
    // Positions 1 (the line that is not JSON) and 3 (c) are this shard's.
    expect(ids(shard)).toEqual(['c']);
    expect(shard.problems.map((p) => p.index)).toEqual([1]);
  });
});
