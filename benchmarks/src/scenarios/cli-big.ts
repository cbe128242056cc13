/**
 * The CLI on a big input: `llmjson jsonl --schema` on 100 MB of JSONL (10 MB with --quick), read
 * from a file on stdin, written to /dev/null, against the script a user would otherwise write
 * (`node:readline` + `JSON.parse` + ajv, printing each valid line), each a child process timed
 * and measured by GNU time (`/usr/bin/time -f '%e %M'`: wall seconds, peak resident set). With
 * `--diagnostics json` on and off (text). Targets: at least as fast as the script, peak RSS at
 * most 150 MB. Child processes, so the harness's in-process rounds do not apply: each entrant
 * runs `rounds` times, interleaved, and the figures are medians.
 */

import { closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Measured, median, requireGnuTime, timeChild } from '../child-time.js';
import { jsonlAnswer, triadObjects, triadSchema } from '../inputs.js';
import { formatSize } from '../report.js';
import type { Case, Scenario, Table, TargetResult } from '../scenario.js';

const FULL_SIZE = 100_000_000;
const QUICK_SIZE = 10_000_000;
const RSS_TARGET_MB = 150;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const cli = join(root, 'packages', 'cli', 'bin', 'llmjson.js');

/** The user's script: readline + JSON.parse + ajv, each valid line printed. */
const SCRIPT = `
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const require = createRequire(process.argv[3]);
const Ajv = require('ajv').default;
const validate = new Ajv({ allErrors: false, strict: false }).compile(JSON.parse(readFileSync(process.argv[2], 'utf8')));
const out = [];
let size = 0;
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let value;
  try { value = JSON.parse(line); } catch { continue; }
  if (!validate(value)) continue;
  const text = JSON.stringify(value);
  out.push(text);
  size += text.length;
  if (size > 65536) { if (!process.stdout.write(out.join('\\n') + '\\n')) await new Promise((r) => process.stdout.once('drain', r)); out.length = 0; size = 0; }
}
if (out.length) process.stdout.write(out.join('\\n') + '\\n');
`;

interface Files {
  readonly input: string;
  readonly schema: string;
  readonly script: string;
}

/** Writes the input (once per size: it is reused across runs), the schema and the script. */
function prepare(size: number): Files {
  const dir = join(tmpdir(), 'llmjson-bench-cli');
  mkdirSync(dir, { recursive: true });
  const input = join(dir, `answer-${size}.jsonl`);
  if (!existsSync(input) || statSync(input).size < size) {
    // 5 % invalid lines, as a model's answer: the same generator as the JSONL matrix, in blocks.
    const fd = openSync(input, 'w');
    let written = 0;
    for (let seed = 1; written < size; seed++) {
      const block = jsonlAnswer(1_000_000, 500 + seed, 0.05, triadObjects()).text;
      writeFileSync(fd, block);
      written += Buffer.byteLength(block);
    }
    closeSync(fd);
  }
  const schema = join(dir, 'triad.schema.json');
  writeFileSync(schema, JSON.stringify(triadSchema()));
  const script = join(dir, 'readline-ajv.mjs');
  writeFileSync(script, SCRIPT);
  return { input, schema, script };
}

export const cliBig: Scenario = {
  name: 'cli-big',
  title: 'The llmjson command on a big input',
  about:
    `\`llmjson jsonl --schema\` (3-branch discriminated schema, 5 % invalid lines) on ${formatSize(FULL_SIZE)} of JSONL (${formatSize(QUICK_SIZE)} with --quick) on stdin, ` +
    "stdout to /dev/null, with --diagnostics text (the default) and json, against a user's script (node:readline + JSON.parse + ajv, each valid line printed). " +
    `Child processes measured by GNU time: wall time and peak RSS, median over rounds. Targets: at least 1× the script's speed, peak RSS at most ${RSS_TARGET_MB} MB.`,
  cases(): Case[] {
    return [];
  },
  async run(context) {
    requireGnuTime();
    const size = context.quick ? QUICK_SIZE : FULL_SIZE;
    context.log(`cli-big: preparing ${formatSize(size)}`);
    const files = prepare(size);
    const entrants: { name: string; args: string[] }[] = [
      { name: 'llmjson jsonl --schema (diagnostics text)', args: ['node', cli, 'jsonl', '--schema', files.schema] },
      {
        name: 'llmjson jsonl --schema --diagnostics json',
        args: ['node', cli, 'jsonl', '--schema', files.schema, '--diagnostics', 'json'],
      },
      {
        name: 'readline + JSON.parse + ajv script',
        args: ['node', files.script, files.schema, join(root, 'packages', 'core', 'package.json')],
      },
    ];
    const rounds = Math.max(1, Math.min(context.measure.rounds, 5));
    const results = new Map<string, Measured[]>(entrants.map((e) => [e.name, []]));
    for (let r = 0; r < rounds; r++) {
      for (const entrant of entrants) {
        context.log(`cli-big: round ${r + 1}, ${entrant.name}`);
        results.get(entrant.name)?.push(timeChild(entrant.args, files.input, [0, 4]));
      }
    }
    const script = median((results.get('readline + JSON.parse + ajv script') ?? []).map((m) => m.seconds));
    const bytes = statSync(files.input).size;
    const rows = entrants.map((e) => {
      const ms = results.get(e.name) ?? [];
      const seconds = median(ms.map((m) => m.seconds));
      return [
        e.name,
        seconds.toFixed(2),
        `${(bytes / 1e6 / seconds).toFixed(0)} MB/s`,
        `${median(ms.map((m) => m.rssMb)).toFixed(0)} MB`,
        `${(script / seconds).toFixed(2)}×`,
      ];
    });
    const targets: TargetResult[] = [];
    for (const e of entrants.slice(0, 2)) {
      const ms = results.get(e.name) ?? [];
      const speed = script / median(ms.map((m) => m.seconds));
      const rss = median(ms.map((m) => m.rssMb));
      targets.push({
        target: `llmjson jsonl with a schema on ${formatSize(size)}: ≥ 1× a readline + JSON.parse + ajv script`,
        basis: e.name,
        measured: `speed relative to the script: ${speed.toFixed(2)}×`,
        met: speed >= 1,
      });
      targets.push({
        target: `llmjson jsonl with a schema on ${formatSize(size)}: peak RSS ≤ ${RSS_TARGET_MB} MB`,
        basis: e.name,
        measured: `peak RSS ${rss.toFixed(0)} MB`,
        met: rss <= RSS_TARGET_MB,
      });
    }
    const table: Table = {
      caption: `${formatSize(bytes)} of JSONL on stdin: wall time (median of ${rounds}), throughput, peak RSS, and speed relative to the script (script time ÷ time).`,
      header: ['command', 's', 'throughput', 'peak RSS', 'speed vs script'],
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
