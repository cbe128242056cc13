/**
 * Usage errors quote what the command line gave (a file name from a glob, an option): a control
 * or bidi character in it is written as a \u escape, never raw, and the message stays one line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';

const TITLE = '\u001b]0;PWNED\u0007';
/** The characters of `text` a terminal acts on (its line-ending newlines aside). */
const raw = (text: string) =>
  [...text].filter((c) => {
    const code = c.codePointAt(0) as number;
    return (
      (code < 0x20 && code !== 0x0a) ||
      (code >= 0x7f && code <= 0x9f) ||
      [0x061c, 0x200e, 0x200f, 0x2028, 0x2029].includes(code) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069)
    );
  });

describe('usage errors quote the command line without its control characters', () => {
  test.each([
    [['jsonl', `a${TITLE}.txt`], 'llmjson: cannot read input file a\\u001b]0;PWNED\\u0007.txt'],
    [['json', `--x${TITLE}`], "error: unknown option '--x\\u001b]0;PWNED\\u0007'"],
    [
      ['jsonl', '--output-file', `/no/such\u202eexe.json`],
      'llmjson: --output-file /no/such\\u202eexe.json: cannot write there',
    ],
    [['partial', '--schema', `no\nsuch\u009b.json`], 'no\\u000asuch\\u009b.json'],
  ])('%j: exit 2, escaped', async (argv, expected) => {
    const r = await runCli(argv, { stdin: [] });
    expect(r.code).toBe(2);
    expect(r.err).toContain(expected);
    expect(raw(r.err)).toEqual([]);
    expect(r.err.split('\n').filter((l) => l !== '' && !l.startsWith('(run with --help'))).toHaveLength(1);
  });
});

test('llmjson check: a prompt id with control characters is quoted escaped, in problems and in ok lines', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-check-terminal-'));
  const file = join(dir, 'prompts.json');
  writeFileSync(
    file,
    JSON.stringify({
      prompts: {
        [`bad${TITLE}`]: { prompt: 'x', 'response-type': 'json' },
        [`ok\u202e${TITLE}`]: { prompt: 'x', 'response-type': 'text' },
      },
    }),
  );
  const r = await runCli(['check', file], { stdin: [] });
  expect(r.code).toBe(2);
  expect(r.err).toContain('prompt "bad\\u001b]0;PWNED\\u0007": ');
  expect(r.out).toContain('prompt "ok\\u202e\\u001b]0;PWNED\\u0007": text');
  expect(raw(r.err + r.out)).toEqual([]);
});
