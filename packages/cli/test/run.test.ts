/**
 * `llmjson run` against an OpenAI-compatible server on 127.0.0.1 that replays a recorded
 * answer as a streamed chat completion, in small writes with pauses.
 */
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';
import { corpus } from '../../../test/support/corpora.js';
import { openAISse } from '../../../test/support/provider.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONTRACTS = join(ROOT, 'fixtures/contracts');
const answer = (name: string) => readFileSync(join(CONTRACTS, 'answers', `${name}.txt`), 'utf8');

const recorded = corpus<{ file: string; derived_by_collector: { text: { text: string }[] } }[]>(
  'recorded-streams/index.json',
  'llmjson run against a recorded stream',
);

let server: Server;
let baseURL = '';
const requests: { url: string | undefined; auth: string | undefined; body: Record<string, unknown> }[] = [];
let reply = '';
/** Emits `closed` when the server sees the connection of a request it left hanging close. */
const hanging = new EventEmitter();
const varsFile = join(mkdtempSync(join(tmpdir(), 'llmjson-run-')), 'vars.json');
writeFileSync(varsFile, JSON.stringify({ text: 'Mitochondria make ATP.', focus: ['ATP'] }));

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return JSON.parse(text) as Record<string, unknown>;
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    requests.push({ url: request.url, auth: request.headers.authorization, body: await bodyOf(request) });
    const route = request.url?.split('/')[1];
    if (route === 'stalled' || route === 'silent' || route === 'dripping') {
      response.once('close', () => hanging.emit('closed', route));
      // silent: not even headers. stalled: headers and the start of the answer, then nothing.
      // dripping: a keep-alive comment every few milliseconds, and never the end.
      if (route === 'silent') return;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(openAISse('{"type":"entity",', 'stop').split('\n\n')[0] as string);
      response.write('\n\n');
      if (route === 'dripping') {
        const timer = setInterval(() => response.write(': keep-alive\n\n'), 5);
        response.once('close', () => clearInterval(timer));
      }
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < reply.length; i += 40) {
      response.write(reply.slice(i, i + 40));
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

const run = (argv: string[], env: Record<string, string> = {}) => runCli(argv, { env });

const common = () => [
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
];

describe('llmjson run', () => {
  test('renders the prompt, streams the call, prints each validated object; dropped lines on stderr', async () => {
    reply = openAISse(answer('agent-kg-extract'), 'stop');
    const r = await run([...common(), '--id', 'agent-kg-extract'], { OPENAI_API_KEY: 'sk-test' });
    expect(r.code).toBe(0);
    expect(
      r.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string }),
    ).toHaveLength(3);
    expect(r.err).toContain('llmjson run agent-kg-extract: line 5, column 1, offset');
    const request = requests.at(-1);
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.auth).toBe('Bearer sk-test');
    expect(request?.body).toMatchObject({ model: 'qwen2.5-7b', stream: true });
    const messages = request?.body.messages as { role: string; content: string }[];
    expect(messages[0]).toEqual({
      role: 'system',
      content: 'You are a careful knowledge engineer. Answer only in the requested format.',
    });
    expect(messages[1]?.content).toContain('Focus on: ATP.');
    expect(messages[1]?.content).toContain('Text:\nMitochondria make ATP.');
  });

  test('--api prints the envelope; a schema mismatch is exit 4; a missing variable is exit 2 before any call', async () => {
    reply = openAISse(answer('section-text'), 'stop');
    const ok = await run([...common(), '--id', 'section-text', '--api']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({
      status: 'succeeded',
      result: {
        schema_ref: 'tnh.sectioning.default_section.v1',
        model: 'qwen2.5-7b',
        finish_reason: 'stop',
        usage: { inputTokens: 12, outputTokens: 80, totalTokens: 92 },
      },
    });
    reply = openAISse(answer('section-text-mismatch'), 'stop');
    const bad = await run([...common(), '--id', 'section-text']);
    expect(bad.code).toBe(4);
    expect(bad.err).toContain('SCHEMA_MISMATCH: at /sections/0/start_line: must be integer');
    const before = requests.length;
    writeFileSync(join(varsFile, '..', 'empty.json'), '{}');
    // --vars is given once (a second --vars is a usage error of its own): common() without its own.
    const missing = await run([
      ...common().slice(0, -2),
      '--id',
      'summarize',
      '--vars',
      join(varsFile, '..', 'empty.json'),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('VARIABLES_INVALID: prompt "summarize" uses {{text}}');
    expect(requests.length).toBe(before);
  });

  test.skipIf(!recorded.present)(
    'a text prompt against a recorded OpenAI stream: the text as the server streamed it',
    async () => {
      const entry = recorded.load().find((e) => e.file === 'openai-text.chunks.txt');
      const lines = readFileSync(join(recorded.path, '..', 'openai-text.chunks.txt'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '');
      reply = `${lines.map((l) => `data: ${l}\n\n`).join('')}data: [DONE]\n\n`;
      const r = await run([...common(), '--id', 'summarize', '--api']);
      expect(r.code).toBe(0);
      const envelope = JSON.parse(r.out) as { status: string; result: Record<string, unknown> };
      expect(envelope.status).toBe('succeeded');
      expect(envelope.result.text).toBe(entry?.derived_by_collector.text[0]?.text);
      expect(envelope.result).not.toHaveProperty('json');
    },
  );

  test('the server failing is exit 3 with one line: a cut stream, a refused connection', async () => {
    const full = openAISse(answer('agent-kg-extract'), 'stop');
    reply = full.slice(0, full.indexOf('"finish_reason":"stop"') - 80);
    const cut = await run([...common(), '--id', 'agent-kg-extract']);
    expect(cut.code).toBe(3);
    expect(cut.err).toMatch(
      /llmjson: the model server at http:\/\/127\.0\.0\.1:\d+\/v1 failed: .*ended before the answer did/,
    );
    const args = common();
    args[args.indexOf('--base-url') + 1] = 'http://127.0.0.1:9/v1';
    const refused = await run([...args, '--id', 'agent-kg-extract']);
    expect(refused.code).toBe(3);
    expect(refused.err.trim().split('\n')).toHaveLength(1);
    expect(refused.err).toContain('llmjson: the model server at http://127.0.0.1:9/v1 failed: fetch failed');
  });
});

describe('llmjson run --timeout', () => {
  /** `common()` pointed at one of the server's hanging routes. */
  const against = (route: string) => {
    const args = common();
    args[args.indexOf('--base-url') + 1] = baseURL.replace(/\/v1$/, `/${route}`);
    return [...args, '--id', 'agent-kg-extract'];
  };

  test('a server that sends headers and a chunk, then stalls: exit 3, one line, the connection closed', async () => {
    const closed = once(hanging, 'closed');
    const r = await run([...against('stalled'), '--timeout', '0.2']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(
      /^llmjson run: the model server at http:\/\/127\.0\.0\.1:\d+\/stalled sent nothing for 0\.2 s \(--timeout\); giving up\n$/,
    );
    expect(await closed).toEqual(['stalled']);
  });

  test('a server that never sends its headers: the same', async () => {
    const closed = once(hanging, 'closed');
    const r = await run([...against('silent'), '--timeout', '0.2']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(
      /^llmjson run: the model server at \S+\/silent sent nothing for 0\.2 s \(--timeout\); giving up\n$/,
    );
    expect(await closed).toEqual(['silent']);
  });

  test('--total-timeout gives up on a server that keeps the line alive and never finishes', async () => {
    const closed = once(hanging, 'closed');
    const r = await run([...against('dripping'), '--timeout', '30', '--total-timeout', '0.2']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(
      /^llmjson run: the model server at \S+\/dripping did not finish within 0\.2 s \(--total-timeout\); giving up\n$/,
    );
    expect(await closed).toEqual(['dripping']);
  });

  test('a --timeout that is not a number of seconds is exit 2, before any call', async () => {
    const before = requests.length;
    for (const value of ['soon', '1e3', '-1', '']) {
      const r = await run([...against('stalled'), `--timeout=${value}`]);
      expect(r.code, value).toBe(2);
      expect(r.err).toBe(`llmjson: --timeout must be a number of seconds (0: no limit), got ${value}\n`);
    }
    const total = await run([...against('stalled'), '--total-timeout', 'later']);
    expect(total.code).toBe(2);
    expect(requests.length).toBe(before);
  });
});
