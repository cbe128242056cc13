/**
 * Field paths of `llmjson batch` (`--text-field`, `--id-field`, `--model-field`, `--finish-field`,
 * `--schema-field`): where in a record a value is, written either as a dotted path
 * (`response.body.choices.0.message.content`) or as an RFC 6901 JSON Pointer
 * (`/response/body/choices/0/message/content`, `~1` for `/` and `~0` for `~` inside a key).
 *
 * Invariants:
 * - A path is parsed once, when the flags are read (`parseFieldPath`), into its segments; a path
 *   that cannot mean anything (empty, an empty segment of a dotted path, a `~` escape RFC 6901
 *   does not define) is a UsageError naming the flag and saying what to write, before any input
 *   is read.
 * - `valueAt` reads own properties only (`Object.hasOwn`), never the prototype chain: a record is
 *   data from a file, so `__proto__`, `constructor` or `toString` are keys like any other, present
 *   only when the record has them. An array is read by index (a canonical decimal index: `0`,
 *   `17`, not `01` nor `-`); a string, number, boolean or null has no fields. Whatever is not
 *   there is `undefined`; `valueAt` never throws.
 *
 * Why both forms: the dotted form is what people type and what other tools' flags take; a JSON
 * Pointer is exact for a key that holds a dot (`{"a.b": …}`), which the dotted form cannot name.
 */

import { UsageError } from './exit-codes.js';

const EXAMPLE =
  'a dotted path such as response.body.choices.0.message.content or a JSON Pointer such as /response/body/choices/0/message/content';

/** An array index as RFC 6901 writes one: `0`, or digits without a leading zero. */
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * The segments of a field path given to `flag`. A path starting with `/` is a JSON Pointer (its
 * segments may be empty: `/` names the key `""`); anything else is a dotted path, whose segments
 * may not be empty (`a..b`, `.a`, `a.` are refused: they are typing slips, and a key that is empty
 * or holds a dot is named with a JSON Pointer instead).
 */
export function parseFieldPath(flag: string, path: string): readonly string[] {
  if (path === '') throw new UsageError(`${flag}: the field path is empty: write ${EXAMPLE}`);
  if (path.startsWith('/')) {
    return path
      .slice(1)
      .split('/')
      .map((segment) => {
        if (/~(?![01])/.test(segment)) {
          throw new UsageError(
            `${flag}: ${JSON.stringify(path)} is not a valid JSON Pointer: "~" must be followed by 0 (for "~") or 1 (for "/") — write ~0 for a "~" in a key`,
          );
        }
        return segment.replace(/~1/g, '/').replace(/~0/g, '~');
      });
  }
  const segments = path.split('.');
  if (segments.some((segment) => segment === '')) {
    throw new UsageError(
      `${flag}: ${JSON.stringify(path)} has an empty segment (a leading, trailing or doubled "."): write ${EXAMPLE}; a key that is empty or holds a "." is written as a JSON Pointer (/a.b/c)`,
    );
  }
  return segments;
}

/** The value at `path` in `value` (own properties, arrays by index), or `undefined` when there is none. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (Array.isArray(current) && !INDEX.test(segment)) return undefined;
    current = Object.hasOwn(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
  }
  return current;
}

/** The index just past the JSON string whose opening quote is at `at` (-1 when it never closes). */
function stringEnd(text: string, at: number): number {
  // From quote to quote (indexOf, not a character loop: a batch line's schema and text are mostly
  // strings); a quote after an odd run of backslashes is escaped.
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let before = quote - 1;
    while (before > at && text.charCodeAt(before) === 0x5c) before--;
    if ((quote - 1 - before) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

function skipWhitespace(text: string, at: number): number {
  let i = at;
  for (;;) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return i;
    i++;
  }
}

/** The index just past the JSON value starting at `at` (-1 when it does not end). */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 0x22) return stringEnd(text, at);
  if (first !== 0x7b && first !== 0x5b) {
    // A number or a literal: up to the next delimiter.
    let i = at;
    for (;;) {
      const code = text.charCodeAt(i);
      if (Number.isNaN(code) || code === 0x2c || code === 0x7d || code === 0x5d || code <= 0x20) return i;
      i++;
    }
  }
  let depth = 0;
  let i = at;
  const length = text.length;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
      continue;
    }
    if (code === 0x7b || code === 0x5b) depth++;
    else if ((code === 0x7d || code === 0x5d) && --depth === 0) return i + 1;
    i++;
  }
  return -1;
}

/**
 * The JSON text of the value at `path` in `json`, exactly as written there, or undefined when
 * there is none or the path goes through an array (only objects are followed). When `json` is a
 * text `JSON.parse` accepts, then, as JSON.parse does, the last of duplicate keys wins, and
 * `JSON.parse` of the answer equals `valueAt(JSON.parse(json), path)`. Any other text gets some
 * answer or undefined, never an exception: the caller checks what it is given.
 * A repeated value can then be recognised by its text, without writing the parsed value out
 * again (batch-schemas.ts looks a record's schema up this way).
 */
export function rawValueAt(json: string, path: readonly string[]): string | undefined {
  const span = rawSpanAt(json, path);
  return span === undefined ? undefined : json.slice(span[0], span[1]);
}

/** Where `rawValueAt`'s answer is in `json`: its start and end offsets. */
export function rawSpanAt(json: string, path: readonly string[]): readonly [number, number] | undefined {
  return spanAt(json, path, false, undefined);
}

/**
 * Where the value at `path` is in `json`, taking at each level the first key of the segment's
 * name where `rawSpanAt` takes the last (as JSON.parse does): the same answer when no key on the
 * path is repeated, which the caller proves (batch-records.ts `liftSplit`: a sentinel written in
 * the span's place is still there once the line is parsed). It stops at the leaf, so the rest of
 * the line is never scanned. `leafEnd(json, at)` may give the end of the leaf value that starts
 * at `at` without a scan (-1: scan); it must answer only with the end of a complete JSON value.
 */
export function firstSpanAt(
  json: string,
  path: readonly string[],
  leafEnd?: (json: string, at: number) => number,
): readonly [number, number] | undefined {
  return spanAt(json, path, true, leafEnd);
}

function spanAt(
  json: string,
  path: readonly string[],
  first: boolean,
  leafEnd: ((json: string, at: number) => number) | undefined,
): readonly [number, number] | undefined {
  let start = skipWhitespace(json, 0);
  let end = -1;
  for (let depth = 0; depth < path.length; depth++) {
    const segment = path[depth] as string;
    const leaf = depth === path.length - 1;
    if (json.charCodeAt(start) !== 0x7b) return undefined;
    let found = -1;
    let foundEnd = -1;
    let i = skipWhitespace(json, start + 1);
    while (json.charCodeAt(i) === 0x22) {
      const keyEnd = stringEnd(json, i);
      if (keyEnd < 0) return undefined;
      const raw = json.slice(i + 1, keyEnd - 1);
      let key = raw;
      if (raw.includes('\\')) {
        // The line may not be JSON yet (batch-records.ts liftSplit asks first): a bad escape is no answer.
        try {
          key = JSON.parse(`"${raw}"`) as string;
        } catch {
          return undefined;
        }
      }
      i = skipWhitespace(json, keyEnd);
      if (json.charCodeAt(i) !== 0x3a) return undefined;
      const valueStart = skipWhitespace(json, i + 1);
      const match = key === segment;
      const known = match && first && leaf && leafEnd !== undefined ? leafEnd(json, valueStart) : -1;
      const afterValue = known >= 0 ? known : valueEnd(json, valueStart);
      if (afterValue < 0) return undefined;
      if (match) {
        found = valueStart;
        foundEnd = afterValue;
        if (first) break;
      }
      i = skipWhitespace(json, afterValue);
      if (json.charCodeAt(i) !== 0x2c) break;
      i = skipWhitespace(json, i + 1);
    }
    if (found < 0) return undefined;
    start = found;
    end = foundEnd;
  }
  return end < 0 ? undefined : [start, end];
}
