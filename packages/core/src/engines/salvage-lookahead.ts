/**
 * The salvage scanner's look-ahead (decision 021): before a candidate is opened at a `{` or `[`
 * in prose, `quickFailure` reads at most `QUICK_WINDOW` characters of the current chunk and
 * says where that candidate would certainly fail, or that it cannot say cheaply.
 *
 * Contract: `quickFailure(text, from)` is a pure function of `text` and `from` (no state, no
 * allocation): the index in `text` where the JSON value starting with the bracket at
 * `text[from]` fails — exactly the index the incremental JSON scanner reports — or -1.
 *
 * Invariants:
 * 1. It settles only failures with nothing to hand on: a flat container (scalar members only),
 *    strings free of escapes and brackets, no line break and no closing bracket before the
 *    failing character. So a bracket it settles has no nested value to deliver, no rescan
 *    start inside it, and leaves the line start where it was.
 * 2. It never reads past `text` (the chunk) nor past `QUICK_WINDOW` characters after `from`:
 *    what lies beyond is the candidate path's to decide, with the same result, so chunking
 *    never changes what is found (with one-character chunks it never decides at all).
 * 3. It follows the exact RFC 8259 grammar of syntax/json-scanner.ts for what it reads
 *    (literals, numbers, strings); anything it does not follow returns -1.
 *
 * Why its own file: it is the one piece of the salvage scanner that knows JSON's grammar by
 * hand, apart from the scanner's state; engines/salvage-scanner.ts calls it from its prose
 * loop (`proseBrackets`) and applies what it settles (`abandonAtOnce`).
 */

// States of `quickFailure`'s flat scan (a container with scalar members only).
const Q_KEY_OR_END = 0; // after `{`
const Q_KEY = 1; // after `,` in an object
const Q_COLON = 2; // after a key
const Q_VALUE_OR_END = 3; // after `[`
const Q_VALUE = 4; // after `:`, or after `,` in an array
const Q_COMMA_OR_END = 5; // after a value

/** How far past a bracket `quickFailure` looks before it gives up (decision 021). */
const QUICK_WINDOW = 64;

/** The literal starting with `c` (`t`, `f`, `n`), or '' for any other character. */
function literalFor(c: number): string {
  return c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : '';
}

/**
 * Look-ahead before a candidate is opened (decision 021): the index in `text` where the JSON
 * value starting with the bracket at `text[from]` certainly fails — exactly where the
 * incremental scanner would report the failure — or -1 when that is not settled cheaply.
 *
 * Only the failures with nothing to hand on are settled here: the container must be flat
 * (scalar members only), its strings free of escapes and brackets (so no nested value is
 * delivered and no rescan starts inside it), the failing character must not be a closing
 * bracket (a trailing comma there is recovered, and a matching one completes the value), no
 * line break may come before the failure (it would move the line start that inline spans and
 * fence lines depend on), and everything must lie within `QUICK_WINDOW` characters of `text`
 * (so chunk ends are never crossed: the normal path decides those, with the same result).
 * Anything else
 * returns -1 and the candidate is opened as before. Prose brackets (`{x`, `[3 and`,
 * `{"k": then`) die within a few characters, so the look-ahead costs a few comparisons where
 * opening and abandoning a candidate costs a scanner reset and its bookkeeping.
 */
export function quickFailure(text: string, from: number): number {
  const object = text.charCodeAt(from) === 0x7b;
  const limit = Math.min(text.length, from + QUICK_WINDOW);
  let state = object ? Q_KEY_OR_END : Q_VALUE_OR_END;
  let i = from + 1;
  while (i < limit) {
    let c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0d) {
      i++;
      continue;
    }
    // A line break moves the line start (inline spans, fence lines): the normal path's.
    if (c === 0x0a) return -1;
    // A closing bracket completes the value, fails it in a way recovery may undo, or fails it
    // where trailing-comma recovery must look: the normal path decides.
    if (c === 0x7d || c === 0x5d) return -1;
    switch (state) {
      case Q_COLON:
        if (c !== 0x3a) return i;
        state = Q_VALUE;
        i++;
        continue;
      case Q_COMMA_OR_END:
        if (c !== 0x2c) return i;
        state = object ? Q_KEY : Q_VALUE;
        i++;
        continue;
      case Q_KEY_OR_END:
      case Q_KEY:
        if (c !== 0x22) return i;
        break;
      default:
        // A value; a nested container is the normal path's.
        if (c === 0x7b || c === 0x5b) return -1;
    }
    if (c === 0x22) {
      // A string: fails at a raw control character; an escape or a bracket in it is undecided.
      for (i++; ; i++) {
        if (i >= limit) return -1;
        c = text.charCodeAt(i);
        if (c === 0x22) break;
        if (c < 0x20) return i;
        if (c === 0x5c || c === 0x7b || c === 0x5b) return -1;
      }
      i++;
      state = state === Q_KEY_OR_END || state === Q_KEY ? Q_COLON : Q_COMMA_OR_END;
      continue;
    }
    const literal = literalFor(c);
    if (literal !== '') {
      for (let k = 1; k < literal.length; k++) {
        if (i + k >= limit) return -1;
        const d = text.charCodeAt(i + k);
        if (d !== literal.charCodeAt(k)) return d === 0x7d || d === 0x5d ? -1 : i + k;
      }
      i += literal.length;
      state = Q_COMMA_OR_END;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) return i;
    // A number, followed exactly as the scanner does (RFC 8259 grammar).
    if (c === 0x2d) {
      if (++i >= limit) return -1;
      c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return c === 0x7d || c === 0x5d ? -1 : i;
    }
    if (c === 0x30) {
      if (++i >= limit) return -1;
      c = text.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) return i; // a leading zero
    } else {
      do {
        if (++i >= limit) return -1;
        c = text.charCodeAt(i);
      } while (c >= 0x30 && c <= 0x39);
    }
    if (c === 0x2e) {
      if (++i >= limit) return -1;
      c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return c === 0x7d || c === 0x5d ? -1 : i;
      do {
        if (++i >= limit) return -1;
        c = text.charCodeAt(i);
      } while (c >= 0x30 && c <= 0x39);
    }
    if (c === 0x65 || c === 0x45) {
      if (++i >= limit) return -1;
      c = text.charCodeAt(i);
      if (c === 0x2b || c === 0x2d) {
        if (++i >= limit) return -1;
        c = text.charCodeAt(i);
      }
      if (c < 0x30 || c > 0x39) return c === 0x7d || c === 0x5d ? -1 : i;
      do {
        if (++i >= limit) return -1;
        c = text.charCodeAt(i);
      } while (c >= 0x30 && c <= 0x39);
    }
    // The character after the number is read as what follows a value.
    state = Q_COMMA_OR_END;
  }
  return -1;
}
