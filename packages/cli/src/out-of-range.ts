/**
 * Values the CLI cannot print. JSON has no Infinity: a number beyond the double range
 * (`1e999`, `-1e400`) parses as ±Infinity, which `JSON.stringify` would print as `null` — a
 * silent change of the answer. Such a value is not printed; it is reported with the reason
 * `out-of-range` (naming the path of the number) and the run is a format error (exit 4), with the
 * envelope's `detail` NUMBER_OUT_OF_RANGE, in every mode that prints values.
 */

import type { Diagnostic, DiagnosticReason } from '@llmjson/core';
import { quoteInput } from '@llmjson/core/internal';
import type { JSONL_ANSWER_REASON } from './jsonl-answer.js';

/** The diagnostic reason of a value that holds a number beyond the double range. */
export const OUT_OF_RANGE_REASON = 'out-of-range' as const;

/** The envelope's `error.detail` for a run that met such a value. */
export const OUT_OF_RANGE_DETAIL = 'NUMBER_OUT_OF_RANGE';

/** A diagnostic the CLI prints: the engines' reasons, and the CLI's own `out-of-range` and `jsonl-answer`. */
export type CliDiagnostic = Omit<Diagnostic, 'reason'> & {
  readonly reason: DiagnosticReason | typeof OUT_OF_RANGE_REASON | typeof JSONL_ANSWER_REASON;
};

/** Where in `value` a number JSON cannot print sits: its JSON Pointer and the number read. */
export interface OutOfRange {
  readonly path: string;
  readonly number: number;
}

/**
 * The first number of `value` that JSON cannot print, or undefined. `line` is
 * `JSON.stringify(value)` when the caller has it: JSON.stringify writes such a number as
 * `null`, so a line without `null` is known clean without a walk.
 */
export function outOfRangeIn(value: unknown, line?: string): OutOfRange | undefined {
  if (line !== undefined && !line.includes('null')) return undefined;
  const segments: string[] = [];
  const found = find(value, segments);
  if (found === undefined) return undefined;
  // Segments were gathered on the way back up: innermost first.
  let path = '';
  for (let i = segments.length - 1; i >= 0; i--) path += `/${escapePointer(segments[i] as string)}`;
  return { path, number: found };
}

/** The one-sentence message of an `out-of-range` diagnostic (and of the run's failure). */
export function outOfRangeMessage(found: OutOfRange): string {
  const what = found.path === '' ? 'the value is a number' : `the number at ${quoteInput(found.path)} is`;
  return `${what} beyond the double range (about ±1.8e308): it reads as ${found.number > 0 ? '' : '-'}Infinity, which JSON cannot print, so the value is not printed (a number that large must be sent as a string)`;
}

// Values nest at most the engines' maxDepth levels: the recursion is bounded by it.
function find(v: unknown, segments: string[]): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : v;
  if (typeof v !== 'object' || v === null) return undefined;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    // What it prints is its own: JSON.stringify knows (no path inside it).
    let number: number | undefined;
    JSON.stringify(v, (_key, inner: unknown) => {
      if (number === undefined && typeof inner === 'number' && !Number.isFinite(inner)) number = inner;
      return inner;
    });
    return number;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = find(v[i], segments);
      if (found !== undefined) {
        segments.push(String(i));
        return found;
      }
    }
    return undefined;
  }
  for (const key of Object.keys(v)) {
    const found = find((v as Record<string, unknown>)[key], segments);
    if (found !== undefined) {
      segments.push(key);
      return found;
    }
  }
  return undefined;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
