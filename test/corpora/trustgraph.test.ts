/**
 * Conformance with TrustGraph's `parse_jsonl` (trustgraph-ai/trustgraph, PromptManager and the
 * agent KG extractor): the `mode: "jsonl"` cases decode to the objects TrustGraph keeps, at
 * every chunk size, except for the deliberate differences listed in `DELIBERATE_DIFFERENCES`.
 * Where TrustGraph drops a line silently, we report it: every dropped line has a diagnostic.
 *
 * The `mode: "json"` cases (one JSON document per answer) belong to the JSON response type,
 * which the JSONL decoder does not cover; they are not tested here.
 */
import { type JsonlOptions, type JsonSchema, parseJsonl } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';
import { framedLines } from '../support/arbitraries.js';
import { everyChunkSize } from '../support/chunking.js';
import { decodeChunks } from '../support/collect.js';
import { corpus } from '../support/corpora.js';

const trustgraph = corpus<TrustGraphCase[]>('extraction/trustgraph.json', 'TrustGraph conformance');
const exists = trustgraph.present;

interface TrustGraphCase {
  readonly name: string;
  readonly mode: 'json' | 'jsonl';
  readonly input: string;
  readonly schema?: JsonSchema;
  readonly expected: unknown;
}

/**
 * Cases where our values differ from TrustGraph's on purpose: name → our values and why.
 * None today: on every JSONL case we keep exactly the objects TrustGraph keeps; the difference
 * is only that we report each dropped line instead of dropping it silently.
 */
const DELIBERATE_DIFFERENCES: Record<string, { values: unknown[]; why: string }> = {};

const cases: TrustGraphCase[] = exists ? trustgraph.load().filter((c) => c.mode === 'jsonl') : [];

function isBlankOrFence(line: string): boolean {
  return /^[ \t\r]*$/.test(line) || /^[ \t]*(?:`{3,}|~{3,})[ \t]*[\w.+#-]*[ \t]*$/.test(line);
}

describe.skipIf(!exists)('TrustGraph parse_jsonl', () => {
  test('the corpus holds JSONL cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  test('every deliberate difference names a case of the corpus', () => {
    const names = new Set(cases.map((c) => c.name));
    expect(Object.keys(DELIBERATE_DIFFERENCES).filter((n) => !names.has(n))).toEqual([]);
  });

  describe.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const options: JsonlOptions = c.schema === undefined ? {} : { schema: c.schema, compileJsonSchema: compileSchema };
    const expected = DELIBERATE_DIFFERENCES[c.name]?.values ?? c.expected;

    test('values match, whole and at every chunk size', () => {
      const whole = parseJsonl(c.input, options);
      expect(whole.values).toEqual(expected);
      for (const [label, chunks] of everyChunkSize(c.input)) {
        const chunked = decodeChunks(chunks, options);
        expect(chunked.values, label).toEqual(expected);
        expect(chunked.diagnostics, label).toEqual(whole.diagnostics);
      }
    });

    test('every dropped line has a diagnostic', () => {
      const result = parseJsonl(c.input, options);
      const lines = framedLines(c.input);
      expect(result.stats.lines).toBe(lines.length);
      expect(result.stats.valueLines + result.stats.skippedLines + result.stats.reportedLines).toBe(lines.length);
      const dropped = lines
        .map((line, i) => ({ n: i + 1, text: line.text }))
        .filter(({ n, text }) => !isBlankOrFence(text) && !result.records.some((r) => r.line <= n && n <= r.endLine));
      for (const { n, text } of dropped) {
        const covering = result.diagnostics.filter((d) => (d.line ?? 0) <= n && n <= (d.endLine ?? d.line ?? 0));
        expect(covering.length, `line ${n}: ${JSON.stringify(text)}`).toBeGreaterThan(0);
        for (const d of covering) expect(['prose', 'syntax', 'schema', 'truncated']).toContain(d.reason);
      }
      expect(result.stats.reportedLines).toBe(dropped.length);
    });
  });
});
