import { spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

const cli = (argv: string[], cwd: string) => runCli(argv, { cwd });

/** A run of recorded outputs: every status, two models, one line that is not a record. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-'));
  writeFileSync(join(dir, 'n.schema.json'), JSON.stringify(SCHEMA));
  const texts = ['{"n": 1}', 'Sure:\n```json\n{"n": 2}\n```', '{"n": 3, "more": [1,', '', 'I cannot.', '{"n": "x"}'];
  const lines: string[] = [];
  for (let i = 0; i < 1000; i++) {
    lines.push(JSON.stringify({ id: `r${i}`, model: i % 3 === 0 ? 'small' : 'large', text: texts[i % texts.length] }));
    if (i === 500) lines.push('{"id": "broken"');
  }
  writeFileSync(join(dir, 'run.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

describe('batch', () => {
  test('one result line per record in input order, a per-model table, the same with any number of workers', async () => {
    const dir = workspace();
    const inline = await cli(['batch', 'run.jsonl', '--schema', 'n.schema.json', '--workers', '0'], dir);
    expect(inline.code).toBe(0);
    const results = inline.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; status: string });
    expect(results).toHaveLength(1000);
    expect(results.map((r) => r.id)).toEqual(Array.from({ length: 1000 }, (_, i) => `r${i}`));
    expect(results.slice(0, 6).map((r) => r.status)).toEqual([
      'valid',
      'salvaged',
      'truncated',
      'empty',
      'invalid',
      'invalid',
    ]);
    expect(inline.err).toContain('run.jsonl:502: skipped: not JSON');
    expect(inline.err).toMatch(/^all +1000 +167 +167 +167 +332 +167 +33\.4%$/m);
    for (const workers of ['1', '2', '3']) {
      const pooled = await cli(['batch', 'run.jsonl', '--schema', 'n.schema.json', '--workers', workers], dir);
      expect(pooled.out, `--workers ${workers}`).toBe(inline.out);
      // More workers than cores: the cores, said in a note of its own.
      const note = /^llmjson batch: --workers \d+ is more than the \d+ cores? of this machine: using \d+\n/;
      expect(pooled.err.replace(note, ''), `--workers ${workers}`).toBe(inline.err);
    }
  });

  test('--report writes JSON and markdown; --out writes the results; --no-salvage; fields by name', async () => {
    const dir = workspace();
    const r = await cli(
      [
        'batch',
        'run.jsonl',
        '--schema',
        'n.schema.json',
        '--out',
        'results.jsonl',
        '--report',
        'report.json',
        '--workers',
        '0',
      ],
      dir,
    );
    expect(r.out).toBe('');
    expect(readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1000);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      totals: Record<string, number>;
      models: Record<string, Record<string, number>>;
    };
    expect(report.totals).toMatchObject({
      records: 1000,
      valid: 167,
      salvaged: 167,
      truncated: 167,
      invalid: 332,
      empty: 167,
    });
    expect(Object.keys(report.models)).toEqual(['large', 'small']);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(
      '| all | 1000 | 167 | 167 | 167 | 332 | 167 | 33.4% |',
    );
    const strict = await cli(
      ['batch', 'run.jsonl', '--schema', 'n.schema.json', '--no-salvage', '--workers', '0'],
      dir,
    );
    expect(strict.err).toMatch(/^all +1000 +167 +0 +167 +499 +167 +16\.7%$/m);
    writeFileSync(join(dir, 'custom.jsonl'), `${JSON.stringify({ key: 'k1', llm: 'x', answer: '[1]' })}\n`);
    const custom = await cli(
      [
        'batch',
        'custom.jsonl',
        '--text-field',
        'answer',
        '--model-field',
        'llm',
        '--id-field',
        'key',
        '--mode',
        'elements',
      ],
      dir,
    );
    expect(JSON.parse(custom.out)).toEqual({ id: 'k1', model: 'x', status: 'valid', values: 1, diagnostics: 0 });
  });

  test('directories of .txt files: one response each, the directory name is the model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-'));
    mkdirSync(join(dir, 'gpt'));
    writeFileSync(join(dir, 'gpt', 'a.txt'), '{"n": 1}\n{"n": 2}\n');
    writeFileSync(join(dir, 'gpt', 'b.txt'), '{"n": 1}\n{"n":');
    writeFileSync(join(dir, 'gpt', 'notes.md'), 'ignored');
    const r = await cli(['batch', 'gpt', '--mode', 'jsonl', '--workers', '0'], dir);
    expect(
      r.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { id: 'a', model: 'gpt', status: 'valid', values: 2, diagnostics: 0 },
      { id: 'b', model: 'gpt', status: 'truncated', values: 1, diagnostics: 1 },
    ]);
  });

  test('streams its input: 200 000 records (about 75 MB) under a 48 MB heap limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-big-'));
    const file = join(dir, 'big.jsonl');
    const out = createWriteStream(file);
    const filler = 'x'.repeat(300);
    for (let i = 0; i < 200_000; i++) {
      const text = i % 10 === 0 ? `Here: {"n": ${i}, "note": "${filler}"}` : `{"n": ${i}, "note": "${filler}"}`;
      if (!out.write(`${JSON.stringify({ id: i, model: `m${i % 4}`, text })}\n`)) {
        await new Promise<void>((done) => out.once('drain', () => done()));
      }
    }
    await new Promise<void>((done) => out.end(() => done()));
    const r = spawnSync(
      process.execPath,
      [
        '--max-old-space-size=48',
        BIN,
        'batch',
        file,
        '--schema',
        join(dir, '..', 'none'),
        '--workers',
        '0',
        '--out',
        join(dir, 'out.jsonl'),
      ],
      { encoding: 'utf8' },
    );
    // (--schema pointing nowhere is a usage error: checked first, so nothing was read.)
    expect(r.status).toBe(2);
    const run = spawnSync(
      process.execPath,
      ['--max-old-space-size=48', BIN, 'batch', file, '--workers', '0', '--out', join(dir, 'out.jsonl')],
      {
        encoding: 'utf8',
      },
    );
    expect(run.stderr).toMatch(/^all +200000 +180000 +20000 +0 +0 +0 +100\.0%$/m);
    expect(run.status).toBe(0);
    const lines = readFileSync(join(dir, 'out.jsonl'), 'utf8').split('\n').length - 1;
    expect(lines).toBe(200_000);
  }, 120_000);
});

describe('batch: bad records and bad configuration', () => {
  test('an absurdly deep record is invalid; the run goes on, with any workers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-'));
    // A recursive schema and a record 20 000 levels deep: the engines refuse it past 512 levels
    // (too-deep) before the validator could overflow its stack; were classification to throw,
    // the record would still be invalid and the run would go on.
    writeFileSync(
      join(dir, 'deep.schema.json'),
      JSON.stringify({ $ref: '#/$defs/n', $defs: { n: { type: 'array', items: { $ref: '#/$defs/n' } } } }),
    );
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const lines = [JSON.stringify({ id: 'ok', text: '[[]]' }), JSON.stringify({ id: 'deep', text: deep })];
    writeFileSync(join(dir, 'r.jsonl'), `\ufeff${lines.join('\n')}\n`);
    for (const workers of ['0', '2']) {
      const r = await cli(['batch', 'r.jsonl', '--schema', 'deep.schema.json', '--workers', workers], dir);
      expect(r.code, workers).toBe(0);
      const results = r.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; status: string });
      expect(results.map((x) => [x.id, x.status])).toEqual([
        ['ok', 'valid'],
        ['deep', 'invalid'],
      ]);
      expect(r.err).not.toContain('internal error');
    }
  });

  test('elements mode with a schema that is not an array document, or an unwritable --out: exit 2 before reading', async () => {
    const dir = workspace();
    const elements = await cli(['batch', 'run.jsonl', '--mode', 'elements', '--schema', 'n.schema.json'], dir);
    expect(elements.code).toBe(2);
    expect(elements.err).toContain('--mode elements needs the schema of an array document');
    expect(elements.out).toBe('');
    const out = await cli(['batch', 'run.jsonl', '--out', 'missing/dir/results.jsonl'], dir);
    expect(out.code).toBe(2);
    expect(out.err).toContain('--out missing/dir/results.jsonl: cannot write there');
  });
});

describe('batch progress bar', () => {
  async function withTerminal(env: Record<string, string>) {
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
    return runCli(['batch', 'run.jsonl', '--workers', '0'], { cwd: workspace(), env, stderr });
  }

  test('shown on a terminal with records/s and ETA; never in CI or without a terminal', async () => {
    const tty = await withTerminal({});
    expect(tty.code).toBe(0);
    expect(tty.err).toMatch(/\d+ records \| \d+ records\/s \| ETA /);
    expect(tty.err).toContain('100%');
    const ci = await withTerminal({ CI: 'true' });
    expect(ci.err).not.toContain('records/s');
  });
});

describe('batch: outputs that are inputs', () => {
  const usageLine = (r: { code: number; out: string; err: string }) => {
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    const lines = r.err.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    return lines[0] as string;
  };

  test('--out or --report naming an input (the same name, a hard link, a symlink): exit 2 naming both, the input untouched', async () => {
    const dir = workspace();
    const before = readFileSync(join(dir, 'run.jsonl'), 'utf8');
    linkSync(join(dir, 'run.jsonl'), join(dir, 'hard.jsonl'));
    symlinkSync(join(dir, 'run.jsonl'), join(dir, 'soft.jsonl'));
    for (const [flag, name] of [
      ['--out', 'run.jsonl'],
      ['--out', './run.jsonl'],
      ['--out', 'hard.jsonl'],
      ['--out', 'soft.jsonl'],
      ['--report', 'run.jsonl'],
      ['--report', 'soft.jsonl'],
    ] as const) {
      const r = await cli(['batch', 'run.jsonl', flag, name, '--workers', '0'], dir);
      expect(usageLine(r), `${flag} ${name}`).toBe(
        `llmjson: ${flag} ${name} is the same file as the input run.jsonl: writing it would destroy what is to be read; write somewhere else`,
      );
      expect(readFileSync(join(dir, 'run.jsonl'), 'utf8'), `${flag} ${name}`).toBe(before);
    }
    // The schema is read too; and a .txt response of a directory given as input.
    expect(
      usageLine(await cli(['batch', 'run.jsonl', '--schema', 'n.schema.json', '--out', 'n.schema.json'], dir)),
    ).toContain('--out n.schema.json is the same file as --schema n.schema.json');
    mkdirSync(join(dir, 'gpt'));
    writeFileSync(join(dir, 'gpt', 'a.txt'), '{"n": 1}');
    expect(usageLine(await cli(['batch', 'gpt', '--out', 'gpt/a.txt'], dir))).toContain(
      '--out gpt/a.txt is the same file as the input gpt/a.txt',
    );
    expect(readFileSync(join(dir, 'gpt', 'a.txt'), 'utf8')).toBe('{"n": 1}');
  });

  test("two outputs that are one file (--out and --report, or --out and the report's markdown twin): exit 2, nothing written", async () => {
    const dir = workspace();
    expect(usageLine(await cli(['batch', 'run.jsonl', '--out', 'r.json', '--report', 'r.json'], dir))).toBe(
      'llmjson: --report r.json is the same file as --out r.json: give each output its own file',
    );
    expect(usageLine(await cli(['batch', 'run.jsonl', '--out', 'r.md', '--report', 'r.json'], dir))).toBe(
      'llmjson: --report (its markdown twin) r.md is the same file as --out r.md: give each output its own file',
    );
    expect(existsSync(join(dir, 'r.json'))).toBe(false);
    expect(existsSync(join(dir, 'r.md'))).toBe(false);
  });
});

describe('batch: names a record chooses', () => {
  test('a 5 MB model name among 121 models: the table cuts it to 60 characters, escapes controls; the JSON report keeps it whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-names-'));
    const huge = 'M'.repeat(5_000_000);
    const lines = [JSON.stringify({ id: 'big', model: huge, text: '{}' })];
    for (let i = 0; i < 120; i++)
      lines.push(JSON.stringify({ id: `r${i}`, model: `m${i}\u001b]0;x\u0007|`, text: '{}' }));
    writeFileSync(join(dir, 'run.jsonl'), `${lines.join('\n')}\n`);
    const r = await cli(['batch', 'run.jsonl', '--report', 'report.json', '--out', 'out.jsonl', '--workers', '0'], dir);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain('\u001b');
    const table = r.err.split('\n').filter((l) => l !== '');
    expect(table).toHaveLength(123);
    for (const line of table) expect(line.length).toBeLessThan(200);
    expect(table).toContainEqual(expect.stringMatching(/^M{59}… +1 +1 /));
    expect(table).toContainEqual(expect.stringMatching(/^m7\\u001b\]0;x\\u0007\| +1 +1 /));
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { models: Record<string, unknown> };
    expect(Object.keys(report.models)).toHaveLength(121);
    expect(report.models[huge]).toMatchObject({ records: 1, valid: 1 });
    expect(report.models['m7\u001b]0;x\u0007|']).toMatchObject({ records: 1 });
    const markdown = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(markdown.length).toBeLessThan(20_000);
    expect(markdown).not.toContain('\u001b');
    // A `|` in a name would end the cell: escaped.
    expect(markdown).toContain('| m7\\\\u001b]0;x\\\\u0007\\| | 1 |');
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toContain(huge);
  });

  test('a line that is not a record: its message quotes it at most 200 characters, control characters escaped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-names-'));
    writeFileSync(join(dir, 'run.jsonl'), `\u001b]0;x\u0007${'i'.repeat(100_000)}\n{"id": 1, "text": "{}"}\n`);
    const r = await cli(['batch', 'run.jsonl', '--workers', '0'], dir);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^llmjson batch: run\.jsonl:1: skipped: not JSON: .*\\u001b/m);
    expect([...r.err].filter((c) => c < ' ' && c !== '\n')).toEqual([]);
    expect(r.err.length).toBeLessThan(2000);
  });
});

describe('batch --workers', () => {
  test('more workers than cores: the cores, with a one-line note on stderr; the results are the same', async () => {
    const dir = workspace();
    const cores = availableParallelism();
    const inline = await cli(['batch', 'run.jsonl', '--schema', 'n.schema.json', '--workers', '0'], dir);
    const many = await cli(['batch', 'run.jsonl', '--schema', 'n.schema.json', '--workers', String(cores + 1)], dir);
    expect(many.code).toBe(0);
    expect(many.out).toBe(inline.out);
    const note = `llmjson batch: --workers ${cores + 1} is more than the ${cores} ${cores === 1 ? 'core' : 'cores'} of this machine: using ${cores}\n`;
    expect(many.err.startsWith(note)).toBe(true);
    expect(many.err.slice(note.length)).toBe(inline.err);
    const help = await cli(['batch', '--help'], dir);
    expect(help.out.replace(/\s+/g, ' ')).toContain('more than the cores: the cores, with a note on stderr');
  });
});
