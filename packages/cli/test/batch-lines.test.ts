/**
 * Reading JSONL inputs in blocks (batch-lines.ts) and finding a value's text in a line
 * (field-path.ts `rawValueAt`): the lines are those node:readline gives whatever the block size,
 * and the text found reads back as the value JSON.parse gives.
 */
import { closeSync, mkdtempSync, openSync, readSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { countBlockLines, countLines, decodeBlock, forEachLine, isBlankLine, readBlocks } from '../src/batch-lines.js';
import { rawValueAt, valueAt } from '../src/field-path.js';

async function readlineLines(bytes: Buffer): Promise<string[]> {
  const lines: string[] = [];
  // One byte at a time: readline's own chunking cannot matter.
  const chunks = Array.from(bytes, (b) => Buffer.from([b]));
  for await (const line of createInterface({ input: Readable.from(chunks), crlfDelay: Number.POSITIVE_INFINITY })) {
    lines.push(lines.length === 0 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
  }
  return lines;
}

async function blockLines(bytes: Buffer, blockBytes: number): Promise<{ lines: string[]; counted: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-lines-'));
  const file = join(dir, 'in.jsonl');
  writeFileSync(file, bytes);
  const fd = openSync(file, 'r');
  const lines: string[] = [];
  let counted = 0;
  try {
    for await (const { bytes: block, lines: blockLines, positions } of readBlocks(fd, () => {}, blockBytes)) {
      const text = decodeBlock(block);
      expect({ lines: blockLines, positions }).toEqual(countLines(text));
      counted += positions;
      forEachLine(text, (start, end) => lines.push(text.slice(start, end)));
    }
  } finally {
    closeSync(fd);
  }
  return { lines, counted };
}

const pieces = fc.constantFrom(
  '{"a":1}',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  'é',
  '€',
  '😀',
  '\u00a0',
  '\ufeff',
  '[',
  'x',
  '"',
);

describe('batch lines: blocks of whole lines', () => {
  fcTest.prop([fc.array(pieces, { maxLength: 60 }), fc.boolean(), fc.integer({ min: 1, max: 24 })], { numRuns: 300 })(
    'the lines of any text in blocks of any size are readline’s, and the count of non-blank ones',
    async (parts, bom, blockBytes) => {
      // A file that is a byte-order mark alone: readline gives one blank line, the blocks none;
      // no position either way.
      const whole = `${bom ? '\ufeff' : ''}${parts.join('')}`;
      fc.pre(whole !== '\ufeff');
      const bytes = Buffer.from(whole, 'utf8');
      const expected = await readlineLines(bytes);
      const { lines, counted } = await blockLines(bytes, blockBytes);
      expect(lines).toEqual(expected);
      expect(counted).toBe(expected.filter((line) => line.trim() !== '').length);
    },
  );

  fcTest.prop(
    [
      fc.array(
        fc.oneof(
          pieces.map((piece) => Buffer.from(piece)),
          fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)),
        ),
        { maxLength: 40 },
      ),
    ],
    { numRuns: 300 },
  )('counted on the bytes, any block has the lines and positions of its decoded text', (parts) => {
    const bytes = Buffer.concat(parts);
    expect(countBlockLines(bytes)).toEqual(countLines(decodeBlock(bytes)));
  });

  test('the bytes read and handed out add up to the file, a byte-order mark included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-lines-'));
    const file = join(dir, 'in.jsonl');
    const whole = Buffer.from(`\ufeff${'{"a":1}\n'.repeat(50)}{"b":2}`);
    writeFileSync(file, whole);
    const fd = openSync(file, 'r');
    let told = 0;
    let handed = 0;
    try {
      for await (const { bytes } of readBlocks(fd, (n) => (told += n), 16)) {
        expect(bytes.length).toBeGreaterThan(0);
        handed += bytes.length;
      }
    } finally {
      closeSync(fd);
    }
    expect(told).toBe(whole.length);
    expect(handed).toBe(whole.length - 3);
  });

  test("read from the file's start whatever the descriptor's offset, and no further than maxBytes", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-lines-'));
    const file = join(dir, 'in.jsonl');
    const lines = Array.from({ length: 50 }, (_, i) => `{"i":${i}}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const fd = openSync(file, 'r');
    const read = async (maxBytes?: number) => {
      const got: string[] = [];
      for await (const { bytes } of readBlocks(fd, () => {}, 64, maxBytes)) {
        const text = decodeBlock(bytes);
        forEachLine(text, (start, end) => got.push(text.slice(start, end)));
      }
      return got;
    };
    try {
      // Another reader of the same descriptor moved its offset (as two threads sharing one would).
      readSync(fd, Buffer.alloc(100));
      expect(await read()).toEqual(lines);
      expect(await read(Buffer.byteLength(`${lines.slice(0, 7).join('\n')}\n`))).toEqual(lines.slice(0, 7));
    } finally {
      closeSync(fd);
    }
  });

  test('an invalid UTF-8 byte reads as U+FFFD, as readline reads it', async () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xc3]), Buffer.from('"}\n{}\n')]);
    expect((await blockLines(bytes, 4)).lines).toEqual(await readlineLines(bytes));
  });

  test('blank: only what trim() removes', () => {
    for (const line of ['', ' ', '\t\v\f\r', '\u00a0', '\ufeff \u2028'])
      expect(isBlankLine(line, 0, line.length)).toBe(true);
    for (const line of ['x', ' {}', '\u0085', '\u001f']) {
      expect(isBlankLine(line, 0, line.length)).toBe(line.trim() === '');
    }
  });
});

/** A JSON text of `value` with whitespace around its tokens, and some keys written with escapes. */
function spaced(value: unknown, space: string, escapeKeys: boolean): string {
  if (Array.isArray(value))
    return `[${space}${value.map((v) => spaced(v, space, escapeKeys)).join(`${space},${space}`)}${space}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(([key, v]) => {
      const written = escapeKeys ? JSON.stringify(key).replace(/a/g, '\\u0061') : JSON.stringify(key);
      return `${written}${space}:${space}${spaced(v, space, escapeKeys)}`;
    });
    return `{${space}${members.join(`${space},${space}`)}${space}}`;
  }
  return JSON.stringify(value);
}

describe('rawValueAt: a value’s text as the line writes it', () => {
  const keys = fc.constantFrom('a', 'schema', 'b', '', '"', '\\', 'é', '__proto__');
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(keys, tie('value'), { maxKeys: 4 }),
    ),
  })).value;

  fcTest.prop(
    [
      fc.dictionary(keys, json, { maxKeys: 5 }),
      fc.array(keys, { minLength: 1, maxLength: 3 }),
      fc.constantFrom('', ' ', '\n\t'),
      fc.boolean(),
    ],
    { numRuns: 500 },
  )('what it finds is the text of the value at the path, or it finds nothing', (record, path, space, escapeKeys) => {
    // The oracle is the generated value and its own text, not JSON.parse of the line: Node
    // 24.21's JSON.parse, once it has read a key "\\" (a backslash), reads a later key "\"" (a
    // quote) as a backslash too, which this property found.
    const text = spaced(record, space, escapeKeys);
    const found = rawValueAt(text, path);
    const expected = valueAt(record, path);
    if (found === undefined) {
      // Only when there is no value there, or the path goes through an array.
      let at: unknown = record;
      let throughArray = false;
      for (const segment of path) {
        if (Array.isArray(at)) throughArray = true;
        at =
          typeof at === 'object' && at !== null && Object.hasOwn(at, segment)
            ? (at as Record<string, unknown>)[segment]
            : undefined;
      }
      expect(expected === undefined || throughArray).toBe(true);
    } else {
      expect(expected).not.toBeUndefined();
      expect(found).toBe(spaced(expected, space, escapeKeys));
    }
  });

  test('the last of duplicate keys, as JSON.parse takes it; escaped keys; strings with quotes and backslashes', () => {
    const line = '{"schema": {"a": 1}, "text": "x \\" \\\\", "sch\\u0065ma" : {"b": "}"} }';
    expect(rawValueAt(line, ['schema'])).toBe('{"b": "}"}');
    expect(JSON.parse(line).schema).toEqual({ b: '}' });
    expect(rawValueAt(line, ['text'])).toBe('"x \\" \\\\"');
    expect(rawValueAt('{"a": [1, {"b": 2}]}', ['a', '1', 'b'])).toBeUndefined();
    expect(rawValueAt('{"a": {"b": -1.5e3}}', ['a', 'b'])).toBe('-1.5e3');
    expect(rawValueAt('[1]', ['0'])).toBeUndefined();
  });

  fcTest.prop(
    [
      fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', 'x', 'u', '0', ' ') }),
      fc.array(fc.constantFrom('x', 'u', ''), { minLength: 1, maxLength: 2 }),
    ],
    { numRuns: 1000 },
  )('any text, JSON or not: an answer or undefined, never an exception', (text, path) => {
    const found = rawValueAt(`{${text}`, path);
    expect(found === undefined || typeof found === 'string').toBe(true);
  });

  test('a key with a bad escape (the line is not JSON): undefined, not an exception', () => {
    expect(rawValueAt('{"\\x":1,"schema":{}}', ['schema'])).toBeUndefined();
    expect(rawValueAt('{"sch\\u00":1}', ['schema'])).toBeUndefined();
  });
});
