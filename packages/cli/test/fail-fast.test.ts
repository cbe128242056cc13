/**
 * `--fail-fast` on json, jsonl, partial and elements: the first violation of the schema ends
 * the run — reading stops (stdin here never ends: a run passes only if it stops by itself),
 * exit 4, one stderr line naming the path and the rule — and values already printed stay
 * printed. Prose and syntax lines are not violations.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { runCli } from '../../../test/support/cli.js';

const MAIN = fileURLToPath(new URL('../bin/llmjson.js', import.meta.url));

const ITEM = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
const DOC = { type: 'object', properties: { items: { type: 'array', items: ITEM } } };

const dir = mkdtempSync(join(tmpdir(), 'llmjson-fail-fast-'));
const itemSchema = join(dir, 'item.schema.json');
const docSchema = join(dir, 'doc.schema.json');
writeFileSync(itemSchema, JSON.stringify(ITEM));
writeFileSync(docSchema, JSON.stringify(DOC));

/** `head` in small chunks, then good text forever: only a run that stops by itself ends. */
function* thenForever(head: string, more: (i: number) => string) {
  yield* chunkText(head, 5);
  for (let i = 0; ; i++) yield more(i);
}

const stderrLines = (err: string) => err.split('\n').filter((l) => l !== '');
const JSONL = '{"n": 1}\nHere you go:\n{"n": 2}\n{"n": "three"}\n';

describe('--fail-fast', () => {
  test('jsonl: the values before the bad line are printed, then one line naming path and rule, exit 4', async () => {
    const r = await runCli(['jsonl', '--schema', itemSchema, '--fail-fast'], {
      stdin: thenForever(JSONL, (i) => `{"n": ${i}}\n`),
    });
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([{ n: 1 }, { n: 2 }]);
    const lines = stderrLines(r.err);
    // The prose line is reported and skipped as always; the violation is the one last line.
    expect(lines.filter((l) => !l.startsWith('    |'))).toEqual([
      expect.stringMatching(/^llmjson jsonl: line 2, column 1, offset 9: prose: /),
      'llmjson jsonl: --fail-fast: line 4: /n breaks rule "type": the value at /n is a string, but the schema allows integer',
    ]);
  });

  test('jsonl without it: the bad line is skipped and the run goes to the end, exit 0', async () => {
    const r = await runCli(['jsonl', '--schema', itemSchema], { stdin: chunkText(`${JSONL}{"n": 4}\n`, 5) });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
  });

  test('jsonl: a syntax line is not a violation', async () => {
    const r = await runCli(['jsonl', '--schema', itemSchema, '--fail-fast', '--diagnostics', 'none'], {
      stdin: chunkText('{"n": 1,,}\n{"n": 2}\n', 3),
    });
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.lines).toEqual([{ n: 2 }]);
  });

  test('json: stops inside the document, at the first subtree that fails, with nothing printed', async () => {
    const r = await runCli(['json', '--schema', docSchema, '--fail-fast'], {
      stdin: thenForever('Sure:\n```json\n{"items": [{"n": 1}, {"n": "x"}', (i) => `, {"n": ${i}}`),
    });
    expect(r.code).toBe(4);
    expect(r.out).toBe('');
    // A `violation` as soon as the string starts, or a `schema` diagnostic when {"n": "x"} closes.
    expect(stderrLines(r.err)).toEqual([
      expect.stringMatching(/^llmjson json: --fail-fast: offset \d+: \/items\/1\/n breaks rule "type": /),
    ]);
  });

  test('partial: the changes printed before stay printed', async () => {
    const r = await runCli(['partial', '--schema', docSchema, '--fail-fast'], {
      stdin: thenForever('{"items": [{"n": 1}, {"n": "x"}', (i) => `, {"n": ${i}}`),
    });
    expect(r.code).toBe(4);
    expect(r.out).toContain('"value":1');
    expect(r.out).not.toContain('"value":"x"}]\n{');
    const lines = stderrLines(r.err);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^llmjson partial: --fail-fast: offset \d+: \/items\/1\/n breaks rule "type": /);
  });

  test('elements: the elements before the bad one are printed', async () => {
    const r = await runCli(['elements', '--schema', docSchema, '--path', '$.items', '--fail-fast'], {
      stdin: thenForever('{"items": [{"n": 1}, {"m": 2}', (i) => `, {"n": ${i}}`),
    });
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([{ n: 1 }]);
    expect(stderrLines(r.err)).toEqual([
      expect.stringMatching(/^llmjson elements: --fail-fast: offset \d+: the value breaks rule "required": /),
    ]);
  });

  test('a provider stream (--input openai) stops the same way', async () => {
    const event = (content: string) =>
      `data: ${JSON.stringify({ id: 'c1', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const r = await runCli(['jsonl', '--input', 'openai', '--schema', itemSchema, '--fail-fast'], {
      stdin: thenForever(
        JSONL.split(/(?<=\n)/)
          .map(event)
          .join(''),
        (i) => event(`{"n": ${i}}\n`),
      ),
    });
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([{ n: 1 }, { n: 2 }]);
    expect(r.err).toContain('llmjson jsonl: --fail-fast: line 4: /n breaks rule "type"');
  });

  test('--diagnostics json prints the triggering diagnostic too; --api says CONTRACT_VALIDATION_FAILED', async () => {
    const json = await runCli(['jsonl', '--schema', itemSchema, '--fail-fast', '--diagnostics', 'json'], {
      stdin: chunkText(JSONL, 4),
    });
    const lines = stderrLines(json.err);
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[1] as string)).toMatchObject({ reason: 'violation', line: 4, path: '/n', rule: 'type' });
    expect(lines[2]).toBe(
      'llmjson jsonl: --fail-fast: line 4: /n breaks rule "type": the value at /n is a string, but the schema allows integer',
    );

    const api = await runCli(['jsonl', '--schema', itemSchema, '--fail-fast', '--api', '--diagnostics', 'none'], {
      stdin: chunkText(JSONL, 4),
    });
    expect(api.code).toBe(4);
    expect(api.lines).toEqual([
      expect.objectContaining({
        status: 'failed',
        error: expect.objectContaining({ reason: 'CONTRACT_VALIDATION_FAILED', detail: 'SCHEMA_MISMATCH' }),
      }),
    ]);
  });

  test('without a schema it is a usage error (exit 2); salvage has no --fail-fast; --help shows it with an example', async () => {
    const none = await runCli(['jsonl', '--fail-fast'], { stdin: [] });
    expect(none.code).toBe(2);
    expect(none.err).toContain('--fail-fast needs a schema');
    expect((await runCli(['salvage', '--fail-fast'], { stdin: [] })).code).toBe(2);
    for (const mode of ['json', 'jsonl', 'partial', 'elements']) {
      const help = await runCli([mode, '--help']);
      expect(help.out).toContain('--fail-fast');
      expect(help.out).toMatch(new RegExp(`llmjson ${mode} .*--fail-fast`));
    }
  });

  test('the binary exits 4 at the bad line while its stdin is still open', async () => {
    const child = spawn(process.execPath, [MAIN, 'jsonl', '--schema', itemSchema, '--fail-fast'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdin.on('error', () => {});
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write('{"n": 1}\n{"n": 2}\n{"n": "three"}\n');
    // stdin is never ended: the command stops by itself.
    expect(await exited).toBe(4);
    expect(out).toBe('{"n":1}\n{"n":2}\n');
    expect(err).toBe(
      'llmjson jsonl: --fail-fast: line 3: /n breaks rule "type": the value at /n is a string, but the schema allows integer\n',
    );
  });
});
