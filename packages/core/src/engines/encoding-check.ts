/**
 * Finding bytes that were not UTF-8 after a lenient decoder replaced them.
 *
 * Adapters decode bytes with a non-fatal streaming `TextDecoder`, which turns each invalid
 * sequence into U+FFFD and keeps going: the text is kept, as it should be, but the damage
 * would go unseen. A U+FFFD in the decoded text is either such a replacement or a literal
 * U+FFFD that the model wrote (bytes EF BF BD); the check tells them apart.
 *
 * Cost: one native `indexOf` per chunk of text. Only when the text holds a U+FFFD is the
 * chunk replayed through the WHATWG decoding steps (with the at most three bytes an earlier
 * chunk left in flight) to find which U+FFFD are replacements and which are literal.
 */

import { type Diagnostic, DiagnosticReason, INVALID_ENCODING_MESSAGE } from '../diagnostics/diagnostics.js';
import { countDiagnostic, type DiagnosticCounts, type Engine } from './engine.js';

export interface EncodingCheck {
  /**
   * The indices in `text` (what the decoder returned for `bytes`; `bytes` absent for the
   * final flush) of the U+FFFD characters that stand for invalid bytes, in order.
   */
  check(bytes: Uint8Array | undefined, text: string): readonly number[];
}

const NONE: readonly number[] = Object.freeze([]);

/** Continuation bytes needed after a lead byte, and the allowed range of the first one. */
function sequence(lead: number): { needed: number; lower: number; upper: number } | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return { needed: 1, lower: 0x80, upper: 0xbf };
  if (lead >= 0xe0 && lead <= 0xef) {
    return { needed: 2, lower: lead === 0xe0 ? 0xa0 : 0x80, upper: lead === 0xed ? 0x9f : 0xbf };
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    return { needed: 3, lower: lead === 0xf0 ? 0x90 : 0x80, upper: lead === 0xf4 ? 0x8f : 0xbf };
  }
  return undefined;
}

/** The incomplete, so far valid, sequence at the end of `tail`: what a streaming decoder holds. */
function heldBytes(tail: readonly number[]): number[] {
  for (let p = tail.length - 1; p >= 0; p--) {
    const b = tail[p] as number;
    if (b >= 0x80 && b <= 0xbf) continue;
    const seq = sequence(b);
    const following = tail.length - 1 - p;
    if (seq === undefined || following >= seq.needed) return [];
    for (let i = p + 1; i < tail.length; i++) {
      const c = tail[i] as number;
      const [lower, upper] = i === p + 1 ? [seq.lower, seq.upper] : [0x80, 0xbf];
      if (c < lower || c > upper) return [];
    }
    return tail.slice(p);
  }
  return [];
}

/**
 * Replays the WHATWG UTF-8 decoder over `bytes` (after the `held` bytes of an earlier chunk)
 * and returns the indices in its output of the U+FFFD it emits for invalid sequences; a
 * literal U+FFFD (EF BF BD) is a character like any other. `final` flushes an incomplete end.
 */
function invalidIndices(held: readonly number[], bytes: Uint8Array | undefined, final: boolean): number[] {
  const input = bytes === undefined ? held : [...held, ...bytes];
  const found: number[] = [];
  let out = 0; // index in the decoded text
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  let lead = 0;
  for (let i = 0; i < input.length; i++) {
    const b = input[i] as number;
    if (needed === 0) {
      if (b <= 0x7f) {
        out++;
        continue;
      }
      const seq = sequence(b);
      if (seq === undefined) {
        found.push(out++);
        continue;
      }
      ({ needed, lower, upper } = seq);
      lead = b;
      seen = 0;
      continue;
    }
    if (b < lower || b > upper) {
      // The sequence so far is one replacement; the byte is read again on its own.
      found.push(out++);
      needed = 0;
      i--;
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    if (++seen === needed) {
      needed = 0;
      out += lead >= 0xf0 ? 2 : 1; // a code point past U+FFFF is two UTF-16 code units
    }
  }
  if (final && needed !== 0) found.push(out);
  return found;
}

export function createEncodingCheck(): EncodingCheck {
  // The last three bytes seen, oldest first (-1: none): a sequence split across chunks has at
  // most three bytes in flight. Plain numbers, so the common path allocates nothing.
  let b0 = -1;
  let b1 = -1;
  let b2 = -1;
  const remember = (bytes: Uint8Array | undefined): void => {
    if (bytes === undefined) {
      b0 = b1 = b2 = -1;
      return;
    }
    for (let i = Math.max(0, bytes.length - 3); i < bytes.length; i++) {
      b0 = b1;
      b1 = b2;
      b2 = bytes[i] as number;
    }
  };
  const tail = (): number[] => [b0, b1, b2].filter((b) => b !== -1);
  return {
    check(bytes, text) {
      // The common case costs one native search: no U+FFFD, nothing to replay.
      if (text.indexOf('\uFFFD') === -1) {
        remember(bytes);
        return NONE;
      }
      const found = invalidIndices(heldBytes(tail()), bytes, bytes === undefined);
      remember(bytes);
      return found.length === 0 ? NONE : found;
    },
  };
}

/** An engine as adapters drive it, with the stats most engines carry. */
type DecodedEngine = Pick<Engine<unknown>, 'write' | 'invalidEncoding'> & {
  readonly stats?: { readonly diagnostics?: DiagnosticCounts };
};

export interface DecodedWriter {
  /** Writes what the decoder returned for `bytes` (`undefined` for its final flush). */
  bytes(bytes: Uint8Array | undefined, text: string): void;
  /** Writes a chunk that arrived as a string (nothing to check). */
  text(text: string): void;
}

/**
 * What both adapters do with decoded text: write it to the engine and report invalid bytes
 * in it — through the engine when it frames lines itself (`invalidEncoding`, one report per
 * line), otherwise as one `encoding` diagnostic with its offset, counted in the engine's stats.
 */
export function createDecodedWriter(engine: DecodedEngine, report: (diagnostic: Diagnostic) => void): DecodedWriter {
  const encoding = createEncodingCheck();
  let offset = 0; // characters written so far
  let reported = false;
  return {
    bytes(bytes, text) {
      const bad = encoding.check(bytes, text);
      if (bad.length === 0) {
        engine.write(text);
      } else if (engine.invalidEncoding !== undefined) {
        for (const index of bad) engine.invalidEncoding(index);
        engine.write(text);
      } else {
        engine.write(text);
        // One report per stream for an engine that does not frame lines: garbage input would
        // otherwise give one per byte.
        if (!reported) {
          reported = true;
          const first = bad[0] as number;
          const counts = engine.stats?.diagnostics;
          if (counts !== undefined) countDiagnostic(counts as DiagnosticCounts, DiagnosticReason.encoding);
          report({
            reason: DiagnosticReason.encoding,
            offset: offset + first,
            // The text around it depends on where the chunks were cut; the character does not.
            excerpt: '\uFFFD',
            message: `${INVALID_ENCODING_MESSAGE}; reported once per stream`,
          });
        }
      }
      offset += text.length;
    },
    text(text) {
      engine.write(text);
      offset += text.length;
    },
  };
}
