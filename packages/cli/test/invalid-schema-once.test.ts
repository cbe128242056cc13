/**
 * A schema its dialect's meta-schema rejects is said in one line (exit 2, before any input is
 * read) that names where the schema came from, the keyword, its path in the schema and the bad
 * value — each once: `--schema` (a file or a module's export) in every stream mode and batch,
 * a prompt's schema in `check`, a tool's schema in `tools --tools`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'llmjson-invalid-schema-'));
const CASES = [
  { name: 'at the root', schema: { type: 'strin' }, path: '#/type' },
  { name: 'in a property', schema: { properties: { a: { type: 'strin' } } }, path: '#/properties/a/type' },
] as const;

const count = (text: string, piece: string) => text.split(piece).length - 1;

/** One line, naming `source`, the keyword, the path and the value, each once. */
function expectOneLine(err: string, source: string, path: string): void {
  const lines = err.split('\n').filter((line) => line !== '');
  expect(lines, err).toHaveLength(1);
  const line = lines[0] as string;
  expect(line).toMatch(/^llmjson: SCHEMA_INVALID: /);
  expect(count(line, source), line).toBe(1);
  expect(count(line, `"type" at ${path} is "strin"`), line).toBe(1);
  expect(count(line, '"strin"'), line).toBe(1);
}

describe.each(CASES)('an invalid schema $name', ({ name, schema, path }) => {
  const file = join(dir, `${name.replace(/ /g, '-')}.schema.json`);
  writeFileSync(file, JSON.stringify(schema));
  const module = join(dir, `${name.replace(/ /g, '-')}.mjs`);
  writeFileSync(module, `export const Item = ${JSON.stringify(schema)};\n`);

  test.each(['jsonl', 'json', 'salvage', 'partial', 'elements'])(
    '%s --schema FILE and module.mjs#Item',
    async (mode) => {
      const fromFile = await runCli([mode, '--schema', file], { stdin: ['{}\n'] });
      expect(fromFile.code).toBe(2);
      expect(fromFile.out).toBe('');
      expectOneLine(fromFile.err, `--schema ${file}`, path);
      const fromModule = await runCli([mode, '--schema', `${module}#Item`], { stdin: ['{}\n'] });
      expect(fromModule.code).toBe(2);
      expectOneLine(fromModule.err, `--schema ${module}#Item`, path);
    },
  );

  test('batch --schema FILE', async () => {
    const records = join(dir, 'records.jsonl');
    writeFileSync(records, '{"text":"{}"}\n');
    const r = await runCli(['batch', records, '--schema', file, '--workers', '0']);
    expect(r.code).toBe(2);
    expectOneLine(r.err, `--schema ${file}`, path);
  });

  test('tools --tools FILE: the file and the tool named', async () => {
    const tools = join(dir, `${name.replace(/ /g, '-')}.tools.json`);
    writeFileSync(tools, JSON.stringify({ lookup: schema }));
    const r = await runCli(['tools', '--tools', tools], { stdin: [''] });
    expect(r.code).toBe(2);
    expectOneLine(r.err, `--tools ${tools}: the schema of tool "lookup"`, path);
  });

  test('check: one line for the prompt, then the count', async () => {
    const prompts = join(dir, `${name.replace(/ /g, '-')}.prompts.json`);
    writeFileSync(prompts, JSON.stringify({ prompts: { extract: { prompt: 'x', 'response-type': 'json', schema } } }));
    const r = await runCli(['check', prompts]);
    expect(r.code).toBe(2);
    const lines = r.err.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/prompt "extract": SCHEMA_INVALID: /);
    expect(count(lines[0] as string, `"type" at ${path} is "strin"`)).toBe(1);
    expect(count(lines[0] as string, '"strin"')).toBe(1);
    expect(lines[1]).toBe('0 prompts ok, 1 problem');
  });
});
