/**
 * Salvage on bracket-dense prose (issue 15, decision 021): prose where a `{` or `[` opens a
 * candidate every few characters, most of them settled by the look-ahead before a candidate
 * is opened, the rest by the scanner.
 *
 * The noise fragments are chosen so that every candidate started in one (a rescan from a
 * bracket inside one of its strings included) dies before the fragment ends, whatever follows,
 * and none of them holds a value: so each planted value must be found exactly, and nothing
 * else. The look-ahead sees at most the rest of the chunk it is in, so a one-character chunking
 * runs the scanner's own path for every bracket: comparing it with the whole text (where the
 * look-ahead decides most brackets) checks the look-ahead against the scanner.
 */
import { isDeepStrictEqual } from 'node:util';
import { test as fcTest } from '@fast-check/vitest';
import { extractJson, type SalvagedValue } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonValueText, objectText } from '../support/arbitraries.js';
import { chunkText, numRuns, splitAt, splitPoints, utf8 } from '../support/chunking.js';
import { salvageChunks, salvageOneShot, salvageStreamChunks } from '../support/salvage.js';

/** The unit of bracket-dense prose. */
const UNIT = 'a set {x, y and see [3 and {"k": then "quoted } text ';

/** Noise: each candidate in a fragment dies inside it; none of them is a value. */
const FRAGMENTS = [
  UNIT,
  '[3 and ',
  '{x, ',
  '{"k": then ',
  '"quoted } text ',
  'see [[[x ',
  '{"a": [1, 2 x ',
  '{"a": "[b" q ',
  '{"a": 1, "b": tru ',
  '[-x ',
  '[01 ',
  '[1.e ',
  '[1e+ ',
  '[-0.5e3 and ',
  '[1, 2, 3, "four", true, null, -0.5E+3 and ',
  '{ "a" : 1 , "b" : 2 but ',
  '{"k": "line\n',
  `{"k": "${'x'.repeat(80)}" q `,
  '{"k\\"": x ',
  '{"k": "\\u00e9" q ',
  'say "hi {"a": x ',
  '[1 } ',
  '{"a" ] ',
  '{ ] ',
  '[nul ',
  '[falsey ',
  '{\n\tx ',
  "it's [see ",
  '{"a":1 "b" ',
  '[1,, ',
  '{"é😀": z ',
];

type Item = { kind: 'noise'; text: string } | { kind: 'embedded'; value: string } | { kind: 'fence'; value: string };

const containerText: fc.Arbitrary<string> = fc.oneof(
  objectText,
  fc.array(jsonValueText, { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
);

const item: fc.Arbitrary<Item> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FRAGMENTS).map((text): Item => ({ kind: 'noise', text })) },
  { weight: 2, arbitrary: containerText.map((value): Item => ({ kind: 'embedded', value })) },
  { weight: 1, arbitrary: containerText.map((value): Item => ({ kind: 'fence', value })) },
);

interface Planted {
  readonly value: unknown;
  readonly start: number;
  readonly end: number;
  readonly source: SalvagedValue['source'];
}

interface Answer {
  readonly text: string;
  readonly planted: readonly Planted[];
}

/** Noise first (so no value is the whole text), then the items; values between spaces or in fences. */
function build(items: readonly Item[]): Answer {
  let text = UNIT;
  const planted: Planted[] = [];
  for (const it of items) {
    if (it.kind === 'noise') {
      text += it.text;
      continue;
    }
    if (it.kind === 'fence') text += '\n```json\n';
    planted.push({
      value: JSON.parse(it.value),
      start: text.length,
      end: text.length + it.value.length,
      source: it.kind,
    });
    text += it.value;
    text += it.kind === 'fence' ? '\n```\n' : ' ';
  }
  text += UNIT;
  return { text, planted };
}

const answer: fc.Arbitrary<Answer> = fc.array(item, { maxLength: 40 }).map(build);

/** What `extractJson` prefers among the planted values: the first fenced, else the first object, else the first array. */
function preferred(planted: readonly Planted[]): Planted | undefined {
  return (
    planted.find((p) => p.source === 'fence') ??
    planted.find((p) => !Array.isArray(p.value)) ??
    planted.find((p) => p.source === 'embedded')
  );
}

function expectPlanted(values: readonly SalvagedValue[], planted: readonly Planted[]): void {
  expect(values.map((v) => ({ start: v.start, end: v.end, source: v.source }))).toEqual(
    planted.map((p) => ({ start: p.start, end: p.end, source: p.source })),
  );
  values.forEach((v, i) => {
    expect(isDeepStrictEqual(v.value, (planted[i] as Planted).value), `value ${i}`).toBe(true);
  });
}

describe('bracket-dense prose with planted values', () => {
  fcTest.prop([answer], { numRuns: numRuns * 2 })(
    'whole: exactly the planted values (extractAllJson), and extractJson returns the preferred one',
    (a) => {
      const whole = salvageOneShot(a.text);
      expectPlanted(whole.values, a.planted);
      expect(whole.diagnostics).toEqual([]);
      const expected = preferred(a.planted);
      const found = extractJson(a.text);
      expect(found === undefined ? undefined : { start: found.start, source: found.source }).toEqual(
        expected === undefined ? undefined : { start: expected.start, source: expected.source },
      );
      if (expected !== undefined) expect(isDeepStrictEqual(found?.value, expected.value)).toBe(true);
    },
  );

  fcTest.prop([answer.chain((a) => fc.tuple(fc.constant(a), splitPoints(a.text.length)))], { numRuns })(
    'core scanner, any string split: exactly the planted values, and the one-shot values, diagnostics and stats',
    ([a, points]) => {
      const chunked = salvageChunks(splitAt(a.text, points));
      expectPlanted(chunked.values, a.planted);
      const whole = salvageChunks([a.text]);
      expect(chunked.values).toEqual(whole.values);
      expect(chunked.diagnostics).toEqual(whole.diagnostics);
      expect(chunked.stats).toEqual(whole.stats);
    },
  );

  fcTest.prop([answer.chain((a) => fc.tuple(fc.constant(a), splitPoints(utf8.encode(a.text).length)))], { numRuns })(
    'salvage stream, UTF-8 bytes split anywhere: exactly the planted values',
    async ([a, points]) => {
      const streamed = await salvageStreamChunks(splitAt(utf8.encode(a.text), points));
      expectPlanted(streamed.values, a.planted);
      expect(streamed.diagnostics).toEqual([]);
    },
  );
});

describe('the look-ahead agrees with the scanner', () => {
  /**
   * Arbitrary near-JSON: whole (the look-ahead decides what it can) against one-character
   * chunks (the scanner decides every bracket). Values, diagnostics and stats must be equal.
   */
  const nearJson = fc
    .array(
      fc.constantFrom(
        '{',
        '[',
        '}',
        ']',
        '"',
        ':',
        ',',
        ' ',
        '\n',
        '\t',
        '\\',
        '-',
        '0',
        '1',
        '9',
        '.',
        'e',
        'E',
        '+',
        't',
        'r',
        'u',
        'f',
        'a',
        'l',
        's',
        'n',
        'x',
        '`',
        '~',
        'é',
        '{"a": ',
        '[1, ',
        'true',
        'null',
        '"k"',
        '```json\n',
        '\n```\n',
        '{"k\n',
        '"\n',
        '``',
      ),
      { maxLength: 80 },
    )
    .map((parts) => parts.join(''));

  fcTest.prop([nearJson], { numRuns: numRuns * 5 })(
    'whole text and one-character chunks give the same result',
    (text) => {
      const whole = salvageChunks([text]);
      const single = salvageChunks(chunkText(text, 1));
      expect(single.values).toEqual(whole.values);
      expect(single.diagnostics).toEqual(whole.diagnostics);
      expect(single.stats).toEqual(whole.stats);
    },
  );

  fcTest.prop([nearJson], { numRuns: numRuns * 2 })(
    'strict, and a small maxCandidateLength: still the same result',
    (text) => {
      for (const options of [{ strict: true }, { maxCandidateLength: 3 }]) {
        const whole = salvageChunks([text], options);
        const single = salvageChunks(chunkText(text, 1), options);
        expect(single.values).toEqual(whole.values);
        expect(single.diagnostics).toEqual(whole.diagnostics);
        expect(single.stats).toEqual(whole.stats);
      }
    },
  );
});

describe('1 MB of bracket-dense prose', () => {
  const answerValue = { answer: { ok: true, items: [1, 2, 3], note: 'see [1] and {this}' } };
  const fenced = `\n\nHere it is:\n\n\`\`\`json\n${JSON.stringify(answerValue, null, 2)}\n\`\`\`\n`;
  const text = `${UNIT.repeat(Math.ceil(1_000_000 / UNIT.length))}${fenced}`;
  const brackets = (text.match(/[{[]/g) ?? []).length;

  test('completes, one candidate per prose bracket and no rescans, and finds the fenced value', {
    timeout: 120_000,
  }, () => {
    expect(extractJson(text)?.value).toEqual(answerValue);
    for (const chunks of [[text], chunkText(text, 4096), splitAt(text, [1, 7, 1000, 123_457, 999_999])]) {
      const run = salvageChunks(chunks);
      const stats = run.stats as { characters: number; candidates: number; abandoned: number; values: number };
      expect(stats.characters).toBe(text.length);
      // Operation count: each prose bracket opens (or is settled as) exactly one candidate and
      // no candidate is started again; the fenced value is one more.
      const unitBrackets = (UNIT.match(/[{[]/g) ?? []).length;
      expect(stats.candidates).toBe(unitBrackets * Math.ceil(1_000_000 / UNIT.length) + 1);
      expect(stats.candidates).toBeLessThanOrEqual(brackets);
      expect(stats.abandoned).toBe(stats.candidates - 1);
      expect(stats.values).toBe(1);
      expect(run.values.map((v) => v.value)).toEqual([answerValue]);
      expect(run.diagnostics).toEqual([]);
    }
  });
});
