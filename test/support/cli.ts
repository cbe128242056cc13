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
  /**
   * What stdin delivers, in this order (strings are sent as UTF-8 bytes): a list, or a generator
   * (one that never ends tests that a command stops reading by itself). Default: nothing, and
   * stdin never ends.
   */
  readonly stdin?: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;
  /** Working directory. Default: the repository. */
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** A stderr of one's own (a fake terminal, say). */
  readonly stderr?: Writable;
}

/** The chunks as Buffers; a list or a generator is read as it is (synchronously when it can be). */
function asBytes(
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
): Iterable<Buffer> | AsyncIterable<Buffer> {
  if (Symbol.iterator in chunks) {
    return (function* () {
      for (const chunk of chunks) yield Buffer.from(chunk);
    })();
  }
  return (async function* () {
    for await (const chunk of chunks) yield Buffer.from(chunk);
  })();
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
  const stdin = options.stdin === undefined ? new PassThrough() : Readable.from(asBytes(options.stdin));
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
