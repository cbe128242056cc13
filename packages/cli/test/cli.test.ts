import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProviderFormat } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { runCli } from '../../../test/support/cli.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONTRACTS = join(ROOT, 'fixtures/contracts');
const SCHEMA_ROOT = join(CONTRACTS, 'schemas/prompt-contracts');

/** Runs the command in-process with the input fed in small chunks. */
const cli = (argv: string[], input = '', options: { cwd?: string; chunk?: number } = {}) =>
  runCli(argv, {
    stdin: chunkText(input, options.chunk ?? 5),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });

const answer = (name: string) => readFileSync(join(CONTRACTS, 'answers', `${name}.txt`), 'utf8');

describe('modes', () => {
  test('jsonl: each valid object on its own line; dropped lines on stderr with line, offset, reason; still exit 0', async () => {
    const r = await cli(
      ['jsonl', '--schema-ref', 'trustgraph.agent_kg_extract.v1', '--schema-root', SCHEMA_ROOT],
      answer('agent-kg-extract'),
    );
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(3);
    expect(r.err).toContain('llmjson jsonl: line 5, column 1, offset ');
    expect(r.err).toContain(': schema: branch "relationship": at /object: must be string');
    expect(r.err.match(/^llmjson jsonl: /gm)).toHaveLength(4);
  });

  test('--diagnostics json: one JSON object per diagnostic; none: silent', async () => {
    const input = '{"a": 1}\nnot json\n';
    const json = await cli(['jsonl', '--diagnostics', 'json'], input);
    expect(
      json.err
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([expect.objectContaining({ source: 'llmjson jsonl', reason: 'prose', line: 2, offset: 9 })]);
    expect((await cli(['jsonl', '--diagnostics', 'none'], input)).err).toBe('');
  });

  test('--strict: any dropped line is exit 4; --require N: fewer valid objects is exit 4', async () => {
    const input = '{"a": 1}\nnot json\n{"a": 2}\n';
    expect((await cli(['jsonl'], input)).code).toBe(0);
    const strict = await cli(['jsonl', '--strict'], input);
    expect(strict.code).toBe(4);
    expect(strict.err).toContain('llmjson: CONTRACT_VALIDATION_FAILED: --strict: 1 line or value was dropped');
    expect((await cli(['jsonl', '--require', '2'], input)).code).toBe(0);
    const required = await cli(['jsonl', '--require', '3'], input);
    expect(required.code).toBe(4);
    expect(required.err).toContain('llmjson: CONTRACT_VALIDATION_FAILED: --require 3: only 2 valid values');
  });

  test('json: the document once valid (fence and prose tolerated); no JSON or a mismatch is exit 4 with one line', async () => {
    const args = ['json', '--schema-ref', 'tnh.sectioning.default_section.v1', '--schema-root', SCHEMA_ROOT];
    const ok = await cli(args, `Here you go:\n\`\`\`json\n${answer('section-text')}\`\`\`\n`);
    expect(ok.code).toBe(0);
    expect(ok.lines).toEqual([JSON.parse(answer('section-text'))]);
    const mismatch = await cli(args, answer('section-text-mismatch'));
    expect(mismatch).toMatchObject({ code: 4, out: '' });
    expect(mismatch.err).toBe('llmjson: SCHEMA_MISMATCH: at /sections/0/start_line: must be integer\n');
    const none = await cli(args, 'I cannot do that.');
    expect(none.code).toBe(4);
    expect(none.err).toMatch(/^llmjson: NOT_JSON: /);
    expect((await cli([...args, '--tolerate', 'none'], `\`\`\`json\n${answer('section-text')}\`\`\``)).code).toBe(4);
  });

  test('elements: each element of the array at --path; a cut array yields its complete elements', async () => {
    const doc = JSON.stringify({ title: 't', items: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    const r = await cli(['elements', '--path', '$.items'], doc);
    expect(r.lines).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const cut = await cli(['elements', '--path', '$.items', '--require', '1'], doc.slice(0, doc.indexOf('{"n":3') + 4));
    expect(cut.lines).toEqual([{ n: 1 }, { n: 2 }]);
    expect(cut.code).toBe(0);
    expect(cut.err).toContain('truncated');
  });

  test('salvage: every value hidden in prose; partial: the value growing', async () => {
    const s = await cli(['salvage'], 'First {"a": 1} then ```json\n[2]\n``` and `{"b": 3}`.');
    expect(s.lines).toEqual([{ a: 1 }, [2], { b: 3 }]);
    const p = await cli(['partial', '--emit', 'snapshots'], '{"title": "Hello world", "n": [1, 2]}', { chunk: 6 });
    expect(p.lines.at(-1)).toEqual({ title: 'Hello world', n: [1, 2] });
    expect(p.lines.length).toBeGreaterThan(3);
    expect(p.code).toBe(0);
    const cut = await cli(['partial'], '{"title": "Hel');
    expect(cut.code).toBe(4);
    // The default: the changes since the previous line.
    const changes = await cli(['partial'], '{"a": "xy"}', { chunk: 3 });
    expect(changes.lines.flat()).toContainEqual({ op: 'complete', path: [] });
    expect((await cli(['partial', '--emit', 'changes'], '{"a": "xy"}', { chunk: 3 })).out).toBe(changes.out);
  });

  test('--api prints the envelope; --output-file writes canonical JSON only on success', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-cli-'));
    const args = ['json', '--schema-ref', 'tnh.sectioning.default_section.v1', '--schema-root', SCHEMA_ROOT, '--api'];
    const ok = await cli([...args, '--output-file', join(dir, 'ok.json')], answer('section-text'));
    expect(ok.code).toBe(0);
    expect(ok.lines).toEqual([
      {
        status: 'succeeded',
        result: {
          json: JSON.parse(answer('section-text')),
          schema_ref: 'tnh.sectioning.default_section.v1',
          text: readFileSync(join(dir, 'ok.json'), 'utf8'),
        },
      },
    ]);
    expect(readFileSync(join(dir, 'ok.json'), 'utf8')).toMatch(
      /^\{"document_title":"On the Heart Sutra","sections":\[\{"end_line":12,/,
    );
    const bad = await cli([...args, '--output-file', join(dir, 'bad.json')], answer('section-text-mismatch'));
    expect(bad.code).toBe(4);
    expect(bad.lines).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.objectContaining({ detail: 'SCHEMA_MISMATCH' }) }),
    ]);
    expect(existsSync(join(dir, 'bad.json'))).toBe(false);
  });
});

describe('input', () => {
  test('"-" and no file both read stdin; a file argument reads the file', async () => {
    const input = '{"a": 1}\n{"a": 2}\n';
    expect((await cli(['jsonl', '-'], input)).lines).toEqual([{ a: 1 }, { a: 2 }]);
    expect((await cli(['jsonl'], input)).lines).toEqual([{ a: 1 }, { a: 2 }]);
    const file = await cli(['json', 'fixtures/contracts/answers/section-text.txt']);
    expect(file.lines).toEqual([JSON.parse(answer('section-text'))]);
  });

  test('output is plain: no colour or other escape sequence, whatever NO_COLOR says', async () => {
    const r = await cli(
      ['jsonl', '--schema', 'fixtures/schemas/definition-relationship.schema.json'],
      answer('agent-kg-extract'),
    );
    expect(r.out + r.err).not.toContain(`${String.fromCharCode(27)}[`);
  });
});

describe('answers that cannot be printed or were cut', () => {
  test('a number beyond the double range is reported, not printed as null, and is a format error; the envelope says why', async () => {
    const r = await cli(
      ['jsonl'],
      '{"a": 1}\n{"a": 1e400}\n{"b": null, "c": [1, {"d": [null, -1e999]}]}\n{"b": null, "c": [1e308]}\n',
    );
    expect(r.lines).toEqual([{ a: 1 }, { b: null, c: [1e308] }]);
    expect(r.err).toContain(
      'llmjson jsonl: line 2, offset 9: out-of-range: the number at /a is beyond the double range',
    );
    expect(r.err).toContain('llmjson jsonl: line 3, offset 22: out-of-range: the number at /c/1/d/1 is beyond');
    expect(r.code).toBe(4);
    const api = await cli(['json', '--api'], '{"a": -1e999}');
    expect(api.code).toBe(4);
    expect(api.lines).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.objectContaining({ detail: 'NUMBER_OUT_OF_RANGE' }) }),
    ]);
  });

  test('--strict and --require failures carry an error in the envelope', async () => {
    const r = await cli(['jsonl', '--require', '2', '--api'], '{"a": 1}\n');
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([
      expect.objectContaining({
        status: 'failed',
        error: expect.objectContaining({ message: '--require 2: only 1 valid value' }),
      }),
    ]);
  });
});

describe('usage and configuration errors: exit 2 before any input is read', () => {
  test.each([
    [['jsonl', '--bogus'], "unknown option '--bogus'"],
    [['jsonl', '--max-line-length', '0'], '--max-line-length must be a positive integer'],
    [
      ['jsonl', '--input', 'grpc'],
      `Allowed choices are ${['auto', 'text', ...Object.values(ProviderFormat)].join(', ')}.`,
    ],
    [['jsonl', '--schema', 'missing.json'], 'llmjson: SCHEMA_NOT_FOUND: --schema missing.json: no such file'],
    [['jsonl', '--schema-ref', 'no.such.v1'], 'SCHEMA_NOT_FOUND'],
    [['jsonl', '--schema-ref', '../etc/passwd'], 'invalid schema reference'],
    [['jsonl', 'no-such-input.txt'], 'cannot read input file no-such-input.txt'],
    [['jsonl', '--schema', 'a.json', '--schema-ref', 'b.v1'], 'not both'],
    [['elements', '--path', 'items'], 'path must be "$" or "$.key"'],
    [['json', '--output-file', 'no/such/dir/out.json'], '--output-file no/such/dir/out.json: cannot write there'],
    [['json', '--output-file', 'fixtures'], '--output-file fixtures is a directory'],
    [['frobnicate'], "unknown command 'frobnicate'"],
  ])('%j', async (argv, message) => {
    // No stdin given: it never ends, so a command that read it would hang instead of passing.
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });

  test('an invalid schema file is exit 2 with what to fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-cli-'));
    writeFileSync(join(dir, 'bad.schema.json'), '{"type": "objekt"}');
    const r = await cli(['jsonl', '--schema', 'bad.schema.json'], '', { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^llmjson: SCHEMA_INVALID: --schema bad\.schema\.json is not a valid JSON Schema: /);
  });
});

describe('check', () => {
  test('a good catalog: every prompt ok, exit 0', async () => {
    const r = await cli(['check', join(CONTRACTS, 'prompts.json'), '--schema-root', SCHEMA_ROOT]);
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(6);
    expect(r.err).toBe('6 prompts ok, 0 problems\n');
  });

  test('every problem listed with its code and prompt id; exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-check-'));
    writeFileSync(
      join(dir, 'prompts.json'),
      JSON.stringify({
        prompts: {
          a: { prompt: 'x', 'response-type': 'json' },
          b: { prompt: 'x', 'response-type': 'jsonl', schema_ref: 'missing.v1' },
          c: { prompt: 'x' },
        },
      }),
    );
    writeFileSync(
      join(dir, 'other.json'),
      '{"prompts": {"d": {"prompt": "y", "response-type": "json", "schema": {"type": 3}}}}',
    );
    const r = await cli(['check', '.'], '', { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.err).toContain('other.json: prompt "d": SCHEMA_INVALID: ');
    expect(r.err).toContain('prompts.json: prompt "a": SCHEMA_REF_MISSING: ');
    expect(r.err).toContain('prompts.json: prompt "b": SCHEMA_NOT_FOUND: ');
    expect(r.err).toContain('1 prompt ok, 3 problems');
  });
});

describe('help and version', () => {
  test('--help for every command shows examples and the exit codes', async () => {
    for (const command of ['jsonl', 'json', 'salvage', 'partial', 'elements', 'check', 'run', 'batch', 'demo']) {
      const r = await cli([command, '--help']);
      expect(r.code, command).toBe(0);
      expect(r.out, command).toContain('Examples:');
    }
    const top = await cli(['--help']);
    expect(top.out).toContain('130  interrupted');
    expect(top.out).toContain('4    format error');
    expect((await cli(['--version'])).out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('demo', () => {
  test('replays the bundled answers: objects and dropped lines, then the document growing', async () => {
    const r = await cli(['demo', '--speed', '0']);
    expect(r.code).toBe(0);
    expect(r.out.match(/ object {4}\{/g)).toHaveLength(6);
    expect(r.out).toContain('6 objects emitted; 1 prose, 2 recovered, 1 schema, 1 syntax, 1 truncated.');
    expect(r.out).toMatch(/summary complete \(367 characters, grown over \d+ updates\)/);
    expect(r.out).toContain('item 2 complete');
    expect(r.out).toContain('document complete');
  });
});

describe('a slow reader', () => {
  test('jsonl into a stdout that drains slowly: every value, in order, none lost while the output waits', async () => {
    const { main } = await import('@llmjson/cli');
    const { PassThrough, Readable, Writable } = await import('node:stream');
    const count = 6_000;
    const input = Array.from({ length: count }, (_, i) => `{"i": ${i}, "text": "${'x'.repeat(80)}"}\n`).join('');
    let out = '';
    let waits = 0;
    const stdout = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString();
        waits++;
        setTimeout(done, 1);
      },
    });
    const code = await main(['jsonl'], {
      stdin: Readable.from([Buffer.from(input)]),
      stdout,
      stderr: new PassThrough(),
      cwd: process.cwd(),
      env: {},
    });
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(count);
    expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(
      Array.from({ length: count }, (_, i) => i),
    );
    // The output was written in several batches, each waited for: the reading paused meanwhile.
    expect(waits).toBeGreaterThan(3);
  });
});
