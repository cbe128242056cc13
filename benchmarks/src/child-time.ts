/**
 * Timing a command in a child process, for the scenarios that run the CLI against a user's own
 * script (cli-big, batch-scale): GNU time (`/usr/bin/time -f '%e %M %U %S'`) gives the wall seconds,
 * the peak resident set and the CPU seconds of every thread (user and system), stdout goes to
 * /dev/null. Child processes, so the harness's in-process
 * rounds do not apply: each scenario runs its entrants a few times, interleaved, and reports
 * medians.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

const TIME = '/usr/bin/time';

export interface Measured {
  readonly seconds: number;
  readonly rssMb: number;
  /** CPU seconds of the process and its threads, user and system. */
  readonly cpuSeconds: number;
}

/** Throws, saying what to install, when GNU time is not there. */
export function requireGnuTime(): void {
  try {
    execFileSync(TIME, ['-f', '%e', 'true'], { stdio: 'ignore' });
  } catch {
    throw new Error('this scenario needs GNU time at /usr/bin/time (Debian: apt-get install -y time)');
  }
}

/**
 * Runs `args` under GNU time, stdin from `input` (none when undefined), stdout to /dev/null.
 * An exit status outside `ok` is an error (the run did not do the work).
 */
export function timeChild(args: readonly string[], input?: string, ok: readonly number[] = [0]): Measured {
  const stdin = input === undefined ? 'ignore' : openSync(input, 'r');
  const devnull = openSync('/dev/null', 'w');
  try {
    const result = spawnSync(TIME, ['-f', 'TIME %e %M %U %S', ...args], {
      stdio: [stdin, devnull, 'pipe'],
      maxBuffer: 1 << 30,
    });
    const stderr = result.stderr.toString();
    const match = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
    if (match === null) throw new Error(`no timing from ${args.join(' ')}: ${stderr.slice(-600)}`);
    if (result.status === null || !ok.includes(result.status)) {
      throw new Error(`${args.join(' ')} exited ${result.status}: ${stderr.slice(-600)}`);
    }
    return {
      seconds: Number(match[1]),
      rssMb: Number(match[2]) / 1024,
      cpuSeconds: Number(match[3]) + Number(match[4]),
    };
  } finally {
    if (typeof stdin === 'number') closeSync(stdin);
    closeSync(devnull);
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}
