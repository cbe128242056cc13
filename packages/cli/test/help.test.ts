/**
 * `--help`: every example is a command line the parser accepts, whose schema references
 * resolve to built-in schemas; each mode lists exactly the options it takes, and rejects the
 * others; --fail-fast and --retries are shown with examples.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '@llmjson/cli';
import { createSchemaRegistry, defaultSchemaRoots } from '@llmjson/contracts';
import { describe, expect, test } from 'vitest';
import { REPOSITORY, runCli } from '../../../test/support/cli.js';

const COMMANDS = ['jsonl', 'json', 'salvage', 'partial', 'elements', 'check', 'compile', 'run', 'batch', 'demo'];

const help = async (command?: string) => (await runCli(command === undefined ? ['--help'] : [command, '--help'])).out;

/** The example lines of a help text: the indented lines after "Examples:", up to a blank line. */
function examples(text: string): string[] {
  const start = text.indexOf('\nExamples:\n');
  if (start === -1) return [];
  const lines: string[] = [];
  for (const line of text.slice(start + '\nExamples:\n'.length).split('\n')) {
    if (line.trim() === '') break;
    lines.push(line.trim());
  }
  return lines;
}

/** The arguments of the llmjson command in a shell line: quotes removed, redirections and other pipeline stages left out. */
function llmjsonArgv(line: string): string[] {
  const stage = line.split(' | ').find((s) => s.trim().startsWith('llmjson '));
  expect(stage, line).toBeDefined();
  const tokens: string[] = [];
  for (const match of (stage as string).matchAll(/'([^']*)'|(\S+)/g)) tokens.push(match[1] ?? (match[2] as string));
  const argv: string[] = [];
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (token === '<' || token === '>') i++;
    else if (!/^\d?>/.test(token)) argv.push(token);
  }
  return argv;
}

async function parses(argv: string[]): Promise<{ code: number; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const code = await main(
    argv,
    { stdin: new PassThrough(), stdout, stderr, cwd: REPOSITORY, env: {} },
    { parseOnly: true },
  );
  return { code, err };
}

const EMPTY = mkdtempSync(join(tmpdir(), 'llmjson-help-'));

describe('every help example is real', () => {
  // Only the built-in root (an empty workspace, no user root): what a new user has.
  const registry = createSchemaRegistry({
    roots: defaultSchemaRoots({ cwd: EMPTY, home: EMPTY, env: {} }),
  });

  test.each([undefined, ...COMMANDS])('llmjson %s --help', async (command) => {
    const lines = examples(await help(command));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const argv = llmjsonArgv(line);
      expect(await parses(argv), line).toEqual({ code: 0, err: '' });
      argv.forEach((arg, i) => {
        if (arg === '--schema-ref') expect(() => registry.resolve(argv[i + 1] as string), line).not.toThrow();
      });
    }
  });

  test('the parse-only run rejects what the parser rejects', async () => {
    expect((await parses(['jsonl', '--schema-ref'])).code).toBe(2);
    expect((await parses(['json', '--bogus'])).code).toBe(2);
  });
});

describe('each mode lists only its options', () => {
  const COMMON = [
    '--input',
    '--api',
    '--output-file',
    '--diagnostics',
    '--schema',
    '--schema-ref',
    '--schema-root',
    '--discriminator',
    '--coerce',
    '--help',
  ];
  const OWN: Record<string, string[]> = {
    jsonl: ['--strict', '--require', '--fail-fast', '--max-line-length'],
    json: ['--fail-fast', '--tolerate', '--max-length'],
    salvage: ['--strict', '--require'],
    partial: ['--fail-fast', '--emit'],
    elements: ['--strict', '--require', '--fail-fast', '--path'],
  };
  const ALL = [...new Set(Object.values(OWN).flat())];
  /** A value for each option that takes one. */
  const VALUE: Record<string, string> = {
    '--require': '1',
    '--max-line-length': '10',
    '--tolerate': 'none',
    '--max-length': '10',
    '--path': '$.items',
    '--emit': 'both',
  };

  const listed = (text: string) => {
    const options = text.slice(text.indexOf('\nOptions:\n'), text.indexOf('\nExamples:\n'));
    return [...options.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1] as string).sort();
  };

  test.each(Object.keys(OWN))('%s', async (mode) => {
    const own = OWN[mode] as string[];
    expect(listed(await help(mode))).toEqual([...COMMON, ...own].sort());
    for (const option of ALL) {
      const argv = [mode, option, ...(VALUE[option] === undefined ? [] : [VALUE[option]])];
      const r = await parses(argv);
      if (own.includes(option)) expect(r, option).toEqual({ code: 0, err: '' });
      else {
        expect(r.code, option).toBe(2);
        expect(r.err, option).toContain(`unknown option '${option}'`);
      }
    }
  });
});

describe('--fail-fast and --retries are shown with examples', () => {
  test('llmjson --help', async () => {
    const lines = examples(await help());
    expect(lines.some((l) => l.includes('--fail-fast') && l.startsWith('curl'))).toBe(true);
    expect(lines.some((l) => l.includes('llmjson run') && l.includes('--retries') && l.includes('--fail-fast'))).toBe(
      true,
    );
  });

  test.each(['run', 'json', 'jsonl', 'partial', 'elements'])('llmjson %s --help', async (command) => {
    const text = await help(command);
    expect(text).toMatch(/^ {2}--fail-fast\b/m);
    expect(examples(text).some((l) => l.includes('--fail-fast'))).toBe(true);
    if (command === 'run') {
      expect(text).toMatch(/^ {2}--retries <n>/m);
      expect(examples(text).some((l) => l.includes('--retries'))).toBe(true);
    }
  });
});
