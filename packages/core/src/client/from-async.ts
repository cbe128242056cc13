/**
 * Any asynchronous source of text or bytes as one `AsyncIterable`: a WHATWG `ReadableStream`
 * (async-iterable or not: Safari's is not) is read through its reader, which is cancelled when
 * the consumer stops early; an async iterable (an async generator, a Node Readable) is
 * iterated. The result feeds Node's `Readable.from` and the
 * Web's `ReadableStream.from` (and `readableFrom` of the adapters), so
 * every llmjson stream takes it. An exception the source throws reaches the consumer unchanged:
 * the stream reading it errors with it.
 *
 * Runtime-neutral: core declares neither `ReadableStream` nor DOM types, so the stream is typed
 * by the one method read here.
 */

/** What is read of a WHATWG `ReadableStream<T>`. */
export interface ReadableStreamLike<T> {
  getReader(): {
    read(): Promise<{ done: true; value?: unknown } | { done: false; value: T }>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
}

/** A source of `T`: an `AsyncIterable` or a `ReadableStream`. */
export type AsyncSource<T> = AsyncIterable<T> | ReadableStreamLike<T>;

/**
 * The values of `source`, in order, from a generator of its own: a stream is read through its
 * reader, and the source's iterator is never asked to `return()` after it finished (the AI SDK's
 * `textStream` iterator throws `ERR_INVALID_STATE` when `Readable.from` does that, on Node 20).
 */
export function iterate<T>(source: AsyncSource<T>): AsyncIterable<T> {
  return isStream(source) ? readAll(source) : delegate(source);
}

function isStream<T>(source: AsyncSource<T>): source is ReadableStreamLike<T> {
  return typeof (source as Partial<ReadableStreamLike<T>>).getReader === 'function';
}

async function* delegate<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  yield* source;
}

async function* readAll<T>(stream: ReadableStreamLike<T>): AsyncGenerator<T> {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // The consumer stopped early (or threw): the source need not produce more.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Text or bytes from any asynchronous source (`AsyncIterable` or `ReadableStream`), as an
 * `AsyncIterable` for `Readable.from` or `ReadableStream.from`:
 * `Readable.from(fromAsync(result.textStream)).pipe(createJsonlStream({ schema }))`.
 */
export function fromAsync(source: AsyncSource<string | Uint8Array>): AsyncIterable<string | Uint8Array> {
  return iterate(source);
}
