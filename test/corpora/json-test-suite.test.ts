/**
 * Conformance with JSONTestSuite (nst/JSONTestSuite, test_parsing/): every case that fits on
 * one line is decoded as a one-line JSONL answer, from its raw bytes, through the Node stream.
 *
 * - strict mode: a value is emitted exactly when `JSON.parse` accepts the text (decoded as the
 *   Node adapter decodes bytes: a non-fatal UTF-8 TextDecoder that drops a BOM), and it is the
 *   same value; `y_` cases are accepted and `n_` cases rejected.
 * - default mode: differs from `JSON.parse` only by the recoveries listed in
 *   `DEFAULT_MODE_RECOVERIES` (docs/decisions/003-recovery-rules.md), each reported.
 * - the deep-nesting cases and the multi-line cases never crash, and every line is accounted for.
 */
import { isDeepStrictEqual } from 'node:util';
import { type JsonlOptions, type JsonlStats, parseJsonl } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { chunkBytes, chunkText } from '../support/chunking.js';
import { type Collected, decodeChunks, streamChunks } from '../support/collect.js';
import { corpus } from '../support/corpora.js';

const suite = corpus<SuiteCase[]>('json-test-suite/cases.json', 'JSONTestSuite conformance');
const exists = suite.present;

interface SuiteCase {
  readonly name: string;
  readonly expect: 'accept' | 'reject' | 'either';
  readonly input_base64: string;
}

interface Loaded extends SuiteCase {
  readonly bytes: Uint8Array;
  /** The bytes decoded exactly as the Node adapter decodes them. */
  readonly text: string;
  readonly parsed: { ok: true; value: unknown } | { ok: false };
}

function load(): Loaded[] {
  const cases = suite.load();
  return cases.map((c) => {
    const bytes = new Uint8Array(Buffer.from(c.input_base64, 'base64'));
    const text = new TextDecoder('utf-8').decode(bytes);
    let parsed: Loaded['parsed'];
    try {
      parsed = { ok: true, value: JSON.parse(text) };
    } catch {
      parsed = { ok: false };
    }
    return { ...c, bytes, text, parsed };
  });
}

const all = exists ? load() : [];
/** One line: no line break, or only one at the very end. */
const oneLine = all.filter((c) => !c.text.replace(/\n$/, '').includes('\n'));
const multiLine = all.filter((c) => !oneLine.includes(c));

/** Inputs longer than this are fed in 1 KiB chunks instead of single bytes (the deep-nesting cases). */
const BYTE_BY_BYTE_LIMIT = 16 * 1024;

/**
 * Where the default mode differs from `JSON.parse` on a one-line case, and why. Every entry is a
 * recovery of docs/decisions/003-recovery-rules.md, reported with a `recovered` diagnostic.
 */
const DEFAULT_MODE_RECOVERIES: Record<string, { values: unknown[]; why: string }> = {
  n_array_comma_after_close: {
    values: [['']],
    why: '`[""],` is a complete value followed by a trailing comma: recovery 1 removes the comma',
  },
};

function withNewline(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  out[bytes.length] = 0x0a;
  return out;
}

function byteChunkings(bytes: Uint8Array): [string, Uint8Array[]][] {
  const size = bytes.length > BYTE_BY_BYTE_LIMIT ? 1024 : 1;
  return [
    ['whole', [bytes]],
    [`${size}-byte chunks`, chunkBytes(bytes, size)],
  ];
}

function expectAccounted(stats: JsonlStats, lines: number): void {
  expect(stats.lines).toBe(lines);
  expect(stats.valueLines + stats.skippedLines + stats.reportedLines).toBe(stats.lines);
}

function lineCount(text: string): number {
  const breaks = text.split('\n').length - 1;
  return breaks + (text.endsWith('\n') || text === '' ? 0 : 1);
}

describe.skipIf(!exists)('JSONTestSuite', () => {
  test('the corpus is the one described in its README', () => {
    expect(all).toHaveLength(318);
    expect(oneLine.length + multiLine.length).toBe(318);
  });

  test('JSON.parse on the decoded bytes accepts every y_ case and rejects every n_ case', () => {
    const wrong = all
      .filter((c) => c.expect !== 'either' && c.parsed.ok !== (c.expect === 'accept'))
      .map((c) => c.name);
    expect(wrong).toEqual([]);
  });

  describe('strict mode agrees with JSON.parse (Node stream, raw bytes)', () => {
    test.each(oneLine.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const input = withNewline(c.bytes);
      for (const [label, chunks] of byteChunkings(input)) {
        const result = await streamChunks(chunks, { strict: true });
        if (c.parsed.ok) {
          expect(result.values, label).toHaveLength(1);
          expect(isDeepStrictEqual(result.values[0], c.parsed.value), label).toBe(true);
        } else {
          expect(result.values, label).toEqual([]);
          expect(result.stats.reportedLines + result.stats.skippedLines, label).toBe(result.stats.lines);
        }
        if (c.expect === 'accept') expect(result.values, label).toHaveLength(1);
        if (c.expect === 'reject') expect(result.values, label).toEqual([]);
        expectAccounted(result.stats, lineCount(`${c.text}\n`));
      }
    });
  });

  test('default mode differs from JSON.parse only by the documented recoveries', async () => {
    const differences: Record<string, unknown[]> = {};
    for (const c of oneLine) {
      const result = await streamChunks([withNewline(c.bytes)]);
      const expected = c.parsed.ok ? [c.parsed.value] : [];
      if (!isDeepStrictEqual(result.values, expected)) {
        differences[c.name] = result.values;
        expect(result.diagnostics.map((d) => d.reason)).toContain('recovered');
      }
    }
    expect(differences).toEqual(
      Object.fromEntries(Object.entries(DEFAULT_MODE_RECOVERIES).map(([name, { values }]) => [name, values])),
    );
  });

  describe('deep nesting never crashes', () => {
    const deep = all.filter((c) =>
      ['n_structure_100000_opening_arrays', 'n_structure_open_array_object', 'i_structure_500_nested_arrays'].includes(
        c.name,
      ),
    );

    test('all three cases are present', () => {
      expect(deep).toHaveLength(3);
    });

    test.each(deep.map((c) => [c.name, c] as const))('%s', (_name, c) => {
      for (const options of [{}, { strict: true }] satisfies JsonlOptions[]) {
        const whole = decodeChunks([c.text], options);
        expectAccounted(whole.stats, lineCount(c.text));
        expect(whole.values.length + whole.diagnostics.length).toBeGreaterThan(0);
        if (c.parsed.ok) expect(isDeepStrictEqual(whole.values, [c.parsed.value])).toBe(true);
        else expect(whole.values).toEqual([]);
        expect(decodeChunks(chunkText(c.text, 1), options)).toEqual(whole);
      }
    });
  });

  describe('multi-line cases: no crash, every line accounted for, chunking does not matter', () => {
    test.each(multiLine.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      for (const options of [{}, { strict: true }] satisfies JsonlOptions[]) {
        const whole: Collected = decodeChunks([c.text], options);
        expectAccounted(whole.stats, lineCount(c.text));
        for (const [label, chunks] of byteChunkings(c.bytes)) {
          expect(await streamChunks(chunks, options), label).toEqual(whole);
        }
      }
    });

    test('a pretty-printed document is one value in default mode and one syntax error per line in strict mode', () => {
      const pretty = multiLine.find((c) => c.name === 'y_object_with_newlines');
      expect(pretty).toBeDefined();
      const text = pretty?.text ?? '';
      expect(parseJsonl(text).values).toEqual([{ a: 'b' }]);
      expect(parseJsonl(text, { strict: true }).values).toEqual([]);
    });
  });
});
