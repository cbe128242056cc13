/**
 * One API on Node and on the Web: @llmjson/node and @llmjson/web export the same names, every
 * factory takes the same options, and the streams they return carry the same properties of
 * the same types (`stats`, `value`, `complete`, `calls`, the provider's state) and yield the
 * same items, `records` and `emit` overloads included. Side channels (diagnostics, text,
 * reasoning, tool-call arguments, metadata) are options callbacks on both; the Node streams
 * emit them as events too, which is Node's own surface.
 *
 * The `expectTypeOf` calls are checked by `tsc -p tsconfig.test.json` (test/ is in its
 * `include`): an option or a property added to one package only, a factory or an export
 * missing from one, fails that check. The test bodies also run, feeding both packages the same
 * input and comparing what they deliver and what their properties read.
 *
 * What differs, and is allowed to, is listed here and nowhere else:
 * - the stream itself: a Node `Transform` (with typed `on`, `toArray` and async iteration)
 *   and a WHATWG `TransformStream`; the helpers compare what each adds to its base;
 * - `readableFrom` returns a Node `Readable` on Node and a `ReadableStream` on the Web;
 * - a JSON `null` line in plain JSONL mode, which a Node object-mode stream cannot carry
 *   (decision 004): Node's plain items exclude `null`;
 * - options: none. `NODE_ONLY_OPTIONS` and `WEB_ONLY_OPTIONS` are empty (`highWaterMark` means
 *   the readable side's buffer, in values, on both).
 */
import { type Readable, Transform } from 'node:stream';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { definitionRelationshipZod } from '../support/standard-schemas.js';
import { readAll } from '../support/web.js';

/** Option names only one package takes (none today): listed here, on purpose, when one must. */
type NODE_ONLY_OPTIONS = never;
type WEB_ONLY_OPTIONS = never;

/**
 * What a Node stream adds to `Transform`, and a Web stream to `TransformStream`. No property of
 * ours may reuse a name of `Transform`'s (the provider state says `doneMarker`, not `closed`,
 * which on Node is `Readable#closed`): the last test checks that.
 */
type NodeOwn<S> = Omit<S, keyof Transform>;
type WebOwn<S> = Omit<S, keyof TransformStream>;
/** What the readable side yields. */
type NodeItem<S> = S extends { toArray(...args: any[]): Promise<(infer T)[]> } ? T : never;
type WebItem<S> = S extends TransformStream<any, infer T> ? T : never;

type NodeOptions<O> = Omit<O, NODE_ONLY_OPTIONS>;
type WebOptions<O> = Omit<O, WEB_ONLY_OPTIONS>;

const schema = definitionRelationshipZod;
type Schema = typeof schema;
type Value = z.input<Schema>;
const tools = { weather: z.object({ city: z.string() }), search: z.object({ query: z.string() }) };
type Tools = typeof tools;

describe('the exports', () => {
  test('the same names, and one value per name (the core exports are the same objects)', () => {
    expectTypeOf<keyof typeof node>().toEqualTypeOf<keyof typeof web>();
    const nodeExports: Record<string, unknown> = { ...node };
    const webExports: Record<string, unknown> = { ...web };
    expect(Object.keys(nodeExports).sort()).toEqual(Object.keys(webExports).sort());
    for (const name of Object.keys(nodeExports)) {
      if (!/^create|^readableFrom$/.test(name)) expect(nodeExports[name], name).toBe(webExports[name]);
    }
  });

  test('the same exported types', () => {
    expectTypeOf<node.PartialUpdate<Value>>().toEqualTypeOf<web.PartialUpdate<Value>>();
    expectTypeOf<node.ToolCallItem<Tools>>().toEqualTypeOf<web.ToolCallItem<Tools>>();
    expectTypeOf<node.OpenAICompatibleOptions>().toEqualTypeOf<web.OpenAICompatibleOptions>();
    expectTypeOf<node.OpenAICompatibleRequest>().toEqualTypeOf<web.OpenAICompatibleRequest>();
    expectTypeOf<node.OpenAICompatibleResult>().toEqualTypeOf<web.OpenAICompatibleResult>();
    expectTypeOf<node.LlmResult>().toEqualTypeOf<web.LlmResult>();
    expectTypeOf<node.ElementStats>().toEqualTypeOf<web.ElementStats>();
    expectTypeOf<node.SalvageStats>().toEqualTypeOf<web.SalvageStats>();
    expectTypeOf<node.ProviderInput>().toEqualTypeOf<web.ProviderInput>();
  });
});

describe('the option types are the same', () => {
  test('for every factory, with and without a schema', () => {
    expectTypeOf<NodeOptions<node.JsonlStreamOptions>>().toEqualTypeOf<WebOptions<web.JsonlStreamOptions>>();
    expectTypeOf<NodeOptions<node.JsonlStreamOptions<Schema>>>().toEqualTypeOf<
      WebOptions<web.JsonlStreamOptions<Schema>>
    >();
    expectTypeOf<NodeOptions<node.ElementStreamOptions>>().toEqualTypeOf<WebOptions<web.ElementStreamOptions>>();
    expectTypeOf<NodeOptions<node.ElementStreamOptions<Schema>>>().toEqualTypeOf<
      WebOptions<web.ElementStreamOptions<Schema>>
    >();
    expectTypeOf<NodeOptions<node.PartialStreamOptions>>().toEqualTypeOf<WebOptions<web.PartialStreamOptions>>();
    expectTypeOf<NodeOptions<node.PartialStreamOptions<Schema>>>().toEqualTypeOf<
      WebOptions<web.PartialStreamOptions<Schema>>
    >();
    expectTypeOf<NodeOptions<node.SalvageStreamOptions>>().toEqualTypeOf<WebOptions<web.SalvageStreamOptions>>();
    expectTypeOf<NodeOptions<node.SalvageStreamOptions<Schema>>>().toEqualTypeOf<
      WebOptions<web.SalvageStreamOptions<Schema>>
    >();
    expectTypeOf<NodeOptions<node.ProviderStreamOptions>>().toEqualTypeOf<WebOptions<web.ProviderStreamOptions>>();
    expectTypeOf<NodeOptions<node.ToolCallStreamOptions>>().toEqualTypeOf<WebOptions<web.ToolCallStreamOptions>>();
    expectTypeOf<NodeOptions<node.ToolCallStreamOptions<Tools>>>().toEqualTypeOf<
      WebOptions<web.ToolCallStreamOptions<Tools>>
    >();
    // The factories take their exported option types (the last overload is the widest).
    expectTypeOf<Parameters<typeof node.createJsonlStream>[0]>().toEqualTypeOf<node.JsonlStreamOptions | undefined>();
    expectTypeOf<Parameters<typeof web.createJsonlStream>[0]>().toEqualTypeOf<web.JsonlStreamOptions | undefined>();
    expectTypeOf<Parameters<typeof node.readableFrom>>().toEqualTypeOf<Parameters<typeof web.readableFrom>>();
    expectTypeOf(node.readableFrom).returns.toEqualTypeOf<Readable>();
    expectTypeOf(web.readableFrom).returns.toEqualTypeOf<ReadableStream<string | Uint8Array>>();
  });
});

const JSONL = `{"type":"definition","entity":"JSONL","definition":"one value per line"}\nnull\nnot json\n{"type":"relationship","subject":"a","predicate":"b","object":"c"}\n`;

/** Writes `input` to a Node stream and collects its items. */
async function throughNode<T>(stream: Transform & { toArray(): Promise<T[]> }, input: string): Promise<T[]> {
  stream.end(input);
  return stream.toArray();
}

/** Pipes `input` through a Web stream and collects its items. */
function throughWeb<T>(stream: TransformStream<string | Uint8Array, T>, input: string): Promise<T[]> {
  return readAll(ReadableStream.from([input]).pipeThrough(stream));
}

describe('the streams have the same properties and items', () => {
  test('createJsonlStream: stats; records and plain overloads (plain null: Node excludes it)', async () => {
    const nodeRecords = node.createJsonlStream({ schema, records: true });
    const webRecords = web.createJsonlStream({ schema, records: true });
    expectTypeOf<NodeOwn<typeof nodeRecords>>().toEqualTypeOf<WebOwn<typeof webRecords>>();
    expectTypeOf<NodeItem<typeof nodeRecords>>().toEqualTypeOf<WebItem<typeof webRecords>>();
    expectTypeOf<NodeItem<typeof nodeRecords>>().toEqualTypeOf<node.JsonlRecord<Value>>();
    const nodePlain = node.createJsonlStream({ schema });
    const webPlain = web.createJsonlStream({ schema });
    expectTypeOf<NodeOwn<typeof nodePlain>>().toEqualTypeOf<WebOwn<typeof webPlain>>();
    expectTypeOf<NodeItem<typeof nodePlain>>().toEqualTypeOf<Exclude<WebItem<typeof webPlain>, null>>();
    const nodeUntyped = node.createJsonlStream({ records: true });
    const webUntyped = web.createJsonlStream({ records: true });
    expectTypeOf<NodeItem<typeof nodeUntyped>>().toEqualTypeOf<WebItem<typeof webUntyped>>();

    expect(await throughNode(nodeRecords, JSONL)).toEqual(await throughWeb(webRecords, JSONL));
    expect(nodeRecords.stats).toEqual(webRecords.stats);
    expect(await throughNode(nodeUntyped, JSONL)).toEqual(await throughWeb(webUntyped, JSONL));
  });

  test('createElementStream: stats; items typed by elementSchema', async () => {
    const options = { path: '$.items', elementSchema: z.object({ n: z.number() }) } as const;
    const n = node.createElementStream(options);
    const w = web.createElementStream(options);
    expectTypeOf<NodeOwn<typeof n>>().toEqualTypeOf<WebOwn<typeof w>>();
    expectTypeOf<NodeItem<typeof n>>().toEqualTypeOf<WebItem<typeof w>>();
    expectTypeOf<NodeItem<typeof n>>().toEqualTypeOf<node.ElementRecord<{ n: number }>>();
    const input = '{"items":[{"n":1},{"n":"two"},{"n":3}';
    expect(await throughNode(n, input)).toEqual(await throughWeb(w, input));
    expect(n.stats).toEqual(w.stats);
  });

  test('createPartialStream: stats, value, complete; the emit overloads', async () => {
    const n = node.createPartialStream({ schema });
    const w = web.createPartialStream({ schema });
    expectTypeOf<NodeOwn<typeof n>>().toEqualTypeOf<WebOwn<typeof w>>();
    expectTypeOf(n.value).toEqualTypeOf(w.value);
    expectTypeOf(n.complete).toEqualTypeOf<boolean>();
    expectTypeOf<NodeItem<typeof n>>().toEqualTypeOf<WebItem<typeof w>>();
    for (const emit of ['changes', 'both'] as const) {
      const nodeEmit = node.createPartialStream({ schema, emit });
      const webEmit = web.createPartialStream({ schema, emit });
      expectTypeOf<NodeOwn<typeof nodeEmit>>().toEqualTypeOf<WebOwn<typeof webEmit>>();
      expectTypeOf<NodeItem<typeof nodeEmit>>().toEqualTypeOf<WebItem<typeof webEmit>>();
    }
    const input = '{"type":"definition","entity":"JSONL","definition":"one value per line"}';
    expect(await throughNode(n, input)).toEqual(await throughWeb(w, input));
    for (const name of ['stats', 'value', 'complete'] as const) expect(n[name], name).toEqual(w[name]);
    expect(n.complete).toBe(true);
  });

  test('createSalvageStream: stats; items typed by the schema', async () => {
    const n = node.createSalvageStream({ schema });
    const w = web.createSalvageStream({ schema });
    expectTypeOf<NodeOwn<typeof n>>().toEqualTypeOf<WebOwn<typeof w>>();
    expectTypeOf<NodeItem<typeof n>>().toEqualTypeOf<WebItem<typeof w>>();
    const input = 'Sure: ```json\n{"type":"definition","entity":"a","definition":"b"}\n``` and {"type":"x"}';
    expect(await throughNode(n, input)).toEqual(await throughWeb(w, input));
    expect(n.stats).toEqual(w.stats);
  });

  const SSE = [
    { model: 'm-1', choices: [{ index: 0, delta: { reasoning_content: 'think' } }] },
    { model: 'm-1', choices: [{ index: 0, delta: { content: 'It is ' } }] },
    {
      model: 'm-1',
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'c1', function: { name: 'weather', arguments: '{"city":"Li' } }] },
        },
      ],
    },
    { model: 'm-1', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ma"}' } }] } }] },
    { model: 'm-1', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
  ]
    .map((event) => `data: ${JSON.stringify(event)}\n\n`)
    .join('');

  test('createProviderStream: the decoder state; side channels through the same callbacks on both', async () => {
    const seen = { node: [] as unknown[], web: [] as unknown[] };
    const callbacks = (into: unknown[]): node.ProviderStreamOptions & web.ProviderStreamOptions => ({
      input: 'openai',
      onToolArguments: (key, delta) => into.push(['toolArguments', key, delta]),
      onReasoning: (delta) => into.push(['reasoning', delta]),
      onMetadata: (metadata) => into.push(['metadata', { ...metadata }]),
      onDiagnostic: (d) => into.push(['diagnostic', d.reason]),
    });
    const n = node.createProviderStream(callbacks(seen.node));
    const w = web.createProviderStream(callbacks(seen.web));
    expectTypeOf<NodeOwn<typeof n>>().toEqualTypeOf<WebOwn<typeof w>>();
    expectTypeOf<NodeItem<typeof n>>().toEqualTypeOf<WebItem<typeof w>>();
    expectTypeOf<NodeItem<typeof n>>().toEqualTypeOf<string>();
    const events: unknown[] = [];
    n.on('reasoning', (delta: string) => events.push(['reasoning', delta]));
    expect((await throughNode(n, SSE)).join('')).toBe('It is ');
    expect((await throughWeb(w, SSE)).join('')).toBe('It is ');
    expect(seen.node).toEqual(seen.web);
    expect(seen.node).toContainEqual(['reasoning', 'think']);
    expect(seen.node).toContainEqual(['toolArguments', 'choice0.tool_call0', 'ma"}']);
    expect(events).toEqual([['reasoning', 'think']]);
    for (const name of ['model', 'finishReason', 'stats'] as const) expect(n[name], name).toEqual(w[name]);
  });

  test('createToolCallStream: stats, calls, the provider state; typed updates; the same callbacks', async () => {
    const seen = { node: [] as unknown[], web: [] as unknown[] };
    const options = (into: unknown[]) =>
      ({
        input: 'openai',
        tools,
        onText: (delta: string) => into.push(['text', delta]),
        onReasoning: (delta: string) => into.push(['reasoning', delta]),
        onMetadata: (metadata: node.ProviderMetadata) => into.push(['metadata', { ...metadata }]),
      }) as const;
    const n = node.createToolCallStream(options(seen.node));
    const w = web.createToolCallStream(options(seen.web));
    expectTypeOf<NodeOwn<typeof n>>().toEqualTypeOf<WebOwn<typeof w>>();
    expectTypeOf<NodeItem<typeof n>>().toEqualTypeOf<WebItem<typeof w>>();
    expectTypeOf<NodeItem<typeof n>>().toEqualTypeOf<node.ToolCallItem<Tools>>();
    const texts: string[] = [];
    n.on('text', (delta: string) => texts.push(delta));
    expect(await throughNode(n, SSE)).toEqual(await throughWeb(w, SSE));
    expect(seen.node).toEqual(seen.web);
    expect(seen.node).toContainEqual(['text', 'It is ']);
    expect(texts).toEqual(['It is ']);
    for (const name of ['stats', 'calls', 'model', 'finishReason'] as const) expect(n[name], name).toEqual(w[name]);
    expect(n.calls).toMatchObject([{ name: 'weather', value: { city: 'Lima' }, complete: true }]);
  });

  test('a JSON Schema: Node compiles it with ajv by default, the Web with compileJsonSchema; the same values', async () => {
    const jsonSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const n = node.createJsonlStream({ schema: jsonSchema });
    const w = web.createJsonlStream({ schema: jsonSchema, compileJsonSchema: compileSchema });
    const input = '{"n":1}\n{"n":"x"}\n{"n":2}\n';
    expect(await throughNode(n, input)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await throughWeb(w, input)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(n.stats).toEqual(w.stats);
  });

  test('no Node stream hides a member of Transform behind a property of its own (closed, destroyed, …)', () => {
    const plain = new Set(Object.getOwnPropertyNames(new Transform()));
    const streams = {
      jsonl: node.createJsonlStream(),
      elements: node.createElementStream(),
      partial: node.createPartialStream(),
      salvage: node.createSalvageStream(),
      provider: node.createProviderStream({ input: 'openai' }),
      toolCalls: node.createToolCallStream({ input: 'openai', tools: {} }),
    };
    for (const [name, stream] of Object.entries(streams)) {
      // `_transform`, `_writev`, `_destroy`: the implementation Node takes through the constructor.
      const ours = Object.getOwnPropertyNames(stream).filter((key) => !plain.has(key) && !key.startsWith('_'));
      expect(ours.length, name).toBeGreaterThan(0);
      expect(
        ours.filter((key) => key in Transform.prototype),
        name,
      ).toEqual([]);
      stream.destroy();
    }
  });
});
