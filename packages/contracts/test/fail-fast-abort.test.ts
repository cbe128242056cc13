/**
 * failFast stops the model: against a local OpenAI-compatible server that streams a long answer
 * in many small writes, the prompt runner (with the real `openAICompatible` client) aborts the
 * request at the first violation, the client closes the connection, and the server manages to
 * write only a small part of the answer. Without failFast it writes all of it. Bytes and
 * outcomes are asserted, never durations.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPromptManager } from '@llmjson/contracts';
import { openAICompatible } from '@llmjson/node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const ITEM = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
  required: ['id', 'name'],
} as const;

const config = {
  prompts: {
    list: {
      prompt: 'List {{n}} items.',
      'response-type': 'json',
      schema: { type: 'object', properties: { items: { type: 'array', items: ITEM } }, required: ['items'] },
    },
    lines: { prompt: 'List {{n}} items, one per line.', 'response-type': 'jsonl', schema: ITEM },
  },
};

const COUNT = 600;
/** The second item's `id` is a string: the answer breaks its contract in its first 100 characters. */
const item = (i: number) => ({ id: i === 1 ? 'one' : i, name: `item ${i}` });
const answers: Record<string, string> = {
  list: JSON.stringify({ items: Array.from({ length: COUNT }, (_, i) => item(i)) }),
  lines: Array.from({ length: COUNT }, (_, i) => JSON.stringify(item(i))).join('\n'),
};

/** The answer as OpenAI-style SSE events of a few characters each. */
function events(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 12) {
    const delta = { choices: [{ index: 0, delta: { content: text.slice(i, i + 12) }, finish_reason: null }] };
    out.push(`data: ${JSON.stringify({ id: 'c1', model: 'slow-model', ...delta })}\n\n`);
  }
  out.push(`data: ${JSON.stringify({ id: 'c1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
  out.push('data: [DONE]\n\n');
  return out;
}

interface Served {
  written: number;
  total: number;
  closedEarly: boolean;
  ended: Promise<void>;
}

let server: Server;
let baseURL = '';
const served: Served[] = [];

beforeAll(async () => {
  server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += String(chunk);
    const { messages } = JSON.parse(body) as { messages: { content: string }[] };
    const text = (messages.at(-1)?.content ?? '').includes('per line') ? answers.lines : answers.list;
    const pieces = events(text as string);
    let closed = false;
    let finish!: () => void;
    const record: Served = {
      written: 0,
      total: pieces.reduce((n, p) => n + Buffer.byteLength(p), 0),
      closedEarly: false,
      ended: new Promise((resolve) => {
        finish = resolve;
      }),
    };
    served.push(record);
    response.once('close', () => {
      closed = true;
      record.closedEarly = record.written < record.total;
      finish();
    });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let n = 0; n < pieces.length; n++) {
      if (closed) return;
      const piece = pieces[n] as string;
      response.write(piece);
      record.written += Buffer.byteLength(piece);
      // Yield to the event loop between small groups of writes, as a model generating tokens does.
      if (n % 4 === 3) await sleep(1);
    }
    response.end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

describe.each(['list', 'lines'] as const)('failFast against a slow server (%s prompt)', (id) => {
  test('the first violation closes the connection: the server writes a small part of the answer', async () => {
    const llm = openAICompatible({ baseURL, model: 'slow-model' });
    const m = createPromptManager(config);

    const fast = await m.run(id, { n: COUNT }, llm, { failFast: true });
    const cut = served.at(-1) as Served;
    await cut.ended;
    expect(fast.status).toBe('failed');
    expect(fast.error).toMatchObject({
      reason: 'CONTRACT_VALIDATION_FAILED',
      detail: 'SCHEMA_VIOLATION',
      path: id === 'list' ? '/items/1/id' : '/id',
      rule: 'type',
    });
    expect(cut.closedEarly).toBe(true);
    expect(cut.written).toBeLessThan(cut.total / 10);

    const slow = await m.run(id, { n: COUNT }, llm);
    const whole = served.at(-1) as Served;
    await whole.ended;
    expect(whole.closedEarly).toBe(false);
    expect(whole.written).toBe(whole.total);
    expect(slow.status).toBe(id === 'list' ? 'failed' : 'succeeded');
    // The figures, for the record (bytes written with failFast, without it, and the whole answer).
    console.log(`${id}: failFast ${cut.written} B, without ${whole.written} B, answer ${whole.total} B`);
  });
});
