/**
 * Markdown fence lines.
 *
 * A fence line is an opening or closing code fence on a line of its own: three or more
 * backticks or tildes, optionally indented and followed by a one-word info string
 * (```` ```json ````, ```` ```JSONL ````, `~~~`), in any case. Anything else after the marker
 * (```` ```json {"a": 1} ````) makes it an ordinary line, so JSON on a fence line is never
 * skipped silently.
 */

const FENCE_LINE = /^[ \t]*(?:`{3,}|~{3,})[ \t]*[\w.+#-]*[ \t]*$/;

/** True when `line` (without its line break) is a markdown fence line. */
export function isFenceLine(line: string): boolean {
  return FENCE_LINE.test(line);
}
