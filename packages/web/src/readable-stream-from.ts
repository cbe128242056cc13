/**
 * Any asynchronous source of text or bytes as a WHATWG `ReadableStream`, to pipe through every
 * llmjson stream: `readableFrom(result.textStream).pipeThrough(createJsonlStream({ schema }))`
 * (the same name as @llmjson/node's, which returns a Node `Readable`). A `ReadableStream` is
 * returned as it is. An exception the source throws errors the stream; cancelling the stream
 * stops the source. (`ReadableStream.from` does this too, but not in every browser yet.)
 */

import { type AsyncSource, fromAsync } from '@llmjson/core';

export function readableFrom(source: AsyncSource<string | Uint8Array>): ReadableStream<string | Uint8Array> {
  if (source instanceof ReadableStream) return source as ReadableStream<string | Uint8Array>;
  let iterator: AsyncIterator<string | Uint8Array> | undefined;
  return new ReadableStream<string | Uint8Array>(
    {
      async pull(controller) {
        iterator ??= fromAsync(source)[Symbol.asyncIterator]();
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel(reason) {
        await iterator?.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
