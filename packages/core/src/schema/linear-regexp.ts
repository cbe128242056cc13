/**
 * Linear-time regular expressions for the schema validator (docs/decisions/013-linear-time-schema-regexes.md).
 *
 * Contract:
 * - `linearRegExp` is ajv's `code.regExp` option: every `pattern` and `patternProperties` key a
 *   schema runs on data is compiled by re2js, a port of RE2, once JavaScript's own parser has
 *   accepted it, so it matches in time linear in the length of the string.
 * - `useLinearFormats(ajv)` replaces each pattern-based format ajv-formats registered on `ajv`
 *   by a linear-time check with the same verdicts (pinned against ajv-formats by
 *   packages/core/test/schema-regexes.test.ts).
 *
 * Invariants:
 * - A pattern means what it means to JavaScript: where RE2's syntax differs (`\s`, `\S`, `.`,
 *   `[\b]`, `\p{…}` names) it is rewritten to JavaScript's meaning before RE2 compiles it.
 * - A pattern that opens with negative lookaheads, `^(?!X1)…(?!Xn)Y` (no m flag, no `|` at the
 *   top level of Y, no lookaround or backreference inside), runs as several re2js patterns:
 *   it matches exactly when no `^(?:Xi)` matches and `^(?:Y)` does (each compiled as above), so
 *   it keeps JavaScript's verdicts and linear time.
 * - Any other schema pattern RE2 cannot run (lookahead, lookbehind, backreferences) or JavaScript
 *   rejects is a ConfigurationError (SCHEMA_INVALID) that names it, raised while ajv compiles
 *   the schema: there is no fallback to a backtracking engine. Format patterns are
 *   ajv-formats' own, compiled on first use and shared by every ajv instance.
 * - Messages quote the pattern and the parser's complaint through `quoteInput`.
 */

import type { Ajv } from 'ajv';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS, RE2JSException } from 're2js';
import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { quoteInput } from '../diagnostics/diagnostics.js';

/** JavaScript's `\s` (WhiteSpace and LineTerminator) as the items of an RE2 character class. */
const JS_SPACE = String.raw`\x09-\x0D\x20\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`;
/** JavaScript's `\S`: the complement of JS_SPACE, spelled out so that it also works inside a class. */
const JS_NOT_SPACE = String.raw`\x00-\x08\x0E-\x1F\x21-\x{9F}\x{A1}-\x{167F}\x{1681}-\x{1FFF}\x{200B}-\x{2027}\x{202A}-\x{202E}\x{2030}-\x{205E}\x{2060}-\x{2FFF}\x{3001}-\x{FEFE}\x{FF00}-\x{10FFFF}`;
/** JavaScript's `.`: anything but a line terminator (RE2's stops only at `\n`). */
const JS_DOT = String.raw`[^\n\r\x{2028}\x{2029}]`;
const JS_DOT_ALL = String.raw`[\x00-\x{10FFFF}]`;

/** Long General_Category names JavaScript accepts in `\p{…}`, by the short names RE2 knows. */
const GENERAL_CATEGORIES: ReadonlyMap<string, string> = new Map([
  ['Letter', 'L'],
  ['Cased_Letter', 'LC'],
  ['Uppercase_Letter', 'Lu'],
  ['Lowercase_Letter', 'Ll'],
  ['Titlecase_Letter', 'Lt'],
  ['Modifier_Letter', 'Lm'],
  ['Other_Letter', 'Lo'],
  ['Mark', 'M'],
  ['Combining_Mark', 'M'],
  ['Nonspacing_Mark', 'Mn'],
  ['Spacing_Mark', 'Mc'],
  ['Enclosing_Mark', 'Me'],
  ['Number', 'N'],
  ['Decimal_Number', 'Nd'],
  ['digit', 'Nd'],
  ['Letter_Number', 'Nl'],
  ['Other_Number', 'No'],
  ['Punctuation', 'P'],
  ['punct', 'P'],
  ['Connector_Punctuation', 'Pc'],
  ['Dash_Punctuation', 'Pd'],
  ['Open_Punctuation', 'Ps'],
  ['Close_Punctuation', 'Pe'],
  ['Initial_Punctuation', 'Pi'],
  ['Final_Punctuation', 'Pf'],
  ['Other_Punctuation', 'Po'],
  ['Symbol', 'S'],
  ['Math_Symbol', 'Sm'],
  ['Currency_Symbol', 'Sc'],
  ['Modifier_Symbol', 'Sk'],
  ['Other_Symbol', 'So'],
  ['Separator', 'Z'],
  ['Space_Separator', 'Zs'],
  ['Line_Separator', 'Zl'],
  ['Paragraph_Separator', 'Zp'],
  ['Other', 'C'],
  ['Control', 'Cc'],
  ['cntrl', 'Cc'],
  ['Format', 'Cf'],
  ['Surrogate', 'Cs'],
  ['Private_Use', 'Co'],
  ['Unassigned', 'Cn'],
]);

/** `\p{…}` contents in RE2's spelling: `Script=Greek` is `Greek`, `gc=Letter` is `L`. */
function re2Property(name: string): string {
  const equals = name.indexOf('=');
  if (equals === -1) return GENERAL_CATEGORIES.get(name) ?? name;
  const key = name.slice(0, equals);
  const value = name.slice(equals + 1);
  if (key === 'Script' || key === 'sc') return value;
  if (key === 'General_Category' || key === 'gc') return GENERAL_CATEGORIES.get(value) ?? value;
  // Script_Extensions and the rest have no RE2 equivalent: RE2's parser refuses them.
  return name;
}

function linearTimeError(source: string, detail: string, cause?: unknown): ConfigurationError {
  return new ConfigurationError(
    ConfigurationErrorCode.schemaInvalid,
    `schema pattern "${quoteInput(source)}" needs a linear-time regular expression (no lookahead, lookbehind or backreferences): ${detail}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Rewrites a JavaScript pattern, already accepted by `new RegExp`, into RE2 syntax with the
 * same meaning where the two differ: `\s`, `\S` and `.` are spelled out (RE2's `\s` is ASCII
 * and its `.` lets `\r` through), `[\b]` is a backspace, `\p{Script=…}` and long category
 * names take RE2's spelling. The rest (`\u` escapes, named groups, `[^]`) is re2js's own
 * `translateRegExp`. Lookaround and backreferences are refused here, with a reason that
 * names them, rather than by RE2's parser.
 */
function toRe2Source(source: string, flags: string): string {
  const unicode = flags.includes('u');
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S') out += inClass ? JS_NOT_SPACE : `[${JS_NOT_SPACE}]`;
      else if (next === 'b' && inClass) out += '\\x08';
      else if (unicode && (next === 'k' || (next >= '1' && next <= '9'))) {
        throw linearTimeError(source, `it uses a backreference \`\\${next}\``);
      } else if (unicode && (next === 'p' || next === 'P') && source[i + 1] === '{') {
        // The u flag guarantees the closing brace: JavaScript's parser accepted the pattern.
        const close = source.indexOf('}', i);
        out += `\\${next}{${re2Property(source.slice(i + 2, close))}}`;
        i = close;
      } else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
    } else if (c === '.') {
      out += flags.includes('s') ? JS_DOT_ALL : JS_DOT;
      continue;
    } else if (c === '(' && source[i + 1] === '?') {
      const behind = source[i + 2] === '<';
      const kind = source[i + (behind ? 3 : 2)];
      if (kind === '=' || kind === '!') {
        const syntax = source.slice(i, i + (behind ? 4 : 3));
        throw linearTimeError(source, `it uses ${behind ? 'lookbehind' : 'lookahead'} \`${syntax}\``);
      }
    }
    out += c;
  }
  return out;
}

/** Refuses flags re2js cannot honour and patterns JavaScript's own parser rejects. */
function assertJavaScriptPattern(source: string, flags: string): void {
  if (!/^[gimsu]*$/.test(flags)) throw linearTimeError(source, `unsupported flags "${quoteInput(flags)}"`);
  try {
    // Compiling a RegExp only parses it; nothing runs on data.
    RegExp(source, flags);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `schema pattern "${quoteInput(source)}" is not a valid regular expression: ${quoteInput(message.slice(message.lastIndexOf(': ') + 2))}`,
      { cause },
    );
  }
}

/**
 * Compiles a JavaScript pattern for re2js, which matches in time linear in the input. The
 * pattern must first be valid JavaScript (so a schema means the same as under ajv's default
 * engine); `i` and `m` map to RE2's flags, `u` and `g` need nothing (`test` is stateless).
 */
function compileLinear(source: string, flags: string): RE2JS {
  assertJavaScriptPattern(source, flags);
  const translated = RE2JS.translateRegExp(toRe2Source(source, flags));
  let re2Flags = 0;
  if (flags.includes('i')) re2Flags |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) re2Flags |= RE2JS.MULTILINE;
  try {
    return RE2JS.compile(translated, re2Flags);
  } catch (cause) {
    if (!(cause instanceof RE2JSException)) throw cause;
    throw linearTimeError(source, quoteInput(cause.message.replace(/^error parsing regexp: /, '')), cause);
  }
}

/** A pattern `^(?!X1)…(?!Xn)Y` taken apart: the lookaheads' bodies and the rest. */
interface LeadingLookaheads {
  readonly lookaheads: readonly string[];
  readonly rest: string;
}

/**
 * The index just past the syntax item that starts at `i` in a pattern JavaScript accepted: an
 * escape (`\` and the character after it: the longer escapes, `\u{…}`, `\p{…}`, `\cX`, hold
 * no parenthesis, bracket or bar, so their tail reads as literals), a whole character class
 * (whose `]` ends it at the first unescaped one, `[]` and `[^]` included), or one character.
 */
function skipItem(source: string, i: number): number {
  if (source[i] === '\\') return i + 2;
  if (source[i] !== '[') return i + 1;
  let j = i + 1;
  while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
  return j + 1;
}

/**
 * True when `source` (a whole group body, or the rest of a pattern) holds lookaround
 * (`(?=`, `(?!`, `(?<=`, `(?<!`) or a backreference (`\1`–`\9`, `\k`): what RE2 cannot run.
 * Without the u flag `\1` may be an octal escape and `\k` a letter; they are refused alike,
 * where compileLinear refuses them too.
 */
function hasLookaroundOrBackreference(source: string): boolean {
  for (let i = 0; i < source.length; i = skipItem(source, i)) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (next === 'k' || (next >= '1' && next <= '9')) return true;
    } else if (c === '(' && source[i + 1] === '?') {
      const kind = source[i + 2] === '<' ? source[i + 3] : source[i + 2];
      if (kind === '=' || kind === '!') return true;
    }
  }
  return false;
}

/**
 * Recognises `^(?!X1)…(?!Xn)Y` (n ≥ 1) in a pattern JavaScript accepted: `^` first, then
 * lookahead groups at depth 0, then a rest Y with no `|` at depth 0 (a top-level alternation
 * would leave the anchor and the lookaheads in its first branch only) that does not begin with a
 * quantifier (a quantified lookahead, which JavaScript accepts without the u flag), and no
 * lookaround or backreference in any Xi or in Y. Anything else is undefined.
 */
function leadingLookaheads(source: string): LeadingLookaheads | undefined {
  if (!source.startsWith('^(?!')) return undefined;
  const lookaheads: string[] = [];
  let i = 1;
  while (source.startsWith('(?!', i)) {
    const start = i + 3;
    let depth = 1;
    let j = start;
    while (j < source.length) {
      const c = source[j];
      if (c === '(') depth++;
      else if (c === ')' && --depth === 0) break;
      j = skipItem(source, j);
    }
    if (j >= source.length) return undefined;
    lookaheads.push(source.slice(start, j));
    i = j + 1;
  }
  const rest = source.slice(i);
  if (/^[*+?{]/.test(rest)) return undefined;
  let depth = 0;
  for (let j = 0; j < rest.length; j = skipItem(rest, j)) {
    const c = rest[j];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return undefined;
  }
  if ([...lookaheads, rest].some(hasLookaroundOrBackreference)) return undefined;
  return { lookaheads, rest };
}

/** What ajv's `code.regExp` returns: a re2js pattern behind the `test` ajv's generated code calls. */
class LinearRegExp implements RegExpLike {
  readonly #pattern: RE2JS;
  readonly #key: string;
  constructor(pattern: RE2JS, key: string) {
    this.#pattern = pattern;
    this.#key = key;
  }
  test(text: string): boolean {
    return this.#pattern.test(text);
  }
  /** ajv shares one compiled pattern per distinct string form within a schema. */
  toString(): string {
    return this.#key;
  }
}

/**
 * `^(?!X1)…(?!Xn)Y` on re2js, exactly: without the m flag `^` holds only at position 0, so the
 * pattern matches a string when, at position 0, no Xi matches (a negative lookahead succeeds
 * only when every way of matching its body fails) and Y matches; that is, when no `^(?:Xi)`
 * finds a match and `^(?:Y)` does. Each of those runs in linear time (decision 013, addendum).
 */
class LookaheadRegExp implements RegExpLike {
  readonly #excluded: readonly RE2JS[];
  readonly #rest: RE2JS;
  readonly #key: string;
  constructor(excluded: readonly RE2JS[], rest: RE2JS, key: string) {
    this.#excluded = excluded;
    this.#rest = rest;
    this.#key = key;
  }
  test(text: string): boolean {
    return this.#rest.test(text) && this.#excluded.every((pattern) => !pattern.test(text));
  }
  toString(): string {
    return this.#key;
  }
}

/**
 * The composed matcher for a pattern of leading negative lookaheads, or undefined when the
 * pattern has another shape (or a part RE2 cannot compile): the caller then compiles it whole,
 * which refuses it as before, with the same message.
 */
function compileLookaheads(source: string, flags: string, key: string): RegExpLike | undefined {
  // With the m flag ^ also holds after each line break: the decomposition would not be exact.
  if (flags.includes('m') || !source.startsWith('^(?!')) return undefined;
  assertJavaScriptPattern(source, flags);
  const parts = leadingLookaheads(source);
  if (parts === undefined) return undefined;
  try {
    const excluded = parts.lookaheads.map((body) => compileLinear(`^(?:${body})`, flags));
    return new LookaheadRegExp(excluded, compileLinear(`^(?:${parts.rest})`, flags), key);
  } catch (error) {
    if (error instanceof ConfigurationError) return undefined;
    throw error;
  }
}

/**
 * ajv's `code.regExp` option: every `pattern` and `patternProperties` key compiled by re2js, a
 * pattern made of leading negative lookaheads and a rest composed of several.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (source: string, flags: string): RegExpLike => {
    const key = `/${source}/${flags}`;
    return compileLookaheads(source, flags, key) ?? new LinearRegExp(compileLinear(source, flags), key);
  },
  // What ajv's standalone code calls for each pattern (ajv-standalone.ts turns the require
  // into an import): this function, from an entry that bundles without ajv's compiler, so the
  // module composes lookahead patterns as compileSchema does.
  { code: 'require("@llmjson/core/ajv").linearRegExp' },
);

type FormatTest = (text: string) => boolean;

/** ſ (U+017F) and K (U+212A): the only non-ASCII characters that case-fold to ASCII letters. */
const FOLDS_TO_ASCII = /[\u017f\u212a]/;
const FOLDS_TO_ASCII_ALL = /[\u017f\u212a]/g;

/**
 * A format check by a linear-time pattern, compiled on first use. Without the u flag,
 * JavaScript's i flag does not fold ſ into s nor K into k, and RE2 does; the format patterns
 * concerned are ASCII-only, so they treat every other non-ASCII character alike, and checking
 * "¡" in place of those two gives exactly JavaScript's verdict.
 */
function linearTest(source: string, flags: string): FormatTest {
  let pattern: RE2JS | undefined;
  const asciiFolding = flags.includes('i') && !flags.includes('u');
  return (text) => {
    pattern ??= compileLinear(source, flags);
    return pattern.test(asciiFolding && FOLDS_TO_ASCII.test(text) ? text.replace(FOLDS_TO_ASCII_ALL, '\u00a1') : text);
  };
}

/** ajv-formats' `url` host: a public IPv4 address, its three lookaheads turned into alternatives. */
const URL_OCTET = String.raw`(?:1?\d{1,2}|2[0-4]\d|25[0-5])`;
const URL_PUBLIC_IPV4 = [
  // First octet 1-223 but 10, 127 (never), 169, 172, 192 (only with a public second octet).
  String.raw`(?:(?:[1-9]|1[1-9]|[2-9]\d|1[01]\d|12[0-689]|1[3-5]\d|16[0-8]|17[013-9]|18\d|19[013-9]|2[01]\d|22[0-3])\.${URL_OCTET}`,
  String.raw`|169\.(?:1?\d{1,2}|2[0-4]\d|25[0-35])`,
  String.raw`|192\.(?:\d{1,2}|1[0-57-9]\d|16[0-79]|2[0-4]\d|25[0-5])`,
  String.raw`|172\.(?:\d|0\d|1[0-5]|3[2-9]|[4-9]\d|1\d\d|2[0-4]\d|25[0-5]))`,
  String.raw`\.${URL_OCTET}\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4])`,
].join('');
const URL_HOST_NAME = String.raw`(?:(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)(?:\.(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)*(?:\.(?:[a-z\u{00a1}-\u{ffff}]{2,}))`;
const URL_SOURCE = String.raw`^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?(?:${URL_PUBLIC_IPV4}|${URL_HOST_NAME})(?::\d{2,5})?(?:\/[^\s]*)?$`;
/** ajv-formats' `duration` without its lookaheads, which REBUILT_FORMATS checks beside it. */
const DURATION_SOURCE = String.raw`^P(?:(\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$`;
/** ajv-formats' `hostname` without its length lookahead, which REBUILT_FORMATS checks beside it. */
const HOSTNAME_SOURCE = String.raw`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$`;
/** The pattern inside ajv-formats' `uri` function (ajv-formats 3.0.1, MIT), which is not exported. */
const URI_SOURCE = String.raw`^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$`;
/** The pattern inside ajv-formats' `byte` function (flags `gm`). */
const BYTE_SOURCE = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';

/**
 * ajv-formats formats whose check is not one plain pattern, each rebuilt to run in linear time
 * with the same verdicts (pinned against ajv-formats by packages/core/test/schema-regexes.test.ts). The other
 * pattern formats are compiled by re2js as they are; the function formats left alone (`date`,
 * `time`, `date-time`, `iso-time`, `iso-date-time`, `regex`, the number formats) run in linear
 * time as written (decision 013).
 */
const REBUILT_FORMATS: ReadonlyMap<string, () => FormatTest> = new Map<string, () => FormatTest>([
  [
    'duration',
    () => {
      const test = linearTest(DURATION_SOURCE, '');
      // (?!$) after "P": something follows it; T(?=\d): a digit follows the one "T".
      return (text) => {
        const t = text.indexOf('T');
        const digitAfterT = t === -1 || (text.charCodeAt(t + 1) >= 48 && text.charCodeAt(t + 1) <= 57);
        return text.length > 1 && digitAfterT && test(text);
      };
    },
  ],
  [
    'hostname',
    () => {
      const test = linearTest(HOSTNAME_SOURCE, 'i');
      // (?=.{1,253}\.?$): at most 253 characters, not counting a final dot.
      return (text) => (text.length <= 253 || (text.length === 254 && text.endsWith('.'))) && test(text);
    },
  ],
  ['url', () => linearTest(URL_SOURCE, 'iu')],
  [
    'uri',
    () => {
      const test = linearTest(URI_SOURCE, 'i');
      return (text) => (text.includes('/') || text.includes(':')) && test(text);
    },
  ],
  [
    'byte',
    () => {
      const test = linearTest(BYTE_SOURCE, 'm');
      // RE2's multi-line ^ and $ know only \n as a line break; JavaScript's also \r, U+2028, U+2029.
      return (text) => test(text.replace(/[\r\u2028\u2029]/g, '\n'));
    },
  ],
]);

/** Linear-time checks by format name, built once per process and shared by every ajv instance. */
const linearFormats = new Map<string, FormatTest>();

/** Replaces each pattern-based format ajv-formats registered on `ajv` by its linear-time check. */
export function useLinearFormats(ajv: Ajv): void {
  for (const [name, format] of Object.entries(ajv.formats)) {
    let linear = linearFormats.get(name);
    if (linear === undefined) {
      const rebuild = REBUILT_FORMATS.get(name);
      if (rebuild !== undefined) linear = rebuild();
      else if (format instanceof RegExp) linear = linearTest(format.source, format.flags);
      else continue;
      linearFormats.set(name, linear);
    }
    ajv.addFormat(name, linear);
  }
}
