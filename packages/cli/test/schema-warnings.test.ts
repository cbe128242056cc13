/**
 * The CLI prints a schema's warnings (a `format` ajv does not know…) once per schema, on stderr,
 * through the terminal-text helpers, and they change no exit code: `llmjson check` for each
 * schema it checks (a schema file shared by prompts once), `llmjson compile` for the schema it
 * compiles. Nothing else is printed about them.
 */

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';

const PORTS_WARNING =
  'warning: unknown format "ports" at #/properties/port/format is not checked (any string passes); use a format ajv-formats knows, or remove it';

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-warnings-'));
  const schemas = join(dir, 'schemas', 'prompt-contracts', 'demo', 'ports');
  mkdirSync(schemas, { recursive: true });
  writeFileSync(
    join(schemas, 'v1.schema.json'),
    JSON.stringify({ type: 'object', properties: { port: { type: 'string', format: 'ports' } } }),
  );
  writeFileSync(
    join(dir, 'prompts.json'),
    JSON.stringify({
      prompts: {
        a: { prompt: 'x', 'response-type': 'jsonl', schema_ref: 'demo.ports.v1' },
        b: { prompt: 'y', 'response-type': 'json', schema_ref: 'demo.ports.v1' },
        c: {
          prompt: 'z',
          'response-type': 'json',
          schema: {
            $schema: 'http://json-schema.org/draft-04/schema#',
            properties: { at: { format: 'when\u001b[31m' } },
          },
        },
        d: { prompt: 'w', 'response-type': 'json', schema: { type: 'object' } },
      },
    }),
  );
  return dir;
}

describe('llmjson check', () => {
  test('prints each schema warning once, on stderr, and still exits 0', async () => {
    const dir = workspace();
    const r = await runCli(['check', 'prompts.json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(4);
    const lines = r.err.trim().split('\n');
    expect(lines).toEqual([
      `prompts.json: prompt "a": demo.ports.v1 (workspace: ${join(dir, 'schemas', 'prompt-contracts', 'demo', 'ports', 'v1.schema.json')}): ${PORTS_WARNING}`,
      'prompts.json: prompt "c": inline schema: warning: unknown format "when\\u001b[31m" at #/properties/at/format is not checked (any string passes); use a format ajv-formats knows, or remove it',
      '4 prompts ok, 0 problems',
    ]);
  });
});

describe('llmjson compile', () => {
  test('prints the warnings on stderr and the module on stdout, exit 0', async () => {
    const dir = workspace();
    const file = join(dir, 'schemas', 'prompt-contracts', 'demo', 'ports', 'v1.schema.json');
    const r = await runCli(['compile', file], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.out).toContain("'~standard'");
    expect(r.err).toBe(`${file}: ${PORTS_WARNING}\n`);
  });

  test('a schema without warnings prints nothing on stderr', async () => {
    const dir = workspace();
    writeFileSync(join(dir, 'quiet.json'), JSON.stringify({ type: 'object', properties: { a: { format: 'date' } } }));
    const r = await runCli(['compile', 'quiet.json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
  });
});
