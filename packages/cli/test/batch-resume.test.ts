/**
 * `llmjson batch --resume`: a run killed midway (SIGTERM, as a scheduler stops a job, or SIGINT) and run
 * again with `--resume` ends with the `--out` and the report of an uninterrupted run, byte for
 * byte and deep-equal. The command runs as a child process (the bin, `bin/llmjson.js`): a signal is a
 * process's business. "Midway" is made certain rather than timed: the child is frozen (SIGSTOP)
 * as soon as its `--out` holds a line, checked to be unfinished, then sent SIGTERM and let go.
 * A line cut by a harder kill (SIGKILL while writing) is simulated by appending half a line.
 *
 * The refusals (`--resume` without `--out`, with an `--out` that does not exist, that is an
 * input, or that holds something else) run in-process.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';

const BIN = fileURLToPath(new URL('../bin/llmjson.js', import.meta.url));
const SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' }, items: { type: 'array', items: { type: 'string', maxLength: 40 } } },
  required: ['n'],
};
const RECORDS = 3000;

/** A few thousand records of every status, each with a few kilobytes of text so a run lasts a while. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-resume-'));
  writeFileSync(join(dir, 's.schema.json'), JSON.stringify(SCHEMA));
  const items = JSON.stringify(Array.from({ length: 60 }, (_, i) => `item ${i} of the answer`));
  const texts = [
    `{"n": 1, "items": ${items}}`,
    `Here you are:\n\`\`\`json\n{"n": 2, "items": ${items}}\n\`\`\`\nAnything else?`,
    `{"n": 3, "items": ${items.slice(0, -200)}`,
    '',
    `I cannot do that. ${'Sorry. '.repeat(200)}`,
    `{"n": "4", "items": ${items}}`,
    `{"n": 5, "items": ${items.replace('item 7', 'x'.repeat(50))}}`,
  ];
  const lines: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    lines.push(JSON.stringify({ id: `r${i}`, model: `m${i % 3}`, text: texts[i % texts.length] }));
    if (i % 997 === 0) lines.push('{"id": "not a record"');
  }
  writeFileSync(join(dir, 'run.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

const lineCount = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0);

function runToEnd(dir: string, args: readonly string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r;
}

/**
 * Starts the run, freezes it once `out` holds a line, counts its lines, then sends `signal` and
 * lets it go. `out` is the run's --out, or with `stdout`, the file its stdout is written to.
 */
async function killMidway(
  dir: string,
  args: readonly string[],
  out: string,
  signal: NodeJS.Signals,
  { stdout = false }: { stdout?: boolean } = {},
) {
  const fd = stdout ? openSync(join(dir, out), 'w') : 'ignore';
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ['ignore', fd, 'pipe'] });
  if (typeof fd === 'number') closeSync(fd);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  const path = join(dir, out);
  while (!(existsSync(path) && statSync(path).size > 0)) {
    await new Promise((wake) => setTimeout(wake, 2));
    if (child.exitCode !== null) break;
  }
  child.kill('SIGSTOP');
  const before = lineCount(path);
  child.kill(signal);
  child.kill('SIGCONT');
  const end = await exited;
  return { ...end, stderr, before };
}

describe('batch --resume after SIGTERM or SIGINT', () => {
  for (const [workers, signal, code] of [
    ['0', 'SIGTERM', 143],
    ['2', 'SIGINT', 130],
  ] as const) {
    test(`--workers ${workers}, ${signal}: exit ${code}, whole lines; the resumed --out is byte-identical and the report deep-equal to one uninterrupted run`, async () => {
      const dir = workspace();
      const common = ['batch', 'run.jsonl', '--schema', 's.schema.json', '--workers', workers];
      runToEnd(dir, [...common, '--out', 'full.jsonl', '--report', 'full.json']);
      const full = readFileSync(join(dir, 'full.jsonl'), 'utf8');
      expect(lineCount(join(dir, 'full.jsonl'))).toBe(RECORDS);

      const args = [...common, '--out', 'part.jsonl', '--report', 'part.json'];
      const killed = await killMidway(dir, args, 'part.jsonl', signal);
      expect(killed.before, 'frozen before the run ended').toBeLessThan(RECORDS);
      expect(killed.code, killed.stderr).toBe(code);
      expect(killed.stderr).toContain(`llmjson batch: stopped by ${signal} after `);
      expect(killed.stderr).toContain('run the same command with --resume to continue');
      const part = readFileSync(join(dir, 'part.jsonl'), 'utf8');
      const done = lineCount(join(dir, 'part.jsonl'));
      expect(done).toBeGreaterThan(0);
      expect(done).toBeLessThan(RECORDS);
      // Whole lines only, and the first ones of the uninterrupted run.
      expect(part.endsWith('\n')).toBe(true);
      expect(full.startsWith(part)).toBe(true);
      expect(existsSync(join(dir, 'part.json')), 'no report for part of a run').toBe(false);

      // A harder kill would have left half a line: --resume cuts it off.
      const next = full.slice(part.length).split('\n')[0] as string;
      appendFileSync(join(dir, 'part.jsonl'), next.slice(0, Math.floor(next.length / 2)));
      const resumed = runToEnd(dir, [...args, '--resume']);
      expect(resumed.stderr).toContain(
        `llmjson batch: --resume: ${done} records already in --out (an unfinished last line cut off)`,
      );
      expect(readFileSync(join(dir, 'part.jsonl'), 'utf8')).toBe(full);
      expect(JSON.parse(readFileSync(join(dir, 'part.json'), 'utf8'))).toEqual(
        JSON.parse(readFileSync(join(dir, 'full.json'), 'utf8')),
      );
      // Resuming a finished run judges nothing and changes nothing.
      runToEnd(dir, [...args, '--resume']);
      expect(readFileSync(join(dir, 'part.jsonl'), 'utf8')).toBe(full);
      expect(readFileSync(join(dir, 'part.json'), 'utf8')).toBe(readFileSync(join(dir, 'full.json'), 'utf8'));
    }, 120_000);
  }
});

describe('batch: a signal stops a run judged on the main thread', () => {
  // A directory of `.txt` responses is read synchronously, and stdout is a file here (written
  // synchronously), so the run must let the event loop turn between blocks to hear the signal.
  test('a small directory of .txt responses (judged on the main thread by default), printed to stdout: SIGTERM stops it after whole lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-signal-'));
    writeFileSync(join(dir, 's.schema.json'), JSON.stringify(SCHEMA));
    mkdirSync(join(dir, 'model-a'));
    const items = JSON.stringify(Array.from({ length: 60 }, (_, i) => `item ${i} of the answer`));
    const count = 4000;
    for (let i = 0; i < count; i++) {
      const name = `r${String(i).padStart(5, '0')}.txt`;
      writeFileSync(join(dir, 'model-a', name), `Here:\n\`\`\`json\n{"n": ${i}, "items": ${items}}\n\`\`\`\n`);
    }
    const args = ['batch', 'model-a', '--schema', 's.schema.json'];
    const killed = await killMidway(dir, args, 'printed.jsonl', 'SIGTERM', { stdout: true });
    expect(killed.before, 'frozen before the run ended').toBeLessThan(count);
    expect(killed.stderr).not.toContain('worker');
    expect(killed.code, killed.stderr).toBe(143);
    expect(killed.stderr).toContain('llmjson batch: stopped by SIGTERM after ');
    expect(killed.stderr).toContain('the results printed are complete lines');
    const printed = readFileSync(join(dir, 'printed.jsonl'), 'utf8');
    const lines = lineCount(join(dir, 'printed.jsonl'));
    expect(printed.endsWith('\n')).toBe(true);
    expect(lines).toBeGreaterThan(0);
    expect(lines).toBeLessThan(count);
    const results = printed
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; status: string });
    expect(results.map((r) => r.id)).toEqual(Array.from({ length: lines }, (_, i) => `r${String(i).padStart(5, '0')}`));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set(['salvaged']));
  }, 120_000);
});

describe('batch --resume: refused before anything is written', () => {
  const usage = async (argv: string[], dir: string, message: string) => {
    const r = await runCli(argv, { cwd: dir });
    expect(r.code, r.err).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(`llmjson: ${message}\n`);
  };

  test('without --out, with an --out that does not exist, is an input, or holds other lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-resume-'));
    const input = `${JSON.stringify({ id: 'a', model: 'm', text: '{}' })}\n`;
    writeFileSync(join(dir, 'run.jsonl'), input);
    await usage(
      ['batch', 'run.jsonl', '--resume', '--workers', '0'],
      dir,
      '--resume continues the results in --out: give the --out of the run to resume',
    );
    await usage(
      ['batch', 'run.jsonl', '--resume', '--out', 'out.jsonl', '--workers', '0'],
      dir,
      '--resume: --out out.jsonl does not exist, so there is nothing to resume: run without --resume to start',
    );
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
    await usage(
      ['batch', 'run.jsonl', '--resume', '--out', 'run.jsonl', '--workers', '0'],
      dir,
      '--out run.jsonl is the same file as the input run.jsonl: writing it would destroy what is to be read; write somewhere else',
    );
    expect(readFileSync(join(dir, 'run.jsonl'), 'utf8')).toBe(input);
    // The records file given as --out of another run: its lines are records, not results.
    writeFileSync(join(dir, 'copy.jsonl'), `${input}{"id": "b", "te`);
    await usage(
      ['batch', 'run.jsonl', '--resume', '--out', 'copy.jsonl', '--workers', '0'],
      dir,
      '--resume: --out copy.jsonl line 1 is not a result line of llmjson batch (no "index" position): give the --out of the run to resume, or another --out to start afresh',
    );
    expect(readFileSync(join(dir, 'copy.jsonl'), 'utf8')).toBe(`${input}{"id": "b", "te`);
    // Another shard's results.
    const first = await runCli(['batch', 'run.jsonl', '--out', 'one.jsonl', '--workers', '0'], { cwd: dir });
    expect(first.code).toBe(0);
    await usage(
      ['batch', 'run.jsonl', '--resume', '--out', 'one.jsonl', '--shard', '2/2', '--workers', '0'],
      dir,
      '--resume: --out one.jsonl line 1 is the result of position 0, which is not in shard 2/2: resume with the --shard of the run that wrote it',
    );
  });
});
