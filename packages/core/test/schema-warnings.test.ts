/**
 * Quiet by default: compiling a schema that ajv would warn about (a format it does not know) prints
 * nothing — not through console.log/warn/error, not on process.stderr — from any entry
 * (compileSchema, the Node and Web streams, compileStandaloneModule); the warnings are
 * SchemaWarnings on `CompiledSchema.warnings`, handed to `onWarning` once per stream creation
 * (never per value), quoted through quoteInput, at most MAX_SCHEMA_WARNINGS per schema. A
 * callback that throws does not stop a stream from being made. Unknown keywords are annotations
 * and are not warned about.
 */

import { ConfigurationError, type SchemaWarning } from '@llmjson/core';
import { compileSchema, compileStandaloneModule } from '@llmjson/core/ajv';
import { createJsonlStream, createSalvageStream } from '@llmjson/node';
import { createJsonlStream as createWebJsonlStream } from '@llmjson/web';
import { afterEach, beforeEach, describe, expect, type MockInstance, test, vi } from 'vitest';
import { thrownBy } from '../../../test/support/thrown.js';
import { MAX_SCHEMA_WARNINGS } from '../src/schema/ajv/ajv-validator.js';
import type { JsonSchema } from '../src/schema/schema-validator.js';

/** A schema of every kind of thing ajv logs about or silently ignores, fresh each call (no cache hit). */
let serial = 0;
function noisySchema(): JsonSchema {
  return {
    $comment: `schema ${serial++}`,
    type: 'object',
    properties: {
      port: { type: 'string', format: 'ports' },
      host: { type: 'string', format: 'hostname-or-ip' },
      again: { type: 'string', format: 'ports' },
      extra: { type: 'string', markdownDescription: 'an unknown keyword', 'x-vendor': true },
      lone: { else: { type: 'string' } },
    },
  };
}

const EXPECTED: readonly SchemaWarning[] = [
  {
    kind: 'unknown-format',
    message:
      'unknown format "ports" at #/properties/port/format is not checked (any string passes); use a format ajv-formats knows, or remove it',
    schemaPath: '#/properties/port/format',
  },
  {
    kind: 'unknown-format',
    message:
      'unknown format "hostname-or-ip" at #/properties/host/format is not checked (any string passes); use a format ajv-formats knows, or remove it',
    schemaPath: '#/properties/host/format',
  },
  {
    kind: 'unknown-format',
    message:
      'unknown format "ports" at #/properties/again/format is not checked (any string passes); use a format ajv-formats knows, or remove it',
    schemaPath: '#/properties/again/format',
  },
];

let spies: MockInstance[] = [];
beforeEach(() => {
  spies = [
    vi.spyOn(console, 'log'),
    vi.spyOn(console, 'warn'),
    vi.spyOn(console, 'error'),
    vi.spyOn(console, 'info'),
    vi.spyOn(console, 'debug'),
    vi.spyOn(process.stderr, 'write'),
  ];
});
afterEach(() => {
  const printed = spies.flatMap((spy) => spy.mock.calls);
  for (const spy of spies) spy.mockRestore();
  // Every test here: nothing printed, whatever it compiled.
  expect(printed).toEqual([]);
});

async function drain(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const value of stream) out.push(value);
  return out;
}

describe('nothing is printed; the warnings arrive', () => {
  test('compileSchema: on CompiledSchema.warnings, once each, in schema order', () => {
    const compiled = compileSchema(noisySchema());
    expect(compiled.warnings).toEqual(EXPECTED);
    expect(Object.isFrozen(compiled.warnings)).toBe(true);
  });

  test('compileSchema with discriminator dispatch: the branches compiled apart add nothing twice', () => {
    const branch = (type: string) => ({
      type: 'object',
      properties: { type: { const: type }, at: { type: 'string', format: 'when' } },
      required: ['type'],
    });
    const compiled = compileSchema({ oneOf: [branch('a'), branch('b')] });
    expect(compiled.discriminator).toBe('type');
    expect(compiled.warnings?.map((w) => w.schemaPath)).toEqual([
      '#/oneOf/0/properties/at/format',
      '#/oneOf/1/properties/at/format',
    ]);
  });

  test('a schema without anything to say has none', () => {
    expect(compileSchema({ type: 'object', properties: { a: { format: 'date' } } }).warnings).toEqual([]);
  });

  test('the Node JSONL stream: onWarning once per stream creation, never per value', async () => {
    const warnings: SchemaWarning[] = [];
    const stream = createJsonlStream({ schema: noisySchema(), onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual(EXPECTED);
    const done = drain(stream);
    stream.end('{"port":"80"}\n{"port":"x"}\n{"port":3}\n');
    expect(await done).toEqual([{ port: '80' }, { port: 'x' }]);
    expect(warnings).toHaveLength(EXPECTED.length);
  });

  test('the same schema again: the cached compilation, its warnings delivered to each new stream', () => {
    const schema = noisySchema();
    const first: SchemaWarning[] = [];
    const second: SchemaWarning[] = [];
    createJsonlStream({ schema, onWarning: (w) => first.push(w) }).destroy();
    createJsonlStream({ schema, onWarning: (w) => second.push(w) }).destroy();
    expect(first).toEqual(EXPECTED);
    expect(second).toEqual(EXPECTED);
  });

  test('the Node salvage stream and the Web JSONL stream', async () => {
    const salvage: SchemaWarning[] = [];
    createSalvageStream({ schema: noisySchema(), onWarning: (w) => salvage.push(w) }).destroy();
    expect(salvage).toEqual(EXPECTED);

    const web: SchemaWarning[] = [];
    const stream = createWebJsonlStream({
      schema: noisySchema(),
      compileJsonSchema: compileSchema,
      onWarning: (w) => web.push(w),
    });
    expect(web).toEqual(EXPECTED);
    const writer = stream.writable.getWriter();
    const reading = drain(stream.readable as unknown as AsyncIterable<unknown>);
    await writer.write('{"port":"1"}\n');
    await writer.close();
    expect(await reading).toEqual([{ port: '1' }]);
    expect(web).toHaveLength(EXPECTED.length);
  });

  test('compileStandaloneModule: onWarning, once each, and the module is still written', () => {
    const warnings: SchemaWarning[] = [];
    const code = compileStandaloneModule(noisySchema(), { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual(EXPECTED);
    expect(code).toContain("'~standard'");
    expect(() => compileStandaloneModule(noisySchema())).not.toThrow();
  });

  test('every dialect is quiet', () => {
    for (const $schema of [
      'http://json-schema.org/draft-04/schema#',
      'http://json-schema.org/draft-06/schema#',
      'http://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft/2019-09/schema',
      'https://json-schema.org/draft/2020-12/schema',
    ]) {
      const compiled = compileSchema({ $schema, properties: { a: { format: 'ports' } } });
      expect(compiled.warnings?.map((w) => w.kind)).toEqual(['unknown-format']);
    }
  });

  test('a schema refused by its meta-schema prints nothing either', () => {
    expect(() => compileSchema({ type: 'strnig', format: 'ports' })).toThrow(ConfigurationError);
  });
});

describe('onWarning misbehaving', () => {
  test('a callback that throws: the stream is made, works, and the other warnings still arrive', async () => {
    const seen: string[] = [];
    const stream = createJsonlStream({
      schema: noisySchema(),
      onWarning: (w) => {
        seen.push(w.schemaPath ?? '');
        throw new Error('callback failed');
      },
    });
    expect(seen).toHaveLength(EXPECTED.length);
    const done = drain(stream);
    stream.end('{"port":"80"}\n');
    expect(await done).toEqual([{ port: '80' }]);
    const warnings: string[] = [];
    compileStandaloneModule(noisySchema(), {
      onWarning: (w) => {
        warnings.push(w.message);
        throw new Error('callback failed');
      },
    });
    expect(warnings).toHaveLength(EXPECTED.length);
  });

  test('an onWarning that is not a function is OPTION_INVALID', () => {
    const error = thrownBy(ConfigurationError, () =>
      createJsonlStream({ schema: { type: 'object' }, onWarning: 'log' as unknown as () => void }),
    );
    expect(error.code).toBe('OPTION_INVALID');
    expect(error.message).toBe('onWarning must be a function (warning) => void, got string');
  });
});

describe('bounded', () => {
  test('a format name is quoted at most 200 characters', () => {
    const name = 'f'.repeat(5000);
    const [warning] = compileSchema({ format: name }).warnings ?? [];
    expect(warning?.message).toContain(`unknown format "${'f'.repeat(200)}… (5000 characters)"`);
    expect(warning?.message.length).toBeLessThan(400);
  });

  test("a format name that holds ajv's own separator is read whole, the path where it is", () => {
    const name = 'a" ignored in schema at path "#/x'.repeat(3);
    const [warning] = compileSchema({ properties: { 'p q': { format: name } } }).warnings ?? [];
    expect(warning).toEqual({
      kind: 'unknown-format',
      message: `unknown format "${name}" at #/properties/p%20q/format is not checked (any string passes); use a format ajv-formats knows, or remove it`,
      schemaPath: '#/properties/p%20q/format',
    });
  });

  test(`at most ${MAX_SCHEMA_WARNINGS} warnings, then one counting the rest`, () => {
    const properties = Object.fromEntries(
      Array.from({ length: MAX_SCHEMA_WARNINGS + 50 }, (_, i) => [`p${i}`, { format: `unknown-${i}` }]),
    );
    const warnings = compileSchema({ properties }).warnings ?? [];
    expect(warnings).toHaveLength(MAX_SCHEMA_WARNINGS + 1);
    expect(warnings.at(-1)).toEqual({
      kind: 'warnings-omitted',
      message: '50 more warnings about this schema omitted',
    });
  });
});
