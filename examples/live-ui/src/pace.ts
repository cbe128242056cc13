/** How a simulated model streams: bytes per chunk (a token or two) and the pause between chunks. */
export const CHUNK_BYTES = 8;
export const CHUNK_DELAY_MS = 12;
