/**
 * Conformance of salvage with the JSON-extraction peers whose test cases are in
 * `../shared/corpora/extraction/` (nllm, LangChain Python, langchainjs, jsonrepair, and the
 * `mode: "json"` cases of TrustGraph; its JSONL cases are in `trustgraph.test.ts`).
 *
 * For every case, `extractJson` gives llmjson's answer: the peer's expected value, or the
 * answer listed in that file's `differences` with the reason (see
 * docs/decisions/006-salvage-semantics.md). Each file says whether its peer repairs near-JSON;
 * if it does, llmjson is called with `repair: true`, and the cases whose answer needs repair
 * are listed in `repaired` (every other answer is found without repair). Every case also runs
 * through `createSalvageScanner` whole and at every chunk size from 1 to 64 (and, for the
 * peers' streaming cases, in the peer's own chunks): the values and diagnostics equal
 * `extractAllJson` on the whole text.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  createSalvageScanner,
  type Diagnostic,
  extractAllJson,
  extractJson,
  type JsonSchema,
  type SalvagedValue,
  type SalvageOptions,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';
import { everyChunkSize } from '../support/chunking.js';
import { corpus } from '../support/corpora.js';

interface ExtractionCase {
  readonly name: string;
  /** `null` only for nllm's "None input" case. */
  readonly input?: string | null;
  readonly kind?: 'stream-sequence';
  readonly input_chunks?: readonly string[];
  readonly expected: unknown;
  /** jsonrepair: the repaired text (present exactly when jsonrepair returned something). */
  readonly expected_text?: string;
  /** Present when the peer raises instead of returning a value. */
  readonly expect_error?: string;
  readonly mode?: 'json' | 'jsonl';
  readonly schema?: JsonSchema;
}

/** What one call answers: nothing, or a value (and whether it needed repair). */
type Answer =
  | { readonly found: false }
  | { readonly found: true; readonly value: unknown; readonly repaired?: true }
  | { readonly throws: 'TypeError' };

const NOTHING: Answer = { found: false };

interface Difference {
  readonly answer: Answer;
  readonly why: string;
}

interface PeerFile {
  readonly file: string;
  readonly peer: string;
  /** Whether the peer repairs near-JSON; if so llmjson is called with `repair: true`. */
  readonly repair: boolean;
  readonly select?: (c: ExtractionCase) => boolean;
  /** The peer's own acceptance check for a case, written as the equivalent schema. */
  readonly checks?: Readonly<Record<string, JsonSchema>>;
  /** Cases whose (agreeing) answer is found only by repair: llmjson marks it `repaired`. */
  readonly repaired?: readonly string[];
  /** Case name → the diagnostic reasons `extractJson` reports; every other case reports none. */
  readonly diagnostics?: Readonly<Record<string, readonly string[]>>;
  /** Case name → llmjson's answer where it differs from the peer on purpose, and why. */
  readonly differences: Readonly<Record<string, Difference>>;
  /** Pinned counts: cases that agree with the peer, and cases listed in `differences`. */
  readonly agree: number;
  readonly differ: number;
}

const PEERS: readonly PeerFile[] = [
  {
    file: 'nllm.json',
    peer: 'nllm extract_json_from_text',
    // nllm returns the first candidate that parses and never repairs.
    repair: false,
    diagnostics: {
      // A block tagged json whose content yields no value.
      test_invalid_json_in_code_block: ['syntax'],
    },
    differences: {
      test_none_input: {
        answer: { throws: 'TypeError' },
        why: 'extractJson takes a string (a type error at compile time); at run time a non-string throws',
      },
    },
    agree: 19,
    differ: 1,
  },
  {
    file: 'langchain-python.json',
    peer: 'LangChain Python parse_json_markdown',
    // parse_json_markdown parses with partial-JSON repair and strict=False.
    repair: true,
    checks: {
      // parse_and_check_json_markdown(text, expected_keys=['foo']): an object with key `foo`.
      test_parse_non_dict_json_output: { type: 'object', required: ['foo'] },
    },
    repaired: [
      'test_parse_json[WITHOUT_END_BRACKET]',
      'test_parse_json[WITH_END_TEXT]',
      'test_parse_json_with_code_blocks_and_newlines',
    ],
    diagnostics: {
      // The fenced object is cut off at the end of the text, then repaired.
      'test_parse_json[WITHOUT_END_BRACKET]': ['truncated', 'recovered'],
      // The fence closes inside the object, so the block yields no value; repaired.
      'test_parse_json[WITH_END_TEXT]': ['syntax', 'recovered'],
      // Raw line breaks and a tab inside a string: not JSON as written; repaired.
      test_parse_json_with_code_blocks_and_newlines: ['syntax', 'recovered'],
      // A scalar in a fence is not a fenced value, and repair keeps only objects and arrays.
      test_parse_non_dict_json_output: ['syntax'],
    },
    differences: {},
    agree: 22,
    differ: 0,
  },
  {
    file: 'langchainjs.json',
    peer: 'langchainjs JsonOutputParser',
    // JsonOutputParser parses with partial-JSON repair, like the Python parser it ports.
    repair: true,
    differences: {},
    agree: 16,
    differ: 0,
  },
  {
    file: 'jsonrepair.json',
    peer: 'jsonrepair',
    // jsonrepair is a repair tool: its answers are what repair yields.
    repair: true,
    diagnostics: {
      // `[` is still open at the end of the text.
      'should throw an exception in case of non-repairable issues #2': ['truncated'],
    },
    differences: {
      ...Object.fromEntries(
        ['#3', '#4', '#5', '#6', '#7'].map((n) => [
          `should strip JSONP notation ${n}`,
          {
            answer: NOTHING,
            why: 'a scalar is found only as the whole text; repair keeps only objects and arrays (it turns any word into a string)',
          },
        ]),
      ),
      'should strip JSONP notation #14': {
        answer: { found: true, value: {} },
        why: 'an object embedded in prose (`callback {}`) is what salvage looks for; jsonrepair only strips a call wrapper',
      },
      'should throw an exception in case of non-repairable issues #1': {
        answer: { found: true, value: { a: 2 } },
        why: 'a valid object followed by prose is an embedded value; jsonrepair refuses text after the JSON',
      },
    },
    agree: 21,
    differ: 7,
  },
  {
    file: 'trustgraph.json',
    peer: 'TrustGraph parse_json',
    // parse_json parses strictly (no repair) and validates against the prompt's schema.
    repair: false,
    select: (c) => c.mode === 'json',
    diagnostics: {
      'TestPromptManager.test_invoke_json_validation_failure': ['schema'],
    },
    differences: {},
    agree: 5,
    differ: 0,
  },
];

/** The peer's answer: `expected`, unless the case says the peer raised or found nothing. */
function peerAnswer(c: ExtractionCase): Answer {
  if (c.expect_error !== undefined) return NOTHING;
  // `expected: null` means "no JSON found", except where jsonrepair's text is the JSON `null`.
  if (c.expected === null && c.expected_text === undefined) return NOTHING;
  return { found: true, value: c.expected };
}

/** The text the peer was given: streaming cases are the concatenation of their chunks. */
function inputOf(c: ExtractionCase): string | null {
  if (c.kind === 'stream-sequence') return (c.input_chunks ?? []).join('');
  return c.input ?? null;
}

function schemaOf(peer: PeerFile, c: ExtractionCase): JsonSchema | undefined {
  return c.schema ?? peer.checks?.[c.name];
}

function sameAnswer(a: Answer, b: Answer): boolean {
  if ('throws' in a || 'throws' in b) return 'throws' in a && 'throws' in b;
  if (!a.found || !b.found) return a.found === b.found;
  return isDeepStrictEqual(a.value, b.value);
}

interface Extracted {
  readonly answer: Answer;
  readonly result: SalvagedValue | undefined;
  readonly diagnostics: Diagnostic[];
}

/** llmjson's answer to one case, as the peer's caller would ask for it. */
function extract(peer: PeerFile, c: ExtractionCase): Extracted {
  const input = inputOf(c);
  const diagnostics: Diagnostic[] = [];
  const schema = schemaOf(peer, c);
  const options = {
    ...(schema === undefined ? {} : { schema, compileJsonSchema: compileSchema }),
    ...(peer.repair ? { repair: true } : {}),
    onDiagnostic: (d: Diagnostic) => diagnostics.push(d),
  };
  let result: SalvagedValue | undefined;
  try {
    result = extractJson(input as string, options);
  } catch (error) {
    if (input === null && error instanceof TypeError) return { answer: { throws: 'TypeError' }, result, diagnostics };
    throw error;
  }
  if (result === undefined) return { answer: NOTHING, result, diagnostics };
  return {
    answer: { found: true, value: result.value, ...(result.repaired ? { repaired: true as const } : {}) },
    result,
    diagnostics,
  };
}

/** llmjson's expected answer: the listed difference, else the peer's (marked repaired where listed). */
function ourAnswer(peer: PeerFile, c: ExtractionCase): Answer {
  const difference = peer.differences[c.name];
  if (difference !== undefined) return difference.answer;
  const answer = peerAnswer(c);
  if ('found' in answer && answer.found && peer.repaired?.includes(c.name)) return { ...answer, repaired: true };
  return answer;
}

interface Scanned {
  readonly values: SalvagedValue[];
  readonly diagnostics: Diagnostic[];
  /** For each value, how many characters had been written when it was emitted (`Infinity`: at `end()`). */
  readonly emittedAt: number[];
}

/** Feeds `chunks` to a fresh salvage scanner, then ends it. */
function scan(chunks: readonly string[], options: SalvageOptions): Scanned {
  const values: SalvagedValue[] = [];
  const diagnostics: Diagnostic[] = [];
  const emittedAt: number[] = [];
  let written = 0;
  const scanner = createSalvageScanner(options, {
    value(v) {
      values.push(v);
      emittedAt.push(written);
    },
    diagnostic(d) {
      diagnostics.push(d);
    },
  });
  for (const chunk of chunks) {
    written += chunk.length;
    scanner.write(chunk);
  }
  written = Number.POSITIVE_INFINITY;
  scanner.end();
  return { values, diagnostics, emittedAt };
}

const SOURCE_ORDER = ['document', 'fence', 'inline', 'embedded'] as const;

/**
 * The value `extractJson` prefers among all that were found: the first of the most preferred
 * source; among embedded values the first object, else the first array.
 */
function preferred(all: readonly SalvagedValue[]): SalvagedValue | undefined {
  for (const source of SOURCE_ORDER) {
    const of = all.filter((v) => v.source === source);
    const pick = source === 'embedded' ? (of.find((v) => !Array.isArray(v.value)) ?? of[0]) : of[0];
    if (pick !== undefined) return pick;
  }
  return undefined;
}

for (const peer of PEERS) {
  const file = corpus<ExtractionCase[]>(`extraction/${peer.file}`, `${peer.peer} conformance`);
  const cases = file.present ? file.load().filter(peer.select ?? (() => true)) : [];

  describe.skipIf(!file.present)(`${peer.peer} (${peer.file})`, () => {
    test('every listed difference and repaired case names a case of the corpus', () => {
      const names = new Set(cases.map((c) => c.name));
      const listed = [
        ...Object.keys(peer.differences),
        ...(peer.repaired ?? []),
        ...Object.keys(peer.checks ?? {}),
        ...Object.keys(peer.diagnostics ?? {}),
      ];
      expect(listed.filter((n) => !names.has(n))).toEqual([]);
      expect(cases.length).toBe(peer.agree + peer.differ);
    });

    test('agreement with the peer: the pinned counts', () => {
      let agree = 0;
      const differ: string[] = [];
      for (const c of cases) {
        if (sameAnswer(extract(peer, c).answer, peerAnswer(c))) agree++;
        else differ.push(c.name);
      }
      console.info(`${peer.peer} (${peer.file}): ${agree} agree, ${differ.length} differ (${differ.join('; ')})`);
      // Every listed difference really differs, and nothing else does.
      expect(differ.sort()).toEqual(Object.keys(peer.differences).sort());
      expect({ agree, differ: differ.length }).toEqual({ agree: peer.agree, differ: peer.differ });
    });

    describe.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
      const input = inputOf(c);
      const schema = schemaOf(peer, c);
      const scanOptions: SalvageOptions = schema === undefined ? {} : { schema, compileJsonSchema: compileSchema };

      test("extractJson gives llmjson's answer", () => {
        const { answer, result, diagnostics } = extract(peer, c);
        expect(answer).toEqual(ourAnswer(peer, c));
        expect(diagnostics.map((d) => d.reason)).toEqual(peer.diagnostics?.[c.name] ?? []);
        if (input === null || result === undefined) return;
        if (result.repaired) {
          // Repair only when nothing valid was found, and always reported.
          expect(extractJson(input, scanOptions)).toBeUndefined();
          expect(diagnostics.at(-1)?.reason).toBe('recovered');
          return;
        }
        // A value found without repair is the text at its offsets, and the first one in the
        // order of preference among everything `extractAllJson` finds.
        expect(JSON.parse(input.slice(result.start, result.end))).toEqual(result.value);
        const all = extractAllJson(input, scanOptions);
        expect(result).toEqual(preferred(all));
      });

      if (input === null) return;

      test('the streaming scanner finds what extractAllJson finds, whole and at every chunk size', () => {
        const diagnostics: Diagnostic[] = [];
        const all = extractAllJson(input, { ...scanOptions, onDiagnostic: (d) => diagnostics.push(d) });
        for (const v of all) expect(JSON.parse(input.slice(v.start, v.end)), `${v.start}..${v.end}`).toEqual(v.value);
        const chunkings = [...everyChunkSize(input)];
        if (c.input_chunks !== undefined) chunkings.push(["the peer's chunks", [...c.input_chunks]]);
        for (const [label, chunks] of chunkings) {
          const scanned = scan(chunks, scanOptions);
          expect(scanned.values, label).toEqual(all);
          expect(scanned.diagnostics, label).toEqual(diagnostics);
        }
      });

      if (c.input_chunks === undefined) return;
      const chunks = c.input_chunks;

      test("in the peer's chunks, the answer is emitted with the chunk that closes it", () => {
        const scanned = scan(chunks, scanOptions);
        const answer = ourAnswer(peer, c);
        const index = scanned.values.findIndex(
          (v) => 'found' in answer && answer.found && isDeepStrictEqual(v.value, answer.value),
        );
        expect(index).toBeGreaterThanOrEqual(0);
        const value = scanned.values[index] as SalvagedValue;
        // The end of the chunk holding the value's last character.
        let boundary = 0;
        for (const chunk of chunks) {
          boundary += chunk.length;
          if (boundary >= value.end) break;
        }
        expect(scanned.emittedAt[index]).toBe(boundary);
      });
    });
  });
}
