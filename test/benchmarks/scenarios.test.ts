/**
 * The benchmarks time only entrants that did the same work: these tests run every entrant of
 * every scenario once, on the quick inputs, and check what it delivers (no timing here).
 */
import { parseJsonl } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { extractionSchema } from '../../benchmarks/src/inputs.js';
import type { Scenario } from '../../benchmarks/src/scenario.js';
import { jsonlSchema } from '../../benchmarks/src/scenarios/jsonl-schema.js';
import { jsonlTokens } from '../../benchmarks/src/scenarios/jsonl-tokens.js';
import { longLine } from '../../benchmarks/src/scenarios/long-line.js';
import { noisyAnswers, noisyBatch } from '../../benchmarks/src/scenarios/noisy-answers.js';

const scenarios: Scenario[] = [jsonlTokens, jsonlSchema, noisyAnswers, longLine];

describe.each(scenarios.map((s) => [s.name, s] as const))('scenario %s', (_name, scenario) => {
  const cases = scenario.cases(true);

  test('has cases, each with llmjson and at least one peer in every layer it uses', () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const layers = new Set(c.contestants.map((x) => x.entrant.layer));
      for (const layer of layers) {
        if (layer === 'ceiling') continue;
        const here = c.contestants.filter((x) => x.entrant.layer === layer);
        expect(here.filter((x) => x.entrant.ours).length, `${c.label} ${layer}: llmjson`).toBeGreaterThan(0);
        expect(here.filter((x) => !x.entrant.ours).length, `${c.label} ${layer}: peers`).toBeGreaterThan(0);
      }
      const names = c.contestants.map((x) => x.entrant.name);
      expect(new Set(names).size, `${c.label}: entrant names are unique`).toBe(names.length);
    }
  });

  for (const c of cases) {
    for (const { entrant, expected } of c.contestants) {
      test(`${c.label}: ${entrant.name} delivers exactly its expected values`, async () => {
        expect(expected.length).toBeGreaterThan(0);
        expect(await entrant.run()).toStrictEqual(expected);
        // Entrants are reusable: the harness runs each one many times.
        expect(await entrant.run()).toStrictEqual(expected);
      });
    }
  }
});

describe('noisy answers', () => {
  const { answers, intact } = noisyBatch(true);
  const schema = extractionSchema();

  test('the batch holds every kind of slip the scenario describes', () => {
    const kinds = new Set(answers.flatMap((a) => a.items.map((i) => i.kind)));
    expect([...kinds].sort()).toStrictEqual(['broken', 'clean', 'cut', 'invalid', 'pretty', 'trailing-comma']);
    expect(new Set(answers.map((a) => a.framing))).toStrictEqual(new Set(['fenced', 'bare']));
    expect(intact).toBeGreaterThan(0);
  });

  test.each(answers.map((a, i) => [i, a] as const))('answer %i: llmjson accounts for every line', (_i, answer) => {
    const { stats, diagnostics } = parseJsonl(answer.text, { schema });
    expect(stats.valueLines + stats.skippedLines + stats.reportedLines).toBe(stats.lines);
    const count = (kind: string) => answer.items.filter((item) => item.kind === kind).length;
    const reasons = (...rs: string[]) => diagnostics.filter((d) => rs.includes(d.reason)).length;
    expect(reasons('recovered')).toBe(count('trailing-comma') + count('pretty'));
    expect(reasons('schema')).toBe(count('invalid'));
    // A line cut inside a string is a syntax error at its line break; one cut between tokens
    // leaves a value open, which the next value, a fence or the end of input reports.
    expect(reasons('syntax', 'truncated')).toBe(count('broken') + count('cut'));
    const cut = count('cut') > 0;
    expect(reasons('prose')).toBe(answer.framing === 'fenced' ? (cut ? 1 : 2) : 0);
    for (const d of diagnostics) {
      expect(d.line).toBeGreaterThan(0);
      expect(d.message.length).toBeGreaterThan(0);
    }
  });
});
