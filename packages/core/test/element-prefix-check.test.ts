/**
 * `prefixCheck` on the element scanner: the element of the array still streaming is checked as
 * its chunks arrive, and one `violation` is reported the moment its text proves that no
 * completion can match the element schema — at most one per element, at the same offsets
 * however the text is chunked, never on a valid array — while the element is still decided when
 * it completes (its `schema` diagnostic follows). Off by default; the Node element stream turns
 * it on with `failFast` (Web: with `failFast` and `prefixCheckWith`).
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ConfigurationError,
  createElementScanner,
  type Diagnostic,
  type ElementOptions,
  type ElementRecord,
  elementPrefixCheck,
  type JsonSchema,
  withCoercion,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { ContractViolationError, createElementStream as createNodeElementStream } from '@llmjson/node';
import { createElementStream as createWebElementStream } from '@llmjson/web';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chunkText, everyChunkSize, numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import {
  definitionRelationshipValibot,
  definitionRelationshipValibotExported,
} from '../../../test/support/standard-schemas.js';

/** A 3-branch discriminated union of strict objects, with something a prefix can break on most members. */
const ITEM: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      properties: {
        kind: { const: 'task' },
        title: { type: 'string', maxLength: 12 },
        priority: { enum: ['low', 'high'] },
        tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
        done: { type: 'boolean' },
      },
      required: ['kind', 'title'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        kind: { const: 'note' },
        text: { type: 'string' },
        score: { type: 'number', minimum: 0, maximum: 1 },
      },
      required: ['kind', 'text'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { kind: { const: 'link' }, url: { type: 'string' }, count: { type: 'integer' } },
      required: ['kind', 'url'],
      additionalProperties: false,
    },
  ],
};

const ON: ElementOptions = {
  elementSchema: ITEM,
  compileJsonSchema: compileSchema,
  prefixCheck: true,
  prefixCheckWith: elementPrefixCheck,
};

function run(chunks: readonly string[], options: ElementOptions = ON) {
  const records: ElementRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  const scanner = createElementScanner(options, {
    value: (r) => records.push(r),
    diagnostic: (d) => diagnostics.push(d),
  });
  for (const chunk of chunks) scanner.write(chunk);
  scanner.end();
  return { values: records.map((r) => r.value), records, diagnostics };
}

/** Whole and at every chunk size 1..64: asserts they agree (values and diagnostics, offsets included). */
function everySplit(text: string, options: ElementOptions = ON) {
  const whole = run([text], options);
  for (const [label, chunks] of everyChunkSize(text)) expect(run(chunks, options), label).toEqual(whole);
  return whole;
}

const reasons = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => d.reason);
const violations = (diagnostics: readonly Diagnostic[]) => diagnostics.filter((d) => d.reason === 'violation');

/** Prose, a fence, whitespace and escapes around eight elements, six of them invalid. */
const ANSWER = [
  'Here you go:',
  '```json',
  '[',
  '  {"kind": "task", "title": "Buy milk", "priority": "low"},',
  '  {"kind": "task", "title": "A title much too long", "done": false},',
  '  {"kind": "note", "text": "caf\\u00e9 \\"quoted\\"", "score": 0.5},',
  '  {"kind": "memo", "text": "x"},',
  '  {"kind": "link", "url": "https://x", "count": "3"},',
  '  {"kind": "note", "text": "ok", "score": 2},',
  '  {"kind": "task", "title": "t", "tags": ["a", "b", "c"]},',
  '  {"url": "u", "kind": "link", "extra": 1},',
  '  {"kind": "link", "url": "u", "count": 1}',
  ']',
  '```',
].join('\n');

/** Offset of the `n`-th occurrence (1-based) of `piece` in `text`, plus `shift`. */
function at(text: string, piece: string, shift = 0, n = 1): number {
  let i = -1;
  for (let k = 0; k < n; k++) i = text.indexOf(piece, i + 1);
  if (i < 0) throw new Error(`${piece} not found`);
  return i + shift;
}

describe('element prefix checks: violations', () => {
  test('one violation per invalid element, where it became certain, before its schema diagnostic; at every chunk size', () => {
    const r = everySplit(ANSWER);
    expect(r.records.map((e) => e.index)).toEqual([0, 2, 8]);
    expect(reasons(r.diagnostics)).toEqual([
      ...['violation', 'schema'], // 1: title too long
      ...['violation', 'schema'], // 3: unknown kind
      ...['violation', 'schema'], // 4: a string where an integer goes
      ...['violation', 'schema'], // 5: score above its maximum
      ...['violation', 'schema'], // 6: a third tag
      ...['violation', 'schema'], // 7: a key the branch does not declare, the discriminator not first
    ]);
    const found = violations(r.diagnostics).map(({ offset, path, rule, branch, message }) => ({
      offset,
      path,
      rule,
      branch,
      index: message.slice(0, message.indexOf(':')),
    }));
    expect(found).toEqual([
      // The 13th character of the title arrives.
      { offset: at(ANSWER, 'A title much', 12), path: '/title', rule: 'maxLength', branch: 'task', index: 'element 1' },
      // "m" is the first character no allowed discriminator value begins with.
      { offset: at(ANSWER, '"memo"', 1), path: '/kind', rule: 'discriminator', branch: undefined, index: 'element 3' },
      // The opening quote of a string where an integer goes.
      { offset: at(ANSWER, '"3"'), path: '/count', rule: 'type', branch: 'link', index: 'element 4' },
      // The number is complete at the character after it.
      { offset: at(ANSWER, '2}', 1), path: '/score', rule: 'maximum', branch: 'note', index: 'element 5' },
      // The first character of the extra element.
      { offset: at(ANSWER, '"c"'), path: '/tags', rule: 'maxItems', branch: 'task', index: 'element 6' },
      // A key the branch does not declare (its discriminator not first): at the key's closing quote.
      {
        offset: at(ANSWER, '"extra"', '"extra"'.length - 1),
        path: '/extra',
        rule: 'additionalProperties',
        branch: 'link',
        index: 'element 7',
      },
    ]);
    for (const d of violations(r.diagnostics)) {
      expect(d.message).toMatch(/^element \d+: /);
      expect(d.excerpt.length).toBeGreaterThan(0);
      expect(d.errors).toBeUndefined();
    }
    // The schema diagnostics are those the scanner reports without prefix checks.
    const off = run([ANSWER], { ...ON, prefixCheck: false });
    expect(r.diagnostics.filter((d) => d.reason !== 'violation')).toEqual(off.diagnostics);
    expect(r.records).toEqual(off.records);
    expect(r.diagnostics).toEqual(run(chunkText(ANSWER, 4)).diagnostics);
    // Lines broken with \r\n inside and between elements: the same violations, one more character per line before each.
    const crlf = everySplit(ANSWER.replaceAll('\n', '\r\n'));
    expect(violations(crlf.diagnostics).map((d) => [d.path, d.rule])).toEqual(
      violations(r.diagnostics).map((d) => [d.path, d.rule]),
    );
  });

  test('identical diagnostics at arbitrary split points', () => {
    const whole = run([ANSWER]);
    fc.assert(
      fc.property(splitPoints(ANSWER.length), (points) => {
        expect(run(splitAt(ANSWER, points))).toEqual(whole);
      }),
      { numRuns },
    );
  });

  test('a violation comes before what ends its element: a syntax error, a cut, maxElementLength', () => {
    const syntax = everySplit('[{"kind": "task", "title": "far too long a title" , , "x": 1}, {"kind": "note"}]');
    expect(reasons(syntax.diagnostics)).toEqual(['violation', 'syntax']);
    expect(syntax.diagnostics[0]?.rule).toBe('maxLength');

    const cut = everySplit(
      '[{"kind": "note", "text": "a"}, {"kind": "note", "score": 7, "text": "and then the answer stops',
    );
    expect(reasons(cut.diagnostics)).toEqual(['violation', 'truncated']);
    expect(cut.diagnostics[0]).toMatchObject({ path: '/score', rule: 'maximum', branch: 'note' });
    expect(cut.diagnostics[0]?.message).toMatch(/^element 1: /);

    // Only the first maxElementLength characters of an element are checked: a violation past them is not reported.
    const long = `[{"kind": "task", "done": 1, "title": "${'x'.repeat(100)}"}]`;
    expect(reasons(everySplit(long, { ...ON, maxElementLength: 60 }).diagnostics)).toEqual(['violation', 'too-long']);
    const late = `[{"kind": "task", "title": "${'x'.repeat(10)}", "note": "${'y'.repeat(100)}"}]`;
    expect(reasons(everySplit(late, { ...ON, maxElementLength: 40 }).diagnostics)).toEqual(['too-long']);

    // Too deep: the scanner reports it; the check stops there.
    const deep = everySplit('[{"kind": "task", "tags": [[[["a"]]]], "title": 3}]', { ...ON, maxDepth: 3 });
    expect(reasons(deep.diagnostics)).toEqual(['violation', 'too-deep']);
    expect(deep.diagnostics[0]?.rule).toBe('type');
  });

  test('scalar elements and elements at a path of the document schema', () => {
    const scalars = everySplit('["low", "high", "medium", 3]', {
      ...ON,
      elementSchema: { enum: ['low', 'high'] },
    });
    expect(reasons(scalars.diagnostics)).toEqual(['violation', 'schema', 'violation', 'schema']);
    expect(violations(scalars.diagnostics).map((d) => [d.offset, d.path, d.rule])).toEqual([
      [17, '', 'enum'],
      [26, '', 'enum'],
    ]);

    const document: JsonSchema = {
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/$defs/item' } } },
      $defs: { item: ITEM },
    };
    const text = '{"items": [{"kind": "note", "text": "a"}, {"kind": "link", "url": "u", "count": 1.5}]}';
    const r = everySplit(text, {
      schema: document,
      path: '$.items',
      prefixCheck: true,
      prefixCheckWith: elementPrefixCheck,
      compileJsonSchema: compileSchema,
    });
    expect(reasons(r.diagnostics)).toEqual(['violation', 'schema']);
    expect(r.diagnostics[0]).toMatchObject({ path: '/count', rule: 'type', branch: 'link' });
    expect(r.diagnostics[0]?.message).toMatch(/^element 1: /);
  });

  test('a Standard Schema through its JSON Schema export; none, no prefix check', () => {
    const bad =
      '[{"type": "definition", "entity": "e", "definition": "d"}, {"type": "defin", "entity": "e", "colour": 1}]';
    const zod = z.array(z.strictObject({ type: z.literal('definition'), entity: z.string(), definition: z.string() }));
    const fromZod = everySplit(bad, {
      elementSchema: zod.element,
      prefixCheck: true,
      prefixCheckWith: elementPrefixCheck,
    });
    expect(reasons(fromZod.diagnostics)).toEqual(['violation', 'schema']);
    expect(fromZod.diagnostics[0]).toMatchObject({ path: '/type', rule: 'const' });

    const exported = everySplit(bad, {
      elementSchema: definitionRelationshipValibotExported,
      prefixCheck: true,
      prefixCheckWith: elementPrefixCheck,
    });
    expect(reasons(exported.diagnostics)).toEqual(['violation', 'schema']);

    // valibot without toStandardJsonSchema exports nothing: no prefix checks, and no error either.
    const valibot = everySplit(bad, {
      elementSchema: definitionRelationshipValibot,
      prefixCheck: true,
      prefixCheckWith: elementPrefixCheck,
    });
    expect(reasons(valibot.diagnostics)).toEqual(['schema']);
  });

  test('with coerce, nothing a turned-on coercion could repair is reported', () => {
    const text = '[{"kind": "link", "url": "u", "count": "3"}, {"kind": "task", "title": "t", "done": "yes", "x": 1}]';
    const r = everySplit(text, { ...ON, coerce: true, coerceWith: withCoercion });
    // Element 0 is coerced ("3" → 3); element 1's key is still forbidden whatever is repaired.
    expect(r.values).toEqual([{ kind: 'link', url: 'u', count: 3 }]);
    expect(violations(r.diagnostics).map((d) => [d.path, d.rule, d.message.slice(0, 10)])).toEqual([
      ['/x', 'additionalProperties', 'element 1:'],
    ]);
    expect(reasons(r.diagnostics)).toEqual(['recovered', 'violation', 'schema']);
  });
});

// ---- valid arrays: silence ----------------------------------------------------------------

const text = (maxLength?: number) => fc.string({ unit: 'binary', ...(maxLength === undefined ? {} : { maxLength }) });

/** Objects of one branch, keys in any order (the discriminator not always first). */
function shuffled(record: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return record.chain((o) => {
    const keys = Object.keys(o);
    return fc
      .shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length })
      .map((order) => Object.fromEntries(order.map((k) => [k, o[k]])));
  });
}

const validItem = fc.oneof(
  shuffled(
    fc.record(
      {
        kind: fc.constant('task'),
        title: text(12),
        priority: fc.constantFrom('low', 'high'),
        tags: fc.array(text(), { maxLength: 2 }),
        done: fc.boolean(),
      },
      { requiredKeys: ['kind', 'title'] },
    ),
  ),
  shuffled(
    fc.record(
      { kind: fc.constant('note'), text: text(), score: fc.double({ min: 0, max: 1, noNaN: true }) },
      { requiredKeys: ['kind', 'text'] },
    ),
  ),
  shuffled(
    fc.record({ kind: fc.constant('link'), url: text(), count: fc.integer() }, { requiredKeys: ['kind', 'url'] }),
  ),
);

/** Elements that break ITEM, each in a way a prefix shows. */
const BROKEN = [
  '{"kind": "task", "title": "thirteen char"}',
  '{"kind": "nope", "title": "t"}',
  '{"kind": "note", "text": "t", "score": -0.5}',
  '{"url": "u", "kind": "link", "extra": true}',
  '{"kind": "task", "title": 12}',
];

/**
 * Elements that exercise each path of the feed (strings no check reads, checked strings, keys,
 * numbers and literals, escapes of every kind, line breaks and carriage returns as whitespace),
 * each with the violation it must get: `[marker, shift, path, rule]` in that element's text.
 */
const PATH_ELEMENTS: readonly (readonly [string, (readonly [string, number, string, string])?])[] = [
  ['{"kind":"note","text":"a \\"b\\" \\\\ \\u00e9\\/ \\ud83d\\ude00 é😀","score":7}', ['7}', 1, '/score', 'maximum']],
  ['{"kind":"task","title":"t","priority":"l\\u006f\\u0077x"}', ['x"', 0, '/priority', 'enum']],
  ['{"kind":"task","title":"t","priority":"h\\u0061"}', ['\\u0061', 0, '/priority', 'enum']],
  ['{"kind":"task","title":"\\"quoted\\" \\u00e9\\t\\\\!?"}', ['!?', 0, '/title', 'maxLength']],
  ['{"kind":"task","title":"t","\\u0063olour":"red"}', ['":"red', 0, '/colour', 'additionalProperties']],
  ['{"kind":"t\\u0061sk","title":"t","\\u0064one":true}'],
  ['{\r\n "kind" :\t"note" ,\r\n "text":"x",\r\n "score":0.5e0\r\n}'],
  ['{"kind":"note","text":"x","score":-1E-1}', ['}', 0, '/score', 'minimum']],
  ['{"kind":"link","url":"u","count":1.5}', ['}', 0, '/count', 'type']],
  ['{"kind":"task","title":"t","done":false}'],
  ['{"kind":"task","title":"t","done":null}', ['null', 0, '/done', 'type']],
  ['"a string"', ['"', 0, '', 'type']],
];

describe('element prefix checks: every path of the feed, cut at every position', () => {
  test('each element gets the violation it must, at the same offset at every chunk size', () => {
    const text = `[${PATH_ELEMENTS.map(([element]) => element).join(',\n')}]`;
    const found = violations(everySplit(text).diagnostics).map(({ offset, path, rule, message }) => ({
      offset,
      path,
      rule,
      index: message.slice(0, message.indexOf(':')),
    }));
    const expected: { offset: number; path: string; rule: string; index: string }[] = [];
    let start = 1;
    PATH_ELEMENTS.forEach(([element, violation], i) => {
      if (violation !== undefined) {
        const [marker, shift, path, rule] = violation;
        expect(element.indexOf(marker), marker).toBeGreaterThanOrEqual(0);
        expected.push({ offset: start + element.indexOf(marker) + shift, path, rule, index: `element ${i}` });
      }
      start += element.length + 2;
    });
    expect(found).toEqual(expected);
  });
});

describe('element prefix checks: a member with no rule', () => {
  test('is followed for its syntax only: violations after it at every chunk size, none inside it', () => {
    const elementSchema: JsonSchema = {
      type: 'object',
      additionalProperties: false,
      properties: { meta: {}, id: { type: 'integer', maximum: 9 } },
    };
    const elements = [
      '{"meta":{"any":[1,"x\\"y",{"deep":true}],"k\\u0065y":null},"id":10}',
      '{"meta":[],"id":1}',
      '{"meta":{"a":{"b":[]}},"extra":1}',
    ];
    const text = `[${elements.join(', ')}]`;
    const found = violations(everySplit(text, { ...ON, elementSchema }).diagnostics).map(({ offset, path, rule }) => ({
      offset,
      path,
      rule,
    }));
    expect(found).toEqual([
      { offset: at(text, '10}', 2), path: '/id', rule: 'maximum' },
      { offset: at(text, 'extra"', 5), path: '/extra', rule: 'additionalProperties' },
    ]);
  });
});

describe('element prefix checks: valid arrays', () => {
  test('never a violation, at random splits, pretty-printed or not', () => {
    fc.assert(
      fc.property(
        fc.array(validItem, { maxLength: 6 }),
        fc.constantFrom(0, 2),
        fc.array(fc.nat(), { maxLength: 40 }),
        (items, indent, cuts) => {
          const document = JSON.stringify(items, null, indent);
          const r = run(
            splitAt(
              document,
              cuts.map((c) => c % (document.length + 1)),
            ),
          );
          expect(r.diagnostics).toEqual([]);
          expect(r.values).toEqual(JSON.parse(document));
        },
      ),
      { numRuns },
    );
  });

  test('every prefix of a valid array is silent until it is cut', () => {
    const document = JSON.stringify(
      [
        { title: 'caf\u00e9 \ud83d\ude00 12c', kind: 'task', tags: ['a\\"b', ''], done: true },
        { kind: 'note', text: 'x'.repeat(50), score: 1 },
        { url: '\u0000', count: -12, kind: 'link' },
      ],
      null,
      1,
    );
    for (let cut = 0; cut <= document.length; cut++) {
      const r = run(chunkText(document.slice(0, cut), 3));
      expect(violations(r.diagnostics), `cut at ${cut}`).toEqual([]);
    }
  });

  test('arrays that mix valid and broken elements: the same diagnostics at arbitrary splits', () => {
    const broken = fc.constantFrom(...BROKEN);
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            validItem.map((o) => JSON.stringify(o)),
            broken,
          ),
          { maxLength: 6 },
        ),
        fc.array(fc.nat(), { maxLength: 40 }),
        (elements, cuts) => {
          const document = `[${elements.join(', ')}]`;
          const whole = run([document]);
          const split = run(
            splitAt(
              document,
              cuts.map((c) => c % (document.length + 1)),
            ),
          );
          expect(split).toEqual(whole);
          // Each broken element has exactly one violation, right before its schema diagnostic.
          const bad = elements.filter((e) => BROKEN.includes(e)).length;
          expect(reasons(whole.diagnostics)).toEqual(Array.from({ length: bad }, () => ['violation', 'schema']).flat());
        },
      ),
      { numRuns },
    );
  });
});

// ---- defaults and configuration ---------------------------------------------------------------

const BAD = '[{"kind": "task", "title": "t"}, {"kind": "task", "title": "t", "bogus": 1}]';

describe('element prefix checks: defaults', () => {
  test('off by default, even when the implementation is given; on only with prefixCheck: true', () => {
    const plain = { elementSchema: ITEM, compileJsonSchema: compileSchema };
    expect(reasons(run([BAD], plain).diagnostics)).toEqual(['schema']);
    expect(reasons(run([BAD], { ...plain, prefixCheckWith: elementPrefixCheck }).diagnostics)).toEqual(['schema']);
    expect(
      reasons(run([BAD], { ...plain, prefixCheck: false, prefixCheckWith: elementPrefixCheck }).diagnostics),
    ).toEqual(['schema']);
    expect(
      reasons(run([BAD], { ...plain, prefixCheck: true, prefixCheckWith: elementPrefixCheck }).diagnostics),
    ).toEqual(['violation', 'schema']);
  });

  test('prefixCheck: true with a schema needs the implementation; without a schema nothing is checked', () => {
    let error: unknown;
    try {
      createElementScanner(
        { elementSchema: ITEM, compileJsonSchema: compileSchema, prefixCheck: true },
        { value() {}, diagnostic() {} },
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).code).toBe('NO_PREFIX_CHECKER');
    expect((error as ConfigurationError).message).toContain('prefixCheckWith: elementPrefixCheck');
    expect(reasons(run([BAD], { prefixCheck: true }).diagnostics)).toEqual([]);
    expect(() =>
      createElementScanner({ prefixCheck: 'yes' as unknown as boolean }, { value() {}, diagnostic() {} }),
    ).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
  });

  test('a schema with nothing a prefix can break: no check is made', () => {
    let made = 0;
    const counting: ElementOptions['prefixCheckWith'] = (setup, onViolation) => {
      const check = elementPrefixCheck(setup, onViolation);
      if (check !== undefined) made++;
      return check;
    };
    run([BAD], {
      elementSchema: { description: 'anything', required: ['x'] },
      compileJsonSchema: compileSchema,
      prefixCheck: true,
      prefixCheckWith: counting,
    });
    expect(made).toBe(0);
    run([BAD], { ...ON, prefixCheckWith: counting });
    expect(made).toBe(1);
  });

  test('Node element stream: off without failFast, on with it (prefixCheck: false opts out)', async () => {
    const collect = async (options: Parameters<typeof createNodeElementStream>[0]) => {
      const diagnostics: Diagnostic[] = [];
      let error: unknown;
      try {
        await pipeline(
          Readable.from(chunkText(BAD, 4), { objectMode: true }),
          createNodeElementStream({ ...options, onDiagnostic: (d) => diagnostics.push(d) }),
          new Writable({ objectMode: true, write: (_c, _e, done) => done() }),
        );
      } catch (e) {
        error = e;
      }
      return { reasons: reasons(diagnostics), error };
    };
    expect(await collect({ elementSchema: ITEM })).toEqual({ reasons: ['schema'], error: undefined });
    expect(await collect({ elementSchema: ITEM, prefixCheck: true })).toEqual({
      reasons: ['violation', 'schema'],
      error: undefined,
    });
    const fast = await collect({ elementSchema: ITEM, failFast: true });
    expect(fast.reasons).toEqual(['violation']);
    expect(fast.error).toBeInstanceOf(ContractViolationError);
    expect(await collect({ elementSchema: ITEM, failFast: true, prefixCheck: false })).toMatchObject({
      reasons: ['schema'],
    });
  });

  test('Web element stream: failFast checks prefixes, and needs prefixCheckWith as prefixCheck: true does', async () => {
    const collect = async (options: Parameters<typeof createWebElementStream>[0]) => {
      const diagnostics: Diagnostic[] = [];
      let error: unknown;
      try {
        for await (const _ of ReadableStream.from(chunkText(BAD, 4)).pipeThrough(
          createWebElementStream({
            compileJsonSchema: compileSchema,
            ...options,
            onDiagnostic: (d) => diagnostics.push(d),
          }),
        )) {
          // drain
        }
      } catch (e) {
        error = e;
      }
      return { reasons: reasons(diagnostics), failed: error instanceof ContractViolationError };
    };
    expect(await collect({ elementSchema: ITEM })).toEqual({ reasons: ['schema'], failed: false });
    expect(await collect({ elementSchema: ITEM, failFast: true, prefixCheck: false })).toEqual({
      reasons: ['schema'],
      failed: true,
    });
    expect(await collect({ elementSchema: ITEM, failFast: true, prefixCheckWith: elementPrefixCheck })).toEqual({
      reasons: ['violation'],
      failed: true,
    });
    expect(() =>
      createWebElementStream({ elementSchema: ITEM, compileJsonSchema: compileSchema, prefixCheck: true }),
    ).toThrow(expect.objectContaining({ code: 'NO_PREFIX_CHECKER' }));
    expect(() =>
      createWebElementStream({ elementSchema: ITEM, compileJsonSchema: compileSchema, failFast: true }),
    ).toThrow(expect.objectContaining({ code: 'NO_PREFIX_CHECKER' }));
  });
});

// ---- fail fast: the stream ends at the violation, before the element completes --------------

/** An element that breaks the schema early, then a string that would go on (nearly) forever. */
const HEAD = '[{"kind": "task", "title": "ok"}, {"kind": "task", "title": "fine", "bogus": "';
const HEAD_CHUNKS = chunkText(HEAD, 4);
const ENDLESS = 20_000;

describe('element prefix checks: fail fast', () => {
  test('Node: failFast ends the stream at the violation; the source is pulled no further than its read-ahead', async () => {
    let pulled = 0;
    async function* model() {
      for (const chunk of HEAD_CHUNKS) {
        pulled++;
        yield chunk;
      }
      for (let i = 0; i < ENDLESS; i++) {
        pulled++;
        yield 'more';
      }
      yield '"}]';
    }
    const values: unknown[] = [];
    const diagnostics: Diagnostic[] = [];
    const controller = new AbortController();
    let error: unknown;
    try {
      await pipeline(
        Readable.from(model()),
        createNodeElementStream({
          elementSchema: ITEM,
          failFast: true,
          abortController: controller,
          onDiagnostic: (d) => diagnostics.push(d),
        }),
        new Writable({
          objectMode: true,
          write(record: ElementRecord, _e, done) {
            values.push(record.value);
            done();
          },
        }),
      );
    } catch (e) {
      error = e;
    }
    expect(values).toEqual([{ kind: 'task', title: 'ok' }]);
    expect(error).toBeInstanceOf(ContractViolationError);
    const violation = (error as ContractViolationError).diagnostic;
    expect(violation).toMatchObject({
      reason: 'violation',
      path: '/bogus',
      rule: 'additionalProperties',
      branch: 'task',
      offset: HEAD.indexOf('"bogus"') + '"bogus"'.length - 1,
    });
    expect(violation.message).toMatch(/^element 1: /);
    expect(diagnostics).toEqual([violation]);
    expect(controller.signal.reason).toBe(error);
    // The element never completed: the stream stopped a little after the key that broke it.
    expect(pulled).toBeLessThan(HEAD_CHUNKS.length + 40);
  });

  test('Web: failFast with prefixCheckWith ends the stream at the violation and cancels the source', async () => {
    let pulled = 0;
    let cancelled: unknown;
    const source = new ReadableStream<string>({
      pull(c) {
        pulled++;
        if (pulled <= HEAD_CHUNKS.length) c.enqueue(HEAD_CHUNKS[pulled - 1] as string);
        else if (pulled <= HEAD_CHUNKS.length + ENDLESS) c.enqueue('more');
        else {
          c.enqueue('"}]');
          c.close();
        }
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const values: unknown[] = [];
    let error: unknown;
    try {
      for await (const record of source.pipeThrough(
        createWebElementStream({
          elementSchema: ITEM,
          compileJsonSchema: compileSchema,
          failFast: true,
          prefixCheckWith: elementPrefixCheck,
        }),
      )) {
        values.push(record.value);
      }
    } catch (e) {
      error = e;
    }
    expect(values).toEqual([{ kind: 'task', title: 'ok' }]);
    expect(error).toBeInstanceOf(ContractViolationError);
    expect((error as ContractViolationError).diagnostic).toMatchObject({
      reason: 'violation',
      rule: 'additionalProperties',
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled).toBe(error);
    expect(pulled).toBeLessThan(HEAD_CHUNKS.length + 40);
  });
});
