/**
 * Text the CLI writes for a person to read (stderr diagnostics, usage errors, summaries) quotes
 * what a model or an input chose: keys, excerpts, file names, model names. Written raw, a control
 * character in it acts on the terminal — `ESC ] 0 ; … BEL` sets the window's title, `ESC [ …`
 * moves the cursor or recolours what follows, a bidi override reorders the rest of the line so it
 * reads differently from what it says — and a newline or tab breaks the one-line-per-diagnostic
 * format. Every such character is written as a `\u001b`-style escape (the same spelling JSON
 * uses), so the text reads the same and acts on nothing.
 *
 * Escaped: C0 controls (U+0000–U+001F, tab and newline included), DEL (U+007F), C1 controls
 * (U+0080–U+009F; a terminal may read U+009B as CSI), the bidi controls U+061C, U+200E, U+200F,
 * U+202A–U+202E and U+2066–U+2069, and the line and paragraph separators U+2028 and U+2029.
 * A backslash is left as it is: `--diagnostics json` is there for text that must read back exactly.
 */

/** Every character `terminalText` escapes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, newline aside: for output made of whole lines. */
const UNSAFE_BUT_NEWLINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same, newline and tab aside: for an answer's own text printed on a terminal. */
const UNSAFE_BUT_LAYOUT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` safe to print inside one line of a terminal: every control, bidi or line-separating
 * character is written as `\uXXXX`. Text without one is returned as it is (no copy).
 */
export function terminalText(text: string): string {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text) ? text.replace(UNSAFE, escapeCharacter) : text;
}

/**
 * `text` made of whole lines, safe to print: as `terminalText`, except that `\n` (which ends
 * each line) is kept. Applied to a JSON line it keeps the JSON valid and its value the same (the
 * characters it escapes can only stand inside JSON strings, where `\uXXXX` means them).
 */
export function terminalLines(text: string): string {
  UNSAFE_BUT_NEWLINE.lastIndex = 0;
  return UNSAFE_BUT_NEWLINE.test(text) ? text.replace(UNSAFE_BUT_NEWLINE, escapeCharacter) : text;
}

/**
 * What a command prints on stdout when stdout is a terminal (JSON lines, a text prompt's answer):
 * as `terminalLines`, except that tabs are kept too (they only move the cursor to the next stop).
 * Printed JSON stays the same JSON: only characters inside its strings are escaped.
 */
export function terminalOutput(text: string): string {
  UNSAFE_BUT_LAYOUT.lastIndex = 0;
  return UNSAFE_BUT_LAYOUT.test(text) ? text.replace(UNSAFE_BUT_LAYOUT, escapeCharacter) : text;
}
