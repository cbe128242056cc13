/**
 * Bytes that are not UTF-8: decoded as U+FFFD (the text is kept) and reported, on Node and
 * Web streams alike, whatever the byte chunking. A literal U+FFFD written by the model is
 * text, not an error.
 */
import { createEncodingCheck } from '@llmjson/core/internal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunkBytes, numRuns, splitAt, splitPoints, utf8 } from '../support/chunking.js';
import { streamChunks } from '../support/collect.js';
import { salvageStreamChunks } from '../support/salvage.js';
import { webJsonlChunks, webSalvageChunks } from '../support/web.js';

const concat = (...parts: (string | number[])[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...utf8.encode(p)] : p)));

// Line 1: a stray 0xFF; line 2: clean; line 3: a literal U+FFFD; line 4: an é cut to its first byte and a lone continuation byte.
const INPUT = concat(
  '{"a":"x',
  [0xff],
  'y"}\n',
  '{"b":2}\n',
  '{"c":"\uFFFD"}\n',
  '{"d":"',
  [0xc3],
  '!',
  [0x80],
  '"}\n',
);

const jsonlRuns = [
  ['Node', (chunks: Uint8Array[]) => streamChunks(chunks)],
  ['Web', (chunks: Uint8Array[]) => webJsonlChunks(chunks)],
] as const;

describe.each(jsonlRuns)('JSONL %s stream', (_name, run) => {
  test('one encoding diagnostic per line that held invalid bytes; values keep U+FFFD', async () => {
    const whole = await run([INPUT]);
    expect(whole.values).toEqual([{ a: 'x\uFFFDy' }, { b: 2 }, { c: '\uFFFD' }, { d: '\uFFFD!\uFFFD' }]);
    expect(whole.diagnostics.map((d) => [d.reason, d.line, d.column])).toEqual([
      ['encoding', 1, 7],
      ['encoding', 4, 6],
    ]);
    expect(whole.diagnostics[0]?.message).toMatch(/not UTF-8/);
    expect(whole.stats).toMatchObject({ lines: 4, values: 4, diagnostics: { encoding: 2 } });
    for (const size of [1, 2, 3, 5, 7, 11]) {
      const chunked = await run(chunkBytes(INPUT, size));
      expect(chunked.records, `${size}-byte chunks`).toEqual(whole.records);
      expect(chunked.diagnostics, `${size}-byte chunks`).toEqual(whole.diagnostics);
    }
  });

  test('a character cut off by the end of input is reported on the truncated line', async () => {
    const r = await run([utf8.encode('{"a":1}\n{"b":"é').subarray(0, -1)]);
    expect(r.diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['encoding', 2],
      ['truncated', 2],
    ]);
  });
});

const salvageRuns = [
  ['Node', (chunks: Uint8Array[]) => salvageStreamChunks(chunks)],
  ['Web', (chunks: Uint8Array[]) => webSalvageChunks(chunks)],
] as const;

describe.each(salvageRuns)('salvage %s stream', (_name, run) => {
  test('invalid bytes are reported with their offset; a literal U+FFFD is not', async () => {
    const input = concat('Result: {"a":"\uFFFD"} and {"b":"', [0xfe], '"} done');
    const whole = await run([input]);
    expect(whole.values.map((v) => v.value)).toEqual([{ a: '\uFFFD' }, { b: '\uFFFD' }]);
    const encoding = whole.diagnostics.filter((d) => d.reason === 'encoding');
    expect(encoding).toEqual([expect.objectContaining({ reason: 'encoding', offset: 28 })]);
    for (const size of [1, 2, 3]) {
      const chunked = await run(chunkBytes(input, size));
      expect(
        chunked.diagnostics.filter((d) => d.reason === 'encoding'),
        `${size}-byte chunks`,
      ).toEqual(encoding);
    }
  });
});

/** Bytes that are mostly JSONL text with invalid bytes, literal U+FFFD and cut sequences mixed in. */
const hostileBytes = fc
  .array(
    fc.oneof(
      fc.constantFrom('{"a":"', '"}\n', '[1,2]\n', '\r\n', 'é', '😀', '\uFFFD'),
      fc.uint8Array({ minLength: 1, maxLength: 4 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => concat(...parts.map((p) => (typeof p === 'string' ? p : [...p]))));

describe('invalid UTF-8 under arbitrary byte chunking', () => {
  test('the check finds exactly the U+FFFD a fatal decoder would reject, however the bytes are split', () => {
    fc.assert(
      fc.property(
        hostileBytes.chain((bytes) => fc.tuple(fc.constant(bytes), splitPoints(bytes.length))),
        ([bytes, points]) => {
          const decoder = new TextDecoder();
          const check = createEncodingCheck();
          let text = '';
          const found: number[] = [];
          for (const chunk of splitAt(bytes, points)) {
            const piece = decoder.decode(chunk, { stream: true });
            for (const i of check.check(chunk, piece)) found.push(text.length + i);
            text += piece;
          }
          const last = decoder.decode();
          for (const i of check.check(undefined, last)) found.push(text.length + i);
          text += last;
          // Oracle: a position is a replacement exactly when re-encoding the text up to and
          // including it differs from the input bytes there.
          const expected: number[] = [];
          let at = 0;
          for (let i = 0; i < text.length; i++) {
            const code = text.charCodeAt(i);
            const unit = code >= 0xd800 && code <= 0xdbff ? text.slice(i, i + 2) : text[i];
            const encoded = utf8.encode(unit as string);
            const same = encoded.every((b, k) => bytes[at + k] === b);
            if (unit === '\uFFFD' && !same) {
              expected.push(i);
              // Skip the bytes the decoder replaced: up to where the next character's bytes start.
              at += replacedLength(bytes, at);
            } else {
              at += encoded.length;
            }
            if (unit?.length === 2) i++;
          }
          expect(found).toEqual(expected);
        },
      ),
      { numRuns },
    );
  });

  test('JSONL streams report the same diagnostics whole and in arbitrary byte chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileBytes.chain((bytes) => fc.tuple(fc.constant(bytes), splitPoints(bytes.length))),
        async ([bytes, points]) => {
          const whole = await streamChunks([bytes]);
          const split = await streamChunks(splitAt(bytes, points));
          expect(split.diagnostics).toEqual(whole.diagnostics);
          expect(split.records).toEqual(whole.records);
          const { stats } = whole;
          expect(stats.valueLines + stats.skippedLines + stats.reportedLines).toBe(stats.lines);
        },
      ),
      { numRuns: Math.ceil(numRuns / 3) },
    );
  });
});

/** Bytes one replacement stands for at `at` (WHATWG: the maximal valid prefix, at least one byte). */
function replacedLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at] as number;
  let needed = 0;
  let lower = 0x80;
  let upper = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) needed = 1;
  else if (lead >= 0xe0 && lead <= 0xef) {
    needed = 2;
    if (lead === 0xe0) lower = 0xa0;
    if (lead === 0xed) upper = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    needed = 3;
    if (lead === 0xf0) lower = 0x90;
    if (lead === 0xf4) upper = 0x8f;
  } else return 1;
  let length = 1;
  for (let k = 0; k < needed; k++) {
    const b = bytes[at + length];
    if (b === undefined || b < lower || b > upper) break;
    lower = 0x80;
    upper = 0xbf;
    length++;
  }
  return length;
}
