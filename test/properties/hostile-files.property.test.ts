/**
 * Special files as every file argument of every command: `/dev/zero`, `/dev/null`, a FIFO with
 * no writer, a directory, a symlink to nothing, a socket. None may hang or crash the command.
 *
 * - A file read whole (a schema, `--prompts`, `--vars`, `--tools`, `check`'s configurations and
 *   the entries of its directory, a batch records file and the `.txt` entries of a batch
 *   directory) must be a regular file: anything else is exit 2 with one line on stderr, before
 *   any input is read. The one exception is a directory given as a batch input, which is what
 *   a directory of `.txt` responses is (empty here: exit 0).
 * - A streamed input (a mode's or `tools`' `[file]`) is read as a stream, so `/dev/null` reads
 *   as an empty file does (the same exit code); a directory, a symlink to nothing and a socket
 *   are exit 2 with one line. A FIFO and `/dev/zero` are streams like any other there (a FIFO
 *   waits for its writer, as `cat` does), so they are not generated for those arguments.
 * - An output (`--output-file`, `--out`, `--report`, `-o`) that is a directory or a socket is
 *   exit 2 with one line; `/dev/null`, `/dev/zero` and a symlink to nothing are written as a
 *   shell's `>` writes them (the same exit code as a new file). A FIFO waits for its reader, as
 *   `>` does, so it is not generated there. `--report` picks its format by the extension, so
 *   there the special file is reached through the name `report.json` (renamed to it, or a
 *   symlink of that name to `/dev/null`, `/dev/zero` or the socket).
 *
 * The built command runs in a child process with a deadline, so a regression fails the property
 * rather than hanging the suite (a synchronous read of `/dev/zero` cannot be interrupted in-process).
 * Runs: a third of the hostile campaign's (each run starts a process).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPOSITORY } from '../support/cli.js';
import { hostileRuns } from '../support/hostile.js';

const BIN = join(REPOSITORY, 'packages/cli/bin/llmjson.js');
const DEADLINE_MS = 20_000;

const KINDS = ['dev-zero', 'dev-null', 'fifo', 'directory', 'dangling', 'socket'] as const;
type Kind = (typeof KINDS)[number];

/** How an argument uses its file: read whole, a batch input, streamed, or written. */
type Use = 'whole' | 'batch-input' | 'stream' | 'output' | 'report';

interface Case {
  readonly name: string;
  readonly use: Use;
  /** The command line, given the special file's path (or the entry's directory for `entry` cases). */
  readonly argv: (file: string) => string[];
  /** The name, under the run's folder, to point at the special file (a directory entry), if any. */
  readonly entry?: string;
}

const server = ['--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];

const CASES: readonly Case[] = [
  { name: 'jsonl --schema', use: 'whole', argv: (f) => ['jsonl', '--schema', f] },
  { name: 'json --schema', use: 'whole', argv: (f) => ['json', 'answer.json', '--schema', f] },
  { name: 'elements --schema', use: 'whole', argv: (f) => ['elements', '--schema', f] },
  { name: 'batch --schema', use: 'whole', argv: (f) => ['batch', 'runs.jsonl', '--schema', f, '--workers', '0'] },
  { name: 'compile', use: 'whole', argv: (f) => ['compile', f] },
  { name: 'check', use: 'whole', argv: (f) => ['check', f] },
  { name: 'check, a directory entry', use: 'whole', entry: 'catalog/b.json', argv: () => ['check', 'catalog'] },
  { name: 'run --prompts', use: 'whole', argv: (f) => ['run', '--prompts', f, '--id', 'x', ...server] },
  {
    name: 'run --vars',
    use: 'whole',
    argv: (f) => ['run', '--prompts', 'prompts.json', '--id', 'x', '--vars', f, ...server],
  },
  { name: 'tools --tools', use: 'whole', argv: (f) => ['tools', '--tools', f] },
  { name: 'batch, a records file', use: 'batch-input', argv: (f) => ['batch', f, '--workers', '0'] },
  {
    name: 'batch, a .txt entry',
    use: 'whole',
    entry: 'responses/x.txt',
    argv: () => ['batch', 'responses', '--workers', '0'],
  },
  { name: 'jsonl [file]', use: 'stream', argv: (f) => ['jsonl', f] },
  { name: 'json [file]', use: 'stream', argv: (f) => ['json', f] },
  { name: 'salvage [file]', use: 'stream', argv: (f) => ['salvage', f] },
  { name: 'partial [file]', use: 'stream', argv: (f) => ['partial', f] },
  { name: 'elements [file]', use: 'stream', argv: (f) => ['elements', f] },
  { name: 'tools [file]', use: 'stream', argv: (f) => ['tools', f, '--tools', 'tools.json'] },
  { name: 'json --output-file', use: 'output', argv: (f) => ['json', 'answer.json', '--output-file', f] },
  { name: 'jsonl --output-file', use: 'output', argv: (f) => ['jsonl', 'runs.jsonl', '--output-file', f] },
  { name: 'compile -o', use: 'output', argv: (f) => ['compile', 'item.schema.json', '-o', f] },
  { name: 'batch --out', use: 'output', argv: (f) => ['batch', 'runs.jsonl', '--out', f, '--workers', '0'] },
  { name: 'batch --report', use: 'report', argv: (f) => ['batch', 'runs.jsonl', '--report', f, '--workers', '0'] },
];

/** Whether the generator offers this kind for this use (see the file's comment for why not). */
function generated(use: Use, kind: Kind): boolean {
  if (use === 'stream') return kind !== 'fifo' && kind !== 'dev-zero';
  if (use === 'output') return kind !== 'fifo';
  if (use === 'report') return kind !== 'fifo';
  return true;
}

const PAIRS = CASES.flatMap((c) => KINDS.filter((k) => generated(c.use, k)).map((kind) => ({ case: c, kind })));

let socketDir: string;
let socketPath: string;
let socketServer: Server;

beforeAll(async () => {
  socketDir = mkdtempSync(join(tmpdir(), 'llmjson-sock-'));
  socketPath = join(socketDir, 's');
  socketServer = createServer();
  await new Promise<void>((done) => socketServer.listen(socketPath, done));
});

afterAll(async () => {
  await new Promise<void>((done) => socketServer.close(() => done()));
  rmSync(socketDir, { recursive: true, force: true });
});

/** A run's folder: the regular files the commands need, and the special file of `kind`. */
function workspace(kind: Kind): { dir: string; special: string } {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-special-'));
  writeFileSync(join(dir, 'answer.json'), '{"a": 1}');
  writeFileSync(join(dir, 'item.schema.json'), '{"type": "object"}');
  writeFileSync(join(dir, 'runs.jsonl'), '{"id": "a", "text": "{}"}\n');
  writeFileSync(join(dir, 'empty'), '');
  const prompts = { prompts: { x: { prompt: 'Say {{t}}', 'response-type': 'text' } } };
  writeFileSync(join(dir, 'prompts.json'), JSON.stringify(prompts));
  writeFileSync(join(dir, 'tools.json'), '{"get_weather": {"type": "object"}}');
  mkdirSync(join(dir, 'responses'));
  writeFileSync(join(dir, 'responses', 'a.txt'), '{}');
  mkdirSync(join(dir, 'catalog'));
  writeFileSync(join(dir, 'catalog', 'a.json'), JSON.stringify(prompts));
  let special: string;
  switch (kind) {
    case 'dev-zero':
      special = '/dev/zero';
      break;
    case 'dev-null':
      special = '/dev/null';
      break;
    case 'socket':
      special = socketPath;
      break;
    case 'fifo':
      special = join(dir, 'special');
      expect(spawnSync('mkfifo', [special]).status).toBe(0);
      break;
    case 'directory':
      special = join(dir, 'special');
      mkdirSync(special);
      break;
    case 'dangling':
      special = join(dir, 'special');
      symlinkSync(join(dir, 'nowhere'), special);
      break;
  }
  return { dir, special };
}

function run(argv: readonly string[], cwd: string) {
  return spawnSync(process.execPath, [BIN, ...argv], {
    cwd,
    input: '',
    encoding: 'utf8',
    timeout: DEADLINE_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 16 * 1024 * 1024,
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('special files as every file argument of every command', () => {
  test('exit 2 with one line, or the code a regular file gets; never a hang or an internal error', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PAIRS), ({ case: c, kind }) => {
        const { dir, special } = workspace(kind);
        try {
          if (c.entry !== undefined) symlinkSync(special, join(dir, c.entry));
          let target = special;
          if (c.use === 'report') {
            target = join(dir, 'report.json');
            if (special === join(dir, 'special')) renameSync(special, target);
            else symlinkSync(special, target);
          }
          const argv = c.argv(target);
          const label = `${argv.join(' ')} (${kind})`;
          const r = run(argv, dir);
          expect(r.signal, `${label}: still running after ${DEADLINE_MS} ms`).toBe(null);
          expect(r.stderr, label).not.toContain('internal error');
          const usage = () => {
            expect(r.status, `${label}\n${r.stderr}`).toBe(2);
            expect(lines(r.stderr), label).toHaveLength(1);
            expect(r.stdout, label).toBe('');
          };
          /** The same command with a regular file in its place: an empty file read, a new file written. */
          const asRegular = (name: string) => {
            const regular = run(c.argv(name), dir);
            expect(r.status, `${label}\n${r.stderr}\nas a regular file: ${regular.stderr}`).toBe(regular.status);
          };
          switch (c.use) {
            case 'whole':
              usage();
              break;
            case 'batch-input':
              // A directory is what a batch of .txt responses is: this one holds none.
              if (kind === 'directory') expect(r.status, `${label}\n${r.stderr}`).toBe(0);
              else usage();
              break;
            case 'stream':
              if (kind === 'dev-null') asRegular('empty');
              else usage();
              break;
            case 'output':
              if (kind === 'directory' || kind === 'socket') usage();
              else asRegular('fresh-output');
              break;
            case 'report':
              if (kind === 'directory' || kind === 'socket') usage();
              else asRegular('fresh-output.json');
              break;
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: Math.max(10, Math.ceil(hostileRuns / 3)) },
    );
  }, 900_000);
});
