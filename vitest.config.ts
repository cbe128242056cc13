import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Tests run against the packages' sources, so running vitest after editing `src` never tests a
 * stale `dist`. Only the specifiers below are redirected; tests that start the CLI as a process
 * (the bin, `packages/cli/bin/llmjson.js`, which runs the bundle of the build) or pack the
 * packages still use the build, which `pnpm test` makes first; the global setup bundles it again.
 */
const source = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));
const SOURCES: Record<string, string> = {
  '@llmjson/core/ajv': source('core/src/ajv.ts'),
  '@llmjson/core/internal': source('core/src/internal.ts'),
  '@llmjson/core': source('core/src/index.ts'),
  '@llmjson/web/ajv': source('web/src/ajv.ts'),
  '@llmjson/web': source('web/src/index.ts'),
  '@llmjson/node': source('node/src/index.ts'),
  '@llmjson/react': source('react/src/index.ts'),
  '@llmjson/vue': source('vue/src/index.ts'),
  '@llmjson/ag-ui': source('ag-ui/src/index.ts'),
  '@llmjson/langchain': source('langchain/src/index.ts'),
  '@llmjson/ai-sdk': source('ai-sdk/src/index.ts'),
  '@llmjson/tanstack-ai': source('tanstack-ai/src/index.ts'),
  '@llmjson/contracts': source('contracts/src/index.ts'),
  '@llmjson/cli': source('cli/src/index.ts'),
};

/**
 * Test files that need a newer Node than the machine's: `ai` 7 declares `engines: node >= 22`.
 * On an older Node they are not collected (a skipped test would count as not passed in CI's
 * closing line), and the run says so; `npx -y node@22 node_modules/vitest/vitest.mjs run
 * packages/ai-sdk` runs them.
 */
const NEEDS_NODE_22 = ['packages/ai-sdk/test/**', 'test/packaging/ai-sdk.test.ts'];
const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < 22) {
  console.warn(
    `Node ${process.versions.node}: not collected, as they need Node >= 22 (ai 7): ${NEEDS_NODE_22.join(', ')}. Run them with npx -y node@22 node_modules/vitest/vitest.mjs run packages/ai-sdk`,
  );
}

export default defineConfig({
  resolve: {
    alias: Object.entries(SOURCES).map(([name, path]) => ({
      find: new RegExp(`^${name.replace('/', '\\/')}$`),
      replacement: path,
    })),
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(nodeMajor < 22 ? NEEDS_NODE_22 : [])],
    // The JSON report is what .ci/run counts; the default reporter is for people.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    testTimeout: 60_000,
    // The bin runs the bundle of the build: made again first, so that it is never older.
    globalSetup: ['test/support/bundle-setup.ts'],
  },
});
