/**
 * The lines of a JSONL input of `llmjson batch`, read in blocks: each block is about
 * `BLOCK_BYTES` of the file, cut after its last line feed, so a block is whole lines. Every
 * thread that judges reads the file (batch-tasks.ts) and counts each block's lines and positions
 * (its non-blank lines) on the bytes, without decoding them; the thread that owns the block
 * decodes it, splits the lines again the same way and does everything else (parse, lift, judge,
 * fold). Counting lines is all a thread does per line of a block it does not own
 * (docs/decisions/042, 044).
 *
 * Lines are those `node:readline` gives (what `llmjson batch` always read with): a line ends at
 * `\n`, `\r\n` or a lone `\r`; a file's last line needs no line break; a byte-order mark before
 * the first line is read as nothing. A line is blank when `String.prototype.trim` leaves
 * nothing; every other line is an item of the run and takes the next position.
 *
 * Memory: one read buffer of `BLOCKS_PER_READ` blocks per reader, and each block handed out (a
 * line longer than the buffer grows it until the line ends, as readline's buffer would).
 */

import { isAscii } from 'node:buffer';
import { read } from 'node:fs';

/**
 * Bytes read at a time: a block is about this size (whole lines, so a little less). Under 128 KiB,
 * so that a block's text is a regular object for V8, not a large one (blocks of 256 KiB were 15 %
 * slower); 112 KiB rather than 64 sends 43 % fewer messages between the threads
 * (docs/decisions/042, third addendum).
 */
export const BLOCK_BYTES = 112 * 1024;

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

/**
 * Reads at `position` of the file, never at the descriptor's own offset: where two descriptors
 * share one (a file opened as `/dev/stdin` is a copy of descriptor 0 on macOS), each thread that
 * reads it still reads every byte.
 */
function readInto(fd: number, buffer: Buffer, offset: number, most: number, position: number): Promise<number> {
  return new Promise((done, fail) => {
    read(fd, buffer, offset, Math.min(buffer.length - offset, most), position, (error, bytes) =>
      error ? fail(error) : done(bytes),
    );
  });
}

/**
 * A block of whole lines: its bytes and how many lines and positions it holds (`countBlockLines`).
 * Its text, where it is needed, is `decodeBlock(bytes)`.
 */
export interface LineBlock extends LineCount {
  readonly bytes: Buffer;
}

/**
 * The text of a block's bytes, as UTF-8 (an invalid byte is U+FFFD, as readline reads it). Pure
 * ASCII, the usual case, is copied as it is, which is many times faster than decoding UTF-8.
 */
export function decodeBlock(bytes: Uint8Array): string {
  const buffer = asBuffer(bytes);
  return buffer.toString(isAscii(buffer) ? 'latin1' : 'utf8');
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * `countLines(decodeBlock(bytes))`, counted on the bytes: a line feed is never part of a UTF-8
 * sequence, so lines are found without decoding, and a line is decoded only when its first byte
 * that is not ASCII whitespace is not ASCII (it may be whitespace `trim()` removes, such as
 * U+00A0). A block with a carriage return (a line may end at a lone `\r`) is decoded and counted
 * as text.
 */
export function countBlockLines(bytes: Uint8Array): LineCount {
  const buffer = asBuffer(bytes);
  if (buffer.indexOf(CARRIAGE_RETURN) >= 0) return countLines(decodeBlock(buffer));
  let lines = 0;
  let positions = 0;
  let at = 0;
  const length = buffer.length;
  while (at < length) {
    let end = buffer.indexOf(LINE_FEED, at);
    if (end < 0) end = length;
    lines++;
    if (!isBlankBytes(buffer, at, end)) positions++;
    at = end + 1;
  }
  return { lines, positions };
}

function isBlankBytes(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = buffer[i] as number;
    if (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)) continue;
    if (byte < 0x80) return false;
    return buffer.toString('utf8', i, end).trim() === '';
  }
  return true;
}

const BOM = [0xef, 0xbb, 0xbf];

/** How many blocks' worth of bytes are read at a time (one read, then cut into blocks). */
const BLOCKS_PER_READ = 16;

/**
 * The file open as `fd`, in blocks of whole lines (see the file comment), each with its line
 * count; a byte-order mark at the start of the file is left out. `onBytes` is told the bytes of
 * each block. At most `maxBytes` of the file are read (its size when the run looked at it, so that
 * every thread reads the same lines of a file that grows meanwhile). The caller closes `fd`.
 *
 * The file is read `BLOCKS_PER_READ` blocks at a time into one buffer, kept for the whole file:
 * reading each block into a new buffer cost three times the system time (page faults on fresh
 * memory), and a read per block a trip to libuv's thread pool each (docs/decisions/042,
 * addendum). A block's bytes are a view of that buffer, valid until the next block is asked for:
 * a caller that keeps a block copies it (batch-tasks.ts copies only the blocks its thread judges).
 */
export async function* readBlocks(
  fd: number,
  onBytes: (bytes: number) => void = () => {},
  blockBytes: number = BLOCK_BYTES,
  maxBytes: number = Number.POSITIVE_INFINITY,
): AsyncGenerator<LineBlock> {
  let left = maxBytes;
  // Where the next read starts in the file.
  let position = 0;
  let buffer = Buffer.allocUnsafeSlow(blockBytes * BLOCKS_PER_READ);
  // The bytes read and not yet handed out are buffer[start, filled).
  let start = 0;
  let filled = 0;
  let first = true;
  let end = false;
  // A line longer than a block, not ended yet: buffer[start + blockBytes, scanned) holds no line
  // feed, so each read searches only what it added (a long line costs linear time).
  let scanned = 0;
  for (;;) {
    if (first && (filled >= BOM.length || end)) {
      first = false;
      if (filled >= BOM.length && BOM.every((b, i) => buffer[i] === b)) {
        start = BOM.length;
        onBytes(BOM.length);
      }
    }
    // Blocks of about blockBytes, each cut after its last line feed (the file's last block
    // whatever it ends with); less than a block's bytes waits for the next read.
    while (!first && start < filled && (end || filled - start > blockBytes)) {
      let cut = filled;
      if (filled - start > blockBytes) {
        cut = buffer.lastIndexOf(LINE_FEED, start + blockBytes - 1) + 1;
        if (cut <= start) {
          // A line longer than a block: the block is that line, to its end.
          const next = buffer.subarray(0, filled).indexOf(LINE_FEED, Math.max(start + blockBytes, scanned));
          if (next < 0 && !end) {
            scanned = filled;
            break;
          }
          cut = next < 0 ? filled : next + 1;
        }
      }
      const bytes = buffer.subarray(start, cut);
      start = cut;
      onBytes(bytes.length);
      yield { bytes, ...countBlockLines(bytes) };
    }
    if (end) return;
    if (start > 0) {
      buffer.copy(buffer, 0, start, filled);
      filled -= start;
      scanned = Math.max(0, scanned - start);
      start = 0;
    }
    if (filled === buffer.length) {
      // A line longer than the buffer: read on until it ends.
      const bigger = Buffer.allocUnsafeSlow(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const got = left > 0 ? await readInto(fd, buffer, filled, left, position) : 0;
    left -= got;
    position += got;
    end = got === 0;
    filled += got;
  }
}
