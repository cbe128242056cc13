/**
 * @llmjson/langchain as a user gets it: core, web, node and langchain are packed from their built
 * dist (`pnpm pack`, which turns `workspace:*` and `catalog:` into versions) and installed with
 * npm into fresh projects outside the workspace: first @llmjson/web and @llmjson/node alone, which
 * must bring no LangChain, then @llmjson/langchain beside @langchain/core (the workspace's
 * version, and 1.0.0, the floor of the peer range `^1.0.0`). In each, the LangChain example
 * (examples/langchain/run.mjs) runs against LangChain's fake streaming chat model; a typed
 * consumer is type-checked without @types/node; publint and arethetypeswrong check the tarball.
 *
 * The approach is test/packaging/react.test.ts's (decision 019); it skips, saying so, only when
 * npm cannot reach its registry.
 */

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
import { explain, run } from '../support/packaging.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONSUMER = fileURLToPath(new URL('langchain-consumer/', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'langchain', 'run.mjs');
const BIN = join(ROOT, 'node_modules', '.bin');
const PACKAGES = ['core', 'web', 'node', 'langchain'] as const;
/** The floor of the peer range `^1.0.0`. */
const LANGCHAIN_FLOOR = '1.0.0';
/** Installs from the registry take a while on a cold cache. */
const SLOW = 300_000;
const CHECK = 120_000;

/** The version the workspace installed of `name` (what the tests ran against), from `from`'s node_modules. */
const workspaceVersion = (name: string, from = ROOT): string =>
  JSON.parse(readFileSync(join(from, 'node_modules', name, 'package.json'), 'utf8')).version;

const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=20000'], tmpdir(), 30_000);
const online = ping.code === 0;
if (!online) {
  console.warn(
    `\n*** test/packaging/langchain SKIPPED: npm cannot reach its registry, so the tarballs cannot be installed.\n${explain('npm ping', ping)}\n`,
  );
}

describe.skipIf(!online)(
  'packaging: @llmjson/langchain installed with npm in a fresh project beside @langchain/core',
  () => {
    let work = '';
    const tarballs = new Map<string, string>();
    let frameworkFree = false;

    /** A fresh project with the consumer files, the example and the tarballs of `packages`, beside `peers`. */
    async function project(name: string, packages: readonly string[], peers: readonly string[]): Promise<string> {
      const folder = join(work, name);
      mkdirSync(folder);
      writeFileSync(
        join(folder, 'package.json'),
        JSON.stringify({ name: `langchain-${name}`, private: true, type: 'module' }),
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
      work = mkdtempSync(join(tmpdir(), 'llmjson-packaging-langchain-'));
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
        const name = /^llmjson-([a-z]+)-\d+\.\d+\.\d+.*\.tgz$/.exec(file)?.[1];
        if (name !== undefined) tarballs.set(name, join(tarballDir, file));
      }
      const missing = PACKAGES.filter((name) => !tarballs.has(name));
      if (missing.length > 0) {
        throw new Error(`pnpm pack made no tarball for ${missing.join(', ')}: ${readdirSync(tarballDir)}`);
      }
      const plain = await project('plain', ['core', 'web', 'node'], []);
      frameworkFree = !existsSync(join(plain, 'node_modules', '@langchain'));
    }, SLOW);

    afterAll(() => {
      if (work !== '') rmSync(work, { recursive: true, force: true });
    }, SLOW);

    it('@llmjson/web and @llmjson/node (with core) install no LangChain', () => {
      expect(frameworkFree).toBe(true);
    });

    it(
      'the tarball holds README.md, LICENSE and dist, @langchain/core as a peer only, and resolved versions',
      async () => {
        const list = await run('tar', ['tzf', tarballs.get('langchain') ?? ''], work);
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
        const extract = await run('tar', ['xzf', tarballs.get('langchain') ?? '', 'package/package.json'], work);
        expect(extract.code, explain('tar xzf', extract)).toBe(0);
        const text = readFileSync(join(work, 'package', 'package.json'), 'utf8');
        expect(text, 'a workspace: or catalog: version left in the packed package.json').not.toMatch(
          /"(workspace|catalog):/,
        );
        const manifest = JSON.parse(text);
        expect(manifest.peerDependencies).toEqual({ '@langchain/core': '^1.0.0' });
        expect(Object.keys(manifest.dependencies).sort()).toEqual(['@llmjson/core', '@llmjson/web']);
        expect(manifest.sideEffects).toBe(false);
      },
      CHECK,
    );

    describe.each([
      ['@langchain/core of the workspace', 'latest', () => workspaceVersion('@langchain/core')],
      [`@langchain/core ${LANGCHAIN_FLOOR}, the floor of the peer range`, 'floor', () => LANGCHAIN_FLOOR],
    ])('beside %s', (_, name, version) => {
      let folder = '';
      beforeAll(async () => {
        folder = await project(
          name,
          ['core', 'web', 'langchain'],
          [`@langchain/core@${version()}`, `zod@${workspaceVersion('zod')}`],
        );
      }, SLOW);

      it(
        'the LangChain example runs on the fake streaming chat model (node run.mjs)',
        async () => {
          expect(workspaceVersion('@langchain/core', folder)).toBe(version());
          const result = await run('node', ['run.mjs'], folder);
          expect(result.code, explain('node run.mjs', result)).toBe(0);
          expect(result.stdout).toMatch(/values: \d+ partials, the last equals JSON\.parse: true/);
          expect(result.stdout).toContain('violation: LlmjsonOutputParserException: violation at /days (minimum)');
          expect(result.stdout).toContain('jsonl dropped: line 3: schema');
          expect(result.stdout).toContain('salvage: Lyon, 2 days, 2 stops');
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
            // On: @langchain/core's and langsmith's own declarations fail strict checks
            // (exactOptionalPropertyTypes, Symbol.asyncDispose on ES2022). Ours compile without Node
            // types already (packages/langchain/tsconfig.json: `types: []`).
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
        const result = await run(join(BIN, 'publint'), ['run', tarballs.get('langchain') ?? '', '--strict'], work);
        expect(result.code, explain('publint', result)).toBe(0);
      },
      CHECK,
    );

    it(
      'arethetypeswrong (profile esm-only, as decision 019) finds nothing',
      async () => {
        const args = [
          tarballs.get('langchain') ?? '',
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
