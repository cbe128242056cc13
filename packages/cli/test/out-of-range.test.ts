/**
 * A value holding a number beyond the double range (`1e999` reads as Infinity) cannot be
 * printed as JSON: in every mode it is not printed, it is reported once with the reason
 * `out-of-range` naming the number's path, and the run exits 4 with the envelope's detail
 * NUMBER_OUT_OF_RANGE — with text or JSON diagnostics, with --api, with --output-file, under
 * any chunking of stdin.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { REPOSITORY, runCli } from '../../../test/support/cli.js';

interface Case {
  readonly argv: readonly string[];
  readonly input: string;
  /** The values printed (the others print; partial's changes are not listed). */
  readonly printed?: readonly unknown[];
  /** JSON Pointer of the number in the diagnostic. */
  readonly path: string;
  /** Line of the diagnostic (default 1). */
  readonly line?: number;
}

const CASES: Readonly<Record<string, Case>> = {
  json: { argv: ['json'], input: 'Here it is: {"a":1e999,"b":2}', printed: [], path: '/a' },
  jsonl: {
    argv: ['jsonl'],
    input: '{"a":1}\n{"b":2,"a":[1,-1e999]}\n{"b":3}\n',
    printed: [{ a: 1 }, { b: 3 }],
    path: '/a/1',
    line: 2,
  },
  salvage: {
    argv: ['salvage'],
    input: 'First {"a":1}, then {"a":1e999,"b":2} and [{"b":3}]',
    printed: [{ a: 1 }, [{ b: 3 }]],
    path: '/a',
  },
  elements: {
    argv: ['elements'],
    input: '[{"a":1},{"b":{"c/d":1E400}},{"b":3}]',
    printed: [{ a: 1 }, { b: 3 }],
    path: '/b/c~1d',
  },
  partial: { argv: ['partial'], input: '{"a":1e999,"b":2}', path: '/a' },
  'partial snapshots': {
    argv: ['partial', '--emit', 'snapshots'],
    input: '{"b":[2,{"a":1e999}],"c":3}',
    path: '/b/1/a',
  },
  'partial --api': { argv: ['partial'], input: '{"x":{"a":-1e999}}', path: '/x/a' },
};

const CHUNK_SIZES = [1, 2, 5, 64];

const run = (argv: readonly string[], input: string, size: number) => runCli(argv, { stdin: chunkText(input, size) });

describe.each(Object.entries(CASES))('%s: a number beyond the double range', (_name, c) => {
  test.each(CHUNK_SIZES)(
    'text diagnostics: not printed, one out-of-range line naming the path, exit 4 (chunks of %i)',
    async (size) => {
      const r = await run(c.argv, c.input, size);
      expect(r.code).toBe(4);
      const lines = r.err.split('\n').filter((l) => l !== '');
      expect(lines, r.err).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^llmjson \\w+: line ${c.line ?? 1}, (column \\d+, )?offset \\d+: out-of-range: `),
      );
      expect(lines[0]).toContain(`the number at ${c.path} is beyond the double range`);
      expect(r.err).not.toContain('NOT_JSON');
      if (c.printed !== undefined) expect(r.lines).toEqual(c.printed);
      // Nothing printed stands for the number (JSON.stringify would have written null).
      expect(r.out).not.toContain('null');
    },
  );

  test.each(CHUNK_SIZES)('--api: status failed, detail NUMBER_OUT_OF_RANGE, exit 4 (chunks of %i)', async (size) => {
    const r = await run([...c.argv, '--api'], c.input, size);
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([
      expect.objectContaining({
        status: 'failed',
        error: expect.objectContaining({
          reason: 'CONTRACT_VALIDATION_FAILED',
          detail: 'NUMBER_OUT_OF_RANGE',
          message: expect.stringContaining(`the number at ${c.path} is beyond the double range`),
        }),
      }),
    ]);
    expect(r.err.split('\n').filter((l) => l !== '')).toHaveLength(1);
  });

  test('--output-file: not written (the run failed), exit 4', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'llmjson-range-')), 'out.json');
    const r = await run([...c.argv, '--output-file', file], c.input, 3);
    expect(r.code).toBe(4);
    expect(existsSync(file)).toBe(false);
    expect(r.err).toContain(': out-of-range: ');
  });

  test('--diagnostics json: one out-of-range object with the path; --diagnostics none: exit 4, one line', async () => {
    const r = await run([...c.argv, '--diagnostics', 'json'], c.input, 3);
    expect(r.code).toBe(4);
    const diagnostics = r.err
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { reason: string; path?: string });
    expect(diagnostics).toEqual([expect.objectContaining({ reason: 'out-of-range', path: c.path, line: c.line ?? 1 })]);
    const none = await run([...c.argv, '--diagnostics', 'none'], c.input, 3);
    expect(none.code).toBe(4);
    expect(none.err).toMatch(/^llmjson: NUMBER_OUT_OF_RANGE: the number at \S+ is beyond the double range[^\n]*\n$/);
  });
});

test('a number within the double range (1e308, -1.7e308, 5e-324) prints as it is, exit 0', async () => {
  for (const mode of ['json', 'jsonl', 'salvage', 'partial']) {
    const r = await run(
      [mode, '--emit', 'snapshots'].slice(0, mode === 'partial' ? 3 : 1),
      '{"a":[1e308,-1.7e308,5e-324,null]}\n',
      4,
    );
    expect(r.code, `${mode}: ${r.err}`).toBe(0);
    expect(r.err).toBe('');
    expect(r.lines.at(-1)).toEqual({ a: [1e308, -1.7e308, 5e-324, null] });
  }
});

describe('tools: a call whose arguments hold a number beyond the double range', () => {
  const body = readFileSync(join(REPOSITORY, 'fixtures/providers/openai-parallel-tool-calls.sse'), 'utf8').replace(
    '"arguments":"Lisbon\\"}"',
    '"arguments":"Lisbon\\", \\"n\\": [1, -1e999]}"',
  );

  test.each(CHUNK_SIZES)(
    'is not printed; one out-of-range line naming the call and path; exit 4 (chunks of %i)',
    async (size) => {
      const r = await run(['tools'], body, size);
      expect(r.code).toBe(4);
      expect(r.lines).toEqual([
        { index: 0, id: 'call_w1', name: 'get_weather', arguments: { city: 'Lisbon', unit: 'celsius' } },
      ]);
      const lines = r.err.split('\n').filter((l) => l !== '');
      expect(lines, r.err).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^llmjson tools: offset 0: out-of-range: the number at \/arguments\/n\/1 is beyond the double range/,
      );
    },
  );

  test('--emit changes: the change holding it is not printed, exit 4; --diagnostics json names the call', async () => {
    const changes = await run(['tools', '--emit', 'changes'], body, 7);
    expect(changes.code).toBe(4);
    expect(changes.out).not.toContain('null');
    expect(changes.err).toContain(': out-of-range: the number at /changes/');
    const json = await run(['tools', '--diagnostics', 'json'], body, 7);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.err)).toEqual(
      expect.objectContaining({
        reason: 'out-of-range',
        path: '/arguments/n/1',
        toolCall: expect.objectContaining({ id: 'call_t1' }),
      }),
    );
  });
});
