/**
 * Runs the `llmjson` command in-process (`main(argv, io)`), its stdin fed the given chunks,
 * and collects what it writes: the exit code, stdout, stderr, and stdout read as JSON lines.
 */
import { PassThrough, Readable, type Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '@llmjson/cli';

export const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  /** stdout as JSON lines (for the modes; other commands print text). */
  readonly lines: unknown[];
}

export interface CliOptions {
  /** What stdin delivers, in this order (strings are sent as UTF-8 bytes). Default: nothing, and stdin never ends. */
  readonly stdin?: readonly (string | Uint8Array)[];
  /** Working directory. Default: the repository. */
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** A stderr of one's own (a fake terminal, say). */
  readonly stderr?: Writable;
}

export async function runCli(argv: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = options.stderr ?? new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  // Without input, stdin stays open: a command that reads it would hang the test, not pass it.
  const stdin =
    options.stdin === undefined ? new PassThrough() : Readable.from(options.stdin.map((c) => Buffer.from(c)));
  const code = await main(argv, { stdin, stdout, stderr, cwd: options.cwd ?? REPOSITORY, env: options.env ?? {} });
  return {
    code,
    out,
    err,
    get lines(): unknown[] {
      return out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as unknown);
    },
  };
}
