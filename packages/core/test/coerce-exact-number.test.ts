/**
 * `string-to-number` coerces a string only when the number reads back as the number the string
 * wrote: `"9007199254740993"` (more digits than a double keeps), `"1e-400"` (would read as 0)
 * and `"1e999"` (beyond the range) stay strings, and the `schema` diagnostic says why; strings
 * that are not JSON numbers at all (`" 12 "`, `"0x10"`, `"Infinity"`…) are never coerced.
 */
import { CoercionRule, type JsonSchema, withCoercion } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';
import { decodeEverySplit } from '../../../test/support/collect.js';

const rules = new Set([CoercionRule.stringToNumber, CoercionRule.floatToInteger]);
const numberSchema: JsonSchema = { type: 'number' };
const coercing = (schema: JsonSchema) => withCoercion(compileSchema(schema), schema, rules);

describe('coerced: the number is exactly what the string wrote', () => {
  test.each([
    ['5', 5],
    ['1.0', 1],
    ['1e2', 100],
    ['-0', -0],
    ['0.1', 0.1],
    ['-1.5e3', -1500],
    ['1e21', 1e21],
    ['9007199254740992', 9007199254740992],
    ['5e-324', 5e-324],
    ['1.7976931348623157e308', 1.7976931348623157e308],
    ['0.000001000', 0.000001],
  ])('%j → %d', (text, number) => {
    const result = coercing(numberSchema).validate(text);
    expect(result).toMatchObject({ valid: true });
    expect(Object.is(result.valid && result.value, number)).toBe(true);
  });
});

describe('not coerced: the number would not read back as the string', () => {
  test.each([
    ['9007199254740993', 'it has more significant digits than a number keeps (it would read back as 9007199254740992)'],
    ['0.30000000000000001', 'it has more significant digits than a number keeps (it would read back as 0.3)'],
    ['123456789012345678901234567890', 'it has more significant digits than a number keeps'],
    ['1e-400', 'it is too small for a number (it would read as 0)'],
    ['-1e-400', 'it is too small for a number (it would read as 0)'],
    ['1e999', 'it is beyond the range of a number (it would read as Infinity)'],
    ['-1e999', 'it is beyond the range of a number (it would read as -Infinity)'],
  ])('%j: stays invalid, and the message says why', (text, why) => {
    const result = coercing(numberSchema).validate(text);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.message).toContain(`; not coerced: ${JSON.stringify(text)} at / is not exactly a number, ${why}`);
    expect(result.message).toMatch(/\(string-to-number\)$/);
  });

  test('float-to-integer and enum/const numbers are held to the same rule', () => {
    const integer = coercing({ type: 'integer' }).validate('9007199254740993.0');
    expect(integer.valid).toBe(false);
    expect(coercing({ type: 'integer' }).validate('5.0')).toMatchObject({ valid: true, value: 5 });
    const constant = coercing({ const: 1 }).validate('1.0000000000000001');
    expect(constant.valid).toBe(false);
    if (!constant.valid) expect(constant.message).toMatch(/not coerced: "1.0000000000000001"/);
    expect(coercing({ enum: [1, 2] }).validate('2.0')).toMatchObject({ valid: true, value: 2 });
  });

  test.each([' 12 ', '12abc', '0x10', 'Infinity', 'NaN', '+1', '1.', '.5', '1e', ''])(
    '%j is not a JSON number: never coerced, no refusal note',
    (text) => {
      const result = coercing(numberSchema).validate(text);
      expect(result.valid).toBe(false);
      if (!result.valid) expect(result.message).not.toMatch(/not coerced/);
    },
  );
});

test('JSONL with coerce, at every chunk size: the exact number is delivered, the lossy ones reported', () => {
  const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;
  const text = '{"n": "12.50"}\n{"n": "9007199254740993"}\n{"n": "1e-400"}\n';
  const run = decodeEverySplit(text, {
    schema,
    compileJsonSchema: compileSchema,
    coerce: ['string-to-number'],
    coerceWith: withCoercion,
  });
  expect(run.values).toEqual([{ n: 12.5 }]);
  expect(run.diagnostics.map((d) => [d.reason, d.line, d.rule])).toEqual([
    ['recovered', 1, 'string-to-number'],
    ['schema', 2, undefined],
    ['schema', 3, undefined],
  ]);
  expect(run.diagnostics[1]?.message).toMatch(
    /not coerced: "9007199254740993" at \/n is not exactly a number, it has more significant digits/,
  );
  expect(run.diagnostics[2]?.message).toMatch(/not coerced: "1e-400" at \/n is not exactly a number, it is too small/);
});

/** `text` (a JSON number) as an exact rational: mantissa × 10^exponent, with BigInts. */
function decimal(text: string): { mantissa: bigint; exponent: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) throw new Error(`not a JSON number: ${text}`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  return { mantissa: BigInt(`${sign}${whole}${fraction}`), exponent: Number(exponent) - fraction.length };
}

/** Whether two JSON number strings have the same decimal value (exact, no floating point). */
function sameDecimal(a: string, b: string): boolean {
  const x = decimal(a);
  const y = decimal(b);
  const shift = x.exponent - y.exponent;
  return shift >= 0
    ? x.mantissa * 10n ** BigInt(shift) === y.mantissa
    : x.mantissa === y.mantissa * 10n ** BigInt(-shift);
}

test('property: a string is coerced to n only when it denotes exactly n (the decimal String(n) writes)', () => {
  const jsonNumber = fc.oneof(
    fc.stringMatching(/^-?(0|[1-9]\d{0,24})(\.\d{1,24})?([eE][+-]?\d{1,3})?$/),
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .map(String)
      .filter((s) => !s.includes('Infinity')),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
  );
  fc.assert(
    fc.property(jsonNumber, (text) => {
      const result = coercing(numberSchema).validate(text);
      const n = Number(text);
      const exact = Number.isFinite(n) && sameDecimal(text, String(n));
      if (result.valid) {
        expect(exact).toBe(true);
        expect(Object.is(result.value, n)).toBe(true);
      } else {
        expect(exact).toBe(false);
        expect(result.message).toMatch(/not coerced: .* is not exactly a number/);
      }
    }),
    { numRuns: numRuns * 5 },
  );
});

test('default: a default that JSON cannot hold (NaN, from a schema written in code) is not filled changed', () => {
  const schema: JsonSchema = {
    type: 'object',
    required: ['n', 'm'],
    properties: { n: { type: 'number', default: Number.NaN }, m: { type: 'number', default: 2 } },
  };
  const compiled = withCoercion(
    compileSchema({ type: 'object', required: ['m'] }),
    schema,
    new Set([CoercionRule.default]),
  );
  const result = compiled.validate({});
  expect(result).toMatchObject({ valid: true, value: { m: 2 } });
  expect(result.valid && Object.hasOwn(result.value as object, 'n')).toBe(false);
});
