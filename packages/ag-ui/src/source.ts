/**
 * What the AG-UI converters share: reading a source (an async iterable, a WHATWG ReadableStream,
 * or a stream object holding one as `readable`) one item at a time, with a deadline when
 * changes wait to be sent; the diagnostics queue (`events.diagnostic(d)`, and a Node stream's
 * `diagnostic` events relayed); and the CUSTOM event a diagnostic travels as.
 *
 * Invariants: the source is read only when the consumer asks for events (pull), so a slow client
 * slows the model stream instead of buffering it; a consumer that stops early (`break`, a
 * cancelled response) returns the source's iterator or cancels its reader, which aborts the
 * model request upstream; a read abandoned at a deadline is kept for the next wait, never lost.
 */

import type { CustomEvent } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import { ConfigurationError, ConfigurationErrorCode, type Diagnostic } from '@llmjson/core';
import { describeValue } from '@llmjson/core/internal';

/** The `name` of the CUSTOM events that carry llmjson's diagnostics (the diagnostic is the `value`). */
export const DIAGNOSTIC_EVENT = 'llmjson.diagnostic';

/** A diagnostic as an AG-UI CUSTOM event: non-terminal, and ignored by clients that do not know its name. */
export function diagnosticEvent(diagnostic: Diagnostic): CustomEvent {
  return { type: EventType.CUSTOM, name: DIAGNOSTIC_EVENT, value: { ...diagnostic } };
}

/** A stream of AG-UI events, and the side door its source's diagnostics come in by. */
export interface AgUiEvents<E> extends AsyncIterable<E> {
  /**
   * Sends a diagnostic as a CUSTOM event (`llmjson.diagnostic`), before the events of the next
   * item read (pass it as a Web stream's `onDiagnostic`; a Node stream's `diagnostic` events are
   * relayed without it).
   */
  diagnostic(diagnostic: Diagnostic): void;
}

/** What is read of a WHATWG ReadableStream. */
interface ReaderLike<T> {
  getReader(): {
    read(): Promise<{ done: true; value?: unknown } | { done: false; value: T }>;
    cancel(reason?: unknown): Promise<void>;
  };
}

/** What is read of an Observable (rxjs, which AG-UI's `agent.run(input)` returns): `subscribe`. */
export interface Subscribable<T> {
  subscribe(observer: { next(value: T): void; error(error: unknown): void; complete(): void }): {
    unsubscribe(): void;
  };
}

/**
 * A source of items: an async iterable, a ReadableStream, a stream object with a `readable`, an
 * array, or an Observable (subscribed at the first read; it cannot be paused, so what it emits
 * before the consumer reads is queued).
 */
export type Source<T> =
  | AsyncIterable<T>
  | ReaderLike<T>
  | { readonly readable: ReaderLike<T> }
  | readonly T[]
  | Subscribable<T>;

/** An Observable read one item at a time. */
class ObservableReader<T> {
  readonly #source: Subscribable<T>;
  #subscription: { unsubscribe(): void } | undefined;
  readonly #items: T[] = [];
  #read = 0;
  #state: 'open' | 'complete' | 'failed' = 'open';
  #error: unknown;
  #wake: (() => void) | undefined;

  constructor(source: Subscribable<T>) {
    this.#source = source;
  }

  readonly #notify = () => {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  };

  async next(): Promise<IteratorResult<T>> {
    this.#subscription ??= this.#source.subscribe({
      next: (value) => {
        this.#items.push(value);
        this.#notify();
      },
      error: (error) => {
        this.#state = 'failed';
        this.#error = error;
        this.#notify();
      },
      complete: () => {
        this.#state = 'complete';
        this.#notify();
      },
    });
    for (;;) {
      if (this.#read < this.#items.length) {
        const value = this.#items[this.#read++] as T;
        // Keep the queue short: drop what was read once it is most of the array.
        if (this.#read > 1024 && this.#read * 2 > this.#items.length) {
          this.#items.splice(0, this.#read);
          this.#read = 0;
        }
        return { done: false, value };
      }
      if (this.#state === 'failed') throw this.#error;
      if (this.#state === 'complete') return { done: true, value: undefined };
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  stop(): void {
    this.#subscription?.unsubscribe();
    this.#state = 'complete';
    this.#notify();
  }
}

interface Emitter {
  on(event: 'diagnostic', listener: (d: Diagnostic) => void): unknown;
  off(event: 'diagnostic', listener: (d: Diagnostic) => void): unknown;
}

const isReader = (value: unknown): value is ReaderLike<unknown> =>
  typeof (value as Partial<ReaderLike<unknown>> | null)?.getReader === 'function';

/** Past its deadline, `Reader.next` returns this instead of an item. */
export const WAITING: unique symbol = Symbol('waiting');

/** One pass over a source, with the diagnostics queue. */
export class Reader<T> {
  readonly #next: () => Promise<IteratorResult<T>>;
  readonly #stop: () => Promise<unknown>;
  readonly #emitter: Emitter | undefined;
  #reading: Promise<IteratorResult<T>> | undefined;
  readonly pending: Diagnostic[] = [];
  readonly #report = (d: Diagnostic) => {
    this.pending.push(d);
  };

  constructor(name: string, source: Source<T>) {
    const inner = (source as { readable?: unknown }).readable;
    const readable = isReader(inner) ? inner : source;
    if (isReader(readable)) {
      const reader = readable.getReader();
      this.#next = () => reader.read() as Promise<IteratorResult<T>>;
      this.#stop = () => reader.cancel();
    } else if (typeof (readable as Partial<AsyncIterable<T>>)[Symbol.asyncIterator] === 'function') {
      const iterator = (readable as AsyncIterable<T>)[Symbol.asyncIterator]();
      this.#next = () => iterator.next();
      this.#stop = async () => iterator.return?.();
    } else if (
      typeof readable === 'object' &&
      typeof (readable as Partial<Iterable<T>>)[Symbol.iterator] === 'function'
    ) {
      // An array of events (recorded, or built by a test) reads as well as a stream of them.
      const iterator = (readable as Iterable<T>)[Symbol.iterator]();
      this.#next = async () => iterator.next();
      this.#stop = async () => iterator.return?.();
    } else if (typeof (readable as Partial<Subscribable<T>> | null)?.subscribe === 'function') {
      const observable = new ObservableReader(readable as Subscribable<T>);
      this.#next = () => observable.next();
      this.#stop = async () => observable.stop();
    } else {
      throw new TypeError(
        `${name}: the source must be an async iterable, a ReadableStream, an array, an Observable or a stream with a readable side (the stream createToolCallStream or createPartialStream returned), got ${source === null ? 'null' : typeof source}`,
      );
    }
    const emitter = source as Partial<Emitter>;
    if (typeof emitter.on === 'function' && typeof emitter.off === 'function') {
      this.#emitter = emitter as Emitter;
      this.#emitter.on('diagnostic', this.#report);
    }
  }

  /** The next item, or WAITING when `deadline` (a `performance.now()` time) passes first. */
  async next(deadline = Number.POSITIVE_INFINITY): Promise<IteratorResult<T> | typeof WAITING> {
    this.#reading ??= this.#next();
    const reading = this.#reading;
    let result: IteratorResult<T> | typeof WAITING;
    if (deadline === Number.POSITIVE_INFINITY) {
      result = await reading;
    } else {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const wait = new Promise<typeof WAITING>((resolve) => {
        timer = setTimeout(() => resolve(WAITING), Math.max(0, deadline - performance.now()));
      });
      try {
        result = await Promise.race([reading, wait]);
      } finally {
        clearTimeout(timer);
      }
    }
    if (result !== WAITING) this.#reading = undefined;
    return result;
  }

  /** The diagnostics reported so far, taken. */
  take(): Diagnostic[] {
    return this.pending.splice(0);
  }

  /** Stops listening; a consumer that stopped early also stops the source. */
  async close(early: boolean): Promise<void> {
    this.#emitter?.off('diagnostic', this.#report);
    if (!early) return;
    // A read still in flight may reject once the source is stopped: nobody waits for it.
    this.#reading?.catch(() => {});
    await this.#stop();
  }
}

/** An AgUiEvents whose events `run` makes from a Reader (one pass: a second iteration throws). */
export function agUiEvents<T, E>(
  name: string,
  source: Source<T>,
  run: (reader: Reader<T>) => AsyncGenerator<E>,
): AgUiEvents<E> {
  const reader = new Reader<T>(name, source);
  let used = false;
  return {
    diagnostic(diagnostic: Diagnostic) {
      reader.pending.push(diagnostic);
    },
    [Symbol.asyncIterator]() {
      if (used) throw new TypeError(`${name}: its events can be read once; call ${name} again for another pass`);
      used = true;
      return guarded(reader, run(reader));
    },
  };
}

async function* guarded<T, E>(reader: Reader<T>, events: AsyncGenerator<E>): AsyncGenerator<E> {
  let finished = false;
  try {
    yield* events;
    finished = true;
  } catch (error) {
    finished = true;
    throw error;
  } finally {
    await reader.close(!finished);
  }
}

/** Checks a `throttle` option: whole milliseconds from 0. */
export function checkThrottle(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new ConfigurationError(
    ConfigurationErrorCode.optionInvalid,
    `${name}: throttle must be a whole number of milliseconds from 0 (0: one event per item), got ${describeValue(value)}`,
  );
}
