/**
 * Field paths (field-path.ts) and the record formats of `llmjson batch` (batch-formats.ts): every
 * path form and its refusals, each format's lifting of one record, detection from a first record,
 * and hostile records (`__proto__` keys, huge and deep values, fields of the wrong type), which
 * must come out as a record or a problem, never a crash or a polluted prototype.
 */

import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';
import { UsageError } from '../src/exit-codes.js';
import { parseFieldPath, valueAt } from '../src/field-path.js';

describe('parseFieldPath', () => {
  test('a dotted path: one segment per name, digits kept as text', () => {
    expect(parseFieldPath('--text-field', 'response.body.choices.0.message.content')).toEqual([
      'response',
      'body',
      'choices',
      '0',
      'message',
      'content',
    ]);
    expect(parseFieldPath('--text-field', 'text')).toEqual(['text']);
    expect(parseFieldPath('--id-field', '__proto__')).toEqual(['__proto__']);
  });

  test('a JSON Pointer: ~1 is "/", ~0 is "~", in that order, and empty segments are keys', () => {
    expect(parseFieldPath('--text-field', '/response/body/choices/0/message/content')).toEqual([
      'response',
      'body',
      'choices',
      '0',
      'message',
      'content',
    ]);
    expect(parseFieldPath('--text-field', '/a~1b/c~0d/~01')).toEqual(['a/b', 'c~d', '~1']);
    expect(parseFieldPath('--text-field', '/a.b')).toEqual(['a.b']);
    expect(parseFieldPath('--text-field', '/')).toEqual(['']);
    expect(parseFieldPath('--text-field', '/a//b')).toEqual(['a', '', 'b']);
  });

  test.each([
    ['', /--model-field: the field path is empty: write a dotted path such as .* or a JSON Pointer such as \//],
    ['a..b', /--model-field: "a\.\.b" has an empty segment .*JSON Pointer/],
    ['.a', /empty segment/],
    ['a.', /empty segment/],
    ['/a~2b', /--model-field: "\/a~2b" is not a valid JSON Pointer: "~" must be followed by 0 .* or 1/],
    ['/a~', /not a valid JSON Pointer/],
  ])('%j is refused with a usage error naming the flag and what to write', (path, message) => {
    let thrown: unknown;
    try {
      parseFieldPath('--model-field', path);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toMatch(message);
  });
});

describe('valueAt', () => {
  const record = JSON.parse(
    '{"response":{"body":{"choices":[{"message":{"content":"hi"}}],"a.b":1,"":2}},"__proto__":{"x":"own"},"list":[10,20]}',
  ) as unknown;

  test('objects by key, arrays by canonical index, whatever is missing is undefined', () => {
    expect(valueAt(record, parseFieldPath('f', 'response.body.choices.0.message.content'))).toBe('hi');
    expect(valueAt(record, parseFieldPath('f', '/response/body/choices/0/message/content'))).toBe('hi');
    expect(valueAt(record, parseFieldPath('f', '/response/body/a.b'))).toBe(1);
    expect(valueAt(record, parseFieldPath('f', '/response/body/'))).toBe(2);
    expect(valueAt(record, ['list', '1'])).toBe(20);
    expect(valueAt(record, ['list', '2'])).toBeUndefined();
    expect(valueAt(record, ['list', '01'])).toBeUndefined();
    expect(valueAt(record, ['list', '-'])).toBeUndefined();
    expect(valueAt(record, ['list', 'length'])).toBeUndefined();
    expect(valueAt(record, ['response', 'body', 'choices', '0', 'message', 'content', 'length'])).toBeUndefined();
    expect(valueAt(record, ['missing', 'deeper'])).toBeUndefined();
    expect(valueAt(null, ['a'])).toBeUndefined();
    expect(valueAt('text', [])).toBe('text');
  });

  test('own properties only: a record\'s own "__proto__" key is read, the prototype chain never', () => {
    expect(valueAt(record, ['__proto__', 'x'])).toBe('own');
    expect(valueAt({}, ['__proto__'])).toBeUndefined();
    expect(valueAt({}, ['constructor'])).toBeUndefined();
    expect(valueAt({}, ['toString'])).toBeUndefined();
    expect(valueAt([], ['constructor'])).toBeUndefined();
    expect(valueAt(Object.create({ inherited: 1 }), ['inherited'])).toBeUndefined();
  });

  test('no getter runs', () => {
    const trap = Object.defineProperty({}, 'text', {
      enumerable: true,
      get() {
        throw new Error('a getter ran');
      },
    });
    expect(valueAt(trap, ['text'])).toBeUndefined();
  });

  fcTest.prop(
    [
      fc.anything({ withNullPrototype: true, withObjectString: true, withBoxedValues: true, maxDepth: 4 }),
      fc.array(
        fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'length', '0', '1')),
        {
          maxLength: 6,
        },
      ),
    ],
    { numRuns },
  )('for any value and any path: never throws, never reads an inherited property', (value, path) => {
    const found = valueAt(value, path);
    // The same walk by hand, over own properties only.
    let expected: unknown = value;
    for (const segment of path) {
      if (typeof expected !== 'object' || expected === null) {
        expected = undefined;
        break;
      }
      if (Array.isArray(expected) && !/^(?:0|[1-9][0-9]*)$/.test(segment)) {
        expected = undefined;
        break;
      }
      expected = Object.hasOwn(expected, segment) ? (expected as Record<string, unknown>)[segment] : undefined;
    }
    expect(found).toBe(expected);
  });

  fcTest.prop([fc.string(), fc.string({ minLength: 1 })], { numRuns })(
    'a JSON Pointer written from any keys parses back to those keys',
    (a, b) => {
      const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
      expect(parseFieldPath('--text-field', `/${pointerKey(a)}/${pointerKey(b)}`)).toEqual([a, b]);
    },
  );
});
