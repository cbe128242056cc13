/**
 * json mode reads one document; a model that answered JSONL (one JSON value per line, often in
 * a fence) gives it several. The document printed is then one of them, and the rest would go
 * unsaid: `jsonlAnswerNote` finds that case and says it on stderr, with the mode that reads
 * every line. The exit code does not change (the README's contract: json fails only for no
 * JSON, a mismatch or a cut-off answer).
 *
 * The case, exactly: the salvage scanner (the same that found the document) finds a run of two
 * or more values of the same kind (fenced, embedded in prose) separated only by whitespace
 * holding a line break, and the printed document is one of them. Two separate fences, or a value
 * in prose and another in a fence, are not JSONL and say nothing.
 */

import { extractAllJson } from '@llmjson/core';
import type { CliDiagnostic } from './out-of-range.js';

/** The reason of the note: the CLI's own, like `out-of-range`. */
export const JSONL_ANSWER_REASON = 'jsonl-answer' as const;

/**
 * The note for a json-mode answer whose document sits among other JSON lines, or undefined.
 * `printed` is the document printed, `source` where json mode found it ('document' when the
 * whole answer was one, which cannot be JSONL).
 */
export function jsonlAnswerNote(
  answer: string,
  printed: unknown,
  source: string | undefined,
): CliDiagnostic | undefined {
  if (source !== 'fence' && source !== 'embedded') return undefined;
  const values = extractAllJson(answer);
  const line = JSON.stringify(printed);
  let run: typeof values = [];
  const check = (): CliDiagnostic | undefined => {
    if (run.length < 2) return undefined;
    const at = run.findIndex((v) => JSON.stringify(v.value) === line);
    if (at === -1) return undefined;
    const other = run[at === 0 ? 1 : 0] as (typeof values)[number];
    return {
      reason: JSONL_ANSWER_REASON,
      offset: other.start,
      excerpt: '',
      message: `the answer holds ${run.length} JSON values, one per line (JSONL); json mode reads one document and printed only the ${ordinal(at + 1)}: run \`llmjson jsonl\` to read every line`,
    };
  };
  for (const value of values) {
    const previous = run[run.length - 1];
    const next =
      previous !== undefined &&
      previous.source === value.source &&
      /^[ \t\r]*\n\s*$/.test(answer.slice(previous.end, value.start));
    if (!next) {
      const found = check();
      if (found !== undefined) return found;
      run = [];
    }
    if (value.source === source) run.push(value);
  }
  return check();
}

function ordinal(n: number): string {
  return n === 1 ? 'first' : n === 2 ? 'second' : n === 3 ? 'third' : `${n}th`;
}
