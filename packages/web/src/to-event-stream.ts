/**
 * `toEventStream`: a partial stream's change lists as the llmjson wire format (wire-format.ts),
 * bytes ready for `new Response(...)` or a Node `ServerResponse`.
 *
 * Contract: the first event is `{"type":"start","v":1}`; then one event per change list, in
 * order, with the diagnostics reported so far (by `events.diagnostic(d)`, or a Node stream's
 * `diagnostic` events) sent before the change list that follows them; then one end event with
 * `complete`, `valid` and the stats. While the source is silent, a keep-alive (an SSE comment,
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
import {
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
  const encoder = new TextEncoder();
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

  const frame = (type: string | undefined, payload: unknown): Uint8Array => {
    const json = JSON.stringify(payload);
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
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(frame('start', { type: 'start', v: WIRE_FORMAT_VERSION }));
          return;
        }
        let result: IteratorResult<unknown>;
        // While the source is silent, a keep-alive now and then: enqueued outside pull, which the
        // stream allows; the client reads it at once, being the one waiting.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const beat = () => {
          if (finished) return;
          controller.enqueue(keepAliveBytes);
          timer = setTimeout(beat, keepAlive);
        };
        if (keepAlive > 0) timer = setTimeout(beat, keepAlive);
        try {
          result = await next();
        } catch (error) {
          if (!finished) finish(controller, error);
          return;
        } finally {
          clearTimeout(timer);
        }
        if (finished) return;
        if (result.done === true) {
          finish(controller);
          return;
        }
        const changes = changesOf(result.value);
        if (changes === undefined) {
          finished = true;
          if (listening) (emitter as Emitter).off('diagnostic', report);
          const error = new TypeError(
            `toEventStream reads change lists: create the partial stream with emit: 'changes' or 'both' (got ${describe(result.value)})`,
          );
          controller.error(error);
          void stop(error).catch(() => {});
          return;
        }
        flushDiagnostics(controller);
        if (changes.length === 0) return;
        counted.updates++;
        counted.changes += changes.length;
        for (const change of changes) if (change.op === 'complete' && change.path.length === 0) rootComplete = true;
        controller.enqueue(frame(undefined, changes.map(wireChange)));
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
