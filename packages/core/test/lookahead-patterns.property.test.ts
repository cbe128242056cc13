/**
 * Schema patterns that open with negative lookaheads, `^(?!X1)…(?!Xn)Y`, run in linear time with
 * JavaScript's verdicts (decision 013, addendum): `linearRegExp` composes re2js matchers — no
 * `^(?:Xi)` matches and `^(?:Y)` does — instead of refusing the pattern.
 *
 * The oracle is the native engine, `new RegExp(pattern, 'u')` (ajv's flags), on strings short
 * enough for it to be fast — usually: a generated pattern with nested quantifiers can still take a
 * backtracking engine exponential time on 20 characters (one run hung for 27 minutes), so the
 * oracle runs under a time limit (node:vm), and a text it cannot answer in time is not compared. Generated patterns are built from literals, classes, `.`, `\b`, `$`,
 * groups and quantifiers; generated strings from the same characters, and from the literal text
 * of each lookahead, so that lookaheads decide a share of the verdicts (counted and required).
 * Every such pattern of the SchemaStore corpus is checked by example, a catastrophic pattern in a
 * lookahead answers on 10^5 characters, every other shape keeps today's refusal and message, and
 * `llmjson compile`'s module composes the same matchers.
 *
 * Standalone modules are written inside this package (test/.tmp-lookahead-*), so that their
 * imports resolve as for a project that depends on @llmjson/core; the directory is removed.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createContext, Script } from 'node:vm';
import { fc, test as fcTest } from '@fast-check/vitest';
import { ConfigurationError, type JsonSchema, type StandardSchemaV1 } from '@llmjson/core';
import { compileSchema, compileStandaloneModule, linearRegExp } from '@llmjson/core/ajv';
import { afterAll, describe, expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';

const literal = fc.constantFrom('a', 'b', 'ab', '\\.', '@', '\\/', 'é', '😀', ' ', '_');
const characterClass = fc.constantFrom(
  '.',
  '[ab]',
  '[^a]',
  '[a\\-.]',
  '[\\]b]',
  '[(|)]',
  '[\\s\\S]',
  '\\w',
  '\\W',
  '\\d',
  '\\s',
  '\\S',
);
const quantifier = fc.constantFrom('', '', '', '*', '+', '?', '{1,2}', '{2}', '{0,3}', '*?', '+?');
const assertion = fc.constantFrom('\\b', '\\B', '$');

/** A sequence of terms with no `|` at its top level; groups nest `depth` levels at most. */
function sequence(depth: number): fc.Arbitrary<string> {
  const atom =
    depth > 0
      ? fc.oneof(
          { weight: 4, arbitrary: fc.oneof(literal, characterClass) },
          { weight: 1, arbitrary: group(depth - 1) },
        )
      : fc.oneof(literal, characterClass);
  const term = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(atom, quantifier).map(([a, q]) => a + q) },
    { weight: 1, arbitrary: assertion },
  );
  return fc.array(term, { maxLength: 4 }).map((terms) => terms.join(''));
}

function alternation(depth: number): fc.Arbitrary<string> {
  return fc.array(sequence(depth), { minLength: 1, maxLength: 3 }).map((branches) => branches.join('|'));
}

function group(depth: number): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom('(', '(?:'), alternation(depth)).map(([open, body]) => `${open}${body})`);
}

/** A lookahead body, sometimes searching the whole string (`.*…`) as `(?!.*\bnative\b)` does. */
const lookaheadBody = fc
  .tuple(fc.constantFrom('', '', '.*', '[^@]*'), alternation(2))
  .map(([lead, body]) => lead + body);

const generatedPattern = fc
  .tuple(fc.array(lookaheadBody, { minLength: 1, maxLength: 3 }), sequence(2))
  .map(([bodies, rest]) => ({ bodies, rest, pattern: `^${bodies.map((body) => `(?!${body})`).join('')}${rest}` }));

const textUnit = fc.constantFrom('a', 'b', 'ab', '.', '@', '/', 'é', '😀', ' ', '_', '\n', '1', '(', '|');
// Short texts: the oracle is JavaScript's backtracking engine, which generated nested quantifiers
// can make exponential in the text's length (one CI run spent 321 s on texts of up to 8 units).
const randomText = fc.array(textUnit, { maxLength: 5 }).map((units) => units.join(''));

/** The literal characters of a lookahead body: a string its body is likely to match at the start. */
function literalText(body: string): string {
  return body
    .replace(/\[[^\]]*\]|\\[bBwWdsS]|[.*+?{}()|$^]|\{\d(,\d)?\}/gu, '')
    .replace(/\\(.)/gu, '$1')
    .replace(/\d/gu, '');
}

const oracleContext = createContext({});
const oracleScript = new Script('new RegExp(pattern, "u").test(text)');
/** Milliseconds the native engine may take on one text; the linear matchers need microseconds. */
const ORACLE_LIMIT_MS = 500;

/** The native engine's verdict, or undefined when it backtracks past the time limit. */
function nativeVerdict(pattern: string, text: string): boolean | undefined {
  oracleContext.pattern = pattern;
  oracleContext.text = text;
  try {
    return oracleScript.runInContext(oracleContext, { timeout: ORACLE_LIMIT_MS }) as boolean;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return undefined;
    throw error;
  }
}

/** Strings for a pattern: random ones, and ones starting with what a lookahead names. */
function textsFor(bodies: readonly string[]): fc.Arbitrary<string[]> {
  const hitting = fc.tuple(fc.constantFrom(...bodies), randomText).map(([body, tail]) => literalText(body) + tail);
  return fc.array(fc.oneof(randomText, hitting), { minLength: 1, maxLength: 6 });
}

describe('leading negative lookaheads get the verdicts JavaScript gives', () => {
  test('generated patterns: the composed matcher agrees with new RegExp(pattern, "u"), and lookaheads decide some verdicts', () => {
    let decidedByLookahead = 0;
    fc.assert(
      fc.property(
        generatedPattern.chain(({ bodies, rest, pattern }) =>
          fc.tuple(fc.constant(pattern), fc.constant(rest), textsFor(bodies)),
        ),
        ([pattern, restSource, texts]) => {
          const ours = linearRegExp(pattern, 'u');
          for (const text of texts) {
            const expected = nativeVerdict(pattern, text);
            if (expected === undefined) continue;
            expect(ours.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(expected);
            if (!expected && nativeVerdict(`^(?:${restSource})`, text) === true) decidedByLookahead++;
          }
        },
      ),
      { numRuns },
    );
    expect(decidedByLookahead).toBeGreaterThan(0);
  });

  fcTest.prop([generatedPattern.map(({ pattern }) => pattern)], { numRuns })(
    'generated patterns compile through compileSchema and keep their verdicts there',
    (pattern) => {
      const compiled = compileSchema({ type: 'string', pattern });
      const native = new RegExp(pattern, 'u');
      for (const text of ['', 'a', 'ab', '@a', 'a b', '😀_', 'a\n']) {
        expect(compiled.validate(text).valid, `${pattern} on ${JSON.stringify(text)}`).toBe(native.test(text));
      }
    },
  );

  /** Every lookahead pattern of the SchemaStore corpus, with strings on both sides of each lookahead. */
  const corpusPatterns: [pattern: string, texts: string[]][] = [
    ['^(?!@@)[@a-zA-Z0-9_-]+$', ['@@ext_id', '@ext', 'name_1', 'a-b', '@', '@@', 'a b', '']],
    ['^(?!@@)[\\w@]+$', ['@@ui_locale', 'message_1', '@x', 'é', 'a-b']],
    [
      '^(?!org\\.bukkit\\.)([a-zA-Z_$][a-zA-Z\\d_$]*\\.)*[a-zA-Z_$][a-zA-Z\\d_$]*$',
      ['org.bukkit.Plugin', 'org.example.Main', 'org.bukkitx.Main', 'Main', '1a', 'org.bukkit', 'a..b'],
    ],
    ['^(?!variables$).+$', ['variables', 'variables2', 'html', '', 'a\nb']],
    [
      '^(?!.*\\bnative\\b)[a-zA-Z][a-zA-Z0-9_]*(\\.[a-zA-Z][a-zA-Z0-9_]*)+$',
      ['expo.modules.native', 'expo.native.x', 'expo.nativex.y', 'com.app', 'app', 'a.b_native'],
    ],
    ['^(?!tag|category)$', ['', 'tag', 'x']],
    [
      '^(?!aliases|audio|build|date|description|draft|expiryDate|headless|images|isCJKLanguage|keywords|layout|lastmod|linkTitle|markup|menus|modified|outputs|params|pubdate|publishDate|published|resources|sitemap|series|slug|summary|target|title|translationKey|type|unpublishdate|url|videos|weight)$',
      ['', 'url', 'x'],
    ],
    ['^(?!\\.{1,2}$)(?!.*\\/)[a-zA-Z0-9\\-\\._]+$', ['.', '..', '...', 'a/b', 'src', '.hidden', 'a b']],
    ['^(?!^lucene\\.|builtin\\.|mongodb\\.).*', ['lucene.standard', 'builtin.x', 'mongodb.y', 'custom', 'xlucene.a']],
    ['^(?!\\.)(?!\\./).+', ['.', './x', 'x', '', 'a./']],
    [
      '^(?![ \\t\\n]*\\(default(.*)\\))[\\s\\S]*',
      ['(default foo)', '  \n(default)', '(defaults)', 'value', '', ' (default x) y'],
    ],
    ['^(?!bundle::)(?!with$).*', ['bundle::x', 'with', 'without', 'step@1', '']],
    ['^(?!(?:meta|local)$).*$', ['meta', 'local', 'metal', 'https://github.com/x']],
    ['^(?!pattern$).*$', ['pattern', 'patterns', 'name']],
  ];
  for (const [pattern, texts] of corpusPatterns) {
    test(`SchemaStore's ${JSON.stringify(pattern)}, as pattern and as patternProperties key`, () => {
      const native = new RegExp(pattern, 'u');
      const asPattern = compileSchema({ type: 'string', pattern });
      const asKey = compileSchema({ type: 'object', patternProperties: { [pattern]: { type: 'number' } } });
      for (const text of texts) {
        expect(asPattern.validate(text).valid, JSON.stringify(text)).toBe(native.test(text));
        // A key the pattern matches must hold a number: a string there is refused only then.
        expect(asKey.validate({ [text]: 'not a number' }).valid, JSON.stringify(text)).toBe(!native.test(text));
      }
    });
  }

  test('a catastrophic pattern inside a lookahead answers on 100 000 characters', { timeout: 20_000 }, () => {
    // (a|a)*b on a run of a's without a b takes a backtracking engine 2^n steps.
    const compiled = compileSchema({ type: 'string', pattern: '^(?!(a|a)*b)' });
    const run = 'a'.repeat(100_000);
    expect(compiled.validate(run).valid).toBe(true);
    expect(compiled.validate(`${run}b`).valid).toBe(false);
    expect(compiled.validate(`${run}c`).valid).toBe(true);
  });
});

describe('every other shape is refused as before', () => {
  const lookahead = (pattern: string) =>
    `schema pattern "${pattern}" needs a linear-time regular expression (no lookahead, lookbehind or backreferences): it uses lookahead \`(?!\``;
  const refused: [pattern: string, flags: string, message: string][] = [
    // Not at the start, or not only negative lookaheads after ^.
    ['a(?!b)', 'u', lookahead('a(?!b)')],
    ['(?!a)b', 'u', lookahead('(?!a)b')],
    [
      '^(?=a)b',
      'u',
      'schema pattern "^(?=a)b" needs a linear-time regular expression (no lookahead, lookbehind or backreferences): it uses lookahead `(?=`',
    ],
    ['^a(?!b)', 'u', lookahead('^a(?!b)')],
    // A top-level alternation: the anchor and the lookahead belong to the first branch only.
    ['^(?!a)b|c', 'u', lookahead('^(?!a)b|c')],
    // Lookaround or a backreference inside the lookahead or the rest.
    ['^(?!(?!a)b)c', 'u', lookahead('^(?!(?!a)b)c')],
    ['^(?!a)b(?!c)', 'u', lookahead('^(?!a)b(?!c)')],
    ['^(?!a)(?<=b)c', 'u', lookahead('^(?!a)(?<=b)c')],
    ['^(?!(a)\\1)b', 'u', lookahead('^(?!(a)\\1)b')],
    ['^(?!a)(?<x>b)\\k<x>', 'u', lookahead('^(?!a)(?<x>b)\\k<x>')],
    // Multi-line ^ holds after every line break; a quantified lookahead (no u flag).
    ['^(?!a)b', 'm', lookahead('^(?!a)b')],
    ['^(?!a)*b', '', lookahead('^(?!a)*b')],
    // A part RE2 cannot compile: the pattern is refused whole, as before.
    ['^(?!a)b{1001}', 'u', lookahead('^(?!a)b{1001}')],
  ];
  for (const [pattern, flags, message] of refused) {
    test(`${JSON.stringify(pattern)} with flags "${flags}"`, () => {
      let thrown: unknown;
      try {
        linearRegExp(pattern, flags);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigurationError);
      expect((thrown as ConfigurationError).code).toBe('SCHEMA_INVALID');
      expect((thrown as ConfigurationError).message).toBe(message);
    });
  }

  test('a pattern JavaScript rejects is still "not a valid regular expression"', () => {
    expect(() => compileSchema({ type: 'string', pattern: '^(?!a' })).toThrow(
      /schema pattern "\^\(\?!a" is not a valid regular expression/,
    );
  });
});

describe('llmjson compile: the module composes the same matchers', () => {
  const TMP = fileURLToPath(new URL(`./.tmp-lookahead-${process.pid}/`, import.meta.url));
  mkdirSync(TMP, { recursive: true });
  afterAll(() => rmSync(TMP, { recursive: true, force: true }));

  async function standalone(schema: JsonSchema, name: string): Promise<StandardSchemaV1> {
    const file = join(TMP, `${name}.js`);
    writeFileSync(file, compileStandaloneModule(schema));
    return ((await import(pathToFileURL(file).href)) as { default: StandardSchemaV1 }).default;
  }

  async function accepts(module: StandardSchemaV1, value: unknown): Promise<boolean> {
    return (await module['~standard'].validate(value)).issues === undefined;
  }

  test('pattern and patternProperties keys of that shape: the module answers as compileSchema and JavaScript', async () => {
    const name = '^(?!@@)[\\w@]+$';
    const key = '^(?!x-)(?!.*\\bnative\\b)[a-z-]+\\.[a-z.-]+$';
    const schema: JsonSchema = {
      type: 'object',
      properties: { name: { type: 'string', pattern: name } },
      patternProperties: { [key]: { type: 'number' } },
    };
    const module = await standalone(schema, 'shape');
    const compiled = compileSchema(schema);
    const values: unknown[] = [];
    for (const text of ['@@id', '@id', 'id_1', 'a b']) values.push({ name: text });
    for (const text of ['x-a.b', 'a.native', 'a.nativex', 'my.port', 'x-.'])
      values.push({ [text]: 'text' }, { [text]: 1 });
    for (const value of values) {
      expect(await accepts(module, value), JSON.stringify(value)).toBe(compiled.validate(value).valid);
    }
    const nameRegExp = new RegExp(name, 'u');
    const keyRegExp = new RegExp(key, 'u');
    for (const text of ['@@id', '@id', 'a b'])
      expect(await accepts(module, { name: text })).toBe(nameRegExp.test(text));
    for (const text of ['x-a.b', 'a.native', 'a.nativex', 'my.port']) {
      expect(await accepts(module, { [text]: 'text' }), text).toBe(!keyRegExp.test(text));
    }
  });

  test('a catastrophic pattern inside a lookahead answers on 100 000 characters in the module', {
    timeout: 20_000,
  }, async () => {
    const module = await standalone({ type: 'string', pattern: '^(?!(a|a)*b)' }, 'hostile');
    const run = 'a'.repeat(100_000);
    expect(await accepts(module, run)).toBe(true);
    expect(await accepts(module, `${run}b`)).toBe(false);
  });

  test('a shape that stays refused is refused by llmjson compile, naming the pattern', () => {
    expect(() => compileStandaloneModule({ type: 'string', pattern: '^(?!a)b|c' })).toThrow(
      'schema pattern "^(?!a)b|c" needs a linear-time regular expression',
    );
  });
});
