/**
 * JSON Schema validation on a page whose Content-Security-Policy forbids eval
 * (`script-src 'self'`), in Debian's Chromium driven by playwright-core: the module
 * `llmjson compile` generates, bundled by esbuild with `createJsonlStream` from @llmjson/web,
 * validates a JSONL answer there (values delivered, a schema diagnostic naming its branch);
 * the control page, the same stream with run-time ajv (`compileSchema` from @llmjson/web/ajv),
 * fails under the same policy because ajv compiles with `new Function`.
 *
 * Without Chromium the test fails in CI with what to install; elsewhere it is skipped with the
 * same message, as test/e2e/live-ui.test.ts does.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileStandaloneModule } from '@llmjson/core/ajv';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHROMIUM_MISSING, findChromium } from '../support/chromium.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TMP = fileURLToPath(new URL(`./.tmp-strict-csp-${process.pid}/`, import.meta.url));
const SCHEMA_FILE = join(ROOT, 'fixtures/schemas/calendar-action.schema.json');
const CSP = "script-src 'self'";

const executablePath = findChromium();
if (executablePath === undefined && !process.env.CI)
  console.warn(`strict-CSP browser test skipped: ${CHROMIUM_MISSING}`);

const ANSWER = [
  '{"action":"create","title":"Lunch with Ada","date":"2024-02-29"}',
  '{"action":"cancel","eventId":"evt_NOT-LOWER"}',
  '{"action":"cancel","eventId":"evt_42ab","reason":"moved"}',
  '{"action":"create","title":"","date":"2023-02-29"}',
].join('\n');

/** The page script: stream the answer through createJsonlStream, then write what came out into the DOM. */
const RUN = `
const out = { values: [], diagnostics: [] };
try {
  const stream = createJsonlStream({
    ...options,
    onDiagnostic: (d) => out.diagnostics.push({ reason: d.reason, line: d.line, branch: d.branch, message: d.message }),
  });
  const reader = new ReadableStream({
    start(controller) {
      for (const chunk of ${JSON.stringify(ANSWER)}.match(/[\\s\\S]{1,9}/g)) controller.enqueue(chunk);
      controller.close();
    },
  }).pipeThrough(stream).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.values.push(value);
  }
} catch (error) {
  out.error = String(error && error.message ? error.message : error);
}
document.body.dataset.result = JSON.stringify(out);
`;

const ENTRIES = {
  generated: `import schema from './calendar-action.js';\nimport { createJsonlStream } from '@llmjson/web';\nconst options = { schema };\n${RUN}`,
  runtime: `import { createJsonlStream } from '@llmjson/web';\nimport { compileSchema } from '@llmjson/web/ajv';\nimport schema from './calendar-action.schema.json';\nconst options = { schema, compileJsonSchema: compileSchema };\n${RUN}`,
} as const;
type PageName = keyof typeof ENTRIES;

interface PageResult {
  readonly values: unknown[];
  readonly diagnostics: { reason: string; line: number; branch?: string; message: string }[];
  readonly error?: string;
}

describe.skipIf(executablePath === undefined && !process.env.CI)('strict CSP in headless Chromium', () => {
  const bundles = new Map<string, string>();
  let server: Server;
  let browser: Browser;
  let origin = '';

  beforeAll(async () => {
    if (executablePath === undefined) throw new Error(CHROMIUM_MISSING);
    mkdirSync(TMP, { recursive: true });
    writeFileSync(
      join(TMP, 'calendar-action.js'),
      compileStandaloneModule(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))),
    );
    writeFileSync(join(TMP, 'calendar-action.schema.json'), readFileSync(SCHEMA_FILE));
    for (const [name, source] of Object.entries(ENTRIES)) {
      writeFileSync(join(TMP, `${name}.js`), source);
      const result = await build({
        entryPoints: [join(TMP, `${name}.js`)],
        bundle: true,
        minify: true,
        platform: 'browser',
        format: 'esm',
        write: false,
        logLevel: 'silent',
        // ajv-formats is a dependency of @llmjson/core, not of the workspace root.
        nodePaths: [join(ROOT, 'packages/core/node_modules')],
      });
      bundles.set(`/${name}.js`, result.outputFiles[0]?.text ?? '');
    }
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const bundle = bundles.get(path);
      const page = /^\/(\w+)\.html$/.exec(path)?.[1];
      if (bundle !== undefined) {
        response.writeHead(200, { 'content-type': 'text/javascript', 'content-security-policy': CSP });
        response.end(bundle);
      } else if (page !== undefined && bundles.has(`/${page}.js`)) {
        response.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': CSP });
        response.end(`<!doctype html><title>${page}</title><script type="module" src="/${page}.js"></script>`);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((closed) => (server === undefined ? closed(undefined) : server.close(closed)));
    rmSync(TMP, { recursive: true, force: true });
  });

  async function open(name: PageName): Promise<{ result: PageResult; violations: string[]; errors: string[] }> {
    const page = await browser.newPage();
    const violations: string[] = [];
    const errors: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|unsafe-eval/i.test(message.text())) violations.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`${origin}/${name}.html`);
    expect(response?.headers()['content-security-policy']).toBe(CSP);
    await page.waitForFunction('document.body.dataset.result !== undefined', undefined, { timeout: 20_000 });
    const result = JSON.parse((await page.evaluate('document.body.dataset.result')) as string) as PageResult;
    await page.close();
    return { result, violations, errors };
  }

  test('the generated module validates under the policy: values delivered, a schema diagnostic with its branch', async () => {
    const bundle = bundles.get('/generated.js') ?? '';
    expect(bundle).not.toContain('new Function(');
    const { result, violations, errors } = await open('generated');
    expect(result.error).toBeUndefined();
    expect(errors).toEqual([]);
    expect(violations).toEqual([]);
    expect(result.values).toEqual([
      { action: 'create', title: 'Lunch with Ada', date: '2024-02-29' },
      { action: 'cancel', eventId: 'evt_42ab', reason: 'moved' },
    ]);
    expect(result.diagnostics).toEqual([
      {
        reason: 'schema',
        line: 2,
        branch: 'cancel',
        message: expect.stringContaining('at /eventId: must match pattern "^evt_[0-9a-z]+$"'),
      },
      {
        reason: 'schema',
        line: 4,
        branch: 'create',
        message: expect.stringMatching(
          /at \/title: must NOT have fewer than 1 characters.*at \/date: must match format "date"/,
        ),
      },
    ]);
  });

  test('control: run-time ajv under the same policy fails, refused by the CSP', async () => {
    const bundle = bundles.get('/runtime.js') ?? '';
    expect(bundle).toContain('new Function(');
    const { result } = await open('runtime');
    expect(result.values).toEqual([]);
    expect(result.error).toMatch(/unsafe-eval|Refused to evaluate|EvalError/i);
  });
});
