/**
 * Options that take one value: given twice, the command used to keep the last one silently
 * (`--schema a.json --schema b.json` validated against b.json). It is a usage error (exit 2)
 * naming the option and both values, before anything is read; options that are documented as
 * repeatable (`--schema-root`) stay repeatable.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';

const server = ['--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];

describe('an option that takes one value, given twice: exit 2 naming it', () => {
  test.each([
    ['jsonl --schema', ['jsonl', '--schema', 'a.json', '--schema', 'b.json'], '--schema'],
    ['json --output-file', ['json', '--output-file', 'a.json', '--output-file', 'b.json'], '--output-file'],
    ['json --input', ['json', '--input', 'text', '--input', 'openai'], '--input'],
    ['elements --path', ['elements', '--path', '$.a', '--path', '$.b'], '--path'],
    ['jsonl --max-line-length', ['jsonl', '--max-line-length', '10', '--max-line-length', '20'], '--max-line-length'],
    ['partial --emit', ['partial', '--emit', 'snapshots', '--emit', 'changes'], '--emit'],
    ['batch --schema', ['batch', 'x.jsonl', '--schema', 'a.json', '--schema', 'b.json'], '--schema'],
    ['batch --out', ['batch', 'x.jsonl', '--out', 'a.jsonl', '--out', 'b.jsonl'], '--out'],
    ['batch --format', ['batch', 'x.jsonl', '--format', 'records', '--format', 'bfcl'], '--format'],
    ['batch --mode', ['batch', 'x.jsonl', '--mode', 'json', '--mode', 'jsonl'], '--mode'],
    ['batch --workers', ['batch', 'x.jsonl', '--workers', '1', '--workers', '2'], '--workers'],
    ['compile -o', ['compile', 's.json', '-o', 'a.js', '--output', 'b.js'], '--output'],
    ['tools --tools', ['tools', '--tools', 'a.json', '--tools', 'b.json'], '--tools'],
    ['run --prompts', ['run', '--prompts', 'a.json', '--prompts', 'b.json', '--id', 'x', ...server], '--prompts'],
    ['run --id', ['run', '--prompts', 'a.json', '--id', 'x', '--id', 'y', ...server], '--id'],
    ['run --vars', ['run', '--prompts', 'a.json', '--id', 'x', '--vars', 'a', '--vars', 'b', ...server], '--vars'],
  ])('%s', async (_name, argv, flag) => {
    // No stdin: it never ends, so a command that went on to read it would hang the test.
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(`${flag} was given twice (`);
    expect(r.err).toContain('give it once');
    expect(r.err).not.toContain('internal error');
  });

  test('--schema-root stays repeatable (highest precedence first)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-options-'));
    writeFileSync(join(dir, 'a.json'), '{"type": "object"}');
    const r = await runCli(['jsonl', '--schema-root', 'one', '--schema-root', 'two', '--schema', 'a.json'], {
      cwd: dir,
      stdin: ['{"n": 1}\n'],
    });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ n: 1 }]);
  });
});
