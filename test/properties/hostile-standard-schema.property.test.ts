/**
 * Hostile Standard Schemas: a `validate` that throws (Errors, values that are not Errors,
 * objects whose getters throw, proxies that throw on every trap) or returns malformed results
 * (`undefined`, `null`, strings, issues of every wrong shape, issues whose getters throw, huge
 * messages, thousands of issues), fed through the JSONL decoder, the element scanner, the
 * partial builder and the salvage scanner under arbitrary chunking. Nothing throws out of
 * `write`/`end` (but SCHEMA_ASYNC for a thenable, the documented configuration error); every
 * value is either emitted or has a `schema` diagnostic; the stats add up; every diagnostic has
 * the one shape and a bounded size.
 *
 * Runs: 300 per property on CI, 60 locally (HOSTILE_RUNS overrides).
 */
import { ConfigurationError, ConfigurationErrorCode, MAX_SCHEMA_ERRORS, type StandardSchemaV1 } from '@llmjson/core';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { ENGINES, type EngineName, engineText, expectStatsAddUp, runEngine } from '../support/every-engine.js';
import { hostileRuns } from '../support/hostile.js';

/** An object every read of which throws. */
const explosive = (): object =>
  new Proxy(
    {},
    {
      get() {
        throw new Error('get trap');
      },
      has() {
        throw new Error('has trap');
      },
      getPrototypeOf() {
        throw new Error('getPrototypeOf trap');
      },
      ownKeys() {
        throw new Error('ownKeys trap');
      },
    },
  );

/** An Error whose name and message throw when read. */
function errorWithThrowingGetters(): Error {
  const error = new Error('hidden');
  Object.defineProperty(error, 'name', {
    get() {
      throw new Error('name getter');
    },
  });
  Object.defineProperty(error, 'message', {
    get() {
      throw new Error('message getter');
    },
  });
  return error;
}

const hugeText = fc.integer({ min: 1000, max: 200_000 }).map((n) => 'm'.repeat(n));
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), hugeText);

/** What a hostile validate throws. */
const thrown: fc.Arbitrary<() => unknown> = fc.oneof(
  text.map((m) => () => new Error(m)),
  text.map((m) => () => new TypeError(m)),
  text.map((m) => () => m),
  fc.constantFrom(
    () => undefined,
    () => null,
    () => 42,
    () => Symbol('thrown'),
    () => 10n,
    () => ({ message: 'an object with a message' }),
    () => [1, 2, 3],
    explosive,
    errorWithThrowingGetters,
  ),
);

/** One issue, of any shape. */
const issue: fc.Arbitrary<() => unknown> = fc.oneof(
  text.map((message) => () => ({ message })),
  fc
    .tuple(text, fc.array(fc.oneof(fc.string(), fc.nat(), fc.record({ key: fc.string() })), { maxLength: 4 }))
    .map(([message, path]) => () => ({ message, path })),
  fc.constantFrom(
    () => null,
    () => undefined,
    () => 'a string issue',
    () => 7,
    () => ({}),
    () => ({ message: 5 }),
    () => ({ message: 'x', path: 'not a list' }),
    () => ({ message: 'x', path: [{}] }),
    () => ({ message: 'x', path: [{ key: {} }] }),
    () => ({ message: 'x', path: [null] }),
    () => ({ message: 'x', code: 12 }),
    () => ({
      get message(): string {
        throw new Error('message getter');
      },
    }),
    () => ({
      message: 'x',
      get path(): unknown {
        throw new Error('path getter');
      },
    }),
    explosive,
  ),
);

/** What a hostile validate returns. */
const returned: fc.Arbitrary<() => unknown> = fc.oneof(
  fc.constantFrom(
    () => undefined,
    () => null,
    () => 'a string',
    () => 0,
    () => true,
    () => ({}),
    () => ({ value: 1 }),
    () => ({ issues: 'x' }),
    () => ({ issues: null }),
    () => ({ issues: 3 }),
    () => ({ issues: {} }),
    () => ({ issues: [] }),
    () => ({ issues: Array.from({ length: 5000 }, (_, i) => ({ message: `issue ${i}`, path: [i] })) }),
    () => ({
      get issues(): unknown {
        throw new Error('issues getter');
      },
    }),
    explosive,
  ),
  fc.array(issue, { minLength: 1, maxLength: 6 }).map((issues) => () => ({ issues: issues.map((make) => make()) })),
);

/** A Standard Schema whose validate throws or returns one of the above (a thenable: SCHEMA_ASYNC). */
const hostileSchema: fc.Arbitrary<{ schema: StandardSchemaV1; thenable: boolean }> = fc
  .tuple(
    fc.oneof(
      thrown.map((make) => ({
        thenable: false,
        validate: () => {
          throw make();
        },
      })),
      returned.map((make) => ({ thenable: false, validate: make })),
      // biome-ignore lint/suspicious/noThenProperty: a thenable is the case under test.
      fc.constant({ thenable: true, validate: () => ({ then: () => undefined }) }),
    ),
    fc.oneof(fc.constantFrom('zod', 'acme', 'x'.repeat(5000)), fc.string({ maxLength: 20 })),
  )
  .map(([{ thenable, validate }, vendor]) => ({
    thenable,
    schema: { '~standard': { version: 1, vendor, validate } } as unknown as StandardSchemaV1,
  }));

/** Objects and arrays: what salvage looks for in prose (a bare string or number there is prose). */
const values = fc
  .oneof(
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })),
    fc.array(fc.jsonValue({ maxDepth: 1 })),
  )
  .map((v) => JSON.stringify(v));

test('hostile Standard Schemas: nothing throws, every value is emitted or reported, stats add up', () => {
  fc.assert(
    fc.property(
      hostileSchema,
      fc.constantFrom<EngineName>(...ENGINES),
      values,
      fc.array(fc.nat(200), { maxLength: 16 }),
      ({ schema, thenable }, engine, json, points) => {
        let run: ReturnType<typeof runEngine>;
        try {
          run = runEngine(
            engine,
            schema,
            json,
            points.filter((p) => p <= engineText(engine, json).length),
          );
        } catch (error) {
          // The one documented exception: a validate that answers with a thenable (async).
          expect(thenable).toBe(true);
          expect(error).toBeInstanceOf(ConfigurationError);
          expect((error as ConfigurationError).code).toBe(ConfigurationErrorCode.schemaAsync);
          return;
        }
        const schemaDiagnostics = run.diagnostics.filter((d) => d.reason === 'schema');
        expect(run.values.length + schemaDiagnostics.length).toBeGreaterThan(0);
        expectStatsAddUp(engine, run);
        for (const d of run.diagnostics) {
          expect(typeof d.offset).toBe('number');
          expect(typeof d.excerpt).toBe('string');
          expect(typeof d.message).toBe('string');
          expect(d.message).not.toBe('');
          expect(d.message.length).toBeLessThan(4000);
          expect((d.errors ?? []).length).toBeLessThanOrEqual(MAX_SCHEMA_ERRORS + 1);
          expect(JSON.stringify(d).length).toBeLessThan(40_000);
        }
      },
    ),
    { numRuns: hostileRuns },
  );
});
