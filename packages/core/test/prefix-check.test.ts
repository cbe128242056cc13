/**
 * Prefix validation (packages/core/src/prefix/prefix-check.ts) through the partial builder: each rule
 * with the offset where the violation becomes certain, the prefixes that must stay silent, and
 * the same diagnostics under every chunking (whole, sizes 1..64, arbitrary split points).
 */
import { createPartialBuilder, type Diagnostic, type PartialOptions } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { everyChunkSize, numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { definitionRelationshipZod } from '../../../test/support/standard-schemas.js';

type Options = Omit<PartialOptions, 'compileJsonSchema'>;

function run(
  chunks: readonly string[],
  options: Options,
): { violations: Diagnostic[]; all: Diagnostic[]; count: number } {
  const all: Diagnostic[] = [];
  const builder = createPartialBuilder(
    { compileJsonSchema: compileSchema, ...options },
    { update: () => {}, diagnostic: (d) => all.push(d) },
  );
  for (const chunk of chunks) builder.write(chunk);
  builder.end();
  return {
    violations: all.filter((d) => d.reason === 'violation'),
    all,
    count: builder.stats.diagnostics.violation ?? 0,
  };
}

/** The violations of `text`, the same under every chunking. */
function violations(text: string, options: Options): Diagnostic[] {
  const whole = run([text], options);
  expect(whole.count).toBe(whole.violations.length);
  for (const [label, chunks] of everyChunkSize(text, 16)) {
    expect(run(chunks, options).violations, label).toEqual(whole.violations);
  }
  fc.assert(
    fc.property(splitPoints(text.length), (points) => {
      expect(run(splitAt(text, points), options).violations).toEqual(whole.violations);
    }),
    { numRuns: Math.min(numRuns, 50) },
  );
  return whole.violations;
}

/** `[rule, path, offset]` of each violation. */
function found(text: string, options: Options): [string | undefined, string | undefined, number][] {
  return violations(text, options).map((d) => [d.rule, d.path, d.offset]);
}

/** Offset of the `n`-th (0-based) occurrence of `needle` in `text`. */
function at(text: string, needle: string, n = 0): number {
  let i = -1;
  for (let k = 0; k <= n; k++) i = text.indexOf(needle, i + 1);
  if (i < 0) throw new Error(`${needle} not in ${text}`);
  return i;
}

const kinds = { type: 'object', properties: { kind: { enum: ['type', 'text'] }, mode: { const: 'on' } } };

describe('enum and const strings', () => {
  test('a prefix of an allowed value is silent; the first character no value has is the violation', () => {
    expect(found('{"kind": "typ', { schema: kinds })).toEqual([]);
    const text = '{"kind": "tx"}';
    expect(found(text, { schema: kinds })).toEqual([['enum', '/kind', at(text, 'x')]]);
  });

  test('a string that closes short of every value is a violation at its closing quote', () => {
    const text = '{"kind": "typ", "mode": "o"}';
    expect(found(text, { schema: kinds })).toEqual([
      ['enum', '/kind', at(text, 'typ"') + 3],
      ['const', '/mode', at(text, '"o"') + 2],
    ]);
  });

  test('the message names the path, the rule, what was seen and what is allowed; the excerpt shows it', () => {
    const [d] = violations('{"kind": "tx"}', { schema: kinds });
    expect(d?.message).toContain('/kind');
    expect(d?.message).toContain('enum');
    expect(d?.message).toContain('"tx"');
    expect(d?.message).toContain('"type", "text"');
    expect(d?.excerpt).toBe('"tx"');
  });

  test('escapes: the offset is where the offending escape starts', () => {
    const text = '{"mode": "\\u006f\\u0078"}';
    expect(found(text, { schema: kinds })).toEqual([['const', '/mode', at(text, '\\u0078')]]);
  });

  test('a literal or number where only strings are allowed is certain at its first character', () => {
    const text = '{"kind": true, "mode": 1}';
    expect(found(text, { schema: kinds })).toEqual([
      ['enum', '/kind', at(text, 'true')],
      ['const', '/mode', at(text, '1')],
    ]);
  });

  test('literals and numbers against enum', () => {
    const schema = { type: 'array', items: { enum: [1, 2, true, null] } };
    const text = '[1, 2, true, null, false, 3]';
    expect(found(text, { schema })).toEqual([
      ['enum', '/4', at(text, 'f')],
      ['enum', '/5', at(text, ']')],
    ]);
  });
});

const textOrImage = {
  oneOf: [
    {
      type: 'object',
      properties: { type: { const: 'text' }, body: { type: 'string', maxLength: 5 } },
      required: ['type'],
      additionalProperties: false,
    },
    { $ref: '#/$defs/image' },
  ],
  $defs: {
    image: { type: 'object', properties: { type: { const: 'image' }, url: { type: 'string' } }, required: ['type'] },
  },
};

describe('discriminated oneOf/anyOf', () => {
  test('a discriminator prefix that no branch has', () => {
    expect(found('{"type": "ima', { schema: textOrImage })).toEqual([]);
    const text = '{"type": "imx"}';
    const [d] = violations(text, { schema: textOrImage });
    expect([d?.rule, d?.path, d?.offset]).toEqual(['discriminator', '/type', at(text, 'x')]);
    expect(d?.message).toContain('"text", "image"');
  });

  test('once the discriminator completes, only its branch applies to what follows', () => {
    const text = '{"type": "text", "body": "abcdefgh", "url": "u"}';
    expect(found(text, { schema: textOrImage })).toEqual([
      ['maxLength', '/body', at(text, 'f')],
      ['additionalProperties', '/url', at(text, '"', 9)],
    ]);
    // The other branch allows `url` and long strings.
    expect(found('{"type": "image", "url": "abcdefgh", "x": 1}', { schema: textOrImage })).toEqual([]);
  });

  test('keys before the discriminator are not checked against a branch (conservative)', () => {
    expect(found('{"url": "u", "type": "text"}', { schema: textOrImage })).toEqual([]);
  });

  test('a non-object where every branch is an object', () => {
    expect(found('[1]', { schema: textOrImage })).toEqual([['type', '', 0]]);
  });

  test('a nested discriminated union, in an array through $ref', () => {
    const schema = { type: 'array', items: { $ref: '#/$defs/item' }, $defs: { item: textOrImage } };
    const nested = { ...schema, $defs: { ...textOrImage.$defs, item: { oneOf: textOrImage.oneOf } } };
    const text = '[{"type": "image"}, {"type": "tax"}]';
    expect(found(text, { schema: nested })).toEqual([['discriminator', '/1/type', at(text, 'tax') + 1]]);
  });

  test('a oneOf/anyOf without a discriminator: a violation only when every branch refuses the first character', () => {
    const schema = { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }] } };
    expect(found('["x", 1, true]', { schema })).toEqual([['oneOf', '/2', 9]]);
    // A nullable string, as zod and pydantic export one: beyond the first character, nothing.
    const nullable = {
      type: 'object',
      properties: { a: { anyOf: [{ type: 'string', maxLength: 1 }, { type: 'null' }] } },
    };
    expect(found('{"a": "abc"}', { schema: nullable })).toEqual([]);
    expect(found('{"a": null}', { schema: nullable })).toEqual([]);
    const [d] = violations('{"a": 1}', { schema: nullable });
    expect([d?.rule, d?.path, d?.offset]).toEqual(['anyOf', '/a', 6]);
    expect(d?.message).toBe('the value at /a is a number, which no anyOf branch allows');
  });

  test('a Standard Schema is checked through its JSON Schema export', () => {
    const text = '{"type": "definition", "entity": "e", "extra": 1}';
    expect(found('{"type": "defx"}', { schema: definitionRelationshipZod })).toEqual([
      ['discriminator', '/type', at('{"type": "defx"}', 'x')],
    ]);
    expect(found(text, { schema: definitionRelationshipZod })).toEqual([
      ['additionalProperties', '/extra', at(text, 'extra"') + 5],
    ]);
  });
});

describe('types', () => {
  const schema = {
    type: 'object',
    properties: {
      s: { type: 'string' },
      o: { type: 'object' },
      n: { type: ['string', 'null'] },
      i: { type: 'integer' },
      x: {},
    },
  };

  test('a value of the wrong type is certain at its first character', () => {
    const text = '{"s": [1], "o": 12, "n": null, "x": [true]}';
    expect(found(text, { schema })).toEqual([
      ['type', '/s', at(text, '[')],
      ['type', '/o', at(text, '12')],
    ]);
    expect(found('{"n": false}', { schema })).toEqual([['type', '/n', 6]]);
  });

  test('integer: a number that is not one is certain only once it ends (1.0 and 1.5e1 are integers)', () => {
    expect(found('{"i": 1.0, "s": "a"}', { schema })).toEqual([]);
    expect(found('{"i": 1.5e1}', { schema })).toEqual([]);
    const text = '{"i": 1.5}';
    expect(found(text, { schema })).toEqual([['type', '/i', at(text, '}')]]);
    expect(found('{"i": 1.5', { schema })).toEqual([]);
  });

  test('a root number is certain at the end of input', () => {
    expect(found('12 ', { schema: { type: 'object' } })).toEqual([['type', '', 2]]);
    expect(found('1.5', { schema: { type: 'integer' } })).toEqual([['type', '', 3]]);
  });

  test('offsets count from the start of the text, prose before the document included', () => {
    const text = 'Here it is: {"s": 1}';
    expect(found(text, { schema })).toEqual([['type', '/s', at(text, '1')]]);
  });
});

describe('additionalProperties and unevaluatedProperties', () => {
  const closed = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };

  test('a forbidden key is certain at its closing quote; its value is not checked further', () => {
    const text = '{"a": "x", "b": [1], "c": 2}';
    expect(found(text, { schema: closed })).toEqual([
      ['additionalProperties', '/b', at(text, '"', 5)],
      ['additionalProperties', '/c', at(text, '"', 7)],
    ]);
    expect(found('{"a": "x", "b', { schema: closed })).toEqual([]);
  });

  test('patternProperties: no prefix check', () => {
    expect(found('{"b": 1}', { schema: { ...closed, patternProperties: { '^z': {} } } })).toEqual([]);
  });

  test('additionalProperties as a schema applies to the other keys', () => {
    const schema = { type: 'object', properties: { a: {} }, additionalProperties: { type: 'number' } };
    expect(found('{"a": "x", "b": "y"}', { schema })).toEqual([['type', '/b', 16]]);
  });

  const dialect = 'https://json-schema.org/draft/2020-12/schema';

  test('unevaluatedProperties: false, with the keys every in-place keyword may evaluate', () => {
    const schema = {
      $schema: dialect,
      type: 'object',
      properties: { a: {} },
      allOf: [{ properties: { b: {} } }],
      anyOf: [{ properties: { c: {} } }, { $ref: '#/$defs/d' }],
      $defs: { d: { properties: { d: {} } } },
      unevaluatedProperties: false,
    };
    const text = '{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}';
    expect(found(text, { schema })).toEqual([['unevaluatedProperties', '/e', at(text, '"e"') + 2]]);
  });

  test('unevaluatedProperties: skipped when a sibling could evaluate any key, or in draft-07', () => {
    const open = { $schema: dialect, anyOf: [{ patternProperties: { x: {} } }], unevaluatedProperties: false };
    expect(found('{"e": 5}', { schema: open })).toEqual([]);
    expect(found('{"e": 5}', { schema: { type: 'object', unevaluatedProperties: false } })).toEqual([]);
  });
});

describe('bounds', () => {
  test('maxLength counts code points; certain at the character that exceeds it', () => {
    const schema = { type: 'array', items: { type: 'string', maxLength: 3 } };
    expect(found('["ab😀"]', { schema })).toEqual([]);
    const text = '["ab😀c", "\\u00e9\\u00e9\\u00e9\\u00e9"]';
    expect(found(text, { schema })).toEqual([
      ['maxLength', '/0', at(text, 'c')],
      ['maxLength', '/1', at(text, '\\u00e9', 3)],
    ]);
    const pair = '["abc😀"]';
    expect(found(pair, { schema })).toEqual([['maxLength', '/0', at(pair, '😀')]]);
  });

  test('maxItems is certain at the start of the extra element, reported once', () => {
    const text = '[1, [2], 3, 4]';
    expect(found(text, { schema: { type: 'array', maxItems: 2 } })).toEqual([['maxItems', '', at(text, '3')]]);
    expect(found('[1, 2, ', { schema: { type: 'array', maxItems: 2 } })).toEqual([]);
  });

  test('minimum, maximum, exclusive bounds: certain at the character that ends the number', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { minimum: 0 },
        b: { maximum: 10 },
        c: { exclusiveMinimum: 0 },
        d: { exclusiveMaximum: 10 },
      },
    };
    const text = '{"a": -1, "b": 10.5, "c": 0 , "d": 1e1}';
    expect(found(text, { schema })).toEqual([
      ['minimum', '/a', at(text, ',')],
      ['maximum', '/b', at(text, ',', 1)],
      ['exclusiveMinimum', '/c', at(text, ' ,')],
      ['exclusiveMaximum', '/d', at(text, '}')],
    ]);
    expect(found('{"a": 0, "b": 10, "c": 0.1, "d": 9.99}', { schema })).toEqual([]);
    expect(found('{"a": -', { schema })).toEqual([]);
  });
});

describe('schemas', () => {
  test('false: any value there is a violation at its first character', () => {
    const schema = { type: 'object', properties: { no: false } };
    expect(found('{"no": {"a": 1}}', { schema })).toEqual([['false', '/no', 7]]);
    const tuple = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
      items: false,
    };
    expect(found('["a", 2]', { schema: tuple })).toEqual([['false', '/1', 6]]);
    expect(found('[2]', { schema: tuple })).toEqual([['type', '/0', 1]]);
  });

  test('a recursive $ref to the root, deep', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      additionalProperties: false,
    };
    const text = '{"children": [{"children": [{"name": "x", "nope": 1}]}]}';
    expect(found(text, { schema })).toEqual([
      ['additionalProperties', '/children/0/children/0/nope', at(text, 'nope') + 4],
    ]);
  });

  test('allOf: every member applies', () => {
    const schema = {
      allOf: [{ properties: { a: { type: 'string' } } }, { properties: { a: { maxLength: 2 } } }],
    };
    expect(found('{"a": "abc"}', { schema })).toEqual([['maxLength', '/a', 9]]);
  });

  test('a $ref cycle that ajv would refuse, in a Standard Schema export, terminates', () => {
    const exported = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      allOf: [{ properties: { a: { type: 'string' } } }, { $ref: '#/$defs/loop' }],
      $defs: { loop: { allOf: [{ $ref: '#/$defs/loop' }, { $ref: '#' }], properties: { b: { maxLength: 1 } } } },
    };
    const schema = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value: unknown) => ({ value }),
        jsonSchema: { input: () => exported, output: () => exported },
      },
    } as unknown as NonNullable<PartialOptions['schema']>;
    expect(found('{"a": 1, "b": "xy"}', { schema })).toEqual([
      ['type', '/a', 6],
      ['maxLength', '/b', 16],
    ]);
  });

  test('a deep value does not overflow the stack', () => {
    const depth = 5000;
    const text = `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
    const schema = { type: 'array', items: { $ref: '#' } };
    const result = run([text], { schema, maxDepth: depth + 1 });
    expect(result.violations.map((d) => [d.rule, d.offset])).toEqual([['type', depth]]);
  });

  test('after a violation, nothing inside that value is reported', () => {
    const schema = { type: 'object', properties: { s: { enum: ['ab'], maxLength: 1 } } };
    expect(found('{"s": "abc"}', { schema })).toEqual([['maxLength', '/s', 8]]);
    const list = { type: 'array', maxItems: 1, items: { type: 'string' } };
    expect(found('[1, 2, 3]', { schema: list })).toEqual([
      ['type', '/0', 1],
      ['maxItems', '', 4],
    ]);
  });

  test('subtree checks stay schema diagnostics; violations come first and are counted', () => {
    const result = run(['{"s": [1]}'], { schema: { type: 'object', properties: { s: { type: 'string' } } } });
    expect(result.all.map((d) => d.reason)).toEqual(['violation', 'schema', 'schema']);
    expect(result.count).toBe(1);
  });

  test('draft-07 tuples: items as an array, additionalItems false', () => {
    const schema = { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false };
    expect(found('["a", 1, null]', { schema })).toEqual([['false', '/2', 9]]);
    expect(found('[1]', { schema })).toEqual([['type', '/0', 1]]);
    // prefixItems is not a draft-07 keyword: ajv ignores it there, and so does the checker.
    expect(found('[1]', { schema: { type: 'array', prefixItems: [{ type: 'string' }] } })).toEqual([]);
  });

  test('a root string against an enum; an escaped discriminator; number constants', () => {
    expect(found('"ab', { schema: { enum: ['abc'] } })).toEqual([]);
    expect(found('"abd"', { schema: { enum: ['abc'] } })).toEqual([['enum', '', 3]]);
    const text = '{"type": "t\u0065xt", "url": 1}';
    expect(found(text, { schema: textOrImage })).toEqual([['additionalProperties', '/url', at(text, 'url"') + 3]]);
    const numbered = {
      oneOf: [
        { type: 'object', properties: { v: { const: 1 }, a: { type: 'string' } }, required: ['v'] },
        { type: 'object', properties: { v: { const: 2 }, b: { type: 'string' } }, required: ['v'] },
      ],
    };
    expect(found('{"v": 3}', { schema: numbered })).toEqual([['discriminator', '/v', 7]]);
    expect(found('{"v": 1, "a": 2}', { schema: numbered })).toEqual([['type', '/a', 14]]);
    expect(found('{"v": "1"}', { schema: numbered })).toEqual([['discriminator', '/v', 6]]);
  });

  test('a Standard Schema without a JSON Schema export: no prefix checks', () => {
    const schema = {
      '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) },
    } as unknown as NonNullable<PartialOptions['schema']>;
    expect(run(['{"a": [1]}'], { schema }).violations).toEqual([]);
  });

  test('prefixCheck: false turns it off; a wrong value is refused', () => {
    expect(run(['{"kind": "x"}'], { schema: kinds, prefixCheck: false }).violations).toEqual([]);
    expect(() => run([''], { schema: kinds, prefixCheck: 'yes' as unknown as boolean })).toThrow(/prefixCheck/);
  });
});
