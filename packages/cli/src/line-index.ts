/**
 * Line and column of an offset in the text a mode reads, for diagnostics whose engine reports
 * only an offset (salvage, elements, partial, json): `line 3, column 9` is what a person looks
 * for in an editor. The index sees the same text as the engine (the bytes, decoded here with a
 * decoder of its own that decodes as the engine's does — a string after bytes ends them — so
 * that the engine's own decoding and its `encoding` diagnostics are untouched) and keeps the
 * starts of the latest `MAX_LINES` lines: memory stays bounded however long the input, and an
 * offset further back than that (a value spanning more lines) is reported by its offset alone.
 * Lines end at `\n` (a `\r\n` is one line break).
 */

import { createUtf8Chunks } from '@llmjson/core/internal';

/** Line starts kept (at most twice this many between trims). */
const MAX_LINES = 65_536;

export class LineIndex {
  private readonly decoder = createUtf8Chunks();
  /** Offsets (UTF-16 code units) where the kept lines start, ascending. */
  private starts: number[] = [0];
  /** Line number (1-based) of `starts[0]`. */
  private firstLine = 1;
  private chars = 0;

  /** The next piece of the text, as the engine receives it (bytes or text). */
  push(chunk: string | Uint8Array): void {
    const text = typeof chunk === 'string' ? this.decoder.flush() + chunk : this.decoder.decode(chunk);
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(this.chars + i + 1);
    this.chars += text.length;
    if (this.starts.length > 2 * MAX_LINES) {
      const drop = this.starts.length - MAX_LINES;
      this.starts = this.starts.slice(drop);
      this.firstLine += drop;
    }
  }

  /** Characters (UTF-16 code units) of text seen so far. */
  get length(): number {
    return this.chars;
  }

  /** The 1-based line and 0-based column of `offset`, or undefined when it is too far back. */
  locate(offset: number): { line: number; column: number } | undefined {
    const starts = this.starts;
    if (offset < (starts[0] as number)) return undefined;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: this.firstLine + low, column: offset - (starts[low] as number) };
  }
}
