/**
 * The fleet side of `llmjson batch`: which records a run takes (`--shard k/n`, `--shard auto`)
 * and which it has already finished (`--resume`).
 *
 * Invariants:
 * - A shard is a pure function of the position: shard k of n (k counts from 1) takes the items
 *   whose position p has `p mod n == k - 1`. Nothing else (timing, workers, machine) enters, so
 *   n machines given the same inputs cover every item exactly once, and a rerun of shard k takes
 *   the same items. Round-robin rather than contiguous ranges because the total is not known
 *   before the inputs are read, and because a file sorted by model then spreads every model over
 *   every shard (the shards finish at about the same time).
 * - `--shard auto` reads exactly one scheduler's variables; it says on stderr which (the caller
 *   prints `ShardChoice.note`), and refuses, naming every variable it looked for, when none is set
 *   or two disagree. A scheduler's index is converted to k (Kubernetes, AWS Batch, CircleCI and
 *   Buildkite count from 0; GitLab from 1).
 * - `--resume` trusts only complete lines: a last line without its newline (the run was killed
 *   while writing it) is cut off the file before anything is appended, and every other line must
 *   be a result line of this command for this shard, or the resume is refused (exit 2) before
 *   anything is written. Finished positions are kept in a bitset (positions are dense: a million
 *   records cost 125 KB), never in a Set of numbers.
 */

import { closeSync, createReadStream, ftruncateSync, openSync, statSync } from 'node:fs';
import { quoteInput } from '@llmjson/core/internal';
import { RECORD_STATUSES, type RecordResult, SCORINGS } from './batch-types.js';
import { UsageError } from './exit-codes.js';
import { fileProblem } from './output-paths.js';

/** One share of a run's items: the zero-based `index` of `count` (shard `index + 1` of `count`). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** The whole run as one shard. */
export const WHOLE_RUN: Shard = { index: 0, count: 1 };

/** Whether the item at `position` belongs to `shard`. */
export function inShard(shard: Shard, position: number): boolean {
  return position % shard.count === shard.index;
}

/** `k/n` as the user writes it. */
export function shardText(shard: Shard): string {
  return `${shard.index + 1}/${shard.count}`;
}

const WHOLE_NUMBER = /^\d+$/;

/**
 * `k/n` (k counts from 1) into a Shard; `label` names where the text came from in the messages
 * (`--shard`, `LLMJSON_SHARD=`). Throws a UsageError that says what to write.
 */
export function parseShard(text: string, label = '--shard'): Shard {
  const shown = `${label}${label.endsWith('=') ? '' : ' '}${quoteInput(text)}`;
  const match = /^\s*([^/\s]*)\s*\/\s*([^/\s]*)\s*$/.exec(text);
  const [k, n] = match === null ? [] : [match[1] as string, match[2] as string];
  if (k === undefined || n === undefined || !WHOLE_NUMBER.test(k) || !WHOLE_NUMBER.test(n)) {
    throw new UsageError(
      `${shown}: write k/n, the k-th of n shards counting from 1 (2/8 is the second of 8)${label === '--shard' ? ', or auto to read it from the scheduler' : ''}`,
    );
  }
  const index = Number(k);
  const count = Number(n);
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new UsageError(`${shown}: n, the number of shards, must be at least 1 (1/1 is the whole run)`);
  }
  if (!Number.isSafeInteger(index) || index < 1) {
    throw new UsageError(`${shown}: k counts from 1: the shards of ${count} are 1/${count} to ${count}/${count}`);
  }
  if (index > count) {
    throw new UsageError(
      `${shown}: there ${count === 1 ? 'is only 1 shard' : `are only ${count} shards`}: k goes from 1 to ${count}`,
    );
  }
  return { index: index - 1, count };
}

/** A scheduler whose variables `--shard auto` reads. */
interface Scheduler {
  readonly name: string;
  /** The variable holding this job's index. */
  readonly index: string;
  /** The variable holding the number of jobs. */
  readonly count: string;
  /** Whether `index` counts from 1 (GitLab) rather than 0. */
  readonly fromOne: boolean;
  /** What to do when the index is set and the count is not. */
  readonly countHint: string;
}

/**
 * The schedulers `--shard auto` knows, in the order their variables are read. Kubernetes sets
 * only the index (`JOB_COMPLETION_INDEX`); a Job's `spec.completions` is not visible to its pods,
 * so the manifest passes it in `JOB_COMPLETIONS` (docs/guide/evaluation.md). AWS Batch sets both
 * for every child of an array job; its variables have a reserved prefix, so a user cannot set the
 * size by hand (hence LLMJSON_SHARD as the way out).
 */
export const SCHEDULERS: readonly Scheduler[] = [
  {
    name: 'a Kubernetes Indexed Job',
    index: 'JOB_COMPLETION_INDEX',
    count: 'JOB_COMPLETIONS',
    fromOne: false,
    countHint: "set JOB_COMPLETIONS in the pod template's env to the Job's spec.completions",
  },
  {
    name: 'an AWS Batch array job',
    index: 'AWS_BATCH_JOB_ARRAY_INDEX',
    count: 'AWS_BATCH_JOB_ARRAY_SIZE',
    fromOne: false,
    countHint: 'AWS Batch sets it in every child of an array job; elsewhere set LLMJSON_SHARD=k/n instead',
  },
  {
    name: 'GitLab CI parallel jobs',
    index: 'CI_NODE_INDEX',
    count: 'CI_NODE_TOTAL',
    fromOne: true,
    countHint: 'GitLab sets both for a job with parallel: N',
  },
  {
    name: 'CircleCI parallelism',
    index: 'CIRCLE_NODE_INDEX',
    count: 'CIRCLE_NODE_TOTAL',
    fromOne: false,
    countHint: 'CircleCI sets both for a job with parallelism: N',
  },
  {
    name: 'Buildkite parallel jobs',
    index: 'BUILDKITE_PARALLEL_JOB',
    count: 'BUILDKITE_PARALLEL_JOB_COUNT',
    fromOne: false,
    countHint: 'Buildkite sets both for a step with parallelism: N',
  },
];

/** The variable any other scheduler (a GitHub Actions matrix, a shell loop) sets: `k/n`. */
export const SHARD_VARIABLE = 'LLMJSON_SHARD';

export interface ShardChoice {
  readonly shard: Shard;
  /** The line for stderr saying where the shard came from (undefined for an explicit k/n). */
  readonly note?: string;
}

function wholeNumber(env: Readonly<Record<string, string | undefined>>, name: string): number {
  const text = (env[name] ?? '').trim();
  const n = Number(text);
  if (!WHOLE_NUMBER.test(text) || !Number.isSafeInteger(n)) {
    throw new UsageError(`--shard auto: ${name}=${quoteInput(text)} is not a whole number`);
  }
  return n;
}

const set = (env: Readonly<Record<string, string | undefined>>, name: string) =>
  env[name] !== undefined && env[name] !== '';

/**
 * The shard `--shard auto` takes from the environment: `LLMJSON_SHARD` when set (it overrides any
 * scheduler), else the one scheduler whose index variable is set. Throws a UsageError naming what
 * was looked for when nothing is set, what is missing when a count is, and both schedulers when
 * two disagree.
 */
export function shardFromEnvironment(env: Readonly<Record<string, string | undefined>>): ShardChoice {
  if (set(env, SHARD_VARIABLE)) {
    const shard = parseShard(env[SHARD_VARIABLE] as string, `--shard auto: ${SHARD_VARIABLE}=`);
    return { shard, note: `shard ${shardText(shard)} from ${SHARD_VARIABLE}` };
  }
  const found: { scheduler: Scheduler; shard: Shard }[] = [];
  for (const scheduler of SCHEDULERS) {
    if (!set(env, scheduler.index)) continue;
    if (!set(env, scheduler.count)) {
      throw new UsageError(
        `--shard auto: ${scheduler.index} is set (${scheduler.name}) but ${scheduler.count}, the number of shards, is not: ${scheduler.countHint}`,
      );
    }
    const raw = wholeNumber(env, scheduler.index);
    const count = wholeNumber(env, scheduler.count);
    if (count < 1) throw new UsageError(`--shard auto: ${scheduler.count}=${count}: there must be at least 1 shard`);
    const index = scheduler.fromOne ? raw - 1 : raw;
    if (index < 0 || index >= count) {
      throw new UsageError(
        `--shard auto: ${scheduler.index}=${raw} is out of range for ${scheduler.count}=${count} (${scheduler.fromOne ? `1 to ${count}` : `0 to ${count - 1}`})`,
      );
    }
    found.push({ scheduler, shard: { index, count } });
  }
  const [first, ...others] = found;
  if (first === undefined) {
    const looked = SCHEDULERS.map((s) => `${s.index} and ${s.count} (${s.name})`).join(', ');
    throw new UsageError(
      `--shard auto: no shard in the environment; looked for ${SHARD_VARIABLE}=k/n, ${looked}. Set ${SHARD_VARIABLE}=k/n (k from 1) or give --shard k/n`,
    );
  }
  for (const other of others) {
    if (other.shard.index !== first.shard.index || other.shard.count !== first.shard.count) {
      throw new UsageError(
        `--shard auto: ${first.scheduler.index} and ${first.scheduler.count} say ${shardText(first.shard)} but ${other.scheduler.index} and ${other.scheduler.count} say ${shardText(other.shard)}: set ${SHARD_VARIABLE}=k/n to choose`,
      );
    }
  }
  const { scheduler, shard } = first;
  return {
    shard,
    note: `shard ${shardText(shard)} from ${scheduler.index}=${env[scheduler.index]?.trim()} and ${scheduler.count}=${env[scheduler.count]?.trim()} (${scheduler.name})`,
  };
}

/** `--shard`'s value: `k/n`, or `auto` to read it from the environment. */
export function shardFromFlag(value: string, env: Readonly<Record<string, string | undefined>>): ShardChoice {
  return value.trim() === 'auto' ? shardFromEnvironment(env) : { shard: parseShard(value) };
}

/** A set of positions, dense from 0: one bit each. */
export class PositionSet {
  #bits = new Uint8Array(1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `position`; false when it was there already. */
  add(position: number): boolean {
    const byte = position >>> 3;
    if (byte >= this.#bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.#bits.length * 2));
      grown.set(this.#bits);
      this.#bits = grown;
    }
    const mask = 1 << (position & 7);
    if (((this.#bits[byte] as number) & mask) !== 0) return false;
    this.#bits[byte] = (this.#bits[byte] as number) | mask;
    this.#size++;
    return true;
  }

  has(position: number): boolean {
    const byte = position >>> 3;
    return byte < this.#bits.length && ((this.#bits[byte] as number) & (1 << (position & 7))) !== 0;
  }

  /** The set as plain data, to hand to a worker thread (`PositionSet.from` reads it back). */
  toData(): PositionSetData {
    return { bits: this.#bits.slice(), size: this.#size };
  }

  static from(data: PositionSetData): PositionSet {
    const set = new PositionSet();
    set.#bits = data.bits.slice();
    set.#size = data.size;
    return set;
  }
}

/** A PositionSet as plain data (a worker thread's `workerData` carries it). */
export interface PositionSetData {
  readonly bits: Uint8Array;
  readonly size: number;
}

export interface ResumeOptions {
  /** The run's shard: every line must be of a position it takes. */
  readonly shard: Shard;
  /** Whether the run writes `jsonschemabench` codes (`--statuses jsonschemabench`): the old lines must agree. */
  readonly jsonschemabench: boolean;
  /** How `--out` is named in messages (as given). */
  readonly shown: string;
}

export interface ResumeState {
  readonly finished: PositionSet;
  /** Bytes of a cut last line removed from the file (0 when it ended with a newline). */
  readonly cutBytes: number;
}

/** Why a parsed line is not one of this command's result lines, or undefined when it is. */
function notAResult(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const r = value as Record<string, unknown>;
  if (typeof r.index !== 'number' || !Number.isSafeInteger(r.index) || r.index < 0) return 'no "index" position';
  if (typeof r.id !== 'string' || typeof r.model !== 'string') return 'no "id" and "model"';
  if (!(RECORD_STATUSES as readonly unknown[]).includes(r.status)) return 'no "status" of llmjson batch';
  const scores = r.scores as Record<string, unknown> | undefined;
  if (
    typeof scores !== 'object' ||
    scores === null ||
    !SCORINGS.every((s) => (RECORD_STATUSES as readonly unknown[]).includes(scores[s]))
  ) {
    return 'no "scores" (strict, salvage, coerce)';
  }
  return undefined;
}

/**
 * Reads the `--out` of an earlier run for `--resume`, streaming (it can hold millions of lines):
 * cuts a last line that has no newline off the file, checks every other line is a result line
 * of this command for `options.shard`, hands each to `onResult` (the report folds them) and
 * returns the positions finished. Throws a UsageError, before anything is written, for a file
 * that is missing or holds anything else.
 */
export async function readResume(
  path: string,
  options: ResumeOptions,
  onResult: (result: RecordResult) => void,
): Promise<ResumeState> {
  const { shown, shard } = options;
  try {
    if (!statSync(path).isFile()) throw new UsageError(`--resume: --out ${shown} is not a regular file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new UsageError(
        `--resume: --out ${shown} does not exist, so there is nothing to resume: run without --resume to start`,
      );
    }
    throw new UsageError(`--resume: cannot read --out ${shown} (${fileProblem(error)})`);
  }
  const finished = new PositionSet();
  let lineNumber = 0;
  const take = (bytes: Buffer) => {
    lineNumber++;
    const text = bytes.toString('utf8');
    let value: unknown;
    let why: string | undefined;
    try {
      value = JSON.parse(text);
      why = notAResult(value);
    } catch {
      why = 'not JSON';
    }
    const refuse = (reason: string) =>
      new UsageError(
        `--resume: --out ${shown} line ${lineNumber} is not a result line of llmjson batch (${reason}): give the --out of the run to resume, or another --out to start afresh`,
      );
    if (why !== undefined) throw refuse(why);
    const result = value as RecordResult;
    if (!inShard(shard, result.index)) {
      throw new UsageError(
        `--resume: --out ${shown} line ${lineNumber} is the result of position ${result.index}, which is not in shard ${shardText(shard)}: resume with the --shard of the run that wrote it`,
      );
    }
    if ((result.jsonschemabench !== undefined) !== options.jsonschemabench) {
      throw new UsageError(
        `--resume: --out ${shown} was written ${options.jsonschemabench ? 'without' : 'with'} --statuses jsonschemabench: resume with the settings of the run that wrote it`,
      );
    }
    if (!finished.add(result.index)) throw refuse(`position ${result.index} appears twice`);
    onResult(result);
  };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let offset = 0;
  let lastNewline = -1;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, at);
      take(pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]));
      pending = [];
      pendingBytes = 0;
      lastNewline = offset + at;
      start = at + 1;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
    }
    offset += chunk.length;
  }
  if (pendingBytes > 0) {
    // The run was stopped while writing this line: it is redone, so it goes.
    let fd: number | undefined;
    try {
      fd = openSync(path, 'r+');
      ftruncateSync(fd, lastNewline + 1);
    } catch (error) {
      throw new UsageError(`--resume: cannot cut the unfinished last line of --out ${shown} (${fileProblem(error)})`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return { finished, cutBytes: pendingBytes };
}
