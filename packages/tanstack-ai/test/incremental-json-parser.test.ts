/**
 * createIncrementalJsonParser against TanStack AI's default parser: the same value on every
 * prefix of generated documents (but for the number or literal in flight, decision 037), each
 * character read once over a growing text (counted by `stats.charactersRead`, not timed), a
 * fresh parse for a text that extends none followed, parallel texts alternating, hostile texts
 * that never make it throw, the empty-text behaviour, snapshots that later calls never change,
 * and the schema's diagnostics.
 */

import { test as fcTest } from '@fast-check/vitest';
import { ConfigurationError } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { createIncrementalJsonParser, type IncrementalJsonParser } from '@llmjson/tanstack-ai';
import { defaultJSONParser, parsePartialJSON } from '@tanstack/ai';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { numRuns, splitPoints } from '../../../test/support/chunking.js';
import { hostileRuns, hostileText } from '../../../test/support/hostile.js';
import { documents, growing, oracle, settled } from './helpers.js';

/** Slack for a text that is read again after a fallback: none is expected over one growing text. */
const SLACK = 0;

describe('the value of every prefix equals TanStack’s default parser', () => {
  fcTest.prop([documents], { numRuns })('every prefix, one character more each call', (text) => {
    const parser = createIncrementalJsonParser();
    for (let end = 0; end <= text.length; end++) {
      const prefix = text.slice(0, end);
      expect(parser.parse(prefix), JSON.stringify(prefix)).toEqual(oracle(prefix));
    }
  });

  fcTest.prop([documents.chain((text) => fc.tuple(fc.constant(text), splitPoints(text.length)))], { numRuns })(
    'the texts of args events cut anywhere',
    ([text, points]) => {
      const parser = createIncrementalJsonParser();
      for (const prefix of growing(text, points)) {
        expect(parser.parse(prefix), JSON.stringify(prefix)).toEqual(oracle(prefix));
      }
    },
  );

  fcTest.prop([documents], { numRuns })(
    'a complete object or array is its JSON.parse value, as TanStack’s parser gives it',
    (text) => {
      fc.pre(/^\s*[[{]/.test(text));
      const parser = createIncrementalJsonParser();
      for (let end = 1; end < text.length; end += 7) parser.parse(text.slice(0, end));
      expect(parser.parse(text)).toEqual(JSON.parse(text));
      expect(parser.parse(text)).toEqual(parsePartialJSON(text));
    },
  );

  test('where the two differ: a number or literal shows once complete, never cut short', () => {
    const parser = createIncrementalJsonParser();
    expect(parsePartialJSON('{"n": 12')).toEqual({ n: 12 });
    expect(parser.parse('{"n": 12')).toEqual({});
    expect(parser.parse('{"n": 123,')).toEqual({ n: 123 });
    expect(parsePartialJSON('[tr')).toEqual([true]);
    expect(parser.parse('[tr')).toEqual([]);
    expect(settled('{"s": "12", "n": 4')).toBe('{"s": "12", "n": ');
  });

  test('where the two differ: a string in flight keeps the space it ends with (strings only grow)', () => {
    const parser = createIncrementalJsonParser();
    expect(parsePartialJSON('{"q": "new ')).toEqual({ q: 'new' });
    expect(parser.parse('{"q": "new ')).toEqual({ q: 'new ' });
    expect(parser.parse('{"q": "new y')).toEqual({ q: 'new y' });
  });
});

describe('reads only the new text', () => {
  fcTest.prop([documents.chain((text) => fc.tuple(fc.constant(text), splitPoints(text.length)))], { numRuns })(
    'over one growing text, the builders read each character once',
    ([text, points]) => {
      const parser = createIncrementalJsonParser();
      const texts = growing(text, points);
      for (const prefix of texts) parser.parse(prefix);
      expect(parser.stats.charactersRead).toBeLessThanOrEqual(text.length + SLACK);
      expect(parser.stats.fullParses).toBe(1);
      expect(parser.stats.calls).toBe(texts.length);
    },
  );

  test('an 85 KB argument in 3-character events: each character read once (parsing every text whole would read over 1000 times as much)', () => {
    const items = Array.from({ length: 1500 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'], ok: true }));
    const text = JSON.stringify({ items });
    expect(text.length).toBeGreaterThan(50_000);
    const parser = createIncrementalJsonParser();
    let reparsed = 0;
    let value: unknown;
    for (let end = 3; end < text.length + 3; end += 3) {
      const prefix = text.slice(0, end);
      value = parser.parse(prefix);
      reparsed += prefix.length;
    }
    expect(value).toEqual({ items });
    expect(parser.stats.charactersRead).toBe(text.length);
    expect(reparsed / parser.stats.charactersRead).toBeGreaterThan(1000);
  });

  test('the same text again returns the same value and reads nothing', () => {
    const parser = createIncrementalJsonParser();
    const first = parser.parse('{"city": "Par');
    const read = parser.stats.charactersRead;
    expect(parser.parse('{"city": "Par')).toBe(first);
    expect(parser.stats.charactersRead).toBe(read);
  });
});

describe('falls back to a full parse when the text does not extend the previous one', () => {
  test('a shorter, an edited and an unrelated text are each parsed from their start', () => {
    const parser = createIncrementalJsonParser({ maxTexts: 1 });
    expect(parser.parse('{"city": "Paris", "days": 3')).toEqual({ city: 'Paris' });
    expect(parser.parse('{"city": "Pa')).toEqual({ city: 'Pa' });
    expect(parser.parse('{"city": "Lyon"}')).toEqual({ city: 'Lyon' });
    expect(parser.parse('[1, 2, ')).toEqual([1, 2]);
    expect(parser.stats.fullParses).toBe(4);
  });

  fcTest.prop([documents, documents, fc.integer({ min: 1, max: 8 })], { numRuns })(
    'any second text after any first one: the value its own fresh parse gives',
    (first, second, maxTexts) => {
      const parser = createIncrementalJsonParser({ maxTexts });
      for (let end = 1; end <= first.length; end += 5) parser.parse(first.slice(0, end));
      for (let end = 1; end <= second.length; end += 3) {
        const prefix = second.slice(0, end);
        expect(parser.parse(prefix), JSON.stringify(prefix)).toEqual(oracle(prefix));
      }
    },
  );
});

describe('parallel tool calls: texts that alternate', () => {
  /** Round-robin over `texts`, each growing by `step` characters per turn. */
  function interleave(parser: IncrementalJsonParser, texts: readonly string[], step: number): void {
    const longest = Math.max(...texts.map((t) => t.length));
    for (let end = step; end < longest + step; end += step) {
      for (const text of texts) {
        if (end - step >= text.length) continue;
        const prefix = text.slice(0, Math.min(end, text.length));
        expect(parser.parse(prefix), JSON.stringify(prefix)).toEqual(oracle(prefix));
      }
    }
  }

  fcTest.prop([fc.array(documents, { minLength: 2, maxLength: 6 }), fc.integer({ min: 1, max: 9 })], { numRuns })(
    'each text followed on its own: right values, each character read once',
    (texts, step) => {
      const parser = createIncrementalJsonParser();
      interleave(parser, texts, step);
      const total = texts.reduce((sum, t) => sum + t.length, 0);
      expect(parser.stats.charactersRead).toBeLessThanOrEqual(total);
      expect(parser.stats.fullParses).toBeLessThanOrEqual(texts.length);
    },
  );

  test('same-tool calls that start alike are not mixed up', () => {
    const parser = createIncrementalJsonParser();
    interleave(parser, ['{"city": "Paris", "days": 3}', '{"city": "Lyon", "days": 12}', '{"city": "P"}'], 2);
    expect(parser.stats.texts).toBe(3);
  });

  test('more texts than maxTexts: still right, the dropped ones parsed again', () => {
    const texts = ['{"a": "one"}', '{"b": "two"}', '{"c": "three"}', '{"d": "four"}'];
    const parser = createIncrementalJsonParser({ maxTexts: 2 });
    interleave(parser, texts, 2);
    expect(parser.stats.texts).toBe(2);
    expect(parser.stats.fullParses).toBeGreaterThan(texts.length);
  });
});

describe('hostile texts never make it throw', () => {
  fcTest.prop([fc.array(fc.oneof(hostileText, fc.string({ unit: 'binary' })), { maxLength: 6 })], {
    numRuns: hostileRuns,
  })('garbage, deep nesting, long strings, hostile keys, each cut and alternated', (texts) => {
    const parser = createIncrementalJsonParser({ maxTexts: 3 });
    for (const text of texts) {
      for (let end = 0; end <= text.length; end += Math.max(1, Math.floor(text.length / 9))) {
        expect(() => parser.parse(text.slice(0, end))).not.toThrow();
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('what TanStack’s parser gives undefined for: nothing, whitespace, a non-string', () => {
    const parser = createIncrementalJsonParser();
    for (const text of ['', ' ', '\n\t ']) {
      expect(defaultJSONParser.parse(text)).toBeUndefined();
      expect(parser.parse(text)).toBeUndefined();
    }
    for (const text of [undefined, null, 42, {}]) {
      expect(parser.parse(text as unknown as string)).toBeUndefined();
    }
  });

  test('prose and broken JSON give the value read before them (TanStack’s parser: undefined)', () => {
    const parser = createIncrementalJsonParser();
    expect(parser.parse('{"a": 1,, "b": 2}')).toEqual({ a: 1 });
    expect(parser.parse('Sure! {"a": 1}')).toEqual({ a: 1 });
    expect(parser.parse('not json')).toBeUndefined();
  });

  test('__proto__ keys are data, never a prototype', () => {
    const value = createIncrementalJsonParser().parse('{"__proto__": {"polluted": true}, "a": 1}') as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

test('a value handed out is never changed by later calls (TanStack keeps it as parsedArguments)', () => {
  const parser = createIncrementalJsonParser();
  const text = '{"plan": [{"step": "pack", "done": false}, {"step": "go"}], "note": "soon"}';
  const held: [unknown, unknown][] = [];
  for (let end = 1; end <= text.length; end++) {
    const value = parser.parse(text.slice(0, end));
    held.push([value, structuredClone(value)]);
  }
  for (const [value, copy] of held) expect(value).toEqual(copy);
});

describe('a schema: prefix check and diagnostics to onDiagnostic', () => {
  const weather = z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) });

  test('a violation as soon as the prefix proves it, with the text it was in', () => {
    const seen: [string, string][] = [];
    const parser = createIncrementalJsonParser({
      schema: weather,
      onDiagnostic: (diagnostic, text) => seen.push([diagnostic.reason, text]),
    });
    const text = '{"city": "Oslo", "unit": "kelvin"}';
    for (let end = 1; end <= text.length; end++) parser.parse(text.slice(0, end));
    expect(seen.length).toBeGreaterThan(0);
    const [reason, at] = seen[0] ?? ['', ''];
    expect(reason).toBe('violation');
    expect(at).toBe('{"city": "Oslo", "unit": "k');
  });

  fcTest.prop([fc.record({ city: fc.string(), unit: fc.constantFrom('celsius', 'fahrenheit') })], { numRuns })(
    'silent on every prefix of a valid document (JSON Schema through ajv)',
    (args) => {
      const seen: unknown[] = [];
      const parser = createIncrementalJsonParser({
        schema: z.toJSONSchema(weather),
        compileJsonSchema: compileSchema,
        onDiagnostic: (diagnostic) => seen.push(diagnostic),
      });
      const text = JSON.stringify(args);
      for (let end = 1; end <= text.length; end++) parser.parse(text.slice(0, end));
      expect(seen).toEqual([]);
      expect(parser.parse(text)).toEqual(args);
    },
  );

  test('what onDiagnostic throws propagates, and the next call reads the text again', () => {
    let armed = true;
    const parser = createIncrementalJsonParser({
      schema: weather,
      onDiagnostic: () => {
        if (armed) throw new Error('stop');
      },
    });
    expect(() => parser.parse('{"city": 7')).toThrow('stop');
    armed = false;
    expect(parser.parse('{"city": 7,')).toEqual({ city: 7 });
    expect(parser.stats.fullParses).toBe(2);
  });
});

describe('options are checked when it is made', () => {
  test('a misspelt option names the right one', () => {
    expect(() => createIncrementalJsonParser({ maxText: 3 } as never)).toThrow(/maxTexts/);
    expect(() => createIncrementalJsonParser({ maxText: 3 } as never)).toThrow(ConfigurationError);
  });

  test.each([0, -1, 1.5, Number.NaN])('maxTexts %s is refused', (maxTexts) => {
    expect(() => createIncrementalJsonParser({ maxTexts })).toThrow(/maxTexts must be a positive integer/);
  });

  test('a JSON Schema without a compiler is refused now, not per event', () => {
    expect(() => createIncrementalJsonParser({ schema: { type: 'object' } })).toThrow(ConfigurationError);
  });
});
