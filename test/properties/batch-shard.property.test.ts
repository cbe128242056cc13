/**
 * Shards of `llmjson batch` add up to one run, for random record sets and any n ≤ 8:
 * - `mergeReports` of the n shard reports deep-equals the report of one run over the same
 *   inputs with the same settings;
 * - the shards' `--out` lines, together, are the one run's `--out` lines (up to order), each
 *   exactly once, and each shard's lines are of its own positions only.
 * The record sets mix every status (valid, fenced, truncated, empty, prose, schema failures,
 * cut by the finish reason) over a few models, with lines that are not records among them (their
 * positions count, and each shard reports only its own), split over two files at any point. The command runs in-process through
 * `main` with `--workers 0`, so a run costs milliseconds; the runs are a quarter of the usual
 * count, as each one is n + 1 runs of the command.
 *
 * And `--resume` from an `--out` cut at any byte (inside a line, at a line's end, empty, whole)
 * gives the uninterrupted `--out`, byte for byte, and the same report, in a shard too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { mergeReports, parseReport } from '../../packages/cli/src/batch-report.js';
import { numRuns } from '../support/chunking.js';
import { runCli } from '../support/cli.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

const TEXTS = [
  '{"n": 1}',
  'Sure:\n```json\n{"n": 2}\n```',
  '{"n": 3, "more": [1,',
  '',
  'I cannot help with that.',
  '{"n": "4"}',
  '{"n": "x"}',
  '{n: 5}',
];

/** One input item: a record of the flat `records` shape, or a line that is not one. */
const item = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({
      model: fc.constantFrom('small', 'large', 'other'),
      text: fc.constantFrom(...TEXTS),
      cut: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom('{"id": "broken"', '[1, 2]', 'not a record') },
);

function inputFile(items: readonly (string | { model: string; text: string; cut: boolean })[]): string {
  return items
    .map((entry, i) =>
      typeof entry === 'string'
        ? entry
        : JSON.stringify({
            id: `r${i}`,
            model: entry.model,
            text: entry.text,
            ...(entry.cut ? { finish_reason: 'length' } : {}),
          }),
    )
    .map((line) => `${line}\n`)
    .join('');
}

const outLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

describe('batch --shard k/n', () => {
  test('merge of the n shard reports is the one-run report; the shards’ lines are the one run’s', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { minLength: 0, maxLength: 60 }),
        fc.nat(),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        async (items, cut, n, coerce) => {
          const dir = mkdtempSync(join(tmpdir(), 'llmjson-shards-'));
          try {
            writeFileSync(join(dir, 'n.schema.json'), JSON.stringify(SCHEMA));
            // Two files: positions run on from the first into the second.
            const at = cut % (items.length + 1);
            writeFileSync(join(dir, 'a.jsonl'), inputFile(items.slice(0, at)));
            writeFileSync(join(dir, 'b.jsonl'), inputFile(items.slice(at)));
            const common = ['batch', 'a.jsonl', 'b.jsonl', '--schema', 'n.schema.json', '--workers', '0'];
            if (coerce) common.push('--coerce');
            const whole = await runCli([...common, '--out', 'all.jsonl', '--report', 'all.json'], { cwd: dir });
            expect(whole.code, whole.err).toBe(0);
            const shardReports = [];
            const shardLines: string[] = [];
            for (let k = 1; k <= n; k++) {
              const r = await runCli(
                [...common, '--shard', `${k}/${n}`, '--out', `s${k}.jsonl`, '--report', `s${k}.json`],
                { cwd: dir },
              );
              expect(r.code, r.err).toBe(0);
              shardReports.push(parseReport(readFileSync(join(dir, `s${k}.json`), 'utf8'), `s${k}.json`));
              for (const line of outLines(join(dir, `s${k}.jsonl`))) {
                expect((JSON.parse(line) as { index: number }).index % n).toBe(k - 1);
                shardLines.push(line);
              }
            }
            const one = parseReport(readFileSync(join(dir, 'all.json'), 'utf8'), 'all.json');
            expect(mergeReports(shardReports)).toEqual(one);
            expect([...shardLines].sort()).toEqual([...outLines(join(dir, 'all.jsonl'))].sort());
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: Math.ceil(numRuns / 4) },
    );
  }, 120_000);
});

describe('batch --resume', () => {
  test('an --out cut at any byte, resumed: the uninterrupted --out byte for byte and the same report', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (items, n, where) => {
          const dir = mkdtempSync(join(tmpdir(), 'llmjson-resume-'));
          try {
            writeFileSync(join(dir, 'n.schema.json'), JSON.stringify(SCHEMA));
            writeFileSync(join(dir, 'run.jsonl'), inputFile(items));
            const common = ['batch', 'run.jsonl', '--schema', 'n.schema.json', '--shard', `1/${n}`, '--workers', '0'];
            const whole = await runCli([...common, '--out', 'all.jsonl', '--report', 'all.json'], { cwd: dir });
            expect(whole.code, whole.err).toBe(0);
            const full = readFileSync(join(dir, 'all.jsonl'));
            writeFileSync(join(dir, 'part.jsonl'), full.subarray(0, Math.floor(where * full.length)));
            const resumed = await runCli([...common, '--out', 'part.jsonl', '--report', 'part.json', '--resume'], {
              cwd: dir,
            });
            expect(resumed.code, resumed.err).toBe(0);
            expect(readFileSync(join(dir, 'part.jsonl')).equals(full)).toBe(true);
            expect(readFileSync(join(dir, 'part.json'), 'utf8')).toBe(readFileSync(join(dir, 'all.json'), 'utf8'));
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: Math.ceil(numRuns / 4) },
    );
  }, 120_000);
});
