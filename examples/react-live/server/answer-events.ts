/**
 * The example's model and its route, in Web streams only: `modelReplay` replays the recorded
 * answer (src/answer.ts) as a model server streams it, 4 to 8 bytes at a time with a pause
 * between chunks; `answerEvents` decodes it with llmjson's partial stream and answers with the
 * llmjson wire (`toEventStream`), as a fetch handler would (docs/guide/live-wire.md).
 *
 * Invariants: the replay is pull-based, so it produces a chunk only when the decoder asks for
 * one, and it stops for good when its reader cancels it — which is what a client going away
 * does through `toEventStream` and the pipe. The `Replay` record says how far it got and how it
 * ended; the dev server (vite.config.ts) serves the records so the end-to-end test can prove
 * that aborting in the page stops the model on the server.
 */
import { createPartialStream, type EventStream, toEventStream } from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { chunkSize, recordedAnswer, schema } from '../src/answer.js';

/** What the server knows of one replay of the answer. */
export interface Replay {
  /** The name the page gave the request (`?run=`), or one the server made up. */
  readonly run: string;
  /** Bytes in the whole answer. */
  readonly bytes: number;
  /** Bytes the model has sent so far. */
  sent: number;
  /** 'streaming' until the last byte went out ('finished') or its reader gave up ('cancelled'). */
  state: 'streaming' | 'finished' | 'cancelled';
  /** The HTTP client closed the request before the last event (the dev server sets it). */
  clientClosed: boolean;
}

/** Milliseconds between chunks by default: the answer is about 4 400 chunks, so about 4.5 s. */
export const DEFAULT_CHUNK_DELAY_MS = 1;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The answer as a model server streams it: UTF-8 bytes in chunks of 4 to 8 (a character may be
 * split between two), one per `delayMs` on average. The pace is kept against the clock, not by
 * adding up timer delays, so that a coarse timer does not stretch the answer.
 */
export function modelReplay(replay: Replay, text: string, delayMs: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let started: number | undefined;
  let chunks = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        started ??= performance.now();
        const wait = started + chunks * delayMs - performance.now();
        if (wait > 0) await sleep(wait);
        if (replay.state !== 'streaming') return;
        const size = chunkSize(chunks);
        controller.enqueue(bytes.slice(replay.sent, replay.sent + size));
        replay.sent = Math.min(bytes.length, replay.sent + size);
        chunks++;
        if (replay.sent === bytes.length) {
          replay.state = 'finished';
          controller.close();
        }
      },
      cancel() {
        if (replay.state === 'streaming') replay.state = 'cancelled';
      },
    },
    // Nothing is produced ahead of a read: a cancelled replay has sent only what was asked for.
    { highWaterMark: 0 },
  );
}

/** One request's answer: the wire events to send, and the record of its replay. */
export function answerEvents(
  run: string,
  delayMs: number = DEFAULT_CHUNK_DELAY_MS,
): { events: EventStream; replay: Replay } {
  const text = recordedAnswer();
  const replay: Replay = {
    run,
    bytes: new TextEncoder().encode(text).length,
    sent: 0,
    state: 'streaming',
    clientClosed: false,
  };
  const partial = createPartialStream({
    emit: 'changes',
    schema,
    compileJsonSchema: compileSchema,
    onDiagnostic: (d) => events.diagnostic(d),
  });
  const events = toEventStream(partial);
  // A client that goes away cancels the events, which cancels this pipe and so the replay.
  modelReplay(replay, text, delayMs)
    .pipeTo(partial.writable)
    .catch(() => {});
  return { events, replay };
}
