/**
 * Hostile schema strings through `llmjson compile`: every place a JSON Schema can carry a string
 * (`$id`, `$ref`, `$anchor`, property keys, `pattern`, `patternProperties` keys, `enum` and
 * `const` values, `format`, `$comment`, `description`, `default`, `title`, `examples`, `required`
 * entries, `propertyNames`, `dependentRequired`/`dependencies`, discriminator values and the
 * discriminator's name) gets strings built to end a comment, a string literal, a template
 * literal, a regex literal, a line or an HTML script element, each carrying a payload that sets a
 * global flag or creates a file if it ever runs (or a name of Object.prototype, such as
 * `__proto__`, which an object literal would take as the prototype). Each schema is compiled by
 * `compileStandaloneModule` (and a sample by the `llmjson compile` command), the module is
 * written, imported and run on values built from the same strings. Nothing may run: not while
 * compiling, not on import, not while validating. The module answers as the run-time ajv
 * validator (`compileSchema`) does: verdict, branch, error paths, keywords and messages. A schema
 * ajv refuses is refused by both paths alike (a ConfigurationError; exit 2 from the CLI); the
 * refusals are counted, and most schemas must compile.
 *
 * The modules are written inside packages/core (test/.tmp-hostile-compile-*), so that their
 * imports (ajv's runtime, ajv-formats, @llmjson/core/ajv) resolve as for a project that depends
 * on @llmjson/core; the directory is removed afterwards.
 *
 * Runs: 300 per property on CI, 60 locally (HOSTILE_RUNS overrides); the CLI sample a sixth.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type CompiledSchema,
  ConfigurationError,
  type JsonSchema,
  type StandardSchemaV1,
  type ValidationResult,
} from '@llmjson/core';
import { compileSchema, compileStandaloneModule } from '@llmjson/core/ajv';
import { compileStandardSchema, quoteInput } from '@llmjson/core/internal';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runCli } from '../support/cli.js';
import { hostileRuns } from '../support/hostile.js';

const TMP = fileURLToPath(new URL(`../../packages/core/test/.tmp-hostile-compile-${process.pid}/`, import.meta.url));
/** The file a payload creates, and the global flag it sets, if it ever runs. */
const MARKER = join(TMP, 'ran');
const FLAG = 'llmjsonHostileCompileRan';
const flags = globalThis as Record<string, unknown>;

beforeAll(() => {
  mkdirSync(TMP, { recursive: true });
  // ajv warns on the console about formats it does not know (strict: false ignores them).
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterAll(() => {
  vi.restoreAllMocks();
  rmSync(TMP, { recursive: true, force: true });
});

/** Each run starts clean, so that a run that fails is the one whose payload ran. */
function clean(): void {
  delete flags[FLAG];
  rmSync(MARKER, { force: true });
}

function nothingRan(when: string): void {
  expect(flags[FLAG], `a payload ran ${when}`).toBeUndefined();
  expect(existsSync(MARKER), `a payload created a file ${when}`).toBe(false);
}

/** Code that, run, shows it ran: a global flag, a file written now, a file written later. */
const PAYLOADS = [
  `globalThis.${FLAG}=1`,
  `process.getBuiltinModule('node:fs').writeFileSync('${MARKER}','')`,
  `import('node:fs').then(f=>f.writeFileSync('${MARKER}',''))`,
];

/** Each ends one kind of context, runs the payload and opens the context again, so the rest parses. */
const BREAKOUTS: readonly ((payload: string) => string)[] = [
  (p) => `*/;${p};/*`,
  (p) => `*/},${p},function(){/*`,
  (p) => `*/};${p};function llmjson_x(){/*`,
  (p) => `*/\n${p}\n/*`,
  (p) => `";${p};"`,
  (p) => `"+(${p})+"`,
  (p) => `\\";${p};//`,
  (p) => `\\\\"+(${p})+"`,
  (p) => `\\u0022;${p};//`,
  (p) => `';${p};'`,
  (p) => `'+(${p})+'`,
  (p) => `\`+(${p})+\``,
  (p) => `\${${p}}`,
  (p) => `\`;${p};\``,
  (p) => `/;${p};/`,
  (p) => `/+(${p})+/`,
  (p) => `\n;${p};//`,
  (p) => `\r\n${p}\n`,
  (p) => `\u2028;${p};//`,
  (p) => `\u2029;${p};//`,
  (p) => `</script><script>${p}</script>`,
  (p) => `<!--\n${p}\n-->`,
  (p) => `*/"'\`\${${p}}//\n${p}/*`,
];

const FRAGMENTS = [
  '*/',
  '/*',
  '//',
  '`',
  '${',
  '}',
  '"',
  "'",
  '\\',
  '\\\\',
  '/',
  '\n',
  '\r',
  '\u2028',
  '\u2029',
  '</script>',
  '<!--',
  '-->',
  ';',
  ')',
  ']',
  '#',
  '%',
  'a',
  ' ',
  '\u0000',
  '\\u0022',
];

/** A string built to leave whatever literal or comment it is written in, with a payload; or a prototype's name. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...BREAKOUTS), fc.constantFrom(...PAYLOADS)).map(([b, p]) => b(p)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 5 }),
        fc.constantFrom(...PAYLOADS),
        fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 5 }),
      )
      .map(([before, p, after]) => `${before.join('')}${p}${after.join('')}`),
  },
  // Names an object literal or a lookup may take from the prototype instead of the schema
  // (`enum` and `const` compare objects by their own keys: json-equal.ts).
  {
    weight: 1,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', '__proto__*/'),
  },
);

type Dialect = 'draft-07' | '2019-09' | '2020-12';
const SCHEMA_URI: Record<Dialect, string | undefined> = {
  'draft-07': undefined,
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

const escapeRegExp = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
const pointerSegment = (s: string): string => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));

/** What one place adds to the schema: a property's subschema, definitions, and values for it. */
interface Contribution {
  readonly schema: Record<string, unknown>;
  readonly definitions?: Record<string, unknown>;
  readonly values: readonly unknown[];
}

type Place = (s: string, dialect: Dialect) => Contribution;

const common = (s: string): unknown[] => [s, { [s]: s }, { [s]: 1, [`${s}x`]: 's' }, 1, null, [s]];

/** Each place a schema carries a string, with the string `s` there. */
const PLACES: Record<string, Place> = {
  'property key': (s) => ({
    schema: { type: 'object', properties: { [s]: { type: 'string', minLength: 2 } }, additionalProperties: false },
    values: [{ [s]: 'ok' }, { [s]: 'x' }, { [s]: s, other: 1 }, {}],
  }),
  'required entry': (s) => ({ schema: { type: 'object', required: [s, 'a'] }, values: [{ [s]: 1, a: 1 }, { a: s }] }),
  'patternProperties key': (s) => ({
    schema: { type: 'object', patternProperties: { [`^${escapeRegExp(s)}$`]: { type: 'number' } } },
    values: [{ [s]: 1 }, { [s]: s }, { a: s }],
  }),
  pattern: (s) => ({
    schema: { type: 'string', pattern: `^${escapeRegExp(s)}(?:x|\\/|")*$` },
    values: [s, `${s}x"`, `a${s}`, 1],
  }),
  'pattern, unescaped': (s) => ({ schema: { type: 'string', pattern: s }, values: [s, 'a', ''] }),
  'enum values': (s) => ({ schema: { enum: [s, 1, { [s]: s }, [s]] }, values: [s, { [s]: s }, [s], `${s}x`, 2] }),
  'const value': (s) => ({ schema: { const: { [s]: [s] } }, values: [{ [s]: [s] }, { [s]: s }, s] }),
  format: (s) => ({ schema: { type: 'string', format: s }, values: [s, 'a', 1] }),
  'annotations ($comment, description, title, default, examples)': (s) => ({
    schema: { type: 'string', $comment: s, description: s, title: s, default: s, examples: [s], maxLength: 1000 },
    values: [s, 1],
  }),
  propertyNames: (s) => ({
    schema: { type: 'object', propertyNames: { not: { const: s }, maxLength: 200 } },
    values: [{ [s]: 1 }, { a: s }, { '': 1 }],
  }),
  'propertyNames pattern': (s) => ({
    schema: { type: 'object', propertyNames: { pattern: `^(?:${escapeRegExp(s)}|a)$` } },
    values: [{ [s]: 1 }, { a: s }, { b: 1 }],
  }),
  dependentRequired: (s, dialect) => ({
    schema:
      dialect === 'draft-07'
        ? { type: 'object', dependencies: { [s]: [`${s}x`] } }
        : { type: 'object', dependentRequired: { [s]: [`${s}x`] } },
    values: [{ [s]: 1 }, { [s]: 1, [`${s}x`]: 2 }, { a: s }],
  }),
  '$ref to a definition named by it': (s) => ({
    schema: { $ref: `#/definitions/${pointerSegment(s)}` },
    definitions: { [s]: { type: 'string', title: s } },
    values: [s, 1],
  }),
  '$ref, unescaped': (s) => ({ schema: { $ref: s }, values: [s] }),
  $anchor: (s, dialect) =>
    dialect === 'draft-07'
      ? {
          schema: { $ref: `#${s}` },
          definitions: { [`anchor ${s}`]: { $id: `#${s}`, type: 'string' } },
          values: [s, 1],
        }
      : { schema: { $ref: `#${s}` }, definitions: { [`anchor ${s}`]: { $anchor: s, type: 'string' } }, values: [s, 1] },
  'subschema $id': (s) => ({
    schema: { $id: `http://e.com/sub/${s}`, type: 'object', properties: { a: { type: 'string' } } },
    values: [{ a: s }, { a: 1 }],
  }),
};

/** Places whose strings ajv refuses outright most of the time: drawn less often. */
const RARE = new Set(['pattern, unescaped', '$ref, unescaped', '$anchor']);
const placeName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...Object.keys(PLACES).filter((name) => !RARE.has(name))) },
  { weight: 1, arbitrary: fc.constantFrom(...RARE) },
);

interface Case {
  readonly schema: JsonSchema;
  readonly values: readonly unknown[];
  readonly places: readonly string[];
}

/**
 * A schema with a hostile string in each of one to four places (each under a property of its
 * own), sometimes a hostile root `$id`, sometimes a discriminated `oneOf` whose constants (and
 * perhaps whose property name) are hostile; and values made of the same strings.
 */
const hostileCase: fc.Arbitrary<Case> = fc
  .record({
    dialect: fc.constantFrom<Dialect>('draft-07', '2019-09', '2020-12'),
    places: fc.array(fc.tuple(placeName, hostileString), { minLength: 1, maxLength: 4 }),
    root: fc.constantFrom('plain', 'plain', '$id', '$id', 'discriminator', 'discriminator', 'both'),
    rootId: hostileString,
    discriminator: fc.record({
      property: fc.oneof(fc.constant('type'), hostileString),
      constants: fc.uniqueArray(hostileString, { minLength: 2, maxLength: 3 }),
    }),
  })
  .map(({ dialect, places: chosen, root, rootId: id, discriminator: tagged }) => {
    // A root $id and a discriminator together are mostly refused, by both paths alike (each
    // branch is compiled from a pointer built on the $id): drawn less often.
    const rootId = root === '$id' || root === 'both' ? id : undefined;
    const discriminator = root === 'discriminator' || root === 'both' ? tagged : undefined;
    const places = [...chosen];
    if (rootId !== undefined) places.push(['root $id', rootId]);
    if (discriminator !== undefined) places.push(['discriminator values', discriminator.constants[0] as string]);
    if (discriminator !== undefined && discriminator.property !== 'type') {
      places.push(['discriminator name', discriminator.property]);
    }
    const properties: Record<string, unknown> = {};
    const definitions: Record<string, unknown> = {};
    const perPlace: (readonly unknown[])[] = [];
    chosen.forEach(([name, s], i) => {
      const contribution = (PLACES[name] as Place)(s, dialect);
      properties[`p${i}`] = contribution.schema;
      // Defined, not assigned: a definition named "__proto__" is a definition.
      for (const [key, definition] of Object.entries(contribution.definitions ?? {})) {
        Object.defineProperty(definitions, key, {
          value: definition,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      perPlace.push([...contribution.values, ...common(s)]);
    });
    const schema: Record<string, unknown> = { type: 'object', properties };
    const uri = SCHEMA_URI[dialect];
    if (uri !== undefined) schema.$schema = uri;
    // 2019-09 and 2020-12 allow no fragment in $id but an empty one: the string goes in the path.
    if (rootId !== undefined)
      schema.$id = dialect === 'draft-07' ? `http://e.com/i.json#${rootId}` : `http://e.com/${rootId}/i.json`;
    if (Object.keys(definitions).length > 0) schema[dialect === 'draft-07' ? 'definitions' : '$defs'] = definitions;
    // $ref strings were written for draft-07's `definitions`.
    if (dialect !== 'draft-07') {
      for (const property of Object.values(properties) as Record<string, unknown>[]) {
        if (typeof property.$ref === 'string') property.$ref = property.$ref.replace(/^#\/definitions\//, '#/$defs/');
      }
    }
    const values: unknown[] = [{}, null, 'text'];
    for (let round = 0; round < 4; round++) {
      const value: Record<string, unknown> = {};
      perPlace.forEach((candidates, i) => {
        value[`p${i}`] = candidates[(round * 3 + i) % candidates.length];
      });
      values.push(value);
    }
    if (discriminator !== undefined) {
      const { property, constants } = discriminator;
      schema.oneOf = constants.map((constant, i) => ({
        type: 'object',
        properties: { [property]: { const: constant }, [`b${i}`]: { type: 'string', title: constant } },
        required: [property],
      }));
      for (const [i, constant] of constants.entries()) {
        values.push(
          { [property]: constant, [`b${i}`]: constant },
          { [property]: constant, [`b${i}`]: 1, p0: constant },
        );
      }
      values.push({ [property]: `${constants[0]}x` }, { [property]: 1 });
    }
    return { schema: schema as JsonSchema, values, places: places.map(([name]) => name) };
  });

/**
 * The verdict, branch and errors (paths, keywords) of a result: what the module, read through
 * `compileStandardSchema`, and the run-time validator must agree on. Messages are compared on
 * the module's own issues (`issues`), before the Standard Schema path quotes and joins them.
 */
function verdict(result: ValidationResult) {
  if (result.valid) return result;
  return {
    valid: false,
    branch: result.branch,
    errors: result.errors.map((e) => ({ path: e.path, keyword: e.keyword })),
  };
}

/** The messages the module's issues carry for what the run-time validator reports on `value`. */
function runtimeMessages(result: ValidationResult): string[] {
  if (result.valid) return [];
  return result.errors.map((e) =>
    e.keyword === 'additionalProperties'
      ? `${e.message} ("${quoteInput(String(e.params.additionalProperty))}")`
      : e.keyword === 'enum' && Array.isArray(e.params.allowedValues)
        ? `${e.message} (${quoteInput(e.params.allowedValues.map((v) => JSON.stringify(v)).join(', '))})`
        : e.message,
  );
}

/** Lets a promise chain a payload may have started (a dynamic import) settle. */
async function settled(): Promise<void> {
  await import('node:fs');
  for (let i = 0; i < 5; i++) await new Promise<void>((done) => setImmediate(done));
}

/** compileSchema's verdict on `schema`: the validator, or the ConfigurationError that refuses it. */
function runtimeFor(schema: JsonSchema): CompiledSchema | ConfigurationError {
  try {
    return compileSchema(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
}

/**
 * The one known case where the run-time path refuses what the module compiles: a draft-07
 * plain-name `$id` anchor whose name needs URI escaping, referenced beside a discriminated
 * `oneOf` (the run-time path compiles the root's other keywords without an `$id` of their own,
 * where ajv cannot resolve such an anchor). It has nothing to do with the strings' content.
 */
function knownRuntimeOnlyRefusal(error: ConfigurationError, schema: JsonSchema, places: readonly string[]): boolean {
  return (
    places.includes('$anchor') &&
    typeof schema === 'object' &&
    Array.isArray(schema.oneOf) &&
    /can't resolve reference #/.test(error.message)
  );
}

let written = 0;

/** Imports the module in `file`, runs it on `values` and compares it with `runtime`. */
async function importAndCompare(file: string, runtime: CompiledSchema, values: readonly unknown[]): Promise<void> {
  const module = ((await import(pathToFileURL(file).href)) as { default: StandardSchemaV1 }).default;
  nothingRan('on import');
  const generated = compileStandardSchema(module);
  expect(generated.discriminator).toBe(runtime.discriminator);
  for (const value of values) {
    const expected = runtime.validate(value);
    const shown = JSON.stringify(value);
    expect(verdict(generated.validate(value)), shown).toEqual(verdict(expected));
    const issues = await module['~standard'].validate(value);
    expect('value' in issues, shown).toBe(expected.valid);
    expect(
      (issues.issues ?? []).map((issue) => issue.message),
      shown,
    ).toEqual(runtimeMessages(expected));
  }
  await settled();
  nothingRan('while validating');
}

describe('hostile strings in every place of a schema, through compile', () => {
  test('compileStandaloneModule: nothing runs; the module answers as compileSchema does; refusals are alike', async () => {
    const tally = { compiled: 0, refused: 0, runtimeOnly: 0 };
    const byPlace = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(hostileCase, async ({ schema, values, places }) => {
        clean();
        const runtime = runtimeFor(schema);
        let code: string | undefined;
        let refusal: unknown;
        try {
          code = compileStandaloneModule(schema, { name: places.join(', ') });
        } catch (error) {
          refusal = error;
        }
        nothingRan('while compiling');
        if (code === undefined) {
          expect(refusal).toBeInstanceOf(ConfigurationError);
          expect(runtime, `refused by compileStandaloneModule only: ${String(refusal)}`).toBeInstanceOf(
            ConfigurationError,
          );
          expect((refusal as ConfigurationError).code).toBe((runtime as ConfigurationError).code);
          tally.refused++;
          return;
        }
        const file = join(TMP, `module-${written++}.js`);
        writeFileSync(file, code);
        if (runtime instanceof ConfigurationError) {
          expect(knownRuntimeOnlyRefusal(runtime, schema, places), `refused by compileSchema only: ${runtime}`).toBe(
            true,
          );
          // Nothing to compare with; the module must still run nothing.
          const module = ((await import(pathToFileURL(file).href)) as { default: StandardSchemaV1 }).default;
          for (const value of values) await module['~standard'].validate(value);
          await settled();
          nothingRan('in a module compileSchema refuses');
          tally.runtimeOnly++;
          return;
        }
        await importAndCompare(file, runtime, values);
        expect(code).not.toMatch(/sourceURL|<\/|<!--|[\u2028\u2029]/);
        tally.compiled++;
        for (const place of places) byPlace.set(place, (byPlace.get(place) ?? 0) + 1);
      }),
      { numRuns: hostileRuns },
    );
    expect(tally.compiled + tally.refused + tally.runtimeOnly).toBe(hostileRuns);
    // Most schemas compile: the strings reach generated code, not just ajv's refusals.
    expect(tally.compiled).toBeGreaterThan(hostileRuns / 2);
    expect(byPlace.size).toBeGreaterThan(Object.keys(PLACES).length / 2);
    for (const place of ['root $id', 'discriminator values']) expect(byPlace.get(place), place).toBeGreaterThan(0);
  });

  test('llmjson compile: nothing runs; exit 0 with a module that answers as compileSchema does, or exit 2 with one line', async () => {
    const tally = { compiled: 0, refused: 0 };
    const runs = Math.max(10, Math.ceil(hostileRuns / 6));
    await fc.assert(
      fc.asyncProperty(hostileCase, async ({ schema, values, places }) => {
        clean();
        const runtime = runtimeFor(schema);
        const n = written++;
        const input = join(TMP, `schema-${n}.json`);
        const output = join(TMP, `cli-${n}.js`);
        writeFileSync(input, JSON.stringify(schema));
        const r = await runCli(['compile', input, '-o', output]);
        nothingRan('while compiling');
        if (r.code === 2) {
          expect(runtime).toBeInstanceOf(ConfigurationError);
          expect(r.err).toMatch(/^llmjson: SCHEMA_INVALID: /);
          expect(r.err.trim().split('\n')).toHaveLength(1);
          expect(existsSync(output)).toBe(false);
          tally.refused++;
          return;
        }
        expect(r).toMatchObject({ code: 0, out: '' });
        // What compiling noticed (a format ajv does not know…) is said on stderr, one line each.
        const said = r.err === '' ? [] : r.err.trimEnd().split('\n');
        for (const line of said) expect(line).toMatch(/^\S.*: warning: /);
        if (runtime instanceof ConfigurationError) {
          expect(knownRuntimeOnlyRefusal(runtime, schema, places), `refused by compileSchema only: ${runtime}`).toBe(
            true,
          );
          return;
        }
        await importAndCompare(output, runtime, values);
        expect(readFileSync(output, 'utf8')).not.toContain('sourceURL');
        tally.compiled++;
      }),
      { numRuns: runs },
    );
    expect(tally.compiled).toBeGreaterThan(0);
  });
});
