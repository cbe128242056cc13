/**
 * Diagnostics on stderr: `text` (default) is one human line per diagnostic — line number,
 * offset, reason, message — and an indented excerpt; `json` is one JSON object per line;
 * `none` prints nothing (the counts still decide the exit code).
 */

import type { Diagnostic } from '@llmjson/core';

export type DiagnosticsFormat = 'text' | 'json' | 'none';

export function formatDiagnostic(d: Diagnostic, format: DiagnosticsFormat, source: string): string | undefined {
  if (format === 'none') return undefined;
  if (format === 'json') return `${JSON.stringify({ source, ...d })}\n`;
  const where =
    d.line === undefined
      ? `offset ${d.offset}`
      : `${d.endLine === undefined || d.endLine === d.line ? `line ${d.line}` : `lines ${d.line}-${d.endLine}`}, offset ${d.offset}`;
  const excerpt = d.excerpt === '' ? '' : `\n    | ${d.excerpt}`;
  return `${source}: ${where}: ${d.reason}: ${d.message}${excerpt}\n`;
}
