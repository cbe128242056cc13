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
  consumer: fileURLToPath(new URL('ai-sdk-consumer/', import.meta.url)),
  example: join(ROOT, 'examples', 'ai-sdk', 'run.mjs'),
};
/** The floor of the peer range. */
const AI_FLOOR = '7.0.0';
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The version installed of `name` in `from`'s node_modules. */
const versionIn = (from: string, name: string): string => workspaceVersion(name, from);
const PACKAGE_DIR = join(ROOT, 'packages', 'ai-sdk');

const skipReason =
  NODE_MAJOR < 22
    ? `ai 7 needs Node >= 22 and this is Node ${process.versions.node} (run it with npx -y node@22 node_modules/vitest/vitest.mjs run test/packaging/ai-sdk.test.ts)`
    : await registryProblem();
if (skipReason !== undefined) announceSkip('ai-sdk', skipReason);

describe.skipIf(skipReason !== undefined)(
  'packaging: @llmjson/ai-sdk installed with npm in a fresh project beside ai 7',
  () => {
    const packed = new PackedPackages('ai-sdk', ['core', 'web', 'node', 'ai-sdk']);
    let frameworkFree = false;
    const project = (name: string, packages: readonly string[], peers: readonly string[]) =>
      packed.project(name, packages, peers, FILES);

    beforeAll(async () => {
      await packed.pack();
      const plain = await project('plain', ['core', 'web', 'node'], []);
      frameworkFree =
        !existsSync(join(plain, 'node_modules', 'ai')) && !existsSync(join(plain, 'node_modules', '@ai-sdk'));
    }, SLOW);

    afterAll(() => packed.remove(), SLOW);

    it('@llmjson/web and @llmjson/node (with core) install no AI SDK', () => {
      expect(frameworkFree).toBe(true);
    });

    it(
      'the tarball holds README.md, LICENSE and dist, ai as a peer only, and resolved versions',
      async () => {
        const manifest = await packed.checkedManifest('ai-sdk');
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

    tarballLintTests(packed, 'ai-sdk');
  },
);
