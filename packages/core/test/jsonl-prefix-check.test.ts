/**
 * `prefixCheck: true` on the JSONL decoder: the line still streaming is checked as its chunks
 * arrive, and a `violation` is reported the moment its text proves that no completion can match
 * the schema — at most one per line, at the same offsets however the text is chunked, never on
 * a valid line — while everything else the decoder reports stays exactly as without it.
 */
import {
  ConfigurationError,
  createJsonlDecoder,
  type Diagnostic,
  type JsonlOptions,
  type JsonSchema,
  linePrefixCheck,
  withCoercion,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { type Collected, decodeChunks, decodeEverySplit } from '../../../test/support/collect.js';
import { definitionRelationshipValibot } from '../../../test/support/standard-schemas.js';

/** A discriminated union of two strict branches, with something a prefix can break on every member. */
const SCHEMA: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      properties: {
        type: { const: 'task' },
        title: { type: 'string', maxLength: 12 },
        priority: { enum: ['low', 'high'] },
        tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
        done: { type: 'boolean' },
      },
      required: ['type', 'title'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        type: { const: 'note' },
        text: { type: 'string' },
        score: { type: 'number', minimum: 0, maximum: 1 },
      },
      required: ['type', 'text'],
      additionalProperties: false,
    },
  ],
};

const ON: JsonlOptions = {
  schema: SCHEMA,
  compileJsonSchema: compileSchema,
  prefixCheck: true,
  prefixCheckWith: linePrefixCheck,
};
const OFF: JsonlOptions = { schema: SCHEMA, compileJsonSchema: compileSchema };

/**
 * Each line, and the violation it must get: `[marker, delta, path, rule]` puts it at column
 * `line.indexOf(marker) + delta`; none for a line that gets none.
 */
const LINES: readonly (readonly [string, (readonly [string, number, string, string])?])[] = [
  ['{"type":"task","title":"write tests","priority":"high"}'],
  ['{"type":"tusk","title":"x"}', ['tusk', 1, '/type', 'discriminator']],
  ['{"type":"note","text":"a \\"quoted\\" \\u00e9 text\\\\","score":1.5}', ['1.5}', 3, '/score', 'maximum']],
  ['Here is more:'],
  ['```json'],
  ['{"type":"task","title":"a title that is far too long"}', ['that', 4, '/title', 'maxLength']],
  ['{"type":"task","title":"ok","colour":"red"}', ['colour"', 6, '/colour', 'additionalProperties']],
  ['  {"type":"note","text":"tab\\there \\ud83d\\ude00","score":-0.5}', ['-0.5}', 4, '/score', 'minimum']],
  ['[1, 2]', ['[', 0, '', 'type']],
  ['['],
  ['{"type":"note","text":"in an array"},'],
  ['{"type":"task","title":"t","tags":["a","b","c"]},', ['"c"', 0, '/tags', 'maxItems']],
  [']'],
  ['```'],
  ['{"type":"task",'],
  ['  {"title": "nested, not a new value"},'],
  ['  "priority": "urgent"}'],
  ['{"type":"note","text":"crlf"}\r'],
  ['{"type":"note","text":"x","score":"high"}', ['"high"', 0, '/score', 'type']],
  ['{"type":"note","text":"two violations","score":2,"extra":1}', ['2,', 1, '/score', 'maximum']],
  [''],
  ['{"type":"task","title":"cut off","priority":"me', ['"me', 1, '/priority', 'enum']],
];

const ANSWER = LINES.map(([line]) => line).join('\n');

/** The violations LINES says ANSWER must get, in order. */
function expectedViolations(): Partial<Diagnostic>[] {
  const found: Partial<Diagnostic>[] = [];
  let offset = 0;
  LINES.forEach(([line, expected], i) => {
    if (expected !== undefined) {
      const [marker, delta, path, rule] = expected;
      const column = line.indexOf(marker) + delta;
      found.push({ reason: 'violation', line: i + 1, offset: offset + column, column, path, rule });
    }
    offset += line.length + 1;
  });
  return found;
}

function violations(result: Collected): Diagnostic[] {
  return result.diagnostics.filter((d) => d.reason === 'violation');
}

/** What the decoder gives with prefix checks, less the violations: what it gives without them. */
function withoutViolations(result: Collected): Collected {
  const counts = { ...result.stats.diagnostics };
  delete counts.violation;
  return {
    ...result,
    diagnostics: result.diagnostics.filter((d) => d.reason !== 'violation'),
    stats: { ...result.stats, diagnostics: counts },
  };
}

describe('JSONL prefix checks: violations in lines in flight', () => {
  test('each bad line gets its violation, at the offset where it became certain; at every chunk size', () => {
    const whole = decodeEverySplit(ANSWER, ON);
    expect(
      violations(whole).map(({ reason, line, offset, column, path, rule }) => ({
        reason,
        line,
        offset,
        column,
        path,
        rule,
      })),
    ).toEqual(expectedViolations());
    for (const d of violations(whole)) {
      expect(d.message.length).toBeGreaterThan(0);
      expect(d.excerpt.length).toBeGreaterThan(0);
    }
    // One per line: the line with two broken members reports the first only.
    expect(violations(whole).filter((d) => d.line === 20)).toHaveLength(1);
    expect(whole.stats.diagnostics.violation).toBe(expectedViolations().length);
  });

  test('the violation comes first, then the line is decided as without prefix checks', () => {
    const on = decodeChunks([ANSWER], ON);
    const off = decodeChunks([ANSWER], OFF);
    expect(withoutViolations(on)).toEqual(off);
    // Each violation comes before its line's own diagnostic (schema, syntax, truncated).
    for (const v of violations(on)) {
      const index = on.diagnostics.indexOf(v);
      const next = on.diagnostics[index + 1];
      expect(next?.line, JSON.stringify(v)).toBe(v.line);
      expect(['schema', 'syntax', 'truncated']).toContain(next?.reason);
    }
  });

  test('reported the moment the character that makes it certain arrives', () => {
    const written: number[] = [];
    let position = 0;
    const decoder = createJsonlDecoder(ON, {
      value() {},
      diagnostic(d) {
        if (d.reason === 'violation') written.push(position - d.offset);
      },
    });
    for (const c of ANSWER) {
      position += c.length;
      decoder.write(c);
    }
    decoder.end();
    // With the character at its offset — except a line's opening `[`: a line that is only `[`
    // opens an array written one element per line, so the next character decides (line 9).
    expect(written).toEqual(expectedViolations().map((d) => (d.line === 9 ? 2 : 1)));
  });

  test('arbitrary split points give the same diagnostics, offsets included', () => {
    const whole = decodeChunks([ANSWER], ON);
    fc.assert(
      fc.property(splitPoints(ANSWER.length), (points) => {
        const chunked = decodeChunks(splitAt(ANSWER, points), ON);
        expect(chunked.diagnostics).toEqual(whole.diagnostics);
        expect(chunked.records).toEqual(whole.records);
        expect(chunked.stats).toEqual(whole.stats);
      }),
      { numRuns },
    );
  });

  test('off by default: exactly the diagnostics of prefixCheck: false, none of them a violation', () => {
    const byDefault = decodeEverySplit(ANSWER, OFF);
    expect(decodeChunks([ANSWER], { ...OFF, prefixCheck: false })).toEqual(byDefault);
    expect(violations(byDefault)).toEqual([]);
    expect(byDefault.stats.diagnostics.violation).toBeUndefined();
  });

  test('strict mode: the same violations, the lines decided as strict mode does', () => {
    const strict = decodeEverySplit(ANSWER, { ...ON, strict: true });
    expect(withoutViolations(strict)).toEqual(decodeChunks([ANSWER], { ...OFF, strict: true }));
    // The multi-line value is not one in strict mode: its nested first line is not a new value either.
    expect(violations(strict).map((d) => d.line)).toEqual(expectedViolations().map((d) => d.line));
  });

  test('lone carriage returns as line breaks: each line checked, at every chunk size', () => {
    const text = '{"type":"note","text":"a"}\r{"type":"tusk"}\r{"type":"note","text":"b","score":7}\r';
    const on = decodeEverySplit(text, ON);
    expect(withoutViolations(on)).toEqual(decodeChunks([text], OFF));
    expect(violations(on).map((d) => [d.line, d.column, d.rule])).toEqual([
      [2, 10, 'discriminator'],
      [3, 35, 'maximum'],
    ]);
    // A lone `\r` inside a line's value ends its check there (it may turn out to end the line).
    const inside = '{"type":"note",\r"text":"x","zz":1}\n';
    expect(violations(decodeEverySplit(inside, ON))).toEqual([]);
  });

  test('a line past maxLineLength is checked up to maxLineLength only', () => {
    const early = `{"type":"tusk","text":"${'x'.repeat(100)}"}\n`;
    const late = `{"type":"note","text":"${'x'.repeat(100)}","score":9}\n`;
    const options = { ...ON, maxLineLength: 60 };
    const a = decodeEverySplit(early + late, options);
    expect(a.diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['violation', 1],
      ['too-long', 1],
      ['too-long', 2],
    ]);
    expect(withoutViolations(a)).toEqual(decodeChunks([early + late], { ...OFF, maxLineLength: 60 }));
  });

  test('nothing to check: a schema no prefix can break, no schema, lines that are not JSON', () => {
    const text = '{"a":1}\nprose\n[1]\n"str"\n42\n';
    for (const schema of [{}, { required: ['a'] }, true] as JsonSchema[]) {
      const on = decodeEverySplit(text, {
        schema,
        compileJsonSchema: compileSchema,
        prefixCheck: true,
        prefixCheckWith: linePrefixCheck,
      });
      expect(on).toEqual(decodeChunks([text], { schema, compileJsonSchema: compileSchema }));
    }
    expect(decodeEverySplit(text, { prefixCheck: true, prefixCheckWith: linePrefixCheck })).toEqual(
      decodeChunks([text]),
    );
    // A line that starts with a string, a number or a literal is not checked while it streams.
    const scalars = '"x"\n42\ntrue\n';
    const on = decodeEverySplit(scalars, ON);
    expect(violations(on)).toEqual([]);
  });

  test('deep nesting stops at maxDepth, without a violation the value cannot be checked for', () => {
    const deep = `${'['.repeat(40)}${']'.repeat(40)}\n`;
    const result = decodeEverySplit(deep, { ...ON, maxDepth: 8 });
    expect(result.diagnostics.map((d) => d.reason)).toEqual(['violation', 'too-deep']);
    expect(violations(result)[0]?.column).toBe(0);
  });

  test('a Standard Schema is checked through its JSON Schema export; without one, not at all', () => {
    const zod = z.strictObject({ type: z.literal('a'), n: z.number().max(3) });
    const text = '{"type":"a","n":1}\n{"type":"b","n":1}\n{"type":"a","n":9}\n{"type":"a","m":1}\n';
    const on = decodeEverySplit(text, { schema: zod, prefixCheck: true, prefixCheckWith: linePrefixCheck });
    expect(violations(on).map((d) => [d.line, d.path, d.rule])).toEqual([
      [2, '/type', 'const'],
      [3, '/n', 'maximum'],
      [4, '/m', 'additionalProperties'],
    ]);
    expect(withoutViolations(on)).toEqual(decodeChunks([text], { schema: zod }));
    // valibot without toStandardJsonSchema exports nothing: no prefix checks.
    const bad = '{"type":"nonsense"}\n';
    const valibot = decodeEverySplit(bad, {
      schema: definitionRelationshipValibot,
      prefixCheck: true,
      prefixCheckWith: linePrefixCheck,
    });
    expect(violations(valibot)).toEqual([]);
  });

  test('with coerce, no prefix checks: a coercible value breaks the schema in its text, yet is delivered', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false };
    const options = { schema, compileJsonSchema: compileSchema, coerce: true, coerceWith: withCoercion };
    const text = '{"n":"5"}\n';
    const on = decodeEverySplit(text, { ...options, prefixCheck: true, prefixCheckWith: linePrefixCheck });
    expect(on.values).toEqual([{ n: 5 }]);
    expect(violations(on)).toEqual([]);
    expect(on).toEqual(decodeChunks([text], options));
  });

  test('core does not bundle the check: prefixCheck with a schema and no prefixCheckWith is NO_PREFIX_CHECKER', () => {
    const make = () => createJsonlDecoder({ ...OFF, prefixCheck: true }, { value() {}, diagnostic() {} });
    expect(make).toThrow(/pass prefixCheckWith: linePrefixCheck/);
    try {
      make();
    } catch (error) {
      expect((error as { code?: unknown }).code).toBe('NO_PREFIX_CHECKER');
    }
    // Without a schema there is nothing to check, and nothing is needed.
    expect(() => createJsonlDecoder({ prefixCheck: true }, { value() {}, diagnostic() {} })).not.toThrow();
  });

  test('prefixCheck must be a boolean', () => {
    expect(() => createJsonlDecoder({ prefixCheck: 'yes' as never }, { value() {}, diagnostic() {} })).toThrow(
      ConfigurationError,
    );
  });
});

/**
 * Lines that exercise each path of the feed (strings no check reads, checked strings, keys,
 * numbers, escapes of every kind, a carriage return inside a value), each with the violation
 * it must get; checked at every chunk size, so every path is cut at every position.
 */
const PATH_LINES: ExpectedLines = [
  // An unchecked string with escapes, then a violation after it.
  ['{"type":"note","text":"a \\"b\\" \\\\ \\u00e9\\/ \\ud83d\\ude00 é😀","score":7}', ['7}', 1, '/score', 'maximum']],
  // A checked string matching through escapes, broken by a character after them.
  ['{"type":"task","title":"t","priority":"l\\u006f\\u0077x"}', ['x"', 0, '/priority', 'enum']],
  // A checked string broken by an escape: reported at its backslash.
  ['{"type":"task","title":"t","priority":"h\\u0061"}', ['\\u0061', 0, '/priority', 'enum']],
  // maxLength counted through escapes (12 characters, then one more).
  ['{"type":"task","title":"\\"quoted\\" \\u00e9\\t\\\\!?"}', ['!?', 0, '/title', 'maxLength']],
  // A key with escapes, decoded before it is looked up.
  ['{"type":"task","title":"t","\\u0063olour":"red"}', ['":"red', 0, '/colour', 'additionalProperties']],
  ['{"type":"task","title":"t","\\u0064one":true}'],
  // Numbers and literals ended by every kind of character that may follow them.
  ['{"type":"note","text":"x","score":0.5e0 }'],
  ['{"type":"note","text":"x","score":-1E-1}', ['}', 0, '/score', 'minimum']],
  ['{"type":"task","title":"t","done":tru}'],
  ['{"type":"task","title":"t","done":"yes"}', ['"yes', 0, '/done', 'type']],
  // A carriage return ends what is checked: the text before it is, what follows is not.
  ['{"type":"task","title":"far too long \r for a title"}', [' \r', 0, '/title', 'maxLength']],
  ['{"type":"task","title":"short\r and then far too long"}'],
  ['{"type":"task","title":"t","priority":"hi\r"}'],
  ['{"type":"note","text":"x","score":2\r}'],
];

/** Lines, each with the violation it must get (`[marker, delta, path, rule]`: see LINES), or none. */
type ExpectedLines = readonly (readonly [string, (readonly [string, number, string, string])?])[];

/**
 * Decodes the lines joined, whole and at every chunk size (decodeEverySplit), and requires
 * exactly the violations they list: line, column (`line.indexOf(marker) + delta`), path, rule.
 */
function expectViolations(lines: ExpectedLines, options: JsonlOptions): void {
  const found = violations(decodeEverySplit(lines.map(([line]) => line).join('\n'), options)).map(
    ({ line, column, path, rule }) => ({ line, column, path, rule }),
  );
  const expected: { line: number; column: number; path: string; rule: string }[] = [];
  lines.forEach(([line, violation], i) => {
    if (violation === undefined) return;
    const [marker, delta, path, rule] = violation;
    expect(line.indexOf(marker), marker).toBeGreaterThanOrEqual(0);
    expected.push({ line: i + 1, column: line.indexOf(marker) + delta, path, rule });
  });
  expect(found).toEqual(expected);
}

describe('JSONL prefix checks: every path of the feed, cut at every position', () => {
  test('each line gets the violation it must, at the same offset at every chunk size', () => {
    expectViolations(PATH_LINES, ON);
  });

  test('a member with no rule is followed for its syntax only: violations after it, none inside it', () => {
    const quiet: JsonSchema = {
      type: 'object',
      additionalProperties: false,
      properties: { meta: {}, list: { type: 'array' }, id: { type: 'integer', maximum: 9 } },
    };
    const options: JsonlOptions = { ...ON, schema: quiet, maxDepth: 8 };
    const lines: ExpectedLines = [
      [
        '{"meta":{"any":[1,"x\\"y",{"deep":true}],"k\\u0065y":null},"list":[{"a":1},[2,[3]]],"id":10}',
        ['10}', 2, '/id', 'maximum'],
      ],
      ['{"meta":{"a":1},"list":[],"extra":1}', ['extra"', 5, '/extra', 'additionalProperties']],
      ['{"meta":[[[["s",{"t":-0.5e1}]]]],"id":"x"}', ['"x"', 0, '/id', 'type']],
      ['{"list":[{"b":[]},{}],"meta":"any","id":3}'],
      // Text that stops being JSON inside it, or nests deeper than maxDepth: nothing after it.
      ['{"meta":{"a" 1},"id":99}'],
      ['{"meta":{"a":01},"id":99}'],
      ['{"meta":[[[[[[[[[1]]]]]]]]],"id":99}'],
    ];
    expectViolations(lines, options);
  });

  test('keys followed through the automaton of declared names, and keys that leave it anywhere', () => {
    // The declared names: type, title, priority, tags, done, text, score (and nothing else).
    const lines: ExpectedLines = [
      ['{"type":"task","title":"t","tags":[],"done":true,"priority":"low"}'],
      ['{"type":"note","text":"x","score":0}'],
      // A prefix of a declared name, a declared name and more, a detour in the middle.
      ['{"type":"task","tit":"t"}', ['tit"', 3, '/tit', 'additionalProperties']],
      ['{"type":"task","titles":"t"}', ['titles"', 6, '/titles', 'additionalProperties']],
      ['{"type":"task","tidle":"t"}', ['tidle"', 5, '/tidle', 'additionalProperties']],
      ['{"type":"task","":"t"}', ['"":', 1, '/', 'additionalProperties']],
      // An escape, a character outside ASCII, a quote escaped: read as text from there.
      ['{"type":"task","ti\\u0074le":"abcdefghijklmnop"}', ['mnop', 0, '/title', 'maxLength']],
      ['{"type":"task","t\\u00efle":"t"}', ['le":', 2, '/t\u00efle', 'additionalProperties']],
      ['{"type":"task","tïtle":"t"}', ['tle":', 3, '/tïtle', 'additionalProperties']],
      ['{"type":"task","ti\\"tle":"t"}', ['tle":', 3, '/ti"tle', 'additionalProperties']],
      // A carriage return inside a key being followed ends the check there: nothing after it.
      ['{"type":"task","ti\rtle":"abcdefghijklmnopq"}'],
      ['{"type":"task","zz\r":1}'],
      // A name declared by the other branch only.
      ['{"type":"task","score":1}', ['score"', 5, '/score', 'additionalProperties']],
      ['{"type":"note","done":true}', ['done"', 4, '/done', 'additionalProperties']],
    ];
    expectViolations(lines, ON);
  });

  test('an undeclared key that shares a prefix with a declared one gets the rules of additionalProperties', () => {
    const open: JsonSchema = {
      type: 'object',
      properties: { id: { type: 'integer' }, idea: { type: 'string', maxLength: 3 } },
      additionalProperties: { type: 'string' },
    };
    const options: JsonlOptions = { ...ON, schema: open };
    const lines: ExpectedLines = [
      ['{"id":1,"idea":"abc","ide":"x","identity":"y"}'],
      ['{"ide":5}', ['5}', 0, '/ide', 'type']],
      ['{"idea":"abcd"}', ['d"', 0, '/idea', 'maxLength']],
      ['{"id":"1"}', ['"1"', 0, '/id', 'type']],
      ['{"identity":[]}', ['[]', 0, '/identity', 'type']],
    ];
    expectViolations(lines, options);
  });

  test('text that stops being JSON stops the check: no violation after it', () => {
    for (const line of [
      '{"type":"task","title":"t" "colour":1}',
      '{"type":"task","title":"t","priority":"h\\x"}',
      '{"type":"task","title":"t","priority":"h\\u00g1"}',
      '{"type":"task","title":"t\u0001","colour":1}',
      '{"type":"note","text":"x","score":01}',
      '{"type":"note","text":"x","score":1.}',
      '{"type":"task","title":"t","done":tru}',
      '{"type":"task","title":"t",}',
    ]) {
      expect(violations(decodeEverySplit(line, ON)), line).toEqual([]);
    }
  });
});

// ---- properties --------------------------------------------------------------------------

// Code points a string may hold: plain, accented, astral (a surrogate pair), escaped in JSON.
const unit = fc.constantFrom('a', 'b', ' ', 'é', '😀', '"', '\\', '\n', '\t', '/', '\u0001', '\u2028');
const text = (maxLength: number) => fc.string({ unit, maxLength });

/** An object SCHEMA accepts, its members in any order. */
const validObject: fc.Arbitrary<Record<string, unknown>> = fc
  .oneof(
    fc.record(
      {
        type: fc.constant('task'),
        title: text(12),
        priority: fc.constantFrom('low', 'high'),
        tags: fc.array(text(6), { maxLength: 2 }),
        done: fc.boolean(),
      },
      { requiredKeys: ['type', 'title'] },
    ),
    fc.record(
      {
        type: fc.constant('note'),
        text: text(40),
        score: fc.double({ min: 0, max: 1, noNaN: true }),
      },
      { requiredKeys: ['type', 'text'] },
    ),
  )
  .chain((object) =>
    fc.shuffledSubarray(Object.keys(object), { minLength: Object.keys(object).length }).map((order) => {
      const out: Record<string, unknown> = {};
      for (const key of order) out[key] = (object as Record<string, unknown>)[key];
      return out;
    }),
  );

/** A line that is not a valid object: prose, a fence, a broken or invalid value, a lone bracket. */
const otherLine = fc.oneof(
  fc.constantFrom(
    '',
    '   ',
    'Here are the items:',
    '```json',
    '```',
    '[',
    ']',
    '{"type":"task",',
    '  "title": "x"}',
    '{"type":"note","text":"a",}',
    '{"type":"note" "text":"a"}',
    '{"type":"task","title":"x"} trailing',
    '{"type":"tusk"}',
    '{"type":"note","text":"x","score":3}',
    '[{"type":"note","text":"x"}]',
    '- a list item',
    '42',
  ),
  fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', 'a', '1', ' ', '\\', 'é'), maxLength: 20 }),
);

const line = fc.oneof(
  { weight: 3, arbitrary: validObject.map((o) => JSON.stringify(o)) },
  { weight: 2, arbitrary: otherLine },
);

const answer = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 8 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
  .map(([lines, eol, final]) => lines.join(eol) + (final ? eol : ''));

describe('JSONL prefix checks: properties', () => {
  test('valid lines never get a violation, at arbitrary split points', () => {
    fc.assert(
      fc.property(
        fc.array(validObject, { minLength: 1, maxLength: 6 }).chain((objects) => {
          const text = `${objects.map((o) => JSON.stringify(o)).join('\n')}\n`;
          return fc.tuple(fc.constant(objects), fc.constant(text), splitPoints(text.length));
        }),
        ([objects, text, points]) => {
          const result = decodeChunks(splitAt(text, points), ON);
          expect(result.diagnostics).toEqual([]);
          expect(result.values).toEqual(objects.map((o) => JSON.parse(JSON.stringify(o))));
        },
      ),
      { numRuns },
    );
  });

  test('a valid line with a piece inserted anywhere: the same diagnostics at any split as whole', () => {
    const piece = fc.constantFrom('"', '\\', '\\u00', '\\n', ',"x":1', '1', 'e', '-', 'null', ']', '}', '\r', ' ', 'é');
    fc.assert(
      fc.property(
        validObject.chain((object) => {
          const json = JSON.stringify(object);
          return fc
            .tuple(fc.integer({ min: 0, max: json.length }), piece)
            .map(([at, inserted]) => json.slice(0, at) + inserted + json.slice(at));
        }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (text, cuts) => {
          const whole = decodeChunks([text], ON);
          expect(
            decodeChunks(
              splitAt(
                text,
                cuts.map((c) => c % (text.length + 1)),
              ),
              ON,
            ),
          ).toEqual(whole);
          expect(decodeChunks([...text], ON)).toEqual(whole);
        },
      ),
      { numRuns },
    );
  });

  test('only violations are added, and chunking does not change them', () => {
    fc.assert(
      fc.property(
        answer.chain((text) => fc.tuple(fc.constant(text), splitPoints(text.length))),
        ([text, points]) => {
          const whole = decodeChunks([text], ON);
          expect(withoutViolations(whole)).toEqual(decodeChunks([text], OFF));
          expect(decodeChunks(splitAt(text, points), ON)).toEqual(whole);
          // At most one per line, and each on a line that does not yield a value.
          const lines = violations(whole).map((d) => d.line);
          expect(new Set(lines).size).toBe(lines.length);
          const valueLines = new Set(whole.records.map((r) => r.line));
          for (const l of lines) expect(valueLines.has(l as number)).toBe(false);
        },
      ),
      { numRuns },
    );
  });
});
