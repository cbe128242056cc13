/**
 * Reading the records of `llmjson batch` (batch-records.ts): every record of every fixture in
 * fixtures/batch lifted to its text, id, model, finish reason, provider error and schema; the
 * format detected per file and told once per file; positions over every item (problems too);
 * later records that do not fit the detected format reported as problems; the first command's
 * field names still read as before; byte-order mark, CRLF and .txt directories as always.
 */

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { numRuns } from '../../../test/support/chunking.js';
import { detectFormat, type FieldPaths, liftRecord, parseFieldPaths } from '../src/batch-formats.js';
import {
  type BatchFormat,
  type BatchRecord,
  FIELDS_FORMATS_READ,
  type FieldOptions,
  type FileFormat,
  type InputProblem,
  liftLine,
  readRecords,
  scanInputs,
  splitSchemaAllowed,
} from '../src/batch-records.js';
import { UsageError } from '../src/exit-codes.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/batch/', import.meta.url));

interface Read {
  readonly records: BatchRecord[];
  readonly problems: InputProblem[];
  readonly formats: FileFormat[];
  readonly bytes: number;
}

async function read(
  cwd: string,
  names: readonly string[],
  options: { format?: BatchFormat; paths?: FieldPaths } | FieldOptions = {},
): Promise<Read> {
  const records: BatchRecord[] = [];
  const problems: InputProblem[] = [];
  const formats: FileFormat[] = [];
  let bytes = 0;
  const given =
    'modelField' in options
      ? options
      : {
          paths: options.paths ?? {},
          ...(options.format === undefined ? {} : { format: options.format }),
          onFormat: (f: FileFormat) => formats.push(f),
        };
  for await (const record of readRecords(
    scanInputs(cwd, names),
    given,
    (p) => problems.push(p),
    (n) => {
      bytes += n;
    },
  )) {
    records.push(record);
  }
  return { records, problems, formats, bytes };
}

/**
 * The lifted fields of each record by id, without the position. A schema's text as the line wrote
 * it (`schemaText`) must read back as the schema; it is then left out.
 */
function byId(records: readonly BatchRecord[]): Record<string, Omit<BatchRecord, 'index' | 'schemaText'>> {
  return Object.fromEntries(
    records.map(({ index: _index, schemaText, ...fields }) => {
      if (schemaText !== undefined) expect(JSON.parse(schemaText)).toEqual(fields.schema);
      return [fields.id, fields];
    }),
  );
}

describe('the fixtures, lifted', () => {
  test('openai-batch.jsonl', async () => {
    const { records, problems, formats } = await read(FIXTURES, ['openai-batch.jsonl']);
    expect(problems).toEqual([]);
    expect(formats).toEqual([{ file: join(FIXTURES, 'openai-batch.jsonl'), format: 'openai-batch', detected: true }]);
    expect(records.map((r) => r.index)).toEqual(Array.from({ length: 17 }, (_, i) => i));
    const mini = 'gpt-4o-mini-2024-07-18';
    const stop = { model: mini, finishReason: 'stop' };
    expect(byId(records)).toEqual({
      plain: { id: 'plain', ...stop, text: '{"answer": "Paris", "confidence": 0.92}' },
      fenced: { id: 'fenced', ...stop, text: 'Here is the JSON:\n```json\n{"answer": "Lyon", "confidence": 0.8}\n```' },
      'fenced-bare': { id: 'fenced-bare', ...stop, text: '```\n{"answer": "Nice"}\n```' },
      'prose-embedded': {
        id: 'prose-embedded',
        ...stop,
        text: 'The capital is Bern, so: {"answer": "Bern", "confidence": 0.7} — let me know if you need more.',
      },
      'prose-only': { id: 'prose-only', ...stop, text: "I'm sorry, I can't answer that without more context." },
      'cut-length': {
        id: 'cut-length',
        model: mini,
        finishReason: 'length',
        text: '{"answer": "The Treaty of Westphalia, signed in 1648, ended the Thirty Years',
      },
      'tool-call': {
        id: 'tool-call',
        model: mini,
        finishReason: 'tool_calls',
        text: '{"answer": "Oslo", "confidence": 0.66}',
      },
      'schema-mismatch': { id: 'schema-mismatch', ...stop, text: '{"answer": 42}' },
      coercible: { id: 'coercible', ...stop, text: '{"answer": "Rome", "confidence": "0.5"}' },
      'extra-key': { id: 'extra-key', ...stop, text: '{"answer": "Madrid", "source": "wikipedia"}' },
      'trailing-comma': { id: 'trailing-comma', ...stop, text: '{"answer": "Vienna", "confidence": 0.9,}' },
      empty: { id: 'empty', ...stop, text: '' },
      expired: {
        id: 'expired',
        model: 'unknown',
        text: '',
        providerError: 'batch_expired: This request could not be executed before the completion window expired.',
      },
      'server-500': {
        id: 'server-500',
        model: 'unknown',
        text: '',
        providerError: 'HTTP status 500: server_error: The server had an error while processing your request.',
      },
      'rate-429': {
        id: 'rate-429',
        model: 'unknown',
        text: '',
        providerError: 'HTTP status 429: requests: Rate limit reached for requests',
      },
      'responses-incomplete': {
        id: 'responses-incomplete',
        model: 'gpt-4.1-2025-04-14',
        finishReason: 'max_output_tokens',
        text: '{"answer": "Stockholm is the capital and largest',
      },
      'responses-ok': {
        id: 'responses-ok',
        model: 'gpt-4.1-2025-04-14',
        text: '{"answer": "Helsinki", "confidence": 1}',
      },
    });
  });

  test('anthropic-batch.jsonl', async () => {
    const { records, problems, formats } = await read(FIXTURES, ['anthropic-batch.jsonl']);
    expect(problems).toEqual([]);
    expect(formats.map((f) => [f.format, f.detected])).toEqual([['anthropic-batch', true]]);
    const sonnet = { model: 'claude-sonnet-4-5-20250929', finishReason: 'end_turn' };
    const haiku = { model: 'claude-haiku-4-5-20251001', finishReason: 'end_turn' };
    const failed = { model: 'unknown', text: '' };
    expect(byId(records)).toEqual({
      plain: { id: 'plain', ...sonnet, text: '{"answer": "Canberra", "confidence": 0.95}' },
      fenced: { id: 'fenced', ...sonnet, text: '```json\n{"answer": "Ottawa"}\n```' },
      'prose-then-json': {
        id: 'prose-then-json',
        ...sonnet,
        text: 'Sure! Here you go:\n\n{"answer": "Wellington", "confidence": 0.6}\n\nThis is based on common knowledge.',
      },
      'two-text-blocks': { id: 'two-text-blocks', ...sonnet, text: '{"answer": "Dublin"}' },
      'tool-use': { id: 'tool-use', ...sonnet, finishReason: 'tool_use', text: '{"answer":"Lisbon","confidence":0.7}' },
      'thinking-then-text': { id: 'thinking-then-text', ...sonnet, text: '{"answer": "Athens"}' },
      'max-tokens': {
        id: 'max-tokens',
        ...sonnet,
        finishReason: 'max_tokens',
        text: '{"answer": "Warsaw is the capital of Poland and its',
      },
      refusal: { id: 'refusal', ...sonnet, finishReason: 'refusal', text: "I can't help with that." },
      'schema-mismatch': { id: 'schema-mismatch', ...haiku, text: '{"answer": ["Prague"]}' },
      empty: { id: 'empty', ...haiku, text: '' },
      errored: {
        id: 'errored',
        ...failed,
        providerError:
          'errored: invalid_request_error: max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5-20251001',
      },
      canceled: {
        id: 'canceled',
        ...failed,
        providerError: 'canceled: the batch was canceled before this request was processed',
      },
      expired: {
        id: 'expired',
        ...failed,
        providerError: 'expired: the batch ended before this request was processed',
      },
    });
  });

  test("lm-eval samples: the model is the folder, the schema the doc's (an object or a JSON text)", async () => {
    const dir = 'lm-eval/Qwen__Qwen2.5-7B-Instruct';
    const file = `${dir}/samples_jsonschemabench_2025-06-01T10-15-30.123456.jsonl`;
    const { records, problems, formats } = await read(FIXTURES, [file], { paths: { schema: 'doc.json_schema' } });
    expect(problems).toEqual([]);
    expect(formats.map((f) => [f.format, f.detected])).toEqual([['lm-eval', true]]);
    const person = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' } },
      required: ['name', 'age'],
    };
    // As JSONSchemaBench stores them: Python's json.dumps, a space after each ':' and ','.
    const personText =
      '{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]}';
    const nullable = { type: ['object', 'null'], properties: { city: { type: 'string' } } };
    const tags =
      '{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1}}, "required": ["tags"]}';
    const sample = (id: number, text: string, schema: unknown) => [
      String(id),
      { id: String(id), model: 'Qwen__Qwen2.5-7B-Instruct', text, schema },
    ];
    expect(byId(records)).toEqual(
      Object.fromEntries([
        sample(0, '{"name": "Ada", "age": 36}', person),
        sample(1, '```json\n{"name": "Alan", "age": 41}\n```', person),
        sample(2, 'null', nullable),
        sample(3, '\n```json\n{"name": "Barbara", "age": 80}\n```', person),
        sample(4, '```json\nnull\n```', nullable),
        sample(5, '```JSON\n{"tags": ["a", "b"]}\n```', tags),
        sample(6, '```jsonc\n{"tags": ["x"]}\n```', tags),
        sample(7, '```json\n{"tags": []}\n```', tags),
        sample(8, '{"name": "Grace", "age": "85"}', person),
        sample(9, '{"name": "Edsger", "age": 72', person),
        sample(10, 'The person is Barbara, aged 80.', person),
        sample(11, 'json\n{"name": "Donald", "age": 30}', personText),
        sample(12, '   ', person),
        sample(13, '{"name": "Ken", "age": 80}', { type: 'nonsense' }),
        sample(14, '```json\n{"name": "Ken", "age": 80}\n```\n', personText),
      ]),
    );
  });

  test('BFCL results: the model is the result folder; lists and objects as JSON text; its error entry', async () => {
    const file = 'bfcl/gpt-4o-2024-11-20-FC/BFCL_v3_simple_result.json';
    const { records, problems, formats } = await read(FIXTURES, [file]);
    expect(problems).toEqual([]);
    expect(formats.map((f) => [f.format, f.detected])).toEqual([['bfcl', true]]);
    const entry = (id: number, text: string, providerError?: string) => [
      `simple_${id}`,
      {
        id: `simple_${id}`,
        model: 'gpt-4o-2024-11-20-FC',
        text,
        ...(providerError === undefined ? {} : { providerError }),
      },
    ];
    expect(byId(records)).toEqual(
      Object.fromEntries([
        entry(0, '[{"calculate_triangle_area":"{\\"base\\": 10, \\"height\\": 5}"}]'),
        entry(1, '[{"math_factorial":{"number":5}}]'),
        entry(2, '[{"calculate_hypotenuse": {"x": 4, "y": 5}}]'),
        entry(3, '```json\n[{"solve_quadratic": {"a": 1, "b": -3, "c": 2}}]\n```'),
        entry(4, '[calculate_area(base=10, height=5)]'),
        entry(5, ''),
        entry(6, 'I need more information about the triangle before I can call a function.'),
        entry(7, '[{"get_weather": {"city": "Paris", "unit": "celsius"'),
        entry(8, '', 'Error code: 429 - Rate limit exceeded'),
        entry(9, '{"get_time":{"timezone":"UTC"}}'),
      ]),
    );
  });

  test('records.jsonl: schemas inline, as JSON text, by name, or none; two lines that are not records', async () => {
    const { records, problems, formats } = await read(FIXTURES, ['records.jsonl'], { paths: { schema: 'schema' } });
    expect(formats.map((f) => [f.format, f.detected])).toEqual([['records', true]]);
    expect(problems.map(({ index, line, message }) => ({ index, line, message }))).toEqual([
      { index: 17, line: 18, message: expect.stringMatching(/^not JSON: /) },
      { index: 18, line: 19, message: 'the text field is an object, not a string' },
    ]);
    expect(problems.every((p) => p.file === join(FIXTURES, 'records.jsonl'))).toBe(true);
    expect(records.map((r) => r.index)).toEqual([...Array.from({ length: 17 }, (_, i) => i), 19]);
    const title = {
      type: 'object',
      properties: { title: { type: 'string' }, year: { type: 'integer' } },
      required: ['title', 'year'],
      additionalProperties: false,
    };
    const titleText =
      '{"type": "object", "properties": {"title": {"type": "string"}, "year": {"type": "integer"}}, "required": ["title", "year"], "additionalProperties": false}';
    const r = (id: string, model: string, text: string, schema?: unknown, finishReason?: string) => [
      id,
      {
        id,
        model,
        text,
        ...(finishReason === undefined ? {} : { finishReason }),
        ...(schema === undefined ? {} : { schema }),
      },
    ];
    expect(byId(records)).toEqual(
      Object.fromEntries([
        r('inline-valid', 'large', '{"title": "Dune", "year": 1965}', title),
        r('inline-fenced', 'large', '```json\n{"title": "Emma", "year": 1815}\n```', title),
        r('inline-invalid', 'large', '{"title": "Ulysses", "year": "1922"}', title),
        r('string-schema', 'large', '{"title": "Beloved", "year": 1987}', titleText),
        r('string-schema-invalid', 'small', '{"title": "Beloved"}', titleText),
        r('named-valid', 'small', '{"name": "Ada", "age": 36}', 'fixture.person.v1'),
        r('named-salvaged', 'small', 'Result: {"name": "Alan", "age": 41}', 'fixture.person.v1'),
        r('named-missing', 'small', '{"name": "Ada", "age": 36}', 'fixture.person.v9'),
        r('nonsense-type', 'small', '{"a": 1}', { type: 'nonsense' }),
        r('unresolvable-ref', 'small', '{"a": 1}', { $ref: '#/definitions/missing' }),
        r('no-schema', 'small', '{"a": 1}'),
        r('schema-not-json-text', 'small', '{"a": 1}', '{"type": "object",'),
        r('true-schema', 'large', '[1, 2, 3]', true),
        r('false-schema', 'large', '[1, 2, 3]', false),
        r('cut-length', 'large', '{"title": "War and Peace", "year": 18', title, 'length'),
        r('empty', 'large', '', title),
        r('output-field', 'small', '{"title": "Kindred", "year": 1979}', title, 'end_turn'),
        r('not-json', 'small', 'No title found.', title),
      ]),
    );
  });

  test('every fixture record has an expectation, and every expectation a record, at its position', async () => {
    const inputs = [
      ['openai-batch.jsonl', {}],
      ['anthropic-batch.jsonl', {}],
      [
        'lm-eval/Qwen__Qwen2.5-7B-Instruct/samples_jsonschemabench_2025-06-01T10-15-30.123456.jsonl',
        { schema: 'doc.json_schema' },
      ],
      ['bfcl/gpt-4o-2024-11-20-FC/BFCL_v3_simple_result.json', {}],
      ['records.jsonl', { schema: 'schema' }],
    ] as const;
    for (const [file, paths] of inputs) {
      const expected = {
        default: JSON.parse(readFileSync(join(FIXTURES, file.replace(/\.[^./]+$/, '.expected.json')), 'utf8')) as {
          format: string;
          records: Record<string, { index: number; model: string }>;
          problems: { index: number; line: number }[];
        },
      };
      const { records, problems, formats } = await read(FIXTURES, [file], { paths });
      expect(formats[0]?.format, file).toBe(expected.default.format);
      expect(Object.fromEntries(records.map((r) => [r.id, { index: r.index, model: r.model }])), file).toEqual(
        Object.fromEntries(
          Object.entries(expected.default.records).map(([id, e]) => [id, { index: e.index, model: e.model }]),
        ),
      );
      expect(
        problems.map((p) => ({ index: p.index, line: p.line })),
        file,
      ).toEqual(expected.default.problems);
    }
  });
});

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-records-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe('readRecords', () => {
  test('positions count every non-blank line and every .txt file, problems too, over the inputs in order', async () => {
    const dir = workspace({
      'a.jsonl': `\uFEFF${line({ id: 'a0', text: 'x' })}\n   \n{broken\r\n${line([1])}${line({ id: 'a4', text: 'y' })}`,
      'texts/m1.txt': '{"n": 1}',
      'texts/m2.txt': '',
      'b.jsonl': `${line({ id: 'b0', output: 'z' })}`,
    });
    const { records, problems } = await read(dir, ['a.jsonl', 'texts', 'b.jsonl']);
    expect(records.map((r) => [r.index, r.id, r.model])).toEqual([
      [0, 'a0', 'unknown'],
      [3, 'a4', 'unknown'],
      [4, 'm1', 'texts'],
      [5, 'm2', 'texts'],
      [6, 'b0', 'unknown'],
    ]);
    expect(problems.map((p) => [p.index, p.line, p.message])).toEqual([
      [1, 4, expect.stringMatching(/^not JSON/)],
      [2, 5, 'a record must be a JSON object'],
    ]);
  });

  test('a byte-order mark and CRLF line ends are not part of the record', async () => {
    const dir = workspace({ 'crlf.jsonl': `\uFEFF{"id":"1","text":"a"}\r\n{"id":"2","text":"b"}\r\n` });
    const { records, problems } = await read(dir, ['crlf.jsonl']);
    expect(problems).toEqual([]);
    expect(records.map((r) => [r.id, r.text])).toEqual([
      ['1', 'a'],
      ['2', 'b'],
    ]);
  });

  test("each file's format is detected from its own first record and told once per file", async () => {
    const dir = workspace({
      'o.jsonl': `not json\n${line({ custom_id: 'o1', response: { status_code: 200, body: { model: 'g', choices: [{ message: { content: '1' } }] } }, error: null })}${line({ custom_id: 'o2', error: { message: 'gone' }, response: null })}`,
      'a.jsonl': line({ custom_id: 'a1', result: { type: 'expired' } }),
      'r.jsonl': line({ id: 'r1', text: 't' }),
    });
    const { records, formats, problems } = await read(dir, ['o.jsonl', 'a.jsonl', 'r.jsonl']);
    expect(formats).toEqual([
      { file: join(dir, 'o.jsonl'), format: 'openai-batch', detected: true },
      { file: join(dir, 'a.jsonl'), format: 'anthropic-batch', detected: true },
      { file: join(dir, 'r.jsonl'), format: 'records', detected: true },
    ]);
    expect(problems.map((p) => p.index)).toEqual([0]);
    expect(records.map((r) => [r.index, r.id, r.text, r.providerError])).toEqual([
      [1, 'o1', '1', undefined],
      [2, 'o2', '', 'gone'],
      [3, 'a1', '', 'expired: the batch ended before this request was processed'],
      [4, 'r1', 't', undefined],
    ]);
  });

  test('later records that do not fit the detected format are problems naming it, with their positions', async () => {
    const dir = workspace({
      'mixed.jsonl': [
        line({
          custom_id: 'a1',
          result: { type: 'succeeded', message: { model: 'c', content: [{ type: 'text', text: '{}' }] } },
        }),
        line({
          custom_id: 'o1',
          response: { status_code: 200, body: { choices: [{ message: { content: '{}' } }] } },
          error: null,
        }),
        line({ id: 'r1', text: '{}' }),
        line({ custom_id: 'a2', result: { type: 'canceled' } }),
      ].join(''),
      'records-then-bfcl.jsonl': `${line({ id: 'r1', text: '{}' })}${line({ id: 'simple_0', result: '[]' })}`,
    });
    const { records, problems, formats } = await read(dir, ['mixed.jsonl', 'records-then-bfcl.jsonl']);
    expect(formats.map((f) => f.format)).toEqual(['anthropic-batch', 'records']);
    expect(records.map((r) => [r.index, r.id])).toEqual([
      [0, 'a1'],
      [3, 'a2'],
      [4, 'r1'],
    ]);
    expect(problems.map((p) => [p.index, p.line, p.message])).toEqual([
      [
        1,
        2,
        "does not fit the anthropic-batch format detected from the file's first record: it looks like openai-batch instead (give --format, or split the file by format)",
      ],
      [
        2,
        3,
        'does not fit the anthropic-batch format detected from the file\'s first record: it has no "result" with a "type" (give --format, or split the file by format)',
      ],
      [
        5,
        2,
        'does not fit the records format detected from the file\'s first record: it has no "text" nor "output", and looks like bfcl instead (give --format, or split the file by format)',
      ],
    ]);
  });

  test('--format given: no detection, told as given; its records read as that format', async () => {
    const dir = workspace({
      'x.jsonl': `${line({ id: 'simple_0', result: '[1]' })}${line({ id: 'simple_1', result: '[2]' })}`,
    });
    const asRecords = await read(dir, ['x.jsonl'], { format: 'records' });
    expect(asRecords.formats).toEqual([{ file: join(dir, 'x.jsonl'), format: 'records', detected: false }]);
    expect(asRecords.records.map((r) => r.text)).toEqual(['', '']);
    const asRecordsWithText = await read(dir, ['x.jsonl'], { format: 'records', paths: { text: 'result' } });
    expect(asRecordsWithText.records.map((r) => r.text)).toEqual(['[1]', '[2]']);
    const asOpenai = await read(dir, ['x.jsonl'], { format: 'openai-batch' });
    expect(asOpenai.problems.map((p) => p.message)).toEqual([
      'does not fit --format openai-batch: it has neither "response" nor "error"',
      'does not fit --format openai-batch: it has neither "response" nor "error"',
    ]);
  });

  test('field paths from the flags: dotted or JSON Pointer; a bad one is a usage error naming its flag', async () => {
    const dir = workspace({ 'p.jsonl': line({ meta: { 'model.name': 'm', n: 7 }, out: ['{"a":1}'], fin: 'length' }) });
    const { records } = await read(dir, ['p.jsonl'], {
      paths: { text: 'out.0', model: '/meta/model.name', id: 'meta.n', finish: 'fin' },
    });
    expect(records).toEqual([{ index: 0, id: '7', model: 'm', text: '{"a":1}', finishReason: 'length' }]);
    await expect(read(dir, ['p.jsonl'], { paths: { id: 'meta..n' } })).rejects.toThrow(UsageError);
    await expect(read(dir, ['p.jsonl'], { paths: { id: 'meta..n' } })).rejects.toThrow(/^--id-field: /);
  });

  test("the first command's field names still read top-level fields as they did", async () => {
    const dir = workspace({
      'old.jsonl': `${line({ 'a.b': 'dotted name', who: 'w', key: 5, finish_reason: 'stop' })}${line({ 'a.b': 3 })}`,
    });
    const { records, problems } = await read(dir, ['old.jsonl'], {
      textField: 'a.b',
      modelField: 'who',
      idField: 'key',
    });
    expect(records).toEqual([{ index: 0, id: '5', model: 'w', text: 'dotted name', finishReason: 'stop' }]);
    expect(problems.map((p) => [p.index, p.message])).toEqual([
      [1, '--text-field a.b is a number in this record, not a string'],
    ]);
  });

  test('bytes: every line of a file, its line end included, and every .txt file', async () => {
    const dir = workspace({ 'a.jsonl': '{"text":"é"}\n\n', 't/x.txt': 'abc' });
    expect((await read(dir, ['a.jsonl', 't'])).bytes).toBe(Buffer.byteLength('{"text":"é"}\n\n') + 3);
  });
});

describe('a schema parsed apart from its line (what the workers do)', () => {
  const files: [string, BatchFormat, FieldPaths][] = [
    ['records.jsonl', 'records', { schema: 'schema' }],
    ['openai-batch.jsonl', 'openai-batch', { schema: 'schema' }],
    ['anthropic-batch.jsonl', 'anthropic-batch', { schema: 'schema' }],
    ['bfcl/gpt-4o-2024-11-20-FC/BFCL_v3_simple_result.json', 'bfcl', { schema: 'schema' }],
    [
      'lm-eval/Qwen__Qwen2.5-7B-Instruct/samples_jsonschemabench_2025-06-01T10-15-30.123456.jsonl',
      'lm-eval',
      { schema: 'doc.json_schema' },
    ],
  ];
  const lines = (file: string) =>
    readFileSync(join(FIXTURES, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
  const objectOf = (line: string): Record<string, unknown> | undefined => {
    try {
      const value: unknown = JSON.parse(line);
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  };

  test('no format reads a top-level field outside FIELDS_FORMATS_READ (detected or given)', () => {
    for (const [file, format] of files) {
      for (const line of lines(file)) {
        const parsed = objectOf(line);
        if (parsed === undefined) continue;
        const read = new Set<string>();
        const record = new Proxy(parsed, {
          get(target, key, receiver) {
            if (typeof key === 'string') read.add(key);
            return Reflect.get(target, key, receiver);
          },
        });
        for (const detected of [true, false]) {
          liftRecord(format, record, { file: join(FIXTURES, file), line: 1 }, { detected });
          detectFormat(record);
        }
        expect([...read].filter((key) => !FIELDS_FORMATS_READ.has(key))).toEqual([]);
      }
    }
  });

  test('every fixture line lifts to the same record, its schema as text; a line that is not JSON is still a problem', () => {
    let split = 0;
    for (const [file, format, given] of files) {
      // Each line once as written, and once with its schema inline, for the formats without one.
      const paths = parseFieldPaths(given);
      expect(splitSchemaAllowed(paths)).toBe(true);
      const schema = { type: 'object', properties: { a: { type: 'string', description: 'say "}"' } } };
      const inline = lines(file).flatMap((line) => {
        const parsed = objectOf(line);
        return parsed === undefined ? [] : [JSON.stringify({ ...parsed, schema })];
      });
      for (const line of [...lines(file), ...(given.schema === 'schema' ? inline : [])]) {
        const source = { file: join(FIXTURES, file), line: 7 };
        const whole = liftLine(line, format, source, { paths, detected: true });
        const apart = liftLine(line, format, source, { paths, detected: true, splitSchema: true });
        if ('problem' in whole) {
          expect(apart).toEqual(whole);
          continue;
        }
        if (!('record' in apart)) throw new Error('the split line is a problem');
        if ('schema' in apart.record || apart.record.schemaText === undefined) {
          // Not an object schema (a name, a JSON text in a string, none): read as a whole.
          expect(apart).toEqual(whole);
          continue;
        }
        split++;
        const { schema: wholeSchema, schemaText: _text, ...rest } = whole.record;
        const { schemaText, ...apartRest } = apart.record;
        expect(apartRest).toEqual(rest);
        expect(JSON.parse(schemaText ?? 'null')).toEqual(wholeSchema);
      }
      // A line whose schema is not JSON, or whose rest is not (a key with a bad escape too): the
      // problem of the whole line, never an exception.
      for (const broken of [
        '{"id":"x","schema":{"type":"object",},"text":"{}"}',
        '{"\\x":1,"schema":{},"text":"{}"}',
        '{"id":"x","schema":{"\\u00":1},"text":"{}"}',
        '{"sch\\u00":1}',
      ]) {
        expect(liftLine(broken, format, { file: 'f', line: 1 }, { paths, detected: false, splitSchema: true })).toEqual(
          liftLine(broken, format, { file: 'f', line: 1 }, { paths, detected: false }),
        );
      }
    }
    expect(split).toBeGreaterThan(20);
  });

  test('not parsed apart when a format reads the field, or another field path is inside it or holds it', () => {
    const allowed = (paths: FieldPaths) => splitSchemaAllowed(parseFieldPaths(paths));
    expect(allowed({ schema: 'schema' })).toBe(true);
    expect(allowed({ schema: 'response.body.schema' })).toBe(false);
    expect(allowed({ schema: 'doc.schema', text: 'doc.text' })).toBe(true);
    expect(allowed({ schema: 'doc', text: 'doc.text' })).toBe(false);
    expect(allowed({ schema: 'doc.schema', text: 'doc' })).toBe(false);
    expect(allowed({ text: 'doc' })).toBe(false);
  });

  // A schema long enough (128 characters or more) to be known by its first characters once met.
  const longSchema = (k: number) => ({
    type: 'object',
    description: `schema ${k} ${'x'.repeat(130)}`,
    properties: { [`field_${k}`]: { type: 'string', description: 'say "}" and \\ here' } },
  });
  // A member of a line as written: the key spelled plainly or with an escape, the value as JSON.
  const member = fc.tuple(
    fc.constantFrom('id', 'text', 'model', 'schema', 'doc', 'other', '__proto__', 'constructor'),
    fc.boolean(),
    fc.oneof(
      fc.integer({ min: 0, max: 3 }).map((k) => JSON.stringify(longSchema(k))),
      fc.integer({ min: 0, max: 3 }).map((k) => JSON.stringify(longSchema(k), null, 1)),
      fc.constantFrom('0', '{}', '"schema"', '{"type":"string"}', '[1]', 'null', '{"schema":0}'),
      fc.integer({ min: 0, max: 3 }).map((k) => JSON.stringify({ schema: longSchema(k), text: 'in doc' })),
      fc.integer({ min: 0, max: 3 }).map((k) => `${JSON.stringify(longSchema(k)).slice(0, -1)},"extra":1}`),
      fc.string({ maxLength: 8 }).map((text) => JSON.stringify(text)),
    ),
  );
  const lineOf = (members: readonly [string, boolean, string][], broken: boolean) => {
    const written = members.map(([key, escaped, value]) => {
      const name = escaped
        ? JSON.stringify(key).replace(/^"(.)/, (_, c: string) => `"\\u00${c.charCodeAt(0).toString(16)}`)
        : JSON.stringify(key);
      return `${name}:${value}`;
    });
    const line = `{${written.join(',')}}`;
    return broken ? line.slice(0, -1) : line;
  };

  fcTest.prop(
    [
      fc.array(fc.tuple(fc.array(member, { maxLength: 6 }), fc.boolean()), { minLength: 1, maxLength: 12 }),
      fc.constantFrom('schema', 'doc.schema', '__proto__', 'constructor.schema'),
    ],
    { numRuns },
  )(
    'any line lifts apart as it lifts whole, repeated keys (plain or escaped), keys like __proto__ and known schemas included',
    (lines, schemaPath) => {
      const paths = parseFieldPaths({ schema: schemaPath });
      expect(splitSchemaAllowed(paths)).toBe(true);
      // Each line twice: the second time its schema (if long) is known by its first characters.
      for (const [members, broken] of [...lines, ...lines]) {
        const line = lineOf(members, broken && members.length > 0);
        const source = { file: 'f.jsonl', line: 3 };
        const whole = liftLine(line, 'records', source, { paths, detected: true });
        const apart = liftLine(line, 'records', source, { paths, detected: true, splitSchema: true });
        if (
          !('record' in whole) ||
          !('record' in apart) ||
          'schema' in apart.record ||
          apart.record.schemaText === undefined
        ) {
          expect(apart).toEqual(whole);
          continue;
        }
        const { schema: wholeSchema, schemaText: _text, ...rest } = whole.record;
        const { schemaText, ...apartRest } = apart.record;
        expect(apartRest).toEqual(rest);
        expect(JSON.parse(schemaText ?? 'null')).toEqual(wholeSchema);
      }
    },
  );
});
