/**
 * Arbitraries of realistic JSONL answers as a model writes them: object lines with unicode
 * strings (astral characters, escapes, `__proto__` keys), blank lines, fence lines, prose,
 * broken lines, trailing commas, pretty-printed objects, arrays written one element per line,
 * LF or CRLF line ends.
 *
 * JSON is generated as text (not through a JS object), so duplicate keys and `__proto__` keys
 * reach the decoder exactly as written.
 *
 * Every line kind is "cut-safe": no proper prefix of a line is a complete JSON value that the
 * whole line does not also yield. Top-level bare numbers are left out (the one documented
 * exception to "truncation yields a prefix": `12` cut to `1` is a complete number), and broken
 * lines fail inside their value, never after a complete one (`{"a":1} x` is not generated).
 */
import fc from 'fast-check';

/** Keys a hostile or careless model may write. */
export const hostileKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'] as const;

/** Writes `s` as a JSON string literal; `escapeAll` writes every non-ASCII unit and `/` as escapes. */
export function jsonStringLiteral(s: string, escapeAll: boolean): string {
  const plain = JSON.stringify(s);
  if (!escapeAll) return plain;
  let out = '';
  for (let i = 0; i < plain.length; i++) {
    const c = plain.charCodeAt(i);
    if (c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (c === 0x2f) out += '\\/';
    else out += plain[i];
  }
  return out;
}

/** Short strings over all of Unicode (astral characters included). */
const unicodeString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom(
    '',
    'cat',
    'naïve café',
    '𝄞 music',
    '😀👍🏽',
    'line\nbreak',
    'tab\there',
    'quote "q" \\ back',
    '\u2028',
  ),
);

export const stringLiteral: fc.Arbitrary<string> = fc
  .tuple(unicodeString, fc.boolean())
  .map(([s, escapeAll]) => jsonStringLiteral(s, escapeAll));

const keyLiteral: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: stringLiteral },
  { weight: 1, arbitrary: fc.constantFrom(...hostileKeys).map((k) => JSON.stringify(k)) },
  { weight: 2, arbitrary: fc.constantFrom('type', 'entity', 'definition', 'id').map((k) => JSON.stringify(k)) },
);

export const numberLiteral: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.constantFrom('0', '-0', '1e5', '1E-2', '-12.5e+3', '0.000001', '123456789012345678901234567890'),
);

/** Separators between tokens: compact, spaced, or tabbed. */
const separator = fc.constantFrom('', ' ', '\t');

/** JSON text on one line (no raw line break): any value, nested up to a small depth. */
export const jsonValueText: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string; array: string }>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      stringLiteral,
      numberLiteral,
      fc.constantFrom('true', 'false', 'null'),
      tie('array'),
      tie('object'),
    ),
    array: fc
      .tuple(fc.array(tie('value'), { maxLength: 4 }), separator)
      .map(([items, sep]) => `[${items.join(`,${sep}`)}]`),
    object: fc
      .tuple(fc.array(fc.tuple(keyLiteral, tie('value')), { maxLength: 4 }), separator)
      .map(([entries, sep]) => `{${entries.map(([k, v]) => `${k}:${sep}${v}`).join(`,${sep}`)}}`),
  }),
).value;

/** A JSON object on one line, with at least one entry. */
export const objectText: fc.Arbitrary<string> = fc
  .tuple(fc.array(fc.tuple(keyLiteral, jsonValueText), { minLength: 1, maxLength: 5 }), separator)
  .map(([entries, sep]) => `{${entries.map(([k, v]) => `${k}:${sep}${v}`).join(`,${sep}`)}}`);

/** Leading and trailing whitespace a line may carry. */
const padding = fc.constantFrom('', '', '', ' ', '  ', '\t');

/** One logical item of an answer: one or more lines (without line ends). */
export type AnswerItem = readonly string[];

const objectLine = fc.tuple(padding, objectText, padding).map(([a, o, b]): AnswerItem => [`${a}${o}${b}`]);

/** Top-level values other than objects; never a bare number (see the file comment). */
const otherValueLine = fc
  .oneof(
    stringLiteral,
    fc.constantFrom('true', 'false', 'null', '[]', '{}'),
    jsonValueText.map((v) => `[${v}]`),
  )
  .map((v): AnswerItem => [v]);

const blankLine = fc.constantFrom('', ' ', '\t', '   ').map((l): AnswerItem => [l]);

const fenceLine = fc.constantFrom('```', '```json', '```jsonl', '```JSON', '~~~', '  ```').map((l): AnswerItem => [l]);

const proseLine = fc
  .constantFrom(
    'Here are the results:',
    'Sure! Here is the JSONL you asked for.',
    'Done.',
    'Note: some entries were omitted',
    'true story: this is prose',
    'Ünïcödé prose with 𝄞 and 😀',
  )
  .map((l): AnswerItem => [l]);

/** Lines that are not JSON and fail inside their value (none has a complete value as a prefix). */
const brokenLine = fc
  .constantFrom(
    '{"a" 1}',
    "{'a': 1}",
    '{"a": tru}',
    '{a: 1}',
    '[1, 2,, 3]',
    '{"a": 01}',
    '{"a": "x\\q"}',
    '{"a": 1,}',
    '{"a": NaN}',
    '{"a": 1]',
    '{"entity": "dog", "defi',
    '{"a": [1, 2',
    '- a bullet point',
    '"unterminated',
    '{"a": "tab\there"}',
  )
  .map((l): AnswerItem => [l]);

const trailingCommaLine = fc
  .tuple(objectText, fc.constantFrom(',', ' ,', ', '))
  .map(([o, comma]): AnswerItem => [`${o}${comma}`]);

/** An object pretty-printed over several lines (the first line is `{` alone). */
const prettyObject = fc
  .tuple(objectText, fc.constantFrom<string | number>(2, 4, '\t'))
  .map(([o, indent]): AnswerItem => JSON.stringify(JSON.parse(o), null, indent).split('\n'));

/** `[`, one element per line with trailing commas (the last one optional), `]`. */
const arrayBlock = fc
  .tuple(
    fc.array(
      fc.oneof(
        { weight: 4, arbitrary: objectText.map((o) => [o]) },
        { weight: 1, arbitrary: stringLiteral.map((s) => [s]) },
        { weight: 1, arbitrary: prettyObject },
      ),
      { minLength: 1, maxLength: 4 },
    ),
    fc.boolean(),
    fc.constantFrom('', '  '),
  )
  .map(([elements, lastComma, indent]): AnswerItem => {
    const lines = ['['];
    elements.forEach((element, i) => {
      const comma = i < elements.length - 1 || lastComma ? ',' : '';
      element.forEach((line, j) => {
        lines.push(`${indent}${line}${j === element.length - 1 ? comma : ''}`);
      });
    });
    lines.push(']');
    return lines;
  });

export interface AnswerOptions {
  /** Include pretty-printed objects, array blocks and broken lines (recoveries). Default true. */
  readonly recoveries?: boolean;
  /** Make recoveries (array blocks, pretty-printed objects, broken lines) the common case. Default false. */
  readonly recoveryHeavy?: boolean;
}

export const answerItem = (options: AnswerOptions = {}): fc.Arbitrary<AnswerItem> =>
  options.recoveries === false
    ? fc.oneof(
        { weight: 8, arbitrary: objectLine },
        { weight: 2, arbitrary: otherValueLine },
        { weight: 2, arbitrary: blankLine },
        { weight: 1, arbitrary: fenceLine },
        { weight: 1, arbitrary: proseLine },
      )
    : fc.oneof(
        { weight: 8, arbitrary: objectLine },
        { weight: 2, arbitrary: otherValueLine },
        { weight: 2, arbitrary: blankLine },
        { weight: 1, arbitrary: fenceLine },
        { weight: 1, arbitrary: proseLine },
        { weight: options.recoveryHeavy === true ? 6 : 2, arbitrary: brokenLine },
        { weight: 2, arbitrary: trailingCommaLine },
        { weight: options.recoveryHeavy === true ? 8 : 2, arbitrary: prettyObject },
        { weight: options.recoveryHeavy === true ? 8 : 1, arbitrary: arrayBlock },
      );

export interface JsonlAnswer {
  /** The whole answer text. */
  readonly text: string;
  /** Its lines, without line ends (a trailing `\r` of a CRLF end removed). */
  readonly lines: readonly string[];
}

/** A whole answer: items joined by LF, CRLF or a mix, with or without a final line end. */
export const jsonlAnswer = (options: AnswerOptions = {}): fc.Arbitrary<JsonlAnswer> =>
  fc
    .tuple(
      fc.array(answerItem(options), { maxLength: 12 }),
      fc.constantFrom('lf', 'crlf', 'mixed'),
      fc.integer({ min: 0, max: 0x7fffffff }),
      fc.boolean(),
    )
    .map(([items, eol, mix, finalEol]): JsonlAnswer => {
      const lines = items.flat();
      let text = '';
      lines.forEach((line, i) => {
        const crlf = eol === 'crlf' || (eol === 'mixed' && ((mix >> (i % 31)) & 1) === 1);
        const end = crlf ? '\r\n' : '\n';
        text += line;
        if (i < lines.length - 1 || finalEol) text += end;
      });
      return { text, lines };
    });

/** The lines of `text` as the decoder frames them: split at `\n`, one trailing `\r` dropped. */
export function framedLines(text: string): { text: string; offset: number }[] {
  const out: { text: string; offset: number }[] = [];
  let offset = 0;
  for (;;) {
    const nl = text.indexOf('\n', offset);
    if (nl === -1) break;
    out.push({ text: text.slice(offset, nl).replace(/\r$/, ''), offset });
    offset = nl + 1;
  }
  if (offset < text.length) out.push({ text: text.slice(offset).replace(/\r$/, ''), offset });
  return out;
}
