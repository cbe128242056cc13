/** The arithmetic behind every quoted figure, and the inputs' determinism. */
import { describe, expect, test } from 'vitest';
import type { Entrant } from '../../benchmarks/src/entrants.js';
import {
  compare,
  exponentOf,
  growthExponent,
  growthPer10x,
  median,
  ratio,
  type Skipped,
  type Timing,
  VerificationError,
  verify,
} from '../../benchmarks/src/harness.js';
import {
  blockChunks,
  byteTokens,
  charChunks,
  decodeTokens,
  fencedDocument,
  jsonDocument,
  jsonlAnswer,
  jsonlLines,
  noisyAnswer,
  proseThenFence,
  tokens,
  triadObjects,
  unionObjects,
} from '../../benchmarks/src/inputs.js';
import {
  formatExponent,
  formatRatio,
  formatSize,
  markdownTable,
  sideBySide,
  targetsSection,
} from '../../benchmarks/src/report.js';

function timing(name: string, layer: Timing['layer'], roundsMs: number[], ours = false): Timing {
  return { name, layer, ours, roundsMs, medianMs: median(roundsMs) };
}

describe('statistics', () => {
  test('median of odd and even counts, unsorted input', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(() => median([])).toThrow();
  });

  test('a ratio is the median of per-round ratios, with min and max', () => {
    // Round 2 is slow for both (machine drift): the per-round ratio cancels it.
    const a = timing('a', 'engine', [2, 20, 2.2]);
    const b = timing('b', 'engine', [1, 10, 1]);
    expect(ratio(a, b)).toStrictEqual({ median: 2, min: 2, max: 2.2 });
    expect(() => ratio(a, timing('c', 'engine', [1, 2]))).toThrow(/different rounds/);
  });

  test('growth per 10×: 10 for linear, 100 for quadratic, scaled for other size steps', () => {
    expect(growthPer10x(1, 1_000, 10, 10_000)).toBeCloseTo(10);
    expect(growthPer10x(1, 1_000, 100, 10_000)).toBeCloseTo(100);
    expect(growthPer10x(1, 1_000, 2, 2_000)).toBeCloseTo(10);
    expect(growthPer10x(1, 1_000, 4, 2_000)).toBeCloseTo(100);
  });

  test('growth exponent: 1 for linear, 2 for quadratic; 10 KB → 1 MB is log10(t2/t1) / 2', () => {
    expect(growthExponent(1, 10_000, 100, 1_000_000)).toBeCloseTo(1);
    expect(growthExponent(1, 10_000, 10_000, 1_000_000)).toBeCloseTo(2);
    expect(growthExponent(2, 10_000, 2 * 10 ** 2.2, 1_000_000)).toBeCloseTo(1.1);
  });

  test('the growth exponent over rounds: per-round ratios, median, min and max', () => {
    const small = timing('e', 'engine', [1, 2, 1]);
    const large = timing('e', 'engine', [100, 200, 1000]);
    const e = exponentOf(small, 10_000, large, 1_000_000);
    expect(e.median).toBeCloseTo(1);
    expect(e.min).toBeCloseTo(1);
    expect(e.max).toBeCloseTo(1.5);
    expect(formatExponent(e)).toBe('1.00 (1.00–1.50)');
    expect(formatExponent({ median: 1.064, min: 1.04, max: 1.08 })).toBe('1.06');
  });
});

describe('compare', () => {
  test('an entrant whose verifying run is over the budget is verified but not timed', async () => {
    const slow: Entrant = {
      name: 'slow',
      layer: 'stream',
      ours: false,
      run: () => {
        // Far over the budget below, which is far over what `fast` takes even on a loaded machine.
        const until = performance.now() + 300;
        while (performance.now() < until);
        return [1];
      },
    };
    const fast: Entrant = { name: 'fast', layer: 'stream', ours: true, run: () => [1] };
    const skipped: Skipped[] = [];
    const timings = await compare(
      [
        { entrant: slow, expected: [1] },
        { entrant: fast, expected: [1] },
      ],
      { rounds: 1, sampleMs: 1 },
      { maxRunMs: 100, skipped },
    );
    expect(timings.map((t) => t.name)).toStrictEqual(['fast']);
    expect(skipped.map((s) => s.name)).toStrictEqual(['slow']);
    expect(skipped[0]?.runMs).toBeGreaterThan(100);
  });
});

describe('verify', () => {
  const entrant = (values: unknown[]): Entrant => ({ name: 'e', layer: 'engine', ours: false, run: () => values });

  test('passes when the entrant delivers exactly the expected values', async () => {
    await expect(verify(entrant([{ a: 1 }, 2]), [{ a: 1 }, 2])).resolves.toBeGreaterThanOrEqual(0);
  });

  test('names the first differing value, or the counts', async () => {
    await expect(verify(entrant([{ a: 1 }, 3]), [{ a: 1 }, 2])).rejects.toThrow(/e: value 1 is 3, expected 2/);
    await expect(verify(entrant([1]), [1, 2])).rejects.toThrow(/delivered 1 values, expected 2/);
    await expect(verify(entrant([]), [1])).rejects.toBeInstanceOf(VerificationError);
  });
});

describe('report', () => {
  test('ratios keep two significant digits', () => {
    expect(formatRatio(1)).toBe('1.0×');
    expect(formatRatio(0.4236)).toBe('0.42×');
    expect(formatRatio(12.4)).toBe('12×');
    expect(formatRatio(340.2)).toBe('340×');
    expect(formatSize(999)).toBe('999 B');
    expect(formatSize(256_000)).toBe('256 KB');
    expect(formatSize(1_234_567)).toBe('1.2 MB');
  });

  test('side by side compares each entrant with the ceiling and with llmjson in its layer', () => {
    const table = sideBySide('caption', [
      {
        label: 'case',
        timings: [
          timing('ceiling', 'ceiling', [1, 1, 1]),
          timing('ours', 'engine', [2, 2, 2], true),
          timing('peer', 'engine', [6, 6, 6]),
          timing('our stream', 'stream', [10, 10, 10], true),
          timing('peer stream', 'stream', [5, 5, 5]),
        ],
      },
      { label: 'other', timings: [timing('ours', 'engine', [1, 1, 1], true)] },
    ]);
    expect(table.header).toStrictEqual([
      'entrant',
      'layer',
      'case: time ÷ JSON.parse',
      'case: time ÷ llmjson',
      'other: time ÷ llmjson',
    ]);
    expect(table.rows).toStrictEqual([
      ['ceiling', 'ceiling', '1.0×', '—', '—'],
      ['ours', 'engine', '2.0×', '1.0×', '1.0×'],
      ['peer', 'engine', '6.0×', '3.0×', '—'],
      ['our stream', 'stream', '10×', '1.0×', '—'],
      ['peer stream', 'stream', '5.0×', '0.50×', '—'],
    ]);
    const floors = sideBySide('floor', [
      {
        label: 'case',
        timings: [timing('our stream', 'stream', [10, 10, 10], true), timing('floor', 'floor', [8, 8, 8])],
      },
    ]);
    // A floor is compared with llmjson's stream.
    expect(floors.rows[1]).toStrictEqual(['floor', 'floor', '0.80×']);
    expect(markdownTable(table).split('\n')[1]).toBe('| --- | ---: | ---: | ---: | ---: |');
  });

  test('the targets of all sections are gathered into one table, with met and missed', () => {
    const section = (targets: { met: boolean }[]) => ({
      scenario: 's',
      title: 't',
      about: '',
      tables: [],
      notes: [],
      data: null,
      targets: targets.map((t, i) => ({ target: `target ${i}`, basis: 'b', measured: 'm', met: t.met })),
    });
    expect(targetsSection([section([])])).toBeUndefined();
    const table = targetsSection([section([{ met: true }]), section([{ met: false }])])?.tables[0];
    expect(table?.caption).toBe('1 of 2 met.');
    expect(table?.rows.map((r) => r[3])).toStrictEqual(['met', 'missed']);
  });
});

describe('inputs', () => {
  test('token chunks are 3 to 6 bytes and reassemble the input; decoded chunks rejoin the text', () => {
    const text = jsonlAnswer(4_000, 7).text;
    const bytes = new TextEncoder().encode(text);
    const chunks = byteTokens(bytes);
    expect(chunks.slice(0, 8).map((c) => c.length)).toStrictEqual([3, 4, 5, 6, 3, 4, 5, 6]);
    expect(Buffer.concat(chunks).equals(Buffer.from(bytes))).toBe(true);
    const strings = decodeTokens(chunks);
    expect(strings.join('')).toBe(text);
    // Multi-byte characters make some chunks end inside a character.
    expect(strings.length).toBe(chunks.length);
    expect(strings.some((s, i) => new TextEncoder().encode(s).length !== chunks[i]?.length)).toBe(true);
    expect(tokens(text).size).toBe(bytes.length);
  });

  test('answers are deterministic and their lines parse to their objects', () => {
    const a = jsonlAnswer(8_000, 3, 0.1, unionObjects(8));
    expect(jsonlAnswer(8_000, 3, 0.1, unionObjects(8)).text).toBe(a.text);
    expect(a.lines.map((l) => JSON.parse(l))).toStrictEqual(a.objects);
    expect(a.text).toBe(a.lines.map((l) => `${l}\n`).join(''));
    expect(a.valid.length).toBeLessThan(a.objects.length);
    expect(noisyAnswer(20, 5).text).toBe(noisyAnswer(20, 5).text);
  });

  test('4-character chunks are strings of 4 code points (a surrogate pair is never split)', () => {
    const text = jsonlAnswer(8_000, 7).text;
    const chunked = charChunks(text, 4);
    expect(chunked.writes).toBe(chunked.strings);
    expect(chunked.strings.join('')).toBe(text);
    expect(chunked.strings.slice(0, -1).every((s) => [...s].length === 4)).toBe(true);
    expect(chunked.strings.some((s) => s.length > 4)).toBe(true);
    expect(chunked.size).toBe(Buffer.byteLength(text));
  });

  test('64 KiB chunks are bytes for streams and their decoded text for engines', () => {
    const text = jsonlLines(2_000, 3, triadObjects()).text;
    const chunked = blockChunks(text);
    expect(chunked.writes.length).toBeGreaterThan(1);
    expect(chunked.writes.every((c) => c instanceof Uint8Array)).toBe(true);
    expect(chunked.strings.join('')).toBe(text);
  });

  test('salvage prose: deterministic, about the size asked, with every kind of stray bracket and quote', () => {
    const input = proseThenFence(20_000, 3);
    expect(proseThenFence(20_000, 3).text).toBe(input.text);
    const size = Buffer.byteLength(input.text);
    expect(size).toBeGreaterThanOrEqual(20_000);
    expect(size).toBeLessThan(20_400);
    const [prose = '', fence = ''] = input.text.split('\n```json\n');
    expect(JSON.parse(fence.slice(0, fence.indexOf('\n```\n')))).toStrictEqual(input.answer);
    for (const stray of [/\{\p{L}/u, /\[\p{L}/u, /\p{L}\}/u, /\p{L}\]/u, /\p{L}'s /u, /"[^"\n]+"/, /\[\d+\]/]) {
      expect(prose).toMatch(stray);
    }
    const stray = prose.replace(/\[\d+\]/g, '');
    const count = (re: RegExp) => stray.match(re)?.length ?? 0;
    // Stray openers outnumber stray closers: a bracket counter started in the prose seldom gets back to zero.
    expect(count(/[{[]/g)).toBeGreaterThan(1.5 * count(/[}\]]/g));
    // A lone quote: a sentence with an odd number of them.
    expect(prose.split(/(?<=\.)\s+/).some((sentence) => (sentence.match(/"/g)?.length ?? 0) % 2 === 1)).toBe(true);
    expect(input.citations).toStrictEqual([...prose.matchAll(/\[(\d+)\]/g)].map((m) => [Number(m[1])]));
  });

  test('the JSON.parse ceiling document is valid and as large as the text it stands for', () => {
    const document = jsonDocument(50_000, 4);
    expect(Buffer.byteLength(document)).toBeGreaterThanOrEqual(50_000);
    expect(Buffer.byteLength(document)).toBeLessThan(50_200);
    expect(JSON.parse(document)).toHaveProperty('items');
  });

  test('the fenced-only answer is one pretty-printed document in a ```json fence', () => {
    const { text, document } = fencedDocument(20_000, 5);
    expect(text).toBe(`\`\`\`json\n${JSON.stringify(document, null, 2)}\n\`\`\`\n`);
    expect(Buffer.byteLength(text)).toBeGreaterThan(18_000);
    expect(Buffer.byteLength(text)).toBeLessThan(22_000);
  });

  test('lines of about 200 bytes and of about 100 KB', () => {
    const short = jsonlLines(500, 1, triadObjects());
    const mean = Buffer.byteLength(short.text) / short.lines.length;
    expect(mean).toBeGreaterThan(150);
    expect(mean).toBeLessThan(260);
    const long = jsonlLines(2, 1, triadObjects(100_000));
    for (const line of long.lines) expect(Buffer.byteLength(line)).toBeGreaterThan(100_000);
  });
});
