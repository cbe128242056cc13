/**
 * Gemini / Vertex AI `streamGenerateContent` without `alt=sse`: the body is one streamed JSON
 * array of `GenerateContentResponse` objects, pretty-printed, `\n,\r\n` between them. The
 * fixtures (fixtures/providers/gemini-array-*.json) hold the events of the SSE fixtures in that
 * form, so each must decode exactly as its SSE twin (same sink calls but for diagnostics'
 * positions), under `auto` and `input: 'gemini'`, whole, at every chunk size, split in two at
 * every position and at arbitrary split points.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test as fcTest } from '@fast-check/vitest';
import { ProviderFormat } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { decodeEverySplit, type Run, runProviderDecoder as run } from '../../../test/support/provider.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/providers');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

/** The events of an SSE fixture. */
const eventsOf = (name: string): unknown[] =>
  fixture(name)
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as unknown);

/** `events` as the array body Gemini streams: pretty-printed, `\n,\r\n` between elements. */
const arrayOf = (events: readonly unknown[], separator = '\n,\r\n', close = '\n]') =>
  `[${events.map((e) => JSON.stringify(e, null, 2)).join(separator)}${close}`;

/** What does not depend on where events start: every sink call but diagnostics' positions. */
const content = (r: Run) =>
  r.calls.map((c) => (c[0] === 'diagnostic' ? ['diagnostic', (c[1] as { reason: string }).reason] : c));

const brief = (r: Run) => r.diagnostics.map((d) => [d.reason, d.line, d.offset, d.message]);

const TWINS: [array: string, sse: string][] = [
  ['gemini-array-text.json', 'gemini-text.sse'],
  ['gemini-array-function-call.json', 'gemini-function-call.sse'],
  ['gemini-array-error.json', 'gemini-error.sse'],
  ['gemini-array-vertex-partial-args.json', 'gemini-vertex-partial-args.sse'],
];

describe.each(TWINS)('%s', (file, twin) => {
  const body = fixture(file);
  const whole = run([body]);

  test('is its SSE twin in array form', () => {
    expect(JSON.parse(body)).toEqual(eventsOf(twin));
  });

  test('auto detects gemini; every split, and input gemini, give the same run; the same as the SSE form', () => {
    expect(whole.provider).toBe(ProviderFormat.gemini);
    expect(decodeEverySplit(body)).toEqual(whole);
    expect(decodeEverySplit(body, 'gemini')).toEqual(whole);
    const sse = run([fixture(twin)]);
    expect(content(whole)).toEqual(content(sse));
    expect({ ...whole, calls: [], diagnostics: [] }).toEqual({ ...sse, calls: [], diagnostics: [] });
  });

  fcTest.prop([splitPoints(body.length)], { numRuns: Math.ceil(numRuns / 5) })('arbitrary split points', (points) => {
    expect(run(splitAt(body, points))).toEqual(whole);
  });
});

// The fixtures are decoded at every split above: the tests below read one run.
describe('what the array form carries', () => {
  test('a text answer: text and thought parts, usage, model, STOP', () => {
    const r = run([fixture('gemini-array-text.json')]);
    expect(r.text).toBe('{"word": "strawberry", "r": 3, "note": "café ☕ 🍓"}');
    expect(r.reasoning).toBe('**Counting letters** I look at each letter of the word.');
    expect(r).toMatchObject({
      provider: 'gemini',
      model: 'gemini-2.5-flash',
      finishReason: 'STOP',
      usage: { inputTokens: 9, outputTokens: 70, totalTokens: 79 },
      diagnostics: [],
    });
    expect(r.stats).toMatchObject({ events: 4, ignoredEvents: 0 });
  });

  test('each element is decoded when its closing brace arrives, before the array closes', () => {
    const body = fixture('gemini-array-text.json');
    const second = body.indexOf('\n,\r\n{', body.indexOf('\n,\r\n{') + 1);
    // Everything up to the closing brace of the second element.
    const r = run([body.slice(0, second)], 'gemini');
    expect(r.text).toBe('{"word": "straw');
    const before = run([body.slice(0, second - 1)], 'gemini');
    expect(before.text).toBe('');
  });

  test('function calls: whole args as one piece, Vertex partialArgs assembled', () => {
    const calls = run([fixture('gemini-array-function-call.json')]).toolCalls;
    expect(calls.map((c) => [c.id, c.name, c.arguments, c.complete])).toEqual([
      ['fc-1', 'get_weather', '{"city":"Paris","units":"celsius"}', true],
      ['fc-2', 'get_weather', '{"city":"Zürich","units":"celsius","days":[1,2]}', true],
    ]);
    const vertex = run([fixture('gemini-array-vertex-partial-args.json')]);
    expect(vertex.toolCalls).toHaveLength(1);
    expect(vertex.toolCalls[0]?.arguments).toBe(
      '{"restaurant":"Chez Léon","party":{"size":4,"highChair":true,"notes":null},"times":["19:30","20:00"],"__proto__":{"polluted":"no"}}',
    );
    expect(vertex.finishReason).toBe('STOP');
  });

  test('an error object in the array: the text before it, a provider-error where the element starts', () => {
    const body = fixture('gemini-array-error.json');
    const r = run([body]);
    expect(r.text).toBe('The first part');
    const at = body.indexOf('{\n  "error"');
    const line = body.slice(0, at).split(/\r\n|\r|\n/).length;
    expect(brief(r)).toEqual([
      ['provider-error', line, at, 'provider error (503): The model is overloaded. Please try again later.'],
    ]);
    expect(r).toMatchObject({
      finishReason: 'error',
      error: { message: 'The model is overloaded. Please try again later.', code: '503' },
    });
  });
});

describe('terminators and cuts', () => {
  const events = eventsOf('gemini-text.sse');
  const expected = run([fixture('gemini-array-text.json')]);

  test.each([
    ['no closing bracket', arrayOf(events, '\n,\r\n', '\n')],
    ['no closing bracket nor line break', arrayOf(events, '\n,\r\n', '')],
    ['compact, one line', JSON.stringify(events)],
    ['compact, with a BOM and blank lines first', `\uFEFF\n\r\n  ${JSON.stringify(events)}\n`],
    ['LF only', arrayOf(events, '\n,\n')],
    ['lone CR line breaks', arrayOf(events, '\r,\r').replaceAll('\n', '\r')],
  ])('%s: the same answer, no diagnostic', (_name, body) => {
    const r = decodeEverySplit(body);
    expect(content(r)).toEqual(content(expected));
    expect(r.diagnostics).toEqual([]);
    expect(r.finishReason).toBe('STOP');
  });

  test('a connection cut inside an object: the text before it, truncated where the object starts', () => {
    const body = fixture('gemini-array-cut.json');
    const r = decodeEverySplit(body);
    expect(r.text).toBe('{"word": "straw');
    const at = body.lastIndexOf('\n,\r\n{') + 4;
    const line = body.slice(0, at).split(/\r\n|\r|\n/).length;
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.offset])).toEqual([
      ['truncated', line, at],
      ['truncated', body.split(/\r\n|\r|\n/).length, body.length],
    ]);
    expect(r.diagnostics[0]?.message).toMatch(/^the stream ended inside an event/);
    expect(r.diagnostics[1]?.message).toBe('the stream ended before a finishReason');
    expect(r.finishReason).toBeUndefined();
  });

  test('a body cut between elements: no element is half-read, the missing finishReason is reported', () => {
    const body = arrayOf(events.slice(0, 2), '\n,\r\n', '\n,\r\n');
    const r = decodeEverySplit(body);
    expect(r.text).toBe('{"word": "straw');
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['truncated', 'the stream ended before a finishReason'],
    ]);
  });

  test('strings holding brackets, braces, quotes and escapes do not end an element', () => {
    const text = 'a}]"\\ {[ "\\u005d" \\\\"';
    const body = arrayOf([
      { candidates: [{ content: { parts: [{ text }] }, index: 0 }] },
      { candidates: [{ content: { parts: [{ text: '\\' }] }, finishReason: 'STOP', index: 0 }] },
    ]);
    const r = decodeEverySplit(body);
    expect(r.text).toBe(`${text}\\`);
    expect(r.diagnostics).toEqual([]);
  });

  test('an element that is not JSON is reported (syntax) and the next one decoded', () => {
    const body = `[{"candidates": [{"content": {"parts": [{"text": "a"}]}}]},\n{"candidates": oops},\n{"candidates": [{"content": {"parts": [{"text": "b"}]}, "finishReason": "STOP"}]}]`;
    const r = decodeEverySplit(body);
    expect(r.text).toBe('ab');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.offset, d.excerpt])).toEqual([
      ['syntax', 2, body.indexOf('{"candidates": oops'), '{"candidates": oops}'],
    ]);
  });

  test('elements that are not objects are reported once, then counted', () => {
    const body = `[1, "two", {"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "STOP"}]}, [3], null]`;
    const r = decodeEverySplit(body, 'gemini');
    expect(r.text).toBe('x');
    expect(r.diagnostics.map((d) => [d.reason, d.offset, d.message])).toEqual([
      ['unrecognized', 1, 'event data is JSON but not an object; ignored'],
      ['unrecognized', body.length, '3 more event(s) of an unrecognised shape were ignored'],
    ]);
    expect(r.stats).toMatchObject({ events: 5, ignoredEvents: 4 });
  });

  test('text after the closing bracket is reported once (prose) and ignored', () => {
    const body = `${fixture('gemini-array-text.json')}\nthat was all\nreally\n`;
    const r = decodeEverySplit(body);
    expect(r.text).toBe(expected.text);
    const line = fixture('gemini-array-text.json').split(/\r\n|\r|\n/).length + 1;
    expect(brief(r)).toEqual([
      [
        'prose',
        line,
        body.indexOf('that'),
        'text outside the JSON array (after its closing bracket); ignored (and any that follows)',
      ],
    ]);
  });

  test('an element longer than maxEventLength is discarded with one too-long diagnostic, the next decoded', () => {
    const long = { candidates: [{ content: { parts: [{ text: 'x'.repeat(300) }] }, index: 0 }] };
    const short = { candidates: [{ content: { parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }] };
    const body = arrayOf([long, short]);
    const r = decodeEverySplit(body, 'gemini', 200);
    expect(r.text).toBe('ok');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.offset, d.excerpt.length])).toEqual([
      ['too-long', 1, 1, expect.any(Number)],
    ]);
    expect(r.diagnostics[0]?.message).toBe('array element longer than maxEventLength (200 characters); discarded');
    expect(r.diagnostics[0]?.excerpt.startsWith('{\n  "candidates"')).toBe(true);
  });

  fcTest.prop(
    [
      fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }), { minLength: 1, maxLength: 6 }),
      fc.constantFrom('\n,\r\n', ',', ' , ', '\r\n,\r\n'),
      fc.boolean(),
      fc.nat(),
    ],
    { numRuns },
  )(
    'any text deltas, separators and pretty-printing, cut anywhere: a prefix of the answer',
    (deltas, sep, pretty, cut) => {
      const elements = deltas.map((text, i) => ({
        candidates: [
          { content: { parts: [{ text }] }, index: 0, ...(i === deltas.length - 1 ? { finishReason: 'STOP' } : {}) },
        ],
      }));
      const body = `[${elements.map((e) => JSON.stringify(e, null, pretty ? 2 : undefined)).join(sep)}]`;
      const r = run([body]);
      expect(r.text).toBe(deltas.join(''));
      expect(r.diagnostics).toEqual([]);
      const prefix = body.slice(0, cut % (body.length + 1));
      const p = run([prefix]);
      expect(deltas.join('').startsWith(p.text)).toBe(true);
      expect(run(splitAt(prefix, [cut % 7, cut % 13, cut % 31]))).toEqual(p);
    },
  );

  fcTest.prop(
    [
      fc
        .array(
          fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ' ', '\r', '\n', '\r\n', 'a', '1', '"candidates"', ':'),
          {
            maxLength: 60,
          },
        )
        .chain((parts) => {
          const body = `[${parts.join('')}`;
          return fc.tuple(fc.constant(body), splitPoints(body.length));
        }),
      fc.constantFrom(16, 1 << 20),
    ],
    { numRuns },
  )(
    'any bracket, quote, escape and line-break soup: never throws, any split gives the whole run',
    ([body, points], max) => {
      const whole = run([body], 'gemini', max);
      expect(run(splitAt(body, points), 'gemini', max)).toEqual(whole);
      expect(run(splitAt(body, points), 'auto', max)).toEqual(run([body], 'auto', max));
      for (const d of whole.diagnostics) expect(d.offset).toBeLessThanOrEqual(body.length);
    },
  );
});
