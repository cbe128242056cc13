/**
 * Typed values (issue 12, item 3): a Standard Schema types what every engine and stream
 * delivers; a JSON Schema or no schema gives `unknown`, as before. The `expectTypeOf` calls
 * are checked by `tsc -p tsconfig.test.json` (test/ is in its `include`), and `@ts-expect-error`
 * lines fail that check if the error they expect goes away; the test bodies also run, so each
 * typed value is compared with what the stream really delivers.
 *
 * The value type is the schema's *input* type (`SchemaValue`): the engines deliver the parsed
 * JSON that the vendor's `validate` accepted, not the vendor's output, so a zod `transform`
 * does not change the delivered value (pinned below). For these schemas input = output.
 */
import { Readable } from 'node:stream';
import {
  type Change,
  createJsonlDecoder,
  createPartialBuilder,
  type DeepPartial,
  extractAllJson,
  extractElements,
  extractJson,
  type JsonlRecord,
  type JsonSchema,
  parseJsonl,
  type SchemaValue,
  type StandardSchemaV1,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import {
  definitionRelationshipArktype,
  definitionRelationshipJsonSchema,
  definitionRelationshipValibot,
  type definitionRelationshipValibotExported,
  definitionRelationshipZod,
} from '../support/standard-schemas.js';
import { readAll } from '../support/web.js';

/** The fixture's type, as written by hand. */
type Definition = { type: 'definition'; entity: string; definition: string };

const definition = { type: 'definition', entity: 'JSONL', definition: 'one JSON value per line' };
const relationship = { type: 'relationship', subject: 'JSONL', predicate: 'is', object: 'text' };
const jsonl = `${JSON.stringify(definition)}\n${JSON.stringify(relationship)}\n`;
const prose = `Here it is:\n\`\`\`json\n${JSON.stringify(definition)}\n\`\`\`\n`;
const array = `[${JSON.stringify(definition)},${JSON.stringify(relationship)}]`;

const zodSchema = definitionRelationshipZod;
type Zod = z.input<typeof zodSchema>;

describe('the value type', () => {
  test('is the Standard Schema input type of each vendor', () => {
    expectTypeOf<SchemaValue<typeof zodSchema>>().toEqualTypeOf<Zod>();
    expectTypeOf<SchemaValue<typeof definitionRelationshipValibot>>().toEqualTypeOf<
      StandardSchemaV1.InferInput<typeof definitionRelationshipValibot>
    >();
    expectTypeOf<SchemaValue<typeof definitionRelationshipValibotExported>>().toEqualTypeOf<
      StandardSchemaV1.InferInput<typeof definitionRelationshipValibotExported>
    >();
    expectTypeOf<SchemaValue<typeof definitionRelationshipArktype>>().toEqualTypeOf<
      StandardSchemaV1.InferInput<typeof definitionRelationshipArktype>
    >();
    // Every vendor's branch narrows on `type` to the same members.
    expectTypeOf<Extract<SchemaValue<typeof zodSchema>, { type: 'definition' }>>().toEqualTypeOf<Definition>();
    expectTypeOf<
      Extract<SchemaValue<typeof definitionRelationshipValibot>, { type: 'definition' }>
    >().toEqualTypeOf<Definition>();
    expectTypeOf<
      Extract<SchemaValue<typeof definitionRelationshipArktype>, { type: 'definition' }>
    >().toEqualTypeOf<Definition>();
    expect(zodSchema['~standard'].vendor).toBe('zod');
  });

  test('is unknown for a JSON Schema and for no schema', () => {
    expectTypeOf<SchemaValue<JsonSchema>>().toBeUnknown();
    expectTypeOf(
      parseJsonl(jsonl, { schema: definitionRelationshipJsonSchema, compileJsonSchema: compileSchema }).values,
    ).toEqualTypeOf<unknown[]>();
    expectTypeOf(parseJsonl(jsonl).values).toEqualTypeOf<unknown[]>();
    expect(parseJsonl(jsonl).values).toEqual([definition, relationship]);
  });

  test('is the input, not the output, of a transforming schema: the delivered value is the JSON', () => {
    const schema = z.object({ count: z.string().transform(Number) });
    const { values } = parseJsonl('{"count":"3"}\n', { schema, compileJsonSchema: compileSchema });
    expectTypeOf(values).toEqualTypeOf<{ count: string }[]>();
    expect(values).toEqual([{ count: '3' }]);
  });
});

describe('core engines', () => {
  test('parseJsonl values and records', () => {
    const result = parseJsonl(jsonl, { schema: zodSchema });
    expectTypeOf(result.values).toEqualTypeOf<Zod[]>();
    expectTypeOf(result.records).toEqualTypeOf<JsonlRecord<Zod>[]>();
    const first = result.values[0];
    if (first?.type === 'definition') expectTypeOf(first.entity).toEqualTypeOf<string>();
    // @ts-expect-error: no such property on either branch
    first?.nope;
    expect(result.values).toEqual([definition, relationship]);
  });

  test('createJsonlDecoder sink', () => {
    const seen: Zod[] = [];
    const decoder = createJsonlDecoder(
      { schema: definitionRelationshipArktype },
      {
        value(value) {
          expectTypeOf(value).toEqualTypeOf<SchemaValue<typeof definitionRelationshipArktype>>();
          seen.push(value);
        },
        diagnostic() {},
      },
    );
    decoder.write(jsonl);
    decoder.end();
    expect(seen).toEqual([definition, relationship]);
  });

  test('extractJson and extractAllJson', () => {
    const one = extractJson(prose, { schema: definitionRelationshipValibot });
    expectTypeOf(one?.value).toEqualTypeOf<SchemaValue<typeof definitionRelationshipValibot> | undefined>();
    // @ts-expect-error: `entity` is only on the definition branch
    one?.value.entity;
    const all = extractAllJson(prose, { schema: zodSchema });
    expectTypeOf(all[0]?.value).toEqualTypeOf<Zod | undefined>();
    expectTypeOf(extractJson(prose)?.value).toBeUnknown();
    expect(one?.value).toEqual(definition);
    expect(all.map((v) => v.value)).toEqual([definition]);
  });

  test('extractElements with an element schema', () => {
    const element = z.object({ type: z.string(), entity: z.string().optional() });
    const { values, records } = extractElements(array, { elementSchema: element });
    expectTypeOf(values).toEqualTypeOf<z.input<typeof element>[]>();
    expectTypeOf(records[0]?.value).toEqualTypeOf<z.input<typeof element> | undefined>();
    // @ts-expect-error: not in the element schema
    values[0]?.subject;
    expectTypeOf(extractElements(array).values).toEqualTypeOf<unknown[]>();
    expect(values).toEqual([definition, relationship]);
  });

  test('createPartialBuilder snapshots are DeepPartial', () => {
    const schema = z.object({ title: z.string(), tags: z.array(z.string()), count: z.number() });
    const snapshots: DeepPartial<z.input<typeof schema>>[] = [];
    const builder = createPartialBuilder(
      { schema },
      {
        update(value) {
          expectTypeOf(value).toEqualTypeOf<{ title?: string; tags?: string[]; count?: number }>();
          snapshots.push(value);
        },
        diagnostic() {},
      },
    );
    expectTypeOf(builder.value).toEqualTypeOf<{ title?: string; tags?: string[]; count?: number } | undefined>();
    builder.write('{"title":"Ty');
    builder.write('pes","tags":["a"],"count":2}');
    builder.end();
    expect(snapshots.at(-1)).toEqual({ title: 'Types', tags: ['a'], count: 2 });
    expect(builder.value).toEqual({ title: 'Types', tags: ['a'], count: 2 });
  });

  test('DeepPartial: strings may be cut short, literals included; unknown stays unknown', () => {
    expectTypeOf<DeepPartial<Definition>>().toEqualTypeOf<{ type?: string; entity?: string; definition?: string }>();
    expectTypeOf<DeepPartial<{ n: number; list: { b: boolean }[] }>>().toEqualTypeOf<{
      n?: number;
      list?: { b?: boolean }[];
    }>();
    expectTypeOf<DeepPartial<unknown>>().toBeUnknown();
    expect(true).toBe(true);
  });
});

describe('Node streams', () => {
  test('createJsonlStream: for await yields the schema type', async () => {
    const stream = node.createJsonlStream({ schema: zodSchema });
    expectTypeOf(stream).toEqualTypeOf<node.JsonlStream<Zod>>();
    const values: Zod[] = [];
    for await (const value of Readable.from([jsonl]).pipe(stream)) values.push(value);
    const direct = node.createJsonlStream({ schema: zodSchema });
    direct.end(jsonl);
    for await (const value of direct) {
      expectTypeOf(value).toEqualTypeOf<Zod>();
      // @ts-expect-error: no such property on either branch
      value.nope;
    }
    expect(values).toEqual([definition, relationship]);
  });

  test('createJsonlStream: data events, records, no schema', async () => {
    const stream = node.createJsonlStream({ schema: zodSchema });
    const seen: Zod[] = [];
    stream.on('data', (value) => {
      expectTypeOf(value).toEqualTypeOf<Zod>();
      seen.push(value);
    });
    const ended = new Promise((resolve) => stream.on('end', resolve));
    stream.end(jsonl);
    await ended;
    expect(seen).toEqual([definition, relationship]);

    const records = node.createJsonlStream({ schema: zodSchema, records: true });
    expectTypeOf(records).toEqualTypeOf<node.JsonlStream<JsonlRecord<Zod>>>();
    records.end(jsonl);
    const all = await records.toArray();
    expect(all.map((r) => r.value)).toEqual([definition, relationship]);

    expectTypeOf(node.createJsonlStream()).toEqualTypeOf<node.JsonlStream<unknown>>();
    expectTypeOf(node.createJsonlStream({ schema: definitionRelationshipJsonSchema })).toEqualTypeOf<
      node.JsonlStream<unknown>
    >();
  });

  test('salvage, element and partial streams', async () => {
    const salvage = node.createSalvageStream({ schema: zodSchema });
    salvage.end(prose);
    const salvaged = await salvage.toArray();
    expectTypeOf(salvaged[0]?.value).toEqualTypeOf<Zod | undefined>();
    expect(salvaged.map((v) => v.value)).toEqual([definition]);

    const element = z.object({ type: z.string() });
    const elements = node.createElementStream({ elementSchema: element });
    elements.end(array);
    const records = await elements.toArray();
    expectTypeOf(records[0]?.value).toEqualTypeOf<{ type: string } | undefined>();
    expect(records.map((r) => r.value.type)).toEqual(['definition', 'relationship']);

    const doc = z.object({ title: z.string(), count: z.number() });
    const partial = node.createPartialStream({ schema: doc });
    partial.end('{"title":"T","count":1}');
    const snapshots = await partial.toArray();
    expectTypeOf(snapshots).toEqualTypeOf<{ title?: string; count?: number }[]>();
    expectTypeOf(partial.value).toEqualTypeOf<{ title?: string; count?: number } | undefined>();
    expect(snapshots.at(-1)).toEqual({ title: 'T', count: 1 });

    const both = node.createPartialStream({ schema: doc, emit: 'both' });
    both.end('{"title":"T","count":1}');
    const updates = await both.toArray();
    expectTypeOf(updates[0]?.value).toEqualTypeOf<{ title?: string; count?: number } | undefined>();
    expectTypeOf(updates[0]?.changes).toEqualTypeOf<readonly Change[] | undefined>();
    expect(updates.at(-1)?.value).toEqual({ title: 'T', count: 1 });

    const changes = node.createPartialStream({ schema: doc, emit: 'changes' });
    changes.end('{}');
    expectTypeOf(await changes.toArray()).toEqualTypeOf<(readonly Change[])[]>();
  });
});

describe('Web streams', () => {
  test('createJsonlStream is a TransformStream of the schema type', async () => {
    const stream = web.createJsonlStream({ schema: zodSchema });
    expectTypeOf(stream).toMatchTypeOf<TransformStream<string | Uint8Array, Zod>>();
    expectTypeOf(stream.readable).toEqualTypeOf<ReadableStream<Zod>>();
    const writer = stream.writable.getWriter();
    void writer.write(jsonl).then(() => writer.close());
    const values = await readAll(stream.readable);
    expectTypeOf(values).toEqualTypeOf<Zod[]>();
    // @ts-expect-error: no such property on either branch
    values[0]?.nope;
    expect(values).toEqual([definition, relationship]);

    expectTypeOf(web.createJsonlStream({ schema: zodSchema, records: true }).readable).toEqualTypeOf<
      ReadableStream<JsonlRecord<Zod>>
    >();
    expectTypeOf(web.createJsonlStream().readable).toEqualTypeOf<ReadableStream<unknown>>();
  });

  test('salvage, element and partial streams', async () => {
    const run = async <T>(stream: TransformStream<string | Uint8Array, T>, text: string): Promise<T[]> => {
      const writer = stream.writable.getWriter();
      void writer.write(text).then(() => writer.close());
      return readAll(stream.readable);
    };
    const salvaged = await run(web.createSalvageStream({ schema: definitionRelationshipArktype }), prose);
    expectTypeOf(salvaged[0]?.value).toEqualTypeOf<SchemaValue<typeof definitionRelationshipArktype> | undefined>();
    expect(salvaged.map((v) => v.value)).toEqual([definition]);

    const element = z.object({ type: z.string() });
    const records = await run(web.createElementStream({ elementSchema: element }), array);
    expectTypeOf(records[0]?.value).toEqualTypeOf<{ type: string } | undefined>();
    expect(records.map((r) => r.value.type)).toEqual(['definition', 'relationship']);

    const doc = z.object({ title: z.string() });
    const partial = web.createPartialStream({ schema: doc });
    const snapshots = await run(partial, '{"title":"T"}');
    expectTypeOf(snapshots).toEqualTypeOf<{ title?: string }[]>();
    expectTypeOf(partial.value).toEqualTypeOf<{ title?: string } | undefined>();
    expect(snapshots.at(-1)).toEqual({ title: 'T' });
  });
});

describe('JSON Schema written as const', () => {
  const schema = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      kind: { enum: ['a', 'b'] },
    },
    required: ['title', 'kind'],
    additionalProperties: false,
  } as const;
  type Expected = { title: string; tags?: string[]; kind: 'a' | 'b' };

  test('infers its type through json-schema-to-ts, on core, Node and Web', async () => {
    const { values } = parseJsonl('{"title":"T","kind":"a"}\n', { schema, compileJsonSchema: compileSchema });
    expectTypeOf(values).toEqualTypeOf<Expected[]>();
    // @ts-expect-error: additionalProperties is false
    values[0]?.subtitle;
    expectTypeOf(node.createJsonlStream({ schema })).toEqualTypeOf<node.JsonlStream<Expected>>();
    expectTypeOf(web.createJsonlStream({ schema, compileJsonSchema: compileSchema }).readable).toEqualTypeOf<
      ReadableStream<Expected>
    >();
    expectTypeOf(
      extractJson('{"title":"T","kind":"b"}', { schema, compileJsonSchema: compileSchema })?.value,
    ).toEqualTypeOf<Expected | undefined>();
    const stream = node.createJsonlStream({ schema });
    stream.end('{"title":"T","kind":"a"}\n');
    const read = await stream.toArray();
    expectTypeOf(read).toEqualTypeOf<Expected[]>();
    expect(values).toEqual([{ title: 'T', kind: 'a' }]);
    expect(read).toEqual([{ title: 'T', kind: 'a' }]);
  });

  test('a JSON Schema with a $ref stays unknown (json-schema-to-ts cannot follow a recursive one)', () => {
    const tree = {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#' } } },
    } as const;
    const { values } = parseJsonl('{"children":[]}\n', { schema: tree, compileJsonSchema: compileSchema });
    expectTypeOf(values).toEqualTypeOf<unknown[]>();
    expect(values).toEqual([{ children: [] }]);
  });

  test('a JSON Schema of the wide JsonSchema type stays unknown', () => {
    const wide: JsonSchema = schema;
    expectTypeOf(parseJsonl('', { schema: wide, compileJsonSchema: compileSchema }).values).toEqualTypeOf<unknown[]>();
    expectTypeOf<SchemaValue<JsonSchema>>().toBeUnknown();
    expect(
      parseJsonl('{"title":"T","kind":"a"}\n', { schema: wide, compileJsonSchema: compileSchema }).values,
    ).toHaveLength(1);
  });
});
