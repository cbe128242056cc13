/**
 * What a page pays for `createJsonlStream` from `@llmjson/web`, measured the way a page is
 * built: esbuild, bundled, minified, for the browser, from the built packages (`dist`), in
 * bytes of minified output and of that output gzipped.
 *
 * Pinned here: no ajv, ajv-formats or re2js unless the page imports `@llmjson/web/ajv`; no
 * `new Function` and no `eval` in a bundle without it (a strict Content-Security-Policy
 * refuses both); the sizes stay within BUDGET, so that growth is a decision, not an accident.
 * The coercion and the prefix check are in a bundle only when the page imports them
 * (`withCoercion`, `linePrefixCheck`): pinned too. The peers' streaming parsers (jsonriver's
 * `parse`, @streamparser/json's `JSONParser`, partial-json's `parse`) are bundled the same way
 * beside it and their sizes printed, so that the figures the docs cite are measured in one run
 * (docs/decisions/017-validator-seam.md, addendum of 2026-11-27).
 */

import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Budgets in bytes. The target decided for `createJsonlStream` without a schema is 35 KB
 * minified and 12 KB gzipped; it is not met (docs/decisions/017-validator-seam.md, addendum
 * of 2026-11-27: the Standard Schema support every page carries, because a `schema` may be a
 * zod schema with no other option, is 9.9 KB of it, 3.4 KB gzipped). So BUDGET holds the
 * measured size with under 1 % of room: 39 004 bytes minified, 13 912 gzipped, 39 191 added
 * to zod's own, on 2026-11-27. History: 28 000 at first, raised with fail fast, coercion and
 * JSONL prefix checks (34 160), the Standard Schema guards and the error cap (37 765) and the
 * option policy (39 430), trimmed by one `compileJsonSchema` check (39 287), raised with JSONL
 * framing in its own file (39 686), trimmed when zod unions were no longer dispatched through
 * zod's internals (39 004).
 */
const BUDGET = {
  noSchema: 39_350,
  noSchemaGzip: 14_050,
  /** Bytes added to zod's own bundle by llmjson with a zod schema. */
  zodAdded: 39_550,
} as const;

interface Bundle {
  readonly text: string;
  readonly inputs: readonly string[];
  /** Bytes of `text` gzipped (default level), as a server would send it. */
  readonly gzip: number;
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
  return { text, inputs, gzip: gzipSync(text).length };
}

/** Implementations passed in as options, never reached from the stream itself. */
const PASSED_IN =
  /core\/dist\/(?:schema\/coerce|prefix\/(?:prefix-check|prefix-feed|jsonl-prefix|element-prefix))\.js$/;
const RUNTIME_CODE = /\bnew Function\s*\(|(?<![.\w$])eval\s*\(/;
const VALIDATOR_PACKAGES = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(?:ajv|ajv-formats|re2js|fast-uri)\//;

describe('@llmjson/web bundle', () => {
  test('createJsonlStream with no schema: no validator, no runtime code generation, within budget', async () => {
    const { text, inputs, gzip } = await bundle(
      `import { createJsonlStream } from '@llmjson/web'; globalThis.stream = createJsonlStream();`,
    );
    console.info(`@llmjson/web createJsonlStream: ${text.length} bytes minified, ${gzip} gzipped`);
    expect(inputs.filter((path) => VALIDATOR_PACKAGES.test(path))).toEqual([]);
    expect(text).not.toMatch(RUNTIME_CODE);
    expect(text.length).toBeLessThanOrEqual(BUDGET.noSchema);
    expect(gzip).toBeLessThanOrEqual(BUDGET.noSchemaGzip);
    expect(text.length).toBeGreaterThan(10 * 1024); // the decoder is really in it
    expect(inputs.filter((path) => PASSED_IN.test(path))).toEqual([]);
  });

  // The peers (devDependencies of the workspace root at the versions benchmarks/ pins), each
  // for its own streaming-parse entry, bundled exactly as llmjson is: their sizes are context
  // for ours, not a budget. Each must really be in its bundle, or the comparison says nothing.
  test.each([
    ['jsonriver', `import { parse } from 'jsonriver'; globalThis.parse = parse;`],
    ['@streamparser/json', `import { JSONParser } from '@streamparser/json'; globalThis.parser = new JSONParser();`],
    ['partial-json', `import { parse } from 'partial-json'; globalThis.parse = parse;`],
  ])('peer %s is bundled the same way and measured beside it', async (name, contents) => {
    const { text, inputs, gzip } = await bundle(contents);
    console.info(`${name}: ${text.length} bytes minified, ${gzip} gzipped`);
    expect(inputs.some((path) => path.includes(`node_modules/${name}/`))).toBe(true);
    expect(text.length).toBeGreaterThan(1024);
    expect(gzip).toBeGreaterThan(0);
    expect(gzip).toBeLessThan(text.length);
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
    console.info(
      `@llmjson/web createJsonlStream with a zod schema: ${withStream.text.length - zodOnly.text.length} bytes added to zod's own`,
    );
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
