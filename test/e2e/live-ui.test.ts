/**
 * The live-UI example (examples/live-ui) in a real browser: Debian's Chromium, driven by
 * playwright-core, against the Vite dev server that streams recorded answers in small delayed
 * chunks. It checks that items appear while the stream is still open, that the final DOM holds
 * exactly the expected objects, that the malformed line is shown as a diagnostic, and saves a
 * screenshot to test-results/live-ui.png.
 *
 * Without Chromium the test fails in CI with what to install; elsewhere it is skipped with the
 * same message (a user's machine may have no browser).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { build, createServer, preview, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHROMIUM_MISSING, findChromium } from '../support/chromium.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/live-ui/', import.meta.url));

const executablePath = findChromium();
if (executablePath === undefined && !process.env.CI) console.warn(`live-UI browser test skipped: ${CHROMIUM_MISSING}`);

describe.skipIf(executablePath === undefined && !process.env.CI)('live UI in headless Chromium', () => {
  let server: ViteDevServer;
  let browser: Browser;
  let url = '';

  beforeAll(async () => {
    if (executablePath === undefined) throw new Error(CHROMIUM_MISSING);
    server = await createServer({
      root: EXAMPLE,
      configFile: `${EXAMPLE}vite.config.ts`,
      logLevel: 'silent',
      // No file watcher: the page must not reload when a source file changes during the test.
      server: { host: '127.0.0.1', port: 0, strictPort: false, watch: null },
    });
    await server.listen();
    url = server.resolvedUrls?.local[0] ?? '';
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test('objects and items appear while the answers stream; the final page holds exactly what the answers say', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The dev server must pace the answers itself (not the page's fallback replay).
    const paced: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/stream/') && response.headers()['x-paced-answer'] === '1')
        paced.push(response.url());
    });
    await page.goto(url);
    // Page expressions are strings: the test program has no DOM types.
    await page.waitForFunction("document.body.dataset.state === 'streaming'");

    // Observe each section while its own answer is still streaming.
    type Seen = {
      jsonlOpen: boolean;
      docOpen: boolean;
      objects: number;
      items: number;
      complete: number;
      summary: number;
    };
    const seen: Seen[] = [];
    let midway = false;
    while ((await page.evaluate('document.body.dataset.state')) === 'streaming') {
      seen.push(
        await page.evaluate<Seen>(`({
          jsonlOpen: document.getElementById('jsonl-status').textContent === 'streaming…',
          docOpen: document.getElementById('doc-status').textContent === 'streaming…',
          objects: document.querySelectorAll('#objects li').length,
          items: document.querySelectorAll('#items li').length,
          complete: document.querySelectorAll('#items li.complete').length,
          summary: document.getElementById('summary').textContent.length,
        })`),
      );
      const last = seen.at(-1);
      if (!midway && last !== undefined && last.objects >= 3 && last.items >= 1) {
        midway = true;
        mkdirSync(`${ROOT}test-results`, { recursive: true });
        await page.screenshot({ path: `${ROOT}test-results/live-ui-streaming.png` });
      }
      await page.waitForTimeout(25);
    }
    expect(midway).toBe(true);
    expect(paced.length).toBe(2);
    // Counts only grow, and each takes at least three different values while its own stream is open.
    const observed = {
      objects: seen.filter((s) => s.jsonlOpen).map((s) => s.objects),
      items: seen.filter((s) => s.docOpen).map((s) => s.items),
      complete: seen.filter((s) => s.docOpen).map((s) => s.complete),
      summary: seen.filter((s) => s.docOpen).map((s) => s.summary),
    };
    for (const [key, values] of Object.entries(observed)) {
      expect(values, key).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values.filter((n) => n > 0)).size, key).toBeGreaterThanOrEqual(key === 'complete' ? 2 : 3);
    }

    const objects = await page.locator('#objects li').allTextContents();
    expect(objects).toEqual([
      "mitochondrion: An organelle that produces most of the cell's ATP.",
      'ATP: Adenosine triphosphate, the molecule cells use to store and move energy.',
      'mitochondrion — produces → ATP',
      'glucose: A simple sugar that cells break down for energy.',
      'glycolysis — breaks down → glucose',
      'ATP synthase: The enzyme that makes ATP from ADP and phosphate.',
      'ATP synthase — is located in → mitochondrion',
    ]);
    const diagnostics = await page.locator('#diagnostics li').allTextContents();
    expect(diagnostics).toEqual([
      'line 1: prose: not JSON: a line of prose',
      "line 7: syntax: unexpected '\"'; expected ',' or '}'",
      'line 11: truncated: last line cut off: input ended inside a string',
    ]);
    // The document section shows exactly the recorded document.
    const doc = JSON.parse(readFileSync(`${EXAMPLE}public/answers/document.txt`, 'utf8')) as {
      title: string;
      summary: string;
      items: { stage: string; where: string; atp: number; note: string }[];
    };
    expect(await page.locator('#doc-title').textContent()).toBe(doc.title);
    expect(await page.locator('#summary').textContent()).toBe(doc.summary);
    expect(await page.locator('#items li.complete').count()).toBe(doc.items.length);
    expect(await page.locator('#items li').allTextContents()).toEqual(
      doc.items.map((item) => `${item.stage} — ${item.where} (${item.atp} ATP)${item.note}`),
    );
    expect(errors).toEqual([]);
    mkdirSync(`${ROOT}test-results`, { recursive: true });
    await page.screenshot({ path: `${ROOT}test-results/live-ui.png`, fullPage: true });
    await page.close();
  }, 120_000);

  test('the static build works the same (the page replays the answers itself)', async () => {
    const outDir = `${ROOT}test-results/live-ui-dist`;
    await build({
      root: EXAMPLE,
      configFile: `${EXAMPLE}vite.config.ts`,
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true },
    });
    const server = await preview({
      root: EXAMPLE,
      configFile: `${EXAMPLE}vite.config.ts`,
      logLevel: 'silent',
      build: { outDir },
      preview: { host: '127.0.0.1', port: 0 },
    });
    const page = await browser.newPage();
    try {
      await page.goto(server.resolvedUrls?.local[0] ?? '');
      await page.waitForFunction("document.body.dataset.state === 'done'", undefined, { timeout: 30_000 });
      expect(await page.locator('#objects li').count()).toBe(7);
      expect(await page.locator('#diagnostics li').count()).toBe(3);
      expect(await page.locator('#items li.complete').count()).toBe(4);
    } finally {
      // The page holds keep-alive connections: close it before the server.
      await page.close();
      await server.close();
    }
  }, 120_000);
});
