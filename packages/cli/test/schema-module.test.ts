/**
 * `--schema module.mjs#Export`: a Standard Schema (here zod 4) or a JSON Schema defined in
 * code validates on the command line, and keeps and drops exactly the lines the equivalent
 * JSON Schema file does.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { runCli } from '../../../test/support/cli.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MODULE = join(ROOT, 'fixtures/schemas/definition-relationship.zod.mjs');
const JSON_FILE = join(ROOT, 'fixtures/schemas/definition-relationship.schema.json');
const ANSWER = readFileSync(join(ROOT, 'fixtures/answers/definition-relationship.txt'), 'utf8');

const cli = (argv: string[], input = ANSWER, chunk = 7) => runCli(argv, { stdin: chunkText(input, chunk) });

/** Diagnostic lines without their message text (vendors word messages differently). */
const shapes = (err: string) =>
  err
    .trim()
    .split('\n')
    .map((line) => line.replace(/^(llmjson \w+: line \d+, column \d+, offset \d+: \w+)(: branch "\w+")?.*$/, '$1$2'));

describe('--schema with a JavaScript module', () => {
  test('jsonl with a zod export keeps and drops the lines the JSON Schema file does', async () => {
    const json = await cli(['jsonl', '--schema', JSON_FILE]);
    expect(json.code).toBe(0);
    expect(json.lines.length).toBeGreaterThan(0);
    for (const spec of [`${MODULE}#Extraction`, MODULE]) {
      const zod = await cli(['jsonl', '--schema', spec]);
      expect(zod.code).toBe(0);
      expect(zod.lines).toEqual(json.lines);
      expect(shapes(zod.err)).toEqual(shapes(json.err));
    }
  });

  test('every stream mode takes it: salvage, elements, partial, json', async () => {
    const item = '{"type":"definition","entity":"ATP","definition":"energy"}';
    const bad = '{"type":"definition","entity":"","definition":"x"}';
    const salvage = await cli(['salvage', '--schema', `${MODULE}#Definition`], `Here: ${item} and ${bad}`);
    expect(salvage.lines).toEqual([JSON.parse(item)]);
    expect(salvage.err).toContain('schema');
    const elements = await cli(['elements', '--schema', `${MODULE}#ExtractionList`], `[${item},${bad}]`);
    expect(elements.code).toBe(0);
    expect(elements.lines).toEqual([JSON.parse(item)]);
    expect(elements.err).toMatch(/branch "definition"/);
    // A document schema that is no array cannot say what its elements are: exit 2 before input.
    expect((await cli(['elements', '--schema', `${MODULE}#Extraction`], `[${item}]`)).code).toBe(2);
    const json = await cli(['json', '--schema', `${MODULE}#Definition`], `\`\`\`json\n${item}\n\`\`\``);
    expect(json.code).toBe(0);
    expect(json.lines).toEqual([JSON.parse(item)]);
    const mismatch = await cli(['json', '--schema', `${MODULE}#Definition`], bad);
    expect(mismatch.code).toBe(4);
    const partial = await cli(['partial', '--schema', `${MODULE}#Definition`, '--emit', 'snapshots'], item, 3);
    expect(partial.code).toBe(0);
    expect(partial.lines.at(-1)).toEqual(JSON.parse(item));
  });

  test('a missing export, a non-schema export, a module that fails to load: exit 2 before reading input', async () => {
    const missing = await cli(['jsonl', '--schema', `${MODULE}#Nope`]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no export "Nope"; it exports .*Extraction/);
    const notSchema = await cli(['jsonl', '--schema', `${MODULE}#notASchema`]);
    expect(notSchema.code).toBe(2);
    expect(notSchema.err).toContain('neither a Standard Schema');
    const absent = await cli(['jsonl', '--schema', join(ROOT, 'fixtures/schemas/absent.mjs')]);
    expect(absent.code).toBe(2);
    expect(absent.err).toContain('SCHEMA_NOT_FOUND: --schema ');
    expect(absent.err).toContain('absent.mjs: no such file');
  });

  test('a module that throws on import or does not parse: exit 2, one line naming the module and why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-schema-module-'));
    try {
      const throws = join(dir, 'throws.mjs');
      writeFileSync(throws, 'throw new Error("schema module exploded");\n');
      const broken = join(dir, 'broken.mjs');
      writeFileSync(broken, 'export const Schema = {;\n');
      for (const [spec, why] of [
        [throws, 'schema module exploded'],
        // The parser's words: Node's, or the test runner's module loader's under vitest.
        [`${broken}#Schema`, ''],
      ] as const) {
        for (const mode of ['jsonl', 'json', 'salvage', 'elements', 'partial']) {
          const r = await cli([mode, '--schema', spec]);
          expect(r.code).toBe(2);
          expect(r.out).toBe('');
          expect(r.err.trim().split('\n')).toHaveLength(1);
          expect(r.err).toContain(`llmjson: --schema ${spec}: the module failed to load: ${why}`);
          expect(r.err.trim().length).toBeGreaterThan(`llmjson: --schema ${spec}: the module failed to load: `.length);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('batch needs a JSON Schema file and says so', async () => {
    const r = await cli(['batch', '--schema', MODULE, join(ROOT, 'fixtures/answers')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('needs a JSON Schema file');
  });
});
