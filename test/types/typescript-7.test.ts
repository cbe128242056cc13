/**
 * TypeScript 7 (npm's `typescript` since 7.0) on the type tests and on a consumer of
 * @llmjson/node. The type tests (this folder) pass under it as under the workspace's TypeScript;
 * a consumer needs `"types": ["node"]` in its tsconfig — TypeScript 7 no longer loads every
 * installed `@types` package by itself, and our Node types import `node:stream` — which is what
 * packages/node/README.md says. TypeScript 7 is fetched from the npm registry into a temporary
 * folder (the workspace pins TypeScript 5 for its build); without the registry this file skips,
 * saying so, as test/packaging does.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** An install from the registry on a cold cache, then a type-check on a busy two-core machine. */
const SLOW = 300_000;

interface Result {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command without a shell (async: vitest's worker stays responsive). */
function run(command: string, args: readonly string[], cwd: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.on('error', (error) => resolve({ code: null, output: `${output}${error.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=20000'], tmpdir());
const online = ping.code === 0;
if (!online) {
  console.warn(`\n*** test/types/typescript-7 SKIPPED: npm cannot reach its registry.\n${ping.output}\n`);
}

describe.skipIf(!online)('TypeScript 7', () => {
  const work = mkdtempSync(join(tmpdir(), 'llmjson-ts7-'));
  const tsc = join(work, 'node_modules', '.bin', 'tsc');

  beforeAll(async () => {
    const install = await run(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', 'typescript@7'],
      work,
    );
    expect(install.code, install.output).toBe(0);
    const version = await run(tsc, ['--version'], work);
    expect(version.output).toMatch(/^Version 7\./);
  }, SLOW);

  test(
    'the type tests type-check',
    async () => {
      // This folder only: the other tests are the workspace TypeScript's (tsconfig.test.json).
      const config = join(work, 'tsconfig.types.json');
      writeFileSync(
        config,
        JSON.stringify({
          extends: join(ROOT, 'tsconfig.test.json'),
          compilerOptions: { typeRoots: [join(ROOT, 'node_modules', '@types')] },
          include: [join(ROOT, 'test', 'types', '*.ts')],
        }),
      );
      const result = await run(tsc, ['-p', config], work);
      expect(result.output).toBe('');
      expect(result.code).toBe(0);
    },
    SLOW,
  );

  test(
    'a consumer of @llmjson/node needs "types": ["node"], and type-checks with it',
    async () => {
      const project = join(work, 'consumer');
      mkdirSync(join(project, 'node_modules', '@llmjson'), { recursive: true });
      mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
      for (const name of ['node', 'core']) {
        symlinkSync(join(ROOT, 'packages', name), join(project, 'node_modules', '@llmjson', name), 'dir');
      }
      symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(project, 'node_modules', '@types', 'node'), 'dir');
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
      writeFileSync(
        join(project, 'index.ts'),
        "import { createJsonlStream } from '@llmjson/node';\n\nconst stream = createJsonlStream({ schema: { type: 'object', properties: { name: { type: 'string' } } } as const });\nstream.on('data', (value) => console.log(value.name));\nstream.end('{\"name\":\"a\"}\\n');\n",
      );
      const check = async (types: readonly string[] | undefined) => {
        const compilerOptions = {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          ...(types === undefined ? {} : { types }),
        };
        writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.ts'] }));
        return run(tsc, ['-p', 'tsconfig.json'], project);
      };
      const without = await check(undefined);
      expect(without.code).not.toBe(0);
      expect(without.output).toMatch(/Cannot find name 'node:stream'/);
      const withNode = await check(['node']);
      expect(withNode.output).toBe('');
      expect(withNode.code).toBe(0);
    },
    SLOW,
  );
});
