/**
 * `llmjson run --fail-fast` and `--retries N` against a scripted OpenAI-compatible server on
 * 127.0.0.1 (the real client): it answers each request with the next scripted answer, and
 * records the requests, so the correction the second request carries can be checked.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';
import { openAISse } from '../../../test/support/provider.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const answer = (name: string) => readFileSync(join(ROOT, 'fixtures/contracts/answers', `${name}.txt`), 'utf8');

let server: Server;
let baseURL = '';
let script: string[] = [];
const requests: { messages: { role: string; content: string }[] }[] = [];
/** Bytes of each response the server wrote before its connection closed, and the response's size. */
const written: { bytes: number; total: number; ended: Promise<void> }[] = [];
const varsFile = join(mkdtempSync(join(tmpdir(), 'llmjson-run-retries-')), 'vars.json');
writeFileSync(varsFile, JSON.stringify({ text: 'Mitochondria make ATP.', focus: ['ATP'] }));

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return JSON.parse(text) as Record<string, unknown>;
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    requests.push(body as (typeof requests)[number]);
    const reply = openAISse(script[Math.min(requests.length - 1, script.length - 1)] as string, 'stop');
    let closed = false;
    let ended!: () => void;
    const record = { bytes: 0, total: Buffer.byteLength(reply), ended: new Promise<void>((done) => (ended = done)) };
    written.push(record);
    response.once('close', () => {
      closed = true;
      ended();
    });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < reply.length && !closed; i += 40) {
      const piece = reply.slice(i, i + 40);
      response.write(piece);
      record.bytes += Buffer.byteLength(piece);
      await sleep(1);
    }
    response.end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

beforeEach(() => {
  requests.length = 0;
  written.length = 0;
});

const run = (id: string, ...flags: string[]) =>
  runCli([
    'run',
    '--prompts',
    'fixtures/contracts/prompts.json',
    '--schema-root',
    'fixtures/contracts/schemas/prompt-contracts',
    '--base-url',
    baseURL,
    '--model',
    'qwen2.5-7b',
    '--vars',
    varsFile,
    '--id',
    id,
    ...flags,
  ]);

describe('llmjson run --retries', () => {
  test('wrong, then right: exit 0, two attempts, the second request carries the answer and the correction', async () => {
    script = [answer('section-text-mismatch'), answer('section-text')];
    const r = await run('section-text', '--retries', '2', '--api');
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.out) as {
      status: string;
      result: { json: unknown };
      attempts: { attempt: number; status: string; correction?: string; value?: unknown }[];
    };
    expect(envelope.status).toBe('succeeded');
    expect(envelope.result.json).toEqual(JSON.parse(answer('section-text')));
    expect(envelope.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect(envelope.attempts[0]?.value).toMatchObject({ sections: [{ start_line: '1' }] });
    expect(requests).toHaveLength(2);
    const [system, user, assistant, correction] = requests[1]?.messages ?? [];
    expect(system).toEqual(requests[0]?.messages[0]);
    expect(user).toEqual(requests[0]?.messages[1]);
    expect(assistant).toEqual({ role: 'assistant', content: answer('section-text-mismatch') });
    expect(correction?.role).toBe('user');
    expect(correction?.content).toContain('At /sections/0/start_line (rule "type"): must be integer');
    expect(correction?.content).toContain('Offending part: "1"');
    expect(correction?.content).toContain('Expected at /sections/0/start_line: {"type":"integer","minimum":1}');
    expect(correction?.content).toBe(envelope.attempts[0]?.correction);
    expect(r.err).toContain(
      'llmjson run section-text: attempt 1 failed: SCHEMA_MISMATCH at /sections/0/start_line (type): must be integer; retrying (attempt 2 of 3)',
    );
  });

  test('--diagnostics json: each retry is one JSON line on stderr', async () => {
    script = [answer('section-text-mismatch'), answer('section-text')];
    const r = await run('section-text', '--retries', '1', '--diagnostics', 'json');
    expect(r.code).toBe(0);
    expect(
      r.err
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      {
        source: 'llmjson run section-text',
        retry: {
          attempt: 1,
          next: 2,
          of: 2,
          detail: 'SCHEMA_MISMATCH',
          path: '/sections/0/start_line',
          rule: 'type',
          message: 'must be integer',
        },
      },
    ]);
    expect(JSON.parse(r.out)).toEqual(JSON.parse(answer('section-text')));
  });

  test('retries run out: exit 4, the last failure on stderr', async () => {
    script = [answer('section-text-mismatch')];
    const r = await run('section-text', '--retries', '1');
    expect(r.code).toBe(4);
    expect(requests).toHaveLength(2);
    expect(r.err).toContain('retrying (attempt 2 of 2)');
    expect(r.err).toContain('llmjson: failed: SCHEMA_MISMATCH: at /sections/0/start_line: must be integer');
    expect(r.out).toBe('');
  });

  test('--fail-fast: the first bad line ends the call, exit 4 naming the path and rule; the objects before it are printed', async () => {
    const lines = answer('agent-kg-extract').split('\n');
    // A long answer whose fifth line breaks the schema: the server must not get to write it all.
    const padding = Array.from(
      { length: 400 },
      (_, i) => `{"type": "definition", "entity": "e${i}", "definition": "a filler definition number ${i}"}`,
    );
    script = [[...lines.slice(0, 5), ...padding].join('\n')];
    const r = await run('agent-kg-extract', '--fail-fast');
    expect(r.code).toBe(4);
    expect(r.out.trim().split('\n')).toHaveLength(2);
    expect(r.err).toContain(
      'llmjson: failed: SCHEMA_VIOLATION: line 5: at /object (type): the value at /object is a number, but the schema allows string',
    );
    await written[0]?.ended;
    expect(written[0]?.bytes).toBeLessThan((written[0]?.total ?? 0) / 4);
  });

  test('--fail-fast --retries: stdout holds only the answer that is kept', async () => {
    const lines = answer('agent-kg-extract').split('\n');
    const good = [lines[2], lines[3], lines[5]].join('\n');
    script = [lines.slice(0, 6).join('\n'), good];
    const r = await run('agent-kg-extract', '--fail-fast', '--retries', '1');
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toEqual(
      [lines[2], lines[3], lines[5]].map((l) => JSON.stringify(JSON.parse(l as string))),
    );
    expect(r.err).toContain(
      'llmjson run agent-kg-extract: attempt 1 failed: SCHEMA_VIOLATION line 5, at /object (type): the value at /object is a number, but the schema allows string; retrying (attempt 2 of 2)',
    );
    expect(requests[1]?.messages.at(-1)?.content).toContain(
      'Line 5: At /object (rule "type"): the value at /object is a number, but the schema allows string',
    );
    // The discriminated branch's sub-schema, not the root's oneOf.
    expect(requests[1]?.messages.at(-1)?.content).toContain('Expected at /object: {"type":"string","minLength":1}');
  });

  test('--retries must be a whole number: exit 2 before any call; --help lists both flags', async () => {
    script = [answer('section-text')];
    const bad = await run('section-text', '--retries', 'two');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--retries must be a whole number of retries from 0 to 999, got two');
    expect(requests).toHaveLength(0);
    const help = await runCli(['run', '--help']);
    expect(help.out).toContain('--retries <n>');
    expect(help.out).toContain('--fail-fast');
  });
});
