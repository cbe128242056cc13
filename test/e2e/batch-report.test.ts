/**
 * The HTML page of a batch report (`llmjson batch --report report.html`) in Debian's Chromium
 * driven by playwright-core: opened from the file system, it logs no console error, asks for
 * nothing over the network (no failed request, and no request but the page itself), and shows one
 * stacked bar per model and scoring whose segments are the statuses that model has under that
 * scoring, in the report's proportions. A hostile model name is shown as text, not run.
 *
 * It saves test-results/batch-report.png (docs/images/batch-report.png is a copy of one).
 *
 * Without Chromium the test fails in CI with what to install; elsewhere it is skipped with the
 * same message, as test/e2e/live-ui.test.ts does.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type BatchReport, ReportBuilder } from '../../packages/cli/src/batch-report.js';
import { htmlReport } from '../../packages/cli/src/batch-report-html.js';
import { RECORD_STATUSES, type RecordStatus, SCORINGS, type Scoring } from '../../packages/cli/src/batch-types.js';
import { CHROMIUM_MISSING, findChromium } from '../support/chromium.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The width of a bar in the page's SVG (batch-report-html.ts). */
const BAR_WIDTH = 510;

const executablePath = findChromium();
if (executablePath === undefined && !process.env.CI)
  console.warn(`batch-report browser test skipped: ${CHROMIUM_MISSING}`);

/** What each model of the run does, per 1000 records: [status under salvage, under strict, under coerce, weight]. */
const PROFILES: Record<string, [RecordStatus, RecordStatus, RecordStatus, number][]> = {
  'gpt-4o-2024-08-06': [
    ['valid', 'valid', 'valid', 712],
    ['salvaged', 'not-json', 'salvaged', 201],
    ['invalid', 'invalid', 'coerced', 41],
    ['invalid', 'invalid', 'invalid', 22],
    ['truncated', 'truncated', 'truncated', 16],
    ['provider-error', 'provider-error', 'provider-error', 8],
  ],
  'claude-3-5-sonnet-20241022': [
    ['valid', 'valid', 'valid', 498],
    ['salvaged', 'invalid', 'salvaged', 402],
    ['invalid', 'invalid', 'coerced', 38],
    ['invalid', 'invalid', 'invalid', 27],
    ['empty', 'empty', 'empty', 12],
    ['unsupported-schema', 'unsupported-schema', 'unsupported-schema', 23],
  ],
  'llama-3.1-8b-instruct': [
    ['valid', 'valid', 'valid', 231],
    ['salvaged', 'not-json', 'salvaged', 318],
    ['invalid', 'invalid', 'coerced', 117],
    ['invalid', 'invalid', 'invalid', 149],
    ['truncated', 'truncated', 'truncated', 96],
    ['not-json', 'not-json', 'not-json', 71],
    ['empty', 'empty', 'empty', 18],
  ],
};

/** A model name from the input is data: shown, never run. */
const HOSTILE: typeof PROFILES = {
  '<img src=x onerror="document.title=1">': [
    ['valid', 'valid', 'valid', 3],
    ['invalid', 'invalid', 'invalid', 1],
  ],
};

const FAILURES: { keyword: string; path: string; message: string; excerpt: string }[] = [
  {
    keyword: 'required',
    path: '/items/4',
    message: "must have required property 'unit'",
    excerpt: '{"items": [{"name": "flour", "qty": 2, "unit": "cup"}, {"name": "salt", "qty": 1}]}',
  },
  {
    keyword: 'type',
    path: '/items/0/qty',
    message: 'must be number',
    excerpt: '{"items": [{"name": "eggs", "qty": "two", "unit": "piece"}]}',
  },
  {
    keyword: 'enum',
    path: '/difficulty',
    message: 'must be equal to one of the allowed values: easy, medium, hard',
    excerpt: '{"title": "Pancakes", "difficulty": "Easy", "items": []}',
  },
  {
    keyword: 'additionalProperties',
    path: '',
    message: "must NOT have additional properties: 'notes'",
    excerpt: '{"title": "Bread", "notes": "knead well"}',
  },
];

/** A run like the fixtures': every model's profile, interleaved, with failures that name a keyword and a path. */
function fixtureReport(profiles: typeof PROFILES): BatchReport {
  const builder = new ReportBuilder({
    mode: 'json',
    salvage: true,
    coerce: false,
    format: 'openai-batch',
    schema: 'recipe.schema.json',
    statuses: 'llmjson',
    inputs: ['batch_output.jsonl'],
  });
  let index = 0;
  for (const [model, profile] of Object.entries(profiles)) {
    for (const [status, strict, coerce, weight] of profile) {
      for (let i = 0; i < weight; i++) {
        const failure = FAILURES[(index * 7) % FAILURES.length] as (typeof FAILURES)[number];
        const scores: Record<Scoring, RecordStatus> = { strict, salvage: status, coerce };
        const failed = !['valid', 'salvaged', 'coerced'].includes(status);
        builder.add({
          index: index * 13 + i,
          id: `req-${String(index).padStart(5, '0')}`,
          model,
          status,
          scores,
          values: failed ? 0 : 1,
          diagnostics: failed ? 1 : 0,
          ...(status === 'invalid' ? failure : {}),
          ...(status === 'truncated'
            ? {
                message: 'the answer ends inside a value (finish reason: length)',
                excerpt: '{"title": "Soup", "items": [{"name": "leek", "qty',
              }
            : {}),
          ...(status === 'not-json'
            ? { message: 'no JSON value in the text', excerpt: "I'm sorry, I can't help with that recipe." }
            : {}),
        });
        index++;
      }
    }
  }
  builder.addProblem({
    index: 99_999,
    file: 'batch_output.jsonl',
    line: 4012,
    message: 'not JSON: Unexpected end of JSON input',
  });
  return builder.report();
}

describe.skipIf(executablePath === undefined && !process.env.CI)('batch report HTML in headless Chromium', () => {
  let browser: Browser;
  const report = fixtureReport(PROFILES);
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-report-html-'));
  const file = join(dir, 'report.html');
  const hostileFile = join(dir, 'hostile.html');

  beforeAll(async () => {
    if (executablePath === undefined) throw new Error(CHROMIUM_MISSING);
    writeFileSync(file, htmlReport(report));
    writeFileSync(hostileFile, htmlReport(fixtureReport({ ...PROFILES, ...HOSTILE })));
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** Opens a page, collecting console errors and warnings, page errors, failed requests, and every request. */
  async function open(path: string) {
    const page = await browser.newPage({ viewport: { width: 1120, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(path).href);
    await page.waitForLoadState('load');
    return { page, problems, requests };
  }

  test('opens with no console error and no request but the page; one bar per model and scoring, a segment per status', async () => {
    const { page, problems, requests } = await open(file);
    expect(problems).toEqual([]);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(await page.title()).toBe('llmjson batch report');

    // Run in the page (as a string: the tests are type-checked without the DOM's types).
    const segments = (await page.evaluate(`[...document.querySelectorAll('svg.bars g.model-bars')].map((g) => ({
      model: g.getAttribute('data-model'),
      bars: [...g.querySelectorAll('rect.seg')].map((r) => ({
        scoring: r.getAttribute('data-scoring'),
        status: r.getAttribute('data-status'),
        width: Number(r.getAttribute('width')),
      })),
    }))`)) as { model: string; bars: { scoring: string; status: string; width: number }[] }[];
    const rows = [
      ...report.models.map((m) => ({ name: m.model, summary: m })),
      { name: 'all', summary: report.totals },
    ];
    expect(segments.map((s) => s.model)).toEqual(rows.map((r) => r.name));
    for (const [i, { summary }] of rows.entries()) {
      const bars = segments[i]?.bars ?? [];
      for (const scoring of SCORINGS) {
        const expected = RECORD_STATUSES.filter((s) => summary.scores[scoring][s] > 0);
        const shown = bars.filter((b) => b.scoring === scoring);
        expect(shown.map((b) => b.status)).toEqual(expected);
        // Each segment in proportion to its count (the page's bars are BAR_WIDTH wide).
        for (const bar of shown) {
          const share = summary.scores[scoring][bar.status as RecordStatus] / summary.records;
          expect(bar.width).toBeCloseTo(BAR_WIDTH * share, 1);
        }
      }
    }
    // Strict sees fewer usable answers than salvage: the first bar's green is shorter.
    const gpt = segments.find((s) => s.model === 'gpt-4o-2024-08-06')?.bars ?? [];
    const usableWidth = (scoring: string) =>
      gpt
        .filter((b) => b.scoring === scoring && ['valid', 'salvaged', 'coerced'].includes(b.status ?? ''))
        .reduce((sum, b) => sum + b.width, 0);
    expect(usableWidth('strict')).toBeLessThan(usableWidth('salvage'));
    expect(usableWidth('salvage')).toBeLessThan(usableWidth('coerce'));

    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'test-results/batch-report-full.png'), fullPage: true });
    // The top of the page (the bars and the counts) for the docs.
    const end = (await page.evaluate(
      "document.querySelector('table.counts').getBoundingClientRect().bottom + window.scrollY + 24",
    )) as number;
    await page.screenshot({
      path: join(ROOT, 'test-results/batch-report.png'),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1120, height: Math.ceil(end) },
    });
    await page.close();
  });

  test('a hostile model name is shown as text: no element made of it, nothing run', async () => {
    const { page, problems, requests } = await open(hostileFile);
    expect(problems).toEqual([]);
    expect(requests).toEqual([pathToFileURL(hostileFile).href]);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.title()).toBe('llmjson batch report');
    expect(await page.locator('h3', { hasText: '<img src=x onerror="document.title=1">' }).count()).toBe(1);
    await page.close();
  });
});
