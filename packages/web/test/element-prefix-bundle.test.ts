/**
 * The element stream's prefix check is in a page's bundle only when the page imports it
 * (`elementPrefixCheck`, passed as `prefixCheckWith`): the element scanner imports its types
 * only (decision 018). Measured as a page is built: esbuild, bundled, minified, for the browser,
 * from the built packages (`dist`).
 */

import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Names of the llmjson core files in the bundle of `contents`. */
async function coreFiles(contents: string): Promise<string[]> {
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
  const output = Object.values((result.metafile as Metafile).outputs)[0];
  return Object.entries(output?.inputs ?? {})
    .filter(([path, input]) => input.bytesInOutput > 0 && /core\/dist\//.test(path))
    .map(([path]) => path.replace(/.*\//, ''));
}

const PREFIX_FILES = ['prefix-check.js', 'prefix-feed.js', 'element-prefix.js'];

describe('@llmjson/web element stream bundle', () => {
  test('createElementStream, even with failFast: no prefix check unless imported', async () => {
    const files = await coreFiles(
      `import { createElementStream } from '@llmjson/web'; globalThis.stream = createElementStream({ elementSchema: { type: 'object' }, failFast: true });`,
    );
    expect(files).toContain('element-scanner.js');
    expect(files.filter((f) => PREFIX_FILES.includes(f) || f === 'jsonl-prefix.js')).toEqual([]);
  });

  test('with elementPrefixCheck imported and passed: the check and the checker come with it', async () => {
    const files = await coreFiles(
      `import { createElementStream, elementPrefixCheck } from '@llmjson/web'; globalThis.stream = createElementStream({ elementSchema: { type: 'object' }, failFast: true, prefixCheckWith: elementPrefixCheck });`,
    );
    expect(files).toEqual(expect.arrayContaining(PREFIX_FILES));
    expect(files).not.toContain('jsonl-prefix.js');
  });
});
