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

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
  typecheckConsumer,
  workspaceVersion,
} from '../support/packaging.js';

const CONSUMER = fileURLToPath(new URL('react-consumer/', import.meta.url));
const ANSWERS = join(ROOT, 'fixtures', 'answers');
/** The floor of the peer range `^18.0.0 || ^19.0.0`. */
const REACT_FLOOR = '18.0.0';

/** A version without its build suffix (React 18.0.0 says `18.0.0-fc46dba67-20220329`). */
const release = (version: string) => version.split('-')[0];

const expected = (name: string) => JSON.parse(readFileSync(join(ANSWERS, `${name}.expected.json`), 'utf8'));

const offline = await registryProblem();
if (offline !== undefined) announceSkip('react', `${offline} The tarballs cannot be installed.`);

describe.skipIf(offline !== undefined)(
  'packaging: @llmjson/react installed with npm in a fresh project beside React',
  () => {
    const packed = new PackedPackages('react', ['core', 'web', 'node', 'react']);
    let work = '';
    let frameworkFree = { react: true, reactDom: true };

    /** A fresh project with the consumer files and the tarballs of `packages`, beside `peers`. */
    const project = (name: string, packages: readonly string[], peers: readonly string[]) =>
      packed.project(name, packages, peers, { consumer: CONSUMER });

    const typecheck = typecheckConsumer;

    const reactVersion = () => workspaceVersion('react', join(ROOT, 'packages', 'react'));

    beforeAll(async () => {
      await packed.pack();
      work = packed.work;
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

    afterAll(() => packed.remove(), SLOW);

    it('@llmjson/web and @llmjson/node (with core) install no React', () => {
      expect(frameworkFree).toEqual({ react: true, reactDom: true });
    });

    it(
      'the tarball holds README.md, LICENSE and dist, React as a peer only, and resolved versions',
      async () => {
        const manifest = await packed.checkedManifest('react');
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

    tarballLintTests(packed, 'react');
  },
);
