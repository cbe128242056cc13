/**
 * Regression tests for the JSONL decoder's guards: closed deep nesting, recursive schemas
 * with deep values, exceptions from the consumer, and classic Mac OS line breaks. Each runs
 * whole and at every chunk size 1..64.
 */
import { createJsonlDecoder, parseJsonl } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';
import { decodeEverySplit } from '../../../test/support/collect.js';

const decode = decodeEverySplit;

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

/** A value `depth` levels deep, built without recursion. */
function deepValue(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const TREE = {
  type: 'object',
  properties: { children: { type: 'array', items: { $ref: '#' } } },
} as const;

describe('closed deep nesting', () => {
  test('a 3 000-deep line is too-deep at the bracket past maxDepth; the next line is delivered', () => {
    const r = decode(`${nested(3000)}\n{"ok":1}\n`, {}, 16);
    expect(r.values).toEqual([{ ok: 1 }]);
    expect(r.diagnostics).toEqual([expect.objectContaining({ reason: 'too-deep', line: 1, offset: 512, column: 512 })]);
    expect(r.diagnostics[0]?.message).toMatch(/maxDepth \(512 levels\)/);
    expect(r.stats).toMatchObject({ lines: 2, values: 1, reportedLines: 1, diagnostics: { 'too-deep': 1 } });
  });

  test('maxDepth is configurable: exactly maxDepth levels pass, one more does not', () => {
    const r = decode(`${nested(3)}\n${nested(4)}\n{"a":{"b":{"c":1}}}\n{"a":{"b":{"c":{}}}}\n`, { maxDepth: 3 });
    expect(r.values).toEqual([deepValue(3), { a: { b: { c: 1 } } }]);
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.column])).toEqual([
      ['too-deep', 2, 3],
      ['too-deep', 4, 15],
    ]);
  });

  test('the guard also covers recovered values: a trailing comma and a value spread over lines', () => {
    const r = decode(`${nested(5)},\n{\n"a": ${nested(4)}\n}\n{"ok":true}\n`, { maxDepth: 4 });
    expect(r.values).toEqual([{ ok: true }]);
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.endLine ?? d.line, d.column])).toEqual([
      ['recovered', 1, 1, 11],
      ['too-deep', 1, 1, 4],
      ['recovered', 2, 4, 0],
      ['too-deep', 2, 4, 0],
    ]);
  });

  test('a line of a million unclosed brackets is reported, not recursed on', () => {
    const r = parseJsonl(`${'['.repeat(1_000_000)}\n{"ok":1}\n`);
    expect(r.values).toEqual([{ ok: 1 }]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['syntax']);
  });

  test('maxDepth must be a positive integer', () => {
    expect(() => parseJsonl('', { maxDepth: 0 })).toThrow(/maxDepth must be a positive integer/);
    expect(() => parseJsonl('', { maxDepth: 1.5 })).toThrow(/maxDepth/);
  });
});

describe('a recursive schema and a deep value', () => {
  test('the depth guard applies before validation: a 10 000-deep tree is too-deep, the rest validates', () => {
    let tree = '{}';
    for (let i = 0; i < 10_000; i++) tree = `{"children":[${tree}]}`;
    const text = `{"children":[{"children":[]}]}\n${tree}\n{"children":[]}\n{"children":[1]}\n`;
    const r = parseJsonl(text, { schema: TREE, compileJsonSchema: compileSchema });
    expect(r.values).toEqual([{ children: [{ children: [] }] }, { children: [] }]);
    expect(r.diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['too-deep', 2],
      ['schema', 4],
    ]);
  });

  test('with the guard raised past what the stack holds, validation still reports instead of throwing', () => {
    let tree = '{}';
    for (let i = 0; i < 20_000; i++) tree = `{"children":[${tree}]}`;
    const r = parseJsonl(`${tree}\n{"children":[]}\n`, {
      schema: TREE,
      compileJsonSchema: compileSchema,
      maxDepth: 1_000_000,
    });
    expect(r.values).toEqual([{ children: [] }]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ reason: 'schema', line: 1 });
  });
});

describe('exceptions from the consumer', () => {
  const lines = ['{"a":1}', '[1,2]', '"text"', '42', 'true', '{"a":1},', '[1],', '[\n1,\n2\n]', '{\n"a": 1\n}'];
  for (const line of lines) {
    test(`a value callback that throws on ${JSON.stringify(line)} propagates and is not the model's fault`, () => {
      const diagnostics: unknown[] = [];
      const decoder = createJsonlDecoder(
        {},
        {
          value() {
            throw new Error('consumer failed');
          },
          diagnostic(d) {
            diagnostics.push(d);
          },
        },
      );
      expect(() => decoder.write(`${line}\n`)).toThrow('consumer failed');
      expect(diagnostics.filter((d) => (d as { reason: string }).reason !== 'recovered')).toEqual([]);
      expect(decoder.stats.diagnostics.syntax).toBeUndefined();
      expect(decoder.stats.reportedLines + decoder.stats.valueLines).toBeLessThanOrEqual(decoder.stats.lines);
    });
  }
});

describe('classic Mac OS line breaks (lone carriage returns)', () => {
  test('CR-only JSONL is framed line by line and reported once as recovered', () => {
    const r = decode('{"a":1}\r{"b":2}\r\r[3]\r');
    expect(r.values).toEqual([{ a: 1 }, { b: 2 }, [3]]);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ reason: 'recovered', line: 1, offset: 7, column: 7, excerpt: '{"a":1}' }),
    ]);
    expect(r.diagnostics[0]?.message).toMatch(/lone carriage return/);
    expect(r.stats).toMatchObject({ lines: 4, values: 3, skippedLines: 1 });
  });

  test('prose and a fence before the first object: lines are counted from the start', () => {
    const r = decode('Here you go:\r```json\r{"a":1}\r{"b":\r2}\r```\r');
    expect(r.values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.endLine ?? d.line])).toEqual([
      ['recovered', 3, 3],
      ['prose', 1, 1],
      ['recovered', 4, 5],
    ]);
    expect(r.stats).toMatchObject({ lines: 6, values: 2, skippedLines: 2 });
  });

  test('a lone CR inside a value is still whitespace when lines end with LF or CRLF', () => {
    expect(decode('{"a":\r1}\n{"b":\r[2]}\r\n').values).toEqual([{ a: 1 }, { b: [2] }]);
    expect(decode('{"a":\r1}\r\n').diagnostics).toEqual([]);
  });

  test('strict mode does not recover CR line breaks', () => {
    const r = decode('{"a":1}\r{"b":2}\r', { strict: true });
    expect(r.values).toEqual([]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['syntax']);
  });
});
