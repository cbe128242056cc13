import type { CoercionRule } from '@llmjson/core';
import {
  COERCION_RULES,
  type CompiledSchema,
  ConfigurationError,
  type Diagnostic,
  extractAllJson,
  extractElements,
  extractJson,
  type JsonlOptions,
  type JsonSchema,
  parseJsonl,
  type StandardSchemaV1,
  withCoercion,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { coerceToSchema, coercionRules } from '@llmjson/core/internal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { numRuns } from '../../../test/support/chunking.js';
import { decodeEverySplit } from '../../../test/support/collect.js';
import { definitionRelationshipZod } from '../../../test/support/standard-schemas.js';

const person = {
  type: 'object',
  required: ['name', 'age'],
  properties: {
    name: { type: 'string' },
    age: { type: 'integer' },
    score: { type: 'number' },
    active: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    ids: { type: 'array', items: { type: 'integer' } },
    color: { enum: ['red', 'green', 'Blue'] },
    kind: { const: 'person' },
    nickname: { type: 'string' },
  },
  additionalProperties: false,
} as const;

/** Decodes `lines` (one JSON text each) whole and at every chunk size; returns values and diagnostics. */
function run(lines: readonly string[], options: JsonlOptions = {}) {
  const r = decodeEverySplit(`${lines.join('\n')}\n`, {
    schema: person,
    compileJsonSchema: compileSchema,
    coerceWith: withCoercion,
    coerce: true,
    ...options,
  });
  return { values: r.values, diagnostics: r.diagnostics, stats: r.stats };
}

const all = coercionRules(true) as ReadonlySet<CoercionRule>;

const fixes = (diagnostics: readonly Diagnostic[]) =>
  diagnostics.filter((d) => d.reason === 'recovered').map((d) => [d.rule, d.path, d.message]);

describe('the coerce option', () => {
  test('true, false, [] and lists of known coercions are accepted', () => {
    expect(coercionRules(undefined)).toBeUndefined();
    expect(coercionRules(false)).toBeUndefined();
    expect(coercionRules([])).toBeUndefined();
    expect([...(coercionRules(true) ?? [])]).toEqual(COERCION_RULES);
    expect([...(coercionRules(['enum-case', 'default']) ?? [])]).toEqual(['enum-case', 'default']);
  });

  test.each([['yes'], [1], [['string-to-number', 'nope']], [[3]], [null], [{}]])(
    'anything else is OPTION_INVALID naming the allowed coercions: %j',
    (coerce) => {
      const make = () =>
        parseJsonl('', {
          schema: person,
          compileJsonSchema: compileSchema,
          coerceWith: withCoercion,
          coerce: coerce as never,
        });
      expect(make).toThrow(ConfigurationError);
      expect(make).toThrow(
        /coerce must be true, false or a list of coercions \('string-to-number', .*'null-to-absent'\)/,
      );
      try {
        make();
      } catch (error) {
        expect((error as ConfigurationError).code).toBe('OPTION_INVALID');
      }
    },
  );

  test('coerce without a schema is OPTION_INVALID; coerce: false without one is fine', () => {
    expect(() => parseJsonl('1\n', { coerceWith: withCoercion, coerce: true })).toThrow(/coerce needs a schema/);
    expect(parseJsonl('1\n', { coerceWith: withCoercion, coerce: false }).values).toEqual([1]);
  });

  test('core does not bundle the coercion: coerce without coerceWith is NO_COERCER naming the fix', () => {
    const options = { schema: person, compileJsonSchema: compileSchema, coerce: true } as const;
    let thrown: unknown;
    try {
      parseJsonl('{"name":"a","age":"42"}\n', options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).code).toBe('NO_COERCER');
    expect((thrown as Error).message).toContain('coerceWith: withCoercion');
    // Without coerce, coerceWith is not needed; with it, the same line is repaired.
    expect(parseJsonl('{"name":"a","age":42}\n', { ...options, coerce: false }).values).toHaveLength(1);
    expect(parseJsonl('{"name":"a","age":"42"}\n', { ...options, coerceWith: withCoercion }).values).toEqual([
      { name: 'a', age: 42 },
    ]);
    // A coerceWith that is not a function is refused when the decoder is made, coerce or not.
    expect(() => parseJsonl('', { coerceWith: 'yes' as never })).toThrow(/coerceWith must be a function/);
  });

  test('a Standard Schema without a JSON Schema export cannot guide coercion', () => {
    const opaque: StandardSchemaV1 = {
      '~standard': { version: 1, vendor: 'opaque', validate: (value) => ({ value }) },
    };
    expect(() => parseJsonl('1\n', { schema: opaque, coerceWith: withCoercion, coerce: true })).toThrow(/exports none/);
    expect(parseJsonl('1\n', { schema: opaque }).values).toEqual([1]);
  });
});

describe('each coercion, one line at a time, at every chunk size', () => {
  test('string-to-number: a string that is exactly a JSON number', () => {
    const r = run(['{"name":"a","age":"42","score":"-1.5e3"}']);
    expect(r.values).toEqual([{ name: 'a', age: 42, score: -1500 }]);
    expect(fixes(r.diagnostics)).toEqual([
      ['string-to-number', '/age', 'coerced "42" to 42 at /age (string-to-number)'],
      ['string-to-number', '/score', 'coerced "-1.5e3" to -1500 at /score (string-to-number)'],
    ]);
    expect(r.stats.diagnostics).toEqual({ recovered: 2 });
    expect(r.diagnostics[0]).toMatchObject({ reason: 'recovered', line: 1, offset: 0 });
  });

  test.each([' 42', '42 ', '+42', '0x2a', 'NaN', 'Infinity', '1e999', '042', '4 2', ''])(
    'string-to-number refuses %j (not exactly a finite JSON number)',
    (text) => {
      const r = run([JSON.stringify({ name: 'a', age: text })]);
      expect(r.values).toEqual([]);
      expect(r.diagnostics.map((d) => d.reason)).toEqual(['schema']);
    },
  );

  test('string-to-boolean: exactly "true" or "false"', () => {
    const r = run(['{"name":"a","age":1,"active":"false"}', '{"name":"a","age":1,"active":"True"}']);
    expect(r.values).toEqual([{ name: 'a', age: 1, active: false }]);
    expect(fixes(r.diagnostics)).toEqual([
      ['string-to-boolean', '/active', 'coerced "false" to false at /active (string-to-boolean)'],
    ]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['recovered', 'schema']);
  });

  test('single-to-array: wrapped only when the value fits the items (after its own coercions)', () => {
    const r = run([
      '{"name":"a","age":1,"tags":"x"}',
      '{"name":"a","age":1,"ids":"7"}',
      '{"name":"a","age":1,"tags":5}',
    ]);
    expect(r.values).toEqual([
      { name: 'a', age: 1, tags: ['x'] },
      { name: 'a', age: 1, ids: [7] },
    ]);
    expect(fixes(r.diagnostics)).toEqual([
      ['single-to-array', '/tags', 'wrapped "x" in an array at /tags (single-to-array)'],
      ['single-to-array', '/ids', 'wrapped "7" in an array at /ids (single-to-array)'],
      ['string-to-number', '/ids/0', 'coerced "7" to 7 at /ids/0 (string-to-number)'],
    ]);
    expect(r.diagnostics.at(-1)?.reason).toBe('schema');
  });

  test('enum-case: case and surrounding spaces, for enum and const, only with one match', () => {
    const r = run(['{"name":"a","age":1,"color":" RED ","kind":"Person"}', '{"name":"a","age":1,"color":"blue"}']);
    expect(r.values).toEqual([
      { name: 'a', age: 1, color: 'red', kind: 'person' },
      { name: 'a', age: 1, color: 'Blue' },
    ]);
    expect(fixes(r.diagnostics)).toEqual([
      ['enum-case', '/color', 'coerced " RED " to "red" at /color (enum-case)'],
      ['enum-case', '/kind', 'coerced "Person" to "person" at /kind (enum-case)'],
      ['enum-case', '/color', 'coerced "blue" to "Blue" at /color (enum-case)'],
    ]);
    const ambiguous = parseJsonl('"a "\n', {
      schema: { enum: ['a', 'A'] },
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
    });
    expect(ambiguous.values).toEqual([]);
    expect(ambiguous.diagnostics.map((d) => d.reason)).toEqual(['schema']);
  });

  test('float-to-integer: "5.0" for an integer needs it (and string-to-number); "5.5" never', () => {
    const lines = ['{"name":"a","age":"5.0"}', '{"name":"a","age":"5e1"}', '{"name":"a","age":"5.5"}'];
    const r = run(lines);
    expect(r.values).toEqual([
      { name: 'a', age: 5 },
      { name: 'a', age: 50 },
    ]);
    expect(fixes(r.diagnostics)).toEqual([
      ['float-to-integer', '/age', 'coerced "5.0" to the integer 5 at /age (float-to-integer)'],
      ['float-to-integer', '/age', 'coerced "5e1" to the integer 50 at /age (float-to-integer)'],
    ]);
    const numberOnly = run(lines, { coerceWith: withCoercion, coerce: ['string-to-number'] });
    expect(numberOnly.values).toEqual([]);
    // A number field takes "5.0" with string-to-number alone; a JSON 5.0 is already an integer.
    const score = run(['{"name":"a","age":5.0,"score":"5.0"}'], {
      coerceWith: withCoercion,
      coerce: ['string-to-number'],
    });
    expect(score.values).toEqual([{ name: 'a', age: 5, score: 5 }]);
    expect(fixes(score.diagnostics).map((f) => f[0])).toEqual(['string-to-number']);
  });

  test('default: a missing required property gets a copy of its default; optional ones are left', () => {
    const schema = {
      type: 'object',
      required: ['a', 'list'],
      properties: {
        a: { type: 'integer', default: 3 },
        list: { type: 'array', default: [] },
        b: { type: 'string', default: 'x' },
        c: { type: 'integer' },
      },
    } as const;
    const r = decodeEverySplit('{}\n{"c":"1"}\n{"a":1,"list":[]}\n', {
      schema,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
    });
    expect(r.values).toEqual([
      { a: 3, list: [] },
      { c: 1, a: 3, list: [] },
      { a: 1, list: [] },
    ]);
    expect(fixes(r.diagnostics)).toEqual([
      ['default', '/a', 'filled the missing required property with its default 3 at /a (default)'],
      ['default', '/list', 'filled the missing required property with its default [] at /list (default)'],
      ['string-to-number', '/c', 'coerced "1" to 1 at /c (string-to-number)'],
      ['default', '/a', 'filled the missing required property with its default 3 at /a (default)'],
      ['default', '/list', 'filled the missing required property with its default [] at /list (default)'],
    ]);
    // Each value gets its own copy of a container default.
    expect((r.values[0] as { list: unknown[] }).list).not.toBe((r.values[1] as { list: unknown[] }).list);
  });

  test('null-to-absent: null for an optional property that refuses null is removed', () => {
    const r = run(['{"name":"a","age":1,"nickname":null}', '{"name":null,"age":1}']);
    expect(r.values).toEqual([{ name: 'a', age: 1 }]);
    expect(fixes(r.diagnostics)).toEqual([
      ['null-to-absent', '/nickname', 'removed null from the optional property at /nickname (null-to-absent)'],
    ]);
    const nullable = {
      type: 'object',
      properties: { n: { type: ['string', 'null'] }, m: { type: 'integer' } },
    } as const;
    const kept = parseJsonl('{"n":null,"m":"2"}\n', {
      schema: nullable,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
    });
    expect(kept.values).toEqual([{ n: null, m: 2 }]);
  });
});

describe('rules', () => {
  test('without coerce nothing changes', () => {
    const r = run(['{"name":"a","age":"42"}'], { coerceWith: withCoercion, coerce: false });
    expect(r.values).toEqual([]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['schema']);
  });

  test('only the listed coercions apply', () => {
    const r = run(['{"name":"a","age":"42","active":"true"}', '{"name":"a","age":1,"active":"true"}'], {
      coerceWith: withCoercion,
      coerce: ['string-to-boolean'],
    });
    expect(r.values).toEqual([{ name: 'a', age: 1, active: true }]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['schema', 'recovered']);
  });

  test('a value still invalid after coercion is reported as before, with no recovered diagnostic', () => {
    const line = '{"name":3,"age":"42"}';
    const coerced = run([line]);
    const plain = run([line], { coerceWith: withCoercion, coerce: false });
    expect(coerced.values).toEqual([]);
    expect(coerced.diagnostics).toEqual(plain.diagnostics);
  });

  test('a valid value is never touched: a union type that allows the string keeps it', () => {
    const schema = { type: 'object', properties: { v: { type: ['string', 'number'] } } } as const;
    const compiled = compileSchema(schema);
    const wrapped = withCoercion(compiled, schema, all);
    const value = { v: '5' };
    expect(wrapped.validate(value)).toEqual({ valid: true });
    expect(
      parseJsonl('{"v":"5"}\n', { schema, compileJsonSchema: compileSchema, coerceWith: withCoercion, coerce: true })
        .values,
    ).toEqual([{ v: '5' }]);
  });

  test('the input is never mutated; unchanged subtrees are shared; __proto__ stays data', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { a: { type: 'number' }, keep: { type: 'object' } },
      additionalProperties: { type: 'object' },
    };
    const input = JSON.parse('{"a":"1","keep":{"x":[1]},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const snapshot = JSON.stringify(input);
    Object.freeze(input);
    const result = coerceToSchema(input, schema, all, compileSchema(schema));
    expect(JSON.stringify(input)).toBe(snapshot);
    const value = result?.value as Record<string, unknown>;
    expect(value.a).toBe(1);
    expect(value.keep).toBe(input.keep);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('deep values do not overflow the stack (parts past the depth bound are left alone)', () => {
    const schema = { type: 'array', items: { anyOf: [{ type: 'number' }, { $ref: '#' }] } } as const;
    let deep: unknown = '5';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const rejecting: CompiledSchema = { validate: () => ({ valid: false, errors: [], message: 'no' }) };
    expect(coerceToSchema(deep, schema, all, rejecting)).toBeUndefined();
    let shallow: unknown = '5';
    for (let i = 0; i < 10; i++) shallow = [shallow];
    const text = `${JSON.stringify(shallow)}\n`;
    const numbers = parseJsonl(text, {
      schema,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: ['string-to-number'],
    });
    expect(JSON.stringify(numbers.values)).toBe(`[${'['.repeat(10)}5${']'.repeat(10)}]`);
    expect(fixes(numbers.diagnostics)).toEqual([
      ['string-to-number', '/0/0/0/0/0/0/0/0/0/0', expect.stringContaining('in anyOf branch 0')],
    ]);
    // With single-to-array too, "5" could also become [5] (the other branch): ambiguous, so nothing.
    const both = parseJsonl(text, { schema, compileJsonSchema: compileSchema, coerceWith: withCoercion, coerce: true });
    expect(both.values).toEqual([]);
  });
});

describe('unions', () => {
  const tagged = {
    oneOf: [
      {
        type: 'object',
        required: ['type', 'n'],
        properties: { type: { const: 'count' }, n: { type: 'integer' } },
        additionalProperties: false,
      },
      {
        type: 'object',
        required: ['type', 'flag'],
        properties: { type: { const: 'switch' }, flag: { type: 'boolean' } },
        additionalProperties: false,
      },
    ],
  } as const;

  test('with a discriminator: coerced inside the named branch only', () => {
    const r = decodeEverySplit('{"type":"count","n":"3"}\n{"type":"switch","flag":"3"}\n', {
      schema: tagged,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
    });
    expect(r.records.map((x) => [x.value, x.branch])).toEqual([[{ type: 'count', n: 3 }, 'count']]);
    expect(r.diagnostics.map((d) => [d.reason, d.branch, d.rule])).toEqual([
      ['recovered', 'count', 'string-to-number'],
      ['schema', 'switch', undefined],
    ]);
  });

  test('a discriminator repaired by enum-case says which branch it chose', () => {
    const r = decodeEverySplit('{"type":" Switch","flag":"true"}\n', {
      schema: tagged,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
    });
    expect(r.records.map((x) => [x.value, x.branch])).toEqual([[{ type: 'switch', flag: true }, 'switch']]);
    expect(fixes(r.diagnostics)).toEqual([
      ['enum-case', '/type', 'coerced " Switch" to "switch" at /type (enum-case): chose branch "switch"'],
      ['string-to-boolean', '/flag', 'coerced "true" to true at /flag (string-to-boolean)'],
    ]);
  });

  test('without a discriminator: the one branch that becomes valid is chosen and named', () => {
    const schema = {
      anyOf: [
        { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
        { type: 'object', required: ['n'], properties: { n: { type: 'boolean' } } },
      ],
    } as const;
    const r = decodeEverySplit('{"n":"1"}\n{"n":"false"}\n', {
      schema,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
    });
    expect(r.values).toEqual([{ n: 1 }, { n: false }]);
    expect(fixes(r.diagnostics)).toEqual([
      ['string-to-number', '/n', 'coerced "1" to 1 at /n (string-to-number) in anyOf branch 0'],
      ['string-to-boolean', '/n', 'coerced "false" to false at /n (string-to-boolean) in anyOf branch 1'],
    ]);
  });

  test('ambiguous: two branches that both become valid, so nothing is coerced', () => {
    const schema = {
      oneOf: [
        { type: 'object', required: ['n'], properties: { n: { type: 'number' }, a: { const: 1 } } },
        { type: 'object', required: ['n'], properties: { n: { type: 'integer' }, b: { const: 1 } } },
      ],
    } as const;
    const nested = {
      type: 'object',
      properties: { v: { anyOf: [{ type: 'number' }, { type: 'integer', minimum: 0 }] } },
    } as const;
    const any = { anyOf: schema.oneOf };
    for (const s of [schema, any, nested]) {
      const line = s === nested ? '{"v":"1"}\n' : '{"n":"1"}\n';
      const r = decodeEverySplit(line, {
        schema: s,
        compileJsonSchema: compileSchema,
        coerceWith: withCoercion,
        coerce: true,
      });
      expect(r.values).toEqual([]);
      expect(r.diagnostics.map((d) => d.reason)).toEqual(['schema']);
    }
  });

  test('a union inside the value: the branch is chosen by what can be valid, and named', () => {
    const schema = {
      type: 'object',
      properties: { v: { oneOf: [{ type: 'number' }, { type: 'boolean' }] } },
    } as const;
    const r = decodeEverySplit('{"v":"true"}\n{"v":"2"}\n{"v":"x"}\n', {
      schema,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
    });
    expect(r.values).toEqual([{ v: true }, { v: 2 }]);
    expect(fixes(r.diagnostics).map((f) => f[2])).toEqual([
      'coerced "true" to true at /v (string-to-boolean) in oneOf branch 1',
      'coerced "2" to 2 at /v (string-to-number) in oneOf branch 0',
    ]);
  });
});

describe('every engine that validates', () => {
  const schema = {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'integer' }, ok: { type: 'boolean' } },
  } as const;

  test('extractAllJson and extractJson deliver the coerced value after its fixes', () => {
    const text = 'Answer: {"id":"7","ok":"true"} and `{"id":"x"}`';
    const second = text.indexOf('{"id":"x"}');
    const diagnostics: Diagnostic[] = [];
    const all = extractAllJson(text, {
      schema,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
      onDiagnostic: (d) => diagnostics.push(d),
    });
    expect(all.map((v) => [v.value, v.source, v.start])).toEqual([[{ id: 7, ok: true }, 'embedded', 8]]);
    expect(diagnostics.map((d) => [d.reason, d.rule, d.path, d.offset])).toEqual([
      ['recovered', 'string-to-number', '/id', 8],
      ['recovered', 'string-to-boolean', '/ok', 8],
      ['schema', undefined, undefined, second],
    ]);
    expect(
      extractJson(text, { schema, compileJsonSchema: compileSchema, coerceWith: withCoercion, coerce: true })?.value,
    ).toEqual({
      id: 7,
      ok: true,
    });
    expect(extractJson(text, { schema, compileJsonSchema: compileSchema })).toBeUndefined();
  });

  test('extractJson with repair coerces the repaired value too, and reports both', () => {
    const diagnostics: Diagnostic[] = [];
    const found = extractJson("{'id': '7'}", {
      schema,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: true,
      repair: true,
      onDiagnostic: (d) => diagnostics.push(d),
    });
    expect(found).toMatchObject({ value: { id: 7 }, repaired: true });
    expect(diagnostics.filter((d) => d.reason === 'recovered').map((d) => d.rule ?? 'repair')).toEqual([
      'repair',
      'string-to-number',
    ]);
  });

  test('extractElements coerces each element; paths are inside the element', () => {
    const doc = { type: 'object', properties: { items: { type: 'array', items: schema } } } as const;
    const r = extractElements('{"items":[{"id":"1"},{"id":2},{"id":"z"}]}', {
      path: '$.items',
      schema: doc,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: ['string-to-number'],
    });
    expect(r.records.map((x) => [x.value, x.index])).toEqual([
      [{ id: 1 }, 0],
      [{ id: 2 }, 1],
    ]);
    expect(r.diagnostics.map((d) => [d.reason, d.path, d.offset, d.message])).toEqual([
      ['recovered', '/id', 10, 'element 0: coerced "1" to 1 at /id (string-to-number)'],
      ['schema', undefined, 30, expect.stringMatching(/^element 2: /)],
    ]);
  });
});

describe('zod 4', () => {
  test('number, boolean and enum coercions guided by the JSON Schema export, validated by zod', () => {
    const schema = z.object({ n: z.number(), i: z.int(), ok: z.boolean(), color: z.enum(['red', 'green']) });
    const r = decodeEverySplit(
      '{"n":"1.5","i":"2","ok":"false","color":"GREEN"}\n{"n":1,"i":"2.5","ok":true,"color":"red"}\n',
      {
        schema,
        coerceWith: withCoercion,
        coerce: true,
      },
    );
    expect(r.values).toEqual([{ n: 1.5, i: 2, ok: false, color: 'green' }]);
    expect(fixes(r.diagnostics).map((f) => [f[0], f[1]])).toEqual([
      ['string-to-number', '/n'],
      ['string-to-number', '/i'],
      ['string-to-boolean', '/ok'],
      ['enum-case', '/color'],
    ]);
    expect(r.diagnostics.at(-1)?.reason).toBe('schema');
  });

  test('a zod discriminated union: the discriminator repaired by enum-case names its branch', () => {
    const r = decodeEverySplit('{"type":"Definition","entity":"a","definition":"b"}\n', {
      schema: definitionRelationshipZod,
      coerceWith: withCoercion,
      coerce: ['enum-case'],
    });
    expect(r.records.map((x) => [x.value, x.branch])).toEqual([
      [{ type: 'definition', entity: 'a', definition: 'b' }, 'definition'],
    ]);
    expect(fixes(r.diagnostics).map((f) => f[2])).toEqual([
      'coerced "Definition" to "definition" at /type (enum-case): chose branch "definition"',
    ]);
  });
});

describe('properties', () => {
  const schema = {
    type: 'object',
    required: ['id'],
    properties: {
      id: { type: 'integer', default: 0 },
      ok: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      color: { enum: ['red', 'green', 'Red'] },
      note: { type: 'string' },
    },
    additionalProperties: false,
  } as const;
  const compiled = compileSchema(schema);
  const wrapped = withCoercion(compiled, schema, all);
  const part = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('1', '5.0', ' 2', '1e999', 'true', 'false', 'True', 'red', ' GREEN', 'RED', 'x', ''),
    fc.array(fc.constantFrom('a', 1, '2')),
  );
  const value = fc.record({ id: part, ok: part, tags: part, color: part, note: part }, { requiredKeys: [] });

  test('a valid value is never touched; a coerced value is valid to the real validator; the input never changes', () => {
    fc.assert(
      fc.property(value, (v) => {
        const before = JSON.stringify(v);
        const plain = compiled.validate(v);
        const result = wrapped.validate(v);
        expect(JSON.stringify(v)).toBe(before);
        if (plain.valid) {
          expect(result).toEqual(plain);
          return;
        }
        if (!result.valid) {
          // The validator's verdict, with any refusal (a lossy number) appended to the message.
          expect({ ...result, message: plain.message }).toEqual(plain);
          expect(result.message.startsWith(plain.message)).toBe(true);
          return;
        }
        expect(result.fixes?.length).toBeGreaterThan(0);
        expect(compiled.validate(result.value).valid).toBe(true);
        for (const fix of result.fixes ?? []) expect(fix.message).toContain(`(${fix.rule})`);
      }),
      { numRuns: numRuns * 5 },
    );
  });
});
