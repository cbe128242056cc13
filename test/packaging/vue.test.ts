/**
 * @llmjson/vue as a user gets it: core, web and vue are packed from their built dist (`pnpm pack`,
 * which turns `workspace:*` and `catalog:` into versions) and installed with npm into a fresh
 * project outside the workspace, beside the Vue peer (the workspace's version). There a page is
 * server-rendered in plain Node (idle, nothing started), recorded answers are mounted in
 * happy-dom to their end (model text and the llmjson wire with useJsonStream, a JSONL answer in
 * prose with useJsonlStream), a typed consumer is type-checked without @types/node, and publint
 * and arethetypeswrong check the tarball; beside Vue 3.3 (the floor of the peer range) the page
 * renders on the server and the consumer type-checks too. @llmjson/web itself must install no Vue.
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
const CONSUMER = fileURLToPath(new URL('vue-consumer/', import.meta.url));
const ANSWERS = join(ROOT, 'fixtures', 'answers');
const BIN = join(ROOT, 'node_modules', '.bin');
const PACKAGES = ['core', 'web', 'vue'] as const;
/** Installs from the registry take a while on a cold cache. */
const SLOW = 300_000;
const CHECK = 120_000;
/** The floor of the peer range (^3.3.0), at 3.3's last patch release: `toValue` and `MaybeRefOrGetter` came in 3.3. */
const VUE_FLOOR = '3.3.13';

/** The version the workspace installed of `name` (what the tests ran against). */
const workspaceVersion = (name: string): string =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

const expected = (name: string) => JSON.parse(readFileSync(join(ANSWERS, `${name}.expected.json`), 'utf8'));

/** Type-checks consumer.mts in `folder` under `resolution`: strict, DOM lib, no Node types. */
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
    // Off: a .d.ts of ours that names a Node type, or a Vue type the installed Vue lacks, must fail.
    skipLibCheck: false,
    ...modules,
  };
  const config = join(folder, `tsconfig.${resolution}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions, files: ['consumer.mts'] }));
  return run(join(BIN, 'tsc'), ['-p', config], folder);
}

const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=20000'], tmpdir(), 30_000);
const online = ping.code === 0;
if (!online) {
  console.warn(
    `\n*** test/packaging/vue SKIPPED: npm cannot reach its registry, so the tarballs cannot be installed.\n${explain('npm ping', ping)}\n`,
  );
}

describe.skipIf(!online)('packaging: @llmjson/vue installed with npm in a fresh project beside Vue', () => {
  let work = '';
  let project = '';
  let dom = '';
  let webBroughtVue: boolean | undefined;
  const tarballs = new Map<string, string>();

  beforeAll(async () => {
    for (const name of PACKAGES) {
      if (!existsSync(join(ROOT, 'packages', name, 'dist', 'index.js'))) {
        throw new Error(`@llmjson/${name} has no dist/index.js: build first (npx tsc -b; pnpm test does)`);
      }
    }
    work = mkdtempSync(join(tmpdir(), 'llmjson-packaging-vue-'));
    project = join(work, 'project');
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
    if (missing.length > 0)
      throw new Error(`pnpm pack made no tarball for ${missing.join(', ')}: ${readdirSync(tarballDir)}`);

    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'vue-consumer', private: true, type: 'module' }),
    );
    for (const file of ['ssr.mjs', 'consumer.mts']) copyFileSync(join(CONSUMER, file), join(project, file));
    // The recorded answers: a fenced, pretty-printed JSON array, and JSONL lines in prose and a fence.
    copyFileSync(join(ANSWERS, 'pretty-array.txt'), join(project, 'answer.txt'));
    copyFileSync(join(ANSWERS, 'json-fence-prose.txt'), join(project, 'lines.txt'));

    // @llmjson/web alone first: it must bring no framework.
    const web = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', tarballs.get('core') ?? '', tarballs.get('web') ?? ''],
      project,
    );
    if (web.code !== 0) throw new Error(explain('npm install of core and web', web));
    webBroughtVue = existsSync(join(project, 'node_modules', 'vue'));

    const peers = ['vue', 'zod'].map((name) => `${name}@${workspaceVersion(name)}`);
    const install = await run('npm', ['install', '--no-audit', '--no-fund', ...tarballs.values(), ...peers], project);
    if (install.code !== 0) throw new Error(explain('npm install of the tarballs and Vue', install));
    // happy-dom (which depends on @types/node) in a folder of its own: the project stays without Node types.
    dom = join(project, 'dom');
    mkdirSync(dom);
    writeFileSync(
      join(dom, 'package.json'),
      JSON.stringify({ name: 'vue-consumer-dom', private: true, type: 'module' }),
    );
    copyFileSync(join(CONSUMER, 'dom.mjs'), join(dom, 'dom.mjs'));
    const happy = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', `happy-dom@${workspaceVersion('happy-dom')}`],
      dom,
    );
    if (happy.code !== 0) throw new Error(explain('npm install happy-dom', happy));
  }, SLOW);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  }, SLOW);

  it('@llmjson/web (with core) installs no Vue', () => {
    expect(webBroughtVue).toBe(false);
  });

  it(
    'the tarball holds README.md, LICENSE and dist, Vue as a peer only, and resolved versions',
    async () => {
      const list = await run('tar', ['tzf', tarballs.get('vue') ?? ''], work);
      expect(list.code, explain('tar tzf', list)).toBe(0);
      const entries = list.stdout.split('\n');
      for (const file of ['package/README.md', 'package/LICENSE', 'package/dist/index.js', 'package/dist/index.d.ts']) {
        expect(entries, `${file} missing from the tarball`).toContain(file);
      }
      expect(entries.filter((entry) => /(^|\/)test\/|\.tsbuildinfo$/.test(entry))).toEqual([]);
      const manifest = JSON.parse(
        readFileSync(join(project, 'node_modules', '@llmjson', 'vue', 'package.json'), 'utf8'),
      );
      expect(JSON.stringify(manifest), 'a workspace: or catalog: version left in the packed package.json').not.toMatch(
        /"(workspace|catalog):/,
      );
      expect(manifest.peerDependencies).toEqual({ vue: '^3.3.0' });
      expect(Object.keys(manifest.dependencies).sort()).toEqual(['@llmjson/core', '@llmjson/web']);
    },
    CHECK,
  );

  it(
    'server rendering in plain Node: the idle state, and no request started (node ssr.mjs)',
    async () => {
      const result = await run('node', ['ssr.mjs'], project);
      expect(result.code, explain('node ssr.mjs', result)).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        window: 'undefined',
        html: '<main><p>idle:-</p><p>idle:0</p></main>',
        called: 0,
        locked: false,
      });
    },
    CHECK,
  );

  it(
    'mounted in happy-dom: recorded answers read to their end as text, as the wire, and as JSONL (node dom.mjs)',
    async () => {
      const result = await run('node', ['dom.mjs'], dom);
      expect(result.code, explain('node dom.mjs', result)).toBe(0);
      const report = JSON.parse(result.stdout);
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
    'a zod-typed consumer type-checks without @types/node (moduleResolution %s)',
    async (resolution) => {
      expect(existsSync(join(project, 'node_modules', '@types', 'node')), 'npm installed @types/node').toBe(false);
      const result = await typecheck(project, resolution);
      expect(result.code, explain(`tsc: consumer.mts (${resolution})`, result)).toBe(0);
    },
    CHECK,
  );

  describe(`beside Vue ${VUE_FLOOR}, the floor of the peer range`, () => {
    let floor = '';
    beforeAll(async () => {
      floor = join(work, 'floor');
      mkdirSync(floor);
      writeFileSync(join(floor, 'package.json'), JSON.stringify({ name: 'vue-floor', private: true, type: 'module' }));
      for (const file of ['ssr.mjs', 'consumer.mts']) copyFileSync(join(CONSUMER, file), join(floor, file));
      const peers = [`vue@${VUE_FLOOR}`, `zod@${workspaceVersion('zod')}`];
      const install = await run('npm', ['install', '--no-audit', '--no-fund', ...tarballs.values(), ...peers], floor);
      if (install.code !== 0) throw new Error(explain(`npm install of the tarballs and vue@${VUE_FLOOR}`, install));
    }, SLOW);

    it(
      'server rendering: the idle state, no request started; the consumer type-checks (nodenext)',
      async () => {
        const version = JSON.parse(readFileSync(join(floor, 'node_modules', 'vue', 'package.json'), 'utf8')).version;
        expect(version).toBe(VUE_FLOOR);
        const ssr = await run('node', ['ssr.mjs'], floor);
        expect(ssr.code, explain('node ssr.mjs', ssr)).toBe(0);
        expect(JSON.parse(ssr.stdout)).toMatchObject({ html: '<main><p>idle:-</p><p>idle:0</p></main>', called: 0 });
        const types = await typecheck(floor, 'nodenext');
        expect(types.code, explain(`tsc: consumer.mts (vue ${VUE_FLOOR})`, types)).toBe(0);
      },
      CHECK,
    );
  });

  it(
    'publint --strict finds nothing',
    async () => {
      const result = await run(join(BIN, 'publint'), ['run', tarballs.get('vue') ?? '', '--strict'], work);
      expect(result.code, explain('publint', result)).toBe(0);
    },
    CHECK,
  );

  it(
    'arethetypeswrong (profile esm-only, as decision 019) finds nothing',
    async () => {
      const args = [tarballs.get('vue') ?? '', '--profile', 'esm-only', '--no-definitely-typed', '--format', 'ascii'];
      const result = await run(join(BIN, 'attw'), args, work);
      expect(result.code, explain('attw --profile esm-only', result)).toBe(0);
    },
    CHECK,
  );
});
