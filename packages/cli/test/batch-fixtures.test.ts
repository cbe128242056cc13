/**
 * The fixtures of `fixtures/batch/`, end to end: for each `<name>.expected.json` (README there),
 * `llmjson batch` run with its arguments gives every record the expected position, model and
 * statuses — the run's (the salvage scoring), and the strict and coerce scorings both as the
 * line's `scores` and as the run's status under `--no-salvage` and `--coerce` — and reports
 * exactly the expected lines that are not records. The format is detected (and said on stderr)
 * as expected; given with `--format` it gives what detection gave, and worker threads give what
 * the main thread gives.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPOSITORY, runCli } from '../../../test/support/cli.js';

interface Expected {
  readonly input: string;
  readonly cwd: string;
  readonly args: readonly string[];
  readonly format: string;
  readonly records: Readonly<
    Record<string, { index: number; model: string; status: string; strict: string; coerce: string }>
  >;
  readonly problems: readonly { index: number; line: number }[];
}

interface Line {
  readonly index: number;
  readonly id: string;
  readonly model: string;
  readonly status: string;
  readonly scores: { strict: string; salvage: string; coerce: string };
}

const ROOT = join(REPOSITORY, 'fixtures', 'batch');

function expectations(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return expectations(path);
    return name.endsWith('.expected.json') ? [path] : [];
  });
}

const FILES = expectations(ROOT).sort();

describe('fixtures/batch', () => {
  test('every format has a fixture', () => {
    const formats = FILES.map((f) => (JSON.parse(readFileSync(f, 'utf8')) as Expected).format).sort();
    expect(formats).toEqual(['anthropic-batch', 'bfcl', 'lm-eval', 'openai-batch', 'records']);
  });

  test.each(FILES.map((f) => [relative(ROOT, f), f]))('%s', async (_name, file) => {
    const expected = JSON.parse(readFileSync(file, 'utf8')) as Expected;
    const cwd = join(REPOSITORY, expected.cwd);
    const run = async (extra: readonly string[]) => {
      const r = await runCli(['batch', ...expected.args, ...extra], { cwd });
      expect(r.code, r.err).toBe(0);
      return r;
    };
    const byId = (lines: unknown[]) => new Map((lines as Line[]).map((l) => [l.id, l]));

    const detected = await run(['--workers', '0']);
    const lines = byId(detected.lines);
    expect([...lines.keys()].sort()).toEqual(Object.keys(expected.records).sort());
    for (const [id, want] of Object.entries(expected.records)) {
      const got = lines.get(id) as Line;
      expect(
        {
          index: got.index,
          model: got.model,
          status: got.status,
          strict: got.scores.strict,
          coerce: got.scores.coerce,
        },
        id,
      ).toEqual(want);
    }
    expect(detected.err).toContain(
      `: read as ${expected.format} (detected from its first record; --format to choose)\n`,
    );
    // The lines that are not records: each named on stderr with its line number, none other.
    const skipped = [...detected.err.matchAll(/:(\d+): skipped: /g)].map((m) => Number(m[1]));
    expect(skipped).toEqual(expected.problems.map((p) => p.line));

    // --format as detected: the same lines; worker threads: the same lines.
    expect((await run(['--format', expected.format, '--workers', '0'])).out).toBe(detected.out);
    expect((await run(['--workers', '2'])).out).toBe(detected.out);

    // The scorings as the run's status: --no-salvage is strict; --coerce (with a schema) is coerce.
    const strict = byId((await run(['--no-salvage', '--workers', '0'])).lines);
    for (const [id, want] of Object.entries(expected.records)) expect(strict.get(id)?.status, id).toBe(want.strict);
    if (expected.args.includes('--schema') || expected.args.includes('--schema-field')) {
      const coerced = byId((await run(['--coerce', '--workers', '0'])).lines);
      for (const [id, want] of Object.entries(expected.records)) expect(coerced.get(id)?.status, id).toBe(want.coerce);
    }
  });
});
