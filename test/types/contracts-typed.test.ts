/**
 * Typed results of @llmjson/contracts (issue 12, items 3 and 5): `parseJsonResponse`,
 * `parseJsonlResponse` and the prompt runner type their values from the schema as core's
 * engines do (`SchemaValue`: a Standard Schema's input type, a JSON Schema written `as const`);
 * no schema, a `JsonSchema`, a `schema_ref` and a configuration read from a file stay
 * `unknown`, as before. The `expectTypeOf` calls and `@ts-expect-error` lines are checked by
 * `tsc -p tsconfig.test.json`; every case also runs, comparing the typed value with the real one.
 */
import { fileURLToPath } from 'node:url';
import {
  createPromptManager,
  createSchemaRegistry,
  type Envelope,
  type JsonlOutcome,
  type JsonOutcome,
  type Llm,
  type PromptEntry,
  type PromptManager,
  type PromptTypes,
  type PromptTypesOf,
  type PromptValue,
  parseJsonlResponse,
  parseJsonResponse,
} from '@llmjson/contracts';
import type { JsonSchema, StandardSchemaV1 } from '@llmjson/core';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { chunkText } from '../support/chunking.js';
import {
  definitionRelationshipArktype,
  definitionRelationshipJsonSchema,
  definitionRelationshipValibot,
  definitionRelationshipZod,
} from '../support/standard-schemas.js';

type Zod = z.input<typeof definitionRelationshipZod>;
type Valibot = StandardSchemaV1.InferInput<typeof definitionRelationshipValibot>;
type Arktype = StandardSchemaV1.InferInput<typeof definitionRelationshipArktype>;
/** The definition branch, as written by hand: every vendor's union narrows to it on `type`. */
type Definition = { type: 'definition'; entity: string; definition: string };

const definition = { type: 'definition', entity: 'JSONL', definition: 'one JSON value per line' };
const relationship = { type: 'relationship', subject: 'JSONL', predicate: 'is', object: 'text' };
const jsonl = `${JSON.stringify(definition)}\n${JSON.stringify(relationship)}\n`;
const fenced = `Here it is:\n\`\`\`json\n${JSON.stringify(definition)}\n\`\`\`\n`;
const list = JSON.stringify([definition, relationship], null, 2);

/** A model that answers `text` in chunks of 3 characters, whatever it is asked. */
function answering(text: string): Llm {
  return () => {
    async function* output() {
      for (const chunk of chunkText(text, 3)) {
        await Promise.resolve();
        yield chunk;
      }
    }
    return { output: output(), finishReason: 'stop' };
  };
}

async function collect<T>(values: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const value of values) all.push(value);
  return all;
}

describe('parseJsonResponse', () => {
  test('a Standard Schema types the document, for each vendor', () => {
    const zod = parseJsonResponse(fenced, { schema: definitionRelationshipZod });
    expectTypeOf(zod).toEqualTypeOf<JsonOutcome<Zod>>();
    if (zod.status !== 'succeeded') throw new Error(zod.status);
    expectTypeOf(zod.json).toEqualTypeOf<Zod>();
    // @ts-expect-error: `entity` is only on the definition branch
    zod.json.entity;
    if (zod.json.type === 'definition') expectTypeOf(zod.json).toEqualTypeOf<Definition>();
    expect(zod.json).toEqual(definition);

    const valibot = parseJsonResponse(fenced, { schema: definitionRelationshipValibot, tolerate: 'fence-and-prose' });
    if (valibot.status !== 'succeeded') throw new Error(valibot.status);
    expectTypeOf(valibot.json).toEqualTypeOf<Valibot>();
    expectTypeOf<Extract<Valibot, { type: 'definition' }>>().toEqualTypeOf<Definition>();
    expect(valibot.json).toEqual(definition);

    const arktype = parseJsonResponse(JSON.stringify(relationship), {
      schema: definitionRelationshipArktype,
      tolerate: 'none',
    });
    if (arktype.status !== 'succeeded') throw new Error(arktype.status);
    expectTypeOf(arktype.json).toEqualTypeOf<Arktype>();
    expect(arktype.json.type).toBe('relationship');
    expect(arktype.branch).toBe('relationship');
  });

  test('a JSON Schema written as const types the document', () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['title'],
      additionalProperties: false,
    } as const;
    const outcome = parseJsonResponse('{"title":"x","tags":["a"]}', { schema });
    if (outcome.status !== 'succeeded') throw new Error(outcome.status);
    expectTypeOf(outcome.json).toEqualTypeOf<{ title: string; tags?: string[] }>();
    // @ts-expect-error: not in the schema
    outcome.json.count;
    expect(outcome.json).toEqual({ title: 'x', tags: ['a'] });
  });

  test('the input, not the output, of a transforming schema: the document is the JSON', () => {
    const outcome = parseJsonResponse('{"count":"3"}', { schema: z.object({ count: z.string().transform(Number) }) });
    if (outcome.status !== 'succeeded') throw new Error(outcome.status);
    expectTypeOf(outcome.json).toEqualTypeOf<{ count: string }>();
    expect(outcome.json).toEqual({ count: '3' });
  });

  test('no schema, a JsonSchema and a failure stay as before', () => {
    const bare = parseJsonResponse('{"a":1}');
    expectTypeOf(bare).toEqualTypeOf<JsonOutcome>();
    expectTypeOf(bare).toEqualTypeOf<JsonOutcome<unknown>>();
    if (bare.status === 'succeeded') expectTypeOf(bare.json).toBeUnknown();
    expect(bare).toMatchObject({ status: 'succeeded', json: { a: 1 } });

    const wide = parseJsonResponse(fenced, { schema: definitionRelationshipJsonSchema });
    expectTypeOf(wide).toEqualTypeOf<JsonOutcome>();
    expect(wide).toMatchObject({ status: 'succeeded', json: definition, branch: 'definition' });

    const failed = parseJsonResponse('{"type":"definition"}', { schema: definitionRelationshipZod });
    expect(failed.status).toBe('failed');
    if (failed.status === 'failed') expect(failed.detail).toBe('SCHEMA_MISMATCH');
  });
});

describe('parseJsonlResponse', () => {
  test('a Standard Schema types the objects', () => {
    const zod = parseJsonlResponse(jsonl, { schema: definitionRelationshipZod });
    expectTypeOf(zod).toEqualTypeOf<JsonlOutcome<Zod>>();
    expectTypeOf(zod.json).toEqualTypeOf<Zod[]>();
    // @ts-expect-error: no such property on either branch
    zod.json[0]?.nope;
    expect(zod.json).toEqual([definition, relationship]);

    const arktype = parseJsonlResponse(jsonl, { schema: definitionRelationshipArktype, finishReason: 'stop' });
    expectTypeOf(arktype.json).toEqualTypeOf<Arktype[]>();
    expect(arktype.json.map((value) => value.type)).toEqual(['definition', 'relationship']);

    const valibot = parseJsonlResponse(jsonl, { schema: definitionRelationshipValibot });
    expectTypeOf(valibot.json).toEqualTypeOf<Valibot[]>();
    expect(valibot.json).toEqual([definition, relationship]);
  });

  test('no schema and a JsonSchema give unknown[]', () => {
    const bare = parseJsonlResponse(jsonl);
    expectTypeOf(bare).toEqualTypeOf<JsonlOutcome>();
    expectTypeOf(bare.json).toEqualTypeOf<unknown[]>();
    const wide = parseJsonlResponse(jsonl, { schema: definitionRelationshipJsonSchema as JsonSchema });
    expectTypeOf(wide.json).toEqualTypeOf<unknown[]>();
    expect(bare.json).toEqual(wide.json);
    expect(bare.json).toHaveLength(2);
  });
});

describe('the prompt runner', () => {
  const item = v.object({ name: v.string(), done: v.boolean() });
  const registry = createSchemaRegistry({
    roots: [{ dir: fileURLToPath(new URL('../../fixtures/schemas/', import.meta.url)), kind: 'custom' }],
  });
  // Written inline: `createPromptManager` infers the configuration's type as if `as const`.
  const manager = createPromptManager(
    {
      prompts: {
        summarize: { prompt: 'Summarize: {{text}}' },
        one: { prompt: 'One object: {{text}}', 'response-type': 'json', schema: definitionRelationshipZod },
        lines: { prompt: 'Lines: {{text}}', 'response-type': 'jsonl', schema: definitionRelationshipArktype },
        list: { prompt: 'A list: {{text}}', 'response-type': 'json', schema: z.array(definitionRelationshipZod) },
        // valibot without an export: the runner cannot tell it is an array, so the document streams whole.
        todo: { prompt: 'Tasks: {{text}}', 'response-type': 'json', schema: v.array(item) },
        recipe: {
          prompt: 'A recipe: {{text}}',
          'response-type': 'json',
          schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        },
        filed: { prompt: 'From a file: {{text}}', 'response-type': 'json', schema_ref: 'definition-relationship' },
        'filed-lines': { prompt: '{{text}}', 'response-type': 'jsonl', schema_ref: 'definition-relationship' },
      },
    },
    { registry },
  );
  const vars = { text: 'JSONL' };

  test('invoke: the answer, the document, the objects', async () => {
    const summary = await manager.invoke('summarize', vars, answering('Short.'));
    expectTypeOf(summary).toEqualTypeOf<string>();
    expect(summary).toBe('Short.');

    const one = await manager.invoke('one', vars, answering(fenced));
    expectTypeOf(one).toEqualTypeOf<Zod>();
    // @ts-expect-error: `entity` is only on the definition branch
    one.entity;
    expect(one.type === 'definition' ? one.entity : undefined).toBe('JSONL');

    const lines = await manager.invoke('lines', vars, answering(jsonl));
    expectTypeOf(lines).toEqualTypeOf<Arktype[]>();
    expect(lines).toEqual([definition, relationship]);

    const listed = await manager.invoke('list', vars, answering(list));
    expectTypeOf(listed).toEqualTypeOf<Zod[]>();
    expect(listed).toEqual([definition, relationship]);

    const recipe = await manager.invoke('recipe', vars, answering('{"title":"Soup","serves":2}'));
    expectTypeOf(recipe).toEqualTypeOf<{ title: string; [key: string]: unknown }>();
    expect(recipe.title).toBe('Soup');
  });

  test('run: the envelope types result.json (none for a text prompt)', async () => {
    const one = await manager.run('one', vars, answering(fenced));
    expectTypeOf(one).toEqualTypeOf<Envelope<Zod>>();
    expectTypeOf(one.result.json).toEqualTypeOf<Zod | undefined>();
    expect(one.result.json).toEqual(definition);

    const lines = await manager.run('lines', vars, answering(jsonl));
    expectTypeOf(lines.result.json).toEqualTypeOf<Arktype[] | undefined>();
    expect(lines.result.json).toEqual([definition, relationship]);

    const summary = await manager.run('summarize', vars, answering('Short.'));
    expectTypeOf(summary).toEqualTypeOf<Envelope<never>>();
    expectTypeOf(summary.result.json).toEqualTypeOf<undefined>();
    expect(summary.result).toEqual({ text: 'Short.', finish_reason: 'stop' });

    // A typed envelope is still an Envelope.
    const envelopes: Envelope[] = [one, lines, summary];
    expect(envelopes.map((e) => e.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  test('stream: chunks, objects, elements, or the document; outcome typed as run', async () => {
    const chunks = manager.stream('summarize', vars, answering('Short.'));
    expectTypeOf(await collect(chunks)).toEqualTypeOf<string[]>();
    expect((await chunks.outcome).result.text).toBe('Short.');

    const lines = manager.stream('lines', vars, answering(jsonl));
    const objects = await collect(lines);
    expectTypeOf(objects).toEqualTypeOf<Arktype[]>();
    expect(objects).toEqual([definition, relationship]);
    expectTypeOf(lines.outcome).toEqualTypeOf<Promise<Envelope<Arktype[]>>>();
    expect((await lines.outcome).result.json).toEqual(objects);

    // zod exports JSON Schema (in its type too): an array's elements stream one by one.
    const listed = manager.stream('list', vars, answering(list));
    const elements = await collect(listed);
    expectTypeOf(elements).toEqualTypeOf<Zod[]>();
    expect(elements).toEqual([definition, relationship]);
    expectTypeOf((await listed.outcome).result.json).toEqualTypeOf<Zod[] | undefined>();

    // valibot has no export: the document is the one value.
    const tasks = '[{"name":"write","done":true},{"name":"test","done":false}]';
    const todo = await collect(manager.stream('todo', vars, answering(tasks)));
    expectTypeOf(todo).toEqualTypeOf<{ name: string; done: boolean }[][]>();
    expect(todo).toEqual([JSON.parse(tasks)]);

    const one = await collect(manager.stream('one', vars, answering(fenced)));
    expectTypeOf(one).toEqualTypeOf<Zod[]>();
    expect(one).toEqual([definition]);
  });

  test('schema_ref prompts, unknown ids and dynamic ids stay unknown', async () => {
    const filed = await manager.invoke('filed', vars, answering(fenced));
    expectTypeOf(filed).toBeUnknown();
    expect(filed).toEqual(definition);
    const filedLines = await manager.invoke('filed-lines', vars, answering(jsonl));
    expectTypeOf(filedLines).toEqualTypeOf<unknown[]>();
    expect(filedLines).toEqual([definition, relationship]);
    expectTypeOf(manager.stream('filed', vars, answering(fenced))).toEqualTypeOf<ReturnType<PromptManager['stream']>>();

    const id: string = 'one';
    const dynamic = await manager.invoke(id, vars, answering(fenced));
    expectTypeOf(dynamic).toBeUnknown();
    expect(dynamic).toEqual(definition);
    await expect(manager.invoke('nope', vars, answering(''))).rejects.toThrow('no prompt with id "nope"');
  });

  test('a union of ids gives the union of their values', async () => {
    for (const id of ['one', 'summarize'] as const) {
      const value = await manager.invoke(id, vars, answering(id === 'one' ? fenced : 'Short.'));
      expectTypeOf(value).toEqualTypeOf<Zod | string>();
      expect(value).toEqual(id === 'one' ? definition : 'Short.');
    }
  });

  test('a typed runner is a PromptManager; PromptValue names the types', () => {
    const untyped: PromptManager = manager;
    expect(untyped.ids).toContain('one');
    const config = {
      prompts: { one: { prompt: 'x', 'response-type': 'json', schema: definitionRelationshipZod } },
    } as const;
    expectTypeOf<PromptValue<typeof config, 'one'>>().toEqualTypeOf<Zod>();
    expectTypeOf<PromptValue<typeof config, 'nope'>>().toBeUnknown();
    expectTypeOf(createPromptManager(config)).toEqualTypeOf<PromptManager<PromptTypesOf<typeof config>>>();
    expectTypeOf<PromptTypesOf<typeof config>['one']>().toEqualTypeOf<PromptTypes<Zod, Zod, Zod>>();
    expect(createPromptManager(config).ids).toEqual(['one']);
  });
});

describe('configurations that type nothing', () => {
  const text = JSON.stringify({
    prompts: {
      one: { prompt: 'x', 'response-type': 'json', schema: { type: 'object' } },
      summarize: { prompt: 'y' },
    },
  });

  test('a configuration from JSON.parse (any) or typed unknown', async () => {
    const fromFile = createPromptManager(JSON.parse(text));
    expectTypeOf(fromFile).toEqualTypeOf<PromptManager>();
    const one = await fromFile.invoke('one', {}, answering('{"a":1}'));
    expectTypeOf(one).toBeUnknown();
    expect(one).toEqual({ a: 1 });
    const summary = await fromFile.run('summarize', {}, answering('ok'));
    expectTypeOf(summary).toEqualTypeOf<Envelope>();
    expect(summary.result.text).toBe('ok');

    const parsed: unknown = JSON.parse(text);
    const opaque = createPromptManager(parsed);
    expectTypeOf(opaque).toEqualTypeOf<PromptManager>();
    const values = await collect(opaque.stream('one', {}, answering('{"a":1}')));
    expectTypeOf(values).toEqualTypeOf<unknown[]>();
    expect(values).toEqual([{ a: 1 }]);
  });

  test('entries typed PromptEntry, or with a widened response-type, are unknown', async () => {
    const entry: PromptEntry = { prompt: 'x', 'response-type': 'json', schema: definitionRelationshipZod };
    const wide = createPromptManager({ prompts: { one: entry } });
    const value = await wide.invoke('one', {}, answering(fenced));
    expectTypeOf(value).toBeUnknown();
    expect(value).toEqual(definition);

    const pick = (lines: boolean): 'json' | 'jsonl' => (lines ? 'jsonl' : 'json');
    const either = createPromptManager({
      prompts: { one: { prompt: 'x', 'response-type': pick(false), schema: definitionRelationshipZod } },
    });
    const one = await either.invoke('one', {}, answering(fenced));
    expectTypeOf(one).toBeUnknown();
    expect(one).toEqual(definition);
  });

  test('an entry declared apart keeps its types with satisfies PromptEntry or as const', async () => {
    const apart = {
      prompt: 'x',
      'response-type': 'jsonl',
      schema: definitionRelationshipValibot,
    } satisfies PromptEntry;
    const frozen = {
      prompt: 'x',
      'response-type': 'json',
      schema: { type: 'array', items: { type: 'integer' } },
    } as const;
    const m = createPromptManager({ prompts: { apart, frozen } });
    const lines = await m.invoke('apart', {}, answering(jsonl));
    expectTypeOf(lines).toEqualTypeOf<Valibot[]>();
    expect(lines).toEqual([definition, relationship]);
    const numbers = await collect(m.stream('frozen', {}, answering('[1, 2, 3]')));
    expectTypeOf(numbers).toEqualTypeOf<number[]>();
    expect(numbers).toEqual([1, 2, 3]);
  });
});

describe('which JSON documents stream element by element', () => {
  const point = type({ x: 'number', y: 'number' });
  const m = createPromptManager({
    prompts: {
      points: { prompt: 'p', 'response-type': 'json', schema: point.array() },
      tasks: {
        prompt: 'p',
        'response-type': 'json',
        schema: toStandardJsonSchema(v.array(v.object({ name: v.string() }))),
      },
      pair: { prompt: 'p', 'response-type': 'json', schema: z.tuple([z.string(), z.number()]) },
      maybe: { prompt: 'p', 'response-type': 'json', schema: z.array(z.string()).nullable() },
      any: { prompt: 'p', 'response-type': 'json', schema: { type: 'array' } },
      tuple: {
        prompt: 'p',
        'response-type': 'json',
        schema: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
      },
    },
  });

  test('an array with one items schema: each element', async () => {
    const points = await collect(m.stream('points', {}, answering('[{"x":1,"y":2},{"x":3,"y":4}]')));
    expectTypeOf(points).toEqualTypeOf<{ x: number; y: number }[]>();
    expect(points).toEqual([
      { x: 1, y: 2 },
      { x: 3, y: 4 },
    ]);
    // valibot with `toStandardJsonSchema`: the export is in its type, so its elements stream too.
    const tasks = await collect(m.stream('tasks', {}, answering('[{"name":"a"},{"name":"b"}]')));
    expectTypeOf(tasks).toEqualTypeOf<{ name: string }[]>();
    expect(tasks).toEqual([{ name: 'a' }, { name: 'b' }]);
  });

  // Regression: the runner used to stream a tuple's elements, each checked against `items`
  // (zod exports `items: false`, so none arrived), and threw the element scanner's
  // ConfigurationError for an array schema without `items`.
  test('a tuple, a nullable array, an array without items: the document', async () => {
    const pair = m.stream('pair', {}, answering('["a", 1]'));
    const pairs = await collect(pair);
    expectTypeOf(pairs).toEqualTypeOf<[string, number][]>();
    expect(pairs).toEqual([['a', 1]]);
    expect((await pair.outcome).status).toBe('succeeded');

    const maybe = await collect(m.stream('maybe', {}, answering('["a"]')));
    expectTypeOf(maybe).toEqualTypeOf<(string[] | null)[]>();
    expect(maybe).toEqual([['a']]);

    const any = await collect(m.stream('any', {}, answering('[1, "b"]')));
    expectTypeOf(any).toEqualTypeOf<unknown[][]>();
    expect(any).toEqual([[1, 'b']]);

    const tuple = m.stream('tuple', {}, answering('["x", 1]'));
    const tuples = await collect(tuple);
    // json-schema-to-ts: a draft-07 tuple without minItems may be cut short.
    expectTypeOf(tuples).toEqualTypeOf<([] | [string] | [string, number])[]>();
    expect(tuples).toEqual([['x', 1]]);
    expect(await m.invoke('tuple', {}, answering('["x", 1]'))).toEqual(['x', 1]);
  });
});
