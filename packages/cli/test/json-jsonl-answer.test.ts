/**
 * json mode on a JSONL answer (one JSON value per line, fenced or not): it prints the one
 * document it reads, as before, with the same exit code, and one `jsonl-answer` diagnostic says
 * that the other lines were not printed and that `llmjson jsonl` reads them. Answers that are
 * not JSONL (one value, two separate fences, a value in prose and one in inline code) say nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { runCli } from '../../../test/support/cli.js';

const FENCED_JSONL = '```json\n{"a":1}\n{"a":2}\n```\n';
const NOTE =
  /^llmjson json: line 3, column 1, offset 16: jsonl-answer: the answer holds 2 JSON values, one per line \(JSONL\); json mode reads one document and printed only the first: run `llmjson jsonl` to read every line$/;

const stderrLines = (err: string) => err.split('\n').filter((line) => line !== '');

describe('llmjson json on a JSONL answer', () => {
  test.each([1, 7, FENCED_JSONL.length])(
    'a fence holding two JSON lines: the first printed, the second said (chunks of %i)',
    async (size) => {
      const r = await runCli(['json'], { stdin: chunkText(FENCED_JSONL, size) });
      expect(r.code).toBe(0);
      expect(r.lines).toEqual([{ a: 1 }]);
      expect(stderrLines(r.err)).toEqual([expect.stringMatching(NOTE)]);
    },
  );

  test('JSON lines without a fence, three of them', async () => {
    const r = await runCli(['json'], { stdin: ['{"a":1}\n{"a":2}\n\n{"a":3}\n'] });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ a: 1 }]);
    expect(r.err).toMatch(/jsonl-answer: the answer holds 3 JSON values, one per line \(JSONL\)/);
  });

  test('with a schema the first line fails: the one printed is named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-jsonl-answer-'));
    const schema = join(dir, 'a.schema.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }));
    const r = await runCli(['json', '--schema', schema], { stdin: ['```json\n{"a":1}\n{"a":"two"}\n```\n'] });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ a: 'two' }]);
    expect(stderrLines(r.err)).toEqual([
      expect.stringMatching(/offset 8: jsonl-answer: .* printed only the second: run `llmjson jsonl`/),
    ]);
  });

  test('--diagnostics json: one object with the reason; --diagnostics none: nothing', async () => {
    const json = await runCli(['json', '--diagnostics', 'json'], { stdin: [FENCED_JSONL] });
    expect(json.code).toBe(0);
    expect(stderrLines(json.err).map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ source: 'llmjson json', reason: 'jsonl-answer', offset: 16, line: 3 }),
    ]);
    const none = await runCli(['json', '--diagnostics', 'none'], { stdin: [FENCED_JSONL] });
    expect(none.code).toBe(0);
    expect(none.err).toBe('');
  });

  test.each([
    ['one fenced document', '```json\n{"a":1}\n```\n', { a: 1 }],
    ['two separate fences', '```json\n{"a":1}\n```\n\n```json\n{"a":2}\n```\n', { a: 1 }],
    ['a value in prose and one in inline code (inline code preferred)', 'Here {"a":1} and also `{"a":2}`.\n', { a: 2 }],
    ['two values on one line of prose', 'First {"a":1} then {"a":2}\n', { a: 1 }],
    ['the whole answer one document', '{"a":1}\n', { a: 1 }],
  ])('%s: nothing said', async (_name, answer, printed) => {
    const r = await runCli(['json'], { stdin: [answer] });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([printed]);
    expect(r.err).toBe('');
  });
});
