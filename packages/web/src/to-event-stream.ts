/**
 * `toEventStream`: a partial stream's change lists as the llmjson wire format (wire-format.ts),
 * bytes ready for `new Response(...)` or a Node `ServerResponse`.
 *
 * Contract: the first event is `{"type":"start","v":2}`; then the change lists, in order, in the
 * compact form (wire-changes.ts): at most one event per `throttle` ms, an event holding every
 * change list that arrived since the last one (0: one event per change list). The diagnostics
 * reported so far (by `events.diagnostic(d)`, or a Node stream's `diagnostic` events) go out
 * before the change event that follows them. Then one end event with `complete`, `valid` and the
 * stats. While the source is silent, a keep-alive (an SSE comment,
 * an empty NDJSON line) every `keepAliveInterval` ms keeps idle-closing proxies from cutting a
 * model that thinks before it answers. Pull-based: a source item is read only when the consumer
 * wants bytes, so a slow client slows the model stream instead of buffering it. Cancelling the
 * output (a client that went away) returns the source's iterator (cancels a ReadableStream),
 * which aborts the model request upstream. A source that fails ends the output with an end
 * event carrying `error`, not with a broken body: the client still learns how it ended.
 * An item that is not a change list (`emit: 'snapshots'`) errors the output with a TypeError
 * that says which `emit` to use.
 */

import type { Change, Diagnostic, DiagnosticReason, PartialStats } from '@llmjson/core';
import { ConfigurationError, ConfigurationErrorCode } from '@llmjson/core';
import { checkChoice, checkOptionNames, describeValue } from '@llmjson/core/internal';
import type { PartialUpdate } from './partial-stream.js';
import { ChangeEncoder } from './wire-changes.js';
import {
  DEFAULT_EVENT_THROTTLE,
  DEFAULT_KEEP_ALIVE_INTERVAL,
  TO_EVENT_STREAM_OPTIONS,
  type ToEventStreamOptions,
  WIRE_CONTENT_TYPES,
  WIRE_FORMAT_VERSION,
  type WireEnd,
  type WireFormat,
  type WireStats,
  wireChange,
} from './wire-format.js';

/** An item a partial stream yields with `emit: 'changes'` or `'both'`. */
export type ChangeItem = readonly Change[] | Pick<PartialUpdate, 'changes'>;

/**
 * What `toEventStream` reads: change lists (or `{ value, changes }` items) from an async
 * iterable or a ReadableStream, or the partial stream itself — a Web `PartialStream` (its
 * `readable`) or a Node one (iterated, its `diagnostic` events relayed) — whose `complete` and
 * `stats` the end event then reports.
 */
export type ChangeSource =
  | AsyncIterable<ChangeItem>
  | ReadableStream<ChangeItem>
  | {
      readonly readable: ReadableStream<ChangeItem>;
      readonly complete?: boolean;
      readonly stats?: Readonly<PartialStats>;
    };

/** The wire bytes, with what to send them with. */
export interface EventStream extends ReadableStream<Uint8Array> {
  /** `text/event-stream; charset=utf-8` or `application/x-ndjson; charset=utf-8`. */
  readonly contentType: string;
  /** Headers for the response: Content-Type, `Cache-Control: no-cache`, `X-Accel-Buffering: no` (no proxy buffering). */
  readonly headers: Readonly<Record<string, string>>;
  /** Sends a diagnostic, before the next change list (pass it as a Web stream's `onDiagnostic`). */
  diagnostic(diagnostic: Diagnostic): void;
}

/** A read of the source: what it gave, or what it threw. */
type Outcome = { readonly result: IteratorResult<unknown> } | { readonly error: unknown };

interface Emitter {
  on(event: 'diagnostic', listener: (d: Diagnostic) => void): unknown;
  off(event: 'diagnostic', listener: (d: Diagnostic) => void): unknown;
}

/** Makes the wire bytes of a partial stream's change lists. Throws ConfigurationError for an invalid option. */
export function toEventStream(source: ChangeSource, options: ToEventStreamOptions = {}): EventStream {
  checkOptionNames('toEventStream', options, TO_EVENT_STREAM_OPTIONS);
  checkChoice('format', options.format, ['sse', 'ndjson']);
  const format: WireFormat = options.format ?? 'sse';
  const keepAlive = options.keepAliveInterval ?? DEFAULT_KEEP_ALIVE_INTERVAL;
  if (!(Number.isSafeInteger(keepAlive) && keepAlive >= 0)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `keepAliveInterval must be a whole number of milliseconds from 0 (0: no keep-alive), got ${describeValue(options.keepAliveInterval)}`,
    );
  }
  const throttle = options.throttle ?? DEFAULT_EVENT_THROTTLE;
  if (!(Number.isSafeInteger(throttle) && throttle >= 0)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `throttle must be a whole number of milliseconds from 0 (0: one event per change list), got ${describeValue(options.throttle)}`,
    );
  }
  const encoder = new TextEncoder();
  const changeEncoder = new ChangeEncoder(throttle > 0);
  const info = source as { readonly complete?: unknown; readonly stats?: unknown };
  const readable = 'readable' in source && isReadable(source.readable) ? source.readable : source;
  let next: () => Promise<IteratorResult<unknown>>;
  let stop: (reason: unknown) => Promise<unknown>;
  if (isReadable(readable)) {
    const reader = readable.getReader();
    next = () => reader.read() as Promise<IteratorResult<unknown>>;
    stop = (reason) => reader.cancel(reason);
  } else {
    const iterator = (readable as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    next = () => iterator.next();
    stop = async () => iterator.return?.();
  }
  const pending: Diagnostic[] = [];
  const report = (d: Diagnostic) => {
    pending.push(d);
  };
  const emitter = source as Partial<Emitter>;
  const listening = typeof emitter.on === 'function' && typeof emitter.off === 'function';
  if (listening) (emitter as Emitter).on('diagnostic', report);
  let started = false;
  let finished = false;
  let rootComplete = false;
  const counted = { updates: 0, changes: 0, diagnostics: {} as Partial<Record<DiagnosticReason, number>> };

  const frame = (type: string | undefined, payload: unknown, json = JSON.stringify(payload)): Uint8Array => {
    const text = format === 'ndjson' ? `${json}\n` : `${type === undefined ? '' : `event: ${type}\n`}data: ${json}\n\n`;
    return encoder.encode(text);
  };
  const flushDiagnostics = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    for (const diagnostic of pending.splice(0)) {
      counted.diagnostics[diagnostic.reason] = (counted.diagnostics[diagnostic.reason] ?? 0) + 1;
      controller.enqueue(frame('diagnostic', { type: 'diagnostic', diagnostic }));
    }
  };
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>, error?: unknown) => {
    finished = true;
    if (listening) (emitter as Emitter).off('diagnostic', report);
    flushDiagnostics(controller);
    const stats = statsOf(info.stats, counted);
    const complete = typeof info.complete === 'boolean' ? info.complete : rootComplete;
    const end: WireEnd = {
      type: 'end',
      complete: error === undefined && complete,
      valid: error === undefined && complete && !stats.diagnostics.schema && !stats.diagnostics.violation,
      stats,
      ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
    };
    controller.enqueue(frame('end', end));
    controller.close();
  };

  const keepAliveBytes = encoder.encode(format === 'sse' ? ':\n\n' : '\n');
  // The source read in flight: kept across pulls when the throttle interval ends before it.
  let reading: Promise<Outcome> | undefined;
  const read = (): Promise<Outcome> => {
    reading ??= next().then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    return reading;
  };
  let lastSent = Number.NEGATIVE_INFINITY;
  // The diagnostics so far, then the change lists gathered since the last event, as one event.
  const sendChanges = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    flushDiagnostics(controller);
    const payload = changeEncoder.take();
    if (payload === undefined) return;
    controller.enqueue(frame(undefined, undefined, payload));
    lastSent = performance.now();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(frame('start', { type: 'start', v: WIRE_FORMAT_VERSION }));
          return;
        }
        // While the source is silent, a keep-alive now and then: enqueued outside pull, which the
        // stream allows; the client reads it at once, being the one waiting.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const beat = () => {
          if (finished) return;
          controller.enqueue(keepAliveBytes);
          timer = setTimeout(beat, keepAlive);
        };
        if (keepAlive > 0) timer = setTimeout(beat, keepAlive);
        let outcome: Outcome;
        try {
          outcome = await read();
        } finally {
          clearTimeout(timer);
        }
        // Then every change list that comes before the throttle interval since the last event
        // is over; a read still pending then is kept for the next pull.
        for (;;) {
          if (finished) return;
          reading = undefined;
          if ('error' in outcome) {
            sendChanges(controller);
            finish(controller, outcome.error);
            return;
          }
          if (outcome.result.done === true) {
            sendChanges(controller);
            finish(controller);
            return;
          }
          const changes = changesOf(outcome.result.value);
          if (changes === undefined) {
            finished = true;
            if (listening) (emitter as Emitter).off('diagnostic', report);
            const error = new TypeError(
              `toEventStream reads change lists: create the partial stream with emit: 'changes' or 'both' (got ${describe(outcome.result.value)})`,
            );
            controller.error(error);
            void stop(error).catch(() => {});
            return;
          }
          if (changes.length > 0) {
            counted.updates++;
            counted.changes += changes.length;
            for (const change of changes) {
              if (change.op === 'complete' && change.path.length === 0) rootComplete = true;
              changeEncoder.push(wireChange(change));
            }
          }
          const wait = lastSent + throttle - performance.now();
          if (wait <= 0) break;
          let wake: ReturnType<typeof setTimeout> | undefined;
          const raced = await Promise.race([
            read(),
            new Promise<undefined>((resolve) => {
              wake = setTimeout(resolve, wait);
            }),
          ]);
          clearTimeout(wake);
          if (raced === undefined) break;
          outcome = raced;
        }
        sendChanges(controller);
      },
      async cancel(reason) {
        finished = true;
        if (listening) (emitter as Emitter).off('diagnostic', report);
        await stop(reason);
      },
    },
    // One event at a time: the source is read only as fast as the client takes the bytes.
    { highWaterMark: 0 },
  );
  const contentType = WIRE_CONTENT_TYPES[format];
  return Object.assign(stream, {
    contentType,
    headers: { 'content-type': contentType, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    diagnostic: report,
  });
}

function isReadable(value: unknown): value is ReadableStream<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as ReadableStream).getReader === 'function';
}

function changesOf(item: unknown): readonly Change[] | undefined {
  if (Array.isArray(item)) return item as Change[];
  if (typeof item === 'object' && item !== null && Array.isArray((item as { changes?: unknown }).changes)) {
    return (item as { changes: Change[] }).changes;
  }
  return undefined;
}

function describe(item: unknown): string {
  if (item === null) return 'null';
  if (Array.isArray(item)) return 'an array';
  return typeof item === 'object' ? 'an object without changes' : typeof item;
}

function statsOf(
  stats: unknown,
  counted: { updates: number; changes: number; diagnostics: Partial<Record<DiagnosticReason, number>> },
): WireStats {
  if (typeof stats !== 'object' || stats === null) return { characters: 0, ...counted };
  const s = stats as Partial<PartialStats>;
  return {
    characters: s.characters ?? 0,
    updates: s.updates ?? counted.updates,
    changes: s.changes ?? counted.changes,
    diagnostics: { ...(s.diagnostics ?? counted.diagnostics) },
  };
}
