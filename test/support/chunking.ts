/**
 * Chunkers shared by every decoding test: the same input whole, at every chunk size, and at
 * arbitrary split points (including empty chunks and splits inside UTF-8 sequences and
 * inside `\r\n`).
 */
import fc from 'fast-check';

/** Runs per property: higher on CI. */
export const numRuns = process.env.CI ? 300 : 100;

/** Splits `text` into chunks of `size` UTF-16 code units. */
export function chunkText(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

/** Splits `bytes` into chunks of `size` bytes (may cut inside a UTF-8 sequence). */
export function chunkBytes(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

/** Splits at the given (sorted or not, possibly repeated) positions; repeats make empty chunks. */
export function splitAt<T extends string | Uint8Array>(input: T, positions: readonly number[]): T[] {
  const points = [...positions].map((p) => Math.max(0, Math.min(input.length, p))).sort((a, b) => a - b);
  const chunks: T[] = [];
  let last = 0;
  for (const p of points) {
    chunks.push(input.slice(last, p) as T);
    last = p;
  }
  chunks.push(input.slice(last) as T);
  return chunks;
}

/** Every chunking a decoding test must agree on: whole, sizes 1..64. */
export function* everyChunkSize(text: string, maxSize = 64): Generator<[label: string, chunks: string[]]> {
  yield ['whole', [text]];
  for (let size = 1; size <= maxSize; size++) yield [`size ${size}`, chunkText(text, size)];
}

/** Arbitrary split points for an input of `length`. */
export function splitPoints(length: number): fc.Arbitrary<number[]> {
  return fc.array(fc.integer({ min: 0, max: length }), { maxLength: Math.min(64, length + 4) });
}

export const utf8 = {
  encode: (text: string): Uint8Array => new TextEncoder().encode(text),
};
