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

import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  announceSkip,
  CHECK_TIMEOUT as CHECK,
  explain,
  PackedPackages,
  ROOT,
  registryProblem,
  run,
  INSTALL_TIMEOUT as SLOW,
  tarballLintTests,
  typecheckConsumer as typecheck,
  workspaceVersion,
} from '../support/packaging.js';

const CONSUMER = fileURLToPath(new URL('vue-consumer/', import.meta.url));
const ANSWERS = join(ROOT, 'fixtures', 'answers');
/** The floor of the peer range (^3.3.0), at 3.3's last patch release: `toValue` and `MaybeRefOrGetter` came in 3.3. */
const VUE_FLOOR = '3.3.13';

const expected = (name: string) => JSON.parse(readFileSync(join(ANSWERS, `${name}.expected.json`), 'utf8'));

const offline = await registryProblem();
if (offline !== undefined) announceSkip('vue', `${offline} The tarballs cannot be installed.`);

describe.skipIf(offline !== undefined)(
  'packaging: @llmjson/vue installed with npm in a fresh project beside Vue',
  () => {
    const packed = new PackedPackages('vue', ['core', 'web', 'vue']);
    let work = '';
    let project = '';
    let dom = '';
    let webBroughtVue: boolean | undefined;

    beforeAll(async () => {
      await packed.pack();
      work = packed.work;
      project = join(work, 'project');

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
        ['install', '--no-audit', '--no-fund', packed.tarball('core'), packed.tarball('web')],
        project,
      );
      if (web.code !== 0) throw new Error(explain('npm install of core and web', web));
      webBroughtVue = existsSync(join(project, 'node_modules', 'vue'));

      const peers = ['vue', 'zod'].map((name) => `${name}@${workspaceVersion(name)}`);
      const install = await run(
        'npm',
        ['install', '--no-audit', '--no-fund', ...packed.tarballs.values(), ...peers],
        project,
      );
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

    afterAll(() => packed.remove(), SLOW);

    it('@llmjson/web (with core) installs no Vue', () => {
      expect(webBroughtVue).toBe(false);
    });

    it(
      'the tarball holds README.md, LICENSE and dist, Vue as a peer only, and resolved versions',
      async () => {
        const manifest = await packed.checkedManifest('vue');
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
        writeFileSync(
          join(floor, 'package.json'),
          JSON.stringify({ name: 'vue-floor', private: true, type: 'module' }),
        );
        for (const file of ['ssr.mjs', 'consumer.mts']) copyFileSync(join(CONSUMER, file), join(floor, file));
        const peers = [`vue@${VUE_FLOOR}`, `zod@${workspaceVersion('zod')}`];
        const install = await run(
          'npm',
          ['install', '--no-audit', '--no-fund', ...packed.tarballs.values(), ...peers],
          floor,
        );
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

    tarballLintTests(packed, 'vue');
  },
);
