/**
 * @llmjson/ai-sdk as a user gets it: core, web, node and ai-sdk are packed from their built dist
 * (`pnpm pack`, which turns `workspace:*` and `catalog:` into versions) and installed with npm
 * into fresh projects outside the workspace: first @llmjson/web and @llmjson/node alone, which
 * must bring no AI SDK, then @llmjson/ai-sdk beside `ai` (the version the tests ran against, and
 * 7.0.0, the floor of the peer range `>=7.0.0 <8`). In each, the AI SDK example
 * (examples/ai-sdk/run.mjs) runs on the AI SDK's mock model; a typed consumer is type-checked
 * without @types/node; publint and arethetypeswrong check the tarball.
 *
 * The approach is test/packaging/react.test.ts's (decision 019). `ai` 7 needs Node 22 or later:
 * on Node 20 the suite skips and says so; it also skips, saying so, when npm cannot reach its
 * registry.
 */

import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONSUMER = fileURLToPath(new URL('ai-sdk-consumer/', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'ai-sdk', 'run.mjs');
const BIN = join(ROOT, 'node_modules', '.bin');
const PACKAGES = ['core', 'web', 'node', 'ai-sdk'] as const;
/** The floor of the peer range. */
const AI_FLOOR = '7.0.0';
const SLOW = 300_000;
const CHECK = 120_000;
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command without a shell and collects its output. */
function run(command: string, args: readonly string[], cwd: string, timeoutMs = SLOW): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function explain(what: string, result: Result): string {
  const tail = (text: string) => text.trim().split('\n').slice(-40).join('\n');
  return `${what}: exit ${result.code}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`;
}

/** The version installed of `name` in `from`'s node_modules. */
const versionIn = (from: string, name: string): string =>
  JSON.parse(readFileSync(join(from, 'node_modules', name, 'package.json'), 'utf8')).version;
const PACKAGE_DIR = join(ROOT, 'packages', 'ai-sdk');

let skipReason: string | undefined;
if (NODE_MAJOR < 22) {
  skipReason = `ai 7 needs Node >= 22 and this is Node ${process.versions.node} (run it with npx -y node@22 node_modules/vitest/vitest.mjs run test/packaging/ai-sdk.test.ts)`;
} else {
  const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=20000'], tmpdir(), 30_000);
  if (ping.code !== 0) skipReason = `npm cannot reach its registry.\n${explain('npm ping', ping)}`;
}
if (skipReason !== undefined) console.warn(`\n*** test/packaging/ai-sdk SKIPPED: ${skipReason}\n`);

describe.skipIf(skipReason !== undefined)(
  'packaging: @llmjson/ai-sdk installed with npm in a fresh project beside ai 7',
  () => {
    let work = '';
    const tarballs = new Map<string, string>();
    let frameworkFree = false;

    async function project(name: string, packages: readonly string[], peers: readonly string[]): Promise<string> {
      const folder = join(work, name);
      mkdirSync(folder);
      writeFileSync(
        join(folder, 'package.json'),
        JSON.stringify({ name: `ai-sdk-${name}`, private: true, type: 'module' }),
      );
      for (const file of readdirSync(CONSUMER)) copyFileSync(join(CONSUMER, file), join(folder, file));
      copyFileSync(EXAMPLE, join(folder, 'run.mjs'));
      const files = packages.map((p) => tarballs.get(p) ?? '');
      const install = await run('npm', ['install', '--no-audit', '--no-fund', ...files, ...peers], folder);
      if (install.code !== 0) throw new Error(explain(`npm install in ${name}`, install));
      return folder;
    }

    beforeAll(async () => {
      for (const name of PACKAGES) {
        if (!existsSync(join(ROOT, 'packages', name, 'dist', 'index.js'))) {
          throw new Error(`@llmjson/${name} has no dist/index.js: build first (npx tsc -b; pnpm test does)`);
        }
      }
      work = mkdtempSync(join(tmpdir(), 'llmjson-packaging-ai-sdk-'));
      const tarballDir = join(work, 'tarballs');
      mkdirSync(tarballDir);
      const filters = PACKAGES.flatMap((name) => ['--filter', `@llmjson/${name}`]);
      const pack = await run(
        'npx',
        ['-y', 'pnpm@10', '-r', ...filters, 'pack', '--pack-destination', tarballDir],
        ROOT,
      );
      if (pack.code !== 0) throw new Error(explain('pnpm pack', pack));
      for (const file of readdirSync(tarballDir)) {
        const name = /^llmjson-([a-z-]+?)-\d+\.\d+\.\d+.*\.tgz$/.exec(file)?.[1];
        if (name !== undefined) tarballs.set(name, join(tarballDir, file));
      }
      const missing = PACKAGES.filter((name) => !tarballs.has(name));
      if (missing.length > 0)
        throw new Error(`pnpm pack made no tarball for ${missing.join(', ')}: ${readdirSync(tarballDir)}`);
      const plain = await project('plain', ['core', 'web', 'node'], []);
      frameworkFree =
        !existsSync(join(plain, 'node_modules', 'ai')) && !existsSync(join(plain, 'node_modules', '@ai-sdk'));
    }, SLOW);

    afterAll(() => {
      if (work !== '') rmSync(work, { recursive: true, force: true });
    }, SLOW);

    it('@llmjson/web and @llmjson/node (with core) install no AI SDK', () => {
      expect(frameworkFree).toBe(true);
    });

    it(
      'the tarball holds README.md, LICENSE and dist, ai as a peer only, and resolved versions',
      async () => {
        const list = await run('tar', ['tzf', tarballs.get('ai-sdk') ?? ''], work);
        expect(list.code, explain('tar tzf', list)).toBe(0);
        const entries = list.stdout.split('\n');
        for (const file of [
          'package/README.md',
          'package/LICENSE',
          'package/dist/index.js',
          'package/dist/index.d.ts',
        ]) {
          expect(entries, `${file} missing from the tarball`).toContain(file);
        }
        expect(entries.filter((entry) => /(^|\/)test\/|\.tsbuildinfo$/.test(entry))).toEqual([]);
        const extract = await run('tar', ['xzf', tarballs.get('ai-sdk') ?? '', 'package/package.json'], work);
        expect(extract.code, explain('tar xzf', extract)).toBe(0);
        const text = readFileSync(join(work, 'package', 'package.json'), 'utf8');
        expect(text, 'a workspace: or catalog: version left in the packed package.json').not.toMatch(
          /"(workspace|catalog):/,
        );
        const manifest = JSON.parse(text);
        expect(manifest.peerDependencies).toEqual({ ai: '>=7.0.0 <8' });
        expect(Object.keys(manifest.dependencies).sort()).toEqual(['@llmjson/core', '@llmjson/web']);
        expect(manifest.sideEffects).toBe(false);
        expect(manifest.engines).toEqual({ node: '>=22' });
      },
      CHECK,
    );

    describe.each([
      ['ai of the workspace tests', 'latest', () => versionIn(PACKAGE_DIR, 'ai')],
      [`ai ${AI_FLOOR}, the floor of the peer range`, 'floor', () => AI_FLOOR],
    ])('beside %s', (_, name, version) => {
      let folder = '';
      beforeAll(async () => {
        folder = await project(name, ['core', 'web', 'ai-sdk'], [`ai@${version()}`, `zod@${versionIn(ROOT, 'zod')}`]);
      }, SLOW);

      it(
        'the AI SDK example runs on the mock model (node run.mjs)',
        async () => {
          expect(versionIn(folder, 'ai')).toBe(version());
          const result = await run('node', ['run.mjs'], folder);
          expect(result.code, explain('node run.mjs', result)).toBe(0);
          expect(result.stdout).toMatch(/object: \d+ partials, the last equals the output: true/);
          expect(result.stdout).toContain('failFast: ContractViolationError at /days (minimum)');
          expect(result.stdout).toContain('jsonl dropped: line 2: schema');
          expect(result.stdout).toContain(
            'array (cut off): [{"name":"Fourvière","hours":2},{"name":"Vieux Lyon","hours":3}]',
          );
          expect(result.stdout).toMatch(/fullStream custom parts: \{"llmjson\.partial":\d+,"llmjson\.value":1\}/);
        },
        CHECK,
      );

      it(
        'a zod-typed consumer type-checks without @types/node (moduleResolution nodenext)',
        async () => {
          const compilerOptions = {
            strict: true,
            exactOptionalPropertyTypes: true,
            noEmit: true,
            target: 'ES2022',
            lib: ['ES2022', 'DOM'],
            types: [],
            module: 'nodenext',
            moduleResolution: 'nodenext',
            // The AI SDK's own declarations are not checked here; ours compile without Node types
            // already (packages/ai-sdk/tsconfig.json: `types: []`).
            skipLibCheck: true,
          };
          writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.mts'] }));
          const result = await run(join(BIN, 'tsc'), ['-p', join(folder, 'tsconfig.json')], folder);
          expect(result.code, explain('tsc: consumer.mts', result)).toBe(0);
        },
        CHECK,
      );
    });

    it(
      'publint --strict finds nothing',
      async () => {
        const result = await run(join(BIN, 'publint'), ['run', tarballs.get('ai-sdk') ?? '', '--strict'], work);
        expect(result.code, explain('publint', result)).toBe(0);
      },
      CHECK,
    );

    it(
      'arethetypeswrong (profile esm-only, as decision 019) finds nothing',
      async () => {
        const args = [
          tarballs.get('ai-sdk') ?? '',
          '--profile',
          'esm-only',
          '--no-definitely-typed',
          '--format',
          'ascii',
        ];
        const result = await run(join(BIN, 'attw'), args, work);
        expect(result.code, explain('attw --profile esm-only', result)).toBe(0);
      },
      CHECK,
    );
  },
);
