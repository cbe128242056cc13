/**
 * Properties of the JSONL decoder, the schema validator's discriminator dispatch and the
 * JSON scanner, over generated answers (test/support/arbitraries.ts). Each property is one of
 * the invariants in the design: chunking does not matter, truncation yields a prefix, nothing
 * is lost silently, agreement with the platform, hostile keys never pollute prototypes.
 */
import { isDeepStrictEqual } from 'node:util';
import { test as fcTest } from '@fast-check/vitest';
import { type Diagnostic, type JsonSchema, parseJsonl } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { JsonScanner, SCAN_ERROR, SCAN_MORE } from '@llmjson/core/internal';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type AnswerOptions,
  framedLines,
  hostileKeys,
  jsonlAnswer,
  jsonValueText,
  objectText,
} from '../support/arbitraries.js';
import { numRuns, splitAt, splitPoints, utf8 } from '../support/chunking.js';
import { type Collected, decodeChunks, streamChunks } from '../support/collect.js';

/** An answer together with arbitrary split points over its text. */
const answerWithSplits = jsonlAnswer().chain((answer) =>
  fc.tuple(fc.constant(answer), splitPoints(answer.text.length)),
);

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Diagnostics of `a` that have no deep-equal counterpart in `b` (multiset difference). */
function diagnosticsNotIn(a: readonly Diagnostic[], b: readonly Diagnostic[]): Diagnostic[] {
  const rest = [...b];
  const extra: Diagnostic[] = [];
  for (const d of a) {
    const i = rest.findIndex((e) => isDeepStrictEqual(e, d));
    if (i === -1) extra.push(d);
    else rest.splice(i, 1);
  }
  return extra;
}

function isBlankOrFence(line: string): boolean {
  return /^[ \t\r]*$/.test(line) || /^[ \t]*(?:`{3,}|~{3,})[ \t]*[\w.+#-]*[ \t]*$/.test(line);
}

function expectSameOutcome(actual: Collected, expected: Collected): void {
  expect(actual.records).toEqual(expected.records);
  expect(actual.values).toEqual(expected.values);
  expect(actual.diagnostics).toEqual(expected.diagnostics);
  expect(actual.stats).toEqual(expected.stats);
}

describe('chunking does not matter', () => {
  fcTest.prop([answerWithSplits], { numRuns })(
    'core decoder: any string split gives the one-chunk result',
    ([answer, points]) => {
      const whole = decodeChunks([answer.text]);
      expectSameOutcome(decodeChunks(splitAt(answer.text, points)), whole);
      expectSameOutcome(
        decodeChunks(splitAt(answer.text, points), { strict: true }),
        decodeChunks([answer.text], { strict: true }),
      );
    },
  );

  fcTest.prop(
    [jsonlAnswer().chain((answer) => fc.tuple(fc.constant(answer), splitPoints(utf8.encode(answer.text).length)))],
    { numRuns },
  )('Node stream: UTF-8 bytes split anywhere give the core one-chunk result', async ([answer, points]) => {
    const bytes = utf8.encode(answer.text);
    expectSameOutcome(await streamChunks(splitAt(bytes, points)), decodeChunks([answer.text]));
  });

  fcTest.prop([jsonlAnswer()], { numRuns })(
    'Node stream: splits inside every multi-byte sequence and every \\r\\n give the core result',
    async (answer) => {
      const bytes = utf8.encode(answer.text);
      const points: number[] = [];
      for (let i = 1; i < bytes.length; i++) {
        const byte = bytes[i] ?? 0;
        if ((byte & 0xc0) === 0x80 || bytes[i - 1] === 0x0d) points.push(i);
      }
      expectSameOutcome(await streamChunks(splitAt(bytes, points)), decodeChunks([answer.text]));
    },
  );
});

describe('truncation yields a prefix', () => {
  const answerAndCut = (options: AnswerOptions) =>
    jsonlAnswer(options).chain((answer) => fc.tuple(fc.constant(answer), fc.nat({ max: answer.text.length })));

  fcTest.prop([fc.oneof(answerAndCut({}), answerAndCut({ recoveryHeavy: true }))], { numRuns: numRuns * 3 })(
    'a cut anywhere yields a prefix of the values and at most one diagnostic for the cut',
    ([answer, cutAt]) => {
      const whole = decodeChunks([answer.text]);
      const cutText = answer.text.slice(0, cutAt);
      const cut = decodeChunks([cutText]);
      // Lines 1..complete are present with their line break; line `complete + 1` (if any) is cut.
      const complete = cutText.split('\n').length - 1;
      // The documented exception (docs/decisions/003-recovery-rules.md): a bare number or
      // literal as the unterminated last line is accepted as JSON.parse accepts it, although
      // more text (`true story`, `12` -> `123`) may have followed. Only that record may differ.
      const last = cut.records.at(-1);
      if (
        last !== undefined &&
        last.line === complete + 1 &&
        (last.value === null || typeof last.value !== 'object') &&
        typeof last.value !== 'string' &&
        !whole.records.some((r) => r.line === last.line && r.value === last.value)
      ) {
        cut.records.pop();
      }

      expect(cut.records).toEqual(whole.records.slice(0, cut.records.length));
      // A value is delivered at the line break that ends it: every value the whole input ends
      // within the complete lines is delivered by the cut input too.
      expect(cut.records.length).toBeGreaterThanOrEqual(whole.records.filter((r) => r.endLine <= complete).length);

      // Whatever the cut reports that the whole input does not is the one diagnostic for the cut:
      // `truncated`, or the report of the cut line itself (a cut fence line is prose). A report
      // that only sees less of the cut line (a shorter excerpt) is the same report.
      const extra = diagnosticsNotIn(cut.diagnostics, whole.diagnostics).filter(
        (d) =>
          !whole.diagnostics.some(
            (w) => w.reason === d.reason && w.line === d.line && w.endLine === d.endLine && w.offset === d.offset,
          ),
      );
      expect(extra.length, JSON.stringify(extra)).toBeLessThanOrEqual(1);
      for (const d of extra) {
        const aboutCutLine = d.line === complete + 1 && (d.reason === 'prose' || d.reason === 'syntax');
        expect(d.reason === 'truncated' || aboutCutLine, JSON.stringify(d)).toBe(true);
      }
    },
  );
});

describe('truncation: one diagnostic for the cut', () => {
  test('a cut inside an element of an array written one element per line', () => {
    const whole = parseJsonl('[\n{"a":1},\n{"b":2},\n]\n');
    expect(whole.values).toEqual([{ a: 1 }, { b: 2 }]);
    const cut = parseJsonl('[\n{"a":1},\n{"b":');
    expect(cut.values).toEqual([{ a: 1 }]);
    expect(cut.diagnostics.filter((d) => d.reason === 'truncated')).toHaveLength(1);
  });

  test('a value broken by a new value on the cut last line is reported as without the cut', () => {
    const whole = parseJsonl('{"a": [1, 2\n{"b": 1}\n');
    expect(whole.diagnostics.map((d) => [d.reason, d.line])).toEqual([['syntax', 1]]);
    // Line 2 starts a new value whether or not it is complete: line 1 is broken, not cut.
    const complete = parseJsonl('{"a": [1, 2\n{"b": 1}');
    expect(complete.values).toEqual([{ b: 1 }]);
    expect(complete.diagnostics.map((d) => [d.reason, d.line])).toEqual([['syntax', 1]]);
    const cut = parseJsonl('{"a": [1, 2\n{"b": 1');
    expect(cut.diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['syntax', 1],
      ['truncated', 2],
    ]);
  });
});

describe('nothing is lost silently', () => {
  const accountingHolds = (text: string, result: Collected): void => {
    const lines = framedLines(text);
    const { stats } = result;
    expect(stats.lines).toBe(lines.length);
    expect(stats.valueLines + stats.skippedLines + stats.reportedLines).toBe(stats.lines);
    expect(stats.values).toBe(result.values.length);
    expect(stats.valueLines).toBe(result.records.reduce((n, r) => n + r.endLine - r.line + 1, 0));
    const byReason: Record<string, number> = {};
    for (const d of result.diagnostics) byReason[d.reason] = (byReason[d.reason] ?? 0) + 1;
    expect(stats.diagnostics).toEqual(byReason);

    for (const d of result.diagnostics) {
      expect(d.line, JSON.stringify(d)).toBeTypeOf('number');
      const line = d.line ?? 0;
      const framed = lines[line - 1];
      if (framed === undefined) throw new Error(`diagnostic on line ${line} of ${lines.length}: ${JSON.stringify(d)}`);
      expect(d.endLine ?? line).toBeGreaterThanOrEqual(line);
      expect(d.endLine ?? line).toBeLessThanOrEqual(lines.length);
      expect(Number.isInteger(d.offset)).toBe(true);
      expect(d.offset).toBeGreaterThanOrEqual(framed.offset);
      expect(d.offset).toBeLessThanOrEqual(framed.offset + framed.text.length);
      expect(d.column).toBe(d.offset - framed.offset);
      expect(typeof d.excerpt).toBe('string');
      expect(framed.text).toContain(d.excerpt.replace(/^…/, '').replace(/…$/, ''));
      expect(d.message.length).toBeGreaterThan(0);
    }

    // Every line is a value's line, a blank or fence line, or covered by a diagnostic.
    lines.forEach((framed, i) => {
      const n = i + 1;
      const covered =
        isBlankOrFence(framed.text) ||
        result.records.some((r) => r.line <= n && n <= r.endLine) ||
        result.diagnostics.some((d) => (d.line ?? 0) <= n && n <= (d.endLine ?? d.line ?? 0));
      expect(covered, `line ${n}: ${JSON.stringify(framed.text)}`).toBe(true);
    });
    for (const r of result.records) {
      const framed = lines[r.line - 1];
      expect(r.offset).toBe(framed?.offset);
    }
  };

  fcTest.prop([jsonlAnswer()], { numRuns })('every line is accounted for exactly once (default mode)', (answer) => {
    accountingHolds(answer.text, decodeChunks([answer.text]));
  });

  fcTest.prop([jsonlAnswer()], { numRuns })('every line is accounted for exactly once (strict mode)', (answer) => {
    accountingHolds(answer.text, decodeChunks([answer.text], { strict: true }));
  });

  fcTest.prop([jsonlAnswer(), fc.nat()], { numRuns })('every line of a cut answer is accounted for', (answer, n) => {
    const cutText = answer.text.slice(0, n % (answer.text.length + 1));
    accountingHolds(cutText, decodeChunks([cutText]));
  });
});

describe('agreement with the platform', () => {
  fcTest.prop([jsonlAnswer()], { numRuns })(
    'strict mode: a line yields a value exactly when JSON.parse accepts it, and the same value',
    (answer) => {
      const result = decodeChunks([answer.text], { strict: true });
      const lines = framedLines(answer.text);
      const expected: { line: number; value: unknown }[] = [];
      lines.forEach((framed, i) => {
        if (isBlankOrFence(framed.text)) return;
        const parsed = tryParse(framed.text);
        if (parsed.ok) expected.push({ line: i + 1, value: parsed.value });
      });
      expect(result.records.map((r) => ({ line: r.line, value: r.value }))).toEqual(expected);
      for (const r of result.records) expect(r.endLine).toBe(r.line);
    },
  );

  fcTest.prop([jsonlAnswer({ recoveries: false })], { numRuns })(
    'default mode without recoveries in the input: the same values as strict mode and JSON.parse',
    (answer) => {
      const loose = decodeChunks([answer.text]);
      const strict = decodeChunks([answer.text], { strict: true });
      expect(loose.records).toEqual(strict.records);
      expect(loose.diagnostics.filter((d) => d.reason === 'recovered')).toEqual([]);
    },
  );
});

describe('discriminator dispatch accepts exactly what the full oneOf/anyOf accepts', () => {
  const draft07 = (schema: JsonSchema) => new Ajv({ strict: false }).compile(schema as object);
  const draft2020 = (schema: JsonSchema) => new Ajv2020({ strict: false }).compile(schema as object);

  interface DispatchCase {
    readonly name: string;
    readonly schema: JsonSchema;
    readonly reference: (schema: JsonSchema) => (value: unknown) => boolean;
    readonly property: string;
    readonly tags: readonly unknown[];
  }

  const cases: DispatchCase[] = [
    {
      name: 'draft-07 oneOf, 2 inline branches, additionalProperties false',
      reference: draft07,
      property: 'type',
      tags: ['definition', 'relationship'],
      schema: {
        oneOf: [
          {
            type: 'object',
            properties: {
              type: { const: 'definition' },
              entity: { type: 'string' },
              definition: { type: 'string' },
            },
            required: ['type', 'entity', 'definition'],
            additionalProperties: false,
          },
          {
            type: 'object',
            properties: {
              type: { const: 'relationship' },
              subject: { type: 'string' },
              predicate: { type: 'string' },
              object: { type: 'string' },
              'object-entity': { type: 'boolean' },
            },
            required: ['type', 'subject', 'predicate', 'object'],
          },
        ],
      },
    },
    {
      name: 'draft-07 anyOf, 3 $ref branches in definitions, root type/required/properties',
      reference: draft07,
      property: 'type',
      tags: ['a', 'b', 'c'],
      schema: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'integer' } },
        anyOf: [{ $ref: '#/definitions/a' }, { $ref: '#/definitions/b' }, { $ref: '#/definitions/c' }],
        definitions: {
          a: { type: 'object', properties: { type: { enum: ['a'] }, x: { type: 'number' } }, required: ['type', 'x'] },
          b: { properties: { type: { const: 'b' }, y: { type: 'string', minLength: 1 } }, required: ['type'] },
          c: {
            type: 'object',
            properties: { type: { const: 'c' }, id: {}, z: { type: 'array', items: { type: 'string' } } },
            required: ['type', 'z'],
            additionalProperties: false,
          },
        },
      },
    },
    {
      name: '2020-12 oneOf, 3 $ref branches in $defs, number and string constants, minProperties',
      reference: draft2020,
      property: 'kind',
      tags: [1, 2, 'three'],
      schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        minProperties: 2,
        oneOf: [{ $ref: '#/$defs/one' }, { $ref: '#/$defs/two' }, { $ref: '#/$defs/three' }],
        $defs: {
          one: { type: 'object', properties: { kind: { const: 1 }, x: { type: 'integer' } }, required: ['kind', 'x'] },
          two: {
            type: 'object',
            properties: { kind: { const: 2 }, y: { type: 'boolean' } },
            required: ['kind'],
            unevaluatedProperties: false,
          },
          three: {
            type: 'object',
            properties: { kind: { const: 'three' }, tags: { type: 'array' } },
            required: ['kind', 'tags'],
          },
        },
      },
    },
    {
      name: '2020-12 anyOf, 2 branches on boolean constants, root required and properties',
      reference: draft2020,
      property: 'ok',
      tags: [true, false],
      schema: resultSchema(undefined),
    },
    {
      name: '2020-12 anyOf, 2 branches on boolean constants, root $id',
      reference: draft2020,
      property: 'ok',
      tags: [true, false],
      schema: resultSchema('https://example.com/result.schema.json'),
    },
  ];

  function resultSchema(id: string | undefined): JsonSchema {
    return {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...(id === undefined ? {} : { $id: id }),
      type: 'object',
      required: ['ok'],
      properties: { id: { type: 'string' } },
      anyOf: [
        { type: 'object', properties: { ok: { const: true }, value: {} }, required: ['ok', 'value'] },
        {
          type: 'object',
          properties: { ok: { const: false }, error: { type: 'string', maxLength: 3 } },
          required: ['ok', 'error'],
        },
      ],
    };
  }

  const fieldValue = fc.oneof(
    fc.string({ maxLength: 5 }),
    fc.integer({ min: -2, max: 2 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), { maxLength: 2 }),
    fc.constant({}),
  );
  const fieldNames = [
    'entity',
    'definition',
    'subject',
    'predicate',
    'object',
    'object-entity',
    'id',
    'x',
    'y',
    'z',
    'tags',
    'value',
    'error',
    'extra',
    'constructor',
  ];
  const MISSING = Symbol('missing');
  const candidate = (c: DispatchCase): fc.Arbitrary<unknown> =>
    fc.oneof(
      {
        weight: 10,
        arbitrary: fc
          .tuple(
            fc.constantFrom<unknown>(...c.tags, MISSING, 'unknown', null, 0, '1', 'A', 1.5, {}),
            fc.dictionary(fc.constantFrom(...fieldNames), fieldValue, { maxKeys: 5 }),
          )
          .map(([tag, fields]) => (tag === MISSING ? { ...fields } : { ...fields, [c.property]: tag })),
      },
      { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.array(fc.integer())) },
    );

  const references = new Map<DispatchCase, (value: unknown) => boolean>();
  const referenceFor = (c: DispatchCase): ((value: unknown) => boolean) => {
    let reference = references.get(c);
    if (reference === undefined) {
      reference = c.reference(c.schema);
      references.set(c, reference);
    }
    return reference;
  };

  for (const c of cases) {
    test(`${c.name}: dispatch is active`, () => {
      const compiled = compileSchema(c.schema);
      expect(compiled.discriminator).toBe(c.property);
      expect(compiled.branches).toEqual(c.tags.map(String));
    });

    fcTest.prop([candidate(c)], { numRuns: numRuns * 5 })(`${c.name}: same verdict as plain ajv`, (value) => {
      const reference = referenceFor(c);
      const result = compileSchema(c.schema).validate(value);
      expect(result.valid, JSON.stringify(value)).toBe(reference(value));
      if (!result.valid) {
        expect(result.errors.length).toBeGreaterThan(0);
        expect(result.message.length).toBeGreaterThan(0);
      }
    });
  }
});

describe('hostile keys never pollute prototypes', () => {
  /** An object text whose keys (nested too) include `__proto__`, `constructor` and `prototype`. */
  const hostileObject: fc.Arbitrary<string> = fc.letrec<{ object: string }>((tie) => ({
    object: fc
      .tuple(
        fc.array(
          fc.tuple(
            fc.constantFrom(...hostileKeys, 'polluted', 'a'),
            fc.oneof({ depthSize: 'small' }, jsonValueText, tie('object'), fc.constant('{"polluted": true}')),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        fc.constantFrom(...hostileKeys),
      )
      .map(
        ([entries, key]) =>
          `{${JSON.stringify(key)}: {"polluted": "yes"}, ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ')}}`,
      ),
  })).object;

  const layout = fc.constantFrom('line', 'trailing-comma', 'pretty', 'array-block');
  const schema = { type: 'object', required: ['polluted'], additionalProperties: true } as const;

  const expectClean = (): void => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(arrayPrototypeKeys);
  };
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  const arrayPrototypeKeys = Object.getOwnPropertyNames(Array.prototype).sort();

  /** Checks that every `__proto__` key of the JSON text is an own data property of the value. */
  const expectOwnKeys = (value: unknown, reference: unknown): void => {
    expect(value).toEqual(reference);
    if (typeof reference !== 'object' || reference === null) return;
    if (Array.isArray(reference)) {
      reference.forEach((item, i) => {
        expectOwnKeys((value as unknown[])[i], item);
      });
      return;
    }
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Reflect.ownKeys(value as object).sort()).toEqual(Reflect.ownKeys(reference).sort());
    for (const key of Object.keys(reference)) {
      expectOwnKeys((value as Record<string, unknown>)[key], (reference as Record<string, unknown>)[key]);
    }
  };

  fcTest.prop([fc.array(fc.tuple(hostileObject, layout), { minLength: 1, maxLength: 4 })], { numRuns })(
    'decoded values carry hostile keys as own data and leave prototypes untouched',
    async (items) => {
      const written = items.map(([o, how]) => (how === 'pretty' ? JSON.stringify(JSON.parse(o), null, 2) : o));
      const text = items
        .map(([, how], k) => {
          const o = written[k] ?? '';
          if (how === 'trailing-comma') return `${o},`;
          if (how === 'array-block') return `[\n${o},\n]`;
          return o;
        })
        .join('\n');
      const references = written.map((o) => JSON.parse(o) as unknown);
      for (const options of [{}, { schema, compileJsonSchema: compileSchema }]) {
        const result = parseJsonl(text, options);
        expectClean();
        const expected =
          'schema' in options ? references.filter((r) => Object.hasOwn(r as object, 'polluted')) : references;
        expect(result.values.length).toBe(expected.length);
        result.values.forEach((v, i) => {
          expectOwnKeys(v, expected[i]);
        });
      }
      const streamed = await streamChunks([utf8.encode(text)]);
      expectClean();
      streamed.values.forEach((v, i) => {
        expectOwnKeys(v, references[i]);
      });
      for (const r of streamed.records) expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    },
  );

  test('a __proto__ line is an own property, not a prototype swap', () => {
    const { values } = parseJsonl(
      '{"__proto__": {"polluted": 1}, "a": 1}\n{"constructor": {"prototype": {"polluted": 2}}}\n',
    );
    const first = values[0] as Record<string, unknown>;
    expect(Object.hasOwn(first, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(first.polluted).toBeUndefined();
    expectClean();
  });
});

describe('JsonScanner agrees with JSON.parse under any chunking', () => {
  interface ScanOutcome {
    readonly accepted: boolean;
    /** Offset in the whole text where the value ended or the error was found. */
    readonly at: number;
    readonly message: string;
  }

  const scanChunks = (chunks: readonly string[]): ScanOutcome => {
    const scanner = new JsonScanner();
    const text = chunks.join('');
    let base = 0;
    for (const chunk of chunks) {
      const r = scanner.scan(chunk, 0);
      if (r === SCAN_ERROR) return { accepted: false, at: base + scanner.errorIndex, message: scanner.errorMessage };
      if (r !== SCAN_MORE) {
        const end = base + r;
        return { accepted: /^[ \t\r\n]*$/.test(text.slice(end)), at: end, message: '' };
      }
      base += chunk.length;
    }
    return scanner.end()
      ? { accepted: true, at: text.length, message: '' }
      : { accepted: false, at: text.length, message: scanner.errorMessage };
  };

  const mutation = fc.tuple(
    fc.constantFrom('insert', 'delete', 'replace'),
    fc.nat(),
    fc.constantFrom(
      ...'{}[],:"\\0123456789-+.eEtrufalsn \t\n\r/bu'.split(''),
      '\u0000',
      '\u001f',
      '\u007f',
      '\u2028',
      '\ud800',
      '😀',
      'NaN',
      'Infinity',
      "'",
    ),
  );
  const jsonish: fc.Arbitrary<string> = fc.oneof(
    fc.json(),
    fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
    fc
      .tuple(fc.oneof(fc.json(), objectText, jsonValueText), fc.array(mutation, { minLength: 1, maxLength: 3 }))
      .map(([text, mutations]) => {
        let s = text;
        for (const [kind, at, piece] of mutations) {
          const i = s.length === 0 ? 0 : at % (s.length + (kind === 'insert' ? 1 : 0));
          if (kind === 'insert') s = s.slice(0, i) + piece + s.slice(i);
          else if (kind === 'delete') s = s.slice(0, i) + s.slice(i + 1);
          else s = s.slice(0, i) + piece + s.slice(i + 1);
        }
        return s;
      }),
    fc.string({ unit: fc.constantFrom(...'{}[],:"\\0123456789-.etrufalsn '.split('')), maxLength: 12 }),
  );

  fcTest.prop([jsonish.chain((text) => fc.tuple(fc.constant(text), splitPoints(text.length)))], {
    numRuns: numRuns * 5,
  })('accepts exactly what JSON.parse accepts, at the same position for every split', ([text, points]) => {
    const whole = scanChunks([text]);
    expect(whole.accepted, JSON.stringify(text)).toBe(tryParse(text).ok);
    expect(scanChunks(splitAt(text, points))).toEqual(whole);
    expect(scanChunks(text.split(''))).toEqual(whole);
  });
});
