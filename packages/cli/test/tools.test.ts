/**
 * `llmjson tools`: a provider body in, one JSON line per completed tool call out (or per update
 * with --emit changes), each call validated against its tool's schema from --tools (a name →
 * schema map, or the tools array sent to the provider); --fail-fast stops at the first violation.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { REPOSITORY, runCli } from '../../../test/support/cli.js';

const BODY = readFileSync(join(REPOSITORY, 'fixtures/providers/openai-parallel-tool-calls.sse'), 'utf8');
const TOOLS = 'fixtures/cli/weather-tools.json';
const CALLS = [
  { index: 1, id: 'call_t1', name: 'get_time', arguments: { timezone: 'Europe/Lisbon' } },
  { index: 0, id: 'call_w1', name: 'get_weather', arguments: { city: 'Lisbon', unit: 'celsius' } },
];

describe('llmjson tools', () => {
  test.each([1, 7, 64, BODY.length])('one line per completed call, stdin in chunks of %i', async (size) => {
    const r = await runCli(['tools', '--tools', TOOLS], { stdin: chunkText(BODY, size) });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.lines).toEqual(CALLS);
  });

  test('--emit changes: the updates of each call while it streams; they rebuild its arguments', async () => {
    const r = await runCli(['tools', '--emit', 'changes', '-'], { stdin: [BODY] });
    expect(r.code).toBe(0);
    const lines = r.lines as {
      id: string;
      complete: boolean;
      changes: { op: string; path: (string | number)[]; value?: unknown }[];
    }[];
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.filter((l) => l.complete).map((l) => l.id)).toEqual(['call_t1', 'call_w1']);
    const weather = lines.filter((l) => l.id === 'call_w1').flatMap((l) => l.changes);
    expect(weather[0]).toEqual({ op: 'add', path: [], value: {} });
    expect(weather.filter((c) => c.op === 'append' && c.path[0] === 'city').map((c) => c.value)).toEqual([
      'Lis',
      'bon',
    ]);
  });

  test('a call whose arguments break its schema is reported, not printed; --fail-fast stops there (exit 4)', async () => {
    const bad = BODY.replace('\\"cel', '\\"kel');
    const loose = await runCli(['tools', '--tools', TOOLS], { stdin: [bad] });
    expect(loose.code).toBe(0);
    expect(loose.lines).toEqual([CALLS[0]]);
    expect(loose.err).toMatch(/violation: tool call 0 \(get_weather\): the string at \/unit begins "k"/);
    const strict = await runCli(['tools', '--tools', TOOLS, '--fail-fast'], { stdin: [bad] });
    expect(strict.code).toBe(4);
    expect(strict.err.trim().split('\n')).toHaveLength(1);
    expect(strict.err).toMatch(/^llmjson tools: --fail-fast: CONTRACT_VALIDATION_FAILED at \/unit \(enum\)/);
  });

  test('a tools map (name → schema) works like the tools array; an unknown tool is reported', async () => {
    const r = await runCli(['tools', '--tools', 'fixtures/cli/weather-tools-map.json'], { stdin: [BODY] });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual(CALLS);
    expect(r.err).toMatch(/the model called "get_time", which is not one of the tools \(get_weather\)/);
  });

  test('configuration: a missing --tools file is SCHEMA_NOT_FOUND, a file that is not JSON SCHEMA_INVALID (exit 2)', async () => {
    const missing = await runCli(['tools', '--tools', 'no-such-tools.json'], { stdin: [BODY] });
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^llmjson: SCHEMA_NOT_FOUND: --tools no-such-tools\.json: no such file/);
    const notJson = await runCli(['tools', '--tools', 'README.md'], { stdin: [BODY] });
    expect(notJson.code).toBe(2);
    expect(notJson.err).toMatch(/SCHEMA_INVALID: --tools README\.md: not JSON/);
    const noTools = await runCli(['tools', '--fail-fast'], { stdin: [BODY] });
    expect(noTools.code).toBe(2);
  });

  test('24 argument deltas of 1 MiB: the call is dropped with one too-long diagnostic, the others print, exit 0 (not internal error)', async () => {
    const event = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const call = (index: number, args: string, id?: string, name?: string) =>
      event({
        tool_calls: [
          {
            index,
            ...(id === undefined ? {} : { id }),
            function: { ...(name === undefined ? {} : { name }), arguments: args },
          },
        ],
      });
    const mib = 'x'.repeat(1024 * 1024);
    // Read as it is sent. Before the cap, 560 such deltas grew one string past what V8 allows
    // (RangeError: "internal error", exit 1); past 8 MiB the call is now dropped, so nothing grows.
    function* body() {
      yield call(0, '{"city":"', 'call_big', 'get_weather');
      const piece = call(0, mib);
      for (let i = 0; i < 24; i++) yield piece;
      yield call(1, '{"timezone":"UTC"}', 'call_t', 'get_time');
      yield `${event({}, 'tool_calls')}data: [DONE]\n\n`;
    }
    const r = await runCli(['tools', '--tools', TOOLS], { stdin: body() });
    expect(r.err).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ index: 1, id: 'call_t', name: 'get_time', arguments: { timezone: 'UTC' } }]);
    // One diagnostic (its excerpt on a second line).
    const reported = r.err.split('\n').filter((line) => line.startsWith('llmjson tools:'));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(
      /too-long.*tool call 0 \(get_weather\): its arguments are longer than maxArgumentsLength \(8388608 characters\); the call is dropped/,
    );
  }, 60_000);

  test('a body cut inside a call: the complete calls print, the cut one is reported, exit 4', async () => {
    const cut = BODY.slice(0, BODY.indexOf('sius'));
    const r = await runCli(['tools', '--tools', TOOLS], { stdin: [cut] });
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([CALLS[0]]);
    expect(r.err).toMatch(/truncated/);
  });
});
