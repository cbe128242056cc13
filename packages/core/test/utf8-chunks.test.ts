import { test as fcTest } from '@fast-check/vitest';
import { createUtf8Chunks } from '@llmjson/core/internal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunkBytes, numRuns, splitAt, splitPoints, utf8 } from '../../../test/support/chunking.js';

/** The text of `chunks` through one decoder, flushed at the end. */
function decodeChunks(chunks: readonly Uint8Array[]): string {
  const decoder = createUtf8Chunks();
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk);
  return text + decoder.flush();
}

const bytes = (...values: number[]) => Uint8Array.from(values);

/** Every way of cutting `input` once and twice (empty chunks included). */
function* everyCut(input: Uint8Array): Generator<Uint8Array[]> {
  for (let i = 0; i <= input.length; i++) {
    for (let j = i; j <= input.length; j++) yield splitAt(input, [i, j]);
  }
}

// 1-, 2-, 3- and 4-byte characters (the 4-byte one a surrogate pair in UTF-16), a literal U+FFFD,
// and invalid bytes: a stray continuation byte, 0xFF, a lead byte cut short by ASCII, an
// encoded surrogate (ED A0 80) and an overlong form (E0 80 80).
const MIXED = new Uint8Array([
  ...utf8.encode('a é ✓ 😀 \uFFFD '),
  0x80,
  0xff,
  0xe2,
  0x82,
  0x41,
  0xed,
  0xa0,
  0x80,
  0xe0,
  0x80,
  0x80,
  ...utf8.encode(' 𝄞z'),
]);
const MIXED_TEXT = 'a é ✓ 😀 \uFFFD \uFFFD\uFFFD\uFFFDA\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD 𝄞z';

describe('createUtf8Chunks', () => {
  test('decodes characters of every width, whole', () => {
    expect(decodeChunks([utf8.encode('a é ✓ 😀 𝄞')])).toBe('a é ✓ 😀 𝄞');
  });

  test('holds a character cut at the end of a chunk until the chunk that completes it', () => {
    const decoder = createUtf8Chunks();
    expect(decoder.decode(bytes(0x61, 0xf0, 0x9f))).toBe('a');
    expect(decoder.decode(bytes(0x98))).toBe('');
    expect(decoder.decode(bytes(0x80, 0x62))).toBe('😀b');
    expect(decoder.flush()).toBe('');
  });

  test('turns invalid bytes into one U+FFFD per invalid sequence, as the WHATWG decoder does', () => {
    expect(decodeChunks([MIXED])).toBe(MIXED_TEXT);
  });

  test('gives the same text at every one and two cuts of bytes mixing widths and invalid bytes', () => {
    for (const chunks of everyCut(MIXED)) expect(decodeChunks(chunks)).toBe(MIXED_TEXT);
  });

  test('gives the same text at every chunk size from 1 to 64', () => {
    for (let size = 1; size <= 64; size++) expect(decodeChunks(chunkBytes(MIXED, size))).toBe(MIXED_TEXT);
  });

  test('flush turns an unfinished character into U+FFFD and starts afresh', () => {
    const decoder = createUtf8Chunks();
    expect(decoder.decode(bytes(0x78, 0xe2, 0x82))).toBe('x');
    expect(decoder.pending).toBe(true);
    expect(decoder.flush()).toBe('\uFFFD');
    expect(decoder.pending).toBe(false);
    // The held bytes are gone: a continuation byte after the flush is invalid on its own.
    expect(decoder.decode(bytes(0xac))).toBe('\uFFFD');
    expect(decoder.flush()).toBe('');
  });

  test('flush without bytes since the last one returns nothing', () => {
    const decoder = createUtf8Chunks();
    expect(decoder.pending).toBe(false);
    expect(decoder.flush()).toBe('');
    expect(decoder.decode(bytes(0x61))).toBe('a');
    expect(decoder.pending).toBe(true);
    expect(decoder.flush()).toBe('');
    expect(decoder.flush()).toBe('');
  });

  test('drops a byte-order mark at the start of the bytes, and again after a flush', () => {
    const decoder = createUtf8Chunks();
    expect(decoder.decode(bytes(0xef, 0xbb))).toBe('');
    expect(decoder.decode(bytes(0xbf, 0x61, 0xef, 0xbb, 0xbf))).toBe('a\uFEFF');
    expect(decoder.flush()).toBe('');
    expect(decoder.decode(bytes(0xef, 0xbb, 0xbf, 0x62))).toBe('b');
    // After other bytes, a U+FEFF is text.
    const ascii = createUtf8Chunks();
    expect(ascii.decode(bytes(0x61))).toBe('a');
    expect(ascii.decode(bytes(0xef, 0xbb, 0xbf))).toBe('\uFEFF');
    // Invalid bytes first: the U+FFFD is the first character, and a U+FEFF after it is text.
    const invalid = createUtf8Chunks();
    expect(invalid.decode(bytes(0xff))).toBe('\uFFFD');
    expect(invalid.decode(bytes(0xef, 0xbb, 0xbf))).toBe('\uFEFF');
  });

  test('short ASCII chunks and long chunks mix, a character cut between them held', () => {
    const decoder = createUtf8Chunks();
    const long = new Uint8Array(100).fill(0x41);
    long[99] = 0xe2;
    expect(decoder.decode(bytes(0x7b, 0x22))).toBe('{"');
    expect(decoder.decode(long)).toBe('A'.repeat(99));
    // The held lead byte must reach the platform decoder with what follows, short or not:
    // completed, or cut short by ASCII (one U+FFFD, before the ASCII).
    expect(decoder.decode(bytes(0x82))).toBe('');
    expect(decoder.decode(bytes(0xac, 0x22))).toBe('€"');
    expect(decoder.decode(long)).toBe('A'.repeat(99));
    expect(decoder.decode(bytes(0x41, 0x42))).toBe('\uFFFDAB');
    expect(decoder.flush()).toBe('');
  });

  test('decodes an empty chunk to nothing, keeping what it holds', () => {
    const decoder = createUtf8Chunks();
    expect(decoder.decode(bytes(0xc3))).toBe('');
    expect(decoder.decode(bytes())).toBe('');
    expect(decoder.decode(bytes(0xa9))).toBe('é');
  });

  fcTest.prop(
    [
      fc
        .string({ unit: 'binary', maxLength: 200 })
        .chain((text) => fc.tuple(fc.constant(text), splitPoints(utf8.encode(text).length))),
    ],
    {
      numRuns,
    },
  )('any text, its UTF-8 bytes cut anywhere, decodes to the text', ([text, points]) => {
    expect(decodeChunks(splitAt(utf8.encode(text), points))).toBe(text);
  });

  // Bytes drawn to hit lead bytes, continuation bytes and the invalid ones often.
  const byte = fc.oneof(
    fc.integer({ min: 0, max: 0x7f }),
    fc.integer({ min: 0x80, max: 0xbf }),
    fc.integer({ min: 0xc0, max: 0xff }),
    fc.constantFrom(0xe0, 0xed, 0xf0, 0xf4, 0xef, 0xbb, 0xbf),
  );
  const cutBytes = fc
    .tuple(fc.uint8Array({ maxLength: 100 }), fc.array(byte, { maxLength: 100 }))
    .map(([noise, drawn]) => Uint8Array.from([...noise, ...drawn]))
    .chain((input) => fc.tuple(fc.constant(input), splitPoints(input.length)));
  fcTest.prop([cutBytes], { numRuns })('arbitrary bytes cut anywhere decode as they do whole', ([input, points]) => {
    expect(decodeChunks(splitAt(input, points))).toBe(new TextDecoder('utf-8').decode(input));
  });
});
