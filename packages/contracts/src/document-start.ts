/**
 * Where a JSON answer's document starts, for the failFast builder: the answer from its document
 * on, after whitespace and markdown fence lines, read chunk by chunk.
 *
 * Contract: `read(chunk)` returns the part of `chunk` at or after the document's first character
 * (`{ [ " -` or a digit), '' while the answer is still before it, and every later chunk whole;
 * `skipped` counts the characters before the document (the builder's offsets start after them).
 * Before the document only whitespace and fence lines may come; an answer that opens with anything
 * else (prose, JSON on the fence line itself) is not watched: `read` returns '' from then on, and
 * the answer is decided whole, as without failFast.
 *
 * What a fence line is belongs to core's one recogniser (`FenceLine`, packages/core/src/text/fence.ts,
 * decision 026): the same lines the salvage scanner, the JSONL decoder and `extractJson` take for
 * fences, followed here by position over any number of chunks, each character once, so nothing of
 * a fence line is buffered. Its own file: the prompt runner's one piece of answer text reading.
 */

import { FenceLine, isFenceMarker, MAX_FENCE_INDENT } from '@llmjson/core/internal';

/** Characters that open a JSON document. */
const DOCUMENT_START = '{["-0123456789';

const LINE_FEED = 0x0a;

/** Whitespace as `String.prototype.trimStart` reads it (what may come before the document). */
const WHITESPACE = /\s/;

export interface DocumentStart {
  /** The part of `chunk` the builder reads (see the file's comment). */
  read(chunk: string): string;
  /** Characters of the answer before the document, so far. */
  readonly skipped: number;
}

export function documentStart(): DocumentStart {
  let state: 'start' | 'fence' | 'document' | 'off' = 'start';
  const fence = new FenceLine();
  // Characters of the current line before its first non-space: its indentation, when all are
  // spaces or tabs (`indented`).
  let indent = 0;
  let indented = true;
  let skipped = 0;
  return {
    get skipped() {
      return skipped;
    },
    read(chunk) {
      if (state === 'document') return chunk;
      if (state === 'off') return '';
      let i = 0;
      while (i < chunk.length) {
        if (state === 'fence') {
          const end = fence.feed(chunk, i);
          if (end === chunk.length) break;
          if (end < 0 || !fence.complete) {
            state = 'off';
            return '';
          }
          i = end + 1;
          state = 'start';
          indent = 0;
          indented = true;
          continue;
        }
        const c = chunk.charCodeAt(i);
        if (c === LINE_FEED) {
          indent = 0;
          indented = true;
          i++;
          continue;
        }
        const char = chunk[i] as string;
        if (DOCUMENT_START.includes(char)) {
          state = 'document';
          skipped += i;
          return chunk.slice(i);
        }
        if (WHITESPACE.test(char)) {
          indent++;
          if (c !== 0x20 && c !== 0x09) indented = false;
          i++;
          continue;
        }
        if (isFenceMarker(c) && indented && indent <= MAX_FENCE_INDENT) {
          fence.begin(c, i);
          state = 'fence';
          continue;
        }
        state = 'off';
        return '';
      }
      skipped += chunk.length;
      return '';
    },
  };
}
