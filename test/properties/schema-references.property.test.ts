/**
 * Schema references, as a property: "after construction, nothing a schema holds makes a stream
 * throw" (the promise of "schemas as users have them"), for schemas built to stress how
 * references resolve.
 *
 * Schemas: nested resources with `$id`s (absolute and relative, `id` in draft-04), `$ref`s to
 * `#`, `#/definitions/…`, `#/$defs/…`, pointers into nested resources, the relative URIs of
 * nested `$id`s, `$anchor`s (and draft-07's `$id: "#name"` anchors), URLs nothing defines;
 * `definitions` and `$defs`, boolean sub-schemas, a `$schema` of every dialect at the root (and
 * sometimes in a nested resource), combined with properties, items, oneOf, anyOf and allOf.
 * Inputs: JSON text of values built to roughly follow the schema, mutated (a character
 * replaced, cut short), any JSON, and garbage; under arbitrary split points.
 *
 * Properties:
 * 1. One answer per schema: every engine's factory either accepts the schema or throws a
 *    ConfigurationError, all of them alike; and when plain ajv (test/support/reference-ajv.ts)
 *    compiles it, they accept it — except for a reference cycle that never descends into the
 *    value, refused by design (reference-cycles.ts: such a schema recurses forever on every
 *    value), and relative `$id`s that name one schema only once `..` stops at the top of a root
 *    without its own `$id`, a known limitation (`refusedByDesign` below says why). (The generated schemas carry no patterns, so
 *    the other refusal by design, decision 013's backtracking patterns, cannot arise.)
 * 2. Never throws: once constructed, no engine throws and none emits 'error' on any input at
 *    any chunking — the Node JSONL stream (plain, `prefixCheck`, `failFast`), the partial
 *    stream (plain, `failFast`), the element stream (each element against the schema, plain and
 *    `failFast`), the salvage stream, and core's tool-call decoder (the schema as a tool's).
 *    The one error allowed is the documented one of `failFast`: a `ContractViolationError`.
 * 3. Not vacuous: more than a quarter of the generated schemas reach the streams (about half
 *    do; the rest name what nothing defines, or define one `$id` twice, which ajv refuses).
 *
 * Runs: `numRuns` (test/support/chunking.ts): 300 on CI, 100 locally.
 */

import {
  ConfigurationError,
  ContractViolationError,
  createToolCallDecoder,
  type Diagnostic,
  type JsonSchema,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { createElementStream, createJsonlStream, createPartialStream, createSalvageStream } from '@llmjson/node';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints } from '../support/chunking.js';
import { type Dialect, reference } from '../support/reference-ajv.js';

type Schema = boolean | { [key: string]: unknown };

const DIALECT_URIS: Record<Dialect, string> = {
  'draft-04': 'http://json-schema.org/draft-04/schema#',
  'draft-06': 'http://json-schema.org/draft-06/schema#',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};
const dialect = fc.constantFrom<Dialect>('draft-04', 'draft-06', 'draft-07', '2019-09', '2020-12');

const ROOT_IDS = ['http://example.com/root.json', 'https://example.com/schemas/root', 'root.json', 'urn:example:root'];
const NESTED_IDS = ['node.json', 'sub/inner.json', 'https://example.com/abs.json', '../up.json'];
const ANCHORS = ['node', 'item', 'x-1'];

/** Where a `$ref` may point: resolvable, or not, depending on what the schema around it defines. */
const REFS = [
  '#',
  '#/definitions/a',
  '#/definitions/b',
  '#/$defs/a',
  '#/$defs/b',
  '#/definitions/missing',
  '#/properties/p',
  '#/items',
  '#/oneOf/0',
  '#/definitions/a/properties/p',
  '#node',
  '#item',
  'node.json',
  'node.json#',
  'node.json#/definitions/a',
  'node.json#/$defs/a',
  'node.json#node',
  'sub/inner.json',
  'sub/inner.json#/$defs/b',
  'https://example.com/abs.json',
  'https://example.com/abs.json#item',
  'http://example.com/root.json',
  'http://example.com/root.json#/definitions/b',
  'https://example.com/not-given.json',
  'other.json#/definitions/a',
  'urn:example:root#/$defs/a',
  '#/definitions/a~1b',
  '#/%24defs/a',
];

/** The references that resolve from the root's own resource (it always defines `a` in both places). */
const LOCAL_REFS = ['#', '#/definitions/a', '#/$defs/a'];

const leaf: fc.Arbitrary<Schema> = fc.constantFrom<Schema>(
  true,
  false,
  {},
  { type: 'string' },
  { type: 'string', maxLength: 3 },
  { type: 'integer', minimum: 0 },
  { type: 'number', maximum: 10 },
  { type: ['string', 'null'] },
  { type: 'boolean' },
  { enum: ['a', 'b', 1] },
  { const: 'a' },
  { type: 'object', additionalProperties: false },
  { type: 'array', maxItems: 2 },
);

const { schema: nodeSchema, object: objectSchema } = fc.letrec<{ schema: Schema; object: Schema }>((tie) => {
  const child = () => tie('schema');
  const definitions = fc.record({ a: child(), b: child() }, { requiredKeys: [] });
  return {
    // An object with properties: the partial builder checks each completed member against its
    // sub-schema, which is where a reference must mean what it means in the whole document.
    object: fc
      .record(
        {
          p: child(),
          q: child(),
          additional: fc.oneof(fc.boolean(), child()),
          required: fc.subarray(['p', 'q']),
        },
        { requiredKeys: ['p'] },
      )
      .map(({ p, q, additional, required }) => ({
        type: 'object',
        properties: q === undefined ? { p } : { p, q },
        ...(additional === undefined ? {} : { additionalProperties: additional }),
        ...(required === undefined || required.length === 0 ? {} : { required }),
      })),
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 4, arbitrary: leaf },
      { weight: 3, arbitrary: fc.constantFrom(...LOCAL_REFS).map((ref) => ({ $ref: ref })) },
      { weight: 1, arbitrary: fc.constantFrom(...REFS).map((ref) => ({ $ref: ref })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(...REFS), child())
          .map(([ref, sibling]) => ({ $ref: ref, ...(typeof sibling === 'object' ? sibling : {}) })),
      },
      { weight: 2, arbitrary: tie('object') },
      { weight: 2, arbitrary: child().map((items) => ({ type: 'array', items })) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom('oneOf', 'anyOf', 'allOf'), fc.array(child(), { minLength: 1, maxLength: 3 }))
          .map(([keyword, branches]) => ({ [keyword]: branches })),
      },
      {
        // A nested resource: its own base URI, perhaps an anchor, its own definitions, perhaps its own dialect.
        weight: 2,
        arbitrary: fc
          .record(
            {
              id: fc.constantFrom(...NESTED_IDS),
              anchor: fc.constantFrom(...ANCHORS),
              anchorStyle: fc.constantFrom('$anchor', '$id#'),
              defs: definitions,
              defsKeyword: fc.constantFrom('definitions', '$defs'),
              dialect,
              body: child(),
            },
            { requiredKeys: ['id', 'defsKeyword', 'body'] },
          )
          .map(({ id, anchor, anchorStyle, defs, defsKeyword, dialect: declared, body }) => {
            const resource: Record<string, unknown> = { $id: id };
            if (declared !== undefined) resource.$schema = DIALECT_URIS[declared];
            if (anchor !== undefined && anchorStyle === '$anchor') resource.$anchor = anchor;
            if (defs !== undefined) resource[defsKeyword] = defs;
            Object.assign(resource, typeof body === 'object' ? body : body ? {} : { not: {} });
            // draft-07's anchors: a definition whose `$id` is a bare fragment.
            if (anchor !== undefined && anchorStyle === '$id#') {
              resource.definitions = {
                ...(resource.definitions as object),
                anchored: { $id: `#${anchor}`, type: 'string' },
              };
            }
            return resource;
          }),
      },
    ),
  };
});

/** A root: perhaps a `$schema` and an `$id`, both kinds of definitions, and a body; now and then a bare boolean. */
const objectRoot: fc.Arbitrary<Schema> = fc
  .record(
    {
      dialect,
      id: fc.constantFrom(...ROOT_IDS),
      definitions: fc.record({ a: nodeSchema, b: nodeSchema }, { requiredKeys: ['a'] }),
      defs: fc.record({ a: nodeSchema, b: nodeSchema }, { requiredKeys: ['a'] }),
      body: fc.oneof({ weight: 2, arbitrary: objectSchema }, { weight: 1, arbitrary: nodeSchema }),
    },
    { requiredKeys: ['definitions', 'defs', 'body'] },
  )
  .map(({ dialect: declared, id, definitions, defs, body }) => {
    const root: Record<string, unknown> = {};
    if (declared !== undefined) root.$schema = DIALECT_URIS[declared];
    if (id !== undefined) root[declared === 'draft-04' ? 'id' : '$id'] = id;
    if (definitions !== undefined) root.definitions = definitions;
    if (defs !== undefined) root.$defs = defs;
    Object.assign(root, typeof body === 'object' ? body : body ? {} : { not: {} });
    return declared === 'draft-04' ? draft04Ids(root) : root;
  });

/** draft-04 spells `$id` as `id` (the generated schemas have no property named `$id`). */
function draft04Ids(schema: unknown): Schema {
  if (Array.isArray(schema)) return schema.map(draft04Ids) as unknown as Schema;
  if (typeof schema !== 'object' || schema === null) return schema as Schema;
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k === '$id' ? 'id' : k, draft04Ids(v)]));
}

/** A value that roughly follows `schema` (references are not followed: any JSON stands in). */
function valueFor(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const any = fc.jsonValue({ maxDepth: 2 });
  if (typeof schema === 'boolean' || depth > 4) return any;
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  for (const keyword of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && branches.length > 0) {
      return fc.oneof(...branches.map((branch) => valueFor(branch as Schema, depth + 1)));
    }
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.string({ maxLength: 5 });
    case 'integer':
      return fc.integer({ min: -2, max: 20 });
    case 'number':
      return fc.double({ min: -5, max: 15, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueFor((schema.items ?? true) as Schema, depth + 1), { maxLength: 3 });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return fc.record(Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, valueFor(s, depth + 1)])), {
        requiredKeys: [],
      });
    }
    default:
      return any;
  }
}

/** Input text for `schema`: its values as JSON, mutated or cut, any JSON, or garbage. */
function textFor(schema: Schema): fc.Arbitrary<string> {
  const json = valueFor(schema).map((v) => JSON.stringify(v) ?? 'null');
  return fc.oneof(
    { weight: 4, arbitrary: json },
    {
      weight: 2,
      arbitrary: fc
        .tuple(json, fc.nat(), fc.constantFrom('', '"', '{', '}', ']', ',', ':', '\\', 'x', '\n', '😀'))
        .map(([text, at, insert]) => {
          const i = at % (text.length + 1);
          return text.slice(0, i) + insert + text.slice(i + 1);
        }),
    },
    { weight: 2, arbitrary: fc.tuple(json, fc.nat()).map(([text, at]) => text.slice(0, at % (text.length + 1))) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  );
}

const rootSchema: fc.Arbitrary<Schema> = fc.oneof(
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 15, arbitrary: objectRoot },
);

const cases = rootSchema.chain((schema) =>
  textFor(schema).chain((text) => fc.tuple(fc.constant(schema), fc.constant(text), splitPoints(text.length + 40))),
);

interface Engine {
  readonly name: string;
  readonly failFast: boolean;
  /** The text the engine reads for an answer `text`. */
  readonly text: (text: string) => string;
  /** Constructs the engine (may throw a ConfigurationError); the returned function runs it over chunks. */
  readonly construct: (schema: JsonSchema) => (chunks: readonly string[]) => Promise<unknown>;
}

/** Writes `chunks` to a Node Transform and ends it: the error it emitted or a call threw, if any. */
async function runStream(stream: NodeJS.ReadWriteStream, chunks: readonly string[]): Promise<unknown> {
  stream.on('data', () => undefined);
  stream.on('diagnostic', () => undefined);
  const ended = new Promise<unknown>((resolve) => {
    stream.on('error', resolve);
    stream.on('end', () => resolve(undefined));
  });
  const destroyed = () => (stream as unknown as { destroyed: boolean }).destroyed;
  try {
    for (const chunk of chunks) {
      if (destroyed()) break;
      stream.write(chunk);
    }
    if (!destroyed()) stream.end();
  } catch (thrown) {
    return thrown;
  }
  return ended;
}

const nodeStream =
  (name: string, failFast: boolean, create: (schema: JsonSchema) => NodeJS.ReadWriteStream, text = (t: string) => t) =>
  (): Engine => ({
    name,
    failFast,
    text,
    construct: (schema) => {
      const stream = create(schema);
      return (chunks) => runStream(stream, chunks);
    },
  });

/** An OpenAI chat stream that calls the tool `answer` with `text` as its arguments, in four deltas. */
function toolCallBody(text: string): string {
  const event = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const quarter = Math.max(1, Math.ceil(text.length / 4));
  let out = '';
  for (let i = 0; i * quarter < Math.max(text.length, 1); i++) {
    const piece = text.slice(i * quarter, (i + 1) * quarter);
    const fn = i === 0 ? { name: 'answer', arguments: piece } : { arguments: piece };
    out += event({ tool_calls: [{ index: 0, ...(i === 0 ? { id: 'call_0', type: 'function' } : {}), function: fn }] });
  }
  return `${out}${event({}, 'tool_calls')}data: [DONE]\n\n`;
}

const ENGINES: readonly (() => Engine)[] = [
  nodeStream(
    'jsonl',
    false,
    (schema) => createJsonlStream({ schema, records: true }),
    (t) => `${t}\n`,
  ),
  nodeStream(
    'jsonl prefixCheck',
    false,
    (schema) => createJsonlStream({ schema, records: true, prefixCheck: true }),
    (t) => `${t}\n`,
  ),
  nodeStream(
    'jsonl failFast',
    true,
    (schema) => createJsonlStream({ schema, records: true, failFast: true }),
    (t) => `${t}\n`,
  ),
  nodeStream('partial', false, (schema) => createPartialStream({ schema, emit: 'both' })),
  nodeStream('partial failFast', true, (schema) => createPartialStream({ schema, failFast: true })),
  nodeStream(
    'elements',
    false,
    (schema) => createElementStream({ elementSchema: schema }),
    (t) => `[${t}, ${t}]`,
  ),
  nodeStream(
    'elements failFast',
    true,
    (schema) => createElementStream({ elementSchema: schema, failFast: true }),
    (t) => `[${t}, ${t}]`,
  ),
  nodeStream(
    'salvage',
    false,
    (schema) => createSalvageStream({ schema }),
    (t) => `The answer: ${t} as asked.`,
  ),
  (): Engine => ({
    name: 'core tool calls',
    failFast: false,
    text: toolCallBody,
    construct: (schema) => {
      const decoder = createToolCallDecoder(
        { input: 'auto', tools: { answer: schema }, compileJsonSchema: compileSchema },
        { update() {}, diagnostic(_d: Diagnostic) {}, text() {} },
      );
      return async (chunks) => {
        try {
          for (const chunk of chunks) decoder.write(chunk);
          decoder.end();
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      };
    },
  }),
];

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * A refusal for a schema plain ajv compiles: by design, a reference cycle that never reaches the
 * value; and a known limitation, relative `$id`s that climb above a root without its own `$id`
 * (`"$id": "../up.json"`). llmjson registers such a root under a private absolute id
 * (`llmjson:root`), where `..` stops at the top, so an `$id` inside the climbing one
 * (`"sub/inner.json"` inside `"../up.json"`) can come to name the same URI as another `$id` of the
 * schema, and ajv refuses the duplicate; plain ajv's empty base keeps them apart. It is that case
 * exactly when the `$id`s resolved from `llmjson:root` repeat and those resolved from the empty
 * base do not (`collapsedByPrivateBase`). A relative private id would fix it but lets ajv look
 * `$ref: "__proto__"` up on an object's prototype (hostile-compile.property.test.ts caught that),
 * so the fix needs its own work. Either way the answer is a ConfigurationError at construction.
 */
function refusedByDesign(error: unknown, schema: unknown): boolean {
  if (!(error instanceof ConfigurationError)) return false;
  if (/reference cycle that never descends into the value/.test(error.message)) return true;
  return /resolves to more than one schema/.test(error.message) && collapsedByPrivateBase(schema);
}

/** ajv's own URI resolution (RFC 3986, fast-uri), as it resolves `$id`s. */
const uris = new Ajv().opts.uriResolver;

/** Keywords whose values are data, not schemas: an `$id` in them names nothing. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** The `$id`s (draft-04: `id`) under `schema`, each resolved from `base` through the ones above it, without fragments. */
function resolvedIds(schema: unknown, base: string, found: string[] = []): string[] {
  if (Array.isArray(schema)) {
    for (const item of schema) resolvedIds(item, base, found);
    return found;
  }
  if (typeof schema !== 'object' || schema === null) return found;
  const node = schema as Record<string, unknown>;
  const id = typeof node.$id === 'string' ? node.$id : typeof node.id === 'string' ? node.id : undefined;
  let here = base;
  if (id !== undefined && !id.startsWith('#')) {
    here = uris.resolve(base, id).replace(/#.*$/, '');
    found.push(here);
  }
  for (const [key, value] of Object.entries(node)) if (!DATA_KEYWORDS.has(key)) resolvedIds(value, here, found);
  return found;
}

/** The schema's root has no `$id`, and its `$id`s name one URI twice only from the private base. */
function collapsedByPrivateBase(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return false;
  const root = schema as Record<string, unknown>;
  if (typeof root.$id === 'string' || typeof root.id === 'string') return false;
  const repeats = (ids: string[]) => new Set(ids).size < ids.length;
  return repeats(resolvedIds(schema, 'llmjson:root')) && !repeats(resolvedIds(schema, ''));
}

describe('the known limitation, told apart from a schema that repeats an $id', () => {
  test('an $id inside one that climbs above the root names the URI of another only from the private base', () => {
    // Found by this file's property (CI, seed -393790634).
    const climbing = {
      definitions: { a: true },
      $defs: { a: { $id: '../up.json', definitions: { a: { $id: 'sub/inner.json' } } } },
      type: 'object',
      properties: { p: true, q: { oneOf: [{ oneOf: [{ $id: 'sub/inner.json' }] }] } },
    };
    expect(reference(climbing).compiled).toBe(true);
    let why: unknown;
    try {
      compileSchema(climbing as JsonSchema);
    } catch (error) {
      why = error;
    }
    expect(refusedByDesign(why, climbing)).toBe(true);
    // The same $id twice is a duplicate from any base: not the limitation.
    const repeated = { properties: { a: { $id: 'same.json' }, b: { $id: 'same.json' } } };
    expect(collapsedByPrivateBase(repeated)).toBe(false);
    // A root with its own $id is registered under it: not the limitation either.
    expect(collapsedByPrivateBase({ ...climbing, $id: 'https://example.com/root.json' })).toBe(false);
    // `..` inside data is no $id.
    expect(collapsedByPrivateBase({ const: { $id: '../x.json' }, properties: { a: { $id: 'x.json' } } })).toBe(false);
  });
});

describe('schema references: construction refuses or the streams never throw', () => {
  test('every engine, any input, any chunking; many generated schemas are accepted', async () => {
    const counts = { accepted: 0, refused: 0, plainRefused: 0 };
    await fc.assert(
      fc.asyncProperty(cases, async ([schema, text, points]) => {
        const refusals: string[] = [];
        const runs: { engine: Engine; run: (chunks: readonly string[]) => Promise<unknown> }[] = [];
        for (const make of ENGINES) {
          const engine = make();
          try {
            runs.push({ engine, run: engine.construct(schema as JsonSchema) });
          } catch (error) {
            expect(
              error,
              `${engine.name}: construction threw something other than a ConfigurationError`,
            ).toBeInstanceOf(ConfigurationError);
            refusals.push(`${engine.name}: ${describeError(error)}`);
          }
        }
        // One answer per schema: all engines accept it, or all refuse it.
        expect(refusals.length === 0 || runs.length === 0, `engines disagree: ${refusals.join('; ')}`).toBe(true);
        const plain = reference(schema);
        if (!plain.compiled) counts.plainRefused++;
        if (runs.length === 0) {
          counts.refused++;
          if (plain.compiled) {
            let why: unknown;
            try {
              compileSchema(schema as JsonSchema);
            } catch (error) {
              why = error;
            }
            expect(refusedByDesign(why, schema), `plain ajv compiles it, llmjson refuses it: ${refusals[0]}`).toBe(
              true,
            );
          }
          return;
        }
        counts.accepted++;
        const failures: string[] = [];
        for (const { engine, run } of runs) {
          const error = await run(splitAt(engine.text(text), points));
          if (error !== undefined && !(engine.failFast && error instanceof ContractViolationError)) {
            failures.push(`${engine.name}: ${describeError(error)}`);
          }
        }
        expect(failures, failures.join('\n')).toEqual([]);
      }),
      { numRuns },
    );
    // Not vacuous: the references resolve often enough that many schemas reach the streams
    // (about half; a quarter is the floor, far below what any seed gives).
    expect(counts.accepted, JSON.stringify(counts)).toBeGreaterThan(numRuns / 4);
    // A bound on a hang, not a speed limit: the CI's runs took 9 s here.
  }, 600_000);
});
