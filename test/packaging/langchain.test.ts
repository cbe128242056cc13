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
  consumer: fileURLToPath(new URL('langchain-consumer/', import.meta.url)),
  example: join(ROOT, 'examples', 'langchain', 'run.mjs'),
};
/** The floor of the peer range `^1.0.0`. */
const LANGCHAIN_FLOOR = '1.0.0';

const offline = await registryProblem();
if (offline !== undefined) announceSkip('langchain', `${offline} The tarballs cannot be installed.`);

describe.skipIf(offline !== undefined)(
  'packaging: @llmjson/langchain installed with npm in a fresh project beside @langchain/core',
  () => {
    const packed = new PackedPackages('langchain', ['core', 'web', 'node', 'langchain']);
    let frameworkFree = false;
    const project = (name: string, packages: readonly string[], peers: readonly string[]) =>
      packed.project(name, packages, peers, FILES);

    beforeAll(async () => {
      await packed.pack();
      const plain = await project('plain', ['core', 'web', 'node'], []);
      frameworkFree = !existsSync(join(plain, 'node_modules', '@langchain'));
    }, SLOW);

    afterAll(() => packed.remove(), SLOW);

    it('@llmjson/web and @llmjson/node (with core) install no LangChain', () => {
      expect(frameworkFree).toBe(true);
    });

    it(
      'the tarball holds README.md, LICENSE and dist, @langchain/core as a peer only, and resolved versions',
      async () => {
        const manifest = await packed.checkedManifest('langchain');
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

    tarballLintTests(packed, 'langchain');
  },
);
