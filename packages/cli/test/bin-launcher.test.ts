/**
 * The `llmjson` bin is a file of the repository, not of the build: installing the workspace
 * links every bin before anything is built, and a bin pointing into dist/ made a fresh install
 * warn twice ("Failed to create bin … llmjson"). The launcher runs the built command, and in a
 * checkout that is not built says what to run.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPOSITORY } from '../../../test/support/cli.js';

const PACKAGE = join(REPOSITORY, 'packages/cli');
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  files: string[];
};

describe('the llmjson bin', () => {
  test('points at a file tracked by git, outside the build output, executable and packed', () => {
    const target = manifest.bin.llmjson as string;
    expect(target.replace(/^\.\//, '').split('/')[0]).not.toBe('dist');
    const tracked = spawnSync('git', ['ls-files', '--error-unmatch', target], { cwd: PACKAGE, encoding: 'utf8' });
    expect(tracked.status, tracked.stderr).toBe(0);
    expect(statSync(join(PACKAGE, target)).mode & 0o111).not.toBe(0);
    expect(manifest.files).toContain(target.replace(/^\.\//, '').split('/')[0]);
  });

  test('runs the built command', () => {
    const r = spawnSync(process.execPath, [join(PACKAGE, manifest.bin.llmjson as string), '--version'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).version);
  });

  test('in a checkout that is not built, one line says what to run', () => {
    const copy = mkdtempSync(join(tmpdir(), 'llmjson-bin-'));
    const launcher = join(copy, manifest.bin.llmjson as string);
    mkdirSync(join(launcher, '..'), { recursive: true });
    copyFileSync(join(PACKAGE, manifest.bin.llmjson as string), launcher);
    copyFileSync(join(PACKAGE, 'package.json'), join(copy, 'package.json'));
    expect(existsSync(join(copy, 'dist'))).toBe(false);
    const r = spawnSync(process.execPath, [launcher, '--version'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/not built .* run `npx -y pnpm@10 build`/)]);
  });
});
