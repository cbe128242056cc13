/**
 * The live-UI example builds from the workspace packages' sources (examples/live-ui/vite.config.ts
 * aliases them), so `vite build` and the dev server work right after `pnpm install`, before any
 * `pnpm build`, and never show a stale `dist`.
 */
import { fileURLToPath } from 'node:url';
import { build, type Rollup } from 'vite';
import { expect, test } from 'vitest';

const EXAMPLE = fileURLToPath(new URL('../../examples/live-ui/', import.meta.url));
const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));

test('the live UI bundles @llmjson/core and @llmjson/web from packages/*/src, no module from a package dist', async () => {
  const result = (await build({
    root: EXAMPLE,
    configFile: `${EXAMPLE}vite.config.ts`,
    logLevel: 'silent',
    build: { write: false },
  })) as Rollup.RollupOutput[];
  const outputs = Array.isArray(result) ? result : [result];
  const modules = outputs
    .flatMap((output) => output.output)
    .flatMap((item) => (item.type === 'chunk' ? item.moduleIds : []))
    .filter((id) => id.startsWith(PACKAGES))
    .map((id) => id.slice(PACKAGES.length));
  expect(modules.some((id) => id.startsWith('core/src/'))).toBe(true);
  expect(modules.some((id) => id.startsWith('web/src/'))).toBe(true);
  expect(modules.filter((id) => /^[^/]+\/dist\//.test(id))).toEqual([]);
}, 60_000);
