import { test as fcTest } from '@fast-check/vitest';
import { createSalvageScanner, type Diagnostic, extractAllJson, extractJson, type SalvagedValue } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { everyChunkSize, numRuns } from '../../../test/support/chunking.js';

/** Runs the scanner over `text` whole and at every chunk size 1..64; asserts they agree. */
function salvage(text: string): { values: SalvagedValue[]; diagnostics: Diagnostic[] } {
  const run = (chunks: readonly string[]) => {
    const values: SalvagedValue[] = [];
    const diagnostics: Diagnostic[] = [];
    const scanner = createSalvageScanner({}, { value: (v) => values.push(v), diagnostic: (d) => diagnostics.push(d) });
    for (const chunk of chunks) scanner.write(chunk);
    scanner.end();
    return { values, diagnostics };
  };
  const whole = run([text]);
  for (const [label, chunks] of everyChunkSize(text)) expect(run(chunks), label).toEqual(whole);
  expect(whole.values).toEqual(extractAllJson(text));
  for (const v of whole.values) {
    if ((v.source !== 'document' || typeof v.value === 'object') && v.recovered === undefined)
      expect(JSON.parse(text.slice(v.start, v.end))).toEqual(v.value);
  }
  return whole;
}

const brief = (values: SalvagedValue[]) => values.map((v) => [v.source, v.value]);

describe('salvage scanner', () => {
  test('a string document holding a bracket: the cut candidate at the bracket is neither reported nor counted', () => {
    // Found by the hostile property (seed 1298070364): the candidate at `[` was cut by the end
    // of the input and its `truncated` queued and counted, then dropped as part of the
    // document `"["` — its count stayed, so the stats said a diagnostic nobody received.
    for (const text of ['"[" ', '"{" ', '"a [b" ']) {
      const { values, diagnostics } = salvage(text);
      expect(brief(values)).toEqual([['document', JSON.parse(text)]]);
      expect(diagnostics).toEqual([]);
      const scanner = createSalvageScanner({}, { value() {}, diagnostic() {} });
      scanner.write(text);
      scanner.end();
      expect(scanner.stats.diagnostics).toEqual({});
    }
  });

  test('the whole text is a document, whatever the JSON value', () => {
    expect(brief(salvage(' {"a": 1}\n').values)).toEqual([['document', { a: 1 }]]);
    expect(brief(salvage('42').values)).toEqual([['document', 42]]);
    expect(brief(salvage('"a [1] b"').values)).toEqual([['document', 'a [1] b']]);
    expect(brief(salvage('{"a": 1} and more').values)).toEqual([['embedded', { a: 1 }]]);
    expect(brief(salvage('true story').values)).toEqual([]);
  });

  test('fenced blocks in any case and marker, each value in order; jsonl blocks yield every line', () => {
    const text = 'Intro\n```JSON\n{"a": 1}\n```\n~~~\n[2]\n~~~\n```jsonl\n{"b": 1}\n{"b": 2}\n```\n';
    const values = salvage(text).values;
    expect(values.map((v) => [v.source, v.fence, v.value])).toEqual([
      ['fence', 'json', { a: 1 }],
      ['fence', '', [2]],
      ['fence', 'jsonl', { b: 1 }],
      ['fence', 'jsonl', { b: 2 }],
    ]);
  });

  test('a fence marker inside a JSON string is not a fence', () => {
    const text = '```json\n{"code": "```python\\nprint(1)\\n```"}\n```';
    expect(brief(salvage(text).values)).toEqual([['fence', { code: '```python\nprint(1)\n```' }]]);
  });

  test('brackets inside strings do not end a candidate; stray brackets in prose are skipped', () => {
    const text = 'Note {this} and [1]: here\'s the answer {"x": "} and {", "y": [1, 2]} — done.';
    expect(brief(salvage(text).values)).toEqual([
      ['embedded', [1]],
      ['embedded', { x: '} and {', y: [1, 2] }],
    ]);
    expect(extractJson(text)?.value).toEqual({ x: '} and {', y: [1, 2] });
  });

  test('outermost valid values win; inside a broken candidate the complete ones are found', () => {
    expect(brief(salvage('x {"a": [1, {"b": 2}]} y').values)).toEqual([['embedded', { a: [1, { b: 2 }] }]]);
    expect(brief(salvage('x {"a": [1, 2], "b": {"c": 3} oops} y').values)).toEqual([
      ['embedded', [1, 2]],
      ['embedded', { c: 3 }],
    ]);
  });

  test('a candidate that started inside a broken candidate string is scanned again', () => {
    expect(brief(salvage('["x] {"a": 1} more').values)).toEqual([['embedded', { a: 1 }]]);
  });

  test('inline code spans', () => {
    const values = salvage('Call it with `{"id": 7}` or ``[1, 2]``.').values;
    expect(brief(values)).toEqual([
      ['inline', { id: 7 }],
      ['inline', [1, 2]],
    ]);
  });

  test('an answer cut off inside a fence reports the cut; complete values before it survive', () => {
    const r = salvage('```jsonl\n{"a": 1}\n{"b": 2}\n{"c": ');
    expect(brief(r.values)).toEqual([
      ['fence', { a: 1 }],
      ['fence', { b: 2 }],
    ]);
    expect(r.diagnostics.map((d) => [d.reason, d.offset])).toEqual([['truncated', 27]]);
    // Nothing inside a cut value is reported: the rest might have made it one valid value.
    const cut = salvage('```json\n[{"a": 1}, {"b": 2}, {"c": ');
    expect(cut.values).toEqual([]);
    expect(cut.diagnostics.map((d) => [d.reason, d.offset])).toEqual([['truncated', 8]]);
  });

  test('maxCandidateLength: a longer candidate is abandoned however the text is chunked', () => {
    const text = `Answer: {"text": "${'x'.repeat(50)}"} and {"ok": true}.`;
    const run = (chunks: readonly string[]) => {
      const values: SalvagedValue[] = [];
      const reasons: string[] = [];
      const scanner = createSalvageScanner(
        { maxCandidateLength: 20 },
        { value: (v) => values.push(v), diagnostic: (d) => reasons.push(d.reason) },
      );
      for (const chunk of chunks) scanner.write(chunk);
      scanner.end();
      return { values: values.map((v) => v.value), reasons };
    };
    const whole = run([text]);
    expect(whole).toEqual({ values: [{ ok: true }], reasons: ['too-long'] });
    for (const [label, chunks] of everyChunkSize(text)) expect(run(chunks), label).toEqual(whole);
  });

  test('maxCandidateLength counts a scalar document to its end, not the whitespace after it', () => {
    const run = (chunks: readonly string[]) => {
      const values: unknown[] = [];
      const scanner = createSalvageScanner(
        { maxCandidateLength: 3 },
        { value: (v) => values.push([v.value, v.source]), diagnostic: () => {} },
      );
      for (const chunk of chunks) scanner.write(chunk);
      scanner.end();
      return values;
    };
    // Exactly maxCandidateLength long, then whitespace: the document; one longer: nothing.
    for (const [text, expected] of [
      ['"k"\n', [['k', 'document']]],
      ['  123   ', [[123, 'document']]],
      ['"kk"\n', []],
      ['1234 ', []],
    ] as const) {
      for (const [label, chunks] of everyChunkSize(text))
        expect(run(chunks), `${JSON.stringify(text)} ${label}`).toEqual(expected);
    }
  });

  test('whitespace after the document is not kept: memory stays bounded however much of it streams', () => {
    for (const [document, expected] of [
      ['"k"', 'k'],
      ['123', 123],
      ['{"a": 1}', { a: 1 }],
      ['[1, 2]', [1, 2]],
    ] as const) {
      for (const comma of [false, true]) {
        const values: unknown[] = [];
        const recovered: string[] = [];
        const scanner = createSalvageScanner(
          { maxCandidateLength: 100 },
          {
            value: (v) => values.push([v.value, v.source]),
            diagnostic: (d) => recovered.push(`${d.reason} ${d.offset} ${d.message} ${d.excerpt}`),
          },
        );
        scanner.write(document);
        const spaces = ' '.repeat(100_000);
        for (let i = 0; i < 50; i++) scanner.write(i === 25 && comma ? `${spaces},` : spaces);
        // What the scanner keeps (white-box: its retained text), against 5 MB of input.
        const retained = (scanner as unknown as { retainedLength: number }).retainedLength;
        expect(retained, `${document} comma ${comma}`).toBeLessThan(5000);
        scanner.end();
        const label = `${document} comma ${comma}`;
        if (comma && typeof expected !== 'object') {
          // A comma after a scalar: the text is not a document, and holds no embedded JSON.
          expect(values, label).toEqual([]);
        } else {
          expect(values, label).toEqual([[expected, 'document']]);
          // The comma's excerpt: the 79 characters before it (spaces here), and the comma.
          const at = document.length + 26 * 100_000;
          expect(recovered, label).toEqual(
            comma
              ? [
                  `recovered ${at} a comma after the document dropped (the text was not JSON as written) ${' '.repeat(79)},`,
                ]
              : [],
          );
        }
      }
    }
  });

  test('a backtick with no closing run on its line opens no inline span', () => {
    expect(brief(salvage('A lone ` backtick, then {"stray": true}').values)).toEqual([['embedded', { stray: true }]]);
    expect(brief(salvage('Set `{"debug": true}\nand ` later.').values)).toEqual([['embedded', { debug: true }]]);
  });

  test('a JSON fence without JSON is reported', () => {
    const r = salvage('```json\nSorry, I cannot help.\n```\n');
    expect(r.values).toEqual([]);
    expect(r.diagnostics).toMatchObject([{ reason: 'syntax', offset: 0, excerpt: '```json' }]);
  });

  test('CRLF, unicode and __proto__ keys', () => {
    const text = 'Réponse :\r\n```json\r\n{"__proto__": {"x": 1}, "名前": "😀"}\r\n```\r\n';
    const [value] = salvage(text).values;
    expect(value?.source).toBe('fence');
    expect(Object.keys(value?.value as object)).toEqual(['__proto__', '名前']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  test('schema: failing values are diagnostics; extractJson picks the first that validates', () => {
    const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    const text = 'Preamble {"id": 3}. Answer:\n```json\n{"name": "Ada"}\n```';
    const diagnostics: Diagnostic[] = [];
    expect(
      extractAllJson(text, { schema, compileJsonSchema: compileSchema, onDiagnostic: (d) => diagnostics.push(d) }).map(
        (v) => v.value,
      ),
    ).toEqual([{ name: 'Ada' }]);
    expect(diagnostics.map((d) => d.reason)).toEqual(['schema']);
    expect(extractJson('{"id": 3} then {"name": "Ada"}', { schema, compileJsonSchema: compileSchema })?.value).toEqual({
      name: 'Ada',
    });
  });

  test('repair only when asked, and always reported', () => {
    const text = "Result: {'a': 1, 'b': True, // note\n 'c': None,}";
    expect(extractJson(text)).toBeUndefined();
    const diagnostics: Diagnostic[] = [];
    const repaired = extractJson(text, { repair: true, onDiagnostic: (d) => diagnostics.push(d) });
    expect(repaired).toMatchObject({ value: { a: 1, b: true, c: null }, repaired: true, source: 'embedded' });
    expect(diagnostics.map((d) => d.reason)).toEqual(['recovered']);
    // Prose is never "repaired" into an array of words; only bracketed near-JSON is.
    expect(extractJson('Sorry, I cannot help with that.\nPlease ask again.', { repair: true })).toBeUndefined();
    expect(extractJson('Config:\n{\n  "a": 1, // one\n  /* two */ "b": 2,\n}\nDone.', { repair: true })?.value).toEqual(
      {
        a: 1,
        b: 2,
      },
    );
  });

  test('pathological prose stays linear: every candidate is abandoned in a bounded number of steps', () => {
    const text = `${'[" [ '.repeat(2000)} x {"ok": true}`;
    const values: SalvagedValue[] = [];
    const scanner = createSalvageScanner({}, { value: (v) => values.push(v), diagnostic: () => {} });
    scanner.write(text);
    scanner.end();
    expect(values.map((v) => v.value)).toEqual([{ ok: true }]);
    expect(scanner.stats.characters).toBe(text.length);
  });

  const scalar = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.string({ maxLength: 6 }),
  );
  fcTest.prop([fc.array(scalar, { maxLength: 4 }), fc.constantFrom('', ' ', '\n')], { numRuns: numRuns * 5 })(
    'short flat arrays (the citation fast path) equal what JSON.parse gives',
    (array, space) => {
      const json = JSON.stringify(array, null, space === '' ? undefined : space);
      const [found] = extractAllJson(`see ${json} here`);
      const expected: unknown[] = JSON.parse(json);
      const value = found?.value as unknown[];
      expect(value).toEqual(expected);
      for (const [i, v] of value.entries()) expect(Object.is(v, expected[i])).toBe(true);
    },
  );
});
