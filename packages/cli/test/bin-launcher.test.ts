/**
 * The `llmjson` bin is a file of the repository, not of the build: installing the workspace
 * links every bin before anything is built, and a bin pointing into dist/ made a fresh install
 * warn twice ("Failed to create bin … llmjson"). The launcher runs the built command, and in a
 * checkout that is not built says what to run.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
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

  test('in a checkout, runs the bundle only while it is newer than the build of every package it holds; a packed package runs its bundle', () => {
    const root = mkdtempSync(join(tmpdir(), 'llmjson-bin-'));
    const cli = join(root, 'packages/cli');
    const launcher = join(cli, manifest.bin.llmjson as string);
    mkdirSync(join(launcher, '..'), { recursive: true });
    copyFileSync(join(PACKAGE, manifest.bin.llmjson as string), launcher);
    for (const dir of ['bundle', 'dist', '../core']) mkdirSync(join(cli, dir), { recursive: true });
    writeFileSync(join(cli, 'bundle/llmjson.js'), "process.stdout.write('bundle');\n");
    writeFileSync(join(cli, 'dist/main.js'), "process.stdout.write('dist');\n");
    writeFileSync(join(cli, 'tsconfig.json'), '{}');
    const at = (file: string, seconds: number) => {
      writeFileSync(join(root, file), '', { flag: 'a' });
      utimesSync(join(root, file), seconds, seconds);
    };
    const runs = () => spawnSync(process.execPath, [launcher], { encoding: 'utf8' }).stdout;
    at('packages/cli/tsconfig.tsbuildinfo', 1_000);
    at('packages/core/tsconfig.tsbuildinfo', 1_000);
    at('packages/cli/bundle/llmjson.js', 2_000);
    expect(runs()).toBe('bundle');
    // `tsc -b` rebuilt core after the bundle was made.
    at('packages/core/tsconfig.tsbuildinfo', 3_000);
    expect(runs()).toBe('dist');
    at('packages/cli/bundle/llmjson.js', 4_000);
    expect(runs()).toBe('bundle');
    // Cleaned (`tsc -b --clean`): the bundle is of a build that is gone.
    rmSync(join(cli, 'tsconfig.tsbuildinfo'));
    expect(runs()).toBe('dist');
    // A packed package has no tsconfig.json and no build info: its bundle runs.
    rmSync(join(cli, 'tsconfig.json'));
    expect(runs()).toBe('bundle');
  });
});
