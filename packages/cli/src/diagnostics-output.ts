/**
 * Diagnostics on stderr: `text` (default) is one human line per diagnostic — line number,
 * column (from 1), offset, reason, message — and an indented excerpt; `json` is one JSON object per line;
 * `none` prints nothing (the counts still decide the exit code).
 *
 * Messages are cut at `MAX_MESSAGE_LENGTH` characters: a validator's message quotes the
 * instance path and the offending key, which come from the model's answer and can be a
 * megabyte long. The `json` format keeps `errors` whole, for programs that want every detail.
 */

import { quoteInput } from '@llmjson/core/internal';
import type { CliDiagnostic } from './out-of-range.js';

/**
 * Longest message the command prints on stderr, in characters: a backstop. Each piece of user
 * input a message quotes is cut to `MAX_QUOTED_LENGTH` (200) where the message is made; this
 * bounds messages from layers that quote in full.
 */
export const MAX_MESSAGE_LENGTH = 2000;

export type DiagnosticsFormat = 'text' | 'json' | 'none';

export function formatDiagnostic(d: CliDiagnostic, format: DiagnosticsFormat, source: string): string | undefined {
  if (format === 'none') return undefined;
  const message = quoteInput(d.message, MAX_MESSAGE_LENGTH);
  if (format === 'json') return `${JSON.stringify({ source, ...d, message })}\n`;
  // The column counted from 1, as editors count it (the JSON format keeps the 0-based `column`).
  const column = d.column === undefined ? '' : `, column ${d.column + 1}`;
  const where =
    d.line === undefined
      ? `offset ${d.offset}`
      : `${d.endLine === undefined || d.endLine === d.line ? `line ${d.line}` : `lines ${d.line}-${d.endLine}`}${column}, offset ${d.offset}`;
  const excerpt = d.excerpt === '' ? '' : `\n    | ${d.excerpt}`;
  return `${source}: ${where}: ${d.reason}: ${message}${excerpt}\n`;
}
