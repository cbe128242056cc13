/**
 * Properties of salvage over generated model answers: prose lines full of stray brackets,
 * quotes, backslashes and backticks, interleaved with planted JSON values — embedded in prose
 * lines, in inline code, and in fenced blocks of every marker kind (values on one line or
 * pretty-printed, unicode strings, `__proto__` keys).
 *
 * The generator keeps every planted value decidable: each one is on its own line, and every
 * noise line ends with ` q.`, so any candidate started in noise is dead before the line ends
 * (outside a string `q` cannot continue JSON; inside a string the line break cannot). Noise
 * lines start with a letter, so they never open a fence. Hence each planted value must be
 * found exactly, and anything else found must lie inside a noise line.
 */
import { isDeepStrictEqual } from 'node:util';
import { test as fcTest } from '@fast-check/vitest';
import { extractAllJson, type SalvagedValue } from '@llmjson/core';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { jsonValueText, objectText } from '../support/arbitraries.js';
import { numRuns, splitAt, splitPoints, utf8 } from '../support/chunking.js';
import { type Salvaged, salvageChunks, salvageOneShot, salvageStreamChunks } from '../support/salvage.js';

interface Planted {
  readonly text: string;
  readonly value: unknown;
  readonly start: number;
  readonly end: number;
  readonly source: SalvagedValue['source'];
  readonly fence?: string;
}

interface Answer {
  readonly text: string;
  readonly planted: readonly Planted[];
  /** [start, end) of each noise line. */
  readonly noise: readonly (readonly [number, number])[];
}

/** An object or array on one line; arrays wrap generated values so scalars never stand alone. */
const containerText: fc.Arbitrary<string> = fc.oneof(
  objectText,
  fc.array(jsonValueText, { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
);

/** A planted value's text: compact, or pretty-printed over several lines. */
const valueText = fc
  .tuple(containerText, fc.constantFrom<false | number | string>(false, false, 2, '\t'))
  .map(([text, indent]) => (indent === false ? text : JSON.stringify(JSON.parse(text), null, indent)));

const noiseChar = fc.constantFrom('{', '[', '}', ']', '"', "'", '`', ':', ',', ' ', '\\', 'a', '1', '-', 'é', '😀');
const noiseLine = fc.array(noiseChar, { maxLength: 24 }).map((chars) => `Note ${chars.join('')} q.`);

type Item =
  | { kind: 'noise'; line: string }
  | { kind: 'embedded'; before: string; value: string; after: string }
  | { kind: 'inline'; value: string }
  | { kind: 'fence'; opener: string; closer: string; info: string; values: string[]; blankBetween: boolean };

const fenceMarkers: [opener: string, closer: string, info: string][] = [
  ['```json', '```', 'json'],
  ['```JSON', '````', 'json'],
  ['```', '```', ''],
  ['~~~', '~~~', ''],
  ['~~~~jsonl', '~~~~', 'jsonl'],
  ['```jsonl', '```', 'jsonl'],
  ['  ```Json', '  ```', 'json'],
  ['```javascript', '```', 'javascript'],
];

const item: fc.Arbitrary<Item> = fc.oneof(
  { weight: 4, arbitrary: noiseLine.map((line): Item => ({ kind: 'noise', line })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('', 'Result: ', 'So '), valueText, fc.constantFrom('', ' ok.', ' is it'))
      .map(([before, value, after]): Item => ({ kind: 'embedded', before, value, after })),
  },
  { weight: 1, arbitrary: containerText.map((value): Item => ({ kind: 'inline', value })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...fenceMarkers), fc.array(valueText, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(
        ([[opener, closer, info], values, blankBetween]): Item => ({
          kind: 'fence',
          opener,
          closer,
          info,
          values,
          blankBetween,
        }),
      ),
  },
);

/** Builds the answer text and records where each planted value and noise line is. */
function buildAnswer(items: readonly Item[], eol: string, finalEol: boolean, closeLastFence: boolean): Answer {
  let text = '';
  const planted: Planted[] = [];
  const noise: [number, number][] = [];
  const plant = (value: string, source: SalvagedValue['source'], fence?: string) => {
    planted.push({
      text: value,
      value: JSON.parse(value),
      start: text.length,
      end: text.length + value.length,
      source,
      ...(fence === undefined ? {} : { fence }),
    });
    text += value;
  };
  items.forEach((it, i) => {
    if (i > 0) text += eol;
    switch (it.kind) {
      case 'noise':
        noise.push([text.length, text.length + it.line.length]);
        text += it.line;
        break;
      case 'embedded':
        text += it.before;
        plant(it.value.split('\n').join(eol), 'embedded');
        text += it.after;
        break;
      case 'inline':
        text += 'Use `';
        plant(it.value, 'inline');
        text += '` here.';
        break;
      case 'fence': {
        text += it.opener;
        for (const value of it.values) {
          text += eol;
          if (it.blankBetween) text += eol;
          plant(value.split('\n').join(eol), 'fence', it.info);
        }
        if (i < items.length - 1 || closeLastFence) text += eol + it.closer;
        break;
      }
      default: {
        const never: never = it;
        throw new Error(`unknown item ${JSON.stringify(never)}`);
      }
    }
  });
  if (finalEol) text += eol;
  const only = planted.length === 1 ? planted[0] : undefined;
  if (only !== undefined && text.trim() === only.text) planted[0] = { ...only, source: 'document' };
  return { text, planted, noise };
}

const answer: fc.Arbitrary<Answer> = fc
  .tuple(fc.array(item, { maxLength: 10 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.boolean())
  .map(([items, eol, finalEol, closeLastFence]) => buildAnswer(items, eol, finalEol, closeLastFence));

const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

function expectNoPollution(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

afterAll(expectNoPollution);

function expectSame(actual: Salvaged, expected: Salvaged): void {
  expect(actual.values).toEqual(expected.values);
  expect(actual.diagnostics).toEqual(expected.diagnostics);
}

describe('chunking does not matter', () => {
  fcTest.prop([answer.chain((a) => fc.tuple(fc.constant(a), splitPoints(a.text.length)))], { numRuns })(
    'core scanner: any string split (empty chunks included) gives the one-shot result',
    ([a, points]) => {
      expectSame(salvageChunks(splitAt(a.text, points)), salvageOneShot(a.text));
    },
  );

  fcTest.prop([answer.chain((a) => fc.tuple(fc.constant(a), splitPoints(utf8.encode(a.text).length)))], { numRuns })(
    'Node stream: UTF-8 bytes split anywhere give the one-shot result',
    async ([a, points]) => {
      expectSame(await salvageStreamChunks(splitAt(utf8.encode(a.text), points)), salvageOneShot(a.text));
    },
  );
});

describe('planted values are found', () => {
  fcTest.prop([answer], { numRuns: numRuns * 2 })(
    'each planted value exactly once, with its offsets, source and fence; anything else inside a noise line',
    (a) => {
      const { values } = salvageOneShot(a.text);
      for (const p of a.planted) {
        const at = values.filter((v) => v.start === p.start);
        expect(at, `planted at ${p.start}: ${p.text}`).toHaveLength(1);
        const [v] = at as [SalvagedValue];
        expect(v.end).toBe(p.end);
        expect(a.text.slice(v.start, v.end)).toBe(p.text);
        expect(isDeepStrictEqual(v.value, p.value)).toBe(true);
        expect(JSON.stringify(v.value)).toBe(JSON.stringify(p.value));
        expect(v.source).toBe(p.source);
        expect(v.fence).toBe(p.fence);
      }
      const plantedStarts = new Set(a.planted.map((p) => p.start));
      for (const v of values) {
        if (plantedStarts.has(v.start)) continue;
        const inNoise = a.noise.some(([s, e]) => v.start >= s && v.end <= e);
        expect(inNoise, `unplanted value at ${v.start}-${v.end}: ${a.text.slice(v.start, v.end)}`).toBe(true);
        // A recovered value (noise such as `[1,]`) is not JSON as written; every other one is.
        if (v.recovered === undefined) expect(JSON.parse(a.text.slice(v.start, v.end))).toEqual(v.value);
      }
      for (let i = 1; i < values.length; i++) {
        expect((values[i] as SalvagedValue).start).toBeGreaterThanOrEqual((values[i - 1] as SalvagedValue).end);
      }
      expectNoPollution();
    },
  );
});

describe('truncation yields a prefix', () => {
  /**
   * Cutting the text at any point gives, in order, the first values of the whole text with the
   * same value and offsets. Two documented exceptions, both about the cut's last line:
   * - a cut text that is itself one JSON value (`{"a":1}` of `{"a":1} ok`, or `4` of `42`) is
   *   one `document` value, which the whole text may not have;
   * - a value on the cut's last line that is inline code in the whole text may be `embedded`
   *   when the cut removed its closing backtick run.
   * A value still open at the cut is one `truncated` diagnostic, and nothing nested in it is
   * reported: it may still have become one valid value.
   */
  fcTest.prop([answer.chain((a) => fc.tuple(fc.constant(a), fc.nat({ max: a.text.length })))], {
    numRuns: numRuns * 3,
  })("the values of a cut text are a prefix of the whole text's values", ([a, cutAt]) => {
    const cutText = a.text.slice(0, cutAt);
    const whole = salvageOneShot(a.text).values;
    const cut = salvageOneShot(cutText).values;
    const only = cut.length === 1 ? cut[0] : undefined;
    if (only?.source === 'document') {
      expect(JSON.parse(cutText)).toEqual(only.value);
      return;
    }
    const lastLineStart = Math.max(cutText.lastIndexOf('\n') + 1, 0);
    expect(cut.length).toBeLessThanOrEqual(whole.length);
    cut.forEach((v, i) => {
      const w = whole[i] as SalvagedValue;
      expect({ value: v.value, start: v.start, end: v.end, fence: v.fence }, `value ${i} of the cut`).toEqual({
        value: w.value,
        start: w.start,
        end: w.end,
        fence: w.fence,
      });
      if (!(v.start >= lastLineStart && w.source === 'inline' && v.source === 'embedded')) {
        expect(v.source, `value ${i} of the cut`).toBe(w.source);
      }
    });
    expect(salvageOneShot(cutText).diagnostics.filter((d) => d.reason === 'truncated').length).toBeLessThanOrEqual(1);
  });
});

describe('linear work', () => {
  const END = '\n{"end": true}';

  function bracketCount(text: string): number {
    let n = 0;
    for (const c of text) if (c === '{' || c === '[') n++;
    return n;
  }

  /** Stray-bracket mixes of about n characters, then one real value that must still be found. */
  const strayMix = fc
    .tuple(
      fc.array(fc.constantFrom('[', '{', '"', '{"a": ', '["', '", ', ' ', 'x', '\\'), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1_000, max: 20_000 }),
    )
    .map(([pattern, n]) => {
      const unit = pattern.join('');
      return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
    });

  fcTest.prop([strayMix], { numRuns: Math.ceil(numRuns / 4) })(
    'n stray brackets and quotes: every character consumed, at most one candidate per bracket, the real value found',
    (noise) => {
      const text = `${noise} q.${END}`;
      const run = salvageChunks([text]);
      const stats = run.stats as { characters: number; candidates: number };
      expect(stats.characters).toBe(text.length);
      expect(stats.candidates).toBeLessThanOrEqual(bracketCount(text));
      expect(run.values.at(-1)?.value).toEqual({ end: true });
      expect(run.values).toEqual(salvageOneShot(text).values);
    },
  );

  test.each([
    ['open arrays', '['],
    ['open objects with keys', '{"a": '],
    ['open strings in arrays', '["'],
    ['brackets inside an open string', '{"a": "[{'],
    ['alternating nesting', '[{"k": ['],
  ])('%s repeated 50,000 times, then a value', (_name, unit) => {
    const text = `${unit.repeat(50_000)} q.${END}`;
    for (const chunks of [[text], splitAt(text, [1, 7, 1000, 123_457])]) {
      const run = salvageChunks(chunks);
      const stats = run.stats as { characters: number; candidates: number };
      expect(stats.characters).toBe(text.length);
      expect(stats.candidates).toBeLessThanOrEqual(bracketCount(text));
      expect(run.values.at(-1)?.value).toEqual({ end: true });
    }
    expect(extractAllJson(text).at(-1)?.value).toEqual({ end: true });
  });
});
