import { classifyResponse } from '@llmjson/contracts';
import { ConfigurationError } from '@llmjson/core';
import { describe, expect, test } from 'vitest';

const schema = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
} as const;

const status = (text: string, options: Parameters<typeof classifyResponse>[1]) => {
  const r = classifyResponse(text, options);
  return [r.status, r.values.length];
};

describe('classifyResponse', () => {
  test('json: valid as it stands, salvaged from a fence or prose, truncated, invalid, empty', () => {
    expect(status('{"n": 1}', { mode: 'json', schema })).toEqual(['valid', 1]);
    expect(status('Sure:\n```json\n{"n": 1}\n```', { mode: 'json', schema })).toEqual(['salvaged', 1]);
    expect(status('Sure:\n```json\n{"n": 1}\n```', { mode: 'json', schema, salvage: false })).toEqual(['invalid', 0]);
    expect(status('{"n": "one"}', { mode: 'json', schema })).toEqual(['invalid', 0]);
    expect(status('{"n": 1, "more": [1, 2', { mode: 'json', schema })).toEqual(['truncated', 0]);
    expect(status('[{"n": 1}, {"n": 2}, {"n"', { mode: 'json' })).toEqual(['truncated', 2]);
    expect(status('{"n": 1}', { mode: 'json', schema, finishReason: 'length' })).toEqual(['truncated', 0]);
    expect(status('I cannot help.', { mode: 'json', schema })).toEqual(['invalid', 0]);
    expect(status('  \n', { mode: 'json', schema })).toEqual(['empty', 0]);
  });

  test('jsonl: dropped lines still valid; a cut last line is truncated; salvage when no line is valid', () => {
    expect(status('{"n": 1}\nnope\n{"n": 2}\n', { mode: 'jsonl', schema })).toEqual(['valid', 2]);
    expect(classifyResponse('{"n": 1}\nnope\n', { mode: 'jsonl', schema }).diagnostics.map((d) => d.reason)).toEqual([
      'prose',
    ]);
    expect(status('{"n": 1}\n{"n": ', { mode: 'jsonl', schema })).toEqual(['truncated', 1]);
    expect(status('Results: `{"n": 3}` and `{"n": 4}`.', { mode: 'jsonl', schema })).toEqual(['salvaged', 2]);
    expect(status('nothing', { mode: 'jsonl', schema })).toEqual(['invalid', 0]);
  });

  test('elements (the document schema, each element checked against its items) and salvage modes', () => {
    const array = { type: 'array', items: schema } as const;
    expect(status('[{"n": 1}, {"n": 2}]', { mode: 'elements', schema: array })).toEqual(['valid', 2]);
    expect(status('[{"n": 1}, {"n": 2}, {"n":', { mode: 'elements', schema: array })).toEqual(['truncated', 2]);
    expect(status('[{"n": 1}, {"n": "x"}]', { mode: 'elements', schema: array })).toEqual(['invalid', 1]);
    expect(status('Here: `{"n": 1}`', { mode: 'elements', schema: array })).toEqual(['invalid', 0]);
    expect(status('text {"n": 5} text', { mode: 'salvage', schema })).toEqual(['valid', 1]);
    expect(status('text {"n": 5', { mode: 'salvage', schema })).toEqual(['truncated', 0]);
  });
});

describe('classifyResponse: recoveries and deep nesting', () => {
  test('fenced-object-with-trailing-comma is salvaged as the object, with its recovered note', () => {
    const text = 'Here you go:\n```json\n{"title": "x", "tags": ["a", "b"],\n}\n```\n';
    const r = classifyResponse(text, { mode: 'json' });
    expect(r.status).toBe('salvaged');
    expect(r.values).toEqual([{ title: 'x', tags: ['a', 'b'] }]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['recovered']);
  });

  test('a 10,000-deep answer under a recursive schema is never usable and never throws, in every mode', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } } as const;
    const list = { type: 'array', items: { $ref: '#' } } as const;
    const deepTree = `${'{"children":['.repeat(10_000)}{}${']}'.repeat(10_000)}`;
    const deepList = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const [mode, schema, text] of [
      ['json', tree, deepTree],
      ['json', list, deepList],
      ['jsonl', tree, deepTree],
      ['elements', list, deepList],
      ['salvage', tree, deepTree],
    ] as const) {
      const r = classifyResponse(text, { mode, schema });
      expect(r.values, mode).toEqual([]);
      expect(r.status, mode).toBe('invalid');
    }
  });

  test('a mode named after an Object.prototype member, or any other unknown mode, is a configuration error', () => {
    for (const mode of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'JSON', '']) {
      for (const text of ['{"n": 1}', '']) {
        expect(() => classifyResponse(text, { mode: mode as never, schema })).toThrow(ConfigurationError);
        expect(() => classifyResponse(text, { mode: mode as never, schema })).toThrow(
          'mode must be "json", "jsonl", "elements" or "salvage"',
        );
      }
    }
  });
});
