/**
 * Judging one record of `llmjson batch` (batch-judge.ts) and the per-record schema cache
 * (batch-schemas.ts): each status with a small record, the three scorings and how they differ,
 * the precedence of provider errors and unusable schemas, one compilation per schema content,
 * and the JSONSchemaBench codes (docs/decisions/039-batch-statuses.md).
 */

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { type JudgeOptions, jsonSchemaBenchCode, judgeRecord } from '../src/batch-judge.js';
import { RecordSchemas } from '../src/batch-schemas.js';
import type { BatchRecord, RecordResult, RecordStatus } from '../src/batch-types.js';

const N = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } as const;
const LIST = { type: 'array', items: N } as const;

function record(text: string, extra: Partial<BatchRecord> = {}): BatchRecord {
  return { index: 7, id: 'r7', model: 'm', text, ...extra };
}

function judge(text: string, options: Partial<JudgeOptions> = {}, extra: Partial<BatchRecord> = {}): RecordResult {
  return judgeRecord(record(text, extra), { mode: 'json', salvage: true, schema: N, ...options });
}

describe('statuses', () => {
  test('valid: the whole text as it stands, in every scoring', () => {
    const result = judge('{"n": 5}');
    expect(result).toEqual({
      index: 7,
      id: 'r7',
      model: 'm',
      status: 'valid',
      scores: { strict: 'valid', salvage: 'valid', coerce: 'valid' },
      values: 1,
      diagnostics: 0,
    });
  });

  test('salvaged: a fenced answer is not JSON to strict, and salvaged by llmjson', () => {
    const fenced = 'Here it is:\n```json\n{"n": 5}\n```';
    const result = judge(fenced);
    expect(result.status).toBe('salvaged');
    // JSON is in the text, but the text is not one JSON document: a syntax error to strict.
    expect(result.scores).toEqual({ strict: 'invalid', salvage: 'salvaged', coerce: 'salvaged' });
    expect(judge(fenced, { salvage: false })).toMatchObject({ status: 'invalid', excerpt: fenced });
    expect(judge(fenced, { salvage: false }).keyword).toBeUndefined();
  });

  test('coerced: {"n": "5"} for an integer fails strict and salvage on type at /n, and coercion repairs it', () => {
    const result = judge('{"n": "5"}');
    expect(result.scores).toEqual({ strict: 'invalid', salvage: 'invalid', coerce: 'coerced' });
    expect(result).toMatchObject({ status: 'invalid', keyword: 'type', path: '/n', excerpt: '{"n": "5"}' });
    expect(result.message).toContain('must be integer');
    const coerced = judge('{"n": "5"}', { coerce: true });
    expect(coerced).toMatchObject({ status: 'coerced', values: 1 });
    expect(coerced.keyword).toBeUndefined();
    // Only the rules named: a rule that does not apply repairs nothing.
    expect(judge('{"n": "5"}', { coerce: ['enum-case'] }).scores.coerce).toBe('invalid');
    expect(judge('{"n": "5"}', { coerce: ['string-to-number'] }).scores.coerce).toBe('coerced');
  });

  test('truncated: a text that ends inside a value, or a finish reason that says it was cut', () => {
    const cut = judge('{"n": 5, "more": [1, 2');
    expect(cut.scores).toEqual({ strict: 'truncated', salvage: 'truncated', coerce: 'truncated' });
    expect(cut.excerpt).toBe('{"n": 5, "more": [1, 2');
    const byReason = judge('{"n": 5}', {}, { finishReason: 'length' });
    expect(byReason.scores).toEqual({ strict: 'truncated', salvage: 'truncated', coerce: 'truncated' });
    expect(byReason.message).toContain('token limit');
  });

  test('strict: a text that opens what it does not close is truncated only when it ends inside it', () => {
    // Each refused by JSON.parse; strict decides truncated without calling it, invalid with its message.
    expect(judge('  [1, {"n": 5} \n').scores.strict).toBe('truncated');
    expect(judge('{"n": 5, "s": "}').scores.strict).toBe('truncated');
    // The run's status is strict's (salvage: false), so the message is strict's.
    const after = judge('{"n": 5} and more', { salvage: false });
    expect(after.scores.strict).toBe('invalid');
    expect(after.message).toMatch(/^the text is not one JSON document: .*JSON/);
    const nbsp = judge('{"n": 5}\u00a0', { salvage: false });
    expect(nbsp.scores.strict).toBe('invalid');
    expect(nbsp.message).toMatch(/JSON/);
    expect(judge('{"n": 5} \r\n\t').scores.strict).toBe('valid');
  });

  test('invalid by syntax: JSON is there but broken; no keyword', () => {
    const result = judge('{"n": 5,, "m": 1}');
    expect(result.scores).toEqual({ strict: 'invalid', salvage: 'invalid', coerce: 'invalid' });
    expect(result.keyword).toBeUndefined();
    expect(result.message).toMatch(/JSON/);
    expect(result.excerpt).toBe('{"n": 5,, "m": 1}');
  });

  test('not-json: no JSON value anywhere, in every mode (not truncated in elements mode)', () => {
    for (const mode of ['json', 'jsonl', 'elements', 'salvage'] as const) {
      const result = judge('I cannot help with that.', { mode, schema: mode === 'elements' ? LIST : N });
      expect(result.scores, mode).toEqual({ strict: 'not-json', salvage: 'not-json', coerce: 'not-json' });
      expect(result.excerpt).toBe('I cannot help with that.');
    }
  });

  test('empty: no text but whitespace, whatever the scoring', () => {
    const result = judge('  \n\t');
    expect(result.scores).toEqual({ strict: 'empty', salvage: 'empty', coerce: 'empty' });
    expect(result.values).toBe(0);
  });

  test('provider-error comes first: before the schema, the empty text and the text', () => {
    const result = judge('{"n": 5}', {}, { providerError: 'expired', schema: 'no such schema' });
    expect(result).toMatchObject({ status: 'provider-error', scores: { strict: 'provider-error' } });
    expect(result.message).toContain('expired');
    expect(judge('', {}, { providerError: 'HTTP 500' }).status).toBe('provider-error');
  });

  test('unsupported-schema: before the empty text; every scoring; the message says why', () => {
    const missing = judge('{"n": 5}', { schemaField: 'json_schema' });
    expect(missing).toMatchObject({ status: 'unsupported-schema', scores: { salvage: 'unsupported-schema' } });
    expect(missing.message).toContain('--schema-field json_schema');
    const broken = judge('', { schemaField: 's' }, { schema: { type: 'integr' } });
    expect(broken).toMatchObject({ status: 'unsupported-schema' });
    expect(broken.message).toContain('does not compile');
    expect(broken.schemaId).toMatch(/^[0-9a-f]{12}$/);
  });

  test('elements mode: the element that fails gives keyword and the path into the document', () => {
    const result = judge('[{"n": 1}, {"n": "2"}]', { mode: 'elements', schema: LIST });
    expect(result.scores).toEqual({ strict: 'invalid', salvage: 'invalid', coerce: 'coerced' });
    expect(result).toMatchObject({ keyword: 'type', path: '/1/n', values: 1 });
    expect(judge('[{"n": 1}, {"n": 2}]', { mode: 'elements', schema: LIST })).toMatchObject({
      status: 'valid',
      values: 2,
    });
    // A record schema that is not an array's cannot serve elements mode.
    expect(judge('[]', { mode: 'elements', schemaField: 's' }, { schema: { type: 'string' } }).status).toBe(
      'unsupported-schema',
    );
  });

  test('jsonl mode: strict needs every line; salvage keeps the valid ones (classifyResponse)', () => {
    const text = '{"n": 1}\n{"n": "x"}\n';
    const result = judge(text, { mode: 'jsonl' });
    expect(result.scores).toEqual({ strict: 'invalid', salvage: 'valid', coerce: 'valid' });
    expect(judge(text, { mode: 'jsonl', salvage: false })).toMatchObject({
      status: 'invalid',
      keyword: 'type',
      path: '/n',
    });
    expect(judge(text, { mode: 'jsonl', salvage: false }).message).toMatch(/^line 2: /);
    const all = judge('{"n": "1"}\n{"n": "x"}', { mode: 'jsonl' });
    expect(all).toMatchObject({ status: 'invalid', keyword: 'type', path: '/n' });
    expect(all.scores.coerce).toBe('coerced');
    expect(judge('{"n": 1}\n{"n": 2', { mode: 'jsonl' }).scores).toEqual({
      strict: 'truncated',
      salvage: 'truncated',
      coerce: 'truncated',
    });
  });

  test('salvage mode: any matching value in the text', () => {
    const result = judge('The answer is {"n": 3} as asked.', { mode: 'salvage' });
    expect(result.scores).toEqual({ strict: 'invalid', salvage: 'valid', coerce: 'valid' });
    expect(judge('The answer is {"n": "3"}.', { mode: 'salvage' }).scores).toEqual({
      strict: 'invalid',
      salvage: 'invalid',
      coerce: 'coerced',
    });
  });

  test('the run status follows the settings: strict with salvage false, coerce with coerce', () => {
    const text = 'Sure: {"n": "5"}';
    const base = judge(text);
    expect(base.scores).toEqual({ strict: 'invalid', salvage: 'invalid', coerce: 'coerced' });
    expect(judge(text, { salvage: false })).toMatchObject({ status: 'invalid' });
    expect(judge(text, { salvage: false }).keyword).toBeUndefined();
    expect(base).toMatchObject({ keyword: 'type', path: '/n' });
    expect(base.status).toBe('invalid');
    expect(judge(text, { coerce: true }).status).toBe('coerced');
  });

  test('an exception inside becomes invalid with its message, never a throw', () => {
    const hostile = { ...record('{"n": 5}') } as BatchRecord;
    Object.defineProperty(hostile, 'text', {
      get() {
        throw new Error('unreadable text');
      },
    });
    const result = judgeRecord(hostile, { mode: 'json', salvage: true });
    expect(result).toMatchObject({ status: 'invalid', index: 7 });
    expect(result.message).toContain('unreadable text');
  });

  test('excerpt: at most 200 characters, around the failure', () => {
    const text = `${'x'.repeat(300)} {"n": "5"} ${'y'.repeat(300)}`;
    const result = judge(text, { mode: 'salvage' });
    expect(result.status).toBe('invalid');
    expect(result.excerpt?.length).toBeLessThanOrEqual(200);
    expect(result.excerpt).toContain('{"n": "5"}');
  });

  test('jsonschemabench field only on request', () => {
    expect(judge('{"n": 5}').jsonschemabench).toBeUndefined();
    expect(judge('{"n": 5}', { statuses: 'jsonschemabench' }).jsonschemabench).toBe('MATCH');
    expect(judge('{"n": "5"}', { statuses: 'jsonschemabench' }).jsonschemabench).toBe('SEMANTIC_ERROR');
  });
});

describe('JSONSchemaBench codes', () => {
  const cases: [RecordStatus, string | undefined, string][] = [
    ['valid', undefined, 'MATCH'],
    ['salvaged', undefined, 'MATCH'],
    ['coerced', undefined, 'SEMANTIC_ERROR'],
    ['invalid', 'type', 'SEMANTIC_ERROR'],
    ['invalid', undefined, 'SYNTAX_ERROR'],
    ['truncated', undefined, 'SYNTAX_ERROR'],
    ['not-json', undefined, 'JSON_NOT_FOUND_ERROR'],
    ['empty', undefined, 'EMPTY_INPUT_OR_BAD_FORMAT'],
    ['provider-error', undefined, 'EMPTY_INPUT_OR_BAD_FORMAT'],
    ['unsupported-schema', undefined, 'UNSUPPORTED_SCHEMA'],
  ];
  test.each(cases)('%s (keyword %s) → %s', (status, keyword, code) => {
    expect(jsonSchemaBenchCode({ status, ...(keyword === undefined ? {} : { keyword }) })).toBe(code);
  });
});

describe('record schemas', () => {
  const TEXT = '{"a": 1, "b": "x"}';
  const schemaOf = (order: 'ab' | 'ba') =>
    order === 'ab'
      ? { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, required: ['a'] }
      : { required: ['a'], properties: { b: { type: 'string' }, a: { type: 'integer' } }, type: 'object' };

  test('same content, other key order or whitespace, object or JSON text: one id, one compilation', () => {
    const schemas = new RecordSchemas();
    const options: JudgeOptions = { mode: 'json', salvage: true, schemaField: 'schema' };
    const raws = [
      schemaOf('ab'),
      schemaOf('ba'),
      JSON.stringify(schemaOf('ba'), null, 2),
      `  ${JSON.stringify(schemaOf('ab'))}`,
    ];
    const results = raws.map((schema, i) => judgeRecord(record(TEXT, { index: i, schema }), options, schemas));
    expect(new Set(results.map((r) => r.schemaId)).size).toBe(1);
    expect(results.every((r) => r.status === 'valid')).toBe(true);
    expect(schemas.compilations).toBe(1);
  });

  test('three distinct schemas: three compilations, however many records', () => {
    const schemas = new RecordSchemas();
    const options: JudgeOptions = { mode: 'json', salvage: true, schemaField: 'schema' };
    const distinct = [N, LIST, { type: 'object' }];
    for (let i = 0; i < 30; i++)
      judgeRecord(record('{"n": 1}', { index: i, schema: distinct[i % 3] }), options, schemas);
    expect(schemas.compilations).toBe(3);
  });

  test('an uncompilable schema: unsupported-schema for every record that uses it, compiled once', () => {
    const schemas = new RecordSchemas();
    const options: JudgeOptions = { mode: 'json', salvage: true, schemaField: 'schema' };
    const bad = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    const results = [0, 1, 2, 3].map((i) =>
      judgeRecord(record('{"a": 1}', { index: i, schema: i % 2 === 0 ? bad : JSON.stringify(bad) }), options, schemas),
    );
    expect(results.map((r) => r.status)).toEqual(Array(4).fill('unsupported-schema'));
    expect(results[0]?.message).toContain('does not compile');
    expect(schemas.compilations).toBe(1);
  });

  test('every reason a schema cannot be used is a problem, never a throw', () => {
    const schemas = new RecordSchemas({ maxSchemaLength: 1000 });
    let deep: unknown = { type: 'object' };
    for (let i = 0; i < 400; i++) deep = { properties: { a: deep } };
    const problems = [
      { type: 'integr' },
      { $schema: 'https://example.com/no-such-dialect', type: 'object' },
      { $ref: 'https://example.com/remote.json' },
      { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
      { description: 'x'.repeat(2000) },
      deep,
      '{"type": ',
      42,
      ['not', 'a', 'schema'],
      null,
      '',
      'no.such.schema.v1',
      'not a name!',
    ];
    for (const raw of problems) {
      const found = schemas.lookup(raw);
      expect('problem' in found, JSON.stringify(raw)?.slice(0, 80)).toBe(true);
      expect(found.id).toMatch(/^[0-9a-f]{12}$/);
    }
  });

  test('dialects work as everywhere else: draft-04 and 2020-12', () => {
    const schemas = new RecordSchemas();
    const options: JudgeOptions = { mode: 'json', salvage: true, schemaField: 'schema' };
    const draft04 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'integer',
      maximum: 5,
      exclusiveMaximum: true,
    };
    expect(judgeRecord(record('4', { schema: draft04 }), options, schemas).status).toBe('valid');
    expect(judgeRecord(record('5', { schema: draft04 }), options, schemas)).toMatchObject({
      status: 'invalid',
      keyword: 'maximum',
    });
    const modern = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      prefixItems: [{ type: 'string' }],
      items: false,
    };
    expect(judgeRecord(record('["a"]', { schema: modern }), options, schemas).status).toBe('valid');
    expect(judgeRecord(record('["a", 1]', { schema: modern }), options, schemas).status).toBe('invalid');
  });

  test('a schema given by name resolves through the schema roots', () => {
    const root = mkdtempSync(join(tmpdir(), 'llmjson-judge-'));
    mkdirSync(join(root, 'bench', 'answer'), { recursive: true });
    writeFileSync(join(root, 'bench', 'answer', 'v1.schema.json'), JSON.stringify(N));
    const options: JudgeOptions = { mode: 'json', salvage: true, schemaField: 'schema', schemaRoots: [root] };
    const schemas = new RecordSchemas({ schemaRoots: [root] });
    const named = judgeRecord(record('{"n": 1}', { schema: 'bench.answer.v1' }), options, schemas);
    const inline = judgeRecord(record('{"n": 1}', { schema: N }), options, schemas);
    expect(named.status).toBe('valid');
    expect(named.schemaId).toBe(inline.schemaId);
    expect(schemas.compilations).toBe(1);
  });

  test('bounded: at most `limit` contents; an evicted one compiles again when it returns', () => {
    const schemas = new RecordSchemas({ limit: 2 });
    const a = { type: 'integer' };
    const b = { type: 'string' };
    const c = { type: 'boolean' };
    for (const s of [a, b, a, c, a]) schemas.lookup(s);
    // a stayed the most recent: only c's arrival evicted b.
    expect(schemas.compilations).toBe(3);
    expect(schemas.size).toBe(2);
    schemas.lookup(b);
    expect(schemas.compilations).toBe(4);
    // Many distinct contents, as written or as JSON texts: never more than the limit held.
    const many = new RecordSchemas({ limit: 10 });
    for (let i = 0; i < 200; i++) {
      many.lookup(i % 2 === 0 ? { maxLength: i } : JSON.stringify({ maxLength: i }));
      expect(many.size).toBeLessThanOrEqual(10);
    }
    expect(many.compilations).toBe(200);
  });
});
