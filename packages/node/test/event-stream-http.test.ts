/**
 * The wire over real HTTP on Node: a server decodes a model answer with the Node
 * `createPartialStream` (its `diagnostic` events relayed by `toEventStream`, its `complete` and
 * `stats` in the end event), pipes `toEventStream` into its `ServerResponse`, and a client reads
 * it back with `fetch` and `fromEventStream` into a store. A client that aborts mid-answer
 * closes the server's request and cancels the model stream.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createPartialStore, createPartialStream, fromEventStream, toEventStream, type WireEvent } from '@llmjson/node';
import { afterEach, expect, test } from 'vitest';

const answer = JSON.stringify({
  title: 'Glycolysis',
  steps: Array.from({ length: 40 }, (_, i) => ({ n: i, text: `step ${i} `.repeat(5) })),
});
const schema = { type: 'object', required: ['title', 'missing'] };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Serves `answer` in small pieces, one per tick, through the partial stream and the wire. */
async function serve(onModelCancelled: () => void = () => {}): Promise<string> {
  server = createServer(async (_req, res) => {
    let i = 0;
    const model = new Readable({
      read() {
        setImmediate(() => {
          const piece = answer.slice(i, i + 7);
          i += 7;
          this.push(piece === '' ? null : piece);
        });
      },
      destroy(error, callback) {
        onModelCancelled();
        callback(error);
      },
    });
    const partial = createPartialStream({ emit: 'changes', schema });
    // One event per chunk: the pieces come one per tick, faster than the default throttle, and
    // these tests look at the stream event by event.
    const events = toEventStream(partial, { format: 'sse', throttle: 0 });
    res.writeHead(200, events.headers);
    // A client that goes away: the response closes, pipeline cancels the wire, the wire returns
    // the partial stream's iterator (destroying it), and this pipeline destroys the model stream.
    pipeline(model, partial).catch(() => {});
    await pipeline(Readable.fromWeb(events as NodeReadableStream<Uint8Array>), res).catch(() => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

test('a Node ServerResponse carries the wire; fetch and fromEventStream read it back into a store', async () => {
  const url = await serve();
  const response = await fetch(url);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const store = createPartialStore();
  const seen: WireEvent[] = [];
  async function* tee() {
    for await (const event of fromEventStream(response)) {
      seen.push(event);
      yield event;
    }
  }
  await store.feed(tee());
  expect(store.getSnapshot()).toEqual(JSON.parse(answer));
  expect(store.complete).toBe(true);
  expect(seen.filter((e) => e.type === 'changes').length).toBeGreaterThan(10); // it streamed
  const relayed = seen.filter((e) => e.type === 'diagnostic');
  expect(relayed.map((e) => e.type === 'diagnostic' && [e.from, e.diagnostic.reason])).toEqual([['server', 'schema']]);
  expect(store.getState().end).toMatchObject({
    complete: true,
    valid: false,
    stats: { characters: answer.length, diagnostics: { schema: 1 } },
  });
});

test('a client that aborts mid-answer closes the request, and the model stream is cancelled', async () => {
  let cancelled = false;
  const modelCancelled = new Promise<void>((resolve) => {
    void serve(() => {
      cancelled = true;
      resolve();
    }).then(async (url) => {
      const controller = new AbortController();
      const response = await fetch(url, { signal: controller.signal });
      let changes = 0;
      await expect(
        (async () => {
          for await (const event of fromEventStream(response, { signal: controller.signal })) {
            if (event.type === 'changes' && ++changes === 3) controller.abort(new Error('user left'));
          }
        })(),
      ).rejects.toThrow('user left');
    });
  });
  await modelCancelled;
  expect(cancelled).toBe(true);
});
