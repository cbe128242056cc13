/**
 * `llmjson run` prints what the model answered: a value holding a number beyond the double
 * range is not printed as `null` but reported (out-of-range, exit 4, NUMBER_OUT_OF_RANGE), and
 * the keys and messages it quotes reach the terminal without their control characters.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';
import { openAISse } from '../../../test/support/provider.js';

const dir = mkdtempSync(join(tmpdir(), 'llmjson-run-range-'));
const prompts = join(dir, 'prompts.json');
const closed = { type: 'object', properties: { a: {}, b: {} }, additionalProperties: false };
writeFileSync(
  prompts,
  JSON.stringify({
    prompts: {
      doc: { prompt: 'Answer.', 'response-type': 'json', schema: { type: 'object' } },
      lines: { prompt: 'Answer.', 'response-type': 'jsonl', schema: closed },
    },
  }),
);

let server: Server;
let baseURL = '';
let reply = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(reply);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

const run = (id: string, ...more: string[]) =>
  runCli(['run', '--prompts', prompts, '--id', id, '--base-url', baseURL, '--model', 'm', ...more]);

describe('llmjson run', () => {
  test('json: a number beyond the double range is not printed; exit 4, NUMBER_OUT_OF_RANGE', async () => {
    reply = openAISse('{"a":1e999,"b":2}', 'stop', 4);
    const r = await run('doc');
    expect(r.code).toBe(4);
    expect(r.out).toBe('');
    expect(r.err).toContain('out-of-range: the number at /a is beyond the double range');
    expect(r.err).toContain('llmjson: failed: NUMBER_OUT_OF_RANGE: ');
    const api = await run('doc', '--api');
    expect(api.code).toBe(4);
    expect(api.lines).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.objectContaining({ detail: 'NUMBER_OUT_OF_RANGE' }) }),
    ]);
  });

  test('jsonl: the other lines print; a key with control characters is quoted escaped', async () => {
    reply = openAISse('{"a":1}\n{"b":[-1e999]}\n{"\u001b]0;PWNED\u0007":3}\n', 'stop', 5);
    const r = await run('lines');
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([{ a: 1 }]);
    expect(r.err).toContain('out-of-range: the number at /b/0 is beyond the double range');
    expect(r.err).toContain('\\u001b]0;PWNED\\u0007');
    expect(
      [...r.err].filter((c) => c !== '\n' && ((c < ' ' && c !== '\n') || (c >= '\u007f' && c <= '\u009f'))),
    ).toEqual([]);
  });
});
