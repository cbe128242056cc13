/**
 * @llmjson/react as a user gets it: core, web, node and react are packed from their built dist
 * (`pnpm pack`, which turns `workspace:*` and `catalog:` into versions) and installed with npm into
 * fresh projects outside the workspace — first @llmjson/web and @llmjson/node alone, which must
 * bring no React, then @llmjson/react beside React 19 (the workspace's version), and again beside
 * React 18.0.0, the floor of the peer range. In each, a page is server-rendered in plain Node (idle,
 * nothing started) and recorded answers are mounted in happy-dom under StrictMode to their end
 * (model text and the llmjson wire with useJsonStream, a JSONL answer in prose with useJsonlStream;
 * one request per function source). A typed consumer is type-checked without @types/node or
 * @types/react, and publint and arethetypeswrong check the tarball.
 *
 * The approach (pack, npm install, attw profile) is test/packaging/packaging.test.ts's and decision
 * 019's; it skips, saying so, only when npm cannot reach its registry.
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
const CONSUMER = fileURLToPath(new URL('react-consumer/', import.meta.url));
const ANSWERS = join(ROOT, 'fixtures', 'answers');
const BIN = join(ROOT, 'node_modules', '.bin');
const PACKAGES = ['core', 'web', 'node', 'react'] as const;
/** The floor of the peer range `^18.0.0 || ^19.0.0`. */
const REACT_FLOOR = '18.0.0';
/** Installs from the registry take a while on a cold cache. */
const SLOW = 300_000;
const CHECK = 120_000;

/** The version the workspace installed of `name` (what the tests ran against), from `from`'s node_modules. */
const workspaceVersion = (name: string, from = ROOT): string =>
  JSON.parse(readFileSync(join(from, 'node_modules', name, 'package.json'), 'utf8')).version;

/** A version without its build suffix (React 18.0.0 says `18.0.0-fc46dba67-20220329`). */
const release = (version: string) => version.split('-')[0];

const expected = (name: string) => JSON.parse(readFileSync(join(ANSWERS, `${name}.expected.json`), 'utf8'));

const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=20000'], tmpdir(), 30_000);
const online = ping.code === 0;
if (!online) {
  console.warn(
    `\n*** test/packaging/react SKIPPED: npm cannot reach its registry, so the tarballs cannot be installed.\n${explain('npm ping', ping)}\n`,
  );
}

describe.skipIf(!online)('packaging: @llmjson/react installed with npm in a fresh project beside React', () => {
  let work = '';
  const tarballs = new Map<string, string>();
  let frameworkFree = { react: true, reactDom: true };

  /** A fresh project with the consumer files and the tarballs of `packages`, beside `peers`. */
  async function project(name: string, packages: readonly string[], peers: readonly string[]): Promise<string> {
    const folder = join(work, name);
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'package.json'),
      JSON.stringify({ name: `react-${name}`, private: true, type: 'module' }),
    );
    for (const file of readdirSync(CONSUMER)) copyFileSync(join(CONSUMER, file), join(folder, file));
    const files = packages.map((p) => tarballs.get(p) ?? '');
    const install = await run('npm', ['install', '--no-audit', '--no-fund', ...files, ...peers], folder);
    if (install.code !== 0) throw new Error(explain(`npm install in ${name}`, install));
    return folder;
  }

  /** Type-checks consumer.mts in `folder`: strict, DOM lib, and no ambient types at all. */
  function typecheck(folder: string, resolution: 'nodenext' | 'bundler'): Promise<Result> {
    const modules =
      resolution === 'nodenext'
        ? { module: 'nodenext', moduleResolution: 'nodenext' }
        : { module: 'esnext', moduleResolution: 'bundler' };
    const compilerOptions = {
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      target: 'ES2022',
      lib: ['ES2022', 'DOM'],
      types: [],
      // Off: a .d.ts of ours that names a Node or React type without its types installed must fail.
      skipLibCheck: false,
      ...modules,
    };
    const config = join(folder, `tsconfig.${resolution}.json`);
    writeFileSync(config, JSON.stringify({ compilerOptions, files: ['consumer.mts'] }));
    return run(join(BIN, 'tsc'), ['-p', config], folder);
  }

  const reactVersion = () => workspaceVersion('react', join(ROOT, 'packages', 'react'));

  beforeAll(async () => {
    for (const name of PACKAGES) {
      if (!existsSync(join(ROOT, 'packages', name, 'dist', 'index.js'))) {
        throw new Error(`@llmjson/${name} has no dist/index.js: build first (npx tsc -b; pnpm test does)`);
      }
    }
    work = mkdtempSync(join(tmpdir(), 'llmjson-packaging-react-'));
    const tarballDir = join(work, 'tarballs');
    mkdirSync(tarballDir);
    const filters = PACKAGES.flatMap((name) => ['--filter', `@llmjson/${name}`]);
    const pack = await run('npx', ['-y', 'pnpm@10', '-r', ...filters, 'pack', '--pack-destination', tarballDir], ROOT);
    if (pack.code !== 0) throw new Error(explain('pnpm pack', pack));
    for (const file of readdirSync(tarballDir)) {
      const name = /^llmjson-([a-z]+)-\d+\.\d+\.\d+.*\.tgz$/.exec(file)?.[1];
      if (name !== undefined) tarballs.set(name, join(tarballDir, file));
    }
    const missing = PACKAGES.filter((name) => !tarballs.has(name));
    if (missing.length > 0) {
      throw new Error(`pnpm pack made no tarball for ${missing.join(', ')}: ${readdirSync(tarballDir)}`);
    }
    // happy-dom (which depends on @types/node) above the projects: their own types stay without Node's.
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'react-packaging', private: true }));
    const happy = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', `happy-dom@${workspaceVersion('happy-dom')}`],
      work,
    );
    if (happy.code !== 0) throw new Error(explain('npm install happy-dom', happy));

    const plain = await project('plain', ['core', 'web', 'node'], []);
    frameworkFree = {
      react: !existsSync(join(plain, 'node_modules', 'react')),
      reactDom: !existsSync(join(plain, 'node_modules', 'react-dom')),
    };
  }, SLOW);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  }, SLOW);

  it('@llmjson/web and @llmjson/node (with core) install no React', () => {
    expect(frameworkFree).toEqual({ react: true, reactDom: true });
  });

  it(
    'the tarball holds README.md, LICENSE and dist, React as a peer only, and resolved versions',
    async () => {
      const list = await run('tar', ['tzf', tarballs.get('react') ?? ''], work);
      expect(list.code, explain('tar tzf', list)).toBe(0);
      const entries = list.stdout.split('\n');
      for (const file of ['package/README.md', 'package/LICENSE', 'package/dist/index.js', 'package/dist/index.d.ts']) {
        expect(entries, `${file} missing from the tarball`).toContain(file);
      }
      expect(entries.filter((entry) => /(^|\/)test\/|\.tsbuildinfo$/.test(entry))).toEqual([]);
      const extract = await run('tar', ['xzf', tarballs.get('react') ?? '', 'package/package.json'], work);
      expect(extract.code, explain('tar xzf', extract)).toBe(0);
      const text = readFileSync(join(work, 'package', 'package.json'), 'utf8');
      expect(text, 'a workspace: or catalog: version left in the packed package.json').not.toMatch(
        /"(workspace|catalog):/,
      );
      const manifest = JSON.parse(text);
      expect(manifest.peerDependencies).toEqual({ react: '^18.0.0 || ^19.0.0' });
      expect(Object.keys(manifest.dependencies).sort()).toEqual(['@llmjson/core', '@llmjson/web']);
      expect(manifest.sideEffects).toBe(false);
    },
    CHECK,
  );

  describe.each([
    ['React 19 (the workspace version)', 'latest', () => reactVersion()],
    [`React ${REACT_FLOOR}, the floor of the peer range`, 'floor', () => REACT_FLOOR],
  ])('beside %s', (_, name, version) => {
    let folder = '';
    beforeAll(async () => {
      const peers = [`react@${version()}`, `react-dom@${version()}`, `zod@${workspaceVersion('zod')}`];
      folder = await project(name, ['core', 'web', 'react'], peers);
    }, SLOW);

    it(
      'server rendering in plain Node: the idle state, and no request started (node ssr.mjs)',
      async () => {
        const result = await run('node', ['ssr.mjs'], folder);
        expect(result.code, explain('node ssr.mjs', result)).toBe(0);
        const report = JSON.parse(result.stdout);
        expect(release(report.react)).toBe(version());
        expect({ ...report, react: undefined }).toEqual({
          react: undefined,
          window: 'undefined',
          html: '<main><p>idle:-</p><p>idle:0</p></main>',
          called: 0,
          locked: false,
        });
      },
      CHECK,
    );

    it(
      'mounted in happy-dom under StrictMode: recorded answers read to their end as text, as the wire and as JSONL, one request each (node dom.mjs)',
      async () => {
        const answers = [join(ANSWERS, 'pretty-array.txt'), join(ANSWERS, 'json-fence-prose.txt')];
        const result = await run('node', ['dom.mjs', ...answers], folder);
        expect(result.code, explain('node dom.mjs', result)).toBe(0);
        const report = JSON.parse(result.stdout);
        expect(release(report.react)).toBe(version());
        expect(report.requests).toEqual({ text: 1, wire: 1, jsonl: 1 });
        const planets = expected('pretty-array').values;
        expect(report.text).toEqual({ status: 'done', complete: true, value: planets });
        expect(report.wire).toEqual({ status: 'done', complete: true, value: planets, end: 'end' });
        const lines = expected('json-fence-prose');
        expect(report.jsonl).toEqual({ status: 'done', items: lines.values, diagnostics: lines.diagnostics });
        expect(report.html).toBe(
          '<main><pre id="text">done:2</pre><pre id="wire">done:2</pre><pre id="jsonl">done:3</pre></main>',
        );
      },
      CHECK,
    );

    it.each(['nodenext', 'bundler'] as const)(
      'a zod-typed consumer type-checks without @types/node or @types/react (moduleResolution %s)',
      async (resolution) => {
        expect(existsSync(join(folder, 'node_modules', '@types', 'node')), 'npm installed @types/node').toBe(false);
        const result = await typecheck(folder, resolution);
        expect(result.code, explain(`tsc: consumer.mts (${resolution})`, result)).toBe(0);
      },
      CHECK,
    );
  });

  it(
    'publint --strict finds nothing',
    async () => {
      const result = await run(join(BIN, 'publint'), ['run', tarballs.get('react') ?? '', '--strict'], work);
      expect(result.code, explain('publint', result)).toBe(0);
    },
    CHECK,
  );

  it(
    'arethetypeswrong (profile esm-only, as decision 019) finds nothing',
    async () => {
      const args = [tarballs.get('react') ?? '', '--profile', 'esm-only', '--no-definitely-typed', '--format', 'ascii'];
      const result = await run(join(BIN, 'attw'), args, work);
      expect(result.code, explain('attw --profile esm-only', result)).toBe(0);
    },
    CHECK,
  );
});
