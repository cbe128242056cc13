/**
 * Vitest's global setup: the `llmjson` bin runs the bundle (packages/cli/bundle, made from the
 * build by packages/cli/scripts/bundle.mjs), so it is made again from the build before any test
 * runs. A run of vitest alone after `tsc -b` then never tests a bundle of older code. A checkout
 * that is not built has nothing to bundle: the tests that need the build say so themselves.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

export default async function setup(): Promise<void> {
  if (!existsSync(join(REPOSITORY, 'packages/cli/dist/main.js'))) return;
  const script = join(REPOSITORY, 'packages/cli/scripts/bundle.mjs');
  const { bundle } = (await import(script)) as {
    bundle(): Promise<{ problems: string[] }>;
  };
  const { problems } = await bundle();
  if (problems.length > 0) throw new Error(`the llmjson bundle was not made:\n${problems.join('\n')}`);
}
