/**
 * The bracket-dense rows of the salvage scenario (issue 15): the cases exist, the input is the
 * issue's text repeated and then a fenced answer, and every entrant delivers exactly its
 * expected values (no timing here; scenarios.test.ts does the same for the other cases).
 */
import { describe, expect, test } from 'vitest';
import { bracketDenseProse, DENSE_UNIT, denseCases } from '../../benchmarks/src/scenarios/salvage.js';

describe('salvage scenario: bracket-dense prose', () => {
  const cases = denseCases(true);

  test('growing cases with extractJson, the JSON.parse ceiling and best-effort-json-parser', () => {
    expect(cases.map((c) => c.label)).toStrictEqual([
      '10 KB bracket-dense prose + fence',
      '100 KB bracket-dense prose + fence',
    ]);
    for (const c of cases) {
      expect(c.contestants.map((x) => x.entrant.name)).toStrictEqual([
        'JSON.parse of a valid document of the same size',
        'llmjson extractJson',
        'best-effort-json-parser parse',
      ]);
      const ceiling = c.contestants[0];
      const bytes = Buffer.byteLength(JSON.stringify(ceiling?.expected[0]));
      expect(bytes).toBeGreaterThan(0.9 * c.size);
      expect(bytes).toBeLessThan(1.1 * c.size);
    }
  });

  test('the input is the issue text repeated, then the answer in a json fence', () => {
    expect(DENSE_UNIT).toBe('a set {x, y and see [3 and {"k": then "quoted } text ');
    const { text, answer } = bracketDenseProse(10_000);
    const fence = text.indexOf('```json\n');
    expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(10_000);
    expect(Buffer.byteLength(text)).toBeLessThan(10_000 + DENSE_UNIT.length);
    expect(fence).toBeGreaterThan(5_000);
    const prose = text.slice(0, text.indexOf('\n\nHere is the answer'));
    expect(prose.length % DENSE_UNIT.length).toBe(0);
    expect(prose).toBe(DENSE_UNIT.repeat(prose.length / DENSE_UNIT.length));
    expect(JSON.parse(text.slice(fence + 8, text.lastIndexOf('\n```')))).toStrictEqual(answer);
  });

  for (const c of cases) {
    for (const { entrant, expected } of c.contestants) {
      test(`${c.label}: ${entrant.name} delivers exactly its expected values`, async () => {
        expect(expected.length).toBeGreaterThan(0);
        expect(await entrant.run()).toStrictEqual(expected);
        expect(await entrant.run()).toStrictEqual(expected);
      });
    }
  }
});
