/**
 * `--help` says where `--schema` takes a JavaScript module (`module.mjs#Export`): in every
 * command that loads one (the stream modes), and in no other — batch takes a JSON Schema file
 * only (its workers receive the schema as data), and the rest have no `--schema`.
 */
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';

const help = async (command: string) => (await runCli([command, '--help'])).out;

describe('--schema module.mjs#Export in --help', () => {
  test.each(['jsonl', 'json', 'salvage', 'partial', 'elements'])('llmjson %s --help names it', async (command) => {
    const text = await help(command);
    expect(text).toMatch(/--schema <file>[\s\S]*module\.mjs#Export/);
    expect(text).toMatch(/Standard Schema/);
  });

  test.each(['batch', 'tools', 'check', 'compile', 'run', 'demo'])('llmjson %s --help does not', async (command) => {
    expect(await help(command)).not.toContain('module.mjs');
  });

  test('a module given to batch is refused with the reason', async () => {
    const r = await runCli(['batch', 'fixtures/cli/weather-tools.json', '--schema', 'schemas.mjs#Item']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/is a JavaScript module: this command needs a JSON Schema file/);
  });
});
