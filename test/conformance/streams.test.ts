/**
 * Stream conformance: every recorded answer in fixtures/answers/ (JSONL, with the options of its
 * expectation) and every one in fixtures/salvage/ (salvage) runs through each implementation —
 * the core engines fed string chunks, the Node streams fed Buffers, the Web streams fed
 * Uint8Arrays through `pipeThrough` — whole and in chunks of 1, 2, 3, 7 and 64 (code units for
 * core, bytes for the streams, so the streams see UTF-8 sequences and `\r\n` pairs split).
 * Every run must give exactly the values (with their placement), the diagnostics (whole
 * objects) and the stats of the core engine on the whole text. The JSONL streams run in
 * records mode, so a `null` line compares on every platform; the Web stream in plain mode must
 * also give the core values, `null` included. Element, partial and provider streams run their
 * own cases through core, Node and Web the same way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import {
  createPartialBuilder,
  type Diagnostic,
  extractElements,
  type JsonlOptions,
  type JsonSchema,
  type SalvageOptions,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import {
  createElementStream as createNodeElementStream,
  createPartialStream as createNodePartialStream,
  createProviderStream as createNodeProviderStream,
} from '@llmjson/node';
import {
  createElementStream as createWebElementStream,
  createPartialStream as createWebPartialStream,
  createProviderStream as createWebProviderStream,
} from '@llmjson/web';
import { describe, expect, it, test } from 'vitest';
import { chunkBytes, chunkText } from '../support/chunking.js';
import { type Collected, decodeChunks, streamChunks } from '../support/collect.js';
import { openAISse, runProviderDecoder } from '../support/provider.js';
import { type Salvaged, salvageChunks, salvageStreamChunks } from '../support/salvage.js';
import { readAll, webJsonlChunks, webJsonlValues, webSalvageChunks } from '../support/web.js';

const answersDir = fileURLToPath(new URL('../../fixtures/answers/', import.meta.url));
const salvageDir = fileURLToPath(new URL('../../fixtures/salvage/', import.meta.url));
const schemasDir = fileURLToPath(new URL('../../fixtures/schemas/', import.meta.url));
const CHUNK_SIZES = [1, 2, 3, 7, 64] as const;

interface Fixture<O> {
  name: string;
  text: string;
  bytes: Uint8Array;
  options: O;
}

/** One schema object per file, so every run of a fixture reuses its compiled validator. */
const schemas = new Map<string, JsonSchema>();
function loadSchema(file: string): JsonSchema {
  let schema = schemas.get(file);
  if (schema === undefined) {
    schema = JSON.parse(readFileSync(schemasDir + file, 'utf8')) as JsonSchema;
    schemas.set(file, schema);
  }
  return schema;
}

function loadFixtures<O>(dir: string, toOptions: (expected: { options?: Record<string, unknown> }) => O): Fixture<O>[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.expected.json'))
    .map((f) => f.slice(0, -'.expected.json'.length))
    .sort()
    .map((name) => {
      const bytes = new Uint8Array(readFileSync(`${dir}${name}.txt`));
      // The byte-order mark, if any, is kept: dropping it is the engine's job.
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
      const expected = JSON.parse(readFileSync(`${dir}${name}.expected.json`, 'utf8')) as {
        options?: Record<string, unknown>;
      };
      return { name, text, bytes, options: toOptions(expected) };
    });
}

const jsonlFixtures = loadFixtures(answersDir, ({ options = {} }): JsonlOptions => {
  const { schema, ...rest } = options as { schema?: string } & Omit<JsonlOptions, 'schema'>;
  return { ...rest, ...(schema === undefined ? {} : { schema: loadSchema(schema), compileJsonSchema: compileSchema }) };
});

const salvageFixtures = loadFixtures(salvageDir, ({ options = {} }): SalvageOptions => {
  const { schema, ...rest } = options as { schema?: string } & Omit<SalvageOptions, 'schema'>;
  return { ...rest, ...(schema === undefined ? {} : { schema: loadSchema(schema), compileJsonSchema: compileSchema }) };
});

type Chunking = 'whole' | (typeof CHUNK_SIZES)[number];
const CHUNKINGS: readonly Chunking[] = ['whole', ...CHUNK_SIZES];

interface Implementation {
  name: string;
  jsonl(fixture: Fixture<JsonlOptions>, chunking: Chunking): Promise<Collected>;
  salvage(fixture: Fixture<SalvageOptions>, chunking: Chunking): Promise<Salvaged & { stats: unknown }>;
}

function textChunks(text: string, chunking: Chunking): string[] {
  return chunking === 'whole' ? [text] : chunkText(text, chunking);
}

function byteChunks(bytes: Uint8Array, chunking: Chunking): Uint8Array[] {
  return chunking === 'whole' ? [bytes] : chunkBytes(bytes, chunking);
}

const toBuffer = (c: Uint8Array): Buffer => Buffer.from(c.buffer, c.byteOffset, c.byteLength);

const implementations: Implementation[] = [
  {
    name: 'core',
    jsonl: async ({ text, options }, chunking) => decodeChunks(textChunks(text, chunking), options),
    salvage: async ({ text, options }, chunking) => salvageChunks(textChunks(text, chunking), options),
  },
  {
    name: 'Node',
    jsonl: ({ bytes, options }, chunking) => streamChunks(byteChunks(bytes, chunking).map(toBuffer), options),
    salvage: ({ bytes, options }, chunking) => salvageStreamChunks(byteChunks(bytes, chunking).map(toBuffer), options),
  },
  {
    name: 'Web',
    jsonl: ({ bytes, options }, chunking) => webJsonlChunks(byteChunks(bytes, chunking), options),
    salvage: ({ bytes, options }, chunking) => webSalvageChunks(byteChunks(bytes, chunking), options),
  },
];

const label = (chunking: Chunking): string => (chunking === 'whole' ? 'whole' : `${chunking}-unit chunks`);

describe('fixtures', () => {
  it('cover both engines, with schemas, byte-order marks and null lines among the JSONL answers', () => {
    expect(jsonlFixtures.length).toBeGreaterThanOrEqual(14);
    expect(salvageFixtures.length).toBeGreaterThanOrEqual(10);
    expect(jsonlFixtures.some(({ options }) => options.schema !== undefined)).toBe(true);
    expect(salvageFixtures.some(({ options }) => options.schema !== undefined)).toBe(true);
    expect(jsonlFixtures.some(({ text }) => text.startsWith('\uFEFF'))).toBe(true);
    expect(jsonlFixtures.some(({ text }) => /^null$/m.test(text))).toBe(true);
  });
});

describe.each(implementations)('$name', (implementation) => {
  describe.each(jsonlFixtures)('JSONL answer $name', (fixture) => {
    const reference = decodeChunks([fixture.text], fixture.options);

    it('gives the records, diagnostics and stats of core on the whole text, however chunked', async () => {
      for (const chunking of CHUNKINGS) {
        const run = await implementation.jsonl(fixture, chunking);
        expect(run.records, label(chunking)).toEqual(reference.records);
        // Own-key order and `__proto__` keys survive only as own data properties.
        expect(JSON.stringify(run.values), label(chunking)).toBe(JSON.stringify(reference.values));
        expect(run.diagnostics, label(chunking)).toEqual(reference.diagnostics);
        expect(run.stats, label(chunking)).toEqual(reference.stats);
      }
    });
  });

  describe.each(salvageFixtures)('salvage answer $name', (fixture) => {
    const reference = salvageChunks([fixture.text], fixture.options);

    it('gives the values, diagnostics and stats of core on the whole text, however chunked', async () => {
      for (const chunking of CHUNKINGS) {
        const run = await implementation.salvage(fixture, chunking);
        expect(run.values, label(chunking)).toEqual(reference.values);
        expect(JSON.stringify(run.values), label(chunking)).toBe(JSON.stringify(reference.values));
        expect(run.diagnostics, label(chunking)).toEqual(reference.diagnostics);
        expect(run.stats, label(chunking)).toEqual(reference.stats);
      }
    });
  });
});

describe('Web JSONL stream in plain mode', () => {
  it.each(jsonlFixtures)('$name: the core values, null lines included, however chunked', async (fixture) => {
    const reference = decodeChunks([fixture.text], fixture.options);
    for (const chunking of CHUNKINGS) {
      const values = await webJsonlValues(byteChunks(fixture.bytes, chunking), fixture.options);
      expect(values, label(chunking)).toEqual(reference.values);
    }
  });
});

describe('element streams: core, Node and Web agree', () => {
  const cases: { name: string; text: string; path?: string }[] = [
    { name: 'top-level array', text: '[{"a": 1}, 2, "three", [4], null]' },
    {
      name: 'cut off inside a fence',
      text: 'Here:\n```json\n{"items": [{"id": 1}, {"id": "日本"}, {"id": 3, "n',
      path: '$.items',
    },
    { name: 'nested path', text: '{"data": {"rows": [1, {"x": "é"}]}, "rows": [9]}', path: '$.data.rows' },
    { name: 'syntax error mid-array', text: '[1, 2, oops, 3]' },
  ];
  describe.each(cases)('$name', ({ text, path }) => {
    const options = path === undefined ? {} : { path };
    const expected = extractElements(text, options);
    const bytes = new TextEncoder().encode(text);
    test.each([1, 3, 64])('at %i-byte chunks', async (size) => {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const nodeDiagnostics: Diagnostic[] = [];
      const node = createNodeElementStream({ ...options, onDiagnostic: (d) => nodeDiagnostics.push(d) });
      const nodeRecords: unknown[] = [];
      await pipeline(Readable.from(chunks), node, async (source: AsyncIterable<unknown>) => {
        for await (const r of source) nodeRecords.push(r);
      });
      const webDiagnostics: Diagnostic[] = [];
      const web = createWebElementStream({ ...options, onDiagnostic: (d) => webDiagnostics.push(d) });
      const webRecords = await readAll(ReadableStream.from(chunks).pipeThrough(web));
      expect(nodeRecords).toEqual(expected.records);
      expect(webRecords).toEqual(expected.records);
      expect(nodeDiagnostics).toEqual(expected.diagnostics);
      expect(webDiagnostics).toEqual(expected.diagnostics);
    });
  });
});

describe('partial streams: core, Node and Web agree', () => {
  const texts = [
    'Sure:\n```json\n{"title": "Café ☕", "items": [{"id": 1, "tags": ["日本"]}, {"id": 2}], "done": true}\n```',
    '[1, "two", {"three": [3]}, null',
  ];
  describe.each(texts)('%#', (text) => {
    const bytes = new TextEncoder().encode(text);
    test.each([1, 3, 64])('at %i-byte chunks', async (size) => {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const decoder = new TextDecoder();
      const coreOut: unknown[] = [];
      const coreDiagnostics: Diagnostic[] = [];
      const builder = createPartialBuilder(
        {},
        { update: (value, changes) => coreOut.push({ value, changes }), diagnostic: (d) => coreDiagnostics.push(d) },
      );
      for (const chunk of chunks) builder.write(decoder.decode(chunk, { stream: true }));
      builder.write(decoder.decode());
      builder.end();
      const nodeDiagnostics: Diagnostic[] = [];
      const node = createNodePartialStream({ emit: 'both', onDiagnostic: (d) => nodeDiagnostics.push(d) });
      const nodeOut: unknown[] = [];
      await pipeline(Readable.from(chunks), node, async (source: AsyncIterable<unknown>) => {
        for await (const item of source) nodeOut.push(item);
      });
      const webDiagnostics: Diagnostic[] = [];
      const web = createWebPartialStream({ emit: 'both', onDiagnostic: (d) => webDiagnostics.push(d) });
      const webOut = await readAll(ReadableStream.from(chunks).pipeThrough(web));
      expect(nodeOut).toEqual(coreOut);
      expect(webOut).toEqual(coreOut);
      expect(nodeDiagnostics).toEqual(coreDiagnostics);
      expect(webDiagnostics).toEqual(coreDiagnostics);
    });
  });
});

describe('provider streams: core, Node and Web agree', () => {
  const ollama = [
    { model: 'llama3', message: { role: 'assistant', content: '{"a": "é' }, done: false },
    { model: 'llama3', message: { role: 'assistant', content: '日本"}\n' }, done: false },
    {
      model: 'llama3',
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 5,
      eval_count: 9,
    },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n');
  const bodies = [
    {
      name: 'OpenAI chat SSE',
      input: 'openai' as const,
      body: openAISse('{"type": "definition", "entity": "ATP ⚡"}\n{"n": 2}\n', 'stop', 5),
    },
    {
      name: 'OpenAI chat SSE with a broken event',
      input: 'auto' as const,
      body: `data: {"choices": [{"delta": {"content": "x"}}]}\n\ndata: {oops\n\n${openAISse('y', 'length', 1)}`,
    },
    { name: 'Ollama NDJSON', input: 'auto' as const, body: `${ollama}\n` },
  ];
  describe.each(bodies)('$name', ({ input, body }) => {
    const expected = runProviderDecoder([body], input);
    const bytes = new TextEncoder().encode(body);
    test.each([1, 3, 64])('at %i-byte chunks', async (size) => {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const nodeDiagnostics: Diagnostic[] = [];
      const node = createNodeProviderStream({ input, onDiagnostic: (d) => nodeDiagnostics.push(d) });
      let nodeText = '';
      await pipeline(Readable.from(chunks), node, async (source: AsyncIterable<string>) => {
        for await (const piece of source) nodeText += piece;
      });
      const webDiagnostics: Diagnostic[] = [];
      const web = createWebProviderStream({ input, onDiagnostic: (d) => webDiagnostics.push(d) });
      const webText = ((await readAll(ReadableStream.from(chunks).pipeThrough(web))) as string[]).join('');
      for (const [text, diagnostics, stream] of [
        [nodeText, nodeDiagnostics, node],
        [webText, webDiagnostics, web],
      ] as const) {
        expect(text).toBe(expected.text);
        expect(diagnostics).toEqual(expected.diagnostics);
        expect({
          finishReason: stream.finishReason,
          usage: stream.usage,
          model: stream.model,
          provider: stream.provider,
        }).toEqual({
          finishReason: expected.finishReason,
          usage: expected.usage,
          model: expected.model,
          provider: expected.provider,
        });
      }
    });
  });
});
