/**
 * The line index sees the text the engine sees: bytes decoded as the stream adapters decode
 * them (a character cut across chunks, a byte-order mark, a string written after bytes), so a
 * diagnostic's offset maps to the line and column a person finds in an editor.
 */

import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints, utf8 } from '../../../test/support/chunking.js';
import { LineIndex } from '../src/line-index.js';

/** Line (1-based) and column (0-based) of every offset of `text`, counted directly. */
function expected(text: string): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  let line = 1;
  let column = 0;
  for (let i = 0; i < text.length; i++) {
    out.push({ line, column });
    if (text[i] === '\n') {
      line++;
      column = 0;
    } else column++;
  }
  return out;
}

function locateAll(index: LineIndex, length: number) {
  return Array.from({ length }, (_, offset) => index.locate(offset));
}

describe('LineIndex', () => {
  fcTest.prop(
    [
      fc
        .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('\n', '\r\n', 'é😀\n')), {
          maxLength: 20,
        })
        .map((parts) => parts.join(''))
        .chain((text) => fc.tuple(fc.constant(text), splitPoints(utf8.encode(text).length))),
    ],
    { numRuns },
  )('bytes cut anywhere: every offset maps to its line and column', ([text, points]) => {
    const index = new LineIndex();
    for (const chunk of splitAt(utf8.encode(text), points)) index.push(chunk);
    expect(locateAll(index, text.length)).toEqual(expected(text));
  });

  test('a byte-order mark at the start is not text, as for the engine', () => {
    const index = new LineIndex();
    index.push(Uint8Array.from([0xef, 0xbb]));
    index.push(Uint8Array.from([0xbf, ...utf8.encode('ab\ncd')]));
    expect(index.locate(3)).toEqual({ line: 2, column: 0 });
  });

  test('a string after bytes ends them: a character they left unfinished is one U+FFFD before it', () => {
    const index = new LineIndex();
    // "x", then the first two bytes of "€", then a string: the engine reads "x\uFFFD\nyz".
    index.push(Uint8Array.from([0x78, 0xe2, 0x82]));
    index.push('\nyz');
    expect(index.locate(3)).toEqual({ line: 2, column: 0 });
    expect(index.locate(4)).toEqual({ line: 2, column: 1 });
  });
});
