import { spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';
import { defaultWorkers, SMALL_INPUT_BYTES, workerYoungGenerationMb } from '../src/batch-command.js';
import { BLOCK_BYTES } from '../src/batch-lines.js';

const BIN = fileURLToPath(new URL('../bin/llmjson.js', import.meta.url));
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
      'not-json',
      'invalid',
    ]);
    expect(inline.err).toContain('run.jsonl:502: skipped: not JSON');
    // valid, salvaged, truncated, invalid, not-json, empty; usable by strict, salvage, +coerce.
    expect(inline.err).toMatch(/^all +1000 +167 +167 +167 +166 +166 +167 +16\.7% +33\.4% +33\.4%$/m);
    for (const workers of ['1', '2', '3']) {
      const pooled = await cli(['batch', 'run.jsonl', '--schema', 'n.schema.json', '--workers', workers], dir);
      expect(pooled.out, `--workers ${workers}`).toBe(inline.out);
      // More workers than cores: the cores, said in a note of its own.
      const note = /^llmjson batch: --workers \d+ is more than the \d+ cores? of this machine: using \d+\n/;
      expect(pooled.err.replace(note, ''), `--workers ${workers}`).toBe(inline.err);
    }
  });

  test('the report is the same with any number of workers (each worker folds its own results; they are merged)', async () => {
    const dir = workspace();
    const report = async (workers: string) => {
      const file = `report-${workers}.json`;
      const r = await cli(
        ['batch', 'run.jsonl', '--schema', 'n.schema.json', '--workers', workers, '--report', file],
        dir,
      );
      expect(r.code, `--workers ${workers}`).toBe(0);
      return JSON.parse(readFileSync(join(dir, file), 'utf8'));
    };
    const inline = await report('0');
    // Every part a worker folds: counts per model and scoring, keywords, paths, examples, problems.
    expect(inline.totals.records).toBe(1000);
    expect(inline.models.map((m: { model: string }) => m.model)).toEqual(['large', 'small']);
    expect(inline.totals.keywords.length).toBeGreaterThan(0);
    expect(inline.totals.examples.length).toBeGreaterThan(0);
    expect(inline.skippedInputLines).toBe(1);
    for (const workers of ['1', '2']) expect(await report(workers), `--workers ${workers}`).toEqual(inline);
  });

  test("model names a model may choose (__proto__, constructor) survive the workers' reports and their merge", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-'));
    const names = ['__proto__', 'constructor', 'toString', 'm'];
    // Padded to several blocks, so that the worker thread judges some and its report is merged.
    const lines = Array.from({ length: 400 }, (_, i) =>
      JSON.stringify({
        id: '__proto__',
        model: names[i % 4],
        pad: 'x'.repeat(1000),
        text: i % 3 === 0 ? '{"n": "x"}' : '{"n": 1}',
      }),
    );
    writeFileSync(join(dir, 'r.jsonl'), `${lines.join('\n')}\n`);
    expect(statSync(join(dir, 'r.jsonl')).size).toBeGreaterThan(3 * BLOCK_BYTES);
    writeFileSync(join(dir, 'n.schema.json'), JSON.stringify(SCHEMA));
    const reports = [];
    for (const workers of ['0', '2']) {
      const r = await cli(
        ['batch', 'r.jsonl', '--schema', 'n.schema.json', '--workers', workers, '--report', `${workers}.json`],
        dir,
      );
      expect(r.code, `--workers ${workers}`).toBe(0);
      reports.push(JSON.parse(readFileSync(join(dir, `${workers}.json`), 'utf8')));
    }
    expect(reports[0].models.map((m: { model: string; records: number }) => [m.model, m.records])).toEqual([
      ['__proto__', 100],
      ['constructor', 100],
      ['m', 100],
      ['toString', 100],
    ]);
    expect(reports[1]).toEqual(reports[0]);
  });

  test('--report (repeatable) writes JSON, markdown and HTML by the extension; --out writes the results; --no-salvage; fields by path', async () => {
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
        '--report',
        'report.md',
        '--report',
        'report.html',
        '--workers',
        '0',
      ],
      dir,
    );
    expect(r.out).toBe('');
    const lines = readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1000);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      totals: { records: number; statuses: Record<string, number> };
      models: { model: string }[];
      skippedInputLines: number;
    };
    expect(report.totals.records).toBe(1000);
    expect(report.totals.statuses).toMatchObject({
      valid: 167,
      salvaged: 167,
      truncated: 167,
      invalid: 166,
      'not-json': 166,
      empty: 167,
    });
    expect(report.models.map((m) => m.model)).toEqual(['large', 'small']);
    expect(report.skippedInputLines).toBe(1);
    // Result lines: the position (the line that is not a record has one too), the scorings.
    expect(JSON.parse(lines[1] as string)).toMatchObject({
      index: 1,
      id: 'r1',
      status: 'salvaged',
      scores: { strict: 'invalid', salvage: 'salvaged', coerce: 'salvaged' },
    });
    expect(JSON.parse(lines[501] as string)).toMatchObject({ index: 502, id: 'r501', status: 'empty' });
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('# llmjson batch report');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/i);
    // No markdown twin beside the JSON any more: each format is asked for by name.
    const single = await cli(['batch', 'run.jsonl', '--report', 'only.json', '--workers', '0'], dir);
    expect(single.code).toBe(0);
    expect(existsSync(join(dir, 'only.md'))).toBe(false);
    const strict = await cli(
      ['batch', 'run.jsonl', '--schema', 'n.schema.json', '--no-salvage', '--workers', '0'],
      dir,
    );
    expect(strict.err).toMatch(/^all +1000 +167 +0 +167 +333 +166 +167 +16\.7% +33\.4% +33\.4%$/m);
    writeFileSync(
      join(dir, 'custom.jsonl'),
      `${JSON.stringify({ key: 'k1', meta: { llm: 'x' }, out: { answers: ['[1]'] } })}\n`,
    );
    for (const paths of [
      ['--text-field', 'out.answers.0', '--model-field', 'meta.llm', '--id-field', 'key'],
      ['--text-field', '/out/answers/0', '--model-field', '/meta/llm', '--id-field', '/key'],
    ]) {
      const custom = await cli(['batch', 'custom.jsonl', ...paths, '--mode', 'elements', '--workers', '0'], dir);
      expect(custom.code, custom.err).toBe(0);
      expect(JSON.parse(custom.out)).toEqual({
        index: 0,
        id: 'k1',
        model: 'x',
        status: 'valid',
        scores: { strict: 'valid', salvage: 'valid', coerce: 'valid' },
        values: 1,
        diagnostics: 0,
      });
    }
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
    ).toMatchObject([
      { index: 0, id: 'a', model: 'gpt', status: 'valid', values: 2, diagnostics: 0 },
      { index: 1, id: 'b', model: 'gpt', status: 'truncated', values: 1, diagnostics: 1 },
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
    // valid, salvaged, invalid (a status of the strict scoring); usable by strict (the prose ones are not JSON as a whole), salvage, +coerce.
    expect(run.stderr).toMatch(/^all +200000 +180000 +20000 +0 +90\.0% +100\.0% +100\.0%$/m);
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

  test('two outputs that are one file (--out and --report, or two --report): exit 2, nothing written', async () => {
    const dir = workspace();
    expect(usageLine(await cli(['batch', 'run.jsonl', '--out', 'r.json', '--report', 'r.json'], dir))).toBe(
      'llmjson: --report r.json is the same file as --out r.json: give each output its own file',
    );
    expect(
      usageLine(await cli(['batch', 'run.jsonl', '--report', 'r.md', '--report', 'r.json', '--report', './r.md'], dir)),
    ).toBe('llmjson: --report ./r.md is the same file as --report r.md: give each output its own file');
    expect(existsSync(join(dir, 'r.json'))).toBe(false);
    expect(existsSync(join(dir, 'r.md'))).toBe(false);
  });

  test('a --report whose extension names no format: exit 2 before reading, saying which extensions there are', async () => {
    const dir = workspace();
    expect(usageLine(await cli(['batch', 'run.jsonl', '--report', 'report.txt'], dir))).toBe(
      'llmjson: --report report.txt: the extension chooses the format: give a file ending in .json, .md or .html',
    );
  });
});

describe('batch: names a record chooses', () => {
  test('a 5 MB model name among 121 models: the table cuts it to 60 characters, escapes controls; the result lines keep it whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-names-'));
    const huge = 'M'.repeat(5_000_000);
    const lines = [JSON.stringify({ id: 'big', model: huge, text: '{}' })];
    for (let i = 0; i < 120; i++)
      lines.push(JSON.stringify({ id: `r${i}`, model: `m${i}\u001b]0;x\u0007|`, text: '{}' }));
    writeFileSync(join(dir, 'run.jsonl'), `${lines.join('\n')}\n`);
    const r = await cli(
      [
        'batch',
        'run.jsonl',
        '--report',
        'report.json',
        '--report',
        'report.md',
        '--out',
        'out.jsonl',
        '--workers',
        '0',
      ],
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.err).not.toContain('\u001b');
    // The format detected, then the header, 121 models, all, and the line saying what the columns are.
    const [detected, ...table] = r.err.split('\n').filter((l) => l !== '');
    expect(detected).toBe(
      'llmjson batch: run.jsonl: read as records (detected from its first record; --format to choose)',
    );
    expect(table).toHaveLength(124);
    for (const line of table) expect(line.length).toBeLessThan(200);
    expect(table).toContainEqual(expect.stringMatching(/^M{59}… +1 +1 /));
    expect(table).toContainEqual(expect.stringMatching(/^m7\\u001b\]0;x\\u0007\| +1 +1 /));
    // The report is bounded: a name is kept to its first 200 characters there (batch-report.ts).
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      models: { model: string; records: number }[];
    };
    expect(report.models).toHaveLength(121);
    expect(report.models.find((m) => m.model.startsWith('MMM'))).toMatchObject({ records: 1 });
    expect(report.models.find((m) => m.model === 'm7\u001b]0;x\u0007|')).toMatchObject({ records: 1 });
    const markdown = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(markdown.length).toBeLessThan(100_000);
    expect(markdown).not.toContain('\u001b');
    // A `|` in a name would end the cell: escaped.
    expect(markdown).toContain('| m7\\\\u001b\\]0;x\\\\u0007\\| | 1 |');
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

  test('by default, an input under 32 MiB is judged on the main thread, a larger one by one thread per core', () => {
    expect(SMALL_INPUT_BYTES).toBe(32 * 1024 * 1024);
    expect(defaultWorkers(2, 0)).toBe(0);
    expect(defaultWorkers(8, SMALL_INPUT_BYTES - 1)).toBe(0);
    expect(defaultWorkers(8, SMALL_INPUT_BYTES)).toBe(8);
    expect(defaultWorkers(2, 509_000_000)).toBe(2);
    expect(defaultWorkers(1, SMALL_INPUT_BYTES)).toBe(1);
    // Seen from outside: the worker threads a run starts, counted by a preloaded module. The same
    // small run starts none by default, and one with --workers 2 (the main thread is the other
    // thread that judges), with the same results.
    const dir = workspace();
    const count = [
      "import threads from 'node:worker_threads';",
      "import { syncBuiltinESMExports } from 'node:module';",
      'const Original = threads.Worker;',
      'let started = 0;',
      'threads.Worker = class extends Original { constructor(...args) { super(...args); started++; } };',
      // Named imports of node:worker_threads see the counting class too.
      'syncBuiltinESMExports();',
      "process.on('exit', () => process.stderr.write('worker threads started: ' + started + '\\n'));",
    ].join('\n');
    const run = (...extra: string[]) =>
      spawnSync(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(count)}`, BIN, 'batch', 'run.jsonl', ...extra],
        { cwd: dir, encoding: 'utf8' },
      );
    const byDefault = run();
    const two = run('--workers', '2');
    expect(byDefault.status, byDefault.stderr).toBe(0);
    expect(byDefault.stderr).toContain('worker threads started: 0\n');
    expect(two.status, two.stderr).toBe(0);
    expect(two.stderr).toContain(`worker threads started: ${Math.min(2, availableParallelism()) - 1}\n`);
    expect(two.stdout).toBe(byDefault.stdout);
  });

  test('one worker gets a young generation of 48 MB; more share 32 MB, 8 MB at least each', () => {
    expect([1, 2, 3, 4, 5, 16].map(workerYoungGenerationMb)).toEqual([48, 16, 10, 8, 8, 8]);
  });
});

describe('batch: per-record schemas, statuses, shards', () => {
  /** 1 200 records over 38 distinct schemas (each required key differs), one given by name, one that cannot compile. */
  function perRecord(): string {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-batch-schemas-'));
    mkdirSync(join(dir, 'contracts', 'bench'), { recursive: true });
    writeFileSync(
      join(dir, 'contracts', 'bench', 'named.schema.json'),
      JSON.stringify({ type: 'object', required: ['named'] }),
    );
    const lines: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const key = `k${i % 40}`;
      const schema =
        i % 97 === 0
          ? { type: 'nonsense' }
          : i % 10 === 0
            ? 'bench.named'
            : { type: 'object', properties: { [key]: { type: 'integer' } }, required: [key] };
      const text = i % 10 === 0 ? '{"named": 1}' : i % 3 === 0 ? `{"${key}": "7"}` : `{"${key}": ${i}}`;
      lines.push(JSON.stringify({ id: `r${i}`, model: `m${i % 2}`, text, task: { schema } }));
    }
    writeFileSync(join(dir, 'bench.jsonl'), `${lines.join('\n')}\n`);
    return dir;
  }

  test('--schema-field: each record judged by its own schema, the same with any workers (schemas sent once per worker)', async () => {
    const dir = perRecord();
    const argv = ['batch', 'bench.jsonl', '--schema-field', 'task.schema', '--schema-root', 'contracts'];
    const inline = await cli([...argv, '--workers', '0'], dir);
    expect(inline.code, inline.err).toBe(0);
    const results = inline.lines as { index: number; status: string; schemaId?: string; scores: { coerce: string } }[];
    expect(results).toHaveLength(1200);
    expect(results[0]?.status).toBe('unsupported-schema');
    expect(results[10]?.status).toBe('valid');
    expect(results[1]?.status).toBe('valid');
    expect(results[3]).toMatchObject({ status: 'invalid', scores: { coerce: 'coerced' } });
    // 36 inline schemas (k0, k10, k20 and k30 fall on records of the named one), the named one, the broken one.
    expect(new Set(results.map((r) => r.schemaId)).size).toBe(38);
    const pooled = await cli([...argv, '--workers', '2'], dir);
    expect(pooled.out).toBe(inline.out);
    // --coerce: the run's status is the coerce scoring's.
    const coerced = await cli([...argv, '--coerce', '--workers', '0'], dir);
    expect((coerced.lines[3] as { status: string }).status).toBe('coerced');
  });

  test('--statuses jsonschemabench: each line also carries its code', async () => {
    const dir = perRecord();
    const r = await cli(
      [
        'batch',
        'bench.jsonl',
        '--schema-field',
        'task.schema',
        '--schema-root',
        'contracts',
        '--statuses',
        'jsonschemabench',
        '--workers',
        '0',
      ],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    const codes = (r.lines as { jsonschemabench?: string }[]).map((l) => l.jsonschemabench);
    expect(codes.slice(0, 4)).toEqual(['UNSUPPORTED_SCHEMA', 'MATCH', 'MATCH', 'SEMANTIC_ERROR']);
  });

  test('refused before reading: --coerce without a schema, --schema-field beside --schema, a bad field path, a bad --shard', async () => {
    const dir = perRecord();
    writeFileSync(join(dir, 'n.schema.json'), JSON.stringify(SCHEMA));
    const refused = async (argv: string[], message: string) => {
      const r = await cli(['batch', 'bench.jsonl', ...argv, '--workers', '0'], dir);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain(message);
    };
    await refused(['--coerce'], '--coerce needs a schema: give --schema, --schema-ref or --schema-field');
    await refused(
      ['--schema-field', 'task.schema', '--schema', 'n.schema.json'],
      "give --schema-field for each record's own schema, or --schema for one schema for every record, not both",
    );
    await refused(['--text-field', 'a..b'], '--text-field');
    await refused(['--shard', '0/4'], '--shard 0/4: k counts from 1: the shards of 4 are 1/4 to 4/4');
    await refused(['--shard', 'auto'], '--shard auto: no shard in the environment; looked for LLMJSON_SHARD=k/n');
  });

  test('--shard auto: the shard from the environment, said on stderr; its lines are its positions', async () => {
    const dir = perRecord();
    const r = await runCli(['batch', 'bench.jsonl', '--shard', 'auto', '--workers', '0'], {
      cwd: dir,
      env: { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' },
    });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(
      'llmjson batch: --shard auto: shard 2/3 from CI_NODE_INDEX=2 and CI_NODE_TOTAL=3 (GitLab CI parallel jobs)\n',
    );
    const positions = (r.lines as { index: number }[]).map((l) => l.index);
    expect(positions).toEqual(Array.from({ length: 400 }, (_, i) => 3 * i + 1));
  });
});
