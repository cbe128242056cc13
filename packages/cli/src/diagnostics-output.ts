/**
 * Diagnostics on stderr: `text` (default) is one human line per diagnostic — line number,
 * column (from 1), offset, reason, message — and an indented excerpt; `json` is one JSON object per line;
 * `none` prints nothing (the counts still decide the exit code). Neither writes a raw control or
 * bidi character from the input: see terminal-text.ts.
 *
 * Messages are cut at `MAX_MESSAGE_LENGTH` characters: a validator's message quotes the
 * instance path and the offending key, which come from the model's answer and can be a
 * megabyte long. The `json` format keeps `errors` whole, for programs that want every detail.
 */

import { quoteInput } from '@llmjson/core/internal';
import type { CliDiagnostic } from './out-of-range.js';
import { terminalLines, terminalText } from './terminal-text.js';

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
  // JSON.stringify escapes C0 controls; the rest a terminal acts on (C1, bidi) are escaped too.
  if (format === 'json') return `${terminalLines(JSON.stringify({ source, ...d, message }))}\n`;
  // The column counted from 1, as editors count it (the JSON format keeps the 0-based `column`).
  const column = d.column === undefined ? '' : `, column ${d.column + 1}`;
  const where =
    d.line === undefined
      ? `offset ${d.offset}`
      : `${d.endLine === undefined || d.endLine === d.line ? `line ${d.line}` : `lines ${d.line}-${d.endLine}`}${column}, offset ${d.offset}`;
  // What the input chose (keys and text in the message, the excerpt) never acts on the terminal
  // nor breaks the line: controls and bidi characters are written as \u escapes (terminal-text.ts).
  const excerpt = d.excerpt === '' ? '' : `\n    | ${terminalText(d.excerpt)}`;
  return `${source}: ${where}: ${d.reason}: ${terminalText(message)}${excerpt}\n`;
}
