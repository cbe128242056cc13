/**
 * UTF-8 bytes arriving in chunks, decoded to text: the one decoder every adapter, the prompt
 * runner and the `llmjson` command use for byte input.
 *
 * Contract:
 * - A character whose bytes are split across chunks is held back and decoded with the chunk
 *   that completes it: the concatenated texts of `decode(c1) … decode(cn)` and `flush()` are
 *   the text of `c1 … cn` decoded in one piece, wherever the chunks were cut.
 * - Invalid bytes become U+FFFD, one per maximal invalid subsequence (the WHATWG Encoding
 *   Standard, which `TextDecoder` implements); `flush()` turns an unfinished character at the
 *   end into one U+FFFD. `createEncodingCheck` (./encoding-check.ts) tells such replacements
 *   apart from a U+FFFD that was in the input.
 * - A byte-order mark at the start of the bytes is dropped, as `TextDecoder` does; after
 *   `flush()` the decoder starts afresh, so the same holds for the next bytes.
 *
 * Text that arrives as strings needs no decoding: a caller that mixes strings with bytes
 * calls `flush()` before a string when `pending` is true, so that the bytes' end (an
 * unfinished character) comes before the string, in order.
 *
 * Speed: each chunk is one call of the platform's streaming `TextDecoder`, which on Node 20
 * decodes 64 KiB reads about twice as fast as `StringDecoder` and faster than a non-streaming
 * decode of each chunk's complete part (docs/decisions/022-batched-writes.md).
 */

/** The streaming `TextDecoder` of every runtime (Node, browsers, edge); core's lib declares none. */
interface StreamingDecoder {
  decode(input?: Uint8Array, options?: { readonly stream?: boolean }): string;
}
type DecoderClass = new (label: string) => StreamingDecoder;

const STREAMING = { stream: true } as const;

export interface Utf8Chunks {
  /**
   * The text of `bytes`. The bytes of a character cut at the end wait for the next chunk (or
   * for `flush()`); invalid bytes become U+FFFD.
   */
  decode(bytes: Uint8Array): string;
  /**
   * Ends the bytes: returns U+FFFD for a character left unfinished, else `''`, and starts
   * afresh. Call it at the end of the input, and before a string that follows bytes.
   */
  flush(): string;
  /** True once bytes were decoded since the last `flush()`: the bytes are not ended yet. */
  readonly pending: boolean;
}

class Decoder implements Utf8Chunks {
  readonly #decoder = new (globalThis as unknown as { TextDecoder: DecoderClass }).TextDecoder('utf-8');
  pending = false;

  decode(bytes: Uint8Array): string {
    this.pending = true;
    return this.#decoder.decode(bytes, STREAMING);
  }

  flush(): string {
    if (!this.pending) return '';
    this.pending = false;
    return this.#decoder.decode();
  }
}

/** A decoder for one stream of UTF-8 chunks. */
export function createUtf8Chunks(): Utf8Chunks {
  return new Decoder();
}
