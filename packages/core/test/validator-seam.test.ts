/**
 * The validator seam (docs/decisions/017-validator-seam.md): core bundles no JSON Schema
 * validator. Every engine given a JSON Schema without `compileJsonSchema` is a configuration
 * error (NO_JSON_SCHEMA_COMPILER) naming the fixes; a Standard Schema (zod 4 here) needs no
 * compiler, except for sub-schemas: the partial builder's subtree checks (off without one) and
 * elements found through a document schema's export (a configuration error without one). Any
 * `JsonSchemaCompiler` fills the seam, not only ajv's `compileSchema` from `@llmjson/core/ajv`.
 */
import {
  type CompileOptions,
  ConfigurationError,
  ConfigurationErrorCode,
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  createSalvageScanner,
  type Diagnostic,
  extractAllJson,
  extractElements,
  extractJson,
  type JsonSchema,
  type JsonSchemaCompiler,
  type PartialOptions,
  parseJsonl,
  type SchemaInput,
  type StandardSchemaV1,
  type ValidationResult,
  type ValidatorOptions,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { elementSchemaAt, jsonSchemaOf, subSchemaAt } from '@llmjson/core/internal';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { everyChunkSize } from '../../../test/support/chunking.js';
import { thrownBy } from '../../../test/support/thrown.js';

const sink = { value() {}, diagnostic() {} };
const partialSink = { update() {}, diagnostic() {} };

/** The ConfigurationError `create` throws (the test fails when it throws nothing else). */
const configurationError = (run: () => unknown): ConfigurationError => thrownBy(ConfigurationError, run);

/** A document with a list of integers: a JSON Schema every engine below is given. */
const document: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, items: { type: 'array', items: { type: 'integer' } } },
  required: ['name'],
};

/** Each engine, created (or run) with a JSON Schema and the given validator options. */
const engines: readonly (readonly [name: string, create: (options: ValidatorOptions) => unknown])[] = [
  ['createJsonlDecoder', (o) => createJsonlDecoder({ ...o, schema: document }, sink)],
  ['parseJsonl', (o) => parseJsonl('{"name": "a"}\n', { ...o, schema: document })],
  ['createSalvageScanner', (o) => createSalvageScanner({ ...o, schema: document }, sink)],
  ['extractJson', (o) => extractJson('answer: {"name": "a"}', { ...o, schema: document })],
  ['extractAllJson', (o) => extractAllJson('answer: {"name": "a"}', { ...o, schema: document })],
  ['createElementScanner (schema)', (o) => createElementScanner({ ...o, path: '$.items', schema: document }, sink)],
  [
    'createElementScanner (elementSchema)',
    (o) => createElementScanner({ ...o, elementSchema: { type: 'integer' } }, sink),
  ],
  ['extractElements (schema)', (o) => extractElements('{"items": [1]}', { ...o, path: '$.items', schema: document })],
  ['extractElements (elementSchema)', (o) => extractElements('[1, 2]', { ...o, elementSchema: { type: 'integer' } })],
  ['createPartialBuilder', (o) => createPartialBuilder({ ...o, schema: document }, partialSink)],
];

describe('a JSON Schema needs compileJsonSchema', () => {
  test.each(engines)(
    '%s without one: NO_JSON_SCHEMA_COMPILER, naming @llmjson/core/ajv and llmjson compile',
    (_, create) => {
      const error = configurationError(() => create({}));
      expect(error.code).toBe(ConfigurationErrorCode.noJsonSchemaCompiler);
      expect(error.code).toBe('NO_JSON_SCHEMA_COMPILER');
      expect(error.message).toContain("'@llmjson/core/ajv'");
      expect(error.message).toContain('llmjson compile');
      expect(error.message).toMatch(/compileJsonSchema/);
    },
  );

  test.each(engines)('%s with compileSchema from @llmjson/core/ajv: no error', (_, create) => {
    expect(() => create({ compileJsonSchema: compileSchema })).not.toThrow();
  });

  test.each(engines)('%s with a compileJsonSchema that is not a function: OPTION_INVALID', (_, create) => {
    for (const notAFunction of [42, 'ajv', {}, null]) {
      const error = configurationError(() =>
        create({ compileJsonSchema: notAFunction as unknown as JsonSchemaCompiler }),
      );
      expect(error.code).toBe(ConfigurationErrorCode.optionInvalid);
      expect(error.message).toMatch(/compileJsonSchema must be a function/);
    }
  });

  test('a compileJsonSchema that is not a function is refused at creation with a Standard Schema too', () => {
    const zodSchema = z.object({ name: z.string() });
    const bad = { compileJsonSchema: 'ajv' as unknown as JsonSchemaCompiler };
    for (const create of [
      () => createJsonlDecoder({ ...bad, schema: zodSchema }, sink),
      () => createSalvageScanner({ ...bad, schema: zodSchema }, sink),
      () => createElementScanner({ ...bad, elementSchema: zodSchema }, sink),
      () => createPartialBuilder({ ...bad, schema: zodSchema }, partialSink),
      () => createJsonlDecoder(bad, sink),
    ]) {
      expect(configurationError(create).code).toBe(ConfigurationErrorCode.optionInvalid);
    }
  });

  test('a boolean schema is a JSON Schema too', () => {
    expect(configurationError(() => parseJsonl('1\n', { schema: true })).code).toBe('NO_JSON_SCHEMA_COMPILER');
    expect(parseJsonl('1\n', { schema: true, compileJsonSchema: compileSchema }).values).toEqual([1]);
    expect(
      parseJsonl('1\n', { schema: false, compileJsonSchema: compileSchema }).diagnostics.map((d) => d.reason),
    ).toEqual(['schema']);
  });

  test('the error comes at creation, before any input', () => {
    expect(() => createJsonlDecoder({ schema: document }, sink)).toThrow(ConfigurationError);
    expect(() => createSalvageScanner({ schema: document }, sink)).toThrow(ConfigurationError);
    expect(() => createPartialBuilder({ schema: document }, partialSink)).toThrow(ConfigurationError);
  });

  test('without any schema no compiler is needed', () => {
    expect(parseJsonl('{"a": 1}\n').values).toEqual([{ a: 1 }]);
    expect(extractJson('answer: {"a": 1}')?.value).toEqual({ a: 1 });
    expect(extractElements('[1, 2]').values).toEqual([1, 2]);
    expect(() => createPartialBuilder({}, partialSink)).not.toThrow();
  });

  test('with compileSchema the JSON Schema validates', () => {
    const r = parseJsonl('{"name": "a"}\n{"name": 1}\n', { schema: document, compileJsonSchema: compileSchema });
    expect(r.values).toEqual([{ name: 'a' }]);
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.message])).toEqual([
      ['schema', 2, 'at /name: must be string'],
    ]);
  });
});

describe('zod needs no compiler', () => {
  const item = z.object({ id: z.number().int(), name: z.string() });
  const event = z.discriminatedUnion('type', [
    z.object({ type: z.literal('start'), at: z.number() }),
    z.object({ type: z.literal('stop'), reason: z.string() }),
  ]);

  test('JSONL: values delivered, failures reported with their line, path and branch', () => {
    const r = parseJsonl(
      '{"type": "start", "at": 1}\n{"type": "stop", "reason": 2}\n{"type": "pause"}\n{"type": "stop", "reason": "done"}\n',
      { schema: event },
    );
    expect(r.values).toEqual([
      { type: 'start', at: 1 },
      { type: 'stop', reason: 'done' },
    ]);
    expect(r.records.map((x) => x.branch)).toEqual(['start', 'stop']);
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.branch])).toEqual([
      ['schema', 2, 'stop'],
      ['schema', 3, undefined],
    ]);
    expect(r.diagnostics[0]?.errors?.map((e) => [e.path, e.keyword])).toEqual([['/reason', 'invalid_type']]);
    expect(r.diagnostics[1]?.message).toMatch(/unknown discriminator "type": "pause"; expected one of "start", "stop"/);
  });

  test('JSONL through the push decoder, at every chunk size', () => {
    const text = '{"id": 1, "name": "a"}\n{"id": 1.5, "name": "b"}\n{"id": 3, "name": "c"}\n';
    const run = (chunks: readonly string[]) => {
      const values: unknown[] = [];
      const diagnostics: Diagnostic[] = [];
      const decoder = createJsonlDecoder(
        { schema: item },
        { value: (v) => values.push(v), diagnostic: (d) => diagnostics.push(d) },
      );
      for (const chunk of chunks) decoder.write(chunk);
      decoder.end();
      return { values, diagnostics };
    };
    const whole = run([text]);
    expect(whole.values).toEqual([
      { id: 1, name: 'a' },
      { id: 3, name: 'c' },
    ]);
    expect(whole.diagnostics.map((d) => [d.reason, d.line, d.errors?.map((e) => e.path)])).toEqual([
      ['schema', 2, ['/id']],
    ]);
    for (const [label, chunks] of everyChunkSize(text)) expect(run(chunks), label).toEqual(whole);
  });

  test('salvage: the first value the schema accepts, the others reported', () => {
    const text = 'Try {"id": "1", "name": "a"}, then ```json\n{"id": 2, "name": "b"}\n```';
    const diagnostics: Diagnostic[] = [];
    const all = extractAllJson(text, { schema: item, onDiagnostic: (d) => diagnostics.push(d) });
    expect(all.map((v) => v.value)).toEqual([{ id: 2, name: 'b' }]);
    expect(diagnostics.map((d) => [d.reason, d.errors?.map((e) => e.path)])).toEqual([['schema', ['/id']]]);
    expect(extractJson(text, { schema: item })?.value).toEqual({ id: 2, name: 'b' });
    const values: unknown[] = [];
    const scanner = createSalvageScanner({ schema: event }, { value: (v) => values.push(v.value), diagnostic() {} });
    scanner.write('{"type": "stop", "reason": "x"} and {"type": "start"}');
    scanner.end();
    expect(values).toEqual([{ type: 'stop', reason: 'x' }]);
  });

  test('elements with elementSchema: values delivered, failing elements reported', () => {
    const text = '{"items": [{"id": 1, "name": "a"}, {"id": "2", "name": "b"}, {"id": 3, "name": "c"}]}';
    const r = extractElements(text, { path: '$.items', elementSchema: item });
    expect(r.values).toEqual([
      { id: 1, name: 'a' },
      { id: 3, name: 'c' },
    ]);
    expect(r.records.map((x) => x.index)).toEqual([0, 2]);
    expect(r.diagnostics.map((d) => [d.reason, d.errors?.map((e) => e.path)])).toEqual([['schema', ['/id']]]);
    expect(r.diagnostics[0]?.message).toMatch(/^element 1: at \/id: /);
  });
});

describe('sub-schemas of a zod document schema need the compiler', () => {
  const zodDocument = z.object({ title: z.string(), sections: z.array(z.object({ start: z.number().int() })) });
  const first = '{"title": "T", "sections": [{"start": 1.5}';
  const rest = ', {"start": 2}]}';

  /** The diagnostics after each write, then after `end`. */
  function partial(chunks: readonly string[], options: PartialOptions = {}) {
    const diagnostics: Diagnostic[] = [];
    let value: unknown;
    const builder = createPartialBuilder(
      { ...options, schema: zodDocument },
      {
        update: (v) => {
          value = v;
        },
        diagnostic: (d) => diagnostics.push(d),
      },
    );
    const after: string[][] = [];
    for (const chunk of chunks) {
      builder.write(chunk);
      after.push(diagnostics.map((d) => d.message));
    }
    builder.end();
    after.push(diagnostics.map((d) => d.message));
    return { after, diagnostics, value, complete: builder.complete };
  }

  test('partial without a compiler: prefix checks read the export (no compiler needed), no subtree is checked, zod checks the document', () => {
    const run = partial([first, rest]);
    expect(run.value).toEqual({ title: 'T', sections: [{ start: 1.5 }, { start: 2 }] });
    expect(run.complete).toBe(true);
    // The violation as the number ends; no subtree diagnostic (those need the compiler).
    expect(run.after[0]).toEqual(['the number at /sections/0/start is 1.5, which is not an integer']);
    expect(run.diagnostics.map((d) => [d.reason, d.path ?? d.errors?.map((e) => [e.path, e.keyword]), d.rule])).toEqual(
      [
        ['violation', '/sections/0/start', 'type'],
        ['schema', [['/sections/0/start', 'invalid_type']], undefined],
      ],
    );
    expect(run.diagnostics[1]?.message).toMatch(/^the complete document does not match the schema: /);
    // Without prefix checks, only zod's verdict on the complete document.
    expect(partial([first, rest], { prefixCheck: false }).diagnostics.map((d) => d.reason)).toEqual(['schema']);
  });

  test('partial with compileJsonSchema: the subtree diagnostic comes as the subtree closes', () => {
    const run = partial([first, rest], { compileJsonSchema: compileSchema });
    expect(run.after[0]).toEqual([
      'the number at /sections/0/start is 1.5, which is not an integer',
      'the value at /sections/0/start does not match its schema: at /: must be integer',
      'the value at /sections/0 does not match its schema: at /start: must be integer',
    ]);
    expect(run.diagnostics.map((d) => d.message)).toEqual([
      'the number at /sections/0/start is 1.5, which is not an integer',
      'the value at /sections/0/start does not match its schema: at /: must be integer',
      'the value at /sections/0 does not match its schema: at /start: must be integer',
      'the value at /sections does not match its schema: at /0/start: must be integer',
      expect.stringMatching(/^the complete document does not match the schema: at \/sections\/0\/start: /),
    ]);
    expect(run.diagnostics[4]?.errors?.map((e) => e.keyword)).toEqual(['invalid_type']);
    expect(run.value).toEqual({ title: 'T', sections: [{ start: 1.5 }, { start: 2 }] });
  });

  const elementsText = '{"sections": [{"start": 1}, {"start": "2"}, {"start": 3}], "title": "T"}';

  test('elements through a zod document schema without a compiler: NO_JSON_SCHEMA_COMPILER', () => {
    for (const create of [
      () => createElementScanner({ path: '$.sections', schema: zodDocument }, sink),
      () => extractElements(elementsText, { path: '$.sections', schema: zodDocument }),
    ]) {
      const error = configurationError(create);
      expect(error.code).toBe(ConfigurationErrorCode.noJsonSchemaCompiler);
      expect(error.message).toContain("'@llmjson/core/ajv'");
      expect(error.message).toContain('llmjson compile');
      expect(error.message).toContain('elementSchema');
    }
  });

  test('elements through a zod document schema with compileJsonSchema: validated against the export’s items', () => {
    const r = extractElements(elementsText, {
      path: '$.sections',
      schema: zodDocument,
      compileJsonSchema: compileSchema,
    });
    expect(r.values).toEqual([{ start: 1 }, { start: 3 }]);
    expect(r.diagnostics.map((d) => [d.reason, d.errors?.map((e) => [e.path, e.keyword])])).toEqual([
      ['schema', [['/start', 'type']]],
    ]);
    const direct = extractElements(elementsText, {
      path: '$.sections',
      elementSchema: z.object({ start: z.number().int() }),
    });
    expect(direct.values).toEqual(r.values);
  });
});

/** A hand-written compiler: accepts objects with `ok: true`, records every call. */
function recordingCompiler() {
  const calls: { schema: JsonSchema; options: CompileOptions | undefined }[] = [];
  const compile: JsonSchemaCompiler = (schema, options) => {
    calls.push({ schema, options });
    return {
      validate(value: unknown): ValidationResult {
        if (typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === true) {
          return { valid: true, branch: 'custom' };
        }
        return {
          valid: false,
          errors: [{ path: '/ok', keyword: 'custom', message: 'must be ok', schemaPath: '#', params: {} }],
          message: 'at /ok: must be ok (custom)',
        };
      },
    };
  };
  return { compile, calls };
}

describe('a custom JsonSchemaCompiler', () => {
  // ajv would refuse this schema ("nope" is no type): only the custom compiler can use it.
  const custom: JsonSchema = { type: 'nope', 'x-rule': 'ok must be true' };

  test('ajv refuses the schema, so the results below come from the custom compiler', () => {
    expect(configurationError(() => compileSchema(custom)).code).toBe(ConfigurationErrorCode.schemaInvalid);
  });

  test('JSONL: called once per schema object, with the options, and its verdicts used', () => {
    const { compile, calls } = recordingCompiler();
    const r = parseJsonl('{"ok": true}\n{"ok": false}\n{"ok": true, "n": 2}\n', {
      schema: custom,
      compileJsonSchema: compile,
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.schema).toBe(custom);
    expect(calls[0]?.options).toEqual({});
    expect(r.values).toEqual([{ ok: true }, { ok: true, n: 2 }]);
    expect(r.records.map((x) => x.branch)).toEqual(['custom', 'custom']);
    expect(r.diagnostics).toMatchObject([
      { reason: 'schema', line: 2, message: 'at /ok: must be ok (custom)', errors: [{ keyword: 'custom' }] },
    ]);
  });

  test('the discriminator option reaches the compiler', () => {
    const { compile, calls } = recordingCompiler();
    parseJsonl('{"ok": true}\n', { schema: custom, compileJsonSchema: compile, discriminator: 'kind' });
    parseJsonl('{"ok": true}\n', { schema: custom, compileJsonSchema: compile, discriminator: false });
    expect(calls.map((c) => c.options)).toEqual([{ discriminator: 'kind' }, { discriminator: false }]);
  });

  test('salvage: called once per schema object and used', () => {
    const { compile, calls } = recordingCompiler();
    const diagnostics: Diagnostic[] = [];
    const found = extractAllJson('{"ok": false} then {"ok": true} and {"ok": 1}', {
      schema: custom,
      compileJsonSchema: compile,
      onDiagnostic: (d) => diagnostics.push(d),
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.schema).toBe(custom);
    expect(found.map((v) => [v.value, v.branch])).toEqual([[{ ok: true }, 'custom']]);
    expect(diagnostics.map((d) => d.reason)).toEqual(['schema', 'schema']);
  });

  test('elements: the element schema at the path, compiled once and used', () => {
    const items: JsonSchema = { 'x-rule': 'ok must be true' };
    const wrapper: JsonSchema = { type: 'object', properties: { list: { type: 'array', items } } };
    const { compile, calls } = recordingCompiler();
    const r = extractElements('{"list": [{"ok": true}, {"ok": 0}, {"ok": true, "i": 2}]}', {
      path: '$.list',
      schema: wrapper,
      compileJsonSchema: compile,
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.schema).toBe(elementSchemaAt(wrapper, ['list']));
    expect(calls[0]?.schema).toEqual(items);
    expect(r.values).toEqual([{ ok: true }, { ok: true, i: 2 }]);
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['schema', 'element 1: at /ok: must be ok (custom)'],
    ]);
    const { compile: compileElement, calls: elementCalls } = recordingCompiler();
    extractElements('[{"ok": true}, {"ok": true}]', { elementSchema: custom, compileJsonSchema: compileElement });
    expect(elementCalls.map((c) => c.schema)).toEqual([custom]);
    expect(elementCalls[0]?.schema).toBe(custom);
  });

  test('partial: the document schema at creation, sub-schemas as subtrees close', () => {
    const wrapper: JsonSchema = {
      type: 'object',
      properties: { entry: { 'x-rule': 'ok must be true' } },
    };
    const { compile, calls } = recordingCompiler();
    const diagnostics: Diagnostic[] = [];
    const builder = createPartialBuilder(
      { schema: wrapper, compileJsonSchema: compile },
      { update() {}, diagnostic: (d) => diagnostics.push(d) },
    );
    expect(calls.map((c) => c.schema)).toEqual([wrapper]);
    expect(calls[0]?.schema).toBe(wrapper);
    builder.write('{"entry": {"ok": false}');
    expect(diagnostics.map((d) => d.message)).toEqual([
      'the value at /entry does not match its schema: at /ok: must be ok (custom)',
    ]);
    builder.write(', "ok": true}');
    builder.end();
    // The document ({"entry": …, "ok": true}) passes the custom rule; the subtree did not.
    expect(diagnostics).toHaveLength(1);
    const schemas = new Set(calls.map((c) => c.schema));
    expect([...schemas]).toEqual([wrapper, subSchemaAt(wrapper, ['entry'])]);
  });

  test('zod with a custom compiler: subtree checks compile the export through it', () => {
    const zodDocument = z.object({ entry: z.object({ ok: z.literal(true) }) });
    const exported = jsonSchemaOf(zodDocument as StandardSchemaV1);
    expect(exported).toBeDefined();
    const { compile, calls } = recordingCompiler();
    const diagnostics: Diagnostic[] = [];
    const builder = createPartialBuilder(
      { schema: zodDocument as SchemaInput, compileJsonSchema: compile },
      { update() {}, diagnostic: (d) => diagnostics.push(d) },
    );
    // The document is zod's to check: nothing compiled at creation.
    expect(calls).toEqual([]);
    builder.write('{"entry": {"ok": false}}');
    builder.end();
    // The custom rule (objects with ok: true) refuses `false` too: each closing subtree is reported.
    expect(calls.map((c) => c.schema)).toEqual([
      subSchemaAt(exported as JsonSchema, ['entry', 'ok']),
      subSchemaAt(exported as JsonSchema, ['entry']),
    ]);
    expect(calls[0]?.schema).toBe(subSchemaAt(exported as JsonSchema, ['entry', 'ok']));
    expect(calls[1]?.schema).toBe(subSchemaAt(exported as JsonSchema, ['entry']));
    expect(diagnostics.map((d) => d.message)).toEqual([
      // The prefix check reads the export's `const: true` itself: no compiler involved.
      'the value at /entry/ok is false, which is not an allowed value (const: true)',
      'the value at /entry/ok does not match its schema: at /ok: must be ok (custom)',
      'the value at /entry does not match its schema: at /ok: must be ok (custom)',
      expect.stringMatching(/^the complete document does not match the schema: at \/entry\/ok: /),
    ]);
  });
});
