import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { terminalLines, terminalOutput, terminalText } from '../src/terminal-text.js';

const runs = process.env.CI ? 1000 : 200;

const ESCAPED = (code: number) =>
  code < 0x20 ||
  (code >= 0x7f && code <= 0x9f) ||
  [0x061c, 0x200e, 0x200f, 0x2028, 0x2029].includes(code) ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069);

/** Text with many of the escaped characters, among any others (lone surrogates included). */
const text = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x20af }).map((c) => String.fromCharCode(c)),
      fc.string({ unit: 'binary' }),
    ),
  )
  .map((parts) => parts.join(''));

describe('terminalText', () => {
  test('every escaped code point becomes its \\u escape; every other BMP character is kept', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      expect(terminalText(c)).toBe(ESCAPED(code) ? `\\u${code.toString(16).padStart(4, '0')}` : c);
    }
    expect(terminalText('{"\u001b]0;PWNED\u0007":1}')).toBe('{"\\u001b]0;PWNED\\u0007":1}');
    expect(terminalText('a\tb\nc\r\n\u009b2J\u202eevil')).toBe('a\\u0009b\\u000ac\\u000d\\u000a\\u009b2J\\u202eevil');
    expect(terminalText('😀 é')).toBe('😀 é');
  });

  fcTest.prop([text], { numRuns: runs })('its output holds no escaped character', (s) => {
    for (const c of terminalText(s)) expect(ESCAPED(c.codePointAt(0) as number)).toBe(false);
  });
});

describe('terminalLines', () => {
  fcTest.prop([text], { numRuns: runs })('keeps the newlines, escapes the rest as terminalText does', (s) => {
    const lines = terminalLines(s);
    expect(lines.split('\n')).toEqual(s.split('\n').map(terminalText));
  });

  fcTest.prop([fc.jsonValue(), text], { numRuns: runs })(
    'a JSON line stays JSON of the same value, with no escaped character raw',
    (value, key) => {
      const line = terminalLines(JSON.stringify({ [key]: value, key }));
      expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify({ [key]: value, key })));
      for (const c of line) expect(ESCAPED(c.codePointAt(0) as number)).toBe(false);
    },
  );
});

describe('terminalOutput', () => {
  fcTest.prop([text], { numRuns: runs })('keeps newlines and tabs, escapes the rest as terminalText does', (s) => {
    const out = terminalOutput(s);
    expect(out.split('\n')).toEqual(s.split('\n').map((line) => line.split('\t').map(terminalText).join('\t')));
  });
});
