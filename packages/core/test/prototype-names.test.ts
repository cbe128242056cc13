/**
 * Names a model or an input chooses, looked up as own properties only: an input key, a
 * discriminator value, a discriminator property or a `$schema` named after a member of
 * Object.prototype (`constructor`, `__proto__`, `toString`…) behaves exactly like any other
 * unknown name — through the JSONL decoder, the partial builder and the element scanner, with
 * prefix checks and coercion, under every chunking.
 */

import {
  ConfigurationError,
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  createProviderDecoder,
  type Diagnostic,
  elementPrefixCheck,
  type JsonSchema,
  linePrefixCheck,
  withCoercion,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { everyChunkSize, splitAt, splitPoints } from '../../../test/support/chunking.js';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'] as const;

const CLOSED: JsonSchema = {
  type: 'object',
  properties: { a: { type: 'string' }, n: { type: 'integer' } },
  additionalProperties: false,
};
const OPEN_NUMBERS: JsonSchema = {
  type: 'object',
  properties: { a: { type: 'string' } },
  additionalProperties: { type: 'number' },
};
const NESTED: JsonSchema = {
  type: 'object',
  properties: { a: { type: 'object', properties: { b: { type: 'integer' } }, additionalProperties: false } },
};
const TAGGED: JsonSchema = {
  oneOf: [
    { type: 'object', properties: { type: { const: 'x' }, v: { type: 'string' } }, required: ['type'] },
    { type: 'object', properties: { type: { const: 'y' }, w: { type: 'number' } }, required: ['type'] },
  ],
};

/** Documents that use `key` as an input key or a discriminator value. */
const documents = (key: string) => [
  `{"${key}":1}`,
  `{"a":"s","${key}":"text"}`,
  `{"${key}":{"b":1},"n":2}`,
  `{"a":{"${key}":[1,{"c":2}]}}`,
  `{"type":"${key}","v":"s"}`,
  `{"type":"x","${key}":true}`,
];

type Run = { values: unknown[]; diagnostics: Diagnostic[] };
type Path = (schema: JsonSchema, chunks: readonly string[], coerce: boolean) => Run;

const common = (coerce: boolean) => ({
  compileJsonSchema: compileSchema,
  prefixCheck: true,
  ...(coerce ? { coerce: true, coerceWith: withCoercion } : {}),
});

const PATHS: Record<string, Path> = {
  jsonl(schema, chunks, coerce) {
    const r: Run = { values: [], diagnostics: [] };
    const decoder = createJsonlDecoder(
      { schema, ...common(coerce), prefixCheckWith: linePrefixCheck },
      { value: (v) => r.values.push(v), diagnostic: (d) => r.diagnostics.push(d) },
    );
    for (const c of chunks) decoder.write(c);
    decoder.write('\n');
    decoder.end();
    return r;
  },
  partial(schema, chunks, coerce) {
    const r: Run = { values: [], diagnostics: [] };
    const builder = createPartialBuilder(
      { schema, ...common(coerce) },
      { update: () => undefined, diagnostic: (d) => r.diagnostics.push(d) },
    );
    for (const c of chunks) builder.write(c);
    builder.end();
    r.values.push(builder.value);
    return r;
  },
  element(schema, chunks, coerce) {
    const r: Run = { values: [], diagnostics: [] };
    const scanner = createElementScanner(
      { elementSchema: schema, ...common(coerce), prefixCheckWith: elementPrefixCheck },
      { value: (v) => r.values.push(v), diagnostic: (d) => r.diagnostics.push(d) },
    );
    scanner.write('[');
    for (const c of chunks) scanner.write(c);
    scanner.write(']');
    scanner.end();
    return r;
  },
};

/** A run, as text with `key` written as `stand`. */
const as = (run: Run, key: string, stand: string) => JSON.stringify(run).split(key).join(stand);

describe('input keys and discriminator values named after Object.prototype members', () => {
  for (const [path, decode] of Object.entries(PATHS)) {
    test.each(NAMES)(`${path}: %s behaves like any other unknown name, under every chunking`, (key) => {
      // The same length and first character, so offsets and prefix verdicts agree.
      const stand = key[0] + 'q'.repeat(key.length - 1);
      for (const schema of [CLOSED, OPEN_NUMBERS, NESTED, TAGGED]) {
        for (const coerce of [false, true]) {
          for (const text of documents(key)) {
            const expected = as(decode(schema, [text.split(key).join(stand)], coerce), stand, stand);
            for (const [label, chunks] of everyChunkSize(text, 12)) {
              expect(as(decode(schema, chunks, coerce), key, stand), `${text} ${label}`).toBe(expected);
            }
          }
        }
      }
    });
  }

  test('arbitrary splits: the same outcome as a plain unknown key', () => {
    const text = `{"a":"s","constructor":{"__proto__":[1]},"toString":2}`;
    for (const [path, decode] of Object.entries(PATHS)) {
      const expected = JSON.stringify(decode(CLOSED, [text], false));
      fc.assert(
        fc.property(splitPoints(text.length), (points) => {
          expect(JSON.stringify(decode(CLOSED, splitAt(text, points), false)), path).toBe(expected);
        }),
        { numRuns: 30 },
      );
    }
  });
});

describe('a discriminator property named after an Object.prototype member', () => {
  const schemaFor = (property: string): JsonSchema => ({
    oneOf: [
      { type: 'object', properties: { [property]: { const: 'x' } }, required: [property] },
      { type: 'object', properties: { [property]: { const: 'y' } }, required: [property] },
    ],
  });

  test.each(['constructor', 'toString', 'valueOf'])(
    'a value without %s is "missing discriminator", in every path and with coercion',
    (property) => {
      const schema = schemaFor(property);
      const text = '{"v":1}';
      for (const [path, decode] of Object.entries(PATHS)) {
        for (const coerce of [false, true]) {
          for (const [label, chunks] of everyChunkSize(text, 4)) {
            const messages = decode(schema, chunks, coerce).diagnostics.map((d) => d.message);
            expect(messages.join('\n'), `${path} ${label}`).toContain(
              `missing discriminator "${property}"; expected one of "x", "y"`,
            );
            expect(messages.join('\n'), `${path} ${label}`).not.toContain('native code');
          }
        }
      }
      // A value that has it is dispatched as usual.
      expect(PATHS.jsonl?.(schema, [`{"${property}":"y"}`], false).values).toEqual([{ [property]: 'y' }]);
    },
  );
});

describe('a $schema named after an Object.prototype member', () => {
  test.each(NAMES)('$schema "%s" is an unsupported dialect: a ConfigurationError', (name) => {
    expect(() => compileSchema({ $schema: name, type: 'object' })).toThrow(ConfigurationError);
    expect(() => compileSchema({ $schema: name, type: 'object' })).toThrow(/unsupported \$schema/);
  });
});

describe('provider decoder: binary event-stream header names', () => {
  test('headers named __proto__ or constructor are plain headers; the event is read as usual', () => {
    // One AWS event-stream frame by hand: prelude, headers, payload, CRCs.
    const frame = (headers: Record<string, string>, payload: string): Uint8Array => {
      const encoder = new TextEncoder();
      const parts: number[] = [];
      for (const [name, value] of Object.entries(headers)) {
        const n = encoder.encode(name);
        const v = encoder.encode(value);
        parts.push(n.length, ...n, 7, v.length >> 8, v.length & 255, ...v);
      }
      const body = encoder.encode(payload);
      const total = 12 + parts.length + body.length + 4;
      const bytes = new Uint8Array(total);
      const view = new DataView(bytes.buffer);
      view.setUint32(0, total);
      view.setUint32(4, parts.length);
      view.setUint32(8, crc32(bytes.subarray(0, 8)));
      bytes.set(parts, 12);
      bytes.set(body, 12 + parts.length);
      view.setUint32(total - 4, crc32(bytes.subarray(0, total - 4)));
      return bytes;
    };
    const headers = (type: string) => ({
      ['__proto__']: 'x',
      constructor: 'y',
      ':message-type': 'event',
      ':event-type': type,
      ':content-type': 'application/json',
    });
    const text: string[] = [];
    const diagnostics: Diagnostic[] = [];
    const decoder = createProviderDecoder(
      { input: 'bedrock' },
      { text: (t) => text.push(t), diagnostic: (d) => diagnostics.push(d) },
    );
    const frames = [
      frame(headers('messageStart'), '{"role":"assistant"}'),
      frame(headers('contentBlockDelta'), '{"contentBlockIndex":0,"delta":{"text":"Hi"}}'),
      frame(headers('messageStop'), '{"stopReason":"end_turn"}'),
    ];
    for (const f of frames) decoder.bytes(f);
    decoder.end();
    expect(diagnostics).toEqual([]);
    expect(text).toEqual(['Hi']);
    expect(decoder.complete).toBe(true);
  });
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
