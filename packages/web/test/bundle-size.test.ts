/**
 * What a page pays for `createJsonlStream` from `@llmjson/web`, measured the way a page is
 * built: esbuild, bundled, minified, for the browser, from the built packages (`dist`).
 *
 * Pinned here: no ajv, ajv-formats or re2js unless the page imports `@llmjson/web/ajv`; no
 * `new Function` and no `eval` in a bundle without it (a strict Content-Security-Policy
 * refuses both); the sizes stay within BUDGET. The targets (20 KB without a schema,
 * 25 KB with zod not counting zod) are not met: the figures and what they are made of are in
 * docs/decisions/017-validator-seam.md and 018-fail-fast-retries-coercion.md. BUDGET holds
 * today's size with a little room, so that growth is a decision, not an accident. The coercion
 * and the prefix check are in a bundle only when the page imports them (`withCoercion`,
 * `linePrefixCheck`): pinned too.
 */

import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Budgets in bytes of minified output (not gzipped). Raised from 28 000 / 28 150 with fail fast,
 * coercion and JSONL prefix checks (decision 018): measured 34 160 / 34 326. The coercion and
 * the prefix check themselves (~9 KB and ~25 KB) are passed in (`coerceWith`,
 * `prefixCheckWith`) and are not in these bundles; what grew is fail fast in the adapter
 * (~2.5 KB), the options' checks and call sites (~2.4 KB), the prefix-check plumbing of the
 * decoder (~1.7 KB) and the zod dispatch shortcut (~0.7 KB). Raised again to 38 000 / 38 200
 * with the Standard Schema guards (a validate that throws or returns what is not a result fails
 * the value with a diagnostic instead of the stream: ~2.4 KB) and the per-value cap on validator
 * errors (~0.5 KB): measured 37 765 / 37 947. Raised to 39 700 / 39 900 with the option policy
 * (decision 031: option names and enumerated values checked, the closest name suggested; the
 * two lists the JSONL stream needs, not every factory's, ~1.9 KB): measured 39 430 / 39 616.
 */
const BUDGET = {
  noSchema: 39_700,
  /** Bytes added to zod's own bundle by llmjson with a zod schema. */
  zodAdded: 39_900,
} as const;

interface Bundle {
  readonly text: string;
  readonly inputs: readonly string[];
}

async function bundle(contents: string): Promise<Bundle> {
  const result = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    metafile: true,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]?.text ?? '';
  const output = Object.values((result.metafile as Metafile).outputs)[0];
  const inputs = Object.entries(output?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
  return { text, inputs };
}

/** Implementations passed in as options, never reached from the stream itself. */
const PASSED_IN =
  /core\/dist\/(?:schema\/coerce|prefix\/(?:prefix-check|prefix-feed|jsonl-prefix|element-prefix))\.js$/;
const RUNTIME_CODE = /\bnew Function\s*\(|(?<![.\w$])eval\s*\(/;
const VALIDATOR_PACKAGES = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(?:ajv|ajv-formats|re2js|fast-uri)\//;

describe('@llmjson/web bundle', () => {
  test('createJsonlStream with no schema: no validator, no runtime code generation, within budget', async () => {
    const { text, inputs } = await bundle(
      `import { createJsonlStream } from '@llmjson/web'; globalThis.stream = createJsonlStream();`,
    );
    expect(inputs.filter((path) => VALIDATOR_PACKAGES.test(path))).toEqual([]);
    expect(text).not.toMatch(RUNTIME_CODE);
    expect(text.length).toBeLessThanOrEqual(BUDGET.noSchema);
    expect(text.length).toBeGreaterThan(10 * 1024); // the decoder is really in it
    expect(inputs.filter((path) => PASSED_IN.test(path))).toEqual([]);
  });

  test('coercion and the prefix check come only with their imports', async () => {
    const { inputs } = await bundle(
      `import { createJsonlStream, withCoercion, linePrefixCheck } from '@llmjson/web'; globalThis.stream = createJsonlStream({ schema: { type: 'object' }, coerce: true, coerceWith: withCoercion, prefixCheckWith: linePrefixCheck });`,
    );
    expect(inputs.filter((path) => PASSED_IN.test(path)).map((path) => path.replace(/.*\//, ''))).toEqual(
      expect.arrayContaining(['coerce.js', 'prefix-check.js', 'prefix-feed.js', 'jsonl-prefix.js']),
    );
  });

  test('with a zod schema: zod and llmjson only, no runtime code generation from llmjson', async () => {
    const schema = `z.discriminatedUnion('type', [z.object({ type: z.literal('a'), n: z.number() }), z.object({ type: z.literal('b') })])`;
    const zodOnly = await bundle(`import { z } from 'zod'; globalThis.schema = ${schema};`);
    const withStream = await bundle(
      `import { createJsonlStream } from '@llmjson/web'; import { z } from 'zod'; globalThis.stream = createJsonlStream({ schema: ${schema} });`,
    );
    expect(withStream.inputs.filter((path) => VALIDATOR_PACKAGES.test(path))).toEqual([]);
    // zod itself has no `new Function` in this build; so none may come from llmjson.
    expect(zodOnly.text).not.toMatch(RUNTIME_CODE);
    expect(withStream.text).not.toMatch(RUNTIME_CODE);
    expect(withStream.text.length - zodOnly.text.length).toBeLessThanOrEqual(BUDGET.zodAdded);
  });

  test('the checks see a validator when there is one: @llmjson/web/ajv brings ajv and new Function', async () => {
    const { text, inputs } = await bundle(
      `import { createJsonlStream } from '@llmjson/web'; import { compileSchema } from '@llmjson/web/ajv'; globalThis.stream = createJsonlStream({ schema: { type: 'object' }, compileJsonSchema: compileSchema });`,
    );
    expect(inputs.some((path) => /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?ajv\//.test(path))).toBe(true);
    expect(text).toMatch(RUNTIME_CODE);
  });
});
