import { classifyResponse } from '@llmjson/contracts';
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
