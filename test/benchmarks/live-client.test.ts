/**
 * The `live-client` benchmark measures the client's side of live UIs in Chromium. These tests
 * check, without timing anything, that its inputs are what it says (one change list per token,
 * which rebuild the document) and that a quick run of the whole scenario works in the browser:
 * the pages bundle, every path reaches the document there, and the tables and targets come out.
 *
 * Without Chromium the browser test fails in CI with what to install; elsewhere it is skipped
 * with the same message (a user's machine may have no browser).
 */
import { applyChanges } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { findChromium, MISSING_CHROMIUM } from '../../benchmarks/src/browser/chromium.js';
import { answerDocument, changeListsPerToken, liveClient } from '../../benchmarks/src/scenarios/live-client.js';

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

const chromium = findChromium();
if (chromium === undefined && !process.env.CI) console.warn(`live-client browser test skipped: ${MISSING_CHROMIUM}`);

describe.skipIf(chromium === undefined && !process.env.CI)('live-client in headless Chromium', () => {
  test('a quick run verifies every path in the page and reports its tables and targets', async () => {
    if (chromium === undefined) throw new Error(MISSING_CHROMIUM);
    const section = await liveClient.run({ quick: true, measure: { rounds: 1, sampleMs: 5 }, log: () => {} });
    expect(section.tables.length).toBeGreaterThanOrEqual(3);
    const perToken = section.tables[0];
    expect(perToken?.rows.map((row) => row[0])).toHaveLength(4);
    for (const row of perToken?.rows ?? []) expect(row.slice(1, 3).every((cell) => cell.endsWith(' µs'))).toBe(true);
    const targets = section.targets ?? [];
    expect(targets.map((t) => t.target.startsWith('live client:'))).toContain(true);
    for (const t of targets) expect(t.measured.length).toBeGreaterThan(0);
  }, 120_000);
});
