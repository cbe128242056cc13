/**
 * The concurrent-streams scenario times only entrants that did the same work: every entrant of
 * its smallest cases (100 interleaved streams, and stream creation) runs twice and must deliver
 * exactly what the scenario lists for it (no timing here), as test/benchmarks/scenarios.test.ts
 * checks for the other scenarios.
 */
import { describe, expect, test } from 'vitest';
import { concurrentStreams } from '../../benchmarks/src/scenarios/concurrent-streams.js';

const cases = concurrentStreams.cases(true).filter((c) => c.label.startsWith('100 ') || c.label === 'stream creation');

describe('scenario concurrent-streams', () => {
  test('has the JSONL, partial and creation cases, with llmjson and a reference or peer in each', () => {
    expect(cases.map((c) => c.label)).toEqual(['100 JSONL streams', '100 partial streams', 'stream creation']);
    for (const c of cases) {
      expect(
        c.contestants.some((x) => x.entrant.ours),
        c.label,
      ).toBe(true);
      expect(
        c.contestants.some((x) => !x.entrant.ours),
        c.label,
      ).toBe(true);
      const names = c.contestants.map((x) => x.entrant.name);
      expect(new Set(names).size, `${c.label}: entrant names are unique`).toBe(names.length);
    }
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
