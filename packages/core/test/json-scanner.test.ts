import { JsonScanner, SCAN_ERROR, SCAN_MORE } from '@llmjson/core';
import { describe, expect, test } from 'vitest';

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
