/**
 * Where a streamed answer's JSON document starts, decided as the text arrives, for the partial
 * builder that then reads it. The builder alone starts the document at the first `{` or `[`
 * after prose, so `Here are [3] items:` followed by a ```` ```json ```` block would make `[3]`
 * the answer; LangChain's parser would find the fence. The locator masks what cannot start the
 * document, so the builder never starts there:
 *
 * - The answer's first non-whitespace character is not a letter, a backtick or a tilde: the
 *   document starts there (the builder's own rules: `{`, `[`, `"`, a bare number).
 * - Otherwise the answer opens with prose, read line by line: after a fence line
 *   (```` ```json ````, ```` ```jsonl ````, ```` ```JSON ````, `~~~`, bare: core's fence rule) the
 *   document starts on the next line; a line whose first non-whitespace character is `{` or `[`
 *   starts it there. Every other `{` and `[` of the prose is handed to the builder as a space:
 *   the same length, so every offset the builder reports is an offset of the answer.
 * - An answer whose document never started this way (JSON inside a prose line) is the caller's
 *   to salvage once at the end (`extractJson`), as `maskedPrefix` allows.
 *
 * Linear: each character is looked at once while the prose lasts, and not at all after; what is
 * held is the current line's first MAX_FENCE_LINE characters (a longer line is no fence line).
 */

import { isFenceLine } from '@llmjson/core/internal';

/** Longest line still tested as a fence line: 16 spaces of indent, a long marker run, a 32-letter info word, spaces. */
const MAX_FENCE_LINE = 256;

const START = 0;
const PROSE = 1;
const STARTED = 2;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function opensProse(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x60 || c === 0x7e || c > 0x7f;
}

/** `text` with every `{` and `[` as a space (prose that must not start the document). */
export function maskedPrefix(text: string): string {
  return text.replace(/[{[]/g, ' ');
}

export class DocumentLocator {
  #phase = START;
  /** The current prose line, up to MAX_FENCE_LINE characters, and its length. */
  #line = '';
  #lineLength = 0;
  /** Only whitespace since the current line's start. */
  #lineStart = true;

  /** True once the document's start was found: the rest of the answer goes to the builder as it is. */
  get started(): boolean {
    return this.#phase === STARTED;
  }

  /** What the builder gets for `text`: the same text, its prose's brackets masked. */
  write(text: string): string {
    if (this.#phase === STARTED) return text;
    let out = '';
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.#phase === START) {
        if (isWhitespace(c)) continue;
        if (!opensProse(c)) {
          this.#phase = STARTED;
          return out + text.slice(from);
        }
        this.#phase = PROSE;
      }
      if (c === 0x0a) {
        const fence = this.#lineLength <= MAX_FENCE_LINE && isFenceLine(this.#line);
        this.#line = '';
        this.#lineLength = 0;
        this.#lineStart = true;
        if (fence) {
          this.#phase = STARTED;
          return out + text.slice(from);
        }
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (this.#lineStart) {
          this.#phase = STARTED;
          return out + text.slice(from);
        }
        out += `${text.slice(from, i)} `;
        from = i + 1;
      } else if (!isWhitespace(c)) {
        this.#lineStart = false;
      }
      if (this.#lineLength < MAX_FENCE_LINE) this.#line += text[i];
      this.#lineLength++;
    }
    return out + text.slice(from);
  }
}
