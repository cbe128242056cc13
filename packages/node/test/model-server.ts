/**
 * A local HTTP server for one request, that answers like a model: the whole answer in many small writes, one
 * per turn of the event loop, stopping when the client goes away. It counts the bytes it
 * wrote, so a test can tell how much of the answer the model "generated" before the
 * connection closed (shared by the Node and Web fail-fast tests).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface Answered {
  /** Bytes the server wrote before the connection closed (or the answer ended). */
  readonly written: number;
  /** True when the whole answer was written. */
  readonly whole: boolean;
}

export interface ModelServer {
  readonly url: string;
  /** Bytes in the whole answer. */
  readonly total: number;
  /** Resolves when the response to the (one) request has closed. */
  readonly answered: Promise<Answered>;
  close(): Promise<void>;
}

export async function startModelServer(
  pieces: readonly string[],
  contentType = 'application/x-ndjson',
): Promise<ModelServer> {
  const chunks = pieces.map((piece) => Buffer.from(piece));
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  let settle: (answered: Answered) => void = () => {};
  const answered = new Promise<Answered>((resolve) => {
    settle = resolve;
  });
  const server: Server = createServer((_request, response) => {
    let written = 0;
    let closed = false;
    response.on('close', () => {
      closed = true;
      settle({ written, whole: written === total });
    });
    response.writeHead(200, { 'content-type': contentType });
    void (async () => {
      for (const chunk of chunks) {
        if (closed || response.destroyed) return;
        await new Promise<void>((resolve) => response.write(chunk, () => resolve()));
        written += chunk.length;
        await nextTurn();
      }
      if (!closed) response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    total,
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer of `lines` JSONL lines whose `bad`-th (1-based) breaks the item schema, in pieces of about `size` characters. */
export function jsonlAnswer(lines: number, bad: number, size = 64): string[] {
  const text = Array.from({ length: lines }, (_, i) =>
    i + 1 === bad
      ? `{"id": ${i + 1}, "kind": "unknown", "text": "this one breaks the enum"}\n`
      : `{"id": ${i + 1}, "kind": "fact", "text": "line ${i + 1} of a long answer, padded to look like model output"}\n`,
  ).join('');
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** The schema of one line of `jsonlAnswer`. */
export const ITEM_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    kind: { enum: ['fact', 'opinion'] },
    text: { type: 'string' },
  },
  required: ['id', 'kind', 'text'],
} as const;
