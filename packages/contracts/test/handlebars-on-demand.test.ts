/**
 * Handlebars is loaded when a template is first checked or rendered, not when the package is
 * imported: loading it cost every importer about 50 ms (each worker thread of `llmjson batch`,
 * `llmjson --version`), and most render no template.
 */

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const here = fileURLToPath(new URL('..', import.meta.url));

test('importing the package does not load Handlebars; rendering a template does', () => {
  const script = `
    import { createRequire } from 'node:module';
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => /[\\\\/]handlebars[\\\\/]/.test(path));
    const contracts = await import('@llmjson/contracts');
    const before = loaded();
    const text = contracts.renderTemplate('Hello {{name}}', { name: 'world' });
    console.log(JSON.stringify({ before, after: loaded(), text }));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: here, encoding: 'utf8' });
  expect(JSON.parse(output)).toEqual({ before: false, after: true, text: 'Hello world' });
});
