/**
 * `llmjson batch` on several threads (batch-command.ts `threadJudge`, batch-pool-worker.ts): each
 * thread reads the inputs itself and judges the tasks it owns; the main thread writes every task's
 * lines in order. Inputs here span many tasks (JSONL blocks of BLOCK_BYTES, `.txt` responses
 * RECORDS_PER_TASK at a time), so that every thread owns some, with problems, blank lines, shards
 * and resumed positions inside the tasks a worker owns.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { type BlockContext, BlockJudge, type BlockResult } from '../src/batch-block.js';
import { threadJudge } from '../src/batch-command.js';
import { BLOCK_BYTES } from '../src/batch-lines.js';
import { type BatchInput, scanInputs } from '../src/batch-records.js';
import { ReportBuilder, type ReportSettings } from '../src/batch-report.js';
import { WHOLE_RUN } from '../src/batch-shard.js';
import { RECORDS_PER_TASK, readTasks, type TaskSource } from '../src/batch-tasks.js';
import { UsageError } from '../src/exit-codes.js';

const BIN = fileURLToPath(new URL('../bin/llmjson.js', import.meta.url));
const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
const TEXTS = ['{"n": 1}', 'Sure:\n```json\n{"n": 2}\n```', '{"n": 3, "more": [1,', '', 'I cannot.', '{"n": "x"}'];

/** Two JSONL files around a directory of `.txt` responses, each input several tasks long. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-threads-'));
  writeFileSync(join(dir, 'n.schema.json'), JSON.stringify(SCHEMA));
  const lines: string[] = [];
  for (let i = 0; i < 9000; i++) {
    // Padding makes the file several blocks long; every 97th line is blank, two are not records.
    const pad = 'x'.repeat(i % 211);
    lines.push(JSON.stringify({ id: `a${i}`, model: `m${i % 4}`, note: pad, text: TEXTS[i % TEXTS.length] }));
    if (i % 97 === 0) lines.push('   ');
    if (i === 4321 || i === 7777 || i === 8990) lines.push(`{"id": "broken-${i}"`);
  }
  writeFileSync(join(dir, 'a.jsonl'), `${lines.join('\n')}\n`);
  mkdirSync(join(dir, 'txt'));
  for (let i = 0; i < 2 * RECORDS_PER_TASK + 57; i++) {
    writeFileSync(join(dir, 'txt', `t${String(i).padStart(4, '0')}.txt`), TEXTS[(i * 7) % TEXTS.length] as string);
  }
  const tail = Array.from({ length: 3 }, (_, i) => JSON.stringify({ id: `b${i}`, model: 'm9', text: '{"n": 9}' }));
  writeFileSync(join(dir, 'b.jsonl'), `${tail.join('\n')}\n`);
  return dir;
}

function run(dir: string, args: readonly string[]) {
  const r = spawnSync(process.execPath, [BIN, 'batch', ...args], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 });
  expect(r.status, r.stderr).toBe(0);
  return r;
}

const INPUTS = ['a.jsonl', 'txt', 'b.jsonl', '--schema', 'n.schema.json'];

describe('batch on several threads', () => {
  test('the inputs span many tasks of each thread', () => {
    const dir = workspace();
    expect(statSync(join(dir, 'a.jsonl')).size).toBeGreaterThan(8 * BLOCK_BYTES);
  });

  test('two threads write what one writes: result lines, stderr (problems, formats) and report, also with --shard and --resume', () => {
    const dir = workspace();
    // The last: a.jsonl's last block (a line in it that is not a record) right before b.jsonl,
    // whose format is told there: stderr in the same order still.
    for (const extra of [[], ['--shard', '2/3'], ['--mode', 'jsonl', '--coerce'], ['--', 'a.jsonl', 'b.jsonl']]) {
      const inputs = extra[0] === '--' ? [...extra.slice(1), '--schema', 'n.schema.json'] : [...INPUTS, ...extra];
      const one = run(dir, [...inputs, '--workers', '0', '--report', 'one.json']);
      const two = run(dir, [...inputs, '--workers', '2', '--report', 'two.json']);
      const what = extra.join(' ') || 'no flags';
      expect(one.stdout.split('\n').length, what).toBeGreaterThan(3000);
      expect(two.stdout, what).toBe(one.stdout);
      expect(two.stderr, what).toBe(one.stderr);
      expect(readFileSync(join(dir, 'two.json'), 'utf8'), what).toBe(readFileSync(join(dir, 'one.json'), 'utf8'));
    }
    expect(run(dir, [...INPUTS, '--workers', '2']).stderr.match(/a\.jsonl:\d+: skipped: not JSON/g)).toHaveLength(3);

    // --resume from an --out cut inside a block, and with a half line: the rest judged on two threads.
    const full = run(dir, [...INPUTS, '--workers', '0', '--out', 'full.jsonl', '--report', 'full.json']);
    expect(full.stdout).toBe('');
    const whole = readFileSync(join(dir, 'full.jsonl'), 'utf8');
    const kept = whole.split('\n').slice(0, 5555);
    writeFileSync(join(dir, 'part.jsonl'), `${kept.join('\n')}\n${(whole.split('\n')[5555] as string).slice(0, 40)}`);
    const resumed = run(dir, [...INPUTS, '--workers', '2', '--out', 'part.jsonl', '--report', 'part.json', '--resume']);
    expect(resumed.stderr).toContain('--resume: 5555 records already in --out (an unfinished last line cut off)');
    expect(readFileSync(join(dir, 'part.jsonl'), 'utf8')).toBe(whole);
    expect(JSON.parse(readFileSync(join(dir, 'part.json'), 'utf8'))).toEqual(
      JSON.parse(readFileSync(join(dir, 'full.json'), 'utf8')),
    );
  }, 120_000);
});

const CONTEXT: BlockContext = {
  judge: { mode: 'json', salvage: true, statuses: 'llmjson', schema: SCHEMA },
  shard: WHOLE_RUN,
  paths: {},
};

function settings(inputs: readonly string[]): ReportSettings {
  return { mode: 'json', salvage: true, coerce: false, format: 'auto', statuses: 'llmjson', inputs };
}

const textOf = (result: BlockResult) =>
  typeof result.text === 'string' ? result.text : Buffer.from(result.text).toString('utf8');

describe('threadJudge', () => {
  test('three threads (two workers) give the lines and the report one thread gives, task by task', async () => {
    const dir = workspace();
    const names = ['a.jsonl', 'txt', 'b.jsonl'];
    const source: TaskSource = { inputs: scanInputs(dir, names), shard: WHOLE_RUN };

    const alone = new ReportBuilder(settings(names));
    const here = new BlockJudge(CONTEXT);
    let expected = '';
    for await (const { task } of readTasks(source, { owns: () => true })) {
      expected += textOf(here.judge(task as NonNullable<typeof task>, alone));
    }

    const builder = new ReportBuilder(settings(names));
    const judge = threadJudge(3, CONTEXT, settings(names), source, builder);
    let text = '';
    const owners = new Set<number>();
    try {
      for await (const { number, task } of readTasks(source, { owns: (n) => judge.owns(n) })) {
        expect(task === undefined, `task ${number}`).toBe(number % 3 !== 0);
        owners.add(number % 3);
        text += textOf(await judge.judge(number, task));
        judge.written(number);
      }
      for (const report of await judge.reports()) builder.addReport(report);
    } finally {
      await judge.close();
    }
    expect(owners).toEqual(new Set([0, 1, 2]));
    expect(text).toBe(expected);
    expect(builder.report()).toEqual(alone.report());
  }, 60_000);

  test("a worker that cannot read its input fails the run at its task's turn, with the message this thread would give", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-threads-'));
    mkdirSync(join(dir, 'gpt'));
    // Task 0 (this thread's) is there; task 1 (the worker's) was removed after the scan.
    const files = Array.from({ length: 2 * RECORDS_PER_TASK }, (_, i) => ({ name: `r${i}.txt`, size: 8 }));
    for (const { name } of files.slice(0, RECORDS_PER_TASK)) writeFileSync(join(dir, 'gpt', name), '{"n": 1}');
    const inputs: BatchInput[] = [{ kind: 'texts', path: join(dir, 'gpt'), files }];
    const source: TaskSource = { inputs, shard: WHOLE_RUN };
    const judge = threadJudge(2, CONTEXT, settings(['gpt']), source, new ReportBuilder(settings(['gpt'])));
    try {
      const tasks = readTasks(source, { owns: (n) => judge.owns(n) });
      const first = await tasks.next();
      const own = first.value as { number: number; task: NonNullable<unknown> };
      expect(textOf(await judge.judge(0, own.task as never)).split('\n')).toHaveLength(RECORDS_PER_TASK + 1);
      const failed = judge.judge(1, undefined);
      await expect(failed).rejects.toBeInstanceOf(UsageError);
      await expect(failed).rejects.toThrow(`cannot read gpt/r${RECORDS_PER_TASK}.txt`);
      // Every later task of a failed run fails the same way, and so does asking for the reports.
      await expect(judge.judge(3, undefined)).rejects.toThrow('cannot read');
      await expect(judge.reports()).rejects.toThrow('cannot read');
    } finally {
      await judge.close();
    }
  }, 60_000);

  test('threads that number the tasks differently (an input cut or rewritten meanwhile) fail the run, never wait for a task that will not come', async () => {
    const dir = workspace();
    const whole = readFileSync(join(dir, 'a.jsonl'));
    // A copy cut to about half its blocks, at a line's end.
    const cut = whole.subarray(0, whole.indexOf(10, Math.floor(whole.length / 2)) + 1);
    writeFileSync(join(dir, 'cut.jsonl'), cut);
    const long: TaskSource = { inputs: scanInputs(dir, ['a.jsonl']), shard: WHOLE_RUN };
    const short: TaskSource = { inputs: scanInputs(dir, ['cut.jsonl']), shard: WHOLE_RUN };
    const drive = async (workersRead: TaskSource, mainReads: TaskSource) => {
      const judge = threadJudge(
        2,
        CONTEXT,
        settings(['a.jsonl']),
        workersRead,
        new ReportBuilder(settings(['a.jsonl'])),
      );
      try {
        let count = 0;
        for await (const { number, task } of readTasks(mainReads, { owns: (n) => judge.owns(n) })) {
          count = number + 1;
          await judge.judge(number, task);
          judge.written(number);
        }
        judge.ended(count, true);
        await judge.reports();
        return 'reported';
      } finally {
        await judge.close();
      }
    };
    // The worker's file is shorter: the main thread's next task of the worker's fails.
    await expect(drive(short, long)).rejects.toThrow(
      /^the inputs changed while the run read them \(its threads found \d+ and \d+ blocks\)/,
    );
    // The worker's file is longer: it stops at the main thread's last task, and the counts differ.
    await expect(drive(long, short)).rejects.toThrow('the inputs changed while the run read them');
    await expect(drive(long, short)).rejects.toBeInstanceOf(UsageError);
    // The same file on both: the run ends.
    expect(await drive(long, long)).toBe('reported');
  }, 60_000);

  test('a JSONL file is read to the size it had when the run looked at it (one still being written)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-threads-'));
    const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: `r${i}`, model: 'm', text: '{"n": 1}' }));
    writeFileSync(join(dir, 'run.jsonl'), `${lines.join('\n')}\n`);
    const [input] = scanInputs(dir, ['run.jsonl']);
    const four = Buffer.byteLength(`${lines.slice(0, 4).join('\n')}\n`);
    const source: TaskSource = {
      inputs: [{ ...(input as BatchInput & { kind: 'records' }), size: four }],
      shard: WHOLE_RUN,
    };
    let text = '';
    const here = new BlockJudge(CONTEXT);
    for await (const { task } of readTasks(source, { owns: () => true })) {
      text += textOf(here.judge(task as NonNullable<typeof task>, new ReportBuilder(settings(['run.jsonl']))));
    }
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).id),
    ).toEqual(['r0', 'r1', 'r2', 'r3']);
  });

  test("with three threads, one worker's failure fails its own tasks from there on, not the other worker's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-threads-'));
    mkdirSync(join(dir, 'gpt'));
    // Six tasks; task 5 (worker 2's second) was removed after the scan. Worker 2 reads it as soon
    // as it has sent task 2, well before the main thread asks for worker 1's task 4.
    const files = Array.from({ length: 6 * RECORDS_PER_TASK }, (_, i) => ({ name: `r${i}.txt`, size: 8 }));
    for (const { name } of files.slice(0, 5 * RECORDS_PER_TASK)) writeFileSync(join(dir, 'gpt', name), '{"n": 1}');
    const source: TaskSource = { inputs: [{ kind: 'texts', path: join(dir, 'gpt'), files }], shard: WHOLE_RUN };
    const judge = threadJudge(3, CONTEXT, settings(['gpt']), source, new ReportBuilder(settings(['gpt'])));
    const lines: number[] = [];
    try {
      const tasks = readTasks(source, { owns: (n) => judge.owns(n) });
      let failed: unknown;
      for await (const { number, task } of tasks) {
        try {
          lines.push(textOf(await judge.judge(number, task)).split('\n').length - 1);
          judge.written(number);
        } catch (error) {
          failed = error;
          break;
        }
      }
      expect(lines).toEqual([200, 200, 200, 200, 200]);
      expect(failed).toBeInstanceOf(UsageError);
      expect((failed as Error).message).toContain(`cannot read gpt/r${5 * RECORDS_PER_TASK}.txt`);
    } finally {
      await judge.close();
    }
  }, 60_000);

  test('readTasks refuses a JSONL file replaced since the scan, or shorter than it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-threads-'));
    writeFileSync(join(dir, 'run.jsonl'), '{"id": "r0", "model": "m", "text": "{}"}\n');
    const [input] = scanInputs(dir, ['run.jsonl']) as [BatchInput & { kind: 'records' }];
    const drain = async (changed: BatchInput) => {
      for await (const _ of readTasks({ inputs: [changed], shard: WHOLE_RUN }, { owns: () => true })) {
        // read on
      }
    };
    await drain(input);
    const was = input.file as NonNullable<typeof input.file>;
    // Another inode with the same size and time: the same file, as some file systems give it.
    await drain({ ...input, file: { ...was, ino: was.ino + 1 } });
    await expect(drain({ ...input, file: { ...was, ino: was.ino + 1, mtimeMs: was.mtimeMs - 1000 } })).rejects.toThrow(
      'run.jsonl was replaced by another file since the run started: run again',
    );
    await expect(drain({ ...input, size: input.size + 10 })).rejects.toThrow(
      `run.jsonl is shorter (${input.size} bytes) than when the run started (${input.size + 10}): it changed while the run read it`,
    );
  });

  test("the main thread's own reading failing: the tasks read before it are written first, as on one thread", () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-threads-'));
    mkdirSync(join(dir, 'gpt'));
    for (let i = 0; i < 1000; i++) writeFileSync(join(dir, 'gpt', `t${String(i).padStart(4, '0')}.txt`), '{"n": 1}');
    // t0400.txt (task 2, the main thread's with two threads) is gone by the time it is opened.
    const gone = [
      "import fs from 'node:fs';",
      "import { syncBuiltinESMExports } from 'node:module';",
      'const open = fs.openSync;',
      'fs.openSync = (path, ...rest) => {',
      "  if (String(path).endsWith('t0400.txt')) throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });",
      '  return open(path, ...rest);',
      '};',
      'syncBuiltinESMExports();',
    ].join('\n');
    const runs = ['0', '2'].map((workers) =>
      spawnSync(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(gone)}`, BIN, 'batch', 'gpt', '--workers', workers],
        { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 },
      ),
    );
    for (const r of runs) {
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain('cannot read gpt/t0400.txt');
      expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(400);
    }
    expect(runs[1]?.stdout).toBe(runs[0]?.stdout);
    expect(runs[1]?.stderr).toBe(runs[0]?.stderr);
  }, 60_000);
});
