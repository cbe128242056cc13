/**
 * Salvage conformance: recorded model answers (fixtures/salvage/<name>.txt) against
 * hand-written expectations (<name>.expected.json), run through every implementation — the
 * one-shot `extractAllJson`, the core salvage scanner whole, at every chunk size 1..64 and
 * under arbitrary split points, and the Node salvage stream fed UTF-8 bytes in small chunks.
 * Every implementation must give the expected values (with offsets, sources and fences) and
 * diagnostic reasons, and exactly the values and diagnostics of the one-shot run. Then one
 * example per rule of the salvage semantics.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  createSalvageScanner,
  type Diagnostic,
  extractAllJson,
  extractJson,
  type JsonSchema,
  type SalvagedValue,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkBytes, everyChunkSize, splitAt, splitPoints, utf8 } from '../support/chunking.js';
import {
  type Salvaged,
  type SalvageRunOptions,
  salvageChunks,
  salvageOneShot,
  salvageStreamChunks,
} from '../support/salvage.js';

interface ExpectedValue {
  value: unknown;
  source: SalvagedValue['source'];
  start: number;
  end: number;
  fence?: string;
  branch?: string;
}

interface ExpectedAnswer {
  description: string;
  options?: { schema?: string };
  values: ExpectedValue[];
  extractJson: ExpectedValue | null;
  diagnostics: { reason: Diagnostic['reason'] }[];
}

interface Fixture {
  name: string;
  text: string;
  bytes: Uint8Array;
  expected: ExpectedAnswer;
  options: SalvageRunOptions;
}

const salvageDir = fileURLToPath(new URL('../../fixtures/salvage/', import.meta.url));
const schemasDir = fileURLToPath(new URL('../../fixtures/schemas/', import.meta.url));
const BYTE_CHUNK_SIZES = [1, 2, 3, 5, 7, 64];
/** Half of a surrogate pair without the other half: an excerpt cut inside a character. */
const LONE_SURROGATE = /\p{Cs}/u;

const files = readdirSync(salvageDir);
const names = files
  .filter((f) => f.endsWith('.expected.json'))
  .map((f) => f.slice(0, -'.expected.json'.length))
  .sort();

function loadFixture(name: string): Fixture {
  const bytes = new Uint8Array(readFileSync(`${salvageDir}${name}.txt`));
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  const expected = JSON.parse(readFileSync(`${salvageDir}${name}.expected.json`, 'utf8')) as ExpectedAnswer;
  const schemaFile = expected.options?.schema;
  const options: SalvageRunOptions =
    schemaFile === undefined
      ? {}
      : {
          schema: JSON.parse(readFileSync(`${schemasDir}${schemaFile}`, 'utf8')) as JsonSchema,
          compileJsonSchema: compileSchema,
        };
  return { name, text, bytes, expected, options };
}

const fixtures = names.map(loadFixture);

/** Split points that cut next to every expected value boundary, plus a few arbitrary ones. */
function interestingSplits(fixture: Fixture): [label: string, chunks: string[]][] {
  const { text, expected } = fixture;
  const boundaries = expected.values.flatMap((v) => [v.start - 1, v.start, v.start + 1, v.end - 1, v.end, v.end + 1]);
  const arbitrary = fc.sample(splitPoints(text.length), { numRuns: 4, seed: 20240611 });
  return [
    ['split at every value boundary', splitAt(text, boundaries)],
    ...arbitrary.map((points, i): [string, string[]] => [`arbitrary split points #${i + 1}`, splitAt(text, points)]),
    [
      'empty chunks around every character of the first 200',
      splitAt(
        text,
        [...Array(200).keys()].flatMap((i) => [i, i]),
      ),
    ],
  ];
}

/** Checks one run against the hand-written expectation. */
function expectMatches(actual: Salvaged, expected: ExpectedAnswer, label: string): void {
  expect(actual.values, label).toEqual(expected.values);
  // Own-key order and hostile keys such as `__proto__` survive only if they are own data properties.
  expect(JSON.stringify(actual.values.map((v) => v.value)), label).toBe(
    JSON.stringify(expected.values.map((v) => v.value)),
  );
  expect(
    actual.diagnostics.map((d) => ({ reason: d.reason })),
    label,
  ).toEqual(expected.diagnostics);
  for (const d of actual.diagnostics) {
    expect(Number.isInteger(d.offset) && d.offset >= 0, `${label}: offset ${d.offset}`).toBe(true);
    expect(d.excerpt.length, label).toBeGreaterThan(0);
    expect(LONE_SURROGATE.test(d.excerpt), `${label}: excerpt ${JSON.stringify(d.excerpt)}`).toBe(false);
    expect(d.message.length, label).toBeGreaterThan(0);
    if (d.reason === 'schema') expect(d.errors?.length ?? 0, label).toBeGreaterThan(0);
  }
}

interface Implementation {
  name: string;
  runs(fixture: Fixture): Promise<[label: string, run: Salvaged & { stats?: unknown }][]>;
}

const implementations: Implementation[] = [
  {
    name: 'one-shot extractAllJson',
    runs: async ({ text, options }) => [['whole', salvageOneShot(text, options)]],
  },
  {
    name: 'core salvage scanner: whole, chunk sizes 1..64, arbitrary split points',
    runs: async (fixture) =>
      [...everyChunkSize(fixture.text), ...interestingSplits(fixture)].map(([label, chunks]) => [
        label,
        salvageChunks(chunks, fixture.options),
      ]),
  },
  {
    name: 'Node salvage stream: UTF-8 bytes in 1, 2, 3, 5, 7 and 64-byte chunks',
    runs: async ({ bytes, options }) => {
      const runs: [string, Salvaged][] = [];
      for (const size of BYTE_CHUNK_SIZES) {
        const chunks = chunkBytes(bytes, size).map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength));
        runs.push([`${size}-byte chunks`, await salvageStreamChunks(chunks, options)]);
      }
      return runs;
    },
  },
];

const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

afterAll(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('fixtures/salvage', () => {
  it('holds at least 16 answers, each with its expectation', () => {
    expect(names.length).toBeGreaterThanOrEqual(16);
    const answers = files
      .filter((f) => f.endsWith('.txt'))
      .map((f) => f.slice(0, -'.txt'.length))
      .sort();
    expect(answers).toEqual(names);
  });

  it('expectations are consistent: each value is the JSON text between its offsets, in document order', () => {
    for (const { name, text, expected } of fixtures) {
      let last = 0;
      for (const v of expected.values) {
        expect(v.start, name).toBeGreaterThanOrEqual(last);
        expect(JSON.parse(text.slice(v.start, v.end)), name).toEqual(v.value);
        last = v.end;
      }
    }
  });
});

describe.each(implementations)('$name', (implementation) => {
  it.each(fixtures)('$name', async (fixture) => {
    const reference = salvageOneShot(fixture.text, fixture.options);
    let stats: { label: string; stats: unknown } | undefined;
    for (const [label, run] of await implementation.runs(fixture)) {
      expectMatches(run, fixture.expected, label);
      expect(run.values, `${label}: same values as the one-shot run`).toEqual(reference.values);
      expect(run.diagnostics, `${label}: same diagnostics as the one-shot run`).toEqual(reference.diagnostics);
      if (run.stats !== undefined) {
        stats ??= { label, stats: run.stats };
        expect(run.stats, `${label}: same stats as ${stats.label}`).toEqual(stats.stats);
      }
    }
  });
});

describe.each(fixtures)('extractJson on answer $name', (fixture) => {
  it('returns the expected value (null: none)', () => {
    const diagnostics: Diagnostic[] = [];
    const found = extractJson(fixture.text, { ...fixture.options, onDiagnostic: (d) => diagnostics.push(d) });
    expect(found ?? null).toEqual(fixture.expected.extractJson);
    expect(found?.repaired).toBeUndefined();
    expect(diagnostics.every((d) => d.reason !== 'recovered')).toBe(true);
  });
});

/** One-shot result, checked to be exactly what the core scanner gives at chunk sizes 1..16. */
function salvage(text: string, options: SalvageRunOptions = {}): Salvaged {
  const reference = salvageOneShot(text, options);
  for (const [label, chunks] of everyChunkSize(text, 16)) {
    const run = salvageChunks(chunks, options);
    expect(run.values, label).toEqual(reference.values);
    expect(run.diagnostics, label).toEqual(reference.diagnostics);
  }
  return reference;
}

/** `{ value, source }` of each value: the shape most examples assert. */
function found(text: string, options: SalvageRunOptions = {}): { value: unknown; source: string; fence?: string }[] {
  return salvage(text, options).values.map(({ value, source, fence }) => ({
    value,
    source,
    ...(fence === undefined ? {} : { fence }),
  }));
}

function reasons(text: string, options: SalvageRunOptions = {}): string[] {
  return salvage(text, options).diagnostics.map((d) => d.reason);
}

describe('document or embedded', () => {
  it('the whole text as one value of any kind is a document, offsets without surrounding whitespace', () => {
    expect(salvage('{"a": 1}').values).toEqual([{ value: { a: 1 }, source: 'document', start: 0, end: 8 }]);
    expect(salvage(' \n [1, 2]\n\n').values).toEqual([{ value: [1, 2], source: 'document', start: 3, end: 9 }]);
    expect(found('42')).toEqual([{ value: 42, source: 'document' }]);
    expect(found('"x"\n')).toEqual([{ value: 'x', source: 'document' }]);
    expect(found('true')).toEqual([{ value: true, source: 'document' }]);
    expect(found(' null ')).toEqual([{ value: null, source: 'document' }]);
  });

  it('a value with prose around it, or beside another value, is embedded', () => {
    expect(found('Answer: {"a": 1}')).toEqual([{ value: { a: 1 }, source: 'embedded' }]);
    expect(found('{"a": 1} is the answer')).toEqual([{ value: { a: 1 }, source: 'embedded' }]);
    expect(found('{"a": 1}{"b": 2}')).toEqual([
      { value: { a: 1 }, source: 'embedded' },
      { value: { b: 2 }, source: 'embedded' },
    ]);
    expect(found('[1]\n[2]\n')).toEqual([
      { value: [1], source: 'embedded' },
      { value: [2], source: 'embedded' },
    ]);
  });

  it('only objects and arrays are found in prose, fences and inline code', () => {
    expect(found('The answer is 42, "forty-two", true.')).toEqual([]);
    expect(found('```json\n42\n```')).toEqual([]);
    expect(found('Use `"x"` or `null`.')).toEqual([]);
  });

  it('a value alone in a fence is a fenced value, not a document', () => {
    expect(found('```json\n{"a": 1}\n```\n')).toEqual([{ value: { a: 1 }, source: 'fence', fence: 'json' }]);
  });
});

describe('outermost valid values win', () => {
  it('reports a valid value once, never its contents', () => {
    expect(salvage('Result: {"a": {"b": [1, {"c": 2}]}, "d": []} ok').values).toEqual([
      { value: { a: { b: [1, { c: 2 }] }, d: [] }, source: 'embedded', start: 8, end: 44 },
    ]);
  });

  it('finds the complete values nested in a candidate that turns out not to be JSON', () => {
    const text = 'Got {"a": [1, 2], "b": {"c": 3}, oops} back';
    expect(salvage(text).values).toEqual([
      { value: [1, 2], source: 'embedded', start: 10, end: 16 },
      { value: { c: 3 }, source: 'embedded', start: 23, end: 31 },
    ]);
    expect(reasons(text)).toEqual([]);
  });

  it("scans again the candidates that started inside a failed candidate's strings", () => {
    expect(found('Set {"note": "use {"retries": 2} here"} now')).toEqual([
      { value: { retries: 2 }, source: 'embedded' },
    ]);
    expect(found('List ["see [3]", ?] end')).toEqual([{ value: [3], source: 'embedded' }]);
  });

  it('brackets inside the strings of a valid value are not candidates', () => {
    expect(found('{"a": "[1, 2]", "b": "{\\"c\\": 1}"} and more')).toEqual([
      { value: { a: '[1, 2]', b: '{"c": 1}' }, source: 'embedded' },
    ]);
  });

  it('stray brackets in prose are neither values nor diagnostics', () => {
    const text = 'Use {braces} and [brackets], a } here, a ] there, {"x" y} and [1, 2, ?] too.';
    expect(found(text)).toEqual([]);
    expect(reasons(text)).toEqual([]);
  });
});

describe('fences', () => {
  it.each([
    ['```json', 'json'],
    ['```JSON', 'json'],
    ['```Json', 'json'],
    ['```jsonl', 'jsonl'],
    ['```JSONL', 'jsonl'],
    ['```jsonc', 'jsonc'],
    ['```javascript', 'javascript'],
    ['```none', 'none'],
    ['```', ''],
    ['~~~', ''],
    ['~~~JSON', 'json'],
    ['````json', 'json'],
    ['  ```json', 'json'],
  ])('%s opens a fence whose info string is reported lower-cased', (opener, info) => {
    const closer = opener.trim().replace(/[A-Za-z]+$/, '');
    expect(found(`Here:\n${opener}\n{"a": 1}\n${closer}\nDone.`)).toEqual([
      { value: { a: 1 }, source: 'fence', fence: info },
    ]);
  });

  it('is closed only by the same marker, at least as long, without an info string', () => {
    expect(found('````json\n{"a": 1}\n```\n{"b": 2}\n````\n{"c": 3} after')).toEqual([
      { value: { a: 1 }, source: 'fence', fence: 'json' },
      { value: { b: 2 }, source: 'fence', fence: 'json' },
      { value: { c: 3 }, source: 'embedded' },
    ]);
    expect(found('```json\n{"a": 1}\n~~~\n{"b": 2}\n```json\n{"c": 3}\n```\n{"d": 4} after')).toEqual([
      { value: { a: 1 }, source: 'fence', fence: 'json' },
      { value: { b: 2 }, source: 'fence', fence: 'json' },
      { value: { c: 3 }, source: 'fence', fence: 'json' },
      { value: { d: 4 }, source: 'embedded' },
    ]);
  });

  it('an unclosed fence runs to the end of the text', () => {
    const text = 'Intro\n```json\n{"a": 1}\n\nmore text {"b": 2}\n';
    expect(found(text)).toEqual([
      { value: { a: 1 }, source: 'fence', fence: 'json' },
      { value: { b: 2 }, source: 'fence', fence: 'json' },
    ]);
    expect(reasons(text)).toEqual([]);
  });

  it('a fence marker that does not start its line opens no fence', () => {
    expect(found('See ```json {"a": 1}``` here')).toEqual([{ value: { a: 1 }, source: 'inline' }]);
    expect(found('Value: {"a": 1} ```json\n{"b": 2}\n')).toEqual([
      { value: { a: 1 }, source: 'embedded' },
      { value: { b: 2 }, source: 'embedded' },
    ]);
  });

  it('a json-tagged or untagged block whose content yields no value is a syntax diagnostic', () => {
    expect(reasons("```json\n{'a': 1}\n```\n")).toEqual(['syntax']);
    expect(reasons('```\n{"a": 1,,}\n```\n')).toEqual(['syntax']);
    expect(reasons('```jsonl\n{a: 1}\n```\n')).toEqual(['syntax']);
    expect(reasons('```json5\n{a: 1}\n```\n')).toEqual(['syntax']);
    expect(reasons('```jsonc\n{"a": 1 /* one */}\n```\n')).toEqual(['syntax']);
    expect(reasons('```json\n\n  \n```\n')).toEqual([]);
    expect(reasons("```python\nx = {'a': 1}\n```\n")).toEqual([]);
    expect(reasons('```text\nnothing here\n```\n')).toEqual([]);
  });

  it('a value still open at the end of the text is truncated, and nothing nested in it is reported', () => {
    const text = 'Sure:\n```json\n{"items": [{"id": 1}, {"id": 2}, {"id": 3, "na';
    expect(found(text)).toEqual([]);
    expect(reasons(text)).toEqual(['truncated']);
  });
});

describe('inline code', () => {
  it('a value that starts inside a backtick span is inline', () => {
    expect(found('Set `{"debug": true}` first.')).toEqual([{ value: { debug: true }, source: 'inline' }]);
    expect(found('Run ``{"cmd": "`ls`"}`` now.')).toEqual([{ value: { cmd: '`ls`' }, source: 'inline' }]);
    expect(found('Both `[1]` and `x = [2]` work.')).toEqual([
      { value: [1], source: 'inline' },
      { value: [2], source: 'inline' },
    ]);
  });

  it('a backtick run with no closing run of the same length on its line opens no span', () => {
    expect(found('Set `{"debug": true}`` first.')).toEqual([{ value: { debug: true }, source: 'embedded' }]);
    expect(found('Set `{"debug": true}\nand ` later.')).toEqual([{ value: { debug: true }, source: 'embedded' }]);
    expect(found('A `code` span, then {"a": 1}.')).toEqual([{ value: { a: 1 }, source: 'embedded' }]);
  });

  it('backticks inside a fence are fence content', () => {
    expect(found('```\n`{"a": 1}`\n```\n')).toEqual([{ value: { a: 1 }, source: 'fence', fence: '' }]);
  });
});

describe('diagnostics', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { city: { type: 'string' }, temperature: { type: 'number' } },
    required: ['city', 'temperature'],
  };

  it('schema: a value that fails is left out and reported', () => {
    const text = 'First {"id": 3}, then {"city": "Oslo", "temperature": -2}.';
    expect(found(text, { schema, compileJsonSchema: compileSchema })).toEqual([
      { value: { city: 'Oslo', temperature: -2 }, source: 'embedded' },
    ]);
    expect(reasons(text, { schema, compileJsonSchema: compileSchema })).toEqual(['schema']);
  });

  it('too-long: a candidate longer than maxCandidateLength is abandoned', () => {
    const text = `Answer: {"text": "${'x'.repeat(50)}"} and {"ok": true}.`;
    const oneShot: Diagnostic[] = [];
    const values = extractAllJson(text, { maxCandidateLength: 20, onDiagnostic: (d) => oneShot.push(d) });
    expect(values.map((v) => v.value)).toEqual([{ ok: true }]);
    expect(oneShot.map((d) => d.reason)).toEqual(['too-long']);
    expect(salvageChunks([text], { maxCandidateLength: 20 }).values.map((v) => v.value)).toEqual([{ ok: true }]);
    expect(found(text, { maxCandidateLength: 20 })).toEqual([{ value: { ok: true }, source: 'embedded' }]);
    expect(reasons(text, { maxCandidateLength: 20 })).toEqual(['too-long']);
    expect(found(text)).toEqual([
      { value: { text: 'x'.repeat(50) }, source: 'embedded' },
      { value: { ok: true }, source: 'embedded' },
    ]);
  });

  it('truncated: a value cut off at the end of prose', () => {
    expect(reasons('The result is {"a": [1, 2')).toEqual(['truncated']);
    expect(reasons('The result is {"a": "cut')).toEqual(['truncated']);
  });
});

describe('extractJson', () => {
  it('prefers the document, then the first fenced, inline and embedded value', () => {
    expect(extractJson('  {"a": 1}\n')).toEqual({ value: { a: 1 }, source: 'document', start: 2, end: 10 });
    const all = 'Prose {"e": 1} then `{"i": 2}` then\n```json\n{"f": 3}\n```\n';
    expect(extractJson(all)?.value).toEqual({ f: 3 });
    expect(extractJson('Prose {"e": 1} then `{"i": 2}` end')?.value).toEqual({ i: 2 });
    expect(extractJson('Prose {"e": 1} then {"e": 2}')?.value).toEqual({ e: 1 });
    expect(extractJson('No JSON here.')).toBeUndefined();
    expect(extractJson('')).toBeUndefined();
  });

  it('with a schema, returns the first value in that order that validates', () => {
    const schema: JsonSchema = { type: 'object', required: ['name'] };
    const text = 'See {"id": 3} and `{"id": 4}` or {"name": "x"}\n```json\n{"id": 5}\n```\n';
    expect(extractJson(text)?.value).toEqual({ id: 5 });
    expect(extractJson(text, { schema, compileJsonSchema: compileSchema })).toEqual({
      value: { name: 'x' },
      source: 'embedded',
      start: 33,
      end: 46,
    });
    expect(extractJson('{"id": 1}', { schema, compileJsonSchema: compileSchema })).toBeUndefined();
  });

  it('agrees with the first value of extractAllJson in its order of preference', () => {
    const text = '[1] and `[2]` and\n~~~\n[3]\n~~~\n';
    const all = extractAllJson(text);
    expect(all.map((v) => v.source)).toEqual(['embedded', 'inline', 'fence']);
    expect(extractJson(text)).toEqual(all[2]);
  });
});

describe('extractJson repair', () => {
  const nearJson: [string, string, unknown][] = [
    ['trailing commas with single quotes', "Here: {'a': 1, 'b': 2,}", { a: 1, b: 2 }],
    ['single quotes', "Here: {'name': 'Widget', 'tags': ['a']}", { name: 'Widget', tags: ['a'] }],
    ['Python constants', 'Result: {"ok": True, "value": None, "bad": False}', { ok: true, value: null, bad: false }],
    ['comments', '{\n  "a": 1, // one\n  /* two */ "b": 2\n}\n', { a: 1, b: 2 }],
    ['a fenced block', "```json\n{'a': 1,}\n```\n", { a: 1 }],
    ['inline code', "Use `{'debug': True}` here.", { debug: true }],
  ];

  it.each(nearJson)('%s: repaired and reported only with repair: true', (_what, text, value) => {
    const diagnostics: Diagnostic[] = [];
    const repaired = extractJson(text, { repair: true, onDiagnostic: (d) => diagnostics.push(d) });
    expect(repaired?.value).toEqual(value);
    expect(repaired?.repaired).toBe(true);
    expect(diagnostics.filter((d) => d.reason === 'recovered')).toHaveLength(1);

    const plain: Diagnostic[] = [];
    expect(extractJson(text, { onDiagnostic: (d) => plain.push(d) })).toBeUndefined();
    expect(plain.some((d) => d.reason === 'recovered')).toBe(false);
    expect(extractAllJson(text).some((v) => v.repaired !== undefined)).toBe(false);
  });

  it('tries fenced block contents first', () => {
    expect(extractJson("Try {'b': 2}\n```json\n{'a': 1}\n```\n", { repair: true })?.value).toEqual({ a: 1 });
  });

  it('is not used when a valid value exists', () => {
    const diagnostics: Diagnostic[] = [];
    const result = extractJson('{\'a\': 1} and {"b": 2}', { repair: true, onDiagnostic: (d) => diagnostics.push(d) });
    expect(result).toEqual({ value: { b: 2 }, source: 'embedded', start: 13, end: 21 });
    expect(diagnostics.some((d) => d.reason === 'recovered')).toBe(false);
  });

  it('repairs the near-JSON between prose lines, not the prose around it', () => {
    const text = 'Config:\n{\n  "a": 1, // one\n  /* two */ "b": 2,\n}\nDone.';
    const repaired = extractJson(text, { repair: true });
    expect(repaired?.value).toEqual({ a: 1, b: 2 });
    expect(repaired?.repaired).toBe(true);
  });

  it('turns no prose into a value', () => {
    expect(extractJson('No JSON here.', { repair: true })).toBeUndefined();
    expect(extractJson('Sorry, I cannot help with that.\nPlease ask again.', { repair: true })).toBeUndefined();
  });

  it('validates the repaired value against the schema', () => {
    const schema: JsonSchema = { type: 'object', required: ['name'] };
    expect(extractJson("{'name': 'x',}", { repair: true, schema, compileJsonSchema: compileSchema })?.value).toEqual({
      name: 'x',
    });
    expect(extractJson("{'id': 3,}", { repair: true, schema, compileJsonSchema: compileSchema })).toBeUndefined();
  });
});

describe('streaming', () => {
  function scanner() {
    const values: SalvagedValue[] = [];
    const diagnostics: Diagnostic[] = [];
    const s = createSalvageScanner(
      {},
      {
        value: (v) => values.push(v),
        diagnostic: (d) => diagnostics.push(d),
      },
    );
    return { s, values, diagnostics };
  }

  it('emits a value in prose or in a fence as soon as it closes', () => {
    const prose = scanner();
    prose.s.write('Intro {"a": 1');
    expect(prose.values).toEqual([]);
    prose.s.write('}');
    expect(prose.values).toEqual([{ value: { a: 1 }, source: 'embedded', start: 6, end: 14 }]);

    const fenced = scanner();
    fenced.s.write('```json\n{"a": [1, 2]}');
    expect(fenced.values).toEqual([{ value: { a: [1, 2] }, source: 'fence', start: 8, end: 21, fence: 'json' }]);
  });

  it('holds a value that may be the whole document until the next non-whitespace character or the end', () => {
    const later = scanner();
    later.s.write('{"a": 1}');
    later.s.write(' \n');
    expect(later.values).toEqual([]);
    later.s.write('thanks');
    expect(later.values).toEqual([{ value: { a: 1 }, source: 'embedded', start: 0, end: 8 }]);

    const ended = scanner();
    ended.s.write('{"a": 1}\n');
    expect(ended.values).toEqual([]);
    ended.s.end();
    expect(ended.values).toEqual([{ value: { a: 1 }, source: 'document', start: 0, end: 8 }]);
  });

  it('Node stream: string chunks give the one-shot values', async () => {
    const text = 'A {"a": 1}\n```jsonl\n{"b": 2}\n{"c": 3}\n```\n`[4]`';
    const run = await salvageStreamChunks(['A {"a"', ': 1}\n``', '`jsonl\n{"b": 2}\n{"c": 3}\n```\n`[4]', '`']);
    expect(run.values).toEqual(extractAllJson(text));
    expect(run.values.map((v) => v.source)).toEqual(['embedded', 'fence', 'fence', 'inline']);
  });

  it('Node stream: a character split across byte chunks is decoded whole', async () => {
    const text = 'Prose 🚀 {"k": "東京 😀"} end';
    const bytes = utf8.encode(text);
    for (const size of [1, 2, 3]) {
      const run = await salvageStreamChunks(chunkBytes(bytes, size));
      expect(run.values, `${size}-byte chunks`).toEqual(extractAllJson(text));
      expect(run.values[0]?.value).toEqual({ k: '東京 😀' });
    }
  });
});
