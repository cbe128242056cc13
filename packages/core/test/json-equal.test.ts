/**
 * enum, const and uniqueItems compare JSON values by their own keys (json-equal.ts): keys named
 * after Object.prototype's members (`toString`, `valueOf`, `constructor`, `__proto__`) are data,
 * in compiled validators, through the engines and in standalone modules.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fc, test as fcTest } from '@fast-check/vitest';
import type { JsonSchema, StandardSchemaV1 } from '@llmjson/core';
import { compileSchema, compileStandaloneModule, jsonEqual } from '@llmjson/core/ajv';
import { afterAll, describe, expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';
import { decodeEverySplit } from '../../../test/support/collect.js';

const TMP = fileURLToPath(new URL(`./.tmp-json-equal-${process.pid}/`, import.meta.url));
mkdirSync(TMP, { recursive: true });
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const NAMES = ['toString', 'valueOf', 'constructor', 'hasOwnProperty', '__proto__', 'isPrototypeOf'];

/** JSON text of an object with one own key `name` (JSON.parse makes `__proto__` an own key too). */
const objectWith = (name: string, value: unknown) => `{${JSON.stringify(name)}:${JSON.stringify(value)}}`;

/** Same JSON value: keys in any order, compared by their canonical text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('jsonEqual', () => {
  fcTest.prop([fc.jsonValue(), fc.jsonValue()], { numRuns })('agrees with canonical JSON text', (a, b) => {
    expect(jsonEqual(a, b)).toBe(canonical(a) === canonical(b));
    expect(jsonEqual(a, structuredClone(a))).toBe(true);
  });

  test.each(NAMES)('an own key %s is data: equal to itself written twice, unequal to other values', (name) => {
    const a = JSON.parse(objectWith(name, 1)) as unknown;
    expect(jsonEqual(a, JSON.parse(objectWith(name, 1)))).toBe(true);
    expect(jsonEqual(a, JSON.parse(objectWith(name, 2)))).toBe(false);
    expect(jsonEqual(a, {})).toBe(false);
    expect(jsonEqual({}, a)).toBe(false);
    expect(jsonEqual([a], [JSON.parse(objectWith(name, 1))])).toBe(true);
  });

  test('arrays and objects with the same entries are not equal; lengths and key counts matter', () => {
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ 0: 1, length: 1 }, [1])).toBe(false);
    expect(jsonEqual([1, 2], [1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(false);
  });
});

describe.each(NAMES)('a value with an own key %s', (name) => {
  const schemas: [string, JsonSchema, string, boolean][] = [
    ['enum of objects, the value absent', { enum: [1, { a: 1 }] }, objectWith(name, 1), false],
    ['enum of objects, the value present', { enum: [1, JSON.parse(objectWith(name, 1))] }, objectWith(name, 1), true],
    ['const, the value differs', { const: JSON.parse(objectWith(name, 2)) }, objectWith(name, 1), false],
    ['const, the same value', { const: JSON.parse(objectWith(name, 1)) }, objectWith(name, 1), true],
    [
      'uniqueItems, two equal items',
      { type: 'array', uniqueItems: true },
      `[${objectWith(name, 1)},${objectWith(name, 1)}]`,
      false,
    ],
    [
      'uniqueItems, two items',
      { type: 'array', uniqueItems: true },
      `[${objectWith(name, 1)},${objectWith(name, 2)}]`,
      true,
    ],
  ];

  test.each(schemas)('%s: compileSchema answers, never throws', (_label, schema, text, valid) => {
    const compiled = compileSchema(schema);
    expect(compiled.validate(JSON.parse(text)).valid).toBe(valid);
  });

  test.each(schemas)('%s: the JSONL decoder delivers or reports it, under every chunking', (_label, schema, text) => {
    const input = `${text}\n{"other": true}\n${text}\n`;
    const expected = compileSchema(schema).validate(JSON.parse(text)).valid;
    const result = decodeEverySplit(input, { schema, compileJsonSchema: compileSchema });
    const otherValid = compileSchema(schema).validate({ other: true }).valid;
    expect(result.values).toHaveLength((expected ? 2 : 0) + (otherValid ? 1 : 0));
    expect(result.diagnostics.map((d) => d.reason)).toEqual(
      [expected, otherValid, expected].flatMap((ok) => (ok ? [] : ['schema'])),
    );
  });

  test.each(schemas)('%s: a standalone module answers the same', async (_label, schema, text, valid) => {
    const file = join(TMP, `${NAMES.indexOf(name)}-${schemas.findIndex((s) => s[1] === schema)}.js`);
    writeFileSync(file, compileStandaloneModule(schema));
    const module = (await import(pathToFileURL(file).href)) as { default: StandardSchemaV1 };
    const result = module.default['~standard'].validate(JSON.parse(text)) as StandardSchemaV1.Result<unknown>;
    expect(result.issues === undefined).toBe(valid);
  });
});
