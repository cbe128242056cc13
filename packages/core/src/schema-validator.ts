/**
 * JSON Schema validation with discriminator dispatch.
 *
 * Contract: `compileSchema(schema, options)` compiles once (results are cached per schema
 * object and discriminator choice) and returns a validator that never throws on data. A
 * broken schema throws `ConfigurationError` at compile time, never at validation time.
 *
 * Dialects: draft-07 (the default when `$schema` is absent), 2019-09 and 2020-12, chosen by
 * `$schema`. Formats come from ajv-formats.
 *
 * Hardening (docs/decisions/013-linear-time-schema-regexes.md):
 * - Every regular expression a schema runs on data (`pattern`, `patternProperties` and the
 *   formats of ajv-formats) matches in time linear in the length of the string: patterns are
 *   compiled by re2js, a port of RE2, once JavaScript's own parser has accepted them. A
 *   pattern RE2 cannot run (lookahead, lookbehind, backreferences) is a ConfigurationError
 *   that names it.
 * - A schema whose references loop without descending into the value (`{"$ref": "#"}`,
 *   `{"allOf": [{"$ref": "#"}]}`) recurses forever on every value: it is a ConfigurationError
 *   naming the cycle. Recursion through `properties`, `items` and the other keywords that
 *   apply to a part of the value is legitimate and stays valid.
 * - A value deep enough to exhaust the stack of the generated validator is invalid
 *   (`keyword: "depth"`), never an exception. Engines apply their depth guard before this.
 * - Messages quote user input (patterns, pointers, discriminator names and values) through
 *   `quoteInput`: at most MAX_QUOTED_LENGTH characters each.
 *
 * Discriminator dispatch: when the root is a `oneOf` (or `anyOf`) whose branches are all
 * object schemas that require one property pinned to a distinct constant
 * (`"type": {"const": "definition"}`), only the branch the value names is validated.
 * Invariant: dispatch accepts exactly what the full schema accepts. It holds because a value
 * can satisfy at most one branch (the constants differ and the property is required), so
 * `oneOf` and `anyOf` both reduce to "the named branch, plus the root's other keywords".
 */

import { Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import { RE2JS, RE2JSException } from 're2js';
import { quoteInput, type SchemaError } from './diagnostics.js';

/** A JSON Schema: an object or a boolean. */
export type JsonSchema = Readonly<Record<string, unknown>> | boolean;

export const ConfigurationErrorCode = {
  schemaInvalid: 'SCHEMA_INVALID',
  discriminatorInvalid: 'DISCRIMINATOR_INVALID',
  optionInvalid: 'OPTION_INVALID',
} as const;
export type ConfigurationErrorCode = (typeof ConfigurationErrorCode)[keyof typeof ConfigurationErrorCode];

/** A broken configuration: raised when a stream or validator is created, never for bad data. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  readonly code: ConfigurationErrorCode;
  constructor(code: ConfigurationErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export type ValidationResult =
  | { readonly valid: true; readonly branch?: string }
  | {
      readonly valid: false;
      readonly branch?: string;
      readonly errors: readonly SchemaError[];
      /** One line: `at /sections/0/start_line: must be integer`. */
      readonly message: string;
    };

export interface CompiledSchema {
  validate(value: unknown): ValidationResult;
  /** The discriminator property in use, when dispatch is active. */
  readonly discriminator?: string;
  /** Allowed discriminator values, in branch order. */
  readonly branches?: readonly string[];
}

export interface CompileOptions {
  /**
   * Discriminator property for `oneOf`/`anyOf` dispatch. Default: detected automatically
   * (`type`, then `kind`, then the first qualifying property). `false` turns dispatch off.
   */
  readonly discriminator?: string | false;
}

type AddFormats = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS; its default export arrives either as the function or wrapped.
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

// Linear-time regular expressions ------------------------------------------------------------

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

/**
 * Compiles a JavaScript pattern for re2js, which matches in time linear in the input. The
 * pattern must first be valid JavaScript (so a schema means the same as under ajv's default
 * engine); `i` and `m` map to RE2's flags, `u` and `g` need nothing (`test` is stateless).
 */
function compileLinear(source: string, flags: string): RE2JS {
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

/** ajv's `code.regExp` option: every `pattern` and `patternProperties` key compiled by re2js. */
const linearRegExp: RegExpEngine = Object.assign(
  (source: string, flags: string): RegExpLike => new LinearRegExp(compileLinear(source, flags), `/${source}/${flags}`),
  // Read only by ajv's standalone code generation, which llmjson does not use.
  { code: 'linearRegExp' },
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
function useLinearFormats(ajv: Ajv): void {
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

const DIALECTS: Record<string, new (options: Options) => Ajv> = {
  'http://json-schema.org/draft-07/schema': Ajv,
  'https://json-schema.org/draft/2019-09/schema': Ajv2019 as unknown as new (options: Options) => Ajv,
  'https://json-schema.org/draft/2020-12/schema': Ajv2020 as unknown as new (options: Options) => Ajv,
};

/** The ajv instance for `schema`'s dialect, and whether that dialect is draft-07. */
function ajvFor(schema: JsonSchema): { readonly ajv: Ajv; readonly draft07: boolean } {
  let dialect = Ajv as new (options: Options) => Ajv;
  if (typeof schema === 'object' && typeof schema.$schema === 'string') {
    const key = schema.$schema
      .replace(/#$/, '')
      .replace(/^http:\/\/json-schema\.org\/draft\/20/, 'https://json-schema.org/draft/20');
    const found = DIALECTS[key];
    if (found === undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        `unsupported $schema "${quoteInput(schema.$schema)}"; supported: draft-07 (default), 2019-09, 2020-12`,
      );
    }
    dialect = found;
  }
  // strict: false accepts the annotation keywords real schemas carry (examples, x-*);
  // the schema itself is still meta-validated on compile.
  const ajv = new dialect({ allErrors: true, strict: false, validateSchema: true, code: { regExp: linearRegExp } });
  addFormats(ajv);
  useLinearFormats(ajv);
  return { ajv, draft07: dialect === Ajv };
}

function toSchemaErrors(errors: readonly ErrorObject[] | null | undefined): SchemaError[] {
  return (errors ?? []).map((e) => ({
    path: e.instancePath,
    keyword: e.keyword,
    message: e.message ?? 'is invalid',
    schemaPath: e.schemaPath,
    params: e.params as Record<string, unknown>,
  }));
}

/**
 * One line for humans: `at /sections/0/start_line: must be integer; at /: must have ...`.
 * Paths and property names come from the value, so each is quoted at most MAX_QUOTED_LENGTH long.
 */
export function formatSchemaErrors(errors: readonly SchemaError[], limit = 3): string {
  const shown = errors.slice(0, limit).map((e) => {
    const extra =
      e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string'
        ? ` ("${quoteInput(e.params.additionalProperty)}")`
        : e.keyword === 'enum' && Array.isArray(e.params.allowedValues)
          ? ` (${quoteInput(e.params.allowedValues.map((v) => JSON.stringify(v)).join(', '))})`
          : '';
    return `at ${e.path === '' ? '/' : quoteInput(e.path)}: ${quoteInput(e.message)}${extra}`;
  });
  const more = errors.length > limit ? `; and ${errors.length - limit} more` : '';
  return shown.join('; ') + more;
}

/**
 * Whether `error` is the engine running out of call stack: a RangeError in V8 and
 * JavaScriptCore, an InternalError ("too much recursion") in SpiderMonkey.
 */
function isStackOverflow(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error instanceof RangeError
    ? /call stack/i.test(error.message)
    : error.name === 'InternalError' && /recursion/i.test(error.message);
}

/** Runs `compile`, turning whatever ajv throws into a ConfigurationError about `what`. */
function configurationErrors<T>(what: string, compile: () => T): T {
  try {
    return compile();
  } catch (cause) {
    if (cause instanceof ConfigurationError) throw cause;
    // ajv compiles (and meta-validates) by recursion: a deep enough schema ends here.
    const detail = isStackOverflow(cause)
      ? 'nested too deeply to compile (stack overflow)'
      : quoteInput(cause instanceof Error ? cause.message : String(cause));
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, `invalid ${what}: ${detail}`, { cause });
  }
}

function compileWith(ajv: Ajv, schema: AnySchema, what: string): ValidateFunction {
  return configurationErrors(what, () => ajv.compile(schema));
}

type SchemaObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Follows local `$ref`s (`#`, `#/$defs/Name`, `#/definitions/Name`) from `schema`, found at
 * `path` (property names from `root`): where the chain ends, and its path. Other references
 * (anchors, other resources) are left for ajv: the chain stops at them.
 */
function resolveLocalAt(
  root: SchemaObject,
  schema: unknown,
  path: readonly string[],
): [schema: unknown, path: readonly string[]] {
  let node = schema;
  let at = path;
  for (let seen = 0; seen <= 16 && isObject(node) && typeof node.$ref === 'string'; seen++) {
    const ref = node.$ref;
    if (ref !== '#' && !ref.startsWith('#/')) break;
    const keys = ref === '#' ? [] : pointerKeys(ref.slice(1));
    const target = keys === undefined ? undefined : walkKeys(root, keys);
    if (keys === undefined || target === undefined) break;
    node = target;
    at = keys;
  }
  return [node, at];
}

function resolveLocal(root: SchemaObject, schema: unknown): unknown {
  return resolveLocalAt(root, schema, [])[0];
}

type Constant = string | number | boolean;

/** The constant a branch pins `property` to, when the branch requires it. */
function pinnedConstant(branch: unknown, property: string): Constant | undefined {
  if (!isObject(branch) || !isObject(branch.properties)) return undefined;
  const required = branch.required;
  if (!Array.isArray(required) || !required.includes(property)) return undefined;
  const definition = branch.properties[property];
  if (!isObject(definition)) return undefined;
  let constant: unknown;
  if (Object.hasOwn(definition, 'const')) constant = definition.const;
  else if (Array.isArray(definition.enum) && definition.enum.length === 1) constant = definition.enum[0];
  else return undefined;
  return typeof constant === 'string' || typeof constant === 'number' || typeof constant === 'boolean'
    ? constant
    : undefined;
}

interface Dispatch {
  readonly keyword: 'oneOf' | 'anyOf';
  readonly property: string;
  readonly constants: readonly Constant[];
}

/** Finds the discriminator of a root `oneOf`/`anyOf`, or explains why `wanted` is not one. */
function findDispatch(root: SchemaObject, wanted: string | undefined): Dispatch | string {
  const keyword = Array.isArray(root.oneOf) ? 'oneOf' : Array.isArray(root.anyOf) ? 'anyOf' : undefined;
  if (keyword === undefined || (Array.isArray(root.oneOf) && Array.isArray(root.anyOf))) {
    return 'the schema root has no single oneOf/anyOf to dispatch on';
  }
  const branches = (root[keyword] as unknown[]).map((b) => resolveLocal(root, b));
  if (branches.length < 2) return `${keyword} has fewer than two branches`;
  const rootIsObject = root.type === 'object';
  for (const [i, b] of branches.entries()) {
    if (!isObject(b) || (b.type !== 'object' && !rootIsObject)) {
      return `${keyword} branch ${i} is not an object schema ("type": "object")`;
    }
  }
  const first = branches[0] as SchemaObject;
  const candidates = wanted !== undefined ? [wanted] : Object.keys(isObject(first.properties) ? first.properties : {});
  const qualifying: Dispatch[] = [];
  for (const property of candidates) {
    const constants: Constant[] = [];
    let why: string | undefined;
    for (const [i, b] of branches.entries()) {
      const constant = pinnedConstant(b, property);
      if (constant === undefined) {
        why = `${keyword} branch ${i} does not require "${quoteInput(property)}" with a single constant value`;
        break;
      }
      if (constants.includes(constant)) {
        why = `${keyword} branches share the "${quoteInput(property)}" value ${quoteInput(JSON.stringify(constant))}`;
        break;
      }
      constants.push(constant);
    }
    if (why === undefined) qualifying.push({ keyword, property, constants });
    else if (wanted !== undefined) return why;
  }
  const chosen =
    qualifying.find((d) => d.property === 'type') ?? qualifying.find((d) => d.property === 'kind') ?? qualifying[0];
  return chosen ?? `no property is pinned to a distinct constant in every ${keyword} branch`;
}

// Reference cycles ---------------------------------------------------------------------------

/** A subschema found under `keyword` (and, in a list or map, under `member`) of its parent. */
type Subschema = readonly [schema: SchemaObject, keyword: string, member: string | number | undefined];

/** What a keyword's subschemas apply to, as bits: edges are chosen by role, per dialect. */
const Role = {
  /** Applied to the same instance: a cycle through these never reaches the end of the value. */
  inPlace: 1,
  /** `dependentSchemas`: in place, but ignored by draft-07 ajv. */
  inPlaceNext: 2,
  /** `if`, `then`, `else`: in place as far as `if` lets them apply (see `edgesOf`). */
  conditional: 4,
  /** Applied to a part of the instance (an element, a property value or name): recursion ends with the value. */
  descending: 8,
  /** Only holds subschemas for references to find (`$defs`, `definitions`). */
  definitions: 16,
} as const;
const EVERY_ROLE = 31;

/** Keywords that hold subschemas: their role, and whether the value is a map of schemas. */
const SUBSCHEMA_KEYWORDS: ReadonlyMap<string, { readonly role: number; readonly map: boolean }> = new Map([
  ['not', { role: Role.inPlace, map: false }],
  ['allOf', { role: Role.inPlace, map: false }],
  ['anyOf', { role: Role.inPlace, map: false }],
  ['oneOf', { role: Role.inPlace, map: false }],
  // Its list values (required properties) are not schemas and are skipped.
  ['dependencies', { role: Role.inPlace, map: true }],
  ['dependentSchemas', { role: Role.inPlaceNext, map: true }],
  ['if', { role: Role.conditional, map: false }],
  ['then', { role: Role.conditional, map: false }],
  ['else', { role: Role.conditional, map: false }],
  ['items', { role: Role.descending, map: false }],
  ['prefixItems', { role: Role.descending, map: false }],
  ['additionalItems', { role: Role.descending, map: false }],
  ['contains', { role: Role.descending, map: false }],
  ['additionalProperties', { role: Role.descending, map: false }],
  ['propertyNames', { role: Role.descending, map: false }],
  ['unevaluatedItems', { role: Role.descending, map: false }],
  ['unevaluatedProperties', { role: Role.descending, map: false }],
  ['properties', { role: Role.descending, map: true }],
  ['patternProperties', { role: Role.descending, map: true }],
  ['$defs', { role: Role.definitions, map: true }],
  ['definitions', { role: Role.definitions, map: true }],
]);

const REFERENCE_KEYWORDS = ['$ref', '$recursiveRef', '$dynamicRef'];

function own(schema: SchemaObject, keyword: string): unknown {
  return Object.hasOwn(schema, keyword) ? schema[keyword] : undefined;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Appends the object subschemas of `schema` under keywords whose role is in `roles` to `out`
 * (boolean subschemas apply nothing). One pass over the schema's own keys: a schema has a few,
 * the keyword table has twenty.
 */
function subschemas(schema: SchemaObject, roles: number, out: Subschema[]): void {
  for (const keyword of Object.keys(schema)) {
    const kind = SUBSCHEMA_KEYWORDS.get(keyword);
    if (kind === undefined || (kind.role & roles) === 0) continue;
    const value = schema[keyword];
    if (kind.map) {
      if (!isObject(value)) continue;
      for (const name of Object.keys(value)) {
        const child = value[name];
        if (isObject(child)) out.push([child, keyword, name]);
      }
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (isObject(child)) out.push([child, keyword, i]);
      }
    } else if (isObject(value)) {
      out.push([value, keyword, undefined]);
    }
  }
}

/** Where the analysis met a schema object: the way back to the root, and the base URI in effect. */
interface Place {
  readonly parent: SchemaObject | undefined;
  /** The keyword of `parent` it was found under, or a JSON pointer (`/components/a`) from a reference. */
  readonly keyword: string;
  /** Its index or name in the keyword's list or map. */
  readonly member: string | number | undefined;
  /** Base URI of the parent, which `$id` resolves against. */
  readonly from: string;
  /** Base URI that the schema's own references resolve against. */
  readonly base: string;
  /** Met under two different bases (a shared object): its references are not followed. */
  ambiguous: boolean;
}

interface Edges {
  /** Schemas applied to the same instance: subschemas of in-place keywords and reference targets. */
  readonly inPlace: readonly SchemaObject[];
  /** Every schema applied to the instance or a part of it. */
  readonly all: readonly SchemaObject[];
}

/**
 * The schema objects of a document and the "applies to" edges between them, for finding a
 * cycle of in-place applications. Everything is explicit stacks and maps: the cost is linear
 * in the size of the schema and no recursion can overflow, however deep the schema.
 *
 * References resolve the way ajv resolves them (its URI resolver, `$id` bases, `$anchor`s,
 * JSON pointers into the resource). A reference that cannot be resolved statically is no edge:
 * the analysis only ever reports cycles that exist. `$recursiveRef`/`$dynamicRef` are followed
 * when the document is a single resource (the dynamic scope then holds only it, so dynamic and
 * static resolution agree) or when their target carries no dynamic anchor.
 */
class ReferenceGraph {
  private readonly places = new Map<SchemaObject, Place>();
  private readonly resources = new Map<string, SchemaObject>();
  private readonly anchors = new Map<string, SchemaObject>();
  private readonly edges = new Map<SchemaObject, Edges>();
  private readonly inPlaceRoles: number;

  constructor(
    private readonly root: SchemaObject,
    rootBase: string,
    draft07: boolean,
    private readonly resolveUri: (base: string, reference: string) => string,
  ) {
    this.inPlaceRoles = draft07 ? Role.inPlace : Role.inPlace | Role.inPlaceNext;
    this.resources.set(rootBase, root);
    this.register(root, undefined, '', undefined, rootBase);
  }

  /** A cycle of in-place applications reachable from the root, first schema repeated last. */
  findCycle(): SchemaObject[] | undefined {
    const reachable = [this.root];
    const seen = new Set(reachable);
    for (let i = 0; i < reachable.length; i++) {
      for (const target of this.edgesOf(reachable[i] as SchemaObject).all) {
        if (!seen.has(target)) {
          seen.add(target);
          reachable.push(target);
        }
      }
    }
    const onPath = 1;
    const done = 2;
    const state = new Map<SchemaObject, number>();
    for (const start of reachable) {
      if (state.has(start)) continue;
      const path = [start];
      const next = [0];
      state.set(start, onPath);
      while (path.length !== 0) {
        const top = path.length - 1;
        const node = path[top] as SchemaObject;
        const targets = this.edgesOf(node).inPlace;
        const i = next[top] as number;
        if (i === targets.length) {
          state.set(node, done);
          path.pop();
          next.pop();
          continue;
        }
        next[top] = i + 1;
        const target = targets[i] as SchemaObject;
        const seenBefore = state.get(target);
        if (seenBefore === onPath) return [...path.slice(path.indexOf(target)), target];
        if (seenBefore === undefined) {
          state.set(target, onPath);
          path.push(target);
          next.push(0);
        }
      }
    }
    return undefined;
  }

  /** The JSON pointer (`#/allOf/0`) at which the analysis first met `schema`. */
  pointerOf(schema: SchemaObject): string {
    const steps: string[] = [];
    for (let place = this.places.get(schema); place?.parent !== undefined; place = this.places.get(place.parent)) {
      const member = place.member === undefined ? '' : `/${escapePointer(String(place.member))}`;
      steps.push(place.keyword.startsWith('/') ? place.keyword : `/${place.keyword}${member}`);
    }
    return `#${steps.reverse().join('')}`;
  }

  /** Records `start` and every subschema under it, with their bases, `$id`s and anchors. */
  private register(
    start: SchemaObject,
    parent: SchemaObject | undefined,
    keyword: string,
    member: string | number | undefined,
    from: string,
  ): void {
    type Visit = [SchemaObject, SchemaObject | undefined, string, string | number | undefined, string];
    const todo: Visit[] = [[start, parent, keyword, member, from]];
    const children: Subschema[] = [];
    while (todo.length !== 0) {
      const [schema, parent, keyword, member, from] = todo.pop() as Visit;
      const known = this.places.get(schema);
      if (known !== undefined) {
        if (known.from !== from) known.ambiguous = true;
        continue;
      }
      const base = this.baseOf(schema, from);
      this.places.set(schema, { parent, keyword, member, from, base, ambiguous: false });
      children.length = 0;
      subschemas(schema, EVERY_ROLE, children);
      for (const [child, childKeyword, childMember] of children)
        todo.push([child, schema, childKeyword, childMember, base]);
    }
  }

  /** The base URI inside `schema`, registering it as a resource or anchor as its `$id` says. */
  private baseOf(schema: SchemaObject, from: string): string {
    let base = from;
    const id = own(schema, '$id');
    if (typeof id === 'string') {
      const resolved = this.resolve(from, id);
      if (resolved !== undefined) {
        const [uri, fragment] = splitFragment(resolved);
        if (!id.startsWith('#')) {
          base = uri;
          if (!this.resources.has(uri)) this.resources.set(uri, schema);
        }
        // draft-07 spells anchors as `$id: "#name"`.
        if (fragment !== '') this.anchors.set(`${base}#${fragment}`, schema);
      }
    }
    for (const keyword of ['$anchor', '$dynamicAnchor']) {
      const anchor = own(schema, keyword);
      if (typeof anchor === 'string') this.anchors.set(`${base}#${anchor}`, schema);
    }
    return base;
  }

  private edgesOf(schema: SchemaObject): Edges {
    const cached = this.edges.get(schema);
    if (cached !== undefined) return cached;
    const found: Subschema[] = [];
    subschemas(schema, this.inPlaceRoles | Role.descending, found);
    const inPlace: SchemaObject[] = [];
    const descending: SchemaObject[] = [];
    for (const [child, keyword] of found) {
      const role = SUBSCHEMA_KEYWORDS.get(keyword)?.role ?? 0;
      (role === Role.descending ? descending : inPlace).push(child);
    }
    // ajv evaluates `if` only beside a `then` or an `else`, `then` only when `if` can pass and
    // `else` only when it can fail.
    const condition = own(schema, 'if');
    const then = own(schema, 'then');
    const otherwise = own(schema, 'else');
    if (condition !== undefined && (then !== undefined || otherwise !== undefined)) {
      if (isObject(condition)) inPlace.push(condition);
      if (condition !== false && isObject(then)) inPlace.push(then);
      if (condition !== true && isObject(otherwise)) inPlace.push(otherwise);
    }
    const place = this.places.get(schema);
    if (place !== undefined && !place.ambiguous) {
      // Draft-07 ajv ignores `$recursiveRef` and `$dynamicRef`; 2019-09 and 2020-12 ajv apply both.
      const keywords = (this.inPlaceRoles & Role.inPlaceNext) === 0 ? ['$ref'] : REFERENCE_KEYWORDS;
      for (const keyword of keywords) {
        const reference = own(schema, keyword);
        const target = typeof reference === 'string' ? this.target(reference, place.base, keyword) : undefined;
        if (target !== undefined) inPlace.push(target);
      }
    }
    const edges: Edges = { inPlace, all: inPlace.concat(descending) };
    this.edges.set(schema, edges);
    return edges;
  }

  /** The schema object `reference` names from `base`, when it can be told without a value. */
  private target(reference: string, base: string, keyword: string): SchemaObject | undefined {
    const resolved = this.resolve(base, reference);
    if (resolved === undefined) return undefined;
    const [uri, fragment] = splitFragment(resolved);
    const resource = this.resources.get(uri);
    if (resource === undefined) return undefined;
    let target: unknown;
    if (fragment === '') target = resource;
    else if (fragment.startsWith('/')) target = walkPointer(resource, fragment);
    else target = this.anchors.get(`${uri}#${decodeFragment(fragment) ?? fragment}`);
    if (!isObject(target)) return undefined;
    // A pointer may lead where the keyword walk did not go (`#/components/...`): record it now.
    if (!this.places.has(target)) this.register(target, resource, fragment, undefined, uri);
    if (keyword !== '$ref' && this.resources.size > 1) {
      const dynamic =
        keyword === '$recursiveRef'
          ? own(target, '$recursiveAnchor') === true
          : own(target, '$dynamicAnchor') !== undefined;
      if (dynamic) return undefined;
    }
    return target;
  }

  /** ajv's resolution: a trailing `#` or `#/` is dropped, then the URI resolver joins. */
  private resolve(base: string, reference: string): string | undefined {
    const normalized = reference.replace(/#\/?$/, '');
    // A fragment alone replaces the base's (which has none): no need for the resolver's parse.
    if (normalized === '' || normalized.startsWith('#')) return base + normalized;
    try {
      return this.resolveUri(base, normalized);
    } catch {
      return undefined;
    }
  }
}

function splitFragment(uri: string): [uri: string, fragment: string] {
  const hash = uri.indexOf('#');
  return hash === -1 ? [uri, ''] : [uri.slice(0, hash), uri.slice(hash + 1)];
}

function decodeFragment(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

/**
 * The property names a JSON pointer fragment (`/$defs/a~1b`, percent-encoded) spells, decoded
 * part by part as ajv decodes them; `undefined` when a part is not valid percent-encoding.
 */
function pointerKeys(fragment: string): string[] | undefined {
  const keys: string[] = [];
  for (const raw of fragment.slice(1).split('/')) {
    const key = decodeFragment(raw)?.replace(/~1/g, '/').replace(/~0/g, '~');
    if (key === undefined) return undefined;
    keys.push(key);
  }
  return keys;
}

function walkKeys(node: unknown, keys: readonly string[]): unknown {
  for (const key of keys) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Follows a JSON pointer fragment from `node`. */
function walkPointer(node: unknown, fragment: string): unknown {
  const keys = pointerKeys(fragment);
  return keys === undefined ? undefined : walkKeys(node, keys);
}

/** Longest run of a reported cycle shown before it is elided. */
const CYCLE_STEPS_SHOWN = 8;

/** Throws SCHEMA_INVALID when `schema` applies itself to the same instance in a loop. */
function rejectReferenceCycles(schema: SchemaObject, rootBase: string, draft07: boolean, ajv: Ajv): void {
  const graph = new ReferenceGraph(schema, rootBase, draft07, (base, reference) =>
    ajv.opts.uriResolver.resolve(base, reference),
  );
  const cycle = graph.findCycle();
  if (cycle === undefined) return;
  const steps = cycle.length - 1;
  const shown =
    steps <= CYCLE_STEPS_SHOWN
      ? cycle
      : [...cycle.slice(0, CYCLE_STEPS_SHOWN), undefined, cycle[steps] as SchemaObject];
  const chain = shown
    .map((s) => (s === undefined ? `… (${steps - CYCLE_STEPS_SHOWN} more)` : quoteInput(graph.pointerOf(s))))
    .join(' -> ');
  throw new ConfigurationError(
    ConfigurationErrorCode.schemaInvalid,
    `schema reference cycle that never descends into the value: ${chain}; recursion must go through a keyword that applies to a part of the value (properties, items, ...)`,
  );
}

// Compiling and validating -------------------------------------------------------------------

/** Shared results: the paths that accept a value allocate nothing. */
const VALID: ValidationResult = Object.freeze({ valid: true });
const TOO_DEEP_MESSAGE = 'value too deeply nested for the schema to validate (stack overflow)';
const TOO_DEEP: ValidationResult = Object.freeze({
  valid: false,
  errors: Object.freeze([
    Object.freeze({
      path: '',
      keyword: 'depth',
      message: TOO_DEEP_MESSAGE,
      schemaPath: '#',
      params: Object.freeze({}),
    }),
  ]),
  message: TOO_DEEP_MESSAGE,
});

/** A stack overflow while validating is the value's depth, reported; anything else is a bug and propagates. */
function tooDeep(error: unknown): ValidationResult {
  if (isStackOverflow(error)) return TOO_DEEP;
  throw error;
}

/** A discriminator value as a message may quote it: scalars bounded, containers named. */
function describeTag(tag: unknown): string {
  if (typeof tag === 'string') return JSON.stringify(quoteInput(tag));
  if (typeof tag === 'object' && tag !== null) return Array.isArray(tag) ? 'an array' : 'an object';
  return quoteInput(String(tag));
}

function compileUncached(schema: JsonSchema, options: CompileOptions): CompiledSchema {
  if (typeof schema !== 'boolean' && !isObject(schema)) {
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, 'a schema must be an object or a boolean');
  }
  const { ajv, draft07 } = ajvFor(schema);
  // The root is registered under its own $id (or a private one) so that the discriminated
  // branches below can be compiled as references into it without registering it twice.
  const rootId = typeof schema === 'object' && typeof schema.$id === 'string' ? schema.$id : 'llmjson:root';
  let whole: ValidateFunction;
  if (typeof schema === 'boolean') {
    whole = compileWith(ajv, schema, 'schema');
  } else {
    // A self-applying schema recurses forever on its first value; ajv compiles most of them
    // without complaint and overflows the stack on the others (a ring of bare `$ref`s), so
    // the cycle is looked for first, to be named.
    rejectReferenceCycles(schema, rootId.replace(/#\/?$/, ''), draft07, ajv);
    whole = configurationErrors('schema', () => {
      ajv.addSchema(typeof schema.$id === 'string' ? schema : { ...schema, $id: rootId });
      const compiled = ajv.getSchema(rootId);
      if (compiled === undefined) throw new Error(`schema ${quoteInput(rootId)} could not be compiled`);
      return compiled;
    });
  }
  const validateWhole = (value: unknown): ValidationResult => {
    try {
      if (whole(value)) return VALID;
    } catch (error) {
      return tooDeep(error);
    }
    const errors = toSchemaErrors(whole.errors);
    return { valid: false, errors, message: formatSchemaErrors(errors) };
  };
  if (options.discriminator === false || typeof schema === 'boolean') {
    if (typeof options.discriminator === 'string') {
      throw new ConfigurationError(
        ConfigurationErrorCode.discriminatorInvalid,
        `discriminator "${quoteInput(options.discriminator)}" cannot apply to a boolean schema`,
      );
    }
    return { validate: validateWhole };
  }
  const dispatch = findDispatch(schema, options.discriminator);
  if (typeof dispatch === 'string') {
    if (options.discriminator !== undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.discriminatorInvalid,
        `discriminator "${quoteInput(options.discriminator)}" cannot be used: ${dispatch}`,
      );
    }
    return { validate: validateWhole };
  }

  // The branches are compiled by reference into the root, so local $refs, $defs and the
  // root's $id keep their meaning; the root's other keywords are validated separately.
  const rest: Record<string, unknown> = { ...schema };
  delete rest[dispatch.keyword];
  delete rest.$id;
  const hasOtherConstraints = Object.keys(rest).some(
    (k) => !['$schema', '$defs', 'definitions', 'title', 'description', '$comment', 'examples'].includes(k),
  );
  const base = hasOtherConstraints ? compileWith(ajv, rest, 'schema') : undefined;
  const validators = dispatch.constants.map((_, i) => {
    // The branch compiled in place (a JSON pointer into the registered root), not through a
    // `$ref` wrapper, so that validating it costs what validating it directly costs.
    const pointer = `${rootId}#/${dispatch.keyword}/${i}`;
    return configurationErrors(`${dispatch.keyword} branch ${i}`, () => {
      const compiled = ajv.getSchema(pointer);
      if (compiled === undefined) throw new Error(`${quoteInput(pointer)} could not be compiled`);
      return compiled;
    });
  });
  const names = dispatch.constants.map(String);
  // Shared results for valid values: the hot path allocates nothing (a try/catch costs nothing in V8).
  const validResults: ValidationResult[] = names.map((branch) => Object.freeze({ valid: true, branch }));
  const count = names.length;
  const select = buildSelector(dispatch.property, dispatch.constants, validators);
  const property = dispatch.property;
  const quotedProperty = quoteInput(property);
  const allowed = quoteInput(dispatch.constants.map((c) => JSON.stringify(c)).join(', '));

  const validate = (value: unknown): ValidationResult => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      const errors: SchemaError[] = [
        { path: '', keyword: 'type', message: 'must be object', schemaPath: '#/type', params: { type: 'object' } },
      ];
      return { valid: false, errors, message: `at /: must be object with "${quotedProperty}" one of ${allowed}` };
    }
    let code: number;
    let baseValid = true;
    try {
      code = select(value as Record<string, unknown>);
      if (code !== 2 * count && base !== undefined) baseValid = base(value);
    } catch (error) {
      return tooDeep(error);
    }
    if (code === 2 * count) {
      const tag = (value as Record<string, unknown>)[property];
      const missing = tag === undefined;
      const message = missing
        ? `missing discriminator "${quotedProperty}"; expected one of ${allowed}`
        : `unknown discriminator "${quotedProperty}": ${describeTag(tag)}; expected one of ${allowed}`;
      const errors: SchemaError[] = [
        {
          path: missing ? '' : `/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`,
          keyword: 'discriminator',
          message,
          schemaPath: `#/${dispatch.keyword}`,
          params: { property, allowed: dispatch.constants },
        },
      ];
      return { valid: false, errors, message };
    }
    const i = code % count;
    const branch = names[i] as string;
    if (base !== undefined && !baseValid) {
      const errors = toSchemaErrors(base.errors);
      return { valid: false, branch, errors, message: formatSchemaErrors(errors) };
    }
    if (code < count) return validResults[i] as ValidationResult;
    const errors = toSchemaErrors(validators[i]?.errors);
    return { valid: false, branch, errors, message: `branch "${quoteInput(branch)}": ${formatSchemaErrors(errors)}` };
  };
  return { validate, discriminator: property, branches: dispatch.constants.map(String) };
}

/**
 * Builds `select(value)`, which validates `value` against the branch its discriminator names:
 * it returns `i` when branch `i` accepts, `count + i` when branch `i` rejects, and `2 * count`
 * when no branch is named. The selector is generated as a `switch` with one call site per
 * branch, as a hand-written dispatcher would be, so each call site stays monomorphic and
 * dispatch costs what validating the named branch directly costs (a map lookup and one shared
 * call site measured about twice the validation time). ajv generates its validators the same
 * way, so this adds no new requirement on the runtime.
 */
function buildSelector(
  property: string,
  constants: readonly Constant[],
  validators: readonly ValidateFunction[],
): (value: Record<string, unknown>) => number {
  const count = constants.length;
  const parameters = validators.map((_, i) => `v${i}`);
  // JSON.stringify yields valid JavaScript literals for strings, numbers and booleans.
  const cases = constants
    .map((constant, i) => `case ${JSON.stringify(constant)}: return v${i}(value) ? ${i} : ${count + i};`)
    .join('\n');
  const body = `return function select(value) {\nswitch (value[${JSON.stringify(property)}]) {\n${cases}\n}\nreturn ${2 * count};\n};`;
  return new Function(...parameters, body)(...validators) as (value: Record<string, unknown>) => number;
}

/**
 * The schema of the elements of the array at `path` (object keys from the root) inside a
 * document schema: `properties` along the path, then `items`, following local `$ref`s. The
 * result means on its own what `items` means in the document (see `standaloneAt`).
 * Throws ConfigurationError when the schema does not describe such an array.
 */
export function elementSchemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  let node: unknown = schema;
  let at: readonly string[] = [];
  for (const key of path) {
    [node, at] = resolveLocalAt(schema, node, at);
    const properties = isObject(node) ? node.properties : undefined;
    if (!isObject(properties) || !Object.hasOwn(properties, key)) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        `the schema has no "properties" entry for "${quoteInput(key)}" on the path $.${quoteInput(path.join('.'))}`,
      );
    }
    node = properties[key];
    at = [...at, 'properties', key];
  }
  [node, at] = resolveLocalAt(schema, node, at);
  const items = isObject(node) ? node.items : undefined;
  if (!isObject(items) && typeof items !== 'boolean') {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `the schema has no single "items" schema for the array at $${quoteInput(path.map((k) => `.${k}`).join(''))}`,
    );
  }
  if (typeof items === 'boolean') return items;
  return standaloneAt(schema, items, [...at, 'items']);
}

/**
 * The sub-schema that applies to the value at `path` (object keys and array indices) inside a
 * document that `schema` describes, following `properties`, `additionalProperties`,
 * `prefixItems`/`items` and local `$ref`s; the result means on its own what it means in the
 * document (see `standaloneAt`). `undefined` when the path leads through a combinator
 * (`oneOf`, `anyOf`, `allOf`, `if`) or anything else whose meaning depends on the value: such
 * subtrees are checked with the whole document.
 */
export function subSchemaAt(schema: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  if (typeof schema === 'boolean') return schema;
  let node: unknown = schema;
  let at: readonly string[] = [];
  for (const segment of path) {
    [node, at] = resolveLocalAt(schema, node, at);
    if (typeof node === 'boolean') return node;
    if (
      !isObject(node) ||
      node.oneOf !== undefined ||
      node.anyOf !== undefined ||
      node.allOf !== undefined ||
      node.if !== undefined
    ) {
      return undefined;
    }
    if (typeof segment === 'number') {
      const prefixKeyword = Array.isArray(node.prefixItems) ? 'prefixItems' : Array.isArray(node.items) ? 'items' : '';
      const prefix = prefixKeyword === '' ? undefined : (node[prefixKeyword] as unknown[]);
      if (prefix !== undefined && segment < prefix.length) {
        node = prefix[segment];
        at = [...at, prefixKeyword, String(segment)];
      } else {
        const rest = prefix !== undefined && Array.isArray(node.items) ? 'additionalItems' : 'items';
        node = node[rest];
        at = [...at, rest];
      }
    } else {
      const properties = isObject(node.properties) ? node.properties : undefined;
      if (properties !== undefined && Object.hasOwn(properties, segment)) {
        node = properties[segment];
        at = [...at, 'properties', segment];
      } else if (node.patternProperties !== undefined) {
        return undefined;
      } else {
        node = node.additionalProperties;
        at = [...at, 'additionalProperties'];
      }
    }
    if (node === undefined) return undefined;
  }
  [node, at] = resolveLocalAt(schema, node, at);
  if (typeof node === 'boolean') return node;
  if (!isObject(node)) return undefined;
  return standaloneAt(schema, node, at);
}

/** The base URI under which `standaloneAt` embeds a document that has no `$id`. */
const EMBEDDED_DOCUMENT_ID = 'llmjson:document';

/**
 * `node`, found at `path` (property names) inside `document`, as a schema that means on its own
 * what it means in place, one object per (document, node) so that compileSchema's cache (by
 * object) compiles it once.
 *
 * When every reference under `node` and in the document's definitions is to a definition
 * (`#/$defs/…`, `#/definitions/…`), a copy of `node` carrying the definitions does: it keeps
 * `oneOf` dispatch at its root. Otherwise (`{"$ref": "#"}` in a recursive schema, an anchor,
 * a pointer elsewhere) a copy would change what the reference names (`#` would become the copy
 * itself, a loop), so the result is a `$ref` to `node` inside the whole document, embedded as a
 * definition under its own `$id`.
 */
function standaloneAt(document: SchemaObject, node: SchemaObject, path: readonly string[]): JsonSchema {
  if (node === document) return document;
  let perDocument = standaloneSchemas.get(document);
  if (perDocument === undefined) {
    perDocument = new WeakMap();
    standaloneSchemas.set(document, perDocument);
  }
  let standalone = perDocument.get(node);
  if (standalone === undefined) {
    if (refersOnlyToDefinitions(document, node)) {
      const copy: Record<string, unknown> = { ...node };
      for (const keyword of ['$schema', '$defs', 'definitions'] as const) {
        if (document[keyword] !== undefined && copy[keyword] === undefined) copy[keyword] = document[keyword];
      }
      standalone = copy;
    } else {
      const id = typeof document.$id === 'string' ? document.$id.replace(/#\/?$/, '') : EMBEDDED_DOCUMENT_ID;
      const embedded: Record<string, unknown> = { ...document, $id: id };
      delete embedded.$schema;
      standalone = {
        ...(document.$schema === undefined ? {} : { $schema: document.$schema }),
        $ref: `${id}#${path.map((key) => `/${encodeURIComponent(escapePointer(key))}`).join('')}`,
        definitions: { document: embedded },
      };
    }
    perDocument.set(node, standalone);
  }
  return standalone;
}

const standaloneSchemas = new WeakMap<object, WeakMap<object, SchemaObject>>();

/** Whether every reference under `node` and under the document's definitions names a definition. */
function refersOnlyToDefinitions(document: SchemaObject, node: SchemaObject): boolean {
  const todo: unknown[] = [node, document.$defs, document.definitions];
  const seen = new Set<object>();
  while (todo.length !== 0) {
    const value = todo.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) todo.push(item);
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (
        REFERENCE_KEYWORDS.includes(key) &&
        typeof child === 'string' &&
        !child.startsWith('#/$defs/') &&
        !child.startsWith('#/definitions/')
      ) {
        return false;
      }
      todo.push(child);
    }
  }
  return true;
}

const cache = new WeakMap<object, Map<string, CompiledSchema>>();
const booleanSchemas = new Map<string, CompiledSchema>();

/** Compiles `schema` once; later calls with the same schema object reuse the validator. */
export function compileSchema(schema: JsonSchema, options: CompileOptions = {}): CompiledSchema {
  const key = options.discriminator === undefined ? '' : JSON.stringify(options.discriminator);
  if (typeof schema === 'boolean') {
    const k = `${schema}:${key}`;
    let compiled = booleanSchemas.get(k);
    if (compiled === undefined) {
      compiled = compileUncached(schema, options);
      booleanSchemas.set(k, compiled);
    }
    return compiled;
  }
  if (!isObject(schema)) return compileUncached(schema, options);
  let perSchema = cache.get(schema);
  if (perSchema === undefined) {
    perSchema = new Map();
    cache.set(schema, perSchema);
  }
  let compiled = perSchema.get(key);
  if (compiled === undefined) {
    compiled = compileUncached(schema, options);
    perSchema.set(key, compiled);
  }
  return compiled;
}
