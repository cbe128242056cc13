/**
 * The `live-client` benchmark measures the client's side of live UIs in Chromium. These tests
 * check, without timing anything, that its inputs are what it says (one change list per token,
 * which rebuild the document; the default path's wires, which `createLiveJson` reads back to the
 * document through the paced delivery the page uses) and that a quick run of the whole scenario works in the browser:
 * the pages bundle, every path reaches the document there, and the tables and targets come out.
 *
 * Without Chromium the browser test fails in CI with what to install; elsewhere it is skipped
 * with the same message (a user's machine may have no browser).
 */
import { applyChanges } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { findChromium, MISSING_CHROMIUM } from '../../benchmarks/src/browser/chromium.js';
import { chunksPerTick, pacedBody, readLiveJson } from '../../benchmarks/src/browser/live-client-work.js';
import {
  answerDocument,
  changeListsPerToken,
  liveClient,
  wireWrites,
} from '../../benchmarks/src/scenarios/live-client.js';

describe('live-client inputs', () => {
  test('the answer is {title, items} of about the size asked, and its change lists, one per token, rebuild it', () => {
    const text = answerDocument(10_000, 3);
    const size = Buffer.byteLength(text);
    expect(size).toBeGreaterThan(9_000);
    expect(size).toBeLessThanOrEqual(10_000);
    const document = JSON.parse(text) as { title: string; items: unknown[] };
    expect(Object.keys(document)).toStrictEqual(['title', 'items']);
    expect(document.items.length).toBeGreaterThan(50);
    const tokens = text.match(/[\s\S]{1,4}/gu) ?? [];
    const lists = changeListsPerToken(tokens);
    // The builder's end closes nothing new here (the last token closed the document).
    expect(lists.length).toBe(tokens.length);
    let value: unknown;
    for (const list of lists) value = applyChanges(value, list);
    expect(value).toStrictEqual(document);
  });
});

describe('live-client default path', () => {
  test('the wires written at 2 000 tokens/s, grouped per 16 ms tick and read by createLiveJson, rebuild the document', async () => {
    const text = answerDocument(2_000, 5);
    const tokens = text.match(/[\s\S]{1,4}/gu) ?? [];
    const perToken = await wireWrites(tokens, 2_000, { throttle: 0 });
    const byDefault = await wireWrites(tokens, 2_000, {});
    // The pace is kept: the last write comes when the last token does (tokens ÷ 2 per ms).
    expect(perToken.at(-1)?.at).toBeGreaterThanOrEqual((tokens.length - 1) / 2);
    expect(byDefault.at(-1)?.at).toBeGreaterThanOrEqual((tokens.length - 1) / 2);
    // The default throttle gathers many tokens per event; throttle 0 does not.
    expect(byDefault.length * 5).toBeLessThan(perToken.length);
    for (const writes of [perToken, byDefault]) {
      const { value, publishes } = await readLiveJson(pacedBody(chunksPerTick(writes), false));
      expect(value).toStrictEqual(JSON.parse(text));
      expect(publishes).toBeGreaterThan(0);
    }
  });
});

const chromium = findChromium();
if (chromium === undefined && !process.env.CI) console.warn(`live-client browser test skipped: ${MISSING_CHROMIUM}`);

describe.skipIf(chromium === undefined && !process.env.CI)('live-client in headless Chromium', () => {
  test('a quick run verifies every path in the page and reports its tables and targets', async () => {
    if (chromium === undefined) throw new Error(MISSING_CHROMIUM);
    const section = await liveClient.run({ quick: true, measure: { rounds: 1, sampleMs: 5 }, log: () => {} });
    expect(section.tables.length).toBeGreaterThanOrEqual(3);
    const perToken = section.tables[0];
    // The four paths timed by performance.now(), and the default path on its two wires.
    expect(perToken?.rows.map((row) => row[0])).toHaveLength(6);
    for (const row of perToken?.rows ?? []) expect(row.slice(1, 3).every((cell) => cell.endsWith(' µs'))).toBe(true);
    const targets = section.targets ?? [];
    expect(targets.map((t) => t.target.startsWith('live client:'))).toContain(true);
    expect(targets.filter((t) => t.target.startsWith('live client, the default path:'))).toHaveLength(2);
    for (const t of targets) expect(t.measured.length).toBeGreaterThan(0);
  }, 120_000);
});
