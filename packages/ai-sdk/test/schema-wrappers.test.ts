/**
 * The AI SDK's own schema objects — `jsonSchema()` and `zodSchema()` from `ai` — as the schema
 * of every output and of the transform, through `streamText` and `generateText` with the AI
 * SDK's mock model:
 * - `object({ schema: jsonSchema(s), compileJsonSchema })` gives the provider, the partials and
 *   the final value (or failure) that the plain JSON Schema `s` gives;
 * - `zodSchema(z)` with a transform gives zod's transformed final value (its `validate` has the
 *   last word), while the partials are the parsed JSON the JSON Schema checked;
 * - a `validate` that refuses is the outputs' typed failure: `NoObjectGeneratedError` for
 *   `object`, a dropped and reported element or line for `array` and `jsonl`, a diagnostic part
 *   instead of the value part for the transform;
 * - what cannot be used is a ConfigurationError at the factory that says what to pass instead
 *   (a Promise JSON Schema; no `compileJsonSchema`).
 * The `expectTypeOf` lines are checked by `tsc -p tsconfig.test.json`: the value type is the
 * `T` of the AI SDK's `Schema<T>` (zod's output type for `zodSchema`).
 */
import type { DeepPartial, Diagnostic } from '@llmjson/core';
import { compileSchema } from '@llmjson/web/ajv';
import {
  generateText,
  jsonSchema,
  NoObjectGeneratedError,
  Output,
  streamText,
  type TextStreamPart,
  type ToolSet,
  zodSchema,
} from 'ai';
import { expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { array, jsonl, object, PartKind, partialObjectTransform } from '../src/index.js';
import { chunked, collect, describeAi, mockModel } from './helpers.js';

const personJson = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'age', 'tags'],
} as const;
interface Person {
  name: string;
  age: number;
  tags: string[];
}
const answer = JSON.stringify({ name: 'Ada Lovelace', age: 36, tags: ['math', 'engines'] });

async function streamed<O>(output: O, chunks: readonly string[]) {
  const mock = mockModel(chunks);
  const result = streamText({ model: mock.model, prompt: 'p', output: output as never });
  const partials = await collect(result.partialOutputStream as AsyncIterable<unknown>);
  const final = await Promise.resolve(result.output as PromiseLike<unknown>).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { partials, final, mock };
}

async function elements<O>(output: O, chunks: readonly string[]) {
  const mock = mockModel(chunks);
  const result = streamText({ model: mock.model, prompt: 'p', output: output as never });
  const streamedElements = await collect(result.elementStream as AsyncIterable<unknown>);
  const final = await Promise.resolve(result.output as PromiseLike<unknown>).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { elements: streamedElements, final, mock };
}

/** A `jsonSchema()` whose `validate` refuses every value with `message`. */
function refusing(message: string) {
  return jsonSchema<Person>(personJson, { validate: () => ({ success: false, error: new Error(message) }) });
}

describeAi('object() with jsonSchema() and zodSchema() from ai (ai 7)', () => {
  test('jsonSchema(s) gives the provider, the partials and the final value the plain JSON Schema s gives', async () => {
    const chunks = chunked(answer, 3);
    const plain = await streamed(object({ schema: personJson, compileJsonSchema: compileSchema }), chunks);
    const wrapped = await streamed(
      object({ schema: jsonSchema<Person>(personJson), compileJsonSchema: compileSchema }),
      chunks,
    );
    expect(wrapped.partials.length).toBeGreaterThan(5);
    expect(wrapped.partials).toEqual(plain.partials);
    expect(wrapped.final).toEqual(plain.final);
    expect(wrapped.final).toEqual({ value: JSON.parse(answer) });
    expect(wrapped.mock.model.doStreamCalls[0]?.responseFormat).toEqual(
      plain.mock.model.doStreamCalls[0]?.responseFormat,
    );
    expect(wrapped.mock.model.doStreamCalls[0]?.responseFormat).toMatchObject({ type: 'json', schema: personJson });
  });

  test('jsonSchema(s) checks every prefix as s does: no partial after a violation, then NoObjectGeneratedError', async () => {
    const text = '{"name":"Ada","age":"thirty-six","tags":[]}';
    const reasons: string[] = [];
    const plain = await streamed(object({ schema: personJson, compileJsonSchema: compileSchema }), chunked(text, 4));
    const wrapped = await streamed(
      object({
        schema: jsonSchema(personJson),
        compileJsonSchema: compileSchema,
        onDiagnostic: (d) => reasons.push(d.reason),
      }),
      chunked(text, 4),
    );
    expect(wrapped.partials).toEqual(plain.partials);
    for (const partial of wrapped.partials) expect((partial as { age?: unknown }).age).toBeUndefined();
    expect(reasons[0]).toBe('violation');
    const error = (wrapped.final as { error: Error }).error;
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/age/);
  });

  test("zodSchema(z) with a transform gives zod's transformed value, in streamText and generateText", async () => {
    const Shouting = z.object({
      name: z.string().transform((name) => name.toUpperCase()),
      age: z.number(),
      tags: z.array(z.string()).default([]),
    });
    const text = JSON.stringify({ name: 'Ada', age: 36 });
    const output = () => object({ schema: zodSchema(Shouting), compileJsonSchema: compileSchema });
    const run = await streamed(output(), chunked(text, 3));
    expect(run.final).toEqual({ value: { name: 'ADA', age: 36, tags: [] } });
    // The partials are the parsed JSON the JSON Schema checked; zod's validate has the last word.
    expect(run.partials.at(-1)).toEqual({ name: 'Ada', age: 36 });
    // The provider gets zodSchema's own JSON Schema (the AI SDK's conversion, closed objects), as from Output.object.
    const theirs = await streamed(Output.object({ schema: zodSchema(Shouting) }), chunked(text, 3));
    expect(run.final).toEqual(theirs.final);
    expect(run.mock.model.doStreamCalls[0]?.responseFormat).toEqual(theirs.mock.model.doStreamCalls[0]?.responseFormat);
    expect(run.mock.model.doStreamCalls[0]?.responseFormat).toMatchObject({
      type: 'json',
      schema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        required: ['name', 'age'],
        additionalProperties: false,
      },
    });
    const generated = await generateText({ model: mockModel([text]).model, prompt: 'p', output: output() });
    expect(generated.output).toEqual({ name: 'ADA', age: 36, tags: [] });
  });

  test("zodSchema(z)'s JSON Schema checks the prefixes: a key it closes out is a violation, where zod itself strips it", async () => {
    const Named = z.object({ name: z.string() });
    const text = '{"name":"Ada","extra":true}';
    const reasons: string[] = [];
    const wrapped = await streamed(
      object({
        schema: zodSchema(Named),
        compileJsonSchema: compileSchema,
        onDiagnostic: (d) => reasons.push(d.reason),
      }),
      chunked(text, 4),
    );
    expect(reasons[0]).toBe('violation');
    expect(NoObjectGeneratedError.isInstance((wrapped.final as { error: unknown }).error)).toBe(true);
    const itself = await streamed(object({ schema: Named }), chunked(text, 4));
    expect(itself.final).toEqual({ value: { name: 'Ada' } });
  });

  test('a validate that refuses is NoObjectGeneratedError with its reason, reported as a schema diagnostic', async () => {
    const diagnostics: Diagnostic[] = [];
    const run = await streamed(
      object({
        schema: refusing('age must be a prime number'),
        compileJsonSchema: compileSchema,
        onDiagnostic: (d) => diagnostics.push(d),
      }),
      chunked(answer, 5),
    );
    // The JSON Schema accepted every prefix: the partials are given up to the whole document.
    expect(run.partials.at(-1)).toEqual(JSON.parse(answer));
    const error = (run.final as { error: Error }).error;
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/age must be a prime number/);
    expect(diagnostics.map((d) => d.reason)).toEqual(['schema']);
    expect(diagnostics[0]?.message).toMatch(/validate rejected it: age must be a prime number/);
  });

  test('a validate that throws or returns no result fails the value, not the stream', async () => {
    const throwing = jsonSchema<Person>(personJson, {
      validate: () => {
        throw new TypeError('validator exploded');
      },
    });
    const broken = jsonSchema<Person>(personJson, { validate: () => 'yes' as never });
    for (const [schema, reason] of [
      [throwing, /validate threw validator exploded/],
      [broken, /neither \{ success: true, value \}/],
    ] as const) {
      const run = await streamed(object({ schema, compileJsonSchema: compileSchema }), chunked(answer, 7));
      const error = (run.final as { error: Error }).error;
      expect(NoObjectGeneratedError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(reason);
    }
  });

  test('a validate that accepts gives its value as the output', async () => {
    const stamped = jsonSchema<Person & { checked: true }>(personJson, {
      validate: async (value) => ({ success: true, value: { ...(value as Person), checked: true } }),
    });
    const run = await streamed(object({ schema: stamped, compileJsonSchema: compileSchema }), chunked(answer, 4));
    expect(run.final).toEqual({ value: { ...JSON.parse(answer), checked: true } });
  });
});

describeAi('array() and jsonl() with jsonSchema() and zodSchema() from ai (ai 7)', () => {
  const Item = z.object({ id: z.number(), name: z.string().transform((name) => name.toUpperCase()) });
  const items = Array.from({ length: 4 }, (_, i) => ({ id: i, name: `item ${i}` }));
  const upper = items.map(({ id, name }) => ({ id, name: name.toUpperCase() }));

  test("array({ element: zodSchema(z) }) streams and returns zod's transformed elements", async () => {
    const run = await elements(
      array({ element: zodSchema(Item), compileJsonSchema: compileSchema }),
      chunked(JSON.stringify({ elements: items }), 5),
    );
    expect(run.elements).toEqual(upper);
    expect(run.final).toEqual({ value: upper });
    expect(run.mock.model.doStreamCalls[0]?.responseFormat).toMatchObject({
      type: 'json',
      schema: { properties: { elements: { type: 'array', items: { type: 'object', required: ['id', 'name'] } } } },
    });
  });

  test('array: an element its validate refuses is dropped and reported with its path', async () => {
    const evenOnly = jsonSchema<{ id: number }>(
      { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      {
        validate: (value) =>
          (value as { id: number }).id % 2 === 0
            ? { success: true, value: value as { id: number } }
            : { success: false, error: new Error('odd id') },
      },
    );
    const diagnostics: Diagnostic[] = [];
    const run = await elements(
      array({ element: evenOnly, compileJsonSchema: compileSchema, onDiagnostic: (d) => diagnostics.push(d) }),
      chunked(JSON.stringify({ elements: [{ id: 0 }, { id: 1 }, { id: 2 }] }), 4),
    );
    expect(run.final).toEqual({ value: [{ id: 0 }, { id: 2 }] });
    expect(run.elements).toEqual([{ id: 0 }, { id: 2 }]);
    expect(diagnostics).toMatchObject([{ reason: 'schema', path: '/elements/1', message: /odd id/ }]);
  });

  test("jsonl({ schema: zodSchema(z) }) streams and returns zod's transformed objects", async () => {
    const run = await elements(
      jsonl({ schema: zodSchema(Item), compileJsonSchema: compileSchema }),
      chunked(items.map((item) => JSON.stringify(item)).join('\n'), 6),
    );
    expect(run.elements).toEqual(upper);
    expect(run.final).toEqual({ value: upper });
  });

  test('jsonl: a line its validate refuses is dropped and reported with its line number; a line its JSON Schema refuses too', async () => {
    const evenOnly = jsonSchema<{ id: number }>(
      { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      {
        validate: (value) =>
          (value as { id: number }).id % 2 === 0
            ? { success: true, value: value as { id: number } }
            : { success: false, error: new Error('odd id') },
      },
    );
    const diagnostics: Diagnostic[] = [];
    const text = ['{"id":0}', '{"id":1}', '{"id":"two"}', '{"id":4}'].join('\n');
    const run = await elements(
      jsonl({ schema: evenOnly, compileJsonSchema: compileSchema, onDiagnostic: (d) => diagnostics.push(d) }),
      chunked(text, 3),
    );
    expect(run.final).toEqual({ value: [{ id: 0 }, { id: 4 }] });
    expect(run.elements).toEqual([{ id: 0 }, { id: 4 }]);
    expect(diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['schema', 2],
      ['schema', 3],
    ]);
    expect(diagnostics[0]?.message).toMatch(/odd id/);
  });
});

type Part = TextStreamPart<ToolSet>;
const llmjson = (part: Part) => (part as { providerMetadata?: { llmjson?: unknown } }).providerMetadata?.llmjson;

async function transformed(transform: ReturnType<typeof partialObjectTransform>, chunks: readonly string[]) {
  const result = streamText({ model: mockModel(chunks).model, prompt: 'p', experimental_transform: transform });
  const ours = ((await collect(result.fullStream)) as Part[]).filter((p) => p.type === 'custom');
  return {
    partials: ours.filter((p) => p.kind === PartKind.partial).map((p) => llmjson(p)),
    diagnostics: ours.filter((p) => p.kind === PartKind.diagnostic).map((p) => llmjson(p) as Diagnostic),
    values: ours.filter((p) => p.kind === PartKind.value).map((p) => llmjson(p)),
  };
}

describeAi('partialObjectTransform with jsonSchema() from ai (ai 7)', () => {
  test('jsonSchema(s) gives the parts the plain JSON Schema s gives', async () => {
    const chunks = chunked(answer, 4);
    const plain = await transformed(
      partialObjectTransform({ schema: personJson, compileJsonSchema: compileSchema }),
      chunks,
    );
    const wrapped = await transformed(
      partialObjectTransform({ schema: jsonSchema(personJson), compileJsonSchema: compileSchema }),
      chunks,
    );
    expect(wrapped).toEqual(plain);
    expect(wrapped.values).toEqual([{ value: JSON.parse(answer) }]);
    const bad = chunked('{"name":"Ada","age":"x","tags":[]}', 4);
    expect(
      await transformed(
        partialObjectTransform({ schema: jsonSchema(personJson), compileJsonSchema: compileSchema }),
        bad,
      ),
    ).toEqual(await transformed(partialObjectTransform({ schema: personJson, compileJsonSchema: compileSchema }), bad));
  });

  test('a validate that refuses the document gives a schema diagnostic part instead of the value part', async () => {
    const run = await transformed(
      partialObjectTransform({ schema: refusing('no Ada today'), compileJsonSchema: compileSchema }),
      chunked(answer, 4),
    );
    expect(run.partials.at(-1)).toEqual({ value: JSON.parse(answer) });
    expect(run.values).toEqual([]);
    expect(run.diagnostics).toMatchObject([{ reason: 'schema', message: /no Ada today/ }]);
  });
});

describeAi('AI SDK schemas that cannot be used are refused when the output is made', () => {
  const factories = {
    object: (schema: never, compileJsonSchema?: typeof compileSchema) =>
      object({ schema, ...(compileJsonSchema !== undefined && { compileJsonSchema }) }),
    array: (element: never, compileJsonSchema?: typeof compileSchema) =>
      array({ element, ...(compileJsonSchema !== undefined && { compileJsonSchema }) }),
    jsonl: (schema: never, compileJsonSchema?: typeof compileSchema) =>
      jsonl({ schema, ...(compileJsonSchema !== undefined && { compileJsonSchema }) }),
    partialObjectTransform: (schema: never, compileJsonSchema?: typeof compileSchema) =>
      partialObjectTransform({ schema, ...(compileJsonSchema !== undefined && { compileJsonSchema }) }),
  };

  test.each(Object.entries(factories))('%s: without compileJsonSchema, both fixes are named', (name, make) => {
    const attempt = () => make(jsonSchema(personJson) as never);
    expect(attempt).toThrow(expect.objectContaining({ name: 'ConfigurationError', code: 'NO_JSON_SCHEMA_COMPILER' }));
    expect(attempt).toThrow(new RegExp(`^${name}'s .* is an AI SDK schema`));
    expect(attempt).toThrow(
      /needs `compileJsonSchema`.*or pass the zod, valibot or arktype schema itself instead of wrapping it/,
    );
    expect(() => make(zodSchema(z.object({ a: z.string() })) as never)).toThrow(/instead of wrapping it/);
  });

  test.each(Object.entries(factories))(
    '%s: a Promise JSON Schema says to pass the JSON Schema or the zod schema itself',
    (_, make) => {
      const attempt = () => make(jsonSchema(Promise.resolve(personJson)) as never, compileSchema);
      expect(attempt).toThrow(expect.objectContaining({ name: 'ConfigurationError', code: 'SCHEMA_ASYNC' }));
      expect(attempt).toThrow(
        /JSON Schema is a Promise: .*pass the JSON Schema itself .* or the zod, valibot or arktype schema itself/,
      );
    },
  );
});

describeAi('the value type of an AI SDK Schema<T> is T', () => {
  test('object, array and jsonl are typed from jsonSchema<T>() and zodSchema(z)', () => {
    const Shouting = z.object({ name: z.string().transform((name) => name.length) });
    const fromZod = () => object({ schema: zodSchema(Shouting), compileJsonSchema: compileSchema });
    expectTypeOf(fromZod).returns.toEqualTypeOf<
      Output.Output<{ name: number }, DeepPartial<{ name: number }>, never>
    >();
    const fromJson = () => object({ schema: jsonSchema<Person>(personJson), compileJsonSchema: compileSchema });
    expectTypeOf(fromJson).returns.toEqualTypeOf<Output.Output<Person, DeepPartial<Person>, never>>();
    const untyped = () => object({ schema: jsonSchema(personJson), compileJsonSchema: compileSchema });
    expectTypeOf(untyped).returns.toEqualTypeOf<Output.Output<unknown, DeepPartial<unknown>, never>>();
    const list = () => array({ element: zodSchema(Shouting), compileJsonSchema: compileSchema });
    expectTypeOf(list).returns.toEqualTypeOf<Output.Output<{ name: number }[], { name: number }[], { name: number }>>();
    const lines = () => jsonl({ schema: jsonSchema<Person>(personJson), compileJsonSchema: compileSchema });
    expectTypeOf(lines).returns.toEqualTypeOf<Output.Output<Person[], Person[], Person>>();
    // The other schemas keep their types: zod's input type, a literal JSON Schema's FromSchema.
    const plain = () => object({ schema: z.object({ a: z.string() }) });
    expectTypeOf(plain).returns.toEqualTypeOf<Output.Output<{ a: string }, DeepPartial<{ a: string }>, never>>();
  });
});
