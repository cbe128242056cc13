/**
 * Running benchmark pages in a real browser: Debian's Chromium found on PATH (or at
 * CHROMIUM_PATH), driven by playwright-core, headless, never a downloaded browser; and the page
 * scripts bundled by esbuild from this folder, so the page runs exactly the modules the tests
 * run in Node.
 *
 * Why a browser and not Node: the figures are about the client's CPU per token and React's
 * commits per animation frame, and only a browser has a real event loop with frames.
 */

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';

export const MISSING_CHROMIUM =
  "no Chromium found: install Debian's chromium package (apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium binary";

/** The Chromium binary: CHROMIUM_PATH, else `chromium` or `chromium-browser` on PATH. */
export function findChromium(): string | undefined {
  for (const name of [process.env.CHROMIUM_PATH, 'chromium', 'chromium-browser']) {
    if (name === undefined || name === '') continue;
    try {
      return execFileSync('sh', ['-c', `command -v "${name}"`], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

/** Headless Chromium with `gc()` exposed to pages (so a sample starts from a collected heap). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === undefined) throw new Error(MISSING_CHROMIUM);
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--js-flags=--expose-gc'],
  });
}

/**
 * The page script `name` (a module beside this one, without extension) bundled for the browser
 * as one IIFE. From `dist/` the compiled `.js` is bundled; from the sources (vitest), the `.ts`.
 * React is production React, with react-dom's profiling build in place of `react-dom/client`
 * (the same code plus `<Profiler onRender>`, which the production build leaves out).
 */
export async function bundlePage(name: string): Promise<string> {
  const js = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  const ts = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const result = await build({
    entryPoints: [existsSync(js) ? js : ts],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    // React picks its production build by this: the page measures what users ship.
    define: { 'process.env.NODE_ENV': '"production"' },
    alias: { 'react-dom/client': 'react-dom/profiling' },
    // An alias resolves from the working directory: the benchmarks package (two levels up from
    // src/browser and dist/browser), whatever folder the run started in.
    absWorkingDir: fileURLToPath(new URL('../../', import.meta.url)),
    write: false,
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error(`esbuild produced nothing for the page ${name}`);
  return file.text;
}

/** A blank page with `script` loaded; page errors are collected so a run can report them. */
export async function openPage(browser: Browser, script: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.setContent('<!doctype html><html><body><div id="root"></div></body></html>');
  await page.addScriptTag({ content: script });
  return { page, errors };
}
