/**
 * The permission cases of limits.test.ts pass wherever the checkout sits, including where other
 * users cannot enter it (a clone under /root, or in a `mktemp -d` folder: mode 700), while the
 * suite runs as root. Those cases run the command as `nobody`, who cannot reach a file in such a
 * checkout; they pass only because the command `nobody` runs is a bundle placed outside it
 * (test/support/cli-as-user.ts).
 *
 * The proof makes the checkout's own folder mode 700 for the length of one child vitest run of
 * just those cases (not the whole suite), then gives the folder its mode back.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { REPOSITORY } from '../../../test/support/cli.js';
import { isRoot } from '../../../test/support/cli-as-user.js';

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

test('the permission cases pass with the checkout in a folder of mode 700 (as nobody when run as root)', () => {
  const mode = statSync(REPOSITORY).mode & 0o7777;
  const report = join(mkdtempSync(join(tmpdir(), 'llmjson-private-')), 'report.json');
  chmodSync(REPOSITORY, 0o700);
  let run: ReturnType<typeof spawnSync>;
  try {
    run = spawnSync(
      process.execPath,
      [
        join(REPOSITORY, 'node_modules/vitest/vitest.mjs'),
        'run',
        'packages/cli/test/limits.test.ts',
        '--testNamePattern',
        'as nobody when run as root',
        '--reporter',
        'json',
        '--outputFile',
        report,
      ],
      { cwd: REPOSITORY, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: '' } },
    );
  } finally {
    chmodSync(REPOSITORY, mode);
  }
  expect(statSync(REPOSITORY).mode & 0o7777).toBe(mode);
  const result = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
  const cases = result.testResults.flatMap((file) => file.assertionResults).filter((t) => t.status !== 'skipped');
  expect(cases.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual([
    ['an input file without read permission (as nobody when run as root)', 'passed', ''],
    ['an existing read-only --output-file (as nobody when run as root)', 'passed', ''],
    ['batch: a JSONL file without read permission (as nobody when run as root)', 'passed', ''],
  ]);
  expect(run.status, String(run.stderr)).toBe(0);
  // Run as root, the cases ran the command as nobody; run as another user, in-process.
  expect(isRoot).toBe(process.getuid?.() === 0);
});
