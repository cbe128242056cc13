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

import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  announceSkip,
  BIN,
  CHECK_TIMEOUT as CHECK,
  explain,
  PackedPackages,
  ROOT,
  registryProblem,
  run,
  INSTALL_TIMEOUT as SLOW,
  tarballLintTests,
  workspaceVersion,
} from '../support/packaging.js';

const CONSUMER = fileURLToPath(new URL('ag-ui-consumer/', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'ag-ui', 'run.mjs');

const offline = await registryProblem();
if (offline !== undefined) announceSkip('ag-ui', `${offline} The tarballs cannot be installed.`);

describe.skipIf(offline !== undefined)(
  'packaging: @llmjson/ag-ui installed with npm in a fresh project beside @ag-ui/core',
  () => {
    const packed = new PackedPackages('ag-ui', ['core', 'web', 'node', 'ag-ui']);
    let agUiFree = true;
    let folder = '';
    const project = (name: string, packages: readonly string[], peers: readonly string[]) =>
      packed.project(name, packages, peers, { consumer: CONSUMER });

    beforeAll(async () => {
      await packed.pack();
      const plain = await project('plain', ['core', 'web', 'node'], []);
      agUiFree = !existsSync(join(plain, 'node_modules', '@ag-ui'));
      const agUi = workspaceVersion('@ag-ui/core', join(ROOT, 'packages', 'ag-ui'));
      folder = await project(
        'adapter',
        ['core', 'web', 'ag-ui'],
        [`@ag-ui/core@${agUi}`, `zod@${workspaceVersion('zod')}`],
      );
    }, SLOW);

    afterAll(() => packed.remove(), SLOW);

    it('@llmjson/web and @llmjson/node (with core) install no AG-UI package', () => {
      expect(agUiFree).toBe(true);
    });

    it(
      'the tarball holds README.md, LICENSE and dist, @ag-ui/core as a peer only, and resolved versions',
      async () => {
        const manifest = await packed.checkedManifest('ag-ui');
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

    tarballLintTests(packed, 'ag-ui');
  },
);
