/**
 * Prefix validation (packages/core/src/prefix/prefix-check.ts) as properties: schemas from a small
 * grammar and documents generated valid against them (checked with ajv) stream silently, every
 * prefix at every chunking; a planted violation is reported no later than the character that
 * makes it certain, and nothing before the planted value is reported.
 */
import { createPartialBuilder, type Diagnostic, type JsonSchema } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunkText, numRuns, splitAt, splitPoints } from '../support/chunking.js';

type Schema = Record<string, unknown>;
interface Generated {
  readonly schema: Schema;
  readonly value: fc.Arbitrary<unknown>;
}

// Code points a string may hold: plain, accented, astral (a surrogate pair), escaped in JSON.
const unit = fc.constantFrom('a', 'b', 'é', '😀', '"', '\\', '\n', '/');
const constantUnit = fc.constantFrom('a', 'b', 'c', 'é', '😀');
const word = fc.string({ unit: constantUnit, maxLength: 4 });
const key = fc.string({ unit: fc.constantFrom('a', 'b', 'k', 'é', '_'), minLength: 1, maxLength: 3 });

const stringSchema: fc.Arbitrary<Generated> = fc.oneof(
  fc.option(fc.nat({ max: 6 }), { nil: undefined }).map((maxLength) => ({
    schema: maxLength === undefined ? { type: 'string' } : { type: 'string', maxLength },
    value: fc.string({ unit, maxLength: maxLength ?? 8 }),
  })),
  fc.uniqueArray(word, { minLength: 1, maxLength: 4 }).map((values) => ({
    schema: { enum: values },
    value: fc.constantFrom(...values),
  })),
  word.map((value) => ({ schema: { const: value }, value: fc.constant(value) })),
);

const numberSchema: fc.Arbitrary<Generated> = fc
  .record({
    integer: fc.boolean(),
    low: fc.integer({ min: -50, max: 50 }),
    span: fc.integer({ min: 2, max: 100 }),
    exclusive: fc.boolean(),
  })
  .map(({ integer, low, span, exclusive }) => {
    const high = low + span;
    const schema: Schema = { type: integer ? 'integer' : 'number' };
    if (exclusive) Object.assign(schema, { exclusiveMinimum: low, exclusiveMaximum: high });
    else Object.assign(schema, { minimum: low, maximum: high });
    const value = integer
      ? fc.integer({ min: low + 1, max: high - 1 })
      : fc.double({ min: low, max: high, noNaN: true }).filter((n) => n > low && n < high && !Object.is(n, -0));
    return { schema, value };
  });

const leafSchema: fc.Arbitrary<Generated> = fc.oneof(
  { weight: 3, arbitrary: stringSchema },
  { weight: 2, arbitrary: numberSchema },
  { weight: 1, arbitrary: fc.constant({ schema: { type: 'boolean' }, value: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.constant({
      schema: { type: ['string', 'null'] },
      value: fc.oneof(fc.constant(null), fc.string({ unit, maxLength: 3 })),
    }),
  },
  {
    weight: 1,
    // A nullable string as zod and pydantic export one: an anyOf without a discriminator.
    arbitrary: fc.constant({
      schema: { anyOf: [{ type: 'string', maxLength: 2 }, { type: 'null' }] },
      value: fc.oneof(fc.constant(null), fc.string({ unit, maxLength: 2 })),
    }),
  },
);

/** An object of the given members; extra keys only when additionalProperties allows them. */
function objectOf(
  members: readonly [string, Generated][],
  required: readonly boolean[],
  closed: boolean,
  extra: Record<string, fc.Arbitrary<unknown>> = {},
): Generated {
  const properties: Schema = {};
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredKeys: string[] = [];
  members.forEach(([name, member], i) => {
    properties[name] = member.schema;
    record[name] = member.value;
    if (required[i]) requiredKeys.push(name);
  });
  Object.assign(record, extra);
  const schema: Schema = { type: 'object', properties, required: requiredKeys };
  if (closed) schema.additionalProperties = false;
  const value = fc.record(record, { requiredKeys: [...requiredKeys, ...Object.keys(extra)] }).chain((object) =>
    // Any key order: the discriminator may come first or last.
    fc.shuffledSubarray(Object.keys(object), { minLength: Object.keys(object).length }).map((order) => {
      const out: Record<string, unknown> = {};
      for (const name of order) out[name] = object[name];
      return out;
    }),
  );
  return { schema, value };
}

const node: fc.Memo<Generated> = fc.memo((n) => {
  if (n <= 1) return leafSchema;
  const child = node(n - 1);
  return fc.oneof(
    { weight: 2, arbitrary: leafSchema },
    {
      weight: 2,
      arbitrary: fc.uniqueArray(fc.tuple(key, child), { maxLength: 4, selector: ([k]) => k }).chain((members) =>
        fc
          .record({
            required: fc.array(fc.boolean(), { minLength: members.length, maxLength: members.length }),
            closed: fc.boolean(),
          })
          .map(({ required, closed }) => objectOf(members, required, closed)),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(child, fc.option(fc.nat({ max: 4 }), { nil: undefined })).map(([items, maxItems]) => ({
        schema:
          maxItems === undefined
            ? { type: 'array', items: items.schema }
            : { type: 'array', items: items.schema, maxItems },
        value: fc.array(items.value, { maxLength: maxItems ?? 3 }),
      })),
    },
    {
      weight: 1,
      // A discriminated oneOf: every branch pins "type" to its own constant.
      arbitrary: fc
        .uniqueArray(fc.constantFrom('a', 'ab', 'b', 'text', 'te'), { minLength: 2, maxLength: 3 })
        .chain((tags) =>
          fc
            .tuple(
              ...tags.map(() =>
                fc.tuple(
                  key.filter((k) => k !== 'type'),
                  child,
                  fc.boolean(),
                ),
              ),
            )
            .map((bodies) => {
              const branches = tags.map((tag, i) => {
                const [name, member, closed] = bodies[i] as [string, Generated, boolean];
                return objectOf(
                  [
                    ['type', { schema: { const: tag }, value: fc.constant(tag) }],
                    [name, member],
                  ],
                  [true, false],
                  closed,
                );
              });
              return {
                schema: { oneOf: branches.map((b) => b.schema) },
                value: fc.oneof(...branches.map((b) => b.value)),
              };
            }),
        ),
    },
  );
});

/** A document schema: an object whose members come from the grammar, one of them through a `$ref`. */
const documentSchema: fc.Arbitrary<Generated> = fc
  .tuple(node(3), node(3), fc.boolean(), fc.integer({ min: 1, max: 3 }))
  .map(([first, defined, closed]) => {
    const object = objectOf(
      [
        ['first', first],
        ['ref', { schema: { $ref: '#/$defs/defined' }, value: defined.value }],
      ],
      [true, false],
      closed,
    );
    return { schema: { ...object.schema, $defs: { defined: defined.schema } }, value: object.value };
  });

function violationsOf(chunks: readonly string[], schema: JsonSchema): Diagnostic[] {
  const found: Diagnostic[] = [];
  const builder = createPartialBuilder(
    { schema, compileJsonSchema: compileSchema },
    { update: () => {}, diagnostic: (d) => d.reason === 'violation' && found.push(d) },
  );
  for (const chunk of chunks) builder.write(chunk);
  builder.end();
  return found;
}

const validDocument = documentSchema.chain((generated) =>
  fc.record({
    schema: fc.constant(generated.schema),
    value: generated.value,
    space: fc.constantFrom(0, 1, 2),
    size: fc.integer({ min: 1, max: 8 }),
  }),
);

describe('prefix validation', () => {
  test('never early: every prefix of a valid document, at any chunking, is silent', () => {
    fc.assert(
      fc.property(validDocument, ({ schema, value, space, size }) => {
        expect(compileSchema(schema).validate(value).valid).toBe(true);
        const text = JSON.stringify(value, null, space);
        for (let length = 0; length <= text.length; length++) {
          expect(violationsOf(chunkText(text.slice(0, length), size), schema)).toEqual([]);
        }
      }),
      // Every prefix is a run of its own: half the runs cost about as much as the other properties.
      { numRuns: Math.ceil(numRuns / 2) },
    );
  });

  test('never early, at arbitrary split points', () => {
    fc.assert(
      fc.property(
        validDocument.chain((d) => {
          const text = JSON.stringify(d.value, null, d.space);
          return fc.tuple(fc.constant(d.schema), fc.constant(text), splitPoints(text.length));
        }),
        ([schema, text, points]) => {
          expect(violationsOf(splitAt(text, points), schema)).toEqual([]);
        },
      ),
      { numRuns },
    );
  });

  // A planted violation: the schema of the planted member, its JSON text, and the offset in that
  // text of the character that makes it certain.
  interface Plant {
    readonly schema: Schema;
    readonly json: string;
    readonly certain: number;
  }

  const planted: fc.Arbitrary<Plant> = fc.oneof(
    // An enum string with one character changed (or one added) to one no value has there.
    fc.tuple(fc.uniqueArray(word, { minLength: 1, maxLength: 4 }), fc.nat(), fc.nat()).map(([values, pick, where]) => {
      const value = values[pick % values.length] as string;
      const units = [...value];
      const i = units.length === 0 ? 0 : where % (units.length + 1);
      const mutated = [...units.slice(0, i), 'Z', ...units.slice(i + 1)].join('');
      const before = JSON.stringify(units.slice(0, i).join(''));
      return { schema: { enum: values }, json: JSON.stringify(mutated), certain: before.length - 1 };
    }),
    // A string past maxLength (code points).
    fc.tuple(fc.nat({ max: 5 }), fc.integer({ min: 1, max: 3 })).chain(([maxLength, over]) =>
      fc.string({ unit, minLength: maxLength + over, maxLength: maxLength + over }).map((value) => {
        const head = [...value].slice(0, maxLength).join('');
        return {
          schema: { type: 'string', maxLength },
          json: JSON.stringify(value),
          certain: JSON.stringify(head).length - 1,
        };
      }),
    ),
    // A key that additionalProperties: false forbids, among allowed ones.
    fc.tuple(fc.nat({ max: 2 }), fc.boolean()).map(([position, nested]) => {
      const members = ['"a": 1', '"b": "x"'];
      members.splice(position, 0, `"zz${nested ? '\\u00e9' : ''}": {"a": [1]}`);
      const json = `{${members.join(', ')}}`;
      const schema = {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'string' } },
        additionalProperties: false,
      };
      return { schema, json, certain: json.indexOf('": {') };
    }),
    // A value of the wrong type: certain at its first character.
    fc
      .tuple(
        fc.constantFrom<[Schema, string]>(
          [{ type: 'string' }, '[1]'],
          [{ type: 'string' }, '12'],
          [{ type: 'object' }, '"x"'],
          [{ type: 'object' }, '-1'],
          [{ type: 'integer' }, 'true'],
          [{ type: 'array' }, 'null'],
          [{ type: ['number', 'null'] }, '{}'],
          [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, '[]'],
        ),
      )
      .map(([[schema, json]]) => ({ schema, json, certain: 0 })),
  );

  test('a planted violation is reported no later than the character that makes it certain', () => {
    const SENTINEL = '\u0001planted\u0001';
    fc.assert(
      fc.property(
        documentSchema.chain((generated) =>
          fc.record({
            generated: fc.constant(generated),
            value: generated.value,
            plant: planted,
            depth: fc.nat({ max: 2 }),
            space: fc.constantFrom(0, 2),
          }),
        ),
        fc.array(fc.nat(), { maxLength: 16 }),
        ({ generated, value, plant, depth, space }, points) => {
          // The planted member goes last in the root object (the discriminated unions before it
          // are complete by then), inside `depth` closed wrapper objects.
          let plantSchema: Schema = plant.schema;
          let holder: unknown = SENTINEL;
          for (let d = 0; d < depth; d++) {
            plantSchema = { type: 'object', properties: { w: plantSchema }, additionalProperties: false };
            holder = { w: holder };
          }
          const schema = structuredClone(generated.schema);
          (schema.properties as Schema).planted = plantSchema;
          const document = { ...(value as Record<string, unknown>), planted: holder };
          const written = JSON.stringify(document, null, space);
          const start = written.indexOf(JSON.stringify(SENTINEL));
          const text = written.replace(JSON.stringify(SENTINEL), plant.json);
          const certain = start + plant.certain;
          const found = violationsOf(
            splitAt(
              text,
              points.map((p) => p % (text.length + 1)),
            ),
            schema,
          );
          expect(found.length).toBeGreaterThan(0);
          expect(found[0]?.offset).toBeLessThanOrEqual(certain);
          for (const d of found) expect(d.offset).toBeGreaterThanOrEqual(start);
        },
      ),
      { numRuns },
    );
  });
});
