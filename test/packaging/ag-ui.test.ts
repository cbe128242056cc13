/**
 * @llmjson/ag-ui as a user gets it: core, web, node and ag-ui are packed from their built dist
 * (`pnpm pack`, which turns `workspace:*` and `catalog:` into versions) and installed with npm into
 * fresh projects outside the workspace — first @llmjson/web and @llmjson/node alone, which must
 * bring no AG-UI package, then @llmjson/ag-ui beside @ag-ui/core (the workspace's version) and
 * zod, where the AG-UI example (examples/ag-ui/run.mjs) runs to its end. A typed consumer is
 * type-checked without @types/node, and publint and arethetypeswrong check the tarball.
 *
 * The approach (pack, npm install, attw profile) is test/packaging/packaging.test.ts's and decision
 * 019's, as test/packaging/react.test.ts does it; it skips, saying so, only when npm cannot reach
 * its registry.
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
const CONSUMER = fileURLToPath(new URL('ag-ui-consumer/', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'ag-ui', 'run.mjs');
const BIN = join(ROOT, 'node_modules', '.bin');
const PACKAGES = ['core', 'web', 'node', 'ag-ui'] as const;
const SLOW = 300_000;
const CHECK = 120_000;

/** The version the workspace installed of `name`, from `from`'s node_modules. */
const workspaceVersion = (name: string, from = ROOT): string =>
  JSON.parse(readFileSync(join(from, 'node_modules', name, 'package.json'), 'utf8')).version;

const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=20000'], tmpdir(), 30_000);
const online = ping.code === 0;
if (!online) {
  console.warn(
    `\n*** test/packaging/ag-ui SKIPPED: npm cannot reach its registry, so the tarballs cannot be installed.\n${explain('npm ping', ping)}\n`,
  );
}

describe.skipIf(!online)('packaging: @llmjson/ag-ui installed with npm in a fresh project beside @ag-ui/core', () => {
  let work = '';
  const tarballs = new Map<string, string>();
  let agUiFree = true;
  let folder = '';

  async function project(name: string, packages: readonly string[], peers: readonly string[]): Promise<string> {
    const dir = join(work, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `ag-ui-${name}`, private: true, type: 'module' }));
    for (const file of readdirSync(CONSUMER)) copyFileSync(join(CONSUMER, file), join(dir, file));
    const files = packages.map((p) => tarballs.get(p) ?? '');
    const install = await run('npm', ['install', '--no-audit', '--no-fund', ...files, ...peers], dir);
    if (install.code !== 0) throw new Error(explain(`npm install in ${name}`, install));
    return dir;
  }

  beforeAll(async () => {
    for (const name of PACKAGES) {
      if (!existsSync(join(ROOT, 'packages', name, 'dist', 'index.js'))) {
        throw new Error(`@llmjson/${name} has no dist/index.js: build first (npx tsc -b; pnpm test does)`);
      }
    }
    work = mkdtempSync(join(tmpdir(), 'llmjson-packaging-ag-ui-'));
    const tarballDir = join(work, 'tarballs');
    mkdirSync(tarballDir);
    const filters = PACKAGES.flatMap((name) => ['--filter', `@llmjson/${name}`]);
    const pack = await run('npx', ['-y', 'pnpm@10', '-r', ...filters, 'pack', '--pack-destination', tarballDir], ROOT);
    if (pack.code !== 0) throw new Error(explain('pnpm pack', pack));
    for (const file of readdirSync(tarballDir)) {
      const name = /^llmjson-([a-z-]+?)-\d+\.\d+\.\d+.*\.tgz$/.exec(file)?.[1];
      if (name !== undefined) tarballs.set(name, join(tarballDir, file));
    }
    const missing = PACKAGES.filter((name) => !tarballs.has(name));
    if (missing.length > 0) {
      throw new Error(`pnpm pack made no tarball for ${missing.join(', ')}: ${readdirSync(tarballDir)}`);
    }
    const plain = await project('plain', ['core', 'web', 'node'], []);
    agUiFree = !existsSync(join(plain, 'node_modules', '@ag-ui'));
    const agUi = workspaceVersion('@ag-ui/core', join(ROOT, 'packages', 'ag-ui'));
    folder = await project(
      'adapter',
      ['core', 'web', 'ag-ui'],
      [`@ag-ui/core@${agUi}`, `zod@${workspaceVersion('zod')}`],
    );
  }, SLOW);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  }, SLOW);

  it('@llmjson/web and @llmjson/node (with core) install no AG-UI package', () => {
    expect(agUiFree).toBe(true);
  });

  it(
    'the tarball holds README.md, LICENSE and dist, @ag-ui/core as a peer only, and resolved versions',
    async () => {
      const tarball = tarballs.get('ag-ui') ?? '';
      const list = await run('tar', ['tzf', tarball], work);
      expect(list.code, explain('tar tzf', list)).toBe(0);
      const entries = list.stdout.split('\n');
      for (const file of ['package/README.md', 'package/LICENSE', 'package/dist/index.js', 'package/dist/index.d.ts']) {
        expect(entries, `${file} missing from the tarball`).toContain(file);
      }
      expect(entries.filter((entry) => /(^|\/)test\/|\.tsbuildinfo$/.test(entry))).toEqual([]);
      const extract = await run('tar', ['xzf', tarball, 'package/package.json'], work);
      expect(extract.code, explain('tar xzf', extract)).toBe(0);
      const text = readFileSync(join(work, 'package', 'package.json'), 'utf8');
      expect(text, 'a workspace: or catalog: version left in the packed package.json').not.toMatch(
        /"(workspace|catalog):/,
      );
      const manifest = JSON.parse(text);
      expect(manifest.peerDependencies).toEqual({ '@ag-ui/core': '^1.0.0' });
      expect(Object.keys(manifest.dependencies).sort()).toEqual(['@llmjson/core', '@llmjson/web']);
      expect(manifest.sideEffects).toBe(false);
    },
    CHECK,
  );

  it(
    'the AG-UI example runs to its end in the fresh project (node run.mjs)',
    async () => {
      copyFileSync(EXAMPLE, join(folder, 'run.mjs'));
      const result = await run('node', ['run.mjs'], folder);
      expect(result.code, explain('node run.mjs', result)).toBe(0);
      expect(result.stdout).toContain('out: 13 events, all valid per @ag-ui/core: true');
      expect(result.stdout).toContain('out with failFast: RUN_ERROR CONTRACT_VALIDATION_FAILED');
      expect(result.stdout).toContain('in: get_weather done {"city":"Lisbon","unit":"celsius"}');
      expect(result.stdout).toContain('state read back equals the answer: true');
    },
    CHECK,
  );

  it.each(['nodenext', 'bundler'] as const)(
    'a zod-typed consumer type-checks without @types/node (moduleResolution %s)',
    async (resolution) => {
      expect(existsSync(join(folder, 'node_modules', '@types', 'node')), 'npm installed @types/node').toBe(false);
      const modules =
        resolution === 'nodenext'
          ? { module: 'nodenext', moduleResolution: 'nodenext' }
          : { module: 'esnext', moduleResolution: 'bundler' };
      const compilerOptions = {
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        target: 'ES2022',
        lib: ['ES2022', 'DOM', 'DOM.AsyncIterable'],
        types: [],
        skipLibCheck: false,
        ...modules,
      };
      const config = join(folder, `tsconfig.${resolution}.json`);
      writeFileSync(config, JSON.stringify({ compilerOptions, files: ['consumer.mts'] }));
      const result = await run(join(BIN, 'tsc'), ['-p', config], folder);
      expect(result.code, explain(`tsc: consumer.mts (${resolution})`, result)).toBe(0);
    },
    CHECK,
  );

  it(
    'publint --strict finds nothing',
    async () => {
      const result = await run(join(BIN, 'publint'), ['run', tarballs.get('ag-ui') ?? '', '--strict'], work);
      expect(result.code, explain('publint', result)).toBe(0);
    },
    CHECK,
  );

  it(
    'arethetypeswrong (profile esm-only, as decision 019) finds nothing',
    async () => {
      const args = [tarballs.get('ag-ui') ?? '', '--profile', 'esm-only', '--no-definitely-typed', '--format', 'ascii'];
      const result = await run(join(BIN, 'attw'), args, work);
      expect(result.code, explain('attw --profile esm-only', result)).toBe(0);
    },
    CHECK,
  );
});
