/**
 * The packages as a user gets them: every workspace package is packed (`pnpm -r pack`, which
 * turns `workspace:*` and `catalog:` into versions) from its built dist, and the tarballs are
 * installed with npm into a fresh project outside the workspace. There each package is imported
 * and required, one JSONL answer runs end to end, the `llmjson` bin runs, a consumer file is
 * type-checked (strict + exactOptionalPropertyTypes, nodenext and bundler resolution; core and
 * web without @types/node), and publint and arethetypeswrong check every tarball.
 *
 * It reads no network beyond the npm registry, and skips, saying so, only when npm cannot reach
 * it. Decisions (Node floor, files, attw profile): docs/decisions/019-packaging.md.
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
import { explain, type Result, run } from '../support/packaging.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONSUMER = fileURLToPath(new URL('consumer/', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const PACKAGES = ['core', 'node', 'web', 'contracts', 'cli'] as const;
type PackageName = (typeof PACKAGES)[number];
/** Installs from the registry take a while on a cold cache. */
const SLOW = 300_000;
/** One check: a type-check of a consumer takes about 10 s on a busy two-core machine. */
const CHECK = 120_000;

const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=20000'], tmpdir(), 30_000);
const online = ping.code === 0;
if (!online) {
  console.warn(
    `\n*** test/packaging SKIPPED: npm cannot reach its registry, so the tarballs cannot be installed.\n${explain('npm ping', ping)}\n`,
  );
}

describe.skipIf(!online)('packaging: the packed tarballs installed with npm in a fresh project', () => {
  const started = Date.now();
  let work = '';
  let project = '';
  const tarballs = new Map<PackageName, string>();

  /** Runs the workspace's typescript on a tsconfig generated in the project. */
  async function typecheck(name: string, file: string, compilerOptions: Record<string, unknown>): Promise<Result> {
    const config = join(project, `tsconfig.${name}.json`);
    const options = {
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      target: 'ES2022',
      ...compilerOptions,
    };
    // skipLibCheck stays off: a .d.ts of ours that names a Node type without @types/node must fail.
    writeFileSync(config, JSON.stringify({ compilerOptions: { ...options, skipLibCheck: false }, files: [file] }));
    return run(join(BIN, 'tsc'), ['-p', config], project);
  }

  const resolutions = {
    nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { module: 'esnext', moduleResolution: 'bundler' },
  } as const;

  beforeAll(async () => {
    for (const name of PACKAGES) {
      if (!existsSync(join(ROOT, 'packages', name, 'dist', 'index.js'))) {
        throw new Error(`@llmjson/${name} has no dist/index.js: build first (npx tsc -b; pnpm test does)`);
      }
    }
    work = mkdtempSync(join(tmpdir(), 'llmjson-packaging-'));
    project = join(work, 'project');
    const tarballDir = join(work, 'tarballs');
    mkdirSync(tarballDir);
    const pack = await run('npx', ['-y', 'pnpm@10', '-r', 'pack', '--pack-destination', tarballDir], ROOT);
    if (pack.code !== 0) throw new Error(explain('pnpm -r pack', pack));
    for (const file of readdirSync(tarballDir)) {
      const name = /^llmjson-([a-z]+)-\d+\.\d+\.\d+.*\.tgz$/.exec(file)?.[1];
      if (name !== undefined) tarballs.set(name as PackageName, join(tarballDir, file));
    }
    const missing = PACKAGES.filter((name) => !tarballs.has(name));
    if (missing.length > 0) {
      throw new Error(`pnpm -r pack made no tarball for ${missing.join(', ')}: ${readdirSync(tarballDir)}`);
    }

    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    for (const file of readdirSync(CONSUMER)) copyFileSync(join(CONSUMER, file), join(project, file));
    const install = await run('npm', ['install', '--no-audit', '--no-fund', ...tarballs.values()], project);
    if (install.code !== 0) throw new Error(explain('npm install of the tarballs', install));
  }, SLOW);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
    console.log(`test/packaging: ${((Date.now() - started) / 1000).toFixed(1)} s (pack, npm install, checks)`);
    // Removing the installed project (node_modules of every package) takes seconds on a busy disk.
  }, SLOW);

  it.each(PACKAGES)(
    '@llmjson/%s: the tarball holds README.md, LICENSE, dist and resolved versions',
    async (name) => {
      const tarball = tarballs.get(name) ?? '';
      const list = await run('tar', ['tzf', tarball], work);
      expect(list.code, explain(`tar tzf (${name})`, list)).toBe(0);
      const entries = list.stdout.split('\n');
      const files = ['package/README.md', 'package/LICENSE', 'package/dist/index.js', 'package/dist/index.d.ts'];
      // The bin runs the bundle (packages/cli/scripts/bundle.mjs).
      if (name === 'cli') files.push('package/bundle/llmjson.js', 'package/bundle/batch-pool-worker.js');
      for (const file of files) {
        expect(entries, `@llmjson/${name}: ${file} missing from the tarball`).toContain(file);
      }
      expect(
        entries.filter((entry) => /(^|\/)test\/|\.tsbuildinfo$/.test(entry)),
        `@llmjson/${name}: tests or build info in the tarball`,
      ).toEqual([]);
      const manifest = readFileSync(join(project, 'node_modules', '@llmjson', name, 'package.json'), 'utf8');
      expect(
        manifest,
        `@llmjson/${name}: a workspace: or catalog: version left in the packed package.json`,
      ).not.toMatch(/"(workspace|catalog):/);
    },
    CHECK,
  );

  it(
    'imports every entry point and runs one JSONL answer end to end (node smoke.mjs)',
    async () => {
      const result = await run('node', ['smoke.mjs'], project);
      expect(result.code, explain('node smoke.mjs', result)).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(report.exports, 'an entry point does not export its factory').toEqual({
        core: 'function',
        coreAjv: 'function',
        node: 'function',
        web: 'function',
        webAjv: 'function',
        contracts: 'function',
        cli: 'function',
      });
      const expected = { values: ['ATP', 'stomata->carbon dioxide'], diagnostics: ['schema', 'truncated'] };
      expect(report.node, '@llmjson/node createJsonlStream').toEqual({ ...expected, stats: 2 });
      expect(report.web, '@llmjson/web createJsonlStream').toEqual({ ...expected, stats: 2 });
      expect(report.core, '@llmjson/core parseJsonl').toEqual(expected);
      expect(report.contracts, '@llmjson/contracts parseJsonlResponse (finish reason "length")').toEqual({
        status: 'incomplete',
      });
    },
    CHECK,
  );

  it(
    'require()s every entry point from CommonJS (node require.cjs; Node >= 20.19)',
    async () => {
      const result = await run('node', ['require.cjs'], project);
      expect(result.code, explain('node require.cjs', result)).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(Object.keys(report.loaded)).toHaveLength(8);
      expect(report.values).toEqual([{ a: 1 }, { a: 2 }]);
    },
    CHECK,
  );

  it(
    'npx llmjson --help: exit 0, the modes and the exit codes',
    async () => {
      const result = await run('npx', ['--no', '--', 'llmjson', '--help'], project);
      expect(result.code, explain('npx llmjson --help', result)).toBe(0);
      for (const piece of ['Usage: llmjson', 'jsonl [options] [file]', 'salvage', 'demo', 'Exit codes:']) {
        expect(result.stdout, `npx llmjson --help does not mention ${piece}`).toContain(piece);
      }
    },
    CHECK,
  );

  it(
    'npx llmjson batch --workers 2: the bundled command and its bundled worker threads, with the dependencies npm installed',
    async () => {
      const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
      const lines = Array.from({ length: 400 }, (_, i) =>
        JSON.stringify({ id: `r${i}`, model: 'm', schema, text: i % 4 === 0 ? '{"n": "x"}' : `{"n": ${i}}` }),
      );
      writeFileSync(join(project, 'run.jsonl'), `${lines.join('\n')}\n`);
      const result = await run(
        'npx',
        ['--no', '--', 'llmjson', 'batch', 'run.jsonl', '--schema-field', 'schema', '--workers', '2', '--no-progress'],
        project,
      );
      expect(result.code, explain('npx llmjson batch --workers 2', result)).toBe(0);
      const statuses = result.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { status: string }).status);
      expect(statuses).toEqual(lines.map((_, i) => (i % 4 === 0 ? 'invalid' : 'valid')));
    },
    CHECK,
  );

  it(
    'npx llmjson demo --speed 0: exit 0, objects emitted and a document completed',
    async () => {
      const result = await run('npx', ['--no', '--', 'llmjson', 'demo', '--speed', '0'], project);
      expect(result.code, explain('npx llmjson demo --speed 0', result)).toBe(0);
      for (const piece of ['createJsonlStream', 'objects emitted', 'createPartialStream', 'document complete']) {
        expect(result.stdout, `npx llmjson demo --speed 0 does not print ${piece}`).toContain(piece);
      }
    },
    CHECK,
  );

  it.each(Object.keys(resolutions) as (keyof typeof resolutions)[])(
    '@llmjson/core and @llmjson/web type-check without @types/node (moduleResolution %s)',
    async (resolution) => {
      expect(
        existsSync(join(project, 'node_modules', '@types', 'node')),
        'npm installed @types/node: the check without it would prove nothing',
      ).toBe(false);
      const result = await typecheck(`web-${resolution}`, 'web-consumer.mts', {
        ...resolutions[resolution],
        lib: ['ES2022', 'DOM'],
        types: [],
      });
      expect(result.code, explain(`tsc: web-consumer.mts (core + web, no @types/node, ${resolution})`, result)).toBe(0);
    },
    CHECK,
  );

  describe('with @types/node, the optional peer of @llmjson/node, contracts and cli', () => {
    beforeAll(async () => {
      // The workspace's own version: it satisfies the peer range the packages declare.
      const version = JSON.parse(readFileSync(join(ROOT, 'node_modules', '@types', 'node', 'package.json'), 'utf8'));
      const install = await run(
        'npm',
        ['install', '--no-audit', '--no-fund', `@types/node@${version.version}`],
        project,
      );
      if (install.code !== 0) throw new Error(explain('npm install @types/node', install));
    }, SLOW);

    it.each(Object.keys(resolutions) as (keyof typeof resolutions)[])(
      '@llmjson/node, contracts and cli type-check (moduleResolution %s)',
      async (resolution) => {
        const result = await typecheck(`node-${resolution}`, 'node-consumer.mts', {
          ...resolutions[resolution],
          lib: ['ES2022'],
          types: ['node'],
        });
        expect(result.code, explain(`tsc: node-consumer.mts (node + contracts + cli, ${resolution})`, result)).toBe(0);
      },
      CHECK,
    );
  });

  it.each(PACKAGES)(
    '@llmjson/%s: publint --strict finds nothing',
    async (name) => {
      const result = await run(join(BIN, 'publint'), ['run', tarballs.get(name) ?? '', '--strict'], work);
      expect(result.code, explain(`publint (@llmjson/${name})`, result)).toBe(0);
    },
    CHECK,
  );

  // esm-only: the packages are ESM only by decision (019), so attw's node10 and
  // CommonJS-from-node16 rows (which model a require() that Node >= 20.19 now supports) are out of
  // scope; every ESM and bundler resolution of every entry point must be clean.
  it.each(PACKAGES)(
    '@llmjson/%s: arethetypeswrong (profile esm-only) finds nothing',
    async (name) => {
      const args = [tarballs.get(name) ?? '', '--profile', 'esm-only', '--no-definitely-typed', '--format', 'ascii'];
      const result = await run(join(BIN, 'attw'), args, work);
      expect(result.code, explain(`attw --profile esm-only (@llmjson/${name})`, result)).toBe(0);
    },
    CHECK,
  );
});
