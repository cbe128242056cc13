/**
 * Standard Schemas whose `validate` misbehaves: it throws (a zod refinement that throws, which
 * zod turns into a Promise), returns something that is not a result (`undefined`,
 * `{ issues: "x" }`, an issue that is `null`), or rejects without an issue (`{ issues: [] }`).
 * Each is a `schema` diagnostic naming the vendor and what it threw or returned, in every
 * engine and under any chunking; a Promise from a real async refinement is still SCHEMA_ASYNC;
 * what can be seen at construction is a configuration error then.
 */

import { fc, test } from '@fast-check/vitest';
import { ConfigurationError, ConfigurationErrorCode, createJsonlDecoder, type StandardSchemaV1 } from '@llmjson/core';
import { compileStandardSchema } from '@llmjson/core/internal';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { numRuns } from '../../../test/support/chunking.js';
import { ENGINES, engineText, expectStatsAddUp, runEngine } from '../../../test/support/every-engine.js';

function standard(validate: (value: unknown) => unknown, vendor = 'acme'): StandardSchemaV1 {
  return { '~standard': { version: 1, vendor, validate: validate as StandardSchemaV1['~standard']['validate'] } };
}

const cases: readonly (readonly [name: string, schema: StandardSchemaV1, says: RegExp])[] = [
  [
    'a zod refine that throws',
    z.object({ id: z.string() }).refine(() => {
      throw new Error('refine exploded');
    }),
    /^the zod schema's validate threw Error: refine exploded; .*fix the schema/,
  ],
  ['validate returns undefined', standard(() => undefined), /^the acme schema's validate returned undefined; /],
  [
    'validate returns { issues: "x" }',
    standard(() => ({ issues: 'x' })),
    /^the acme schema's validate returned issues that are the string "x", not a list; /,
  ],
  [
    'validate returns an issue that is null',
    standard(() => ({ issues: [null] })),
    /^the acme schema's validate returned issue 0 as null; /,
  ],
  [
    'validate returns { issues: [] }',
    standard(() => ({ issues: [] })),
    /^the acme schema's validate returned an empty list of issues \(it rejected the value without saying why\); /,
  ],
  [
    'validate throws a TypeError',
    standard(() => {
      throw new TypeError('vendor bug');
    }),
    /^the acme schema's validate threw TypeError: vendor bug; /,
  ],
  [
    'validate throws a string',
    standard(() => {
      throw 'plain string';
    }),
    /^the acme schema's validate threw the string "plain string"; /,
  ],
];

const json = '{"id": "a"}';

describe.each(cases)('%s', (_, schema, says) => {
  test('the compiled validator: one standard-validate error, the message names the vendor and what it did', () => {
    const result = compileStandardSchema(schema).validate({ id: 'a' });
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.message).toMatch(says);
    expect(result.errors).toEqual([
      expect.objectContaining({ path: '', keyword: 'standard-validate', message: result.message }),
    ]);
  });

  test.each(ENGINES)('%s: a schema diagnostic, no value, at every chunk size 1..64', (engine) => {
    const text = engineText(engine, json);
    const whole = runEngine(engine, schema, json);
    expect(whole.values).toEqual([]);
    const schemaDiagnostics = whole.diagnostics.filter((d) => d.reason === 'schema');
    expect(schemaDiagnostics).toHaveLength(1);
    expect(schemaDiagnostics[0]?.message).toMatch(new RegExp(says.source.replace(/^\^/, '')));
    expectStatsAddUp(engine, whole);
    for (let size = 1; size <= 64; size++) {
      const points = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => i * size);
      const run = runEngine(engine, schema, json, points);
      expect(run.diagnostics, `size ${size}`).toEqual(whole.diagnostics);
      expect(run.values, `size ${size}`).toEqual(whole.values);
    }
  });
});

describe('a Promise stays the async configuration error, distinct from a throw', () => {
  test('a zod async refine: SCHEMA_ASYNC from the first value', () => {
    const schema = z.object({ id: z.string() }).refine(async () => true);
    const decoder = createJsonlDecoder({ schema }, { value() {}, diagnostic() {} });
    expect(() => decoder.write('{"id": "a"}\n')).toThrow(
      expect.objectContaining({ code: ConfigurationErrorCode.schemaAsync }),
    );
  });

  test('a zod async refine that rejects the value is still async; a throwing one is not', () => {
    const asyncSchema = z.string().refine(async () => false);
    expect(() => compileStandardSchema(asyncSchema).validate('a')).toThrow(ConfigurationError);
    const throwing = z.string().refine(() => {
      throw new RangeError('now');
    });
    const result = compileStandardSchema(throwing).validate('a');
    expect(result).toMatchObject({ valid: false, message: expect.stringMatching(/threw RangeError: now/) });
  });
});

describe('what can be seen at construction is a configuration error then', () => {
  test.each([
    ['no validate function', { '~standard': { version: 1, vendor: 'acme' } }],
    ['validate is not a function', { '~standard': { version: 1, vendor: 'acme', validate: 'x' } }],
    ['version 2', { '~standard': { version: 2, vendor: 'acme', validate: () => ({ value: 1 }) } }],
    [
      '~standard whose properties throw when read',
      {
        '~standard': {
          get version(): number {
            throw new Error('no version');
          },
        },
      },
    ],
  ])('%s', (_, schema) => {
    let thrown: unknown;
    try {
      createJsonlDecoder({ schema: schema as StandardSchemaV1 }, { value() {}, diagnostic() {} });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).code).toBe(ConfigurationErrorCode.schemaInvalid);
    expect((thrown as Error).message).toMatch(/^unsupported Standard Schema: /);
  });
});

test.prop([fc.constantFrom(...cases), fc.constantFrom(...ENGINES), fc.array(fc.nat(40), { maxLength: 12 })], {
  numRuns,
})(
  'under arbitrary split points: the same diagnostics as whole, and the stats add up',
  ([, schema], engine, points) => {
    const whole = runEngine(engine, schema, json);
    const run = runEngine(engine, schema, json, points);
    expect(run.diagnostics).toEqual(whole.diagnostics);
    expect(run.values).toEqual([]);
    expectStatsAddUp(engine, run);
  },
);
