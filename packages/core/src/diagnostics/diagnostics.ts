/**
 * Diagnostics: one shape for everything a stream skips, rejects or recovers.
 *
 * A diagnostic never travels on the value channel. Every stream reports diagnostics on a side
 * channel (a sink method, an event, a callback) and counts them by reason in its stats.
 */

/** The closed set of reasons. */
export const DiagnosticReason = {
  /** A whitespace-only line (reported only with `reportSkipped`). */
  blank: 'blank',
  /** A markdown fence line such as ```` ```json ```` (reported only with `reportSkipped`). */
  fence: 'fence',
  /** A line of text that does not start like JSON (`Here are the results:`). */
  prose: 'prose',
  /** A line that starts like JSON but is not valid JSON. */
  syntax: 'syntax',
  /** Valid JSON that the schema (or the discriminated branch) rejects. */
  schema: 'schema',
  /**
   * A value still streaming that no completion can make valid: its prefix already breaks the
   * schema (a discriminator no branch has, a key `additionalProperties: false` forbids, a
   * string past `maxLength`…). Reported at the offset where it became certain.
   */
  violation: 'violation',
  /** Input ended inside a value. */
  truncated: 'truncated',
  /** A line (or multi-line value) longer than `maxLineLength`; its text was discarded. */
  tooLong: 'too-long',
  /** A value nested deeper than `maxDepth`. */
  tooDeep: 'too-deep',
  /** Input that was accepted after a documented recovery (trailing comma, joined lines...). */
  recovered: 'recovered',
  /** A JSON `null` where the consumer cannot receive one (Node object-mode streams). */
  nullValue: 'null-value',
  /** A model server's stream: the provider sent an error event; the answer stops there. */
  providerError: 'provider-error',
  /** A model server's stream: an event (or a whole format) the decoder does not know; ignored. */
  unrecognized: 'unrecognized',
  /** Bytes that are not valid UTF-8: decoded as U+FFFD (the text is kept), reported once per line or value. */
  encoding: 'encoding',
} as const;

export type DiagnosticReason = (typeof DiagnosticReason)[keyof typeof DiagnosticReason];

/**
 * One validation error, as reported by the JSON Schema validator (or a Standard Schema's vendor).
 *
 * A value's errors are capped at MAX_SCHEMA_ERRORS: when a validator reports more, the list holds
 * the first MAX_SCHEMA_ERRORS and then one last entry whose `keyword` is `errors-omitted`
 * (ERRORS_OMITTED_KEYWORD), whose `params.omitted` is how many were left out, so that one value
 * with 100 000 extra keys is not 100 000 errors in a diagnostic.
 */
export interface SchemaError {
  /** JSON pointer to the offending part of the value (`/sections/0/start_line`, `` for the root). */
  readonly path: string;
  /** The schema keyword that failed (`type`, `required`, `const`...). */
  readonly keyword: string;
  /** Human message from the validator (`must be integer`). */
  readonly message: string;
  /** JSON pointer into the schema. */
  readonly schemaPath: string;
  /** Keyword parameters (`{ missingProperty: "id" }`). */
  readonly params: Readonly<Record<string, unknown>>;
}

export interface Diagnostic {
  readonly reason: DiagnosticReason;
  /** 1-based line number where the reported text starts (line-based streams). */
  readonly line?: number;
  /** Last line of a report that spans several lines. */
  readonly endLine?: number;
  /** Offset in UTF-16 code units from the start of the decoded text to the reported position. */
  readonly offset: number;
  /** 0-based column (UTF-16 code units) of the reported position within its line. */
  readonly column?: number;
  /** A short piece of the input around the reported position. */
  readonly excerpt: string;
  /** One sentence saying what is wrong (or what was recovered). */
  readonly message: string;
  /**
   * Validator errors, for `schema`: at most MAX_SCHEMA_ERRORS, then (when the validator reported
   * more) one last entry with keyword `errors-omitted` whose `params.omitted` counts the rest.
   */
  readonly errors?: readonly SchemaError[];
  /** Discriminator value of the branch the value was validated against. */
  readonly branch?: string;
  /** `violation`, and `recovered` by coercion: JSON Pointer of the part of the value concerned. */
  readonly path?: string;
  /**
   * `violation`: the schema rule broken (`enum`, `const`, `type`, `additionalProperties`,
   * `maxLength`…); `recovered` by coercion: the coercion applied (`string-to-number`…).
   */
  readonly rule?: string;
  /**
   * Tool-call streams (tool-calls.ts): the call the diagnostic is about; `offset` then counts
   * from the start of that call's arguments.
   */
  readonly toolCall?: { readonly index: number; readonly id?: string; readonly name?: string };
}

/** What an `encoding` diagnostic says, from whichever unit finds the bytes. */
export const INVALID_ENCODING_MESSAGE = 'bytes that are not UTF-8 were decoded as U+FFFD (the replacement character)';

/**
 * Most validator errors one value's result (and so one diagnostic) carries; the rest are counted
 * in a final `errors-omitted` entry (see SchemaError).
 */
export const MAX_SCHEMA_ERRORS = 20;

/** The `keyword` of the final entry that counts the errors left out past MAX_SCHEMA_ERRORS. */
export const ERRORS_OMITTED_KEYWORD = 'errors-omitted';

/**
 * The first MAX_SCHEMA_ERRORS of `errors`, each made a SchemaError by `convert` (which only
 * runs on those kept), followed by the `errors-omitted` entry when some were left out.
 */
export function capSchemaErrors<T>(
  errors: readonly T[],
  convert: (error: T, index: number) => SchemaError,
): SchemaError[] {
  const kept = Math.min(errors.length, MAX_SCHEMA_ERRORS);
  const out: SchemaError[] = [];
  for (let i = 0; i < kept; i++) out.push(convert(errors[i] as T, i));
  const omitted = errors.length - kept;
  if (omitted > 0) out.push(errorsOmitted(omitted));
  return out;
}

/** The final entry of a capped list: `omitted` errors left out. */
export function errorsOmitted(omitted: number): SchemaError {
  return {
    path: '',
    keyword: ERRORS_OMITTED_KEYWORD,
    message: `${omitted} more error${omitted === 1 ? '' : 's'} left out (at most ${MAX_SCHEMA_ERRORS} are kept per value)`,
    schemaPath: '',
    params: { omitted },
  };
}

/**
 * A value from the wire (an event, a change) as text for a message, never throwing: a string as
 * itself, anything else as its JSON when it has one, else by `String`, and by its kind when even
 * that throws (a cycle whose members' `toString` is not a function, a throwing `toJSON` or
 * getter). Not cut: quote it with `quoteInput` or `excerptAround`.
 */
export function textOfValue(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // No JSON form (a cycle, a BigInt, a throwing toJSON): String below.
  }
  try {
    return String(value);
  } catch {
    const kind = Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
    return `(${kind} that cannot be shown as text)`;
  }
}

/** Longest piece of user input (a schema reference, a path, a pattern) quoted in a message, in characters. */
export const MAX_QUOTED_LENGTH = 200;

/**
 * `text` as a message may quote it: at most `MAX_QUOTED_LENGTH` characters, cut between
 * characters and marked with an ellipsis and the full length, so that a hostile input cannot
 * turn one error message into megabytes.
 */
export function quoteInput(text: string, max = MAX_QUOTED_LENGTH): string {
  if (text.length <= max) return text;
  let end = max;
  if (isLowSurrogate(text.charCodeAt(end))) end--;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

const EXCERPT_BEFORE = 24;
const EXCERPT_LENGTH = 80;

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** A short excerpt of `text` around `column`, with ellipses where it was cut. */
export function excerptAround(text: string, column = 0): string {
  if (text.length <= EXCERPT_LENGTH) return text;
  let start = Math.max(0, Math.min(column - EXCERPT_BEFORE, text.length - EXCERPT_LENGTH));
  let end = start + EXCERPT_LENGTH;
  // Never cut a surrogate pair: an excerpt starts and ends between characters.
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}
