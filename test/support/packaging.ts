/**
 * What the packaging tests (test/packaging/*.test.ts) share: running a command without a shell
 * and collecting what it printed, and a failure message that names the command and shows the
 * end of its output. Each test packs the packages, installs the tarballs with npm in a fresh
 * project and runs commands there; a hung install is killed after `timeoutMs`.
 */
import { spawn } from 'node:child_process';

/** Installs from the registry take a while on a cold cache. */
const SLOW = 300_000;

export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command without a shell and collects its output (async: vitest's worker stays responsive). */
export function run(command: string, args: readonly string[], cwd: string, timeoutMs = SLOW): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A failure message that says which command failed and shows the end of what it printed. */
export function explain(what: string, result: Result): string {
  const tail = (text: string) => text.trim().split('\n').slice(-40).join('\n');
  return `${what}: exit ${result.code}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`;
}
