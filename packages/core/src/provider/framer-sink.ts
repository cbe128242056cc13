/**
 * What a body framer (framing.ts for SSE and JSON lines, array-framing.ts for one JSON array)
 * hands on: events with where they start, and diagnostics. Its own file, so that the two
 * framers share it without importing each other's types.
 */

import type { Diagnostic } from '../diagnostics/diagnostics.js';

/** Receives what a framer finds, in body order. */
export interface FramerSink {
  /** One event: its data, its SSE `event:` name, where it starts, and whether the end of the body cut it. */
  event(data: string, name: string | undefined, line: number, offset: number, final: boolean): void;
  report(reason: Diagnostic['reason'], line: number, offset: number, text: string, message: string): void;
}

/** Where the end of the body is: on the last line if it had no line break, else on the (empty) next one. */
export interface EndPosition {
  readonly line: number;
  readonly offset: number;
}
