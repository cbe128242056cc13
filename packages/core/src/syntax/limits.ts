/**
 * The default limits every engine applies unless told otherwise, at the bottom of core's
 * imports (they import nothing), so that a unit needing a limit does not import the engine that
 * happens to use it most (the provider decoder and the JSONL decoder share the line limit).
 */

/** Longest line (JSONL), SSE event or value in flight kept, in UTF-16 code units: 8 MiB. */
export const DEFAULT_MAX_LINE_LENGTH = 8 * 1024 * 1024;

/** Longest salvage candidate followed before it is abandoned, in UTF-16 code units: 8 MiB. */
export const DEFAULT_MAX_CANDIDATE_LENGTH = 8 * 1024 * 1024;

/**
 * Longest tool call's arguments kept, in UTF-16 code units: 8 MiB, as a value in flight (the
 * arguments are one JSON value, streamed in pieces).
 */
export const DEFAULT_MAX_ARGUMENTS_LENGTH = 8 * 1024 * 1024;
