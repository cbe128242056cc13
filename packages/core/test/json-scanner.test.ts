import { test as fcTest } from '@fast-check/vitest';
import { JsonScanner, SCAN_ERROR, SCAN_MORE } from '@llmjson/core/internal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { splitAt } from '../../../test/support/chunking.js';

/** Scans `text` split into chunks of `size`; returns whether it is one complete JSON value. */
function accepts(text: string, size = text.length || 1): { ok: boolean; message: string; index: number } {
  const scanner = new JsonScanner();
  let consumed = 0;
  for (let i = 0; i < text.length; i += size) {
    const chunk = text.slice(i, i + size);
    const end = scanner.scan(chunk);
    if (end === SCAN_ERROR) return { ok: false, message: scanner.errorMessage, index: consumed + scanner.errorIndex };
    if (end !== SCAN_MORE) {
      const rest = text.slice(consumed + end);
      return { ok: /^[ \t\r\n]*$/.test(rest), message: 'trailing text', index: consumed + end };
    }
    consumed += chunk.length;
  }
  const ok = scanner.end();
  return { ok, message: scanner.errorMessage, index: text.length };
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const CASES = [
  '{}',
  '[]',
  '{"a":[1,2,{"b":null}],"c":"\\u00e9\\n"}',
  ' [ true , false , null ] ',
  '-0',
  '0.5e-3',
  '1E+2',
  '"\\ud83d\\ude00"',
  '"😀 ünïcödé"',
  '123',
  '{"__proto__": {"x": 1}}',
  '01',
  '1.',
  '.5',
  '-',
  '+1',
  '1e',
  '1e+',
  '[1,]',
  '{"a":1,}',
  '{"a" 1}',
  '{a:1}',
  "['a']",
  '"tab\there"',
  '"\\x"',
  '"\\u12G4"',
  'tru',
  'truth',
  'nul',
  '[1 2]',
  '{"a":1}}',
  '',
  '   ',
  '[[[[',
  '"unterminated',
  'NaN',
  'Infinity',
  '{"a":1}{"b":2}',
];

describe('JsonScanner', () => {
  test.each(CASES)('agrees with JSON.parse on %j at every chunk size', (text) => {
    const expected = parses(text);
    for (let size = 1; size <= Math.max(1, text.length); size++) {
      expect(accepts(text, size).ok, `chunk size ${size}`).toBe(expected);
    }
  });

  test('reports where and why the text stopped being JSON', () => {
    expect(accepts('{"a": 1 "b": 2}')).toEqual({
      ok: false,
      index: 8,
      message: "unexpected '\"'; expected ',' or '}'",
    });
    expect(accepts('{"a": "x\ny"}').message).toMatch(/raw line break/);
    expect(accepts('[01]').message).toBe('a number must not have a leading zero');
    expect(accepts('"\\q"').message).toBe("invalid escape '\\q' in a string");
    expect(accepts('nul!').message).toBe("invalid literal: expected 'null'");
  });

  test('end() explains an unfinished value', () => {
    expect(accepts('{"a": [1, 2').message).toBe('input ended with 2 unclosed brackets');
    expect(accepts('{"a": "x').message).toBe('input ended inside a string');
    expect(accepts('').message).toBe('no JSON value');
  });

  test('returns the index just after a closed value and ignores what follows', () => {
    const scanner = new JsonScanner();
    expect(scanner.scan('{"a":1}, rest')).toBe(7);
    scanner.reset();
    expect(scanner.scan('12 ')).toBe(2);
  });

  test('tracks depth and string state across chunks', () => {
    const scanner = new JsonScanner();
    expect(scanner.scan('{"a": [1, "x')).toBe(SCAN_MORE);
    expect(scanner.depth).toBe(2);
    expect(scanner.inString).toBe(true);
    expect(scanner.scan('y"]')).toBe(SCAN_MORE);
    expect(scanner.inString).toBe(false);
    expect(scanner.depth).toBe(1);
    expect(scanner.scan('}')).toBe(1);
  });

  test('survives 100 000 levels of nesting without recursion', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(accepts(deep).ok).toBe(true);
    expect(accepts('['.repeat(100_000)).ok).toBe(false);
  });
});

describe('JsonScanner options', () => {
  /** Events, as `[kind, depth, position…]`, of `text` scanned in `chunks`, each with its absolute offset as `base`. */
  function events(chunks: readonly string[], options: { eventDepth?: number; skimAt?: number } = {}) {
    const seen: (string | number)[][] = [];
    const scanner: JsonScanner = new JsonScanner({
      maxDepth: 3,
      ...(options.eventDepth === undefined ? {} : { eventDepth: options.eventDepth }),
      events: {
        valueStart(depth, start) {
          seen.push(['start', depth, start]);
          if (depth === options.skimAt) scanner.skimValue();
        },
        valueEnd: (depth, end) => seen.push(['end', depth, end]),
        key: (depth, start, end) => seen.push(['key', depth, start, end]),
      },
    });
    let base = 0;
    let result = SCAN_MORE;
    for (const chunk of chunks) {
      result = scanner.scan(chunk, 0, base);
      if (result !== SCAN_MORE) return { seen, result: result === SCAN_ERROR ? result : base + result, scanner };
      base += chunk.length;
    }
    return { seen, result, scanner };
  }

  const text = '{"a": [1, {"b": true}], "c": "x"}';

  fcTest.prop([fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 8 })])(
    'events carry absolute positions under any chunking (base per scan call), limited to eventDepth',
    (points) => {
      const chunks = splitAt(text, points);
      expect(events(chunks).seen).toEqual(events([text]).seen);
      const shallow = events(chunks, { eventDepth: 1 });
      expect(shallow.seen).toEqual([
        ['start', 0, 0],
        ['key', 1, 1, 4],
        ['start', 1, 6],
        ['end', 1, 22],
        ['key', 1, 24, 27],
        ['start', 1, 29],
        ['end', 1, 32],
        ['end', 0, 33],
      ]);
      expect(shallow.result).toBe(text.length);
    },
  );

  test('maxDepth: the scan fails past it with depthExceeded, also inside a skimmed value', () => {
    const deep = events(['[[[[1]]]]']);
    expect(deep.result).toBe(SCAN_ERROR);
    expect(deep.scanner.depthExceeded).toBe(true);
    expect(deep.scanner.errorIndex).toBe(3);
    expect(deep.scanner.errorMessage).toBe('nesting deeper than maxDepth (3)');
    expect(deep.scanner.maxDepth).toBe(3);
    const skimmed = events(['[[[[1]]]]'], { skimAt: 1 });
    expect(skimmed.result).toBe(SCAN_ERROR);
    expect(skimmed.scanner.depthExceeded).toBe(true);
    // The skimmed value raises no events inside it; a syntax error inside it is not seen.
    const broken = events(['[{"a" 1}, 2]'], { skimAt: 1 });
    expect(broken.result).toBe(12);
    expect(broken.seen).toEqual([
      ['start', 0, 0],
      ['start', 1, 1],
      ['end', 1, 8],
      ['start', 1, 10],
      ['end', 1, 11],
      ['end', 0, 12],
    ]);
  });

  test('track: nested containers and brackets in strings, at absolute positions', () => {
    const scanner = new JsonScanner({ track: true });
    expect(scanner.scan('{"a": [1], "b": "{x', 0, 100)).toBe(SCAN_MORE);
    expect(scanner.scan('[" }', 0, 119)).toBe(4);
    expect(scanner.children).toEqual([106, 109]);
    expect(scanner.stringBrackets).toEqual([117, 119]);
    const plain = new JsonScanner();
    plain.scan('{"a": [1], "b": "{x["}', 0, 100);
    expect(plain.children).toEqual([]);
    expect(plain.stringBrackets).toEqual([]);
  });
});
