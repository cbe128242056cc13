/**
 * The markdown-fence recogniser (fence.ts) that the JSONL decoder, the salvage scanner and
 * `extractJson`'s repair share: fence lines against the grammar written as a regular
 * expression, a fence line fed in pieces split at every boundary, fenced blocks against a
 * line-by-line reading, and the salvage scanner's fenced values inside exactly those blocks
 * under any chunking.
 */
import { test as fcTest } from '@fast-check/vitest';
import { extractJson, type SalvagedValue } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import { salvageChunks } from '../../../test/support/salvage.js';
import {
  FenceLine,
  fencedBlocks,
  inlineCodeSpans,
  isFenceIndent,
  isFenceLine,
  isFenceMarker,
  MAX_FENCE_INDENT,
  MAX_FENCE_INFO_LENGTH,
} from '../src/text/fence.js';

/** The grammar of a fence line (without its line feed), as a regular expression (short lines only). */
const GRAMMAR = new RegExp(
  `^[ \\t]{0,${MAX_FENCE_INDENT}}(?:\`{3,}|~{3,})[ \\t\\r]*(?:[\\w.+#-]{1,${MAX_FENCE_INFO_LENGTH}}[ \\t\\r]*)?$`,
);

/** Lines near the grammar: indentation, a marker run, spaces, an info word, spaces, sometimes junk. */
const fenceish: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 0, max: MAX_FENCE_INDENT + 2 }),
    fc.constantFrom('`', '~'),
    fc.integer({ min: 1, max: 6 }),
    fc.stringMatching(/^[ \t\r]{0,3}$/),
    fc.oneof(fc.constant(''), fc.stringMatching(/^[\w.+#-]{1,36}$/), fc.constantFrom('json', 'JSONL', 'c++', 'x#')),
    fc.stringMatching(/^[ \t\r]{0,3}$/),
    fc.oneof(fc.constant(''), fc.constant(''), fc.constantFrom('`', '~', '{"a": 1}', ' x', '```', 'é')),
  )
  .map(
    ([indent, marker, count, before, info, after, junk]) =>
      `${' \t'.repeat(indent).slice(0, indent)}${marker.repeat(count)}${before}${info}${after}${junk}`,
  );

const line = fc.oneof(fenceish, fc.string({ unit: fc.constantFrom('`', '~', ' ', '\t', '\r', 'j', '{', '.', 'é') }));

/** Feeds `pieces` (one line, maybe with a line feed and more text) to a FenceLine begun at `at`. */
function feedPieces(pieces: readonly string[], at: number) {
  const match = new FenceLine();
  let offset = 0; // where the current piece starts in the whole text
  let begun = false;
  for (const piece of pieces) {
    let from = 0;
    if (!begun) {
      if (offset + piece.length <= at) {
        offset += piece.length;
        continue;
      }
      match.begin(piece.charCodeAt(at - offset), at);
      begun = true;
      from = at - offset;
    }
    const stop = match.feed(piece, from);
    if (stop < 0) return { fence: false as const };
    if (stop < piece.length) return { end: offset + stop, ...described(match) };
    offset += piece.length;
  }
  return { end: offset, ...described(match) };
}

const described = (match: FenceLine) => ({ fence: match.complete, count: match.count, info: match.info });

describe('isFenceLine', () => {
  test.each([
    ['```', true],
    ['```json', true],
    ['  ~~~ JSONL ', true],
    ['````', true],
    ['```c++', true],
    ['```json\r', true],
    [`${' '.repeat(MAX_FENCE_INDENT)}\`\`\``, true],
    [`\`\`\`${'x'.repeat(MAX_FENCE_INFO_LENGTH)}`, true],
    ['``', false],
    ['```json {"a": 1}', false],
    ['``` ```', false],
    ['```~', false],
    ['```json x', false],
    ['text ```', false],
    [`${' '.repeat(MAX_FENCE_INDENT + 1)}\`\`\``, false],
    [`\`\`\`${'x'.repeat(MAX_FENCE_INFO_LENGTH + 1)}`, false],
    ['', false],
  ])('%j: %s', (text, expected) => {
    expect(isFenceLine(text)).toBe(expected);
  });

  fcTest.prop([line], { numRuns: numRuns * 10 })(
    'agrees with the grammar, and with FenceLine reading the line',
    (text) => {
      const expected = GRAMMAR.test(text);
      expect(isFenceLine(text)).toBe(expected);
      const at = text.search(/[^ \t]/);
      const byFeed =
        at >= 0 && isFenceIndent(text, 0, at) && isFenceMarker(text.charCodeAt(at)) && feedPieces([text], at).fence;
      expect(byFeed).toBe(expected);
    },
  );
});

describe('FenceLine over pieces', () => {
  fcTest.prop([fenceish, fc.string({ maxLength: 4 })], { numRuns })(
    'split at every boundary: the same decision, run and info as the whole line',
    (text, rest) => {
      const full = `${text}\n${rest}`;
      const at = text.search(/[`~]/);
      const whole = feedPieces([full], at);
      // The indentation is the caller's to check (isFenceIndent): the line from its marker on.
      expect(whole.fence).toBe(GRAMMAR.test(text.slice(at)));
      if (whole.fence) expect(whole.end).toBe(text.length);
      for (let size = 1; size <= full.length; size++) {
        const pieces: string[] = [];
        for (let i = 0; i < full.length; i += size) pieces.push(full.slice(i, i + size));
        expect(feedPieces(pieces, at), `size ${size}`).toEqual(whole);
      }
      for (let k = 0; k <= full.length; k++) {
        expect(feedPieces([full.slice(0, k), full.slice(k)], at), `split at ${k}`).toEqual(whole);
      }
    },
  );

  fcTest.prop([fenceish.chain((text) => fc.tuple(fc.constant(text), splitPoints(text.length)))], { numRuns })(
    'at arbitrary split points, empty pieces included',
    ([text, points]) => {
      const at = text.search(/[`~]/);
      expect(feedPieces(splitAt(text, points), at)).toEqual(feedPieces([text], at));
    },
  );
});

/** Fenced blocks read line by line with the grammar (the reference for `fencedBlocks`). */
function referenceBlocks(text: string): { start: number; end: number; info: string }[] {
  const blocks: { start: number; end: number; info: string }[] = [];
  let open: { marker: string; count: number; info: string; start: number } | undefined;
  let lineStart = 0;
  for (const row of text.split('\n')) {
    const next = lineStart + row.length + 1;
    if (GRAMMAR.test(row)) {
      const [, run = '', rawInfo = ''] = /^[ \t]*(`+|~+)[ \t\r]*([^ \t\r]*)/.exec(row) ?? [];
      if (open === undefined) {
        open = {
          marker: run.charAt(0),
          count: run.length,
          info: rawInfo.toLowerCase(),
          start: Math.min(next, text.length),
        };
      } else if (run.charAt(0) === open.marker && run.length >= open.count && rawInfo === '') {
        blocks.push({ start: open.start, end: lineStart, info: open.info });
        open = undefined;
      }
    }
    lineStart = next;
  }
  if (open !== undefined) blocks.push({ start: open.start, end: text.length, info: open.info });
  return blocks;
}

/** One line of an answer: a fence line (or near one), one-line JSON, or prose without brackets or backticks. */
const answerLine = fc.oneof(
  { weight: 3, arbitrary: fenceish },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify({ v })) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z ,.:'"~]{0,20}$/) },
);
const answer = fc
  .tuple(fc.array(answerLine, { maxLength: 12 }), fc.constantFrom('\n', '\r\n'))
  .map(([lines, lineBreak]) => lines.join(lineBreak));

describe('fencedBlocks', () => {
  test('a closing line: the same marker, at least as long, no info word', () => {
    expect(fencedBlocks('```json\n{"a": 1}\n```\nafter')).toEqual([{ start: 8, end: 17, info: 'json' }]);
    expect(fencedBlocks('~~~JSON\n[1]\n```\n~~~~\n')).toEqual([{ start: 8, end: 16, info: 'json' }]);
    expect(fencedBlocks('````\na\n```\n```` x\n````')).toEqual([{ start: 5, end: 18, info: '' }]);
    expect(fencedBlocks('```\r\n[1]\r\n```\r\n')).toEqual([{ start: 5, end: 10, info: '' }]);
  });

  test('a block that never closes runs to the end; a fence line at the very end opens an empty one', () => {
    expect(fencedBlocks('text\n```json\n{"a": 1}')).toEqual([{ start: 13, end: 21, info: 'json' }]);
    expect(fencedBlocks('text\n```')).toEqual([{ start: 8, end: 8, info: '' }]);
    expect(fencedBlocks('no fence ``` here\n  ``x')).toEqual([]);
  });

  fcTest.prop([answer], { numRuns: numRuns * 10 })('agrees with a line-by-line reading of the grammar', (text) => {
    expect(fencedBlocks(text)).toEqual(referenceBlocks(text));
  });

  fcTest.prop([answer.chain((text) => fc.tuple(fc.constant(text), splitPoints(text.length)))], { numRuns })(
    'the salvage scanner, under any chunking, finds fenced values exactly inside these blocks',
    ([text, points]) => {
      const blocks = fencedBlocks(text);
      const whole = salvageChunks([text]);
      expect(salvageChunks(splitAt(text, points))).toEqual(whole);
      expect((whole.stats as { fences: number }).fences).toBe(blocks.length);
      for (const value of whole.values as SalvagedValue[]) {
        const block = blocks.find((b) => b.start <= value.start && value.end <= b.end);
        expect(value.source === 'fence', JSON.stringify(value)).toBe(block !== undefined);
        if (block !== undefined) expect(value.fence).toBe(block.info);
      }
    },
  );
});

describe("extractJson's repair reads fences by the same rules", () => {
  test('a longer closing run closes the block: the repaired body, with its offsets', () => {
    const text = "```json\n{'a': 1}\n`````\n{'b': 2}";
    expect(extractJson(text, { repair: true })).toEqual({
      value: { a: 1 },
      source: 'fence',
      start: 8,
      end: 16,
      repaired: true,
    });
  });

  test('an indented fence is a fence up to the indentation limit', () => {
    const fenced = `${' '.repeat(MAX_FENCE_INDENT)}\`\`\`\n{'a': 1}\n`;
    expect(extractJson(fenced, { repair: true })).toMatchObject({ value: { a: 1 }, source: 'fence' });
    const prose = `${' '.repeat(MAX_FENCE_INDENT + 1)}\`\`\`\n{'a': 1}\n`;
    expect(extractJson(prose, { repair: true })).toMatchObject({ value: { a: 1 }, source: 'embedded' });
  });
});

describe('inlineCodeSpans', () => {
  /** The definition, as a backtracking regular expression (short texts only). */
  function reference(text: string): { start: number; end: number }[] {
    const spans: { start: number; end: number }[] = [];
    const inline = /(`+)([^`\n]+?)\1/g;
    for (let m = inline.exec(text); m !== null; m = inline.exec(text)) {
      const start = m.index + (m[1] ?? '').length;
      spans.push({ start, end: start + (m[2] ?? '').length });
    }
    return spans;
  }

  test.each([
    ['`{"a": 1}`', [{ start: 1, end: 9 }]],
    [
      'say ``x`` and `y`',
      [
        { start: 6, end: 7 },
        { start: 15, end: 16 },
      ],
    ],
    ['```a`', [{ start: 3, end: 4 }]],
    [
      '`a```b`',
      [
        { start: 1, end: 2 },
        { start: 5, end: 6 },
      ],
    ],
    ['`a\nb`', []],
    ['``', []],
    ['`open', []],
  ])('%j', (text, expected) => {
    expect(inlineCodeSpans(text)).toEqual(expected);
    expect(reference(text)).toEqual(expected);
  });

  fcTest.prop([fc.string({ unit: fc.constantFrom('`', '`', 'a', ' ', '\n', '\r', '{'), maxLength: 60 })], {
    numRuns: numRuns * 10,
  })('the same spans as the definition for any text of backticks, text and line breaks', (text) => {
    expect(inlineCodeSpans(text)).toEqual(reference(text));
  });

  test('a text of 200 000 backticks and one letter: no span, read in one pass', () => {
    const text = `${'`'.repeat(100_000)}a${'`'.repeat(100_000)}`;
    expect(inlineCodeSpans(text)).toEqual([{ start: 100_000, end: 100_001 }]);
    expect(inlineCodeSpans('`'.repeat(200_000))).toEqual([]);
  });
});
