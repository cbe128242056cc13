/**
 * `llmjson tools`: a call whose arguments break its schema is said once on a terminal. The
 * stream reports the call several times — a violation while its arguments stream, then their
 * schema failures once complete — and every one of those stays in `--diagnostics json`; the
 * text format prints the first, one diagnostic per bad call.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { REPOSITORY, runCli } from '../../../test/support/cli.js';

const BODY = readFileSync(join(REPOSITORY, 'fixtures/providers/openai-parallel-tool-calls.sse'), 'utf8');
const TOOLS = 'fixtures/cli/weather-tools.json';
/** get_weather's arguments with a key its schema forbids (additionalProperties: false). */
const EXTRA_KEY = BODY.replace('{\\"city\\": \\"Lis', '{\\"extra\\": 1, \\"city\\": \\"Lis');
const TIME_CALL = { index: 1, id: 'call_t1', name: 'get_time', arguments: { timezone: 'Europe/Lisbon' } };

/** The diagnostics of a text stderr: their first lines (an excerpt line starts with spaces). */
const diagnostics = (err: string) => err.split('\n').filter((line) => line.startsWith('llmjson tools:'));

describe('llmjson tools: one diagnostic per bad call', () => {
  test.each([1, 13, EXTRA_KEY.length])('a forbidden extra key: one line naming it (chunks of %i)', async (size) => {
    expect(EXTRA_KEY).not.toBe(BODY);
    const r = await runCli(['tools', '--tools', TOOLS], { stdin: chunkText(EXTRA_KEY, size) });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([TIME_CALL]);
    expect(diagnostics(r.err)).toEqual([
      expect.stringMatching(/violation: tool call 0 \(get_weather\): the key "extra" at \/ is not allowed/),
    ]);
  });

  test('--diagnostics json keeps every diagnostic the stream reports for it', async () => {
    const r = await runCli(['tools', '--tools', TOOLS, '--diagnostics', 'json'], { stdin: [EXTRA_KEY] });
    expect(r.code).toBe(0);
    const reported = r.err
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { reason: string; toolCall: { index: number } });
    expect(reported.length).toBeGreaterThan(1);
    expect(new Set(reported.map((d) => d.reason))).toEqual(new Set(['violation', 'schema']));
    expect(reported.every((d) => d.toolCall.index === 0)).toBe(true);
  });

  test('two bad calls: one line each', async () => {
    const both = EXTRA_KEY.replace('{\\"timezone\\": \\"Europe/', '{\\"timezone\\": 1, \\"x\\": \\"Europe/');
    expect(both).not.toBe(EXTRA_KEY);
    const r = await runCli(['tools', '--tools', TOOLS], { stdin: [both] });
    expect(r.lines).toEqual([]);
    const lines = diagnostics(r.err);
    expect(lines).toHaveLength(2);
    expect(lines.some((line) => line.includes('tool call 0 (get_weather)'))).toBe(true);
    expect(lines.some((line) => line.includes('tool call 1 (get_time)'))).toBe(true);
  });
});
