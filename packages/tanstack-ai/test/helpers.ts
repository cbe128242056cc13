/**
 * What the tests compare the incremental parser with: TanStack AI's own default parser
 * (`parsePartialJSON`, `partial-json` inside) on the same text, but for the one documented
 * difference (decision 037): a number or literal still being written is left out, so the oracle
 * is the default parser on the text cut before that word. Documents are generated as text by the
 * shared arbitraries (unicode, escapes, every number form), compact or pretty-printed.
 */

import { parsePartialJSON } from '@tanstack/ai';
import fc from 'fast-check';
import { jsonValueText } from '../../../test/support/arbitraries.js';

const WORD_START = /[-0-9tfn]/;
const WORD_PART = /[-+.0-9a-zA-Z]/;
/** A literal is complete at its last letter (nothing can extend it), a number only at a delimiter. */
const LITERALS = new Set(['true', 'false', 'null']);
/** What `String.prototype.trim` removes (`\s` is the same set). */
const TRAILING_SPACE = /\s$/u;

/**
 * The text to give TanStack's parser for the incremental parser's value of `text`: `text` cut
 * before the number or unfinished `true`/`false`/`null` it ends inside of (outside strings), or
 * `text` itself. A number is in flight until a delimiter follows it: `[1, 2` ends inside `2`.
 */
export function settled(text: string): string {
  let inString = false;
  let escaped = false;
  let word = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (word >= 0) {
      if (WORD_PART.test(c)) continue;
      word = -1;
    }
    if (c === '"') inString = true;
    else if (WORD_START.test(c)) word = i;
  }
  if (word >= 0) {
    // A root number or literal is only known complete at the end of input: none before it.
    if (text.slice(0, word).trim() === '') return '';
    return LITERALS.has(text.slice(word)) ? text : text.slice(0, word);
  }
  // partial-json trims the text first, so a string in flight loses the whitespace it ends with
  // (and U+2028, U+00A0…, which `trim` removes too); closed, the string keeps it. The
  // incremental parser's strings only grow: they show it at once.
  return inString && TRAILING_SPACE.test(text) ? `${text}"` : text;
}

/** TanStack's default parser on the settled text: what the incremental parser must return. */
export const oracle = (text: string): unknown => parsePartialJSON(settled(text));

/**
 * JSON documents as a model writes tool arguments: any value, compact or pretty-printed. Without
 * `__proto__` keys, which `partial-json` turns into a prototype (the incremental parser keeps
 * them as data: its own test).
 */
export const documents: fc.Arbitrary<string> = fc
  .tuple(jsonValueText, fc.constantFrom(0, 0, 2))
  .filter(([text]) => !text.includes('"__proto__"'))
  .map(([text, indent]) => (indent === 0 ? text : JSON.stringify(JSON.parse(text), null, indent)));

/** The growing texts TanStack hands its parser when `text` arrives cut at `points` (args events). */
export function growing(text: string, points: readonly number[]): string[] {
  const cuts = [...new Set(points.map((p) => Math.min(text.length, Math.max(1, p))))].sort((a, b) => a - b);
  if (cuts.at(-1) !== text.length) cuts.push(text.length);
  return cuts.map((cut) => text.slice(0, cut));
}
