/**
 * @llmjson/tanstack-ai as a user gets it: core, web, node and tanstack-ai are packed from their
 * built dist (`pnpm pack`, which turns `workspace:*` and `catalog:` into versions) and installed
 * with npm into fresh projects outside the workspace: first @llmjson/web and @llmjson/node alone,
 * which must bring no TanStack AI, then @llmjson/tanstack-ai beside @tanstack/ai (the workspace's
 * version, and the floor of the peer range). In each, the TanStack AI example
 * (examples/tanstack-ai/run.mjs) runs its recorded tool calls through TanStack's StreamProcessor;
 * a typed consumer is type-checked without @types/node; publint and arethetypeswrong check the
 * tarball.
 *
 * The approach is test/packaging/react.test.ts's (decision 019); it skips, saying so, only when
 * npm cannot reach its registry.
 */

import { existsSync, writeFileSync } from 'node:fs';
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

const FILES = {
  consumer: fileURLToPath(new URL('tanstack-ai-consumer/', import.meta.url)),
  example: join(ROOT, 'examples', 'tanstack-ai', 'run.mjs'),
};
/** Where the workspace installed @tanstack/ai (the adapter's devDependency). */
const TANSTACK = join(ROOT, 'packages', 'tanstack-ai');
/** The floor of the peer range `>=0.48.0 <1`. */
const TANSTACK_FLOOR = '0.48.0';

const offline = await registryProblem();
if (offline !== undefined) announceSkip('tanstack-ai', `${offline} The tarballs cannot be installed.`);

describe.skipIf(offline !== undefined)(
  'packaging: @llmjson/tanstack-ai installed with npm in a fresh project beside @tanstack/ai',
  () => {
    const packed = new PackedPackages('tanstack-ai', ['core', 'web', 'node', 'tanstack-ai']);
    let frameworkFree = false;
    const project = (name: string, packages: readonly string[], peers: readonly string[]) =>
      packed.project(name, packages, peers, FILES);

    beforeAll(async () => {
      await packed.pack();
      const plain = await project('plain', ['core', 'web', 'node'], []);
      frameworkFree = !existsSync(join(plain, 'node_modules', '@tanstack'));
    }, SLOW);

    afterAll(() => packed.remove(), SLOW);

    it('@llmjson/web and @llmjson/node (with core) install no TanStack AI', () => {
      expect(frameworkFree).toBe(true);
    });

    it(
      'the tarball holds README.md, LICENSE and dist, @tanstack/ai as a peer only, and resolved versions',
      async () => {
        const manifest = await packed.checkedManifest('tanstack-ai');
        expect(manifest.peerDependencies).toEqual({ '@tanstack/ai': `>=${TANSTACK_FLOOR} <1` });
        expect(Object.keys(manifest.dependencies).sort()).toEqual(['@llmjson/core']);
        expect(manifest.sideEffects).toBe(false);
      },
      CHECK,
    );

    describe.each([
      ['@tanstack/ai of the workspace', 'latest', () => workspaceVersion('@tanstack/ai', TANSTACK)],
      [`@tanstack/ai ${TANSTACK_FLOOR}, the floor of the peer range`, 'floor', () => TANSTACK_FLOOR],
    ])('beside %s', (_, name, version) => {
      let folder = '';
      beforeAll(async () => {
        folder = await project(
          name,
          ['core', 'tanstack-ai'],
          [`@tanstack/ai@${version()}`, `zod@${workspaceVersion('zod')}`],
        );
      }, SLOW);

      it(
        'the TanStack AI example runs its tool calls through StreamProcessor (node run.mjs)',
        async () => {
          expect(workspaceVersion('@tanstack/ai', folder)).toBe(version());
          const result = await run('node', ['run.mjs'], folder);
          expect(result.code, explain('node run.mjs', result)).toBe(0);
          expect(result.stdout).toContain('call-2 so far: {"city":"Kyoto","days":3,"stops":["Gion"]}');
          expect(result.stdout).toContain(
            'call-2 input-complete: {"city":"Kyoto","days":3,"stops":["Gion","Arashiyama"]}',
          );
          expect(result.stdout).toMatch(/read (\d+) characters of \1 /);
          expect(result.stdout).toContain('violation: the number at /days is 40, above maximum 14');
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
            // On: @tanstack/ai's own declarations are not ours to hold to these settings. Ours
            // compile without Node or DOM types already (packages/tanstack-ai/tsconfig.json).
            skipLibCheck: true,
          };
          writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.mts'] }));
          const result = await run(join(BIN, 'tsc'), ['-p', join(folder, 'tsconfig.json')], folder);
          expect(result.code, explain('tsc: consumer.mts', result)).toBe(0);
        },
        CHECK,
      );
    });

    tarballLintTests(packed, 'tanstack-ai');
  },
);
