import { describe, expect, test } from 'vitest';
import { chartsFor, leadingNumber, percentOf, sizeOf } from '../../benchmarks/src/charts.js';
import type { Section } from '../../benchmarks/src/scenario.js';

const section = (tables: Section['tables']): Section => ({
  scenario: 'demo',
  title: 'A scenario',
  about: '',
  tables,
  notes: [],
  data: undefined,
});

describe('benchmark charts', () => {
  test('cells and headings are read as the report formats them', () => {
    expect(leadingNumber('2.5× (1.7×–3.7×)', '×')).toBe(2.5);
    expect(leadingNumber('1002×', '×')).toBe(1002);
    expect(leadingNumber('—', '×')).toBeUndefined();
    expect(leadingNumber('0.07 ms', ' ?ms')).toBe(0.07);
    expect(leadingNumber('not run (over budget)', ' ?ms')).toBeUndefined();
    expect(sizeOf('1.0 MB')).toBe(1e6);
    expect(sizeOf('10 KB')).toBe(1e4);
    expect(sizeOf('64 KiB chunks')).toBeUndefined();
    expect(percentOf('3202 of 3888 (82%)')).toBe(82);
    expect(percentOf('82')).toBeUndefined();
  });

  test('a ratio table becomes one bar per entrant and case, on a log axis when the values span more than 20×', () => {
    const charts = chartsFor(
      section([
        {
          caption: 'Input: 1 MB.',
          header: ['entrant', 'layer', 'a: time ÷ llmjson', 'b: time ÷ llmjson'],
          rows: [
            ['llmjson x', 'engine', '1.0×', '1.0×'],
            ['peer y', 'engine', '4.1× (3.0×–5.0×)', '—'],
            ['peer z', 'engine', '120×', '9.5×'],
          ],
        },
      ]),
      'Run of today',
    );
    expect(charts.map((c) => c.file)).toEqual(['demo-1.svg']);
    const svg = charts[0]?.svg ?? '';
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<rect x=/g)).toHaveLength(5); // 3 + 2 bars (the '—' cell is left out)
    expect(svg).toContain('log scale');
    expect(svg).toContain('>120×<');
    expect(svg).toContain('Run of today');
    expect(svg).toContain('A scenario');
    const narrow = chartsFor(
      section([
        {
          caption: 'c',
          header: ['entrant', 'a: time ÷ llmjson'],
          rows: [
            ['llmjson', '1.0×'],
            ['p', '3.0×'],
          ],
        },
      ]),
      '',
    );
    expect(narrow[0]?.svg).not.toContain('log scale');
  });

  test('a size sweep becomes growth lines on log–log axes; other tables are not drawn', () => {
    const charts = chartsFor(
      section([
        {
          caption: 'Time of one run.',
          header: ['entrant', '1 KB', '10 KB', '100 KB'],
          rows: [
            ['llmjson a', '0.1 ms', '1.0 ms', '10 ms'],
            ['peer b', '1 ms', '100 ms', 'not run (over budget)'],
          ],
        },
        { caption: 'Exponents.', header: ['entrant', 'exponent'], rows: [['a', '1.01']] },
      ]),
      '',
    );
    expect(charts).toHaveLength(1);
    const svg = charts[0]?.svg ?? '';
    expect(svg.match(/<path d="M/g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(5);
    expect(svg).toContain('log–log');
  });
});

describe('benchmark charts: shares and times', () => {
  test('a column of "n of m (p%)" cells becomes percentage bars; rows of ms cells become grouped bars', () => {
    const charts = chartsFor(
      section([
        {
          caption: 'Input: 200 answers.',
          header: ['entrant', 'layer', 'intact objects delivered', 'time ÷ llmjson'],
          rows: [
            ['llmjson', 'stream', '3888 of 3888 (100%)', '1.0×'],
            ['peer', 'stream', '233 of 3888 (6%)', '2.0×'],
          ],
        },
        {
          caption: 'Delivery.',
          header: ['chunks', 'input', 'decoder today', 'scanner alone'],
          rows: [['4-char chunks', '4.1 MB', '85.6 ms', '70.6 ms (0.77× the decoder)']],
        },
      ]),
      '',
    );
    expect(charts.map((c) => c.file)).toEqual(['demo-1.svg', 'demo-2.svg', 'demo-3.svg']);
    expect(charts[0]?.svg).toContain('>100%<');
    expect(charts[0]?.svg).toContain('>6%<');
    expect(charts[2]?.svg).toContain('>85.6 ms<');
  });
});
