/**
 * `--shard k/n` and `--shard auto` (batch-shard.ts): what each spelling means, what each
 * scheduler's variables give, and that every refusal says what to write. `--resume`'s reading of
 * an earlier `--out` (a cut last line dropped, foreign lines refused) is here too; the whole
 * kill-and-resume run is batch-resume.test.ts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  inShard,
  PositionSet,
  parseShard,
  readResume,
  shardFromEnvironment,
  shardFromFlag,
} from '../src/batch-shard.js';
import type { RecordResult } from '../src/batch-types.js';
import { UsageError } from '../src/exit-codes.js';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('--shard k/n', () => {
  test('k counts from 1; the shard takes the positions p with p mod n == k - 1', () => {
    expect(parseShard('1/1')).toEqual({ index: 0, count: 1 });
    expect(parseShard('2/8')).toEqual({ index: 1, count: 8 });
    expect(parseShard(' 4 / 4 ')).toEqual({ index: 3, count: 4 });
    const shard = parseShard('3/4');
    expect(Array.from({ length: 12 }, (_, p) => p).filter((p) => inShard(shard, p))).toEqual([2, 6, 10]);
  });

  test('every shard of n together: each position exactly once', () => {
    for (let n = 1; n <= 8; n++) {
      const shards = Array.from({ length: n }, (_, k) => parseShard(`${k + 1}/${n}`));
      for (let p = 0; p < 100; p++) expect(shards.filter((s) => inShard(s, p))).toHaveLength(1);
    }
  });

  test('0/4, 5/4, 1/0 and a/b each say what to write', () => {
    expect(refusal(() => parseShard('0/4'))).toBe('--shard 0/4: k counts from 1: the shards of 4 are 1/4 to 4/4');
    expect(refusal(() => parseShard('5/4'))).toBe('--shard 5/4: there are only 4 shards: k goes from 1 to 4');
    expect(refusal(() => parseShard('2/1'))).toBe('--shard 2/1: there is only 1 shard: k goes from 1 to 1');
    expect(refusal(() => parseShard('1/0'))).toBe(
      '--shard 1/0: n, the number of shards, must be at least 1 (1/1 is the whole run)',
    );
    for (const bad of ['a/b', '1', '1/2/3', '-1/4', '1.5/4', '', '/4', 'auto/2']) {
      expect(
        refusal(() => parseShard(bad)),
        bad,
      ).toBe(
        `--shard ${bad}: write k/n, the k-th of n shards counting from 1 (2/8 is the second of 8), or auto to read it from the scheduler`,
      );
    }
  });
});

describe('--shard auto', () => {
  test('from each scheduler: the index converted to k, a note naming the variables', () => {
    const cases: [Record<string, string>, string, string][] = [
      [
        { JOB_COMPLETION_INDEX: '0', JOB_COMPLETIONS: '4' },
        '1/4',
        'JOB_COMPLETION_INDEX=0 and JOB_COMPLETIONS=4 (a Kubernetes Indexed Job)',
      ],
      [
        { AWS_BATCH_JOB_ARRAY_INDEX: '9', AWS_BATCH_JOB_ARRAY_SIZE: '10' },
        '10/10',
        'AWS_BATCH_JOB_ARRAY_INDEX=9 and AWS_BATCH_JOB_ARRAY_SIZE=10 (an AWS Batch array job)',
      ],
      [
        { CI_NODE_INDEX: '1', CI_NODE_TOTAL: '3' },
        '1/3',
        'CI_NODE_INDEX=1 and CI_NODE_TOTAL=3 (GitLab CI parallel jobs)',
      ],
      [
        { CI_NODE_INDEX: '3', CI_NODE_TOTAL: '3' },
        '3/3',
        'CI_NODE_INDEX=3 and CI_NODE_TOTAL=3 (GitLab CI parallel jobs)',
      ],
      [
        { CIRCLE_NODE_INDEX: '2', CIRCLE_NODE_TOTAL: '5' },
        '3/5',
        'CIRCLE_NODE_INDEX=2 and CIRCLE_NODE_TOTAL=5 (CircleCI parallelism)',
      ],
      [
        { BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '2' },
        '1/2',
        'BUILDKITE_PARALLEL_JOB=0 and BUILDKITE_PARALLEL_JOB_COUNT=2 (Buildkite parallel jobs)',
      ],
    ];
    for (const [env, k, from] of cases) {
      const choice = shardFromFlag('auto', env);
      const [index, count] = k.split('/').map(Number) as [number, number];
      expect(choice.shard, k).toEqual({ index: index - 1, count });
      expect(choice.note, k).toBe(`shard ${k} from ${from}`);
    }
  });

  test('LLMJSON_SHARD=k/n, for anything else, wins over any scheduler', () => {
    expect(shardFromEnvironment({ LLMJSON_SHARD: '2/3' })).toEqual({
      shard: { index: 1, count: 3 },
      note: 'shard 2/3 from LLMJSON_SHARD',
    });
    expect(shardFromEnvironment({ LLMJSON_SHARD: '2/3', CI_NODE_INDEX: '1', CI_NODE_TOTAL: '5' }).shard).toEqual({
      index: 1,
      count: 3,
    });
    expect(refusal(() => shardFromEnvironment({ LLMJSON_SHARD: '0/3' }))).toBe(
      '--shard auto: LLMJSON_SHARD=0/3: k counts from 1: the shards of 3 are 1/3 to 3/3',
    );
  });

  test('nothing set: the error lists every variable looked for and what to set', () => {
    const message = refusal(() => shardFromFlag('auto', { HOME: '/root', JOB_COMPLETIONS: '4' }));
    for (const name of [
      'LLMJSON_SHARD=k/n',
      'JOB_COMPLETION_INDEX and JOB_COMPLETIONS',
      'AWS_BATCH_JOB_ARRAY_INDEX and AWS_BATCH_JOB_ARRAY_SIZE',
      'CI_NODE_INDEX and CI_NODE_TOTAL',
      'CIRCLE_NODE_INDEX and CIRCLE_NODE_TOTAL',
      'BUILDKITE_PARALLEL_JOB and BUILDKITE_PARALLEL_JOB_COUNT',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).toMatch(/Set LLMJSON_SHARD=k\/n \(k from 1\) or give --shard k\/n$/);
  });

  test('an index without its count, a count out of range, values that are not numbers, two schedulers that disagree', () => {
    expect(refusal(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '3' }))).toBe(
      "--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but JOB_COMPLETIONS, the number of shards, is not: set JOB_COMPLETIONS in the pod template's env to the Job's spec.completions",
    );
    expect(refusal(() => shardFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: '3' }))).toContain(
      'elsewhere set LLMJSON_SHARD=k/n instead',
    );
    expect(refusal(() => shardFromEnvironment({ CI_NODE_INDEX: '0', CI_NODE_TOTAL: '3' }))).toBe(
      '--shard auto: CI_NODE_INDEX=0 is out of range for CI_NODE_TOTAL=3 (1 to 3)',
    );
    expect(refusal(() => shardFromEnvironment({ CIRCLE_NODE_INDEX: '3', CIRCLE_NODE_TOTAL: '3' }))).toBe(
      '--shard auto: CIRCLE_NODE_INDEX=3 is out of range for CIRCLE_NODE_TOTAL=3 (0 to 2)',
    );
    expect(refusal(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: 'x', JOB_COMPLETIONS: '2' }))).toBe(
      '--shard auto: JOB_COMPLETION_INDEX=x is not a whole number',
    );
    expect(
      refusal(() => shardFromEnvironment({ BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '0' })),
    ).toBe('--shard auto: BUILDKITE_PARALLEL_JOB_COUNT=0: there must be at least 1 shard');
    expect(
      refusal(() =>
        shardFromEnvironment({
          JOB_COMPLETION_INDEX: '0',
          JOB_COMPLETIONS: '2',
          CI_NODE_INDEX: '2',
          CI_NODE_TOTAL: '2',
        }),
      ),
    ).toBe(
      '--shard auto: JOB_COMPLETION_INDEX and JOB_COMPLETIONS say 1/2 but CI_NODE_INDEX and CI_NODE_TOTAL say 2/2: set LLMJSON_SHARD=k/n to choose',
    );
    // Two that agree: the first is named.
    expect(
      shardFromEnvironment({ JOB_COMPLETION_INDEX: '1', JOB_COMPLETIONS: '2', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '2' })
        .note,
    ).toContain('JOB_COMPLETION_INDEX=1');
  });
});

describe('PositionSet', () => {
  test('a bitset: add once, has, size; grows past its first kilobyte', () => {
    const set = new PositionSet();
    expect(set.add(5)).toBe(true);
    expect(set.add(5)).toBe(false);
    expect(set.add(1_000_003)).toBe(true);
    expect(set.has(5) && set.has(1_000_003)).toBe(true);
    expect(set.has(4) || set.has(1_000_002) || set.has(50_000_000)).toBe(false);
    expect(set.size).toBe(2);
  });
});

describe('readResume', () => {
  const line = (index: number, extra: Partial<RecordResult> = {}) =>
    `${JSON.stringify({
      index,
      id: `r${index}`,
      model: 'm',
      status: 'valid',
      scores: { strict: 'valid', salvage: 'valid', coerce: 'valid' },
      values: 1,
      diagnostics: 0,
      ...extra,
    })}\n`;
  const file = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'llmjson-resume-')), 'out.jsonl');
    writeFileSync(path, text);
    return path;
  };
  const options = { shard: { index: 0, count: 1 }, jsonschemabench: false, shown: 'out.jsonl' };

  test('folds every complete line, cuts a last line without its newline off the file', async () => {
    const whole = line(0) + line(1) + line(2);
    const path = file(`${whole}${line(3).slice(0, 20)}`);
    const seen: number[] = [];
    const state = await readResume(path, options, (r) => seen.push(r.index));
    expect(seen).toEqual([0, 1, 2]);
    expect(state.finished.size).toBe(3);
    expect([0, 1, 2, 3].map((p) => state.finished.has(p))).toEqual([true, true, true, false]);
    expect(state.cutBytes).toBe(20);
    expect(readFileSync(path, 'utf8')).toBe(whole);
    // A cut line that happens to parse is cut all the same: its newline never made it.
    const parses = file(line(0) + line(1).trimEnd());
    expect((await readResume(parses, options, () => {})).finished.size).toBe(1);
    expect(readFileSync(parses, 'utf8')).toBe(line(0));
    // Nothing but a cut line: the file is emptied.
    const only = file('{"index":');
    expect((await readResume(only, options, () => {})).finished.size).toBe(0);
    expect(readFileSync(only, 'utf8')).toBe('');
  });

  test('lines spanning chunks (a 200 KB model name) are read whole', async () => {
    const big = 'M'.repeat(200_000);
    const path = file(line(0, { model: big }) + line(1));
    const models: string[] = [];
    await readResume(path, options, (r) => models.push(r.model));
    expect(models).toEqual([big, 'm']);
  });

  test('refused: a missing --out, a line of something else, a position of another shard, twice, other statuses', async () => {
    const rejects = async (path: string, message: string, opts = options) => {
      const before = readFileSync(path, 'utf8');
      await expect(readResume(path, opts, () => {})).rejects.toThrow(message);
      expect(readFileSync(path, 'utf8')).toBe(before);
    };
    await expect(readResume('/nonexistent/out.jsonl', options, () => {})).rejects.toThrow(
      '--resume: --out out.jsonl does not exist, so there is nothing to resume: run without --resume to start',
    );
    await rejects(
      file(`${line(0)}{"id": "r1", "model": "m", "text": "{}"}\n`),
      '--resume: --out out.jsonl line 2 is not a result line of llmjson batch (no "index" position): give the --out of the run to resume, or another --out to start afresh',
    );
    await rejects(file(`${line(0)}\n`), 'line 2 is not a result line of llmjson batch (not JSON)');
    await rejects(file(line(0, { status: 'parsed' as never })), '(no "status" of llmjson batch)');
    await rejects(file(line(0) + line(0)), 'line 2 is not a result line of llmjson batch (position 0 appears twice)');
    await rejects(
      file(line(1) + line(3)),
      '--resume: --out out.jsonl line 2 is the result of position 3, which is not in shard 2/3: resume with the --shard of the run that wrote it',
      { ...options, shard: { index: 1, count: 3 } },
    );
    await rejects(
      file(line(0)),
      '--resume: --out out.jsonl was written without --statuses jsonschemabench: resume with the settings of the run that wrote it',
      { ...options, jsonschemabench: true },
    );
  });
});
