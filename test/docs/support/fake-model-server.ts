/**
 * A local fake model server for the README snippets (no network, no key), on the pattern of the
 * one in examples/fail-fast-retry/run.mjs: it answers in small pieces with a pause between them,
 * so what the snippets stream really arrives in chunks.
 *
 * - `POST /v1/chat/completions`: OpenAI-compatible Chat Completions SSE. The answer is chosen by
 *   the last user message: a sectioning prompt ("Divide …") gets the recorded TNH sectioning
 *   answer, a JSONL extraction prompt ("One JSON object per line") the recorded agent-kg-extract
 *   answer, anything else the definition/relationship JSONL answer.
 * - `/api/extract`: the definition/relationship JSONL answer as plain text.
 * - `/api/answer`, `/stream/document.txt`: the live-UI page's JSON-document answer.
 * - `/stream/extraction.txt`: the live-UI page's JSONL answer.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');

export const answers = {
  jsonl: read('fixtures/answers/definition-relationship.txt'),
  sections: read('fixtures/contracts/answers/section-text.txt'),
  agentKgExtract: read('fixtures/contracts/answers/agent-kg-extract.txt'),
  liveUiExtraction: read('examples/live-ui/public/answers/extraction.txt'),
  liveUiDocument: read('examples/live-ui/public/answers/document.txt'),
} as const;

const pause = () => new Promise((resolve) => setImmediate(resolve));

async function stream(res: ServerResponse, pieces: readonly string[]): Promise<void> {
  for (const piece of pieces) {
    if (res.destroyed) return;
    if (!res.write(piece)) await new Promise((resolve) => res.once('drain', resolve));
    await pause();
  }
  if (!res.destroyed) res.end();
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

function chatAnswer(request: string): string {
  const { messages } = JSON.parse(request) as { messages?: { role: string; content: string }[] };
  const last = [...(messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (last.includes('Divide into sections')) return answers.sections;
  if (last.includes('One JSON object per line')) return answers.agentKgExtract;
  return answers.jsonl;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const request = await body(req);
  if (path.endsWith('/chat/completions')) {
    const text = chatAnswer(request);
    const events = split(text, 16).map(
      (content) => `data: ${JSON.stringify({ model: 'fake', choices: [{ index: 0, delta: { content } }] })}\n\n`,
    );
    events.push(
      `data: ${JSON.stringify({ model: 'fake', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
      'data: [DONE]\n\n',
    );
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    return stream(res, events);
  }
  const text = {
    '/api/extract': answers.jsonl,
    '/api/answer': answers.liveUiDocument,
    '/stream/document.txt': answers.liveUiDocument,
    '/stream/extraction.txt': answers.liveUiExtraction,
  }[path];
  if (text === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`no route ${path}`);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  return stream(res, split(text, 7));
}

export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly origin: string;
  close(): Promise<void>;
}

export async function startFakeModelServer(): Promise<FakeModelServer> {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => res.destroy(error as Error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
