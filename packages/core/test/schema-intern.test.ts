/**
 * The schema cache (schema-intern.ts) and compileSchema on top of it: a schema is compiled once
 * per content, whatever object carries it; the representative is private and frozen; the cache
 * is bounded by `schemaCache.limit`, and memory with it; key order keeps contents apart; what
 * JSON would change is not interned. Memory is measured with `global.gc` obtained through
 * `--expose-gc` set at run time (v8.setFlagsFromString), so the test needs no runner flags.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  ConfigurationError,
  ConfigurationErrorCode,
  type JsonSchema,
  SCHEMA_CACHE_LIMIT,
  schemaCache,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { internSchema } from '@llmjson/core/internal';
import { afterEach, describe, expect, test } from 'vitest';
import { thrownBy } from '../../../test/support/thrown.js';

const EVENTS_TEXT = JSON.stringify({
  oneOf: [
    {
      type: 'object',
      properties: { type: { const: 'definition' }, entity: { type: 'string' }, definition: { type: 'string' } },
      required: ['type', 'entity', 'definition'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { type: { const: 'relationship' }, subject: { type: 'string' }, object: { type: 'string' } },
      required: ['type', 'subject', 'object'],
      additionalProperties: false,
    },
  ],
});

const PERSON: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, age: { type: 'integer', minimum: 0 } },
  required: ['name'],
};

/** `global.gc`, exposed at run time: the flag only has to be set before a new context asks for it. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function heapAfterCollection(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A small schema of its own content for each `i`. */
const distinct = (i: number): Readonly<Record<string, unknown>> => ({
  type: 'object',
  properties: { [`k${i}`]: { type: 'string', maxLength: i + 1 } },
  required: [`k${i}`],
});

/** A schema of its own content for each `i`, about 400 characters of JSON. */
const described = (i: number): JsonSchema => ({
  description: `${'a field the model fills in; '.repeat(10)}${i}`,
  ...distinct(i),
});

afterEach(() => {
  schemaCache.limit = SCHEMA_CACHE_LIMIT;
});

describe('compileSchema: once per content', () => {
  test('a new object with the same content (parsed again, spread) gets the same compiled validator', () => {
    const first = compileSchema(JSON.parse(EVENTS_TEXT) as JsonSchema);
    expect(compileSchema(JSON.parse(EVENTS_TEXT) as JsonSchema)).toBe(first);
    const base = JSON.parse(EVENTS_TEXT) as Record<string, unknown>;
    expect(compileSchema({ ...base })).toBe(first);
    expect(first.discriminator).toBe('type');
    // Per discriminator choice as before: the same content with another choice compiles apart.
    const whole = compileSchema(JSON.parse(EVENTS_TEXT) as JsonSchema, { discriminator: false });
    expect(whole).not.toBe(first);
    expect(compileSchema(JSON.parse(EVENTS_TEXT) as JsonSchema, { discriminator: false })).toBe(whole);
  });

  test('the same object keeps its validator, and an equal copy validates identically', () => {
    const schema = { ...PERSON };
    const compiled = compileSchema(schema);
    expect(compileSchema(schema)).toBe(compiled);
    const copy = structuredClone(PERSON);
    for (const value of [{ name: 'Ada' }, { name: '' }, { age: -1 }, { name: 'x', age: 1.5 }, 'no']) {
      expect(compileSchema(copy).validate(value)).toEqual(compiled.validate(value));
    }
  });

  test('a schema changed by its owner after use changes nothing for an equal-content schema', () => {
    const owned = structuredClone(PERSON) as { properties: { name: { type: string } } };
    const compiled = compileSchema(owned as JsonSchema);
    expect(compiled.validate({ name: 'Ada' }).valid).toBe(true);
    owned.properties.name.type = 'number';
    // Another caller with the original content gets the original validator, not the mutation.
    const other = compileSchema(structuredClone(PERSON));
    expect(other).toBe(compiled);
    expect(other.validate({ name: 'Ada' }).valid).toBe(true);
    expect(other.validate({ name: 3 }).valid).toBe(false);
    // The representative is a frozen copy no caller holds.
    const representative = internSchema(structuredClone(PERSON)) as Record<string, unknown>;
    expect(representative).not.toBe(owned);
    expect(Object.isFrozen(representative)).toBe(true);
    expect(Object.isFrozen(representative.properties)).toBe(true);
    expect(Object.isFrozen(owned)).toBe(false);
    // A new object with the changed content is a new content, compiled on its own.
    const changed = compileSchema(structuredClone(owned) as JsonSchema);
    expect(changed).not.toBe(compiled);
    expect(changed.validate({ name: 3 }).valid).toBe(true);
  });

  test('two schemas that differ only in key order are cached apart: key order picks the dispatch property', () => {
    const branch = (a: string, b: number, aFirst: boolean) => {
      const properties = aFirst ? { a: { const: a }, b: { const: b } } : { b: { const: b }, a: { const: a } };
      return { type: 'object', properties, required: ['a', 'b'] };
    };
    const aFirst = { oneOf: [branch('x', 1, true), branch('y', 2, true)] };
    const bFirst = { oneOf: [branch('x', 1, false), branch('y', 2, false)] };
    const onA = compileSchema(aFirst);
    const onB = compileSchema(bFirst);
    expect(onB).not.toBe(onA);
    expect(onA.discriminator).toBe('a');
    expect(onB.discriminator).toBe('b');
    expect(internSchema(structuredClone(aFirst))).not.toBe(internSchema(structuredClone(bFirst)));
  });
});

describe('internSchema', () => {
  test('one frozen representative per content; own __proto__ keys survive as data', () => {
    const text = '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}';
    const representative = internSchema(JSON.parse(text) as JsonSchema) as Record<string, Record<string, unknown>>;
    expect(internSchema(JSON.parse(text) as JsonSchema)).toBe(representative);
    expect(internSchema(representative as JsonSchema)).toBe(representative);
    const properties = representative.properties as Record<string, unknown>;
    expect(Object.hasOwn(properties, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(JSON.stringify(representative)).toBe(text);
    // Compiled from the representative or from the object itself, the validator is the same.
    const cached = compileSchema(JSON.parse(text) as JsonSchema);
    schemaCache.limit = 0;
    const own = compileSchema(JSON.parse(text) as JsonSchema);
    expect(own).not.toBe(cached);
    for (const value of ['{"__proto__":"x"}', '{"__proto__":1}', '{}', '{"a":1}']) {
      expect(cached.validate(JSON.parse(value))).toEqual(own.validate(JSON.parse(value)));
    }
  });

  test('what JSON would change is not interned: the object is its own representative', () => {
    const holey: unknown[] = [1];
    holey[2] = 2;
    const lossy: Record<string, unknown>[] = [
      { type: 'number', maximum: Number.POSITIVE_INFINITY },
      { type: 'object', properties: { a: undefined } },
      { enum: holey },
      { const: new Date(0) },
      { const: new Map([[1, 2]]) },
      { type: 'string', description: Object('boxed') },
      { type: 'object', toJSON: () => ({}) },
      { type: 'integer', maximum: 10n },
    ];
    for (const schema of lossy) {
      const twin = { ...schema };
      expect(internSchema(schema as JsonSchema)).toBe(schema);
      expect(internSchema(twin as JsonSchema)).toBe(twin);
      expect(Object.isFrozen(schema)).toBe(false);
    }
    const cycle: Record<string, unknown> = { type: 'object' };
    cycle.self = cycle;
    expect(internSchema(cycle as JsonSchema)).toBe(cycle);
    // A maximum of Infinity still means "no bound", not `null` (which ajv would reject).
    expect(compileSchema({ type: 'number', maximum: Number.POSITIVE_INFINITY }).validate(1e300).valid).toBe(true);
  });

  test('a schema deeper than JSON.stringify can write is its own representative', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100_000; i++) deep = { items: deep };
    expect(internSchema(deep as JsonSchema)).toBe(deep);
  });

  test('schemaCache.limit = 0 turns content lookup off; invalid limits are configuration errors', () => {
    schemaCache.clear();
    schemaCache.limit = 0;
    const one = structuredClone(PERSON);
    const two = structuredClone(PERSON);
    expect(internSchema(one)).toBe(one);
    expect(internSchema(two)).toBe(two);
    expect(schemaCache.size).toBe(0);
    expect(compileSchema(one)).toBe(compileSchema(one));
    expect(compileSchema(two)).not.toBe(compileSchema(one));
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10' as unknown as number]) {
      const error = thrownBy(ConfigurationError, () => {
        schemaCache.limit = bad;
      });
      expect(error.code).toBe(ConfigurationErrorCode.optionInvalid);
      expect(error.message).toMatch(/schemaCache\.limit must be a non-negative integer/);
    }
    expect(schemaCache.limit).toBe(0);
  });

  test('least recently used out first; a use through the same object counts as a use', () => {
    schemaCache.clear();
    schemaCache.limit = 3;
    const hot = distinct(-1);
    const representative = internSchema(hot);
    for (let i = 0; i < 10; i++) {
      internSchema(distinct(i));
      expect(internSchema(hot)).toBe(representative);
      expect(schemaCache.size).toBeLessThanOrEqual(3);
    }
    // Still cached by content: a new equal object finds the same representative.
    expect(internSchema(distinct(-1))).toBe(representative);
    // Past the limit, a content goes out: a new object with it gets a new representative.
    const evicted = internSchema(distinct(9));
    schemaCache.limit = 1;
    expect(schemaCache.size).toBe(1);
    internSchema(distinct(100));
    expect(internSchema(distinct(9))).not.toBe(evicted);
  });
});

describe('schemaCache bounds memory', () => {
  // The cache layer is measured with internSchema over 100 000 distinct schemas (about 10 µs
  // each); compileSchema, which builds an ajv instance per content (5 to 15 ms, about 30 KB
  // held), over 300 distinct schemas with a limit of 20, against 100 held without a bound.
  test('100 000 distinct schemas: size never exceeds the limit, and the heap holds about the limit', () => {
    const gc = collector();
    schemaCache.clear();
    schemaCache.limit = 1000;
    const before = heapAfterCollection(gc);
    let largest = 0;
    for (let i = 0; i < 100_000; i++) {
      internSchema(described(i));
      largest = Math.max(largest, schemaCache.size);
    }
    expect(largest).toBe(1000);
    const bounded = heapAfterCollection(gc) - before;

    // The same 100 000 without the bound hold every representative and key.
    schemaCache.clear();
    schemaCache.limit = 1_000_000;
    const start = heapAfterCollection(gc);
    for (let i = 100_000; i < 200_000; i++) internSchema(described(i));
    expect(schemaCache.size).toBe(100_000);
    const unbounded = heapAfterCollection(gc) - start;
    schemaCache.clear();

    // About 1 KB a content (its text and its copy): 100 000 of them, 100 MB; the limit's 1 000,
    // 1 MB, plus the weak tables' room for the objects seen, which the collector shrinks lazily.
    expect(unbounded).toBeGreaterThan(50_000_000);
    expect(bounded).toBeLessThan(unbounded / 5);
  });

  test('distinct schemas through compileSchema: the heap holds about the limit, not every validator', () => {
    const gc = collector();
    // What one compiled validator holds (an ajv instance per content): 100 with no bound.
    schemaCache.clear();
    schemaCache.limit = 1000;
    const start = heapAfterCollection(gc);
    for (let i = 0; i < 100; i++) compileSchema(distinct(1_000_000 + i));
    const perValidator = (heapAfterCollection(gc) - start) / 100;
    schemaCache.clear();

    schemaCache.limit = 20;
    const before = heapAfterCollection(gc);
    for (let i = 0; i < 300; i++) {
      expect(compileSchema(distinct(i)).validate({ [`k${i}`]: 'v' }).valid).toBe(true);
      expect(schemaCache.size).toBeLessThanOrEqual(20);
    }
    const held = heapAfterCollection(gc) - before;
    expect(perValidator).toBeGreaterThan(5_000);
    // 300 validators held would be 300 × perValidator; 20 and ajv's shared code are far fewer.
    expect(held).toBeLessThan(100 * perValidator);
  });
});
