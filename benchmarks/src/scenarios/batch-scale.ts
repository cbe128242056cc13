/**
 * `llmjson batch` at evaluation scale: 1 000 000 records of about 400 bytes (100 000 with
 * --quick), each with its own schema written inline (100 distinct schemas, as JSONSchemaBench
 * pairs each output with its schema), judged with `--schema-field schema` and a JSON report,
 * against the script a harness author would otherwise write: `node:readline` + `JSON.parse` of
 * the record and of its answer + ajv, validators cached per schema text, one result line per
 * record. Each a child process timed and measured by GNU time (`/usr/bin/time -f '%e %M'`: wall
 * seconds, peak resident set), stdout to /dev/null, `rounds` times interleaved, medians.
 *
 * The records are what a run of a model gives: 85 % a plain valid answer, 8 % fenced (```json),
 * 4 % an answer the schema rejects (a number written as a string), 3 % cut off. The script only
 * counts `JSON.parse` + schema; llmjson also salvages, scores each record three ways (strict,
 * salvage, salvage + coerce) and builds the per-model report.
 *
 * Targets (issue: the evaluation harness): with one worker ≥ 0.8× the script's records per
 * second, with two workers ≥ 1.6×, peak RSS ≤ 300 MB.
 */

import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Measured, median, requireGnuTime, timeChild } from '../child-time.js';
import { formatSize } from '../report.js';
import type { Case, Scenario, Table, TargetResult } from '../scenario.js';

const FULL_RECORDS = 1_000_000;
const QUICK_RECORDS = 100_000;
const DISTINCT_SCHEMAS = 100;
const RSS_TARGET_MB = 300;
const ONE_WORKER_TARGET = 0.8;
const TWO_WORKERS_TARGET = 1.6;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const cli = join(root, 'packages', 'cli', 'bin', 'llmjson.js');

/** The harness author's script: readline + JSON.parse + ajv (cached per schema text), a result line per record. */
const SCRIPT = `
import { createInterface } from 'node:readline';
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(process.argv[3]);
const Ajv = require('ajv').default;
const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map();
const out = [];
let size = 0;
for await (const line of createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity })) {
  if (line === '') continue;
  const record = JSON.parse(line);
  const key = JSON.stringify(record.schema);
  let validate = validators.get(key);
  if (validate === undefined) { validate = ajv.compile(record.schema); validators.set(key, validate); }
  let status;
  try { status = validate(JSON.parse(record.text)) ? 'valid' : 'invalid'; } catch { status = 'not-json'; }
  const text = JSON.stringify({ id: record.id, model: record.model, status });
  out.push(text);
  size += text.length;
  if (size > 65536) { if (!process.stdout.write(out.join('\\n') + '\\n')) await new Promise((r) => process.stdout.once('drain', r)); out.length = 0; size = 0; }
}
if (out.length) process.stdout.write(out.join('\\n') + '\\n');
`;

/** Schema `k` of the 100: the same shape with its own field names and bounds, ~250 bytes inline. */
function schemaFor(k: number): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 0 },
      [`label_${k}`]: { type: 'string', maxLength: 40 + k },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 8 },
      [`score_${k}`]: { type: 'number', minimum: 0, maximum: 1 },
      kind: { enum: ['a', 'b', `c${k}`] },
    },
    required: ['id', `label_${k}`, `score_${k}`],
    additionalProperties: false,
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'lambda'];

/** One record's answer text for schema `k`, by its kind (valid, fenced, rejected, cut). */
function answerFor(i: number, k: number): string {
  const value = {
    id: i,
    [`label_${k}`]: `${WORDS[i % 8]} ${WORDS[(i >> 3) % 8]} item ${i}`,
    tags: [WORDS[(i >> 1) % 8], WORDS[(i >> 2) % 8]],
    [`score_${k}`]: ((i * 7919) % 1000) / 1000,
    kind: i % 2 === 0 ? 'a' : `c${k}`,
  };
  const roll = (i * 2654435761) % 100;
  if (roll < 85) return JSON.stringify(value);
  if (roll < 93) return `Here is the object:\n\`\`\`json\n${JSON.stringify(value, null, 1)}\n\`\`\``;
  if (roll < 97) return JSON.stringify({ ...value, [`score_${k}`]: String(value[`score_${k}`]) });
  const whole = JSON.stringify(value);
  return whole.slice(0, Math.floor(whole.length * 0.6));
}

interface Files {
  readonly input: string;
  readonly script: string;
  readonly report: string;
}

/** Writes the records (once per count: reused across runs) and the script. */
function prepare(count: number): Files {
  const dir = join(tmpdir(), 'llmjson-bench-batch');
  mkdirSync(dir, { recursive: true });
  const input = join(dir, `records-${count}.jsonl`);
  if (!existsSync(input)) {
    const schemas = Array.from({ length: DISTINCT_SCHEMAS }, (_, k) => schemaFor(k));
    const partial = `${input}.part`;
    const fd = openSync(partial, 'w');
    let block: string[] = [];
    for (let i = 0; i < count; i++) {
      const k = (i * 31) % DISTINCT_SCHEMAS;
      block.push(JSON.stringify({ id: `r${i}`, model: `model-${i % 5}`, schema: schemas[k], text: answerFor(i, k) }));
      if (block.length === 10_000) {
        writeFileSync(fd, `${block.join('\n')}\n`);
        block = [];
      }
    }
    if (block.length > 0) writeFileSync(fd, `${block.join('\n')}\n`);
    closeSync(fd);
    execFileSync('mv', [partial, input]);
  }
  const script = join(dir, 'readline-ajv-batch.mjs');
  writeFileSync(script, SCRIPT);
  return { input, script, report: join(dir, 'report.json') };
}

const SCRIPT_NAME = 'readline + JSON.parse + ajv script';

export const batchScale: Scenario = {
  name: 'batch-scale',
  title: 'llmjson batch at evaluation scale: per-record schemas',
  about:
    `\`llmjson batch --schema-field schema --report report.json\` on ${FULL_RECORDS.toLocaleString('en')} records of about 400 bytes (${QUICK_RECORDS.toLocaleString('en')} with --quick), ` +
    `each with its own inline schema (${DISTINCT_SCHEMAS} distinct), 85 % valid, 8 % fenced, 4 % rejected by the schema, 3 % cut off, ` +
    "with --workers 1 and 2 (the threads that judge, the main thread one of them: 1 is the main thread alone, as 0 is), against a harness author's script (node:readline + JSON.parse + ajv with validators cached per schema text, a result line per record). " +
    `Child processes measured by GNU time: wall time and peak RSS, median over rounds. Targets: ≥ ${ONE_WORKER_TARGET}× the script's records per second with one worker, ≥ ${TWO_WORKERS_TARGET}× with two, peak RSS ≤ ${RSS_TARGET_MB} MB.`,
  cases(): Case[] {
    return [];
  },
  async run(context) {
    requireGnuTime();
    const count = context.quick ? QUICK_RECORDS : FULL_RECORDS;
    context.log(`batch-scale: preparing ${count} records`);
    const files = prepare(count);
    const bytes = statSync(files.input).size;
    const batch = (workers: number) => ({
      name: `llmjson batch --workers ${workers}`,
      workers,
      args: [
        'node',
        cli,
        'batch',
        files.input,
        '--schema-field',
        'schema',
        '--workers',
        String(workers),
        '--no-progress',
        '--report',
        files.report,
      ],
    });
    const entrants = [
      batch(1),
      ...(availableParallelism() >= 2 ? [batch(2)] : []),
      batch(0),
      {
        name: SCRIPT_NAME,
        workers: -1,
        args: ['node', files.script, files.input, join(root, 'packages', 'core', 'package.json')],
      },
    ];
    const rounds = Math.max(1, Math.min(context.measure.rounds, 3));
    const results = new Map<string, Measured[]>(entrants.map((e) => [e.name, []]));
    // The script runs first and last in each round: an llmjson run is compared with the mean of
    // the two script runs around it. On a noisy machine the seconds move between rounds (and
    // within one); runs side by side move much less.
    const scriptAround: number[] = [];
    const scriptCpuAround: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const script = entrants.find((e) => e.name === SCRIPT_NAME);
      const before = script === undefined ? undefined : timeChild(script.args);
      for (const entrant of entrants) {
        context.log(`batch-scale: round ${r + 1}, ${entrant.name}`);
        results.get(entrant.name)?.push(timeChild(entrant.args));
      }
      const after = results.get(SCRIPT_NAME)?.[r];
      const mean = (a: number | undefined, b: number | undefined) =>
        a === undefined ? (b ?? Number.NaN) : (a + (b ?? a)) / 2;
      scriptAround.push(mean(before?.seconds, after?.seconds));
      scriptCpuAround.push(mean(before?.cpuSeconds, after?.cpuSeconds));
    }
    const ratios = (name: string) =>
      (results.get(name) ?? []).map((m, r) => (scriptAround[r] ?? Number.NaN) / m.seconds);
    // CPU seconds of every thread, against the script's in the same round: on a machine whose
    // cores are all busy, a run cannot take less time than its CPU seconds ÷ the cores, so this
    // ratio bounds the speed the workers can reach here (decision 042, fourth addendum).
    const cpuRatios = (name: string) =>
      (results.get(name) ?? []).map((m, r) => m.cpuSeconds / (scriptCpuAround[r] ?? Number.NaN));
    // Of an even number of rounds, the lower middle: a target is not met by its luckier round.
    const lowerMedian = (xs: readonly number[]) => -median(xs.map((x) => -x));
    const cores = availableParallelism();
    const rows = entrants.map((e) => {
      const ms = results.get(e.name) ?? [];
      const seconds = median(ms.map((m) => m.seconds));
      const perRound = ratios(e.name);
      return [
        e.workers === cores ? `${e.name} (the default here: one per core)` : e.name,
        seconds.toFixed(2),
        `${Math.round(count / seconds).toLocaleString('en')} records/s`,
        `${median(ms.map((m) => m.rssMb)).toFixed(0)} MB`,
        `${lowerMedian(perRound).toFixed(2)}×`,
        perRound.map((x) => `${x.toFixed(2)}×`).join(', '),
        `${median(ms.map((m) => m.cpuSeconds)).toFixed(2)}`,
        `${median(cpuRatios(e.name)).toFixed(2)}×`,
      ];
    });
    const targets: TargetResult[] = [];
    for (const e of entrants.filter((x) => x.workers === 1 || x.workers === 2)) {
      const ms = results.get(e.name) ?? [];
      const perRound = ratios(e.name);
      const speed = lowerMedian(perRound);
      const goal = e.workers === 1 ? ONE_WORKER_TARGET : TWO_WORKERS_TARGET;
      const rss = median(ms.map((m) => m.rssMb));
      targets.push({
        target: `llmjson batch, ${count.toLocaleString('en')} records with per-record schemas, ${e.workers} ${e.workers === 1 ? 'worker' : 'workers'}: ≥ ${goal}× a readline + JSON.parse + ajv script`,
        basis: e.name,
        measured: `records per second relative to the script: ${speed.toFixed(2)}× (median of the rounds: ${perRound.map((x) => `${x.toFixed(2)}×`).join(', ')})`,
        met: speed >= goal,
      });
      targets.push({
        target: `llmjson batch, ${count.toLocaleString('en')} records with per-record schemas: peak RSS ≤ ${RSS_TARGET_MB} MB`,
        basis: e.name,
        measured: `peak RSS ${rss.toFixed(0)} MB`,
        met: rss <= RSS_TARGET_MB,
      });
    }
    const table: Table = {
      caption: `${count.toLocaleString('en')} records (${formatSize(bytes)}), ${DISTINCT_SCHEMAS} distinct inline schemas: wall time (median of ${rounds}), records per second, peak RSS, speed relative to the script (the mean of the script's runs before and after, in the same round, ÷ time; the median of the rounds, the lower of two, then each round), and CPU seconds of all threads (user + system; median) with their ratio to the script's in the same round (median). With every core busy, a run takes at least its CPU seconds ÷ ${cores} cores.`,
      header: ['command', 's', 'throughput', 'peak RSS', 'speed vs script', 'per round', 'CPU s', 'CPU vs script'],
      rows,
    };
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [table],
      notes: [`Input: ${files.input} (generated once, reused).`],
      targets,
      data: Object.fromEntries(results),
    };
  },
};
