import { ConfigurationError, parseJsonl } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';
import { type Collected, decodeEverySplit } from '../../../test/support/collect.js';

/** Decodes `text` whole and at every chunk size 1..64; asserts they agree and returns the result. */
const decode = decodeEverySplit;

const brief = (r: Collected) => r.diagnostics.map((d) => [d.reason, d.line, d.endLine ?? d.line]);

describe('line framing', () => {
  test('LF, CRLF, and a CRLF split between chunks', () => {
    const r = decode('{"a":1}\r\n{"b":2}\n\r\n{"c":3}\r\n');
    expect(r.values).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
    expect(r.stats).toMatchObject({ lines: 4, values: 3, skippedLines: 1 });
    expect(r.records.map((x) => [x.line, x.offset])).toEqual([
      [1, 0],
      [2, 9],
      [4, 19],
    ]);
  });

  test('a lone carriage return is whitespace inside a line, not a line end', () => {
    expect(decode('{"a":\r1}\n').values).toEqual([{ a: 1 }]);
  });

  test('a byte-order mark at the start is dropped', () => {
    expect(decode('\uFEFF{"a":1}\n').values).toEqual([{ a: 1 }]);
  });

  test('blank and fence lines are skipped and counted; reportSkipped reports them', () => {
    const text = '```jsonl\n{"a":1}\n\n   \n```\n~~~\n  ```JSON  \n{"b":2}\n~~~\n';
    const r = decode(text);
    expect(r.values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(r.diagnostics).toEqual([]);
    expect(r.stats).toMatchObject({ lines: 9, skippedLines: 7, valueLines: 2 });
    const reported = decode(text, { reportSkipped: true });
    expect(reported.diagnostics.map((d) => d.reason)).toEqual([
      'fence',
      'blank',
      'blank',
      'fence',
      'fence',
      'fence',
      'fence',
    ]);
  });

  test('a fence marker followed by JSON is not a skipped fence line', () => {
    const r = decode('```json {"a": 1}\n');
    expect(r.values).toEqual([]);
    expect(brief(r)).toEqual([['prose', 1, 1]]);
  });
});

describe('diagnostics', () => {
  test('prose lines are reported with reason prose; values around them survive', () => {
    const r = decode('Here are the results:\n{"a":1}\nThat is all.\n{"b":2}');
    expect(r.values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(brief(r)).toEqual([
      ['prose', 1, 1],
      ['prose', 3, 3],
    ]);
    expect(r.diagnostics[0]).toMatchObject({ offset: 0, excerpt: 'Here are the results:' });
  });

  test('a syntax error names the line, the offset and the reason', () => {
    const r = decode('{"a":1}\n{"b": 2 "c": 3}\n');
    expect(r.diagnostics).toEqual([
      {
        reason: 'syntax',
        line: 2,
        offset: 8 + 8,
        column: 8,
        excerpt: '{"b": 2 "c": 3}',
        message: "unexpected '\"'; expected ',' or '}'",
      },
    ]);
  });

  test('a string that hits a raw line break breaks only its own line', () => {
    const r = decode('{"a": "cut\n{"b": 2}\n{"c": 3}\n');
    expect(r.values).toEqual([{ b: 2 }, { c: 3 }]);
    expect(brief(r)).toEqual([['syntax', 1, 1]]);
    expect(r.diagnostics[0]?.message).toMatch(/raw line break/);
    expect(r.diagnostics[0]?.column).toBe(10);
  });

  test('the unterminated last line: parsed when complete, truncated otherwise', () => {
    expect(decode('{"a":1}\n{"b":2}').values).toEqual([{ a: 1 }, { b: 2 }]);
    const r = decode('{"a":1}\n{"b":"trunc');
    expect(r.values).toEqual([{ a: 1 }]);
    expect(r.diagnostics).toMatchObject([
      { reason: 'truncated', line: 2, offset: 8, message: 'last line cut off: input ended inside a string' },
    ]);
    expect(brief(decode('{"a":1}\ntr'))).toEqual([['truncated', 2, 2]]);
    expect(brief(decode('{"a":1}\n{"b": [1, '))).toEqual([['truncated', 2, 2]]);
  });

  test('schema failures carry the branch and the validator errors', () => {
    const schema = {
      oneOf: [
        { type: 'object', properties: { type: { const: 'a' }, n: { type: 'integer' } }, required: ['type', 'n'] },
        { type: 'object', properties: { type: { const: 'b' } }, required: ['type'] },
      ],
    };
    const r = decode('{"type":"a","n":1}\n{"type":"a","n":"x"}\n{"type":"c"}\n{"type":"b"}\n', {
      schema,
      compileJsonSchema: compileSchema,
    });
    expect(r.values).toEqual([{ type: 'a', n: 1 }, { type: 'b' }]);
    expect(r.records.map((x) => x.branch)).toEqual(['a', 'b']);
    expect(r.diagnostics[0]).toMatchObject({
      reason: 'schema',
      line: 2,
      branch: 'a',
      message: 'branch "a": at /n: must be integer',
    });
    expect(r.diagnostics[0]?.errors?.[0]).toMatchObject({ path: '/n', keyword: 'type' });
    expect(r.diagnostics[1]).toMatchObject({
      reason: 'schema',
      line: 3,
      message: 'unknown discriminator "type": "c"; expected one of "a", "b"',
    });
  });

  test('nullValue: report drops a null line with a diagnostic; the default delivers it', () => {
    expect(decode('null\n1\n').values).toEqual([null, 1]);
    const r = decode('null\n1\n', { nullValue: 'report' });
    expect(r.values).toEqual([1]);
    expect(brief(r)).toEqual([['null-value', 1, 1]]);
  });
});

describe('recoveries', () => {
  test('a trailing comma after a value', () => {
    const r = decode('{"a":1},\n{"b":2} , \n');
    expect(r.values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(r.diagnostics).toMatchObject([
      { reason: 'recovered', line: 1, column: 7, message: 'trailing comma after the value removed' },
      { reason: 'recovered', line: 2, column: 8 },
    ]);
    expect(r.stats.valueLines).toBe(2);
  });

  test('a literal with a trailing comma is recovered like any value, also inside an array per line', () => {
    const r = decode('true,\nnull ,\n[\n  true,\n  false\n]\n');
    expect(r.values).toEqual([true, null, true, false]);
    expect(r.diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['recovered', 1],
      ['recovered', 2],
      ['recovered', 3],
      ['recovered', 6],
    ]);
    expect(brief(decode('true story,\n'))).toEqual([['prose', 1, 1]]);
  });

  test('an array written one element per line emits each element', () => {
    const r = decode('[\n{"a":1},\n{"b":2},\n{"c":3}\n]\n{"d":4}\n');
    expect(r.values).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }, { d: 4 }]);
    expect(brief(r)).toEqual([
      ['recovered', 1, 1],
      ['recovered', 5, 5],
    ]);
    expect(r.stats).toMatchObject({ lines: 6, valueLines: 4, reportedLines: 2 });
  });

  test('a fully pretty-printed array of objects emits each element as it closes', () => {
    const text = '[\n  {\n    "a": 1\n  },\n  {\n    "b": [\n      2\n    ]\n  }\n]\n';
    const r = decode(text);
    expect(r.values).toEqual([{ a: 1 }, { b: [2] }]);
    expect(r.records.map((x) => [x.line, x.endLine])).toEqual([
      [2, 4],
      [5, 9],
    ]);
  });

  test('a pretty-printed object in the middle of a JSONL answer', () => {
    const r = decode('{"a":1}\n{\n  "b": {\n    "c": [1, 2]\n  }\n}\n{"d":4}\n');
    expect(r.values).toEqual([{ a: 1 }, { b: { c: [1, 2] } }, { d: 4 }]);
    expect(brief(r)).toEqual([['recovered', 2, 6]]);
    expect(r.records[1]).toMatchObject({ line: 2, endLine: 6, offset: 8 });
  });

  test('an open value broken by a new value at its indentation: both are accounted for', () => {
    const r = decode('{"a": 1, "b":\n{"c": 3}\n');
    expect(r.values).toEqual([{ c: 3 }]);
    expect(brief(r)).toEqual([['syntax', 1, 1]]);
    expect(r.diagnostics[0]?.message).toBe('value opened at line 1 was not closed: line 2 starts a new value');
  });

  test('an open value followed by a line that cannot continue it', () => {
    const r = decode('{\n  "a": 1\nSorry, I ran out of space.\n{"b": 2}\n');
    expect(r.values).toEqual([{ b: 2 }]);
    expect(brief(r)).toEqual([
      ['syntax', 1, 2],
      ['prose', 3, 3],
    ]);
  });

  test('an open value at the end of input is truncated', () => {
    const r = decode('{"a":1}\n{\n  "b": 1,\n');
    expect(r.values).toEqual([{ a: 1 }]);
    expect(brief(r)).toEqual([['truncated', 2, 3]]);
  });

  test('an array per line cut off keeps its complete elements and reports the cut once', () => {
    const r = decode('[\n{"a":1},\n{"b":2},\n{"c":');
    expect(r.values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(brief(r)).toEqual([
      ['recovered', 1, 1],
      ['truncated', 4, 4],
    ]);
    expect(brief(decode('[\n{"a":1},\n'))).toEqual([
      ['recovered', 1, 1],
      ['truncated', 1, 1],
    ]);
  });

  test('strict mode turns every recovery off', () => {
    const text = '{"a":1},\n[\n{"b":2}\n]\n{\n"c": 3\n}\n';
    const r = decode(text, { strict: true });
    expect(r.values).toEqual([{ b: 2 }]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['syntax', 'syntax', 'syntax', 'syntax', 'syntax', 'syntax']);
    expect(r.stats).toMatchObject({ lines: 7, valueLines: 1, reportedLines: 6 });
  });
});

describe('bounded memory', () => {
  test('a line longer than maxLineLength is reported and discarded; the stream goes on', () => {
    const long = `{"a":"${'x'.repeat(100)}"}`;
    const r = decode(`{"b":1}\n${long}\n{"c":2}\n${long}`, { maxLineLength: 50 });
    expect(r.values).toEqual([{ b: 1 }, { c: 2 }]);
    expect(brief(r)).toEqual([
      ['too-long', 2, 2],
      ['too-long', 4, 4],
    ]);
    expect(r.diagnostics[0]).toMatchObject({
      offset: 8,
      message: expect.stringMatching(/maxLineLength \(50 characters\)/),
    });
    expect(r.diagnostics[1]?.offset).toBe(8 + long.length + 1 + 8);
    expect(r.stats.lines).toBe(4);
  });

  test('a multi-line value longer than maxLineLength is reported as too-long', () => {
    const r = decode(`{\n${'  "k": 1,\n'.repeat(10)}  "z": 0\n}\n{"ok":1}\n`, { maxLineLength: 40 });
    expect(r.values).toEqual([{ ok: 1 }]);
    expect(r.diagnostics[0]).toMatchObject({ reason: 'too-long', line: 1 });
  });

  test('invalid options are configuration errors', () => {
    expect(() => parseJsonl('', { maxLineLength: 0 })).toThrow(ConfigurationError);
    expect(() => parseJsonl('', { maxLineLength: 1.5 })).toThrow(/positive integer/);
    expect(() => parseJsonl('', { schema: { type: 'nope' }, compileJsonSchema: compileSchema })).toThrow(
      ConfigurationError,
    );
  });
});

describe('parseJsonl', () => {
  test('returns values, records, diagnostics and stats', () => {
    const r = parseJsonl('{"a":1}\nnope\n');
    expect(r.values).toEqual([{ a: 1 }]);
    expect(r.records).toEqual([{ value: { a: 1 }, line: 1, endLine: 1, offset: 0 }]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.stats).toMatchObject({ lines: 2, values: 1, diagnostics: { prose: 1 } });
  });
});
