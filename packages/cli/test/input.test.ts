/**
 * `--input`: a model server's streamed body on stdin, decoded to the answer text before the
 * mode reads it — as `curl -N … | llmjson jsonl --input openai` does on a live model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { chunkBytes } from '../../../test/support/chunking.js';
import { runCli } from '../../../test/support/cli.js';
import { corpus } from '../../../test/support/corpora.js';
import { openAISse } from '../../../test/support/provider.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONTRACTS = join(ROOT, 'fixtures/contracts');
const SCHEMA_ROOT = join(CONTRACTS, 'schemas/prompt-contracts');
const answer = (name: string) => readFileSync(join(CONTRACTS, 'answers', `${name}.txt`), 'utf8');

/** Runs the command with the body fed as bytes in chunks of `byteChunk` (splitting UTF-8 characters). */
const cli = (argv: string[], body: string, byteChunk = 7) =>
  runCli(argv, { stdin: chunkBytes(new TextEncoder().encode(body), byteChunk) });

describe('--input openai', () => {
  const args = ['--schema-ref', 'trustgraph.agent_kg_extract.v1', '--schema-root', SCHEMA_ROOT];

  test('jsonl from an OpenAI-compatible SSE body: the same objects and diagnostics as from the text', async () => {
    const fromText = await cli(['jsonl', ...args], answer('agent-kg-extract'));
    for (const input of ['openai', 'auto']) {
      const fromSse = await cli(['jsonl', ...args, '--input', input], openAISse(answer('agent-kg-extract'), 'stop'));
      expect(fromSse.code).toBe(0);
      expect(fromSse.lines).toEqual(fromText.lines);
      expect(fromSse.lines).toHaveLength(3);
      expect(fromSse.err).toBe(fromText.err);
    }
  });

  test('--api: the envelope carries the model, usage and finish reason the stream reported', async () => {
    const r = await cli(
      ['jsonl', ...args, '--input', 'openai', '--api'],
      openAISse(answer('agent-kg-extract'), 'stop'),
    );
    expect(r.lines).toEqual([
      expect.objectContaining({
        status: 'succeeded',
        result: expect.objectContaining({
          model: 'qwen2.5-7b',
          finish_reason: 'stop',
          schema_ref: 'trustgraph.agent_kg_extract.v1',
          usage: expect.objectContaining({ inputTokens: 12, outputTokens: 80 }),
        }),
      }),
    ]);
  });

  test('json cut off at the token limit (finish_reason "length") is exit 4, never repaired', async () => {
    const text = answer('section-text');
    const json = [
      'json',
      '--schema-ref',
      'tnh.sectioning.default_section.v1',
      '--schema-root',
      SCHEMA_ROOT,
      '--input',
      'openai',
    ];
    expect((await cli(json, openAISse(text, 'stop'))).lines).toEqual([JSON.parse(text)]);
    const cut = await cli(json, openAISse(text.slice(0, 70), 'length'));
    expect(cut.code).toBe(4);
    expect(cut.out).toBe('');
    expect(cut.err).toContain(
      'llmjson: INCOMPLETE: the answer was cut off at the token limit (finish reason "length")',
    );
  });
});

describe('provider failures', () => {
  test('an error event from the provider is exit 3 with one line; a stream cut before its end is exit 4', async () => {
    const error = await cli(
      ['jsonl', '--input', 'anthropic'],
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
    expect(error.code).toBe(3);
    expect(error.err).toContain('llmjson: CONTRACT_VALIDATION_FAILED: the provider sent an error: Overloaded');
    const body = openAISse('{"a": 1}\n{"a": 2}\n', 'stop');
    const cut = await cli(['jsonl', '--input', 'openai'], body.slice(0, body.indexOf('"finish_reason":"stop"') - 60));
    expect(cut.code).toBe(4);
    expect(cut.err).toContain('llmjson: INCOMPLETE: the provider stream ended before the answer did');
  });

  test('a JSONL answer cut at the token limit on a line boundary is still reported (exit 4)', async () => {
    const r = await cli(['jsonl', '--input', 'openai'], openAISse('{"a": 1}\n', 'length'));
    expect(r.lines).toEqual([{ a: 1 }]);
    expect(r.code).toBe(4);
    expect(r.err).toContain('INCOMPLETE: the answer was cut off at the token limit (finish reason "length")');
  });
});

describe('--input gemini', () => {
  const gemini = (name: string) => readFileSync(join(ROOT, 'fixtures/providers', name), 'utf8');

  test('json from a Gemini SSE body (thinking parts left out of the answer), named or detected, at any chunking', async () => {
    const body = gemini('gemini-text.sse');
    for (const input of ['gemini', 'auto']) {
      for (const size of [1, 7, 64]) {
        const r = await cli(['json', '--input', input], body, size);
        expect(r.code).toBe(0);
        expect(r.lines).toEqual([{ word: 'strawberry', r: 3, note: 'café ☕ 🍓' }]);
      }
    }
  });

  test('a response stopped by safety is exit 3 with one line naming the reason', async () => {
    const r = await cli(['json', '--input', 'gemini'], gemini('gemini-safety.sse'));
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/SAFETY/);
  });
});

const index = corpus<{ file: string; derived_by_collector: { text: { text: string }[] } }[]>(
  'recorded-streams/index.json',
  'recorded provider streams (CLI --input)',
);

describe.skipIf(!index.present)('--input anthropic on a recorded stream', () => {
  test('a JSON document streamed as Anthropic text deltas: json mode gives JSON.parse of the text', async () => {
    const entry = index.load().find((e) => e.file === 'anthropic-json-output-format.1.chunks.txt');
    const lines = readFileSync(join(index.path, '..', entry?.file as string), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const body = `${lines.map((l) => `data: ${l}\n\n`).join('')}data: [DONE]\n\n`;
    const expected = JSON.parse(entry?.derived_by_collector.text[0]?.text as string) as unknown;
    for (const input of ['anthropic', 'auto']) {
      const r = await cli(['json', '--input', input], body, 5);
      expect(r.code).toBe(0);
      expect(r.lines).toEqual([expected]);
    }
    const partial = await cli(['partial', '--input', 'anthropic', '--emit', 'snapshots'], body, 64);
    expect(partial.lines.at(-1)).toEqual(expected);
    expect(partial.lines.length).toBeGreaterThan(10);
  });
});
