/**
 * Regression tests for the JSON Schema layer's hardening (decision 013): schema regexes run in
 * linear time, self-applying schemas are configuration errors, a value too deep for the
 * generated validator is invalid rather than thrown, and messages quote user input bounded.
 * No test times anything: a regression to a backtracking engine hangs the suite instead.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { type CompiledSchema, ConfigurationError, type JsonSchema, type ValidationResult } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { elementSchemaAt, subSchemaAt } from '@llmjson/core/internal';
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';
import { thrownBy } from '../../../test/support/thrown.js';

const DRAFT_2019 = 'https://json-schema.org/draft/2019-09/schema';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

/** The ConfigurationError `compile` throws (the test fails when it throws nothing). */
const configurationError = (run: () => unknown): ConfigurationError => thrownBy(ConfigurationError, run);

function invalid(result: ValidationResult): Extract<ValidationResult, { valid: false }> {
  expect(result.valid).toBe(false);
  if (result.valid) throw new Error('expected an invalid result');
  return result;
}

const TREE = {
  type: 'object',
  properties: { children: { type: 'array', items: { $ref: '#' } } },
} as const;

/** A tree `depth` levels of `children` deep, built without recursion. */
function deepTree(depth: number, leaf: Record<string, unknown> = {}): Record<string, unknown> {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { children: [value] };
  return value;
}

describe('schema regexes run in linear time', () => {
  test('^(a+)+$ against 39 "a" and a "!" is invalid, not a hang', () => {
    const compiled = compileSchema({ type: 'string', pattern: '^(a+)+$' });
    const result = invalid(compiled.validate(`${'a'.repeat(39)}!`));
    expect(result.errors[0]).toMatchObject({ keyword: 'pattern', path: '' });
    expect(compiled.validate('a'.repeat(39)).valid).toBe(true);
  });

  test('the same pattern on a million characters still answers', () => {
    const compiled = compileSchema({ type: 'string', pattern: '^(a+)+$' });
    expect(compiled.validate(`${'a'.repeat(1_000_000)}!`).valid).toBe(false);
    expect(compiled.validate('a'.repeat(1_000_000)).valid).toBe(true);
  });

  test('a catastrophic patternProperties key is matched in linear time', () => {
    const compiled = compileSchema({
      type: 'object',
      patternProperties: { '^(x+x+)+y$': { type: 'number' } },
    });
    expect(compiled.validate({ [`${'x'.repeat(40)}!`]: 'not checked' }).valid).toBe(true);
    expect(compiled.validate({ [`${'x'.repeat(40)}y`]: 1 }).valid).toBe(true);
    const result = invalid(compiled.validate({ [`${'x'.repeat(40)}y`]: 'not a number' }));
    expect(result.errors[0]?.path).toBe(`/${'x'.repeat(40)}y`);
  });

  test('propertyNames patterns and nested patterns go through the same engine', () => {
    const compiled = compileSchema({
      type: 'object',
      propertyNames: { pattern: '^(a|aa)+$' },
      additionalProperties: { type: 'array', items: { type: 'string', pattern: '^(\\w+\\s?)+$' } },
    });
    expect(compiled.validate({ [`${'a'.repeat(60)}b`]: [] }).valid).toBe(false);
    expect(compiled.validate({ aaa: [`${'word '.repeat(30)}!`] }).valid).toBe(false);
    expect(compiled.validate({ aaa: ['word word'] }).valid).toBe(true);
  });

  test('a discriminated oneOf whose branches carry patterns dispatches through the generated selector', () => {
    const branch = (type: string) => ({
      type: 'object',
      properties: { type: { const: type }, word: { type: 'string', pattern: '^(a+)+$' } },
      required: ['type', 'word'],
    });
    const compiled = compileSchema({ oneOf: [branch('x'), branch('y')] });
    expect(compiled.discriminator).toBe('type');
    expect(compiled.validate({ type: 'y', word: 'aaa' })).toEqual({ valid: true, branch: 'y' });
    expect(invalid(compiled.validate({ type: 'y', word: `${'a'.repeat(39)}!` })).branch).toBe('y');
  });

  const refused: [string, RegExp][] = [
    ['^(?=a)', /lookahead `\(\?=`/],
    // A lookahead at the start is composed (decision 013, addendum); elsewhere it is refused.
    ['a(?!b)', /lookahead `\(\?!`/],
    ['(?<=a)b', /lookbehind `\(\?<=`/],
    ['(?<!a)b', /lookbehind `\(\?<!`/],
    ['(a)\\1', /backreference `\\1`/],
    ['(?<n>a)\\k<n>', /backreference `\\k`/],
    ['a{1001}', /invalid repeat count/],
    ['\\p{Script_Extensions=Greek}', /invalid character class range/],
  ];
  for (const [pattern, why] of refused) {
    test(`${JSON.stringify(pattern)} is refused at compile time, naming the pattern`, () => {
      const error = configurationError(() => compileSchema({ type: 'string', pattern }));
      expect(error.code).toBe('SCHEMA_INVALID');
      expect(error.message).toContain(`schema pattern "${pattern}"`);
      expect(error.message).toContain(
        'needs a linear-time regular expression (no lookahead, lookbehind or backreferences)',
      );
      expect(error.message).toMatch(why);
    });
  }

  test('a lookahead in a patternProperties key is refused too', () => {
    const error = configurationError(() => compileSchema({ patternProperties: { '^(?=x)': { type: 'number' } } }));
    expect(error).toMatchObject({ code: 'SCHEMA_INVALID' });
    expect(error.message).toContain('schema pattern "^(?=x)"');
  });

  test('a pattern JavaScript rejects is a configuration error that names it', () => {
    const error = configurationError(() => compileSchema({ type: 'string', pattern: 'a(' }));
    expect(error.code).toBe('SCHEMA_INVALID');
    expect(error.message).toBe('schema pattern "a(" is not a valid regular expression: Unterminated group');
  });

  test('a refused pattern is quoted at most 200 characters', () => {
    const pattern = `(?=a)${'b'.repeat(100_000)}`;
    const error = configurationError(() => compileSchema({ type: 'string', pattern }));
    expect(error.message).toContain('… (100005 characters)');
    expect(error.message.length).toBeLessThan(600);
  });
});

/** A schema written as JSON text: a `then` keyword in an object literal reads as a thenable to the linter. */
function json(text: string): JsonSchema {
  return JSON.parse(text) as JsonSchema;
}

/** Shapes whose references apply the schema to the same instance forever. */
const SELF_APPLYING: [string, JsonSchema][] = [
  ['$ref to the root', { $ref: '#' }],
  ['allOf', { allOf: [{ $ref: '#' }] }],
  ['anyOf beside a passing branch', { anyOf: [{ type: 'string' }, { $ref: '#' }] }],
  ['oneOf', { oneOf: [{ $ref: '#' }, { type: 'null' }] }],
  ['not', { not: { $ref: '#' } }],
  ['if', json('{"if": {"$ref": "#"}, "then": {"type": "number"}}')],
  ['then', json('{"if": {"type": "object"}, "then": {"$ref": "#"}}')],
  ['else', { if: { type: 'string' }, else: { $ref: '#' } }],
  ['dependencies (draft-07)', { dependencies: { a: { $ref: '#' } } }],
  [
    'a ring of $defs through anyOf',
    { $defs: { a: { $ref: '#/$defs/b' }, b: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' },
  ],
  [
    'a ring of bare $refs',
    {
      definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/c' }, c: { $ref: '#/definitions/a' } },
      $ref: '#/definitions/a',
    },
  ],
  ['a loop below a property', { properties: { a: { allOf: [{ $ref: '#/properties/a' }] } } }],
  [
    'references through $id',
    {
      $id: 'https://example.com/root.json',
      definitions: { a: { $id: 'a.json', allOf: [{ $ref: 'root.json' }] } },
      allOf: [{ $ref: 'a.json' }],
    },
  ],
  ['a draft-07 plain-name $id', { definitions: { a: { $id: '#a', anyOf: [{ $ref: '#a' }] } }, $ref: '#a' }],
  [
    'an $anchor (2020-12)',
    { $schema: DRAFT_2020, $defs: { a: { $anchor: 'A', anyOf: [{ $ref: '#A' }] } }, $ref: '#A' },
  ],
  ['dependentSchemas (2019-09)', { $schema: DRAFT_2019, dependentSchemas: { a: { $ref: '#' } } }],
  ['$recursiveRef (2019-09)', { $schema: DRAFT_2019, $recursiveAnchor: true, allOf: [{ $recursiveRef: '#' }] }],
  ['$dynamicRef (2020-12)', { $schema: DRAFT_2020, $dynamicAnchor: 'node', anyOf: [{ $dynamicRef: '#node' }] }],
  ['a pointer outside the keywords', { components: { a: { allOf: [{ $ref: '#' }] } }, $ref: '#/components/a' }],
];

/** Plain ajv on a self-applying shape: it overflows the stack compiling or on its first value. */
function overflowsUnderPlainAjv(schema: JsonSchema): boolean {
  const dialect = typeof schema === 'object' ? schema.$schema : undefined;
  const ajv =
    dialect === DRAFT_2019
      ? new Ajv2019({ strict: false, allErrors: true })
      : dialect === DRAFT_2020
        ? new Ajv2020({ strict: false, allErrors: true })
        : new Ajv({ strict: false, allErrors: true });
  try {
    ajv.compile(schema)({ a: 1 });
    return false;
  } catch (error) {
    return error instanceof RangeError;
  }
}

describe('self-applying schemas are configuration errors', () => {
  for (const [name, schema] of SELF_APPLYING) {
    test(`${name}: SCHEMA_INVALID naming the cycle (and plain ajv does recurse forever)`, () => {
      expect(overflowsUnderPlainAjv(schema)).toBe(true);
      const error = configurationError(() => compileSchema(schema));
      expect(error.code).toBe('SCHEMA_INVALID');
      expect(error.message).toMatch(/^schema reference cycle that never descends into the value: #\S* -> /);
    });
  }

  test('the message walks the cycle: # -> #/allOf/0 -> #', () => {
    expect(configurationError(() => compileSchema({ allOf: [{ $ref: '#' }] })).message).toBe(
      'schema reference cycle that never descends into the value: # -> #/allOf/0 -> #; ' +
        'recursion must go through a keyword that applies to a part of the value (properties, items, ...)',
    );
    expect(configurationError(() => compileSchema({ $ref: '#' })).message).toContain('value: # -> #;');
    const ring = { $defs: { a: { $ref: '#/$defs/b' }, b: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' };
    expect(configurationError(() => compileSchema(ring)).message).toContain(
      'value: #/$defs/a -> #/$defs/b -> #/$defs/b/anyOf/0 -> #/$defs/a;',
    );
  });

  test('a long cycle is shown elided, and each pointer quoted at most 200 characters', () => {
    const definitions: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) definitions[`d${i}`] = { $ref: `#/definitions/d${(i + 1) % 50}` };
    const long = configurationError(() => compileSchema({ definitions, $ref: '#/definitions/d0' })).message;
    expect(long).toContain('#/definitions/d7 -> … (42 more) -> #/definitions/d0;');
    const key = 'k'.repeat(10_000);
    const huge = configurationError(() =>
      compileSchema({
        definitions: { [key]: { allOf: [{ $ref: `#/definitions/${key}` }] } },
        $ref: `#/definitions/${key}`,
      }),
    ).message;
    expect(huge).toContain('… (10014 characters)');
    expect(huge.length).toBeLessThan(1000);
  });

  test('a schema 100 000 levels deep is analysed without recursion and refused by ajv, not a crash', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100_000; i++) schema = { allOf: [schema] };
    expect(configurationError(() => compileSchema(schema)).code).toBe('SCHEMA_INVALID');
  });

  const RECURSIVE: [string, JsonSchema, unknown, unknown][] = [
    ['a tree through items', TREE, { children: [{ children: [{ children: [] }] }] }, { children: [1] }],
    [
      'a linked list through properties',
      { type: 'object', properties: { next: { $ref: '#' } } },
      { next: { next: {} } },
      { next: 1 },
    ],
    [
      'a list through anyOf and $defs',
      {
        $defs: {
          node: {
            anyOf: [
              { type: 'null' },
              { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] },
            ],
          },
        },
        $ref: '#/$defs/node',
      },
      { next: { next: null } },
      { next: { next: 1 } },
    ],
    [
      'any JSON through additionalProperties',
      { type: ['object', 'number'], additionalProperties: { $ref: '#' } },
      { a: { b: 1 } },
      { a: { b: 'x' } },
    ],
    [
      'property names checked by the root',
      { type: ['object', 'string'], maxLength: 3, propertyNames: { $ref: '#' } },
      { abc: 1 },
      { abcd: 1 },
    ],
    ['a then that can never apply', json('{"if": false, "then": {"$ref": "#"}, "type": "number"}'), 1, 'x'],
    ['an if that ajv ignores (no then, no else)', { if: { $ref: '#' }, type: 'number' }, 1, 'x'],
    [
      'an unused self-referencing definition',
      { definitions: { loop: { $ref: '#/definitions/loop' } }, type: 'number' },
      1,
      'x',
    ],
    [
      '$dynamicRef under items (2020-12)',
      { $schema: DRAFT_2020, $dynamicAnchor: 'node', type: 'array', items: { $dynamicRef: '#node' } },
      [[[]], []],
      [[1]],
    ],
    [
      '$recursiveRef under properties (2019-09)',
      { $schema: DRAFT_2019, $recursiveAnchor: true, type: 'object', additionalProperties: { $recursiveRef: '#' } },
      { a: { b: {} } },
      { a: { b: 1 } },
    ],
    [
      'the draft-07 meta-schema',
      { $ref: 'http://json-schema.org/draft-07/schema#' },
      { type: 'string' },
      { type: 'strnig' },
    ],
  ];
  for (const [name, schema, good, bad] of RECURSIVE) {
    test(`legitimate recursion stays valid: ${name}`, () => {
      const compiled = compileSchema(schema);
      expect(compiled.validate(good)).toEqual({ valid: true });
      expect(compiled.validate(bad).valid).toBe(false);
    });
  }
});

describe('a value too deep for the generated validator is invalid, never thrown', () => {
  test('the tree schema validates a 3-deep tree', () => {
    const compiled = compileSchema(TREE);
    expect(compiled.validate(deepTree(3))).toEqual({ valid: true });
    expect(invalid(compiled.validate(deepTree(3, { children: 'x' }))).errors[0]?.path).toBe(
      '/children/0/children/0/children/0/children',
    );
  });

  test('a 10 000-deep tree is { valid: false, keyword: "depth" }', () => {
    const result = invalid(compileSchema(TREE).validate(deepTree(10_000)));
    expect(result.message).toBe('value too deeply nested for the schema to validate (stack overflow)');
    expect(result.errors).toEqual([
      { path: '', keyword: 'depth', message: result.message, schemaPath: '#', params: {} },
    ]);
  });

  test('the compiled validator keeps working after an overflow', () => {
    const compiled = compileSchema(TREE);
    expect(compiled.validate(deepTree(100_000)).valid).toBe(false);
    expect(compiled.validate(deepTree(3))).toEqual({ valid: true });
    expect(compiled.validate({ children: [1] }).valid).toBe(false);
  });

  test('a discriminated oneOf whose branch is recursive also returns a result', () => {
    const node = {
      type: 'object',
      properties: { type: { const: 'node' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['type'],
    };
    const leaf = {
      type: 'object',
      properties: { type: { const: 'leaf' }, value: { type: 'number' } },
      required: ['type', 'value'],
    };
    const compiled: CompiledSchema = compileSchema({ oneOf: [node, leaf] });
    expect(compiled.discriminator).toBe('type');
    let value: Record<string, unknown> = { type: 'leaf', value: 1 };
    for (let i = 0; i < 10_000; i++) value = { type: 'node', children: [value] };
    expect(invalid(compiled.validate(value)).errors[0]?.keyword).toBe('depth');
    expect(compiled.validate({ type: 'node', children: [{ type: 'leaf', value: 1 }] })).toEqual({
      valid: true,
      branch: 'node',
    });
  });

  test('root keywords beside a dispatched oneOf are guarded too', () => {
    const branch = (type: string) => ({ type: 'object', properties: { type: { const: type } }, required: ['type'] });
    const compiled = compileSchema({
      oneOf: [branch('a'), branch('b')],
      properties: { next: { $ref: '#/definitions/chain' } },
      definitions: { chain: { type: 'object', properties: { next: { $ref: '#/definitions/chain' } } } },
    });
    let next: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) next = { next };
    expect(invalid(compiled.validate({ type: 'a', next })).errors[0]?.keyword).toBe('depth');
  });

  test('exceptions other than a stack overflow propagate: they are bugs, not data', () => {
    const compiled = compileSchema({ type: 'object', properties: { a: { type: 'number' } } });
    const throwing = (error: Error) =>
      Object.defineProperty({}, 'a', {
        enumerable: true,
        get() {
          throw error;
        },
      });
    expect(() => compiled.validate(throwing(new Error('getter failed')))).toThrow('getter failed');
    expect(() => compiled.validate(throwing(new RangeError('Invalid array length')))).toThrow('Invalid array length');
  });
});

describe('sub-schemas keep meaning what they mean in the document', () => {
  test('the elements of a list whose items are the list itself ({"$ref": "#"})', () => {
    const list = { type: 'array', items: { $ref: '#' } };
    const element = compileSchema(elementSchemaAt(list, []));
    expect([[], [[]], 1, [1]].map((v) => element.validate(v).valid)).toEqual([true, true, false, false]);
    expect(elementSchemaAt(list, [])).toBe(elementSchemaAt(list, []));
  });

  test('a "#" deep inside the items still names the whole document, under its $id and a key that needs escaping', () => {
    const document = {
      $id: 'https://example.com/doc.json',
      type: 'object',
      properties: {
        'a b/c~': {
          type: 'array',
          items: { type: 'object', properties: { child: { $ref: '#' }, n: { type: 'number' } } },
        },
      },
    };
    const element = compileSchema(elementSchemaAt(document, ['a b/c~']));
    expect(element.validate({ n: 1 }).valid).toBe(true);
    expect(element.validate({ child: { 'a b/c~': [{ n: 1 }] } }).valid).toBe(true);
    expect(element.validate({ child: { 'a b/c~': [{ n: 'x' }] } }).valid).toBe(false);
  });

  test('subSchemaAt into a tree: the children array, and a child that is the document itself', () => {
    for (const $schema of [undefined, DRAFT_2019, DRAFT_2020]) {
      const tree = { ...($schema === undefined ? {} : { $schema }), ...TREE };
      expect(subSchemaAt(tree, ['children', 0])).toBe(tree);
      const children = compileSchema(subSchemaAt(tree, ['children']) as JsonSchema);
      expect(children.validate([{ children: [] }]).valid).toBe(true);
      expect(children.validate([{ children: 1 }]).valid).toBe(false);
    }
  });

  test('items that only name definitions are carried as a copy, so oneOf dispatch still applies', () => {
    const branch = (type: string) => ({ type: 'object', properties: { type: { const: type } }, required: ['type'] });
    const list = { type: 'array', items: { oneOf: [{ $ref: '#/$defs/a' }, branch('b')] }, $defs: { a: branch('a') } };
    const element = compileSchema(elementSchemaAt(list, []));
    expect(element.discriminator).toBe('type');
    expect(element.validate({ type: 'a' })).toEqual({ valid: true, branch: 'a' });
  });
});

describe('messages quote user input at most 200 characters', () => {
  const huge = 'x'.repeat(100_000);
  const definition = (type: string) => ({
    type: 'object',
    properties: { type: { const: type } },
    required: ['type'],
  });

  test('an unsupported $schema', () => {
    const error = configurationError(() => compileSchema({ $schema: huge }));
    expect(error.message).toMatch(/^unsupported \$schema "x{200}… \(100000 characters\)"; supported: /);
  });

  test('a discriminator option that cannot be used', () => {
    const error = configurationError(() =>
      compileSchema({ oneOf: [definition('a'), definition('b')] }, { discriminator: huge }),
    );
    expect(error.code).toBe('DISCRIMINATOR_INVALID');
    expect(error.message.length).toBeLessThan(700);
  });

  test('an unknown discriminator value from the data', () => {
    const compiled = compileSchema({ oneOf: [definition('a'), definition('b')] });
    expect(invalid(compiled.validate({ type: huge })).message).toBe(
      `unknown discriminator "type": "${'x'.repeat(200)}… (100000 characters)"; expected one of "a", "b"`,
    );
    const deep = deepTree(100_000);
    expect(invalid(compiled.validate({ type: deep })).message).toBe(
      'unknown discriminator "type": an object; expected one of "a", "b"',
    );
  });

  test('a property name and a path from the data', () => {
    const compiled = compileSchema({
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'object', additionalProperties: { type: 'number' } } },
    });
    const extra = invalid(compiled.validate({ [huge]: 1 })).message;
    expect(extra).toBe(`at /: must NOT have additional properties ("${'x'.repeat(200)}… (100000 characters)")`);
    const path = invalid(compiled.validate({ a: { [huge]: 'y' } })).message;
    expect(path.length).toBeLessThan(300);
    expect(path).toMatch(/^at \/a\/x+… \(100003 characters\): must be number$/);
  });

  test('a path elementSchemaAt cannot follow', () => {
    const error = configurationError(() => elementSchemaAt({ type: 'object', properties: {} }, [huge]));
    expect(error.message.length).toBeLessThan(600);
  });
});

describe('validate never throws on data', () => {
  const node = {
    type: 'object',
    properties: { type: { const: 'node' }, children: { type: 'array', items: { $ref: '#' } } },
    required: ['type'],
  };
  const leaf = { type: 'object', properties: { type: { const: 'leaf' } }, required: ['type'] };
  const schemas: JsonSchema[] = [
    TREE,
    { oneOf: [node, leaf] },
    {
      type: ['object', 'array', 'string', 'number', 'boolean', 'null'],
      additionalProperties: { $ref: '#' },
      items: { $ref: '#' },
    },
    {
      type: 'object',
      properties: {
        word: { type: 'string', pattern: '^(a+)+$' },
        at: { format: 'date-time' },
        site: { format: 'url' },
      },
      patternProperties: { '^(x+x+)+y$': { type: 'number' } },
    },
    { $schema: DRAFT_2020, $dynamicAnchor: 'node', type: 'array', items: { $dynamicRef: '#node' } },
    {
      anyOf: [
        { type: 'string', format: 'email' },
        { type: 'array', items: { $ref: '#' } },
      ],
    },
  ];
  const compiled = schemas.map((schema) => compileSchema(schema));
  /** Any JSON value, sometimes wrapped deeper than any validator's stack holds. */
  const values = fc.tuple(fc.jsonValue(), fc.oneof(fc.constant(0), fc.nat({ max: 30_000 }))).map(([value, depth]) => {
    let v: unknown = value;
    for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { type: 'node', children: v };
    return v;
  });

  fcTest.prop([values], { numRuns })('returns a well-formed result for every schema', (value) => {
    for (const c of compiled) {
      const result = c.validate(value);
      if (!result.valid) {
        expect(result.errors.length).toBeGreaterThan(0);
        expect(typeof result.message).toBe('string');
      }
    }
  });
});
