/**
 * JSON Schema validation generated ahead of time (packages/core/src/schema/ajv/ajv-standalone.ts): the
 * module `compileStandaloneModule` writes, imported as it is, gives the verdicts, error paths,
 * keywords, messages and branches of `compileSchema` (run-time ajv) on the fixture schemas;
 * fed to the Web stream as a Standard Schema with no JSON Schema compiler it gives what the
 * Node stream gives with the JSON Schema; its patterns are linear-time; the schemas
 * compileSchema refuses are refused; a browser bundle of it holds no `new Function` or `eval`.
 *
 * The modules are written inside this package (test/.tmp-standalone-*), so that their imports
 * (ajv's runtime, ajv-formats, @llmjson/core/ajv) resolve as they do for a project that
 * depends on @llmjson/core; the directory is removed afterwards.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type CompiledSchema,
  ConfigurationError,
  ConfigurationErrorCode,
  type JsonSchema,
  type StandardSchemaV1,
  type ValidationResult,
} from '@llmjson/core';
import { compileSchema, compileStandaloneModule } from '@llmjson/core/ajv';
import { compileStandardSchema } from '@llmjson/core/internal';
import { build } from 'esbuild';
import { afterAll, describe, expect, test } from 'vitest';
import { streamChunks } from '../../../test/support/collect.js';
import { webJsonlChunks } from '../../../test/support/web.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TMP = fileURLToPath(new URL(`./.tmp-standalone-${process.pid}/`, import.meta.url));
mkdirSync(TMP, { recursive: true });
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

let written = 0;

/** Writes the module for `schema` and imports it: its default export. */
async function standalone(
  schema: JsonSchema,
  options: Parameters<typeof compileStandaloneModule>[1] = {},
): Promise<StandardSchemaV1> {
  const file = join(TMP, `schema-${written++}.js`);
  writeFileSync(file, compileStandaloneModule(schema, options));
  return ((await import(pathToFileURL(file).href)) as { default: StandardSchemaV1 }).default;
}

const readJson = (path: string): JsonSchema => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as JsonSchema;

const DEFINITION_RELATIONSHIP_CONTRACT =
  'packages/contracts/schemas/prompt-contracts/llmjson/kg/definition_relationship/v1.schema.json';

function nested(depth: number): unknown {
  let value: Record<string, unknown> = { name: 'leaf' };
  for (let i = 0; i < depth; i++) value = { name: 'n', children: [value] };
  return value;
}

const COMMON: unknown[] = [null, 42, 'text', [], {}, { type: 'nothing' }, { type: 7 }, { type: ['definition'] }];

/** Values per fixture schema: valid ones, and each kind of mistake the schema can catch. */
const VALUES: Record<string, unknown[]> = {
  'calendar-action': [
    { action: 'create', title: 'Lunch', date: '2024-02-29' },
    { action: 'create', title: '', date: '2023-02-29', extra: true },
    { action: 'create', title: 3 },
    { action: 'cancel', eventId: 'evt_42ab' },
    { action: 'cancel', eventId: 'evt_NOPE', reason: 5 },
    { action: 'reschedule' },
    { title: 'no action' },
  ],
  'catastrophic-pattern': [
    { word: 'aaaa' },
    { word: `${'a'.repeat(40)}!` },
    { xxxy: 1, word: 'a' },
    { xxy: 'not a number' },
    { word: 5 },
  ],
  'definition-relationship': [
    { type: 'definition', entity: 'RE2', definition: 'a regex engine' },
    { type: 'definition', entity: '', definition: 'x', extra: 1 },
    { type: 'relationship', subject: 'a', predicate: 'b', object: 'c', 'object-entity': true },
    { type: 'relationship', subject: 'a', object: 'c', 'object-entity': 'yes' },
    { type: 'relationship' },
  ],
  ontology: [
    { type: 'entity', id: 'ada_lovelace', label: 'Ada', class: 'person', sameAs: 'https://en.wikipedia.org/wiki/Ada' },
    { type: 'entity', id: 'Ada Lovelace', label: 'Ada', class: 'robot', sameAs: 'not a uri' },
    { type: 'relationship', subject: 'ada', predicate: 'knew', object: 'babbage', since: '1833-06-05' },
    { type: 'relationship', subject: 'ada', predicate: '', object: 'x/y', since: '1833-13-05' },
    { type: 'attribute', entity: 'ada', name: 'born', value: 1815, source: 'https://example.org' },
    { type: 'attribute', entity: 'ada', name: 'born', value: null, source: 'x' },
  ],
  tree: [
    { name: 'a', children: [{ name: 'b', children: [] }] },
    { name: 'a', children: [{ name: 1 }, 'x'] },
  ],
  'tree-list': [[{ name: 'a' }, { children: [{ name: 2 }] }], [{ children: 'no' }]],
};

const FIXTURES = readdirSync(join(ROOT, 'fixtures/schemas'))
  .filter((name) => name.endsWith('.schema.json'))
  .map((name) => [name.replace(/\.schema\.json$/, ''), `fixtures/schemas/${name}`] as const);

/** What a result says, without what legitimately differs between validators (`schemaPath`, `params`). */
function outcome(result: ValidationResult) {
  if (result.valid) return result;
  return {
    valid: false,
    branch: result.branch,
    message: result.message,
    errors: result.errors.map((e) => ({ path: e.path, keyword: e.keyword, message: e.message })),
  };
}

/** The run-time result with each error message as the module reports it (the one-line extras appended). */
function runtimeOutcome(compiled: CompiledSchema, value: unknown) {
  const result = compiled.validate(value);
  if (result.valid) return result;
  const shown = outcome(result);
  return {
    ...shown,
    errors: result.errors.map((e) => ({
      path: e.path,
      keyword: e.keyword,
      message:
        e.keyword === 'additionalProperties'
          ? `${e.message} ("${String(e.params.additionalProperty)}")`
          : e.keyword === 'enum' && Array.isArray(e.params.allowedValues)
            ? `${e.message} (${e.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
            : e.message,
    })),
  };
}

describe('the generated module validates as compileSchema does', () => {
  test.each([...FIXTURES, ['definition_relationship contract', DEFINITION_RELATIONSHIP_CONTRACT] as const])(
    '%s',
    async (name, path) => {
      const schema = readJson(path);
      const module = await standalone(schema, { name });
      const generated = compileStandardSchema(module);
      const runtime = compileSchema(schema);
      expect(generated.discriminator).toBe(runtime.discriminator);
      expect(generated.branches).toEqual(runtime.branches);
      const key = name.startsWith('definition_relationship') ? 'definition-relationship' : name;
      const values = [...(VALUES[key] ?? []), ...COMMON];
      expect(values.length).toBeGreaterThan(COMMON.length);
      let invalid = 0;
      for (const value of values) {
        const expected = runtimeOutcome(runtime, value);
        expect(outcome(generated.validate(value)), JSON.stringify(value)).toEqual(expected);
        if (!expected.valid) invalid++;
      }
      expect(invalid).toBeGreaterThan(0);
      expect(invalid).toBeLessThan(values.length);
    },
  );

  test('issues: ajv keyword as code, instancePath as keys (~1 and ~0 unescaped, indices as numbers)', async () => {
    const schema = {
      type: 'object',
      properties: { 'a/b~c': { type: 'array', items: { type: 'object', properties: { '0': { type: 'string' } } } } },
    };
    const module = await standalone(schema);
    const result = await module['~standard'].validate({ 'a/b~c': [{ '0': 'ok' }, { '0': 1 }] });
    expect(result).toEqual({ issues: [{ message: 'must be string', path: ['a/b~c', 1, '0'], code: 'type' }] });
    expect(await module['~standard'].validate({ 'a/b~c': [] })).toEqual({ value: { 'a/b~c': [] } });
    expect(module['~standard'].vendor).toBe('llmjson');
    expect(module['~standard'].version).toBe(1);
  });

  test('dispatch: only the named branch runs, with the root’s other keywords, as at run time', async () => {
    const schema = {
      type: 'object',
      required: ['id'],
      oneOf: [
        { properties: { kind: { const: 'a' }, x: { type: 'number' } }, required: ['kind'] },
        { properties: { kind: { const: 'b' }, y: { type: 'string' } }, required: ['kind'] },
      ],
    };
    const module = await standalone(schema);
    const generated = compileStandardSchema(module);
    const runtime = compileSchema(schema);
    for (const value of [
      { kind: 'a', x: 1, id: 1 },
      { kind: 'a', x: 'no', id: 1 },
      { kind: 'b', y: 's', id: 2 },
      { kind: 'c', id: 1 },
    ]) {
      expect(outcome(generated.validate(value))).toEqual(runtimeOutcome(runtime, value));
    }
    // The root's own keywords fail: the same errors; the one-line message differs only in that
    // the Standard Schema path (standard-schema.ts) always names the branch.
    const missingId = { kind: 'b', y: 2 };
    const expected = runtimeOutcome(runtime, missingId);
    if (expected.valid) throw new Error('expected the missing id to be reported');
    expect(outcome(generated.validate(missingId))).toEqual({ ...expected, message: `branch "b": ${expected.message}` });
    // Without the engines' dispatch in front, the module reports a value naming no branch itself.
    const validate = module['~standard'].validate;
    expect(await validate({ kind: 'c' })).toEqual({
      issues: [
        {
          message: 'unknown discriminator "kind": "c"; expected one of "a", "b"',
          path: ['kind'],
          code: 'discriminator',
        },
      ],
    });
    expect(await validate('x')).toEqual({ issues: [{ message: 'must be object', path: [], code: 'type' }] });
  });

  test('--no-discriminator and an explicit discriminator compile as compileSchema does', async () => {
    const schema = readJson('fixtures/schemas/definition-relationship.schema.json');
    const whole = await standalone(schema, { discriminator: false });
    const value = { type: 'definition', entity: '' };
    expect(outcome(compileStandardSchema(whole, { discriminator: false }).validate(value))).toEqual(
      runtimeOutcome(compileSchema(schema, { discriminator: false }), value),
    );
    const named = await standalone(schema, { discriminator: 'type' });
    expect(outcome(compileStandardSchema(named, { discriminator: 'type' }).validate(value))).toEqual(
      runtimeOutcome(compileSchema(schema, { discriminator: 'type' }), value),
    );
    expect(() => compileStandaloneModule(schema, { discriminator: 'entity' })).toThrow(
      expect.objectContaining({ code: ConfigurationErrorCode.discriminatorInvalid }),
    );
  });

  test('a value too deep for the generated code is the depth result, as at run time', async () => {
    const schema = readJson('fixtures/schemas/tree.schema.json');
    const generated = compileStandardSchema(await standalone(schema));
    const deep = nested(200_000);
    expect(outcome(generated.validate(deep))).toEqual(outcome(compileSchema(schema).validate(deep)));
    expect(generated.validate(deep)).toMatchObject({ valid: false, errors: [{ keyword: 'depth' }] });
  });
});

describe('hardening, as compileSchema', () => {
  test('patterns run in linear time: ^(a+)+$ on 40 a and a bang answers (a backtracking engine would not, within the test timeout)', async () => {
    const module = await standalone(readJson('fixtures/schemas/catastrophic-pattern.schema.json'));
    const result = await module['~standard'].validate({
      word: `${'a'.repeat(40)}!`,
      xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx: 1,
    });
    expect(result).toEqual({
      issues: [{ message: 'must match pattern "^(a+)+$"', path: ['word'], code: 'pattern' }],
    });
  });

  test.each([
    ['a lookahead pattern', { type: 'string', pattern: '^(?=a)a+$' }, /lookahead/],
    ['a lookbehind in patternProperties', { patternProperties: { '(?<=a)b': { type: 'number' } } }, /lookbehind/],
    [
      'a reference cycle',
      { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
      /cycle/,
    ],
    ['a schema the meta-schema rejects', { type: 'strnig' }, /invalid schema/],
    ['an unknown dialect', { $schema: 'https://example.org/my-dialect' }, /unsupported \$schema/],
    ['a schema that is not one', 'nope' as unknown as JsonSchema, /must be an object or a boolean/],
  ])('%s is a ConfigurationError SCHEMA_INVALID, as for compileSchema', (_name, schema, message) => {
    expect(() => compileSchema(schema as JsonSchema)).toThrow(ConfigurationError);
    let error: unknown;
    try {
      compileStandaloneModule(schema as JsonSchema);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).code).toBe(ConfigurationErrorCode.schemaInvalid);
    expect((error as ConfigurationError).message).toMatch(message);
  });

  test('the generated code holds no new Function and no eval', () => {
    for (const [, path] of FIXTURES) {
      const code = compileStandaloneModule(readJson(path));
      expect(code).not.toMatch(/new Function|\beval\b|\brequire\(/);
      expect(code).toMatch(/^export default \{$/m);
    }
  });
});

/** Lets a promise chain the module may have started (a dynamic import, say) settle. */
async function settled(): Promise<void> {
  await import('node:child_process');
  for (let i = 0; i < 5; i++) await new Promise<void>((done) => setImmediate(done));
}

describe('strings from the schema are inert in the module', () => {
  test('the reported reproduction: an $id that ends ajv’s sourceURL comment runs nothing when validate runs', async () => {
    const marker = join(TMP, 'PWNED');
    const schema = {
      $id: `http://e.com/i.json#*/;import('node:child_process').then(c=>c.execSync('touch ${marker}'));/*`,
      type: 'object',
    } as JsonSchema;
    const module = await standalone(schema);
    expect(await module['~standard'].validate({})).toEqual({ value: {} });
    expect(await module['~standard'].validate([])).toMatchObject({ issues: [{ code: 'type', path: [] }] });
    await settled();
    expect(existsSync(marker)).toBe(false);
    expect(compileStandaloneModule(schema)).not.toContain('sourceURL');
  });

  test('an $id that ends the comment and the function runs nothing when compiled, imported or run', async () => {
    const flags = globalThis as { llmjsonCompiled?: number; llmjsonImported?: number };
    const schema = {
      $id: 'http://e.com/i.json#*/},globalThis.llmjsonCompiled=1,function(){/*',
      type: 'object',
      properties: {
        // A subschema with its own $id gets a function (and, from ajv, a comment) of its own.
        a: { $id: 'http://e.com/a.json#*/};globalThis.llmjsonImported=1;function x(){/*', type: 'string' },
      },
    } as JsonSchema;
    compileStandaloneModule(schema);
    expect(flags.llmjsonCompiled).toBeUndefined();
    const module = await standalone(schema);
    expect(await module['~standard'].validate({ a: 1 })).toMatchObject({ issues: [{ code: 'type', path: ['a'] }] });
    expect(flags.llmjsonCompiled).toBeUndefined();
    expect(flags.llmjsonImported).toBeUndefined();
  });

  test('a "__proto__" key in an enum member or a const is a key, as at run time, not a prototype', async () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"e":{"enum":[{"__proto__":1}]},"c":{"const":{"__proto__":{"a":1}}}}}',
    ) as JsonSchema;
    const module = await standalone(schema);
    const runtime = compileSchema(schema);
    const values = [
      { e: {} },
      { c: {} },
      { c: { a: 1 } },
      JSON.parse('{"e":{"__proto__":1},"c":{"__proto__":{"a":1}}}'),
    ];
    for (const value of values) {
      const result = await module['~standard'].validate(value);
      expect('value' in result, JSON.stringify(value)).toBe(runtime.validate(value).valid);
    }
    expect(await module['~standard'].validate({ e: {} })).toMatchObject({ issues: [{ code: 'enum', path: ['e'] }] });
  });

  test('the module can be inlined in an HTML script element: no </, <!-- or raw U+2028 outside their escapes', async () => {
    const hostile = '</script><!--\u2028\u2029<script>';
    const schema = {
      $id: `http://e.com/${encodeURIComponent(hostile)}`,
      title: hostile,
      type: 'object',
      properties: { [hostile]: { enum: [hostile, 1] } },
      required: [hostile],
    } as JsonSchema;
    const code = compileStandaloneModule(schema, { name: hostile });
    expect(code).not.toMatch(/<\/|<!--|[\u2028\u2029]/);
    const module = await standalone(schema, { name: hostile });
    const runtime = compileSchema(schema);
    for (const value of [{ [hostile]: hostile }, { [hostile]: 2 }, {}]) {
      const result = await module['~standard'].validate(value);
      expect('issues' in result).toBe(!runtime.validate(value).valid);
    }
    expect(await module['~standard'].validate({ [hostile]: 2 })).toMatchObject({
      issues: [{ code: 'enum', path: [hostile] }],
    });
  });
});

describe('in the engines, as a Standard Schema with no JSON Schema compiler', () => {
  const ANSWER = [
    '{"type":"definition","entity":"RE2","definition":"a linear-time regex engine"}',
    '{"type":"relationship","subject":"RE2","predicate":"replaces","object":"backtracking","object-entity":false}',
    '{"type":"definition","entity":"","definition":"empty entity","extra":1}',
    '{"type":"relationship","subject":"a","object":"c"}',
    '{"type":"opinion","text":"no such branch"}',
    '["not an object"]',
    'not json at all',
    '{"type":"definition","entity":"ajv","definition":"a JSON Schema validator"}',
  ].join('\n');

  test.each([
    ['definition-relationship fixture', 'fixtures/schemas/definition-relationship.schema.json'],
    ['definition_relationship contract', DEFINITION_RELATIONSHIP_CONTRACT],
  ])('%s: Web stream with the module = Node stream with the JSON Schema', async (_name, path) => {
    const schema = readJson(path);
    const module = await standalone(schema);
    const chunks = ANSWER.match(/[\s\S]{1,7}/g) ?? [];
    const web = await webJsonlChunks(chunks, { schema: module });
    const node = await streamChunks(chunks, { schema });
    expect(web.records).toEqual(node.records);
    expect(web.records.length).toBe(3);
    const shown = (d: (typeof web.diagnostics)[number]) => ({
      reason: d.reason,
      line: d.line,
      branch: d.branch,
      message: d.message,
      errors: d.errors?.map((e) => ({ path: e.path, keyword: e.keyword })),
    });
    expect(web.diagnostics.map(shown)).toEqual(node.diagnostics.map(shown));
    expect(web.diagnostics.map((d) => d.reason)).toContain('schema');
    expect(web.diagnostics.some((d) => d.branch === 'relationship')).toBe(true);
    expect(web.stats).toEqual(node.stats);
  });
});

describe('a browser bundle', () => {
  test('the module and createJsonlStream from @llmjson/web bundle without new Function or eval', async () => {
    const schemaModule = join(TMP, 'bundle-schema.js');
    writeFileSync(
      schemaModule,
      compileStandaloneModule(readJson('fixtures/schemas/calendar-action.schema.json'), { name: 'calendar' }),
    );
    const entry = join(TMP, 'bundle-entry.js');
    writeFileSync(
      entry,
      "import schema from './bundle-schema.js';\nimport { createJsonlStream } from '@llmjson/web';\nexport const stream = () => createJsonlStream({ schema });\n",
    );
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const text = result.outputFiles[0]?.text ?? '';
    const inputs = Object.values(result.metafile.outputs)[0]?.inputs ?? {};
    const kept = Object.keys(inputs).filter((file) => (inputs[file]?.bytesInOutput ?? 0) > 0);
    // ajv's compiler and ajv-validator.ts stay out; re2js's `eval(…){` method definitions are
    // methods, not calls of the global eval.
    expect(kept.filter((file) => /ajv\/dist\/(?!runtime\/)|ajv-validator|ajv-standalone/.test(file))).toEqual([]);
    expect(text).not.toContain('new Function(');
    expect(text.replace(/[{};,]eval\([\w$,]*\)\{/g, '')).not.toMatch(/(?<![\w$.])eval\(/);
    expect(text.length).toBeGreaterThan(10_000);
    console.info(`strict-CSP bundle (calendar-action module + createJsonlStream): ${text.length} bytes minified`);
  });
});
