/**
 * Coercion (`coerce`) across every engine that validates and every front end: the same values
 * and the same diagnostics whole, at every chunk size 1..n, under arbitrary (byte) splits, from
 * the core engines, the Node streams and the Web streams. One case per coercion, each turned
 * on alone (and with `coerce: true`), plus zod 4 for the number, boolean and enum coercions.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type CoercionRule,
  createElementScanner,
  type Diagnostic,
  type ElementOptions,
  type ElementRecord,
  type JsonSchema,
  withCoercion,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { createElementStream, createJsonlStream, createSalvageStream } from '@llmjson/node';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chunkText, everyChunkSize, numRuns, splitAt, splitPoints, utf8 } from '../support/chunking.js';
import { decodeChunks, decodeEverySplit, streamChunks } from '../support/collect.js';
import { salvageChunks, salvageOneShot, salvageStreamChunks } from '../support/salvage.js';
import { webJsonlChunks, webSalvageChunks } from '../support/web.js';

const schema: JsonSchema = {
  type: 'object',
  required: ['id', 'level'],
  properties: {
    id: { type: 'integer' },
    level: { type: 'integer', default: 1 },
    ok: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    color: { enum: ['red', 'green'] },
    note: { type: 'string' },
    name: { type: 'string' },
  },
  additionalProperties: false,
};

interface Case {
  readonly rule: CoercionRule;
  readonly line: string;
  readonly expected: unknown;
  readonly path: string;
}

const cases: readonly Case[] = [
  {
    rule: 'string-to-number',
    line: '{"id":"7","level":1,"name":"é"}',
    expected: { id: 7, level: 1, name: 'é' },
    path: '/id',
  },
  {
    rule: 'string-to-boolean',
    line: '{"id":1,"level":1,"ok":"false"}',
    expected: { id: 1, level: 1, ok: false },
    path: '/ok',
  },
  {
    rule: 'single-to-array',
    line: '{"id":1,"level":1,"tags":"日本"}',
    expected: { id: 1, level: 1, tags: ['日本'] },
    path: '/tags',
  },
  {
    rule: 'enum-case',
    line: '{"id":1,"level":1,"color":" Green"}',
    expected: { id: 1, level: 1, color: 'green' },
    path: '/color',
  },
  { rule: 'float-to-integer', line: '{"id":"7.0","level":1}', expected: { id: 7, level: 1 }, path: '/id' },
  { rule: 'default', line: '{"id":3,"name":"🙂"}', expected: { id: 3, name: '🙂', level: 1 }, path: '/level' },
  { rule: 'null-to-absent', line: '{"id":1,"level":1,"note":null}', expected: { id: 1, level: 1 }, path: '/note' },
];

/** float-to-integer needs string-to-number too (the string is read as a number first). */
const rulesFor = (rule: CoercionRule): CoercionRule[] =>
  rule === 'float-to-integer' ? ['string-to-number', rule] : [rule];

const valid = '{"id":2,"level":2}';
const invalid = '{"id":"x","level":1}';
const jsonl = (c: Case) => `Here you go:\r\n${c.line}\r\n${valid}\n${invalid}\n`;

describe.each(cases)('$rule', (c) => {
  const options = { schema, compileJsonSchema: compileSchema, coerceWith: withCoercion, coerce: rulesFor(c.rule) };

  test('JSONL: coerced, reported with rule and path, identical at every chunk size 1..n', () => {
    const text = jsonl(c);
    const r = decodeEverySplit(text, options, text.length);
    expect(r.values).toEqual([c.expected, { id: 2, level: 2 }]);
    const recovered = r.diagnostics.filter((d) => d.reason === 'recovered');
    expect(recovered).toHaveLength(1);
    expect(recovered[0]).toMatchObject({ rule: c.rule, path: c.path, line: 2, offset: 14 });
    expect(recovered[0]?.message).toContain(`at ${c.path} (${c.rule})`);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['prose', 'recovered', 'schema']);
    expect(r.stats.diagnostics).toEqual({ prose: 1, recovered: 1, schema: 1 });
    // Every coercion on gives the same here; none gives the schema diagnostic instead.
    expect(decodeChunks([text], { ...options, coerce: true })).toEqual(decodeChunks([text], options));
    const off = decodeChunks([text], { ...options, coerce: false });
    expect(off.values).toEqual([{ id: 2, level: 2 }]);
    expect(off.diagnostics.map((d) => d.reason)).toEqual(['prose', 'schema', 'schema']);
  });

  test('JSONL: arbitrary string splits (core) and byte splits (Node stream) agree with the whole', async () => {
    const text = jsonl(c);
    const whole = decodeChunks([text], options);
    fc.assert(
      fc.property(splitPoints(text.length), (points) => {
        const split = decodeChunks(splitAt(text, points), options);
        expect(split.records).toEqual(whole.records);
        expect(split.diagnostics).toEqual(whole.diagnostics);
        expect(split.stats).toEqual(whole.stats);
      }),
      { numRuns },
    );
    const bytes = utf8.encode(text);
    await fc.assert(
      fc.asyncProperty(splitPoints(bytes.length), async (points) => {
        const node = await streamChunks(splitAt(bytes, points), { schema, coerce: rulesFor(c.rule) });
        expect(node.records).toEqual(whole.records);
        expect(node.diagnostics).toEqual(whole.diagnostics);
      }),
      { numRuns: Math.ceil(numRuns / 4) },
    );
  });

  test('JSONL: the Web stream delivers the same', async () => {
    const text = jsonl(c);
    const whole = decodeChunks([text], options);
    const web = await webJsonlChunks(chunkText(text, 3), options);
    expect(web.records).toEqual(whole.records);
    expect(web.diagnostics).toEqual(whole.diagnostics);
  });

  test('salvage: one-shot, every chunk size, the Node and Web streams agree', async () => {
    const text = `The answer is ${c.line} — and not \`${invalid}\`.`;
    const whole = salvageOneShot(text, options);
    expect(whole.values.map((v) => v.value)).toEqual([c.expected]);
    expect(whole.diagnostics.map((d) => [d.reason, d.rule, d.path])).toEqual([
      ['recovered', c.rule, c.path],
      ['schema', undefined, undefined],
    ]);
    expect(whole.diagnostics[0]?.offset).toBe(text.indexOf(c.line));
    for (const [label, chunks] of everyChunkSize(text, text.length)) {
      const split = salvageChunks(chunks, options);
      expect(split.values, label).toEqual(whole.values);
      expect(split.diagnostics, label).toEqual(whole.diagnostics);
    }
    const node = await salvageStreamChunks(splitAt(utf8.encode(text), [1, 17, 18, 19, 40]), {
      schema,
      coerce: rulesFor(c.rule),
    });
    expect(node.values).toEqual(whole.values);
    expect(node.diagnostics).toEqual(whole.diagnostics);
    const web = await webSalvageChunks(chunkText(text, 2), options);
    expect(web.values).toEqual(whole.values);
    expect(web.diagnostics).toEqual(whole.diagnostics);
  });

  test('elements: core scanner at every chunk size and the Node element stream agree', async () => {
    const document: JsonSchema = { type: 'object', properties: { items: { type: 'array', items: schema } } };
    const text = `{"items":[${c.line},${valid},${invalid}]}`;
    const elementOptions: ElementOptions = {
      path: '$.items',
      schema: document,
      compileJsonSchema: compileSchema,
      coerceWith: withCoercion,
      coerce: rulesFor(c.rule),
    };
    const scan = (chunks: readonly string[]) => {
      const records: ElementRecord[] = [];
      const diagnostics: Diagnostic[] = [];
      const scanner = createElementScanner(elementOptions, {
        value: (r) => records.push(r),
        diagnostic: (d) => diagnostics.push(d),
      });
      for (const chunk of chunks) scanner.write(chunk);
      scanner.end();
      return { records, diagnostics };
    };
    const whole = scan([text]);
    expect(whole.records.map((r) => r.value)).toEqual([c.expected, { id: 2, level: 2 }]);
    expect(whole.diagnostics.map((d) => [d.reason, d.rule, d.path, d.offset])).toEqual([
      ['recovered', c.rule, c.path, 10],
      ['schema', undefined, undefined, text.indexOf(invalid)],
    ]);
    for (const [label, chunks] of everyChunkSize(text, text.length)) {
      const split = scan(chunks);
      expect(split.records, label).toEqual(whole.records);
      expect(split.diagnostics, label).toEqual(whole.diagnostics);
    }
    const records: ElementRecord[] = [];
    const diagnostics: Diagnostic[] = [];
    const stream = createElementStream({ path: '$.items', schema: document, coerce: rulesFor(c.rule) });
    stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
    await pipeline(
      Readable.from(splitAt(utf8.encode(text), [3, 11, 12, 30]), { objectMode: true }),
      stream,
      async (source: AsyncIterable<ElementRecord>) => {
        for await (const record of source) records.push(record);
      },
    );
    expect(records).toEqual(whole.records);
    expect(diagnostics).toEqual(whole.diagnostics);
  });
});

describe('zod 4 through the core decoder and the Node stream', () => {
  const person = z.object({ id: z.int(), ok: z.boolean(), color: z.enum(['red', 'green']).optional() });
  const text = '{"id":"1","ok":"true"}\n{"id":2,"ok":false,"color":"RED"}\n{"id":"1.5","ok":true}\n';

  test('number, boolean and enum coercions: identical whole, at every chunk size and streamed', async () => {
    const r = decodeEverySplit(text, { schema: person, coerceWith: withCoercion, coerce: true }, text.length);
    expect(r.values).toEqual([
      { id: 1, ok: true },
      { id: 2, ok: false, color: 'red' },
    ]);
    expect(r.diagnostics.map((d) => [d.reason, d.rule, d.path])).toEqual([
      ['recovered', 'string-to-number', '/id'],
      ['recovered', 'string-to-boolean', '/ok'],
      ['recovered', 'enum-case', '/color'],
      ['schema', undefined, undefined],
    ]);
    const bytes = utf8.encode(text);
    await fc.assert(
      fc.asyncProperty(splitPoints(bytes.length), async (points) => {
        const node = await streamChunks(splitAt(bytes, points), { schema: person, coerce: true });
        expect(node.records).toEqual(r.records);
        expect(node.diagnostics).toEqual(r.diagnostics);
      }),
      { numRuns: Math.ceil(numRuns / 4) },
    );
  });
});

describe('option checks in the Node factories', () => {
  test('a coerce that is not true, false or known rules throws OPTION_INVALID when the stream is made', () => {
    const document: JsonSchema = { type: 'array', items: schema };
    const makers = [
      () => createJsonlStream({ schema, coerce: 'yes' as never }),
      () => createSalvageStream({ schema, coerce: ['string-to-date'] as never }),
      () => createElementStream({ schema: document, coerce: 1 as never }),
    ];
    for (const make of makers) expect(make).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
  });
});
