/**
 * The React live example (examples/react-live) in a real browser: Debian's Chromium, driven by
 * playwright-core, against the example's Vite dev server, which replays a recorded 200-item
 * answer in 4-to-8-byte chunks, decodes it with llmjson and sends the llmjson wire; the page
 * renders it with `useJsonStream` from @llmjson/react.
 *
 * What it checks:
 * - cards appear while the answer is still streaming, and the final page holds exactly the
 *   answer (every field of every item, the title, status 'done' and a valid verdict);
 * - render counts. Each card counts its renders (`data-renders`) and its extra renders
 *   (`data-extra-renders`: renders that showed the same content as the card's render before).
 *   An item's content never changes once the item completed, so every render of a card after
 *   its item completed — while later tokens stream in — is an extra render. Asserted: every one
 *   of the 200 cards has exactly 0 extra renders, so each card rendered exactly once per
 *   distinct state of its item that the page showed, never after its item completed; and at
 *   most once per model chunk that carried a byte of the item. Rendered without React.memo
 *   (`?memo=0`), the same counters do see extra renders: the measure can fail;
 * - Abort mid-answer: the page shows 'aborted', no card arrives after it, and the server's
 *   record of that request (`/api/replays?run=…`) says the client closed it and the model's
 *   replay was cancelled before its last byte and sends nothing more.
 *
 * It saves test-results/react-live-streaming.png (mid-answer) and test-results/react-live.png
 * (the finished page; docs/images/react-live.png is a copy of one).
 *
 * Without Chromium the test fails in CI with what to install; elsewhere it is skipped with the
 * same message (a user's machine may have no browser).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { answerDocument, chunkSize, ITEM_COUNT, recordedAnswer } from '../../examples/react-live/src/answer.js';
import { CHROMIUM_MISSING, findChromium } from '../support/chromium.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/react-live/', import.meta.url));

const executablePath = findChromium();
if (executablePath === undefined && !process.env.CI)
  console.warn(`React live browser test skipped: ${CHROMIUM_MISSING}`);

/** What a card shows, field by field, as the page's DOM holds it. */
interface Card {
  fields: Record<string, string>;
  renders: number;
  extra: number;
}

// Page expressions are strings: the test program has no DOM types.
const READ_CARDS = `[...document.querySelectorAll('#items li')].map((li) => ({
  fields: Object.fromEntries([...li.querySelectorAll('[data-field]')].map((f) => [f.dataset.field, f.textContent])),
  renders: Number(li.dataset.renders),
  extra: Number(li.dataset.extraRenders),
}))`;
const STATUS = "document.getElementById('status')?.dataset.status";
const COUNT = "document.querySelectorAll('#items li').length";

/** The fields every card must show at the end: the answer's items as text. */
function expectedCards(): Record<string, string>[] {
  return answerDocument().items.map((item) => ({
    id: String(item.id),
    name: item.name,
    kind: item.kind,
    reading: String(item.reading),
    unit: item.unit,
    note: item.note,
  }));
}

/**
 * For each item, how many of the model's chunks carried at least one of its bytes (from its
 * `{` to its `}`): the item's value can change at most once per such chunk, so its card has at
 * most that many distinct states to render.
 */
function chunksPerItem(): number[] {
  const text = recordedAnswer();
  const encoder = new TextEncoder();
  const lines = text.split('\n').slice(1, 1 + ITEM_COUNT);
  let offset = encoder.encode(text.slice(0, text.indexOf('\n') + 1)).length;
  const ranges = lines.map((line) => {
    const start = offset;
    const length = encoder.encode(line.replace(/,$/, '')).length;
    offset += encoder.encode(`${line}\n`).length;
    return [start, start + length] as const;
  });
  const counts = ranges.map(() => 0);
  let chunkStart = 0;
  for (let index = 0; chunkStart < offset; index++) {
    const chunkEnd = chunkStart + chunkSize(index);
    ranges.forEach(([start, end], item) => {
      if (chunkStart < end && chunkEnd > start) counts[item] = (counts[item] ?? 0) + 1;
    });
    chunkStart = chunkEnd;
  }
  return counts;
}

describe.skipIf(executablePath === undefined && !process.env.CI)('React live example in headless Chromium', () => {
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

  async function open(query: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${url}?${query}`);
    return { page, errors };
  }

  async function replayOf(run: string) {
    const response = await fetch(`${url}api/replays?run=${run}`);
    const list = (await response.json()) as {
      run: string;
      bytes: number;
      sent: number;
      state: string;
      clientClosed: boolean;
    }[];
    expect(list).toHaveLength(1);
    return list[0] as NonNullable<(typeof list)[0]>;
  }

  test('cards appear while the answer streams; the final page is the answer; a completed card never renders again', async () => {
    const { page, errors } = await open('run=whole');
    await page.waitForFunction(`${STATUS} === 'streaming'`, undefined, { timeout: 30_000 });
    const counts: number[] = [];
    let midway = false;
    while ((await page.evaluate(STATUS)) === 'streaming') {
      counts.push(await page.evaluate<number>(COUNT));
      if (!midway && (counts.at(-1) ?? 0) >= 40) {
        midway = true;
        mkdirSync(`${ROOT}test-results`, { recursive: true });
        await page.screenshot({ path: `${ROOT}test-results/react-live-streaming.png` });
      }
      await page.waitForTimeout(25);
    }
    expect(await page.evaluate(STATUS)).toBe('done');
    // Cards only come, and at least five different counts were seen while the answer was open.
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(new Set(counts.filter((n) => n > 0 && n < ITEM_COUNT)).size).toBeGreaterThanOrEqual(5);
    expect(midway).toBe(true);

    // The final page is the answer.
    const cards = await page.evaluate<Card[]>(READ_CARDS);
    expect(await page.locator('#title').textContent()).toBe(answerDocument().title);
    expect(cards.map((card) => card.fields)).toEqual(expectedCards());
    expect(await page.locator('#status').textContent()).toBe(`done · ${ITEM_COUNT} items · valid`);

    // Renders: none extra for any card (so none after its item completed), each card at least
    // once and at most once per chunk of the model that carried part of its item.
    expect(cards.map((card) => card.extra)).toEqual(cards.map(() => 0));
    const limits = chunksPerItem();
    cards.forEach((card, index) => {
      expect(card.renders, `card ${index}`).toBeGreaterThanOrEqual(1);
      expect(card.renders, `card ${index}`).toBeLessThanOrEqual(limits[index] ?? 0);
    });
    const replay = await replayOf('whole');
    expect(replay).toMatchObject({ state: 'finished', clientClosed: false });
    expect(replay.sent).toBe(replay.bytes);
    expect(errors).toEqual([]);
    mkdirSync(`${ROOT}test-results`, { recursive: true });
    await page.screenshot({ path: `${ROOT}test-results/react-live.png` });
    await page.close();
  }, 120_000);

  test('without React.memo the same counters see extra renders (the measure can fail)', async () => {
    const { page, errors } = await open('run=no-memo&memo=0');
    await page.waitForFunction(`${STATUS} === 'done'`, undefined, { timeout: 60_000 });
    const cards = await page.evaluate<Card[]>(READ_CARDS);
    expect(cards.map((card) => card.fields)).toEqual(expectedCards());
    // The first card completed long before the end: every later publish rendered it again.
    expect(cards[0]?.extra).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test("Abort mid-answer: the page says 'aborted', and the server's request closes and its replay stops", async () => {
    const { page, errors } = await open('run=aborted');
    await page.waitForFunction(`${STATUS} === 'streaming' && ${COUNT} >= 20`, undefined, { timeout: 30_000 });
    await page.click('#abort');
    await page.waitForFunction(`${STATUS} === 'aborted'`, undefined, { timeout: 10_000 });
    const shown = await page.evaluate<number>(COUNT);
    expect(shown).toBeGreaterThanOrEqual(20);
    expect(shown).toBeLessThan(ITEM_COUNT);
    expect(await page.locator('#abort').isDisabled()).toBe(true);

    // The server saw the client close the request, and the replay was cancelled before its end.
    await expect.poll(async () => (await replayOf('aborted')).state, { timeout: 10_000 }).not.toBe('streaming');
    const replay = await replayOf('aborted');
    expect(replay).toMatchObject({ state: 'cancelled', clientClosed: true });
    expect(replay.sent).toBeLessThan(replay.bytes);
    // Nothing more comes: not from the model, not to the page.
    await page.waitForTimeout(500);
    expect((await replayOf('aborted')).sent).toBe(replay.sent);
    expect(await page.evaluate<number>(COUNT)).toBe(shown);
    expect(await page.evaluate(STATUS)).toBe('aborted');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
