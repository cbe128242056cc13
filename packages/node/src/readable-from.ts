/**
 * Any asynchronous source of text or bytes as a Node `Readable` (a byte stream, not object
 * mode), to pipe into every llmjson stream:
 * `readableFrom(result.textStream).pipe(createJsonlStream({ schema }))`. A Web `ReadableStream`
 * goes through `Readable.fromWeb`, anything else through `Readable.from`. An exception the
 * source throws is the Readable's `'error'`; destroying the Readable stops the source.
 */

import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { type AsyncSource, fromAsync } from '@llmjson/core';

export function readableFrom(source: AsyncSource<string | Uint8Array>): Readable {
  if (source instanceof ReadableStream) return Readable.fromWeb(source as WebReadableStream, { objectMode: false });
  return Readable.from(fromAsync(source), { objectMode: false });
}
