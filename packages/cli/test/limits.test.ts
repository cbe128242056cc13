/**
 * The command's limits and guarantees: input it reads whole is capped (json `--max-length`),
 * output it prints grows with the input (partial), files that cannot be used are exit 2 before
 * anything is read, messages quote user input at most 200 characters, and values as deep as
 * the engines accept print.
 */

import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { REPOSITORY, runCli } from '../../../test/support/cli.js';
import { isRoot, runCliAsNobody } from '../../../test/support/cli-as-user.js';

/**
 * Root reads files without read permission and writes read-only ones, so those cases run the
 * built command as `nobody` when the tests run as root (from a bundle that `nobody` can reach
 * wherever the checkout sits: test/support/cli-as-user.ts), and in-process otherwise.
 */

const scratch = () => mkdtempSync(join(tmpdir(), 'llmjson-limits-'));

/** A JSON document that never ends: `{"a": "xxxx…`, in chunks of `size` characters. */
function* endless(size: number) {
  yield '{"a": "';
  const chunk = 'x'.repeat(size);
  for (;;) yield chunk;
}

const stderrLines = (err: string) => err.split('\n').filter((l) => l !== '');

describe('json --max-length', () => {
  test('an answer past --max-length stops reading: one too-long line on stderr, exit 4, nothing printed', async () => {
    // stdin never ends: the command passes only if it stops reading by itself.
    const r = await runCli(['json', '--max-length', '1000000'], { stdin: endless(4096) });
    expect(r.code).toBe(4);
    expect(r.out).toBe('');
    expect(stderrLines(r.err)).toEqual([
      'llmjson json: line 1, column 1000001, offset 1000000: too-long: the answer is longer than --max-length (1000000 characters); the rest was not read',
    ]);
  });

  test('the default is 64 MiB (67 108 864 characters), said in --help', async () => {
    const r = await runCli(['json'], { stdin: endless(1 << 20) });
    expect(r.code).toBe(4);
    expect(r.err).toContain('offset 67108864: too-long: ');
    const help = await runCli(['json', '--help']);
    expect(help.out).toContain('--max-length <characters>');
    expect(help.out).toContain('67108864 = 64 MiB');
  });

  test('at the limit exactly the answer is read; --diagnostics json and --api say why it failed', async () => {
    const doc = '{"a": "hello"}';
    const exact = await runCli(['json', '--max-length', String(doc.length)], { stdin: chunkText(doc, 3) });
    expect(exact).toMatchObject({ code: 0, err: '' });
    expect(exact.lines).toEqual([{ a: 'hello' }]);
    const over = ['json', '--max-length', String(doc.length - 1)];
    const json = await runCli([...over, '--diagnostics', 'json'], { stdin: chunkText(doc, 3) });
    expect(json.code).toBe(4);
    expect(stderrLines(json.err).map((l) => JSON.parse(l) as unknown)).toEqual([
      expect.objectContaining({ source: 'llmjson json', reason: 'too-long', offset: doc.length - 1 }),
    ]);
    const api = await runCli([...over, '--diagnostics', 'none', '--api'], { stdin: chunkText(doc, 3) });
    expect(api.code).toBe(4);
    expect(stderrLines(api.err)).toEqual([expect.stringMatching(/^llmjson: NOT_JSON: the answer is longer than/)]);
    expect(api.lines).toEqual([
      {
        status: 'failed',
        result: { text: '' },
        error: expect.objectContaining({ detail: 'NOT_JSON', message: expect.stringContaining('--max-length') }),
      },
    ]);
    expect((await runCli(['json', '--max-length', '0'])).code).toBe(2);
  });
});

describe('partial output grows with the input, not with its square', () => {
  // A 256 KiB string arriving in 4 KiB chunks: 64 updates of a value that grows to 256 KiB.
  const doc = JSON.stringify({ answer: 'x'.repeat(256 * 1024) });
  const chunks = chunkText(doc, 4096);

  test('the default prints the changes: about the size of the input, and they rebuild the document', async () => {
    // --input text: one line per chunk read (auto reads ahead to decide, and may join chunks).
    const r = await runCli(['partial', '--input', 'text'], { stdin: chunks });
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(chunks.length);
    expect(r.out.length).toBeLessThan(1.1 * doc.length);
    let text = '';
    for (const change of r.lines.flat() as { op: string; path: unknown[]; value?: unknown }[]) {
      if (change.op === 'append') text += change.value as string;
    }
    expect(text).toBe(JSON.parse(doc).answer);
    const help = (await runCli(['partial', '--help'])).out.replace(/\s+/g, ' ');
    expect(help).toContain('choices: "snapshots", "changes", "both", default: "changes"');
  });

  test('--emit snapshots is still there, for those who want every whole value (about 32 times the input here)', async () => {
    const r = await runCli(['partial', '--emit', 'snapshots'], { stdin: chunks });
    expect(r.code).toBe(0);
    expect(r.lines.at(-1)).toEqual(JSON.parse(doc));
    expect(r.out.length).toBeGreaterThan(30 * doc.length);
  });
});

describe('files that cannot be used: exit 2 with one line, before any input is read', () => {
  // No stdin is given to these runs: it never ends, so a command that read it would hang.
  const usage = async (argv: string[], cwd: string, message: string) => {
    const r = await runCli(argv, { cwd });
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(stderrLines(r.err)).toEqual([expect.stringContaining(message)]);
    expect(r.err).not.toContain('internal error');
  };
  /** `usage`, as a user whom permissions bind: `nobody` in a child process when the tests run as root. */
  const usageAsUser = async (argv: string[], cwd: string, message: string) => {
    if (!isRoot) return usage(argv, cwd, message);
    const r = await runCliAsNobody(argv, cwd);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(stderrLines(r.stderr)).toEqual([expect.stringContaining(message)]);
  };

  test('a directory, a symlink to nothing, or a missing file as the input', async () => {
    const dir = scratch();
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    await usage(['jsonl', dir], dir, `llmjson: cannot read input file ${dir}: it is a directory`);
    await usage(['json', '.'], dir, 'llmjson: cannot read input file .: it is a directory');
    await usage(['partial', 'dangling'], dir, 'llmjson: cannot read input file dangling: no such file');
  });

  test('an input file without read permission (as nobody when run as root)', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'secret.txt'), '{"a": 1}\n');
    chmodSync(join(dir, 'secret.txt'), 0o000);
    await usageAsUser(['jsonl', 'secret.txt'], dir, 'cannot read input file secret.txt: permission denied');
  });

  test('an --output-file whose "directory" is a regular file (fails for root too)', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'notes'), 'a file');
    await usage(
      ['json', '--output-file', 'notes/out.json'],
      dir,
      '--output-file notes/out.json: cannot write there (a part of the path is not a directory)',
    );
    await usage(['jsonl', '--output-file', '.'], dir, '--output-file . is a directory, not a file');
    expect(existsSync(join(dir, 'notes', 'out.json'))).toBe(false);
  });

  test('an existing read-only --output-file (as nobody when run as root)', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'out.json'), 'old');
    chmodSync(join(dir, 'out.json'), 0o444);
    await usageAsUser(
      ['json', '--output-file', 'out.json'],
      dir,
      '--output-file out.json: the file exists and is not writable',
    );
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe('old');
  });

  test('batch: a .txt entry that is a symlink to nothing, or a directory; nothing classified', async () => {
    const dir = scratch();
    mkdirSync(join(dir, 'gpt'));
    writeFileSync(join(dir, 'gpt', 'a.txt'), '{"n": 1}');
    symlinkSync(join(dir, 'nowhere.txt'), join(dir, 'gpt', 'b.txt'));
    await usage(['batch', 'gpt', '--workers', '0'], dir, 'llmjson: cannot read gpt/b.txt: no such file');
    mkdirSync(join(dir, 'claude'));
    writeFileSync(join(dir, 'claude', 'a.txt'), '{"n": 1}');
    mkdirSync(join(dir, 'claude', 'c.txt'));
    await usage(['batch', 'claude', '--workers', '0'], dir, 'llmjson: cannot read claude/c.txt: it is a directory');
  });

  test('batch: a JSONL file without read permission (as nobody when run as root)', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'run.jsonl'), '{"text": "{}"}\n');
    chmodSync(join(dir, 'run.jsonl'), 0o000);
    await usageAsUser(
      ['batch', 'run.jsonl', '--workers', '0'],
      dir,
      'llmjson: cannot read run.jsonl: permission denied',
    );
  });

  test('batch: a second --report that cannot be written, or an --out under a regular file', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'run.jsonl'), '{"text": "{}"}\n');
    mkdirSync(join(dir, 'report.md'));
    await usage(
      ['batch', 'run.jsonl', '--report', 'report.json', '--report', 'report.md', '--workers', '0'],
      dir,
      '--report report.md is a directory',
    );
    await usage(['batch', 'run.jsonl', '--out', 'run.jsonl/out', '--workers', '0'], dir, '--out run.jsonl/out: ');
    expect(existsSync(join(dir, 'report.json'))).toBe(false);
  });
});

describe('files read whole that are not regular files: exit 2 with one line, before any input is read', () => {
  // The built command in a child process, with a deadline: a command that reads /dev/zero or
  // waits on a FIFO would hang this process (the read is synchronous) rather than fail.
  const BIN = join(REPOSITORY, 'packages/cli/bin/llmjson.js');
  const DEADLINE_MS = 15_000;
  const PROMPTS = { prompts: { x: { prompt: 'Say {{t}}', 'response-type': 'text' } } };

  /** A folder with a FIFO (`fifo`), a record file, a prompt file, and directories whose entry is `special`. */
  const setup = (special: string) => {
    const dir = scratch();
    const made = spawnSync('mkfifo', [join(dir, 'fifo')]);
    expect(made.status).toBe(0);
    const target = special === 'fifo' ? join(dir, 'fifo') : special;
    writeFileSync(join(dir, 'run.jsonl'), '{"text": "{}"}\n');
    writeFileSync(join(dir, 'prompts.json'), JSON.stringify(PROMPTS));
    mkdirSync(join(dir, 'responses'));
    writeFileSync(join(dir, 'responses', 'a.txt'), '{}');
    symlinkSync(target, join(dir, 'responses', 'x.txt'));
    mkdirSync(join(dir, 'catalog'));
    writeFileSync(join(dir, 'catalog', 'a.json'), JSON.stringify(PROMPTS));
    symlinkSync(target, join(dir, 'catalog', 'b.json'));
    return { dir, file: special === 'fifo' ? 'fifo' : special };
  };

  const server = ['--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];
  const cases: [string, (file: string) => string[], string][] = [
    ['jsonl --schema', (f) => ['jsonl', '--schema', f], 'SCHEMA_INVALID: schema file '],
    ['json --schema', (f) => ['json', '--schema', f], 'SCHEMA_INVALID: schema file '],
    ['batch --schema', (f) => ['batch', 'run.jsonl', '--schema', f, '--workers', '0'], 'SCHEMA_INVALID: schema file '],
    ['compile', (f) => ['compile', f], 'SCHEMA_INVALID: schema file '],
    ['check', (f) => ['check', f], 'cannot read '],
    ['check, an entry of its directory', () => ['check', 'catalog'], 'cannot read catalog/b.json: '],
    ['run --prompts', (f) => ['run', '--prompts', f, '--id', 'x', ...server], 'cannot read --prompts file '],
    [
      'run --vars',
      (f) => ['run', '--prompts', 'prompts.json', '--id', 'x', '--vars', f, ...server],
      'cannot read --vars file ',
    ],
    ['tools --tools', (f) => ['tools', '--tools', f], 'cannot read --tools file '],
    ['batch, the records file', (f) => ['batch', f, '--workers', '0'], 'cannot read '],
    [
      'batch, a .txt entry of its directory',
      () => ['batch', 'responses', '--workers', '0'],
      'cannot read responses/x.txt: ',
    ],
  ];

  test.each(['/dev/zero', 'fifo'])(
    '%s as every file read whole',
    (special) => {
      const { dir, file } = setup(special);
      const kind = special === 'fifo' ? 'a FIFO' : 'a character device';
      for (const [name, argv, message] of cases) {
        const r = spawnSync(process.execPath, [BIN, ...argv(file)], {
          cwd: dir,
          input: '',
          encoding: 'utf8',
          timeout: DEADLINE_MS,
          killSignal: 'SIGKILL',
        });
        expect(r.signal, `${name}: still running after ${DEADLINE_MS} ms`).toBe(null);
        expect(r.status, name).toBe(2);
        expect(r.stdout, name).toBe('');
        expect(stderrLines(r.stderr), name).toEqual([expect.stringContaining(message)]);
        expect(r.stderr, name).toContain(`: it is not a regular file (${kind})`);
      }
    },
    240_000,
  );

  test('a file larger than the cap is refused before it is read (the cap said in the message)', async () => {
    const dir = scratch();
    // A sparse file: 64 MiB and one byte, costing no disk.
    writeFileSync(join(dir, 'big.json'), '');
    truncateSync(join(dir, 'big.json'), 64 * 1024 * 1024 + 1);
    writeFileSync(join(dir, 'prompts.json'), JSON.stringify(PROMPTS));
    await usage(['tools', '--tools', 'big.json'], dir, 'cannot read --tools file big.json: larger than 67108864 bytes');
    await usage(
      ['run', '--prompts', 'big.json', '--id', 'x', ...server],
      dir,
      'cannot read --prompts file big.json: larger than 67108864 bytes',
    );
    await usage(['jsonl', '--schema', 'big.json'], dir, 'big.json: larger than 67108864 bytes');
  });

  const usage = async (argv: string[], cwd: string, message: string) => {
    const r = await runCli(argv, { cwd });
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(stderrLines(r.err)).toEqual([expect.stringContaining(message)]);
  };

  test('an output that is an input (json --output-file, compile -o, run --output-file): exit 2 naming both, the input untouched', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'answer.json'), '{"a": 1}');
    writeFileSync(join(dir, 'item.schema.json'), '{"type": "object"}');
    writeFileSync(join(dir, 'prompts.json'), JSON.stringify(PROMPTS));
    writeFileSync(join(dir, 'vars.json'), '{"t": "hi"}');
    symlinkSync(join(dir, 'answer.json'), join(dir, 'link.json'));
    await usage(
      ['json', 'answer.json', '--output-file', 'link.json'],
      dir,
      'llmjson: --output-file link.json is the same file as the input file answer.json: ',
    );
    await usage(
      ['json', 'answer.json', '--schema', 'item.schema.json', '--output-file', 'item.schema.json'],
      dir,
      '--output-file item.schema.json is the same file as --schema item.schema.json',
    );
    await usage(
      ['compile', 'item.schema.json', '-o', './item.schema.json'],
      dir,
      '-o ./item.schema.json is the same file as the schema item.schema.json',
    );
    await usage(
      ['run', '--prompts', 'prompts.json', '--id', 'x', '--vars', 'vars.json', '--output-file', 'vars.json', ...server],
      dir,
      '--output-file vars.json is the same file as --vars vars.json',
    );
    expect(readFileSync(join(dir, 'answer.json'), 'utf8')).toBe('{"a": 1}');
    expect(readFileSync(join(dir, 'item.schema.json'), 'utf8')).toBe('{"type": "object"}');
    expect(readFileSync(join(dir, 'vars.json'), 'utf8')).toBe('{"t": "hi"}');
  });
});

describe('messages quote user input at most 200 characters', () => {
  const huge = 'a'.repeat(1_000_000);

  test.each([
    ['a 10^6-character --schema-ref (well-formed, not found)', ['jsonl', '--schema-ref', huge], 'SCHEMA_NOT_FOUND'],
    ['a 10^6-character --schema-ref (malformed)', ['jsonl', '--schema-ref', `${huge}/`], 'SCHEMA_REF_INVALID'],
    ['a 10^6-character --schema', ['jsonl', '--schema', huge], 'SCHEMA_INVALID'],
    [
      'a 10^6-character --schema-root',
      ['jsonl', '--schema-root', huge, '--schema-ref', 'no.such.v1'],
      'SCHEMA_NOT_FOUND',
    ],
    ['a 10^6-character input file', ['jsonl', huge], 'cannot read input file'],
    ['a 10^6-character --output-file', ['json', '--output-file', `${huge}/x`], '--output-file'],
    ['a 10^6-character --input', ['jsonl', '--input', huge], 'Allowed choices'],
    ['a 10^6-character --max-line-length', ['jsonl', '--max-line-length', huge], 'must be a positive integer'],
    ['a 10^6-character unknown option', ['jsonl', `--${huge}`], 'unknown option'],
    ['a 10^6-character unknown command', [huge], 'unknown command'],
    ['a 10^6-character batch input', ['batch', huge], 'cannot read'],
    ['a 10^6-character batch --out', ['batch', 'package.json', '--out', `${huge}/x`], '--out'],
    ['a 10^6-character check path', ['check', huge], 'cannot read'],
  ])('%s: stderr under 1 KB, exit 2', async (_name, argv, message) => {
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).toContain('… (10000');
    expect(r.err.length).toBeLessThan(1024);
  });

  test('messages of layers below that quote in full are bounded all the same (2 000 characters)', async () => {
    for (const argv of [
      ['elements', '--path', `$.${huge}!`],
      ['jsonl', '--discriminator', huge, '--schema', 'fixtures/schemas/definition-relationship.schema.json'],
    ]) {
      const r = await runCli(argv);
      expect(r.code).toBe(2);
      expect(r.err.length).toBeLessThan(2100);
    }
  });
});

describe('messages about the answer are bounded too', () => {
  test('a 10^6-character key the schema forbids: the diagnostic (jsonl) and the failure (json) stay under 2 KB', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'closed.schema.json'), '{"type": "object", "additionalProperties": false}');
    const line = `${JSON.stringify({ ['k'.repeat(1_000_000)]: 1 })}\n`;
    for (const mode of ['jsonl', 'json']) {
      for (const format of ['text', 'json']) {
        const r = await runCli([mode, '--schema', 'closed.schema.json', '--diagnostics', format], {
          cwd: dir,
          stdin: chunkText(line, 65536),
        });
        expect(r.code, `${mode} ${format}`).toBe(mode === 'json' ? 4 : 0);
        expect(r.err, `${mode} ${format}`).toContain('additional properties');
        // --diagnostics json keeps the validator's errors whole (data for programs): only the
        // human message is cut there.
        for (const l of stderrLines(r.err)) {
          const shown = l.startsWith('{') ? (JSON.parse(l) as { message: string }).message : l;
          expect(shown.length, `${mode} ${format}`).toBeLessThan(2100);
        }
      }
    }
  });
});

describe('values as deep as the engines accept (512 levels) print', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  const nested = (levels: number): unknown => {
    let value: unknown = [];
    for (let i = 1; i < levels; i++) value = [value];
    return value;
  };

  test.each([
    ['jsonl', deep(512), nested(512)],
    ['json', deep(512), nested(512)],
    ['salvage', `Here: ${deep(512)}`, nested(512)],
    ['elements', deep(512), nested(511)],
    ['partial', deep(512), nested(512)],
  ])('%s: printed, in the envelope and in the output file', async (mode, input, value) => {
    const dir = scratch();
    const modeArgs = mode === 'partial' ? ['--emit', 'snapshots'] : [];
    const printed = await runCli([mode, ...modeArgs], { stdin: chunkText(input, 64) });
    expect(printed.code).toBe(0);
    expect(printed.lines.at(-1)).toEqual(value);
    const api = await runCli([mode, '--api', '--output-file', join(dir, 'out.json')], { stdin: chunkText(input, 64) });
    expect(api.code).toBe(0);
    const envelope = api.lines[0] as { status: string; result: { json: unknown } };
    expect(envelope.status).toBe('succeeded');
    const json = mode === 'json' || mode === 'partial' ? value : [value];
    expect(envelope.result.json).toEqual(json);
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))).toEqual(json);
  });

  test('partial --emit changes: paths 511 keys long print too', async () => {
    const r = await runCli(['partial'], { stdin: chunkText(deep(512), 64) });
    expect(r.code).toBe(0);
    expect(r.lines.flat()).toContainEqual({ op: 'complete', path: [] });
  });
});

describe('partial documents that are scalars', () => {
  test.each([
    ['null', null],
    ['"plain"', 'plain'],
    ['42', 42],
  ])('%s with --emit snapshots prints its value last, exit 0', async (text, value) => {
    const r = await runCli(['partial', '--emit', 'snapshots'], { stdin: [text, '\n'] });
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.lines.at(-1)).toEqual(value);
  });
});

describe('schemas that would hang or overflow: refused before any input is read', () => {
  const schemas = {
    'self.schema.json': { $ref: '#' },
    'all-of.schema.json': { allOf: [{ $ref: '#' }] },
    'lookahead.schema.json': { type: 'string', pattern: '^(?=a)' },
  };
  const setup = () => {
    const dir = scratch();
    for (const [name, schema] of Object.entries(schemas)) writeFileSync(join(dir, name), JSON.stringify(schema));
    return dir;
  };

  test.each(['jsonl', 'json', 'salvage', 'partial'])(
    '%s: every such --schema is exit 2 with one line',
    async (mode) => {
      const dir = setup();
      for (const name of Object.keys(schemas)) {
        // No stdin: it never ends, so a command that read it first would hang the test.
        const r = await runCli([mode, '--schema', name], { cwd: dir });
        expect(r.code, name).toBe(2);
        expect(stderrLines(r.err), name).toEqual([expect.stringMatching(/SCHEMA_INVALID: .*(cycle|linear-time)/)]);
      }
    },
  );

  test('check: a catalog whose prompts hold such schemas is exit 2, each problem named', async () => {
    const dir = scratch();
    writeFileSync(
      join(dir, 'prompts.json'),
      JSON.stringify({
        prompts: {
          loop: { prompt: 'x', 'response-type': 'json', schema: { allOf: [{ $ref: '#' }] } },
          redos: { prompt: 'x', 'response-type': 'jsonl', schema: { pattern: 'a(?!b)' } },
        },
      }),
    );
    const r = await runCli(['check', 'prompts.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/prompt "loop": SCHEMA_INVALID: .*# -> #\/allOf\/0 -> #/);
    expect(r.err).toMatch(/prompt "redos": SCHEMA_INVALID: .*"a\(\?!b\)"/);
  });

  test('a catastrophic pattern validates at once: 40 characters of "a…a!" are a schema diagnostic', async () => {
    const input = `${JSON.stringify({ word: `${'a'.repeat(39)}!` })}\n{"word":"aaa"}\n`;
    const r = await runCli(['jsonl', '--schema', 'fixtures/schemas/catastrophic-pattern.schema.json'], {
      stdin: [input],
    });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ word: 'aaa' }]);
    expect(r.err).toMatch(/line 1.*schema: at \/word: must match pattern/);
  });
});
