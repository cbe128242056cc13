/**
 * The linear-time regex engine behind schemas means what JavaScript means (decision 013):
 * patterns get JavaScript's verdicts for `\s`, `.`, `\p{…}`, `\u` escapes and the rest, and every
 * format of ajv-formats gets ajv-formats' verdicts while running in linear time. The oracle is
 * the native RegExp and ajv-formats itself, on inputs short enough for them to be fast.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { compileSchema } from '@llmjson/core/ajv';
import type { Format } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';

function patternTest(pattern: string): (text: string) => boolean {
  const compiled = compileSchema({ type: 'string', pattern });
  return (text) => compiled.validate(text).valid;
}

describe('patterns get the verdicts JavaScript gives', () => {
  test('\\s, \\S and . match exactly the characters they match in JavaScript (every BMP code unit, some astral)', () => {
    const patterns = ['^\\s$', '^\\S$', '^[\\s]$', '^[^\\s]$', '^[\\S]$', '^[^\\S]$', '^[a\\S]$', '^.$', '^[\\s\\S]$'];
    const ours = patterns.map(patternTest);
    const native = patterns.map((p) => new RegExp(p, 'u'));
    const mismatches: string[] = [];
    const check = (text: string) => {
      for (const [i, pattern] of patterns.entries()) {
        if ((ours[i] as (t: string) => boolean)(text) !== (native[i] as RegExp).test(text)) {
          mismatches.push(`${pattern} on U+${(text.codePointAt(0) ?? 0).toString(16)}`);
        }
      }
    };
    for (let code = 0; code <= 0xffff; code++) check(String.fromCharCode(code));
    for (const astral of ['😀', '\u{10000}', '\u{10ffff}', '\u{1d400}']) check(astral);
    expect(mismatches).toEqual([]);
  });

  const cases: [pattern: string, inputs: string[]][] = [
    ['^\\p{L}+$', ['héllo', 'abc1', 'Ωμέγα', '']],
    ['^\\p{Letter}+$', ['héllo', 'abc1']],
    ['^\\p{Lu}\\p{Ll}+$', ['Hello', 'hello']],
    ['^\\p{gc=Decimal_Number}+$', ['123', '١٢٣', '12a']],
    ['^\\p{Script=Greek}+$', ['αβγ', 'abc']],
    ['^\\p{sc=Cyrillic}+$', ['жук', 'zuk']],
    ['^\\P{L}+$', ['123', 'a1']],
    ['^[\\p{L}\\d_]+$', ['a_1', 'a-1']],
    ['^(?<year>\\d{4})-(?<month>\\d{2})$', ['2024-05', '2024-5']],
    ['^[^]$', ['x', '\n', '😀', '']],
    ['^[]$', ['', 'x']],
    ['^\\u00e9$', ['é', 'e']],
    ['^\\u{1F600}$', ['😀', '😁']],
    ['^[😀-😂]{2}$', ['😀😂', '😃😀', '😀']],
    ['^.{2}$', ['😀😀', 'ab', 'a\nb']],
    ['^a[\\b]b$', ['a\bb', 'ab']],
    ['\\bword\\b', ['a word here', 'swordfish']],
    ['^\\cJ$', ['\n', 'J']],
    ['^\\x41\\0$', ['A\0', 'A0']],
    ['^a{2,3}$', ['aa', 'aaaa']],
    ['^\\/[\\-\\]]+$', ['/-]', '/a']],
    ['^(?:a|b)*?c$', ['ababc', 'abab']],
    ['^[\\w.-]+@[\\w-]+\\.\\w{2,}$', ['a.b@c-d.ef', 'a@b']],
    ['x$', ['ax', 'ax\n']],
    ['^x', ['xa', '\nxa']],
    ['', ['', 'anything']],
  ];
  for (const [pattern, inputs] of cases) {
    test(`${JSON.stringify(pattern)} on ${JSON.stringify(inputs)}`, () => {
      const ours = patternTest(pattern);
      const native = new RegExp(pattern, 'u');
      for (const input of inputs) expect(ours(input), JSON.stringify(input)).toBe(native.test(input));
    });
  }

  const alphabet = fc.constantFrom(...'ab-_.@ \n\r\t\u00a0\u2028é😀1'.split(''), '😀');
  const atoms = fc.constantFrom(
    'a',
    'b',
    '.',
    '\\s',
    '\\S',
    '\\d',
    '\\w',
    '[ab]',
    '[^a]',
    '\\p{L}',
    '[\\s\\S]',
    '😀',
    '(?:a|b)',
  );
  const quantifiers = fc.constantFrom('', '*', '+', '?', '{2}', '{1,3}', '*?');
  const generated = fc
    .tuple(fc.boolean(), fc.array(fc.tuple(atoms, quantifiers), { maxLength: 5 }), fc.boolean())
    .map(([start, parts, end]) => `${start ? '^' : ''}${parts.map(([a, q]) => a + q).join('')}${end ? '$' : ''}`);

  fcTest.prop([generated, fc.array(fc.string({ unit: alphabet, maxLength: 8 }), { minLength: 1, maxLength: 5 })], {
    numRuns,
  })('generated patterns agree with the native engine', (pattern, inputs) => {
    const ours = patternTest(pattern);
    const native = new RegExp(pattern, 'u');
    for (const input of inputs) expect(ours(input), `${pattern} on ${JSON.stringify(input)}`).toBe(native.test(input));
  });
});

/** ajv-formats' own check, as ajv runs it. */
function nativeFormat(format: Format): (text: string) => boolean {
  if (format instanceof RegExp) {
    return (text) => {
      format.lastIndex = 0;
      return format.test(text);
    };
  }
  if (typeof format === 'function') return format as (text: string) => boolean;
  if (typeof format === 'object' && typeof format.validate === 'function') {
    return format.validate as (text: string) => boolean;
  }
  throw new Error('not a string format');
}

function formatTest(name: string): (text: string) => boolean {
  const compiled = compileSchema({ type: 'string', format: name });
  return (text) => compiled.validate(text).valid;
}

/** Formats that are one pattern in ajv-formats 3.0.1; compiled by re2js (three of them rebuilt without lookarounds). */
const PATTERN_FORMATS = [
  'duration',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
];
/** Function formats whose inner pattern could backtract or overflow: rebuilt on re2js. */
const REBUILT_FUNCTION_FORMATS = ['uri', 'byte'];
/** Function formats left as they are: linear as written (decision 013). */
const NATIVE_FORMATS = [
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'regex',
  'int32',
  'int64',
  'float',
  'double',
];

describe('the formats of ajv-formats run in linear time with ajv-formats verdicts', () => {
  test('every format of ajv-formats is accounted for (an upgrade adding one fails here until reviewed)', () => {
    const all = Object.keys(fullFormats).sort();
    expect(all).toEqual(
      [...PATTERN_FORMATS, ...REBUILT_FUNCTION_FORMATS, ...NATIVE_FORMATS, 'password', 'binary'].sort(),
    );
    const patterns = all.filter((name) => fullFormats[name as keyof typeof fullFormats] instanceof RegExp).sort();
    expect(patterns).toEqual([...PATTERN_FORMATS].sort());
  });

  const chars = (text: string) => fc.constantFrom(...Array.from(text));
  const fold = 'ſK'; // case-fold to s and k under Unicode rules, not under JavaScript's non-unicode /i
  const octet = fc.oneof(
    fc.integer({ min: 0, max: 260 }).map(String),
    fc.constantFrom('10', '127', '169', '172', '192', '168', '254', '16', '31', '32', '015', '01'),
  );
  const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
  const label = fc.string({ unit: chars('ab0-é'), minLength: 1, maxLength: 6 });
  const host = fc.oneof(
    ipv4,
    fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
  );
  const urls = fc
    .tuple(
      fc.constantFrom('http://', 'https://', 'ftp://', 'HTTP://', 'mailto:', ''),
      fc.option(
        fc.string({ unit: chars('u:@ p'), maxLength: 6 }).map((user) => `${user}@`),
        { nil: '' },
      ),
      host,
      fc.constantFrom('', ':80', ':8080', ':1', ':123456'),
      fc.constantFrom('', '/', '/a b', '/path?q=1#f', `/${fold}`),
    )
    .map((parts) => parts.join(''));

  const generators: Record<string, fc.Arbitrary<string>> = {
    duration: fc.oneof(
      fc.string({ unit: chars('PTYMWDHS0123.'), maxLength: 12 }),
      fc
        .tuple(
          fc.constantFrom('P', 'PT', 'P1Y', 'P1D', 'P1W', 'P2M1D'),
          fc.constantFrom('', 'T', 'T1H', 'T1M2S', 'TH', '1W'),
        )
        .map(([a, b]) => a + b),
    ),
    url: urls,
    hostname: fc.oneof(
      fc.string({ unit: chars(`ab0-.${fold}`), maxLength: 20 }),
      fc
        .tuple(fc.integer({ min: 1, max: 130 }), fc.constantFrom('', '.', '-', 'a'))
        .map(([n, end]) => `${'a.'.repeat(n).slice(0, -1)}${end}`),
    ),
    uri: fc.oneof(urls, fc.string({ unit: chars(`a:/?#%[]@!$&'()*+,;=.-~0 ${fold}`), maxLength: 16 })),
    'uri-reference': fc.oneof(urls, fc.string({ unit: chars(`a:/?#%[]@"\\.0 ${fold}`), maxLength: 16 })),
    'uri-template': fc.string({ unit: chars(`a{}+#,:*%0 <>${fold}`), maxLength: 16 }),
    email: fc.oneof(
      fc.string({ unit: chars(`ab.@-_0!${fold}`), maxLength: 16 }),
      fc.tuple(label, host).map(([user, domain]) => `${user}@${domain}`),
    ),
    ipv4: fc.oneof(ipv4, fc.string({ unit: chars('0123456789.'), maxLength: 16 })),
    ipv6: fc.string({ unit: chars(`0af:.Fg${fold}`), maxLength: 24 }),
    uuid: fc.oneof(
      fc.uuid(),
      fc.uuid().map((u) => `urn:uuid:${u.toUpperCase()}`),
      fc.string({ unit: chars(`0aF-${fold}`), maxLength: 40 }),
    ),
    'json-pointer': fc.string({ unit: chars('/~01a'), maxLength: 12 }),
    'json-pointer-uri-fragment': fc.string({ unit: chars(`#/~01a%${fold}`), maxLength: 12 }),
    'relative-json-pointer': fc.string({ unit: chars('0123#/~a'), maxLength: 12 }),
    byte: fc.oneof(
      fc.base64String({ maxLength: 24 }),
      fc.string({ unit: chars('AZaz09+/=\n\r\u2028\u2029!'), maxLength: 24 }),
    ),
  };

  for (const [name, generator] of Object.entries(generators)) {
    const native = nativeFormat(fullFormats[name as keyof typeof fullFormats]);
    const ours = formatTest(name);
    fcTest.prop([generator], { numRuns: numRuns * 3 })(`${name}: same verdict as ajv-formats`, (text) => {
      expect(ours(text)).toBe(native(text));
    });
  }

  test('known tricky verdicts are kept', () => {
    const url = formatTest('url');
    expect(url('http://10.1.2.3')).toBe(false);
    expect(url('http://11.1.2.3')).toBe(true);
    expect(url('http://172.16.0.1')).toBe(false);
    expect(url('http://172.32.0.1')).toBe(true);
    expect(url('http://192.168.1.1')).toBe(false);
    expect(url('http://169.254.1.1')).toBe(false);
    expect(url('http://169.253.1.1')).toBe(true);
    expect(url('http://10.1.2.3.example.com')).toBe(true);
    const duration = formatTest('duration');
    expect(['P', 'PT', 'P1DT', 'PT1H', 'P1W', 'P1Y2M3DT4H5M6S'].map(duration)).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
    ]);
    const hostname = formatTest('hostname');
    const label63 = 'a'.repeat(63);
    const name253 = `${label63}.${label63}.${label63}.${'a'.repeat(61)}`;
    expect([name253, `${name253}.`, `${name253}a`].map(hostname)).toEqual([true, true, false]);
    expect(formatTest('email')('ſ@example.com')).toBe(false);
    expect(formatTest('byte')('!!\nQUJD')).toBe(true);
  });

  test('hostile inputs of 10^5 characters get a verdict from every format', () => {
    const hostile = [
      `http://${':'.repeat(100_000)} `,
      `http://${'a'.repeat(100_000)}\u0000`,
      `${'a:'.repeat(50_000)} `,
      `a@${'a.'.repeat(50_000)}-`,
      `${'AAAA'.repeat(25_000)}!`,
      `P${'1'.repeat(100_000)}!`,
      `00:00:00.${'1'.repeat(100_000)}!`,
      `${'0:'.repeat(50_000)}!`,
      `{${'a,'.repeat(50_000)}`,
    ];
    for (const name of Object.keys(fullFormats)) {
      const check = formatTest(name);
      for (const text of hostile) expect(typeof check(text)).toBe('boolean');
    }
    expect(formatTest('uri')(`http://${'a'.repeat(10_000_000)}`)).toBe(true);
    expect(formatTest('byte')('AAAA'.repeat(2_500_000))).toBe(true);
  });
});
