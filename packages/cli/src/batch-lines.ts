/**
 * The lines of a JSONL input of `llmjson batch`, read in blocks: the file is read a block of
 * about `BLOCK_BYTES` at a time, each block cut after its last line break and decoded once, so
 * a block is whole lines of text. The main thread counts each block's positions (its non-blank
 * lines) and hands the block, as text, to a worker, which splits it again the same way and does
 * everything else (parse, lift, judge, fold). Counting lines is all the main thread does per
 * line, so it never becomes the bottleneck however many workers there are (docs/decisions/042).
 *
 * Lines are those `node:readline` gives (what `llmjson batch` always read with): a line ends at
 * `\n`, `\r\n` or a lone `\r`; a file's last line needs no line break; a byte-order mark before
 * the first line is read as nothing. A line is blank when `String.prototype.trim` leaves
 * nothing; every other line is an item of the run and takes the next position.
 *
 * Memory: one block at a time per reader (a line longer than a block grows it until the line
 * ends, as readline's buffer would; the next block is of the usual size again).
 */

import { isAscii } from 'node:buffer';
import { read } from 'node:fs';

/** Bytes read at a time: a block is about this size (whole lines, so a little less). */
export const BLOCK_BYTES = 64 * 1024;

/** True when `text.slice(start, end)` is blank (only what `trim()` removes). */
export function isBlankLine(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    // JSON whitespace and the other ASCII characters trim() removes (\v, \f).
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) continue;
    if (code < 0x80) return false;
    return text.slice(i, end).trim() === '';
  }
  return true;
}

/**
 * Calls `visit(start, end)` for each line of `text` in order (the line is `text.slice(start,
 * end)`, without its line break), as readline splits it; returns the number of lines.
 */
export function forEachLine(text: string, visit: (start: number, end: number) => void): number {
  let lines = 0;
  let at = 0;
  const length = text.length;
  if (text.indexOf('\r') < 0) {
    while (at < length) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = length;
      visit(at, end);
      lines++;
      at = end + 1;
    }
    return lines;
  }
  const breaks = /\r\n|\r|\n/g;
  while (at < length) {
    breaks.lastIndex = at;
    const found = breaks.exec(text);
    const end = found === null ? length : found.index;
    visit(at, end);
    lines++;
    at = found === null ? length : end + (found[0] as string).length;
  }
  return lines;
}

/** How many lines a block holds, and how many of them are items (non-blank). */
export interface LineCount {
  readonly lines: number;
  readonly positions: number;
}

export function countLines(text: string): LineCount {
  let positions = 0;
  const lines = forEachLine(text, (start, end) => {
    if (!isBlankLine(text, start, end)) positions++;
  });
  return { lines, positions };
}

function readInto(fd: number, buffer: Buffer, offset: number): Promise<number> {
  return new Promise((done, fail) => {
    read(fd, buffer, offset, buffer.length - offset, null, (error, bytes) => (error ? fail(error) : done(bytes)));
  });
}

/** A block of whole lines: its bytes (a buffer of its own, to hand to a worker) and its text. */
export interface LineBlock {
  readonly bytes: Buffer;
  readonly text: string;
}

/**
 * The text of a block's bytes, as UTF-8 (an invalid byte is U+FFFD, as readline reads it). Pure
 * ASCII, the usual case, is copied as it is, which is many times faster than decoding UTF-8: the
 * main thread decodes each block to count its lines, and the worker again to judge them.
 */
export function decodeBlock(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString(isAscii(buffer) ? 'latin1' : 'utf8');
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * The file open as `fd`, in blocks of whole lines (see the file comment), each in a buffer of its
 * own; a byte-order mark at the start of the file is left out. `onBytes` is told the bytes of each
 * block. The caller closes `fd`.
 */
export async function* readBlocks(
  fd: number,
  onBytes: (bytes: number) => void = () => {},
  blockBytes: number = BLOCK_BYTES,
): AsyncGenerator<LineBlock> {
  let buffer = Buffer.allocUnsafeSlow(blockBytes);
  let filled = 0;
  let first = true;
  for (;;) {
    if (filled === buffer.length) {
      // A line longer than the block: read on until it ends.
      const bigger = Buffer.allocUnsafeSlow(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const got = await readInto(fd, buffer, filled);
    const end = got === 0;
    filled += got;
    const cut = end ? filled : buffer.lastIndexOf(10, filled - 1) + 1;
    if (cut === 0) {
      if (end) return;
      continue;
    }
    let bytes = buffer.subarray(0, cut);
    if (first && cut >= 3 && BOM.every((b, i) => bytes[i] === b)) bytes = bytes.subarray(3);
    first = false;
    // The rest (a line not yet ended) starts the next block's buffer.
    const next = Buffer.allocUnsafeSlow(Math.max(blockBytes, (filled - cut) * 2));
    buffer.copy(next, 0, cut, filled);
    filled -= cut;
    buffer = next;
    onBytes(cut);
    if (bytes.length > 0) yield { bytes, text: decodeBlock(bytes) };
    if (end) return;
  }
}
