import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canonicalJson,
  createEnvelope,
  isTruncated,
  parseJsonlResponse,
  parseJsonResponse,
  writeOutputFile,
} from '@llmjson/contracts';
import { describe, expect, test } from 'vitest';

const sectioning = {
  type: 'object',
  properties: {
    sections: {
      type: 'array',
      items: {
        type: 'object',
        properties: { title: { type: 'string' }, start_line: { type: 'integer' } },
        required: ['title', 'start_line'],
      },
    },
  },
  required: ['sections'],
} as const;

describe('parseJsonResponse', () => {
  test('by default a fence or prose around the document is tolerated', () => {
    const doc = { sections: [{ title: 'A', start_line: 1 }] };
    for (const text of [
      JSON.stringify(doc),
      `\`\`\`json\n${JSON.stringify(doc, null, 2)}\n\`\`\``,
      `Sure! Here it is: ${JSON.stringify(doc)} Hope this helps.`,
    ]) {
      expect(parseJsonResponse(text, { schema: sectioning })).toMatchObject({ status: 'succeeded', json: doc });
    }
    expect(parseJsonResponse('```json\n{"sections": []}\n```', { schema: sectioning }).status).toBe('succeeded');
  });

  test('salvage is directed by the schema: the first candidate that matches wins', () => {
    const text =
      'An example: {"sections": "none"}. The answer:\n```json\n{"sections": [{"title": "A", "start_line": 1}]}\n```';
    expect(parseJsonResponse(text, { schema: sectioning })).toMatchObject({
      status: 'succeeded',
      json: { sections: [{ title: 'A', start_line: 1 }] },
      source: 'fence',
    });
  });

  test("tolerate: 'none' requires the whole text to be the document", () => {
    expect(parseJsonResponse(' {"sections": []} \n', { schema: sectioning, tolerate: 'none' }).status).toBe(
      'succeeded',
    );
    const fenced = parseJsonResponse('```json\n{"sections": []}\n```', { schema: sectioning, tolerate: 'none' });
    expect(fenced).toMatchObject({ status: 'failed', reason: 'CONTRACT_VALIDATION_FAILED', detail: 'NOT_JSON' });
  });

  test('NOT_JSON: nothing to read', () => {
    for (const text of ['', 'I cannot help with that.', '{"sections": [']) {
      const outcome = parseJsonResponse(text, { schema: sectioning });
      expect(outcome).toMatchObject({ status: 'failed', reason: 'CONTRACT_VALIDATION_FAILED', detail: 'NOT_JSON' });
    }
    expect(parseJsonResponse('', {})).toMatchObject({ message: 'the answer is empty' });
  });

  test('SCHEMA_MISMATCH: the validator errors with JSON-pointer paths and a one-line message', () => {
    const outcome = parseJsonResponse('{"sections": [{"title": "A", "start_line": "one"}]}', { schema: sectioning });
    expect(outcome).toMatchObject({
      status: 'failed',
      reason: 'CONTRACT_VALIDATION_FAILED',
      detail: 'SCHEMA_MISMATCH',
      message: 'at /sections/0/start_line: must be integer',
    });
    expect(outcome.status === 'failed' && outcome.errors.map((e) => e.path)).toEqual(['/sections/0/start_line']);
  });

  test('an answer cut off at the token limit is incomplete, never repaired — even when it parses', () => {
    for (const finishReason of ['length', 'max_tokens', 'MAX_TOKENS', 'max_output_tokens', 'LENGTH']) {
      expect(isTruncated(finishReason)).toBe(true);
      expect(
        parseJsonResponse('{"sections": [{"title": "A", "start', { schema: sectioning, finishReason }),
      ).toMatchObject({ status: 'incomplete', reason: 'INCOMPLETE', finishReason });
      expect(parseJsonResponse('{"sections": []}', { schema: sectioning, finishReason }).status).toBe('incomplete');
    }
    for (const finishReason of ['stop', 'end_turn', 'tool_calls', undefined]) {
      expect(parseJsonResponse('{"sections": []}', { schema: sectioning, finishReason }).status).toBe('succeeded');
    }
  });
});

describe('parseJsonlResponse', () => {
  const schema = { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } as const;

  test('invalid lines are dropped and reported; the rest is the result', () => {
    const outcome = parseJsonlResponse('{"n": 1}\n{"n": "x"}\nnot json\n{"n": 2}\n', { schema });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.json).toEqual([{ n: 1 }, { n: 2 }]);
    expect(outcome.diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['schema', 2],
      ['prose', 3],
    ]);
    expect(outcome.warnings).toEqual([]);
  });

  test('no valid object: [] with a warning, still a success', () => {
    expect(parseJsonlResponse('nothing here', { schema })).toMatchObject({
      status: 'succeeded',
      json: [],
      warnings: ['no valid objects in the answer'],
    });
  });

  test('cut off at the token limit: incomplete, with every complete line', () => {
    const outcome = parseJsonlResponse('{"n": 1}\n{"n": 2}\n{"n": ', { schema, finishReason: 'length' });
    expect(outcome).toMatchObject({ status: 'incomplete', json: [{ n: 1 }, { n: 2 }], finishReason: 'length' });
    expect(outcome.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
  });
});

describe('envelope', () => {
  test('canonical JSON is RFC 8785: sorted keys by UTF-16 code units, no whitespace, ECMAScript numbers', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], ä: 0 })).toBe('{"a":[true,null,"x"],"b":1,"ä":0}');
    expect(canonicalJson({ n: [1.0, -0, 1e21, 1e-7, 0.1 + 0.2, 100] })).toBe(
      '{"n":[1,0,1e+21,1e-7,0.30000000000000004,100]}',
    );
    // RFC 8785 §3.2.3: keys sorted by UTF-16 code units (U+10000 sorts before U+FB33).
    expect(canonicalJson({ '\ufb33': 1, '\u{10000}': 2, '\u00e9': 3 })).toBe('{"\u00e9":3,"\u{10000}":2,"\ufb33":1}');
    expect(canonicalJson({ s: '\u2028\u001f"\\/' })).toBe('{"s":"\u2028\\u001f\\"\\\\/"}');
  });

  test('JSON prompt: json, schema_ref, and text = canonical JSON of json', () => {
    const envelope = createEnvelope({
      responseType: 'json',
      status: 'succeeded',
      json: { z: 1, a: { y: 2, b: 3 } },
      schemaRef: 'tnh.sectioning.default_section.v1',
      text: '```json\n{"z": 1, "a": {"y": 2, "b": 3}}\n```',
      model: 'm',
      provider: 'p',
      usage: { input_tokens: 3, output_tokens: 5 },
      finishReason: 'stop',
    });
    expect(envelope).toEqual({
      status: 'succeeded',
      result: {
        json: { z: 1, a: { y: 2, b: 3 } },
        schema_ref: 'tnh.sectioning.default_section.v1',
        text: '{"a":{"b":3,"y":2},"z":1}',
        model: 'm',
        provider: 'p',
        usage: { input_tokens: 3, output_tokens: 5 },
        finish_reason: 'stop',
      },
    });
  });

  test('text prompt: no json, no schema_ref; failure: error and the raw text', () => {
    expect(createEnvelope({ responseType: 'text', status: 'succeeded', text: 'hi', schemaRef: 'x.v1' })).toEqual({
      status: 'succeeded',
      result: { text: 'hi' },
    });
    const failed = createEnvelope({
      responseType: 'json',
      status: 'failed',
      json: { ignored: true },
      text: 'oops',
      error: { reason: 'CONTRACT_VALIDATION_FAILED', detail: 'NOT_JSON', message: 'no JSON' },
    });
    expect(failed).toEqual({
      status: 'failed',
      result: { text: 'oops' },
      error: { reason: 'CONTRACT_VALIDATION_FAILED', detail: 'NOT_JSON', message: 'no JSON' },
    });
  });

  test('an output file is written only on success, with exactly the canonical JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-out-'));
    const ok = createEnvelope({ responseType: 'json', status: 'succeeded', json: { b: [1], a: 'x' }, text: '' });
    expect(writeOutputFile(ok, join(dir, 'ok.json'))).toBe(true);
    expect(readFileSync(join(dir, 'ok.json'), 'utf8')).toBe('{"a":"x","b":[1]}');
    const cut = createEnvelope({ responseType: 'json', status: 'incomplete', text: '{"a": ' });
    expect(writeOutputFile(cut, join(dir, 'cut.json'))).toBe(false);
    expect(existsSync(join(dir, 'cut.json'))).toBe(false);
  });
});

describe('parseJsonResponse: recoveries and the depth guard', () => {
  /** The answer of the bug report: a fenced object whose last member is followed by `,\n`. */
  const fencedTrailingComma = 'Here you go:\n```json\n{"title": "x", "tags": ["a", "b"],\n}\n```\n';
  const recipe = {
    type: 'object',
    properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['title'],
  } as const;

  test('fenced-object-with-trailing-comma: the object, recovered and reported, never its inner array', () => {
    for (const options of [{}, { schema: recipe }]) {
      const outcome = parseJsonResponse(fencedTrailingComma, options);
      expect(outcome).toMatchObject({
        status: 'succeeded',
        json: { title: 'x', tags: ['a', 'b'] },
        source: 'fence',
        recovered: true,
      });
      expect(outcome.status === 'succeeded' && outcome.diagnostics?.map((d) => [d.reason, d.offset])).toEqual([
        ['recovered', fencedTrailingComma.indexOf('],') + 1],
      ]);
    }
  });

  test("fenced-object-with-trailing-comma: tolerate: 'none' reads the text exactly as JSON.parse does", () => {
    expect(parseJsonResponse(fencedTrailingComma, { tolerate: 'none' })).toMatchObject({
      status: 'failed',
      detail: 'NOT_JSON',
    });
    expect(parseJsonResponse('{"title": "x",}', { tolerate: 'none' })).toMatchObject({ detail: 'NOT_JSON' });
  });

  test('a trailing comma in the whole text, inside or after the document, is recovered too', () => {
    expect(parseJsonResponse('{"title": "x", "tags": ["a",],}', { schema: recipe })).toMatchObject({
      status: 'succeeded',
      json: { title: 'x', tags: ['a'] },
      source: 'document',
      recovered: true,
    });
    expect(parseJsonResponse('{"title": "x"},\n', { schema: recipe })).toMatchObject({
      status: 'succeeded',
      source: 'document',
      recovered: true,
    });
    // A document as written carries no recovery fields.
    expect(parseJsonResponse('{"title": "x"}', { schema: recipe })).toEqual({
      status: 'succeeded',
      json: { title: 'x' },
      source: 'document',
    });
  });

  const tree = {
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
  } as const;
  const list = { type: 'array', items: { $ref: '#' } } as const;
  const deepTree = (depth: number) => `${'{"children":['.repeat(depth)}{}${']}'.repeat(depth)}`;
  const deepList = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  test('a document nested deeper than maxDepth is NOT_JSON naming the limit, before validation, never a throw', () => {
    for (const [schema, text] of [
      [tree, deepTree(10_000)],
      [list, deepList(10_000)],
      [tree, `Sure:\n\`\`\`json\n${deepTree(10_000)}\n\`\`\``],
      [undefined, deepList(3000)],
    ] as const) {
      for (const tolerate of ['fence-and-prose', 'none'] as const) {
        const outcome = parseJsonResponse(text, { schema, tolerate });
        if (tolerate === 'none' && text.startsWith('Sure')) {
          expect(outcome).toMatchObject({ status: 'failed', detail: 'NOT_JSON' });
          continue;
        }
        expect(outcome).toMatchObject({
          status: 'failed',
          reason: 'CONTRACT_VALIDATION_FAILED',
          detail: 'NOT_JSON',
          message: expect.stringContaining('deeper than maxDepth (512 levels)'),
        });
      }
    }
  });

  test('maxDepth levels are accepted; the option moves the limit', () => {
    expect(parseJsonResponse(deepTree(255), { schema: tree }).status).toBe('succeeded');
    expect(parseJsonResponse(deepList(512), { schema: list }).status).toBe('succeeded');
    expect(parseJsonResponse(deepList(513), { schema: list }).status).toBe('failed');
    expect(parseJsonResponse(deepList(3), { maxDepth: 2 })).toMatchObject({ detail: 'NOT_JSON' });
    expect(parseJsonResponse(deepList(3), { maxDepth: 2, tolerate: 'none' })).toMatchObject({ detail: 'NOT_JSON' });
  });

  test('a validator that fails on a value (here: maxDepth raised past its stack) fails that value only', () => {
    const text = `Example: ${deepTree(20_000)}\nAnswer: {"name": "leaf"}`;
    expect(() => parseJsonResponse(text, { schema: tree, maxDepth: 100_000 })).not.toThrow();
    expect(parseJsonResponse(text, { schema: tree, maxDepth: 100_000 })).toMatchObject({
      status: 'succeeded',
      json: { name: 'leaf' },
    });
    expect(parseJsonResponse(deepTree(20_000), { schema: tree, maxDepth: 100_000, tolerate: 'none' })).toMatchObject({
      status: 'failed',
      detail: 'SCHEMA_MISMATCH',
    });
  });
});
