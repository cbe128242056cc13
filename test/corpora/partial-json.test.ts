/**
 * Conformance of the partial-value builder with other partial-JSON libraries' own test cases
 * (shared/corpora/partial-json/, one file per peer). The peers disagree with one another, so
 * each file is compared on its own terms, and every case where llmjson answers differently is
 * listed in that file's `differences` map with llmjson's answer and the reason
 * (docs/decisions/008-partial-values.md).
 *
 * What is compared, per case kind:
 * - `single` (and each prefix of a `prefix-sequence`): llmjson's value after `end()`, with its
 *   diagnostics. A peer's expected value agrees when it equals the snapshot; a peer's error
 *   agrees when llmjson reports a diagnostic (it does not accept the text as a complete
 *   document). The same answer must come out at every chunk size.
 * - `stream-sequence`: the snapshots delivered (one per write that changed something, equal
 *   consecutive ones merged), fed in the peer's chunks, against the peer's `expected_values`.
 * - `final-value` (jsonriver, strict): fed one character at a time; an expected value agrees
 *   when it is the final snapshot with no diagnostic, an expected error when a diagnostic is
 *   reported.
 * - `roundtrip` (jsonriver): `JSON.stringify(value, null, indent)` for indents 0, 1, 2 at every
 *   chunk size must give back `value` with no diagnostic.
 */
import { isDeepStrictEqual } from 'node:util';
import { createPartialBuilder, type Diagnostic } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { chunkText, everyChunkSize } from '../support/chunking.js';
import { corpus } from '../support/corpora.js';

interface PeerCase {
  readonly kind: 'single' | 'stream-sequence' | 'prefix-sequence' | 'final-value' | 'roundtrip';
  readonly name: string;
  readonly input?: string | null;
  readonly input_chunks?: string[];
  readonly chunk_size?: number;
  readonly expected?: unknown;
  readonly expected_value?: unknown;
  readonly expected_special?: string;
  readonly expect_error?: boolean | string;
  readonly expected_values?: unknown[];
  readonly expected_per_prefix?: { prefix_length: number; expected: unknown }[];
  readonly value?: unknown;
}

/** llmjson's answer for one text: the final snapshot (absent when none) and the diagnostics. */
interface Answer {
  readonly value?: unknown;
  readonly diagnostics: string[];
}

interface Run {
  readonly snapshots: unknown[];
  readonly answer: Answer;
}

function build(chunks: readonly string[]): Run {
  const snapshots: unknown[] = [];
  const diagnostics: Diagnostic[] = [];
  const builder = createPartialBuilder(
    {},
    { update: (value) => snapshots.push(value), diagnostic: (d) => diagnostics.push(d) },
  );
  for (const chunk of chunks) builder.write(chunk);
  builder.end();
  const reasons = diagnostics.map((d) => d.reason);
  const answer: Answer =
    builder.value === undefined ? { diagnostics: reasons } : { value: builder.value, diagnostics: reasons };
  return { snapshots, answer };
}

/** The answer for a whole text, checked to be the same at every chunk size. */
function answerFor(text: string): Answer {
  const whole = build([text]).answer;
  for (const [label, chunks] of everyChunkSize(text)) {
    expect(build(chunks).answer, label).toEqual(whole);
  }
  return whole;
}

/** A peer's expected outcome: a value, or an error. */
type PeerAnswer = { readonly value: unknown } | { readonly error: true };

function agrees(ours: Answer, peer: PeerAnswer): boolean {
  if ('error' in peer) return ours.diagnostics.length > 0;
  if (peer.value === undefined) return !('value' in ours);
  return 'value' in ours && isDeepStrictEqual(ours.value, peer.value);
}

/** One comparison: a case, or a prefix of a `prefix-sequence` case (named `case @length`). */
interface Comparison {
  readonly name: string;
  readonly ours: unknown;
  readonly agree: boolean;
}

type Compare = (c: PeerCase) => Comparison[];

function single(peer: (c: PeerCase) => PeerAnswer): Compare {
  return (c) => {
    if (c.kind === 'prefix-sequence') {
      return (c.expected_per_prefix ?? []).map(({ prefix_length, expected }) => {
        const ours = answerFor((c.input ?? '').slice(0, prefix_length));
        return { name: `${c.name} @${prefix_length}`, ours, agree: agrees(ours, { value: expected }) };
      });
    }
    if (c.kind === 'stream-sequence') {
      const chunks = c.input_chunks ?? chunkText(c.input ?? '', c.chunk_size ?? 1);
      // The peers emit a value only when it changed; llmjson also delivers a snapshot when
      // only a `complete` change happened, so equal consecutive snapshots are merged.
      const ours = build(chunks).snapshots.filter((v, i, all) => i === 0 || !isDeepStrictEqual(v, all[i - 1]));
      return [{ name: c.name, ours, agree: isDeepStrictEqual(ours, c.expected_values) }];
    }
    if (c.kind === 'final-value') {
      const ours = build(chunkText(c.input ?? '', 1)).answer;
      const agree = c.expect_error
        ? ours.diagnostics.length > 0
        : ours.diagnostics.length === 0 && isDeepStrictEqual(ours.value, c.expected);
      return [{ name: c.name, ours, agree }];
    }
    if (c.kind === 'roundtrip') {
      const outcomes = [0, 1, 2].flatMap((indent) =>
        [...everyChunkSize(JSON.stringify(c.value, null, indent))].map(([, chunks]) => build(chunks).answer),
      );
      const ours = outcomes[0] as Answer;
      for (const outcome of outcomes) expect(outcome).toEqual(ours);
      return [{ name: c.name, ours, agree: ours.diagnostics.length === 0 && isDeepStrictEqual(ours.value, c.value) }];
    }
    const ours = c.input === null || c.input === undefined ? build([]).answer : answerFor(c.input);
    return [{ name: c.name, ours, agree: agrees(ours, peer(c)) }];
  };
}

/** The peer's expected value or error for a `single` case, per file format. */
const expectedValue = (c: PeerCase): PeerAnswer =>
  c.expect_error ? { error: true } : c.expected_special ? { value: c.expected_special } : { value: c.expected };

interface PeerFile {
  readonly file: string;
  readonly compare: Compare;
  /** Case name -> llmjson's answer and why it differs from the peer's. */
  readonly differences: Record<string, { ours: unknown; why: string }>;
  readonly agree: number;
  readonly differ: number;
}

const files: PeerFile[] = [
  {
    file: 'ai-sdk-fix-json.json',
    // fixJson's repaired text is compared through its JSON.parse (`expected_value`); `""`
    // (nothing repairable) is no value.
    compare: single((c) => ({ value: c.expected === '' ? undefined : c.expected_value })),
    differences: {
      'literals > should handle incomplete null': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'literals > should handle incomplete true': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'literals > should handle incomplete false': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'number > should handle incomplete numbers #1': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'number > should handle e-notation numbers #1': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'number > should handle uppercase e-notation numbers #2': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'number > should handle incomplete numbers #3': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'array > should handle closing bracket after literal in array': {
        ours: { value: [[false], []], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'array > should handle closing array': {
        ours: { value: [[]], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'object > should handle closing brace after number in object': {
        ours: { value: { a: { b: 1 }, c: {} }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'object > should handle closing brace after string in object': {
        ours: { value: { a: { b: '1' }, c: {} }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'object > should handle closing brace after literal in object': {
        ours: { value: { a: { b: false }, c: {} }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'object > should handle closing brace after object in object': {
        ours: { value: { a: { b: {} }, c: {} }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'number > should handle e-notation numbers #2': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'number > should handle uppercase e-notation numbers #1': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'number > should handle incomplete numbers #2': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'number > should handle incomplete numbers #4': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'array > should handle closing bracket after number in array': {
        ours: { value: [[1], []], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'object > should handle closing brace after array in object': {
        ours: { value: { a: { b: [] }, c: {} }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
    },
    agree: 41,
    differ: 19,
  },
  {
    file: 'ai-sdk-parse-partial-json.json',
    // parsePartialJson's `{value, state}`: the value is compared; a missing value is no value.
    compare: single((c) => ({ value: (c.expected as { value?: unknown }).value })),
    differences: {},
    agree: 4,
    differ: 0,
  },
  {
    file: 'promplate.json',
    compare: single(expectedValue),
    differences: {
      'tests/examples.test.js > singletons #3': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'tests/examples.test.js > singletons #5': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'tests/examples.test.js > singletons #7': {
        ours: { diagnostics: ['truncated'] },
        why: 'not JSON (the peer reads Infinity/NaN): a word that is not a JSON value is prose, so no value (truncated)',
      },
      'tests/examples.test.js > singletons #9': {
        ours: { diagnostics: ['truncated'] },
        why: 'not JSON (the peer reads Infinity/NaN): a word that is not a JSON value is prose, so no value (truncated)',
      },
      'tests/examples.test.js > num #4': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'README: -Inf': {
        ours: { diagnostics: ['truncated'] },
        why: 'not JSON (the peer reads Infinity/NaN): a word that is not a JSON value is prose, so no value (truncated)',
      },
      'tests/examples.test.js > arr #1': {
        ours: { value: [''], diagnostics: ['truncated'] },
        why: "partial strings and objects are always shown; the peer's Allow flags hide them in this case",
      },
      'tests/examples.test.js > obj #1': {
        ours: { value: { '': '' }, diagnostics: ['truncated'] },
        why: "partial strings and objects are always shown; the peer's Allow flags hide them in this case",
      },
      'tests/examples.test.js > singletons #1': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'tests/examples.test.js > singletons #11': {
        ours: { diagnostics: ['truncated'] },
        why: 'not JSON (the peer reads Infinity/NaN): a word that is not a JSON value is prose, so no value (truncated)',
      },
      'tests/examples.test.js > num #3': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'README: OBJ only, partial string dropped': {
        ours: { value: { key: 'v' }, diagnostics: ['truncated'] },
        why: "partial strings and objects are always shown; the peer's Allow flags hide them in this case",
      },
      'src/options.ts doc: Allow.ARR': {
        ours: { value: [{ a: 1, b: 2 }, { a: 3 }], diagnostics: ['truncated'] },
        why: "partial strings and objects are always shown; the peer's Allow flags hide them in this case",
      },
      'src/options.ts doc: ~Allow.OBJ': {
        ours: { value: [{ a: 1, b: 2 }, { a: 3 }], diagnostics: ['truncated'] },
        why: "partial strings and objects are always shown; the peer's Allow flags hide them in this case",
      },
      'src/options.ts doc: ~Allow.STR': {
        ours: { value: ['complete string', 'incompl'], diagnostics: ['truncated'] },
        why: "partial strings and objects are always shown; the peer's Allow flags hide them in this case",
      },
    },
    agree: 28,
    differ: 15,
  },
  {
    file: 'jsonriver.json',
    compare: single(expectedValue),
    differences: {
      'invalid: multiple top-level values': {
        ours: { value: { a: 1 }, diagnostics: [] },
        why: 'text after the complete document is ignored (LLM output trails prose), so no error',
      },
      'invalid: extra bracket': {
        ours: { value: [1, 2], diagnostics: [] },
        why: 'text after the complete document is ignored (LLM output trails prose), so no error',
      },
      'invalid: trailing characters': {
        ours: { value: [true, false], diagnostics: [] },
        why: 'text after the complete document is ignored (LLM output trails prose), so no error',
      },
    },
    agree: 74,
    differ: 3,
  },
  {
    file: 'langchainjs.json',
    compare: single(expectedValue),
    differences: {
      'array #2': {
        ours: { value: [], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'array #3': {
        ours: { value: [], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'array #4': {
        ours: { value: [], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'array #6': {
        ours: { value: [], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'array #9': {
        ours: { value: [null], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'array #15': {
        ours: { value: [null, {}], diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'strings #5': {
        ours: { value: '15', diagnostics: ['truncated'] },
        why: 'an unfinished escape at the cut is held back until complete: strings only grow, and the escape is not yet a character',
      },
      'strings #13': {
        ours: { value: 'hello', diagnostics: ['truncated'] },
        why: 'an unfinished escape at the cut is held back until complete: strings only grow, and the escape is not yet a character',
      },
      'strings #20': {
        ours: { value: '\u00f8', diagnostics: ['truncated'] },
        why: 'an unfinished escape at the cut is held back until complete: strings only grow, and the escape is not yet a character',
      },
      'numbers #13': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'null values #3': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'boolean values #1': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'boolean values #2': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'boolean values #3': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'boolean values #4': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'boolean values #5': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'boolean values #6': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'boolean values #7': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'malformed JSON - trailing content after valid JSON #2': {
        ours: { value: [1], diagnostics: [] },
        why: 'text after the complete document is ignored (LLM output trails prose), so no error',
      },
      'malformed JSON - multiple root values #2': {
        ours: { value: { a: 1 }, diagnostics: [] },
        why: 'text after the complete document is ignored (LLM output trails prose), so no error',
      },
      'strings #6': {
        ours: { value: '15', diagnostics: ['truncated'] },
        why: 'an unfinished escape at the cut is held back until complete: strings only grow, and the escape is not yet a character',
      },
      'strings #7': {
        ours: { value: '15', diagnostics: ['truncated'] },
        why: 'an unfinished escape at the cut is held back until complete: strings only grow, and the escape is not yet a character',
      },
      'numbers #4': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'numbers #7': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'numbers #10': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'numbers #16': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'null values #1': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'null values #2': {
        ours: { diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'malformed JSON - trailing content after valid JSON #1': {
        ours: { value: { a: 1 }, diagnostics: [] },
        why: 'text after the complete document is ignored (LLM output trails prose), so no error',
      },
      'malformed JSON - multiple root values #3': {
        ours: { value: [1], diagnostics: [] },
        why: 'text after the complete document is ignored (LLM output trails prose), so no error',
      },
      'kitchen sink of partial json parsing @21': {
        ours: { value: { array: ['hello'] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @22': {
        ours: { value: { array: ['hello'] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @23': {
        ours: { value: { array: ['hello'] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @27': {
        ours: { value: { array: ['hello', null] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @28': {
        ours: { value: { array: ['hello', null] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @29': {
        ours: { value: { array: ['hello', null] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @30': {
        ours: { value: { array: ['hello', null] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @34': {
        ours: { value: { array: ['hello', null, false] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @35': {
        ours: { value: { array: ['hello', null, false] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @36': {
        ours: { value: { array: ['hello', null, false] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @40': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @41': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @42': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @43': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @44': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @45': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @46': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @47': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @48': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @49': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @50': {
        ours: { value: { array: ['hello', null, false, true] }, diagnostics: ['truncated'] },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @93': {
        ours: {
          value: { array: ['hello', null, false, true, 12345678910], object: { string: 'string' } },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @94': {
        ours: {
          value: { array: ['hello', null, false, true, 12345678910], object: { string: 'string' } },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @95': {
        ours: {
          value: { array: ['hello', null, false, true, 12345678910], object: { string: 'string' } },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @108': {
        ours: {
          value: { array: ['hello', null, false, true, 12345678910], object: { string: 'string', null: null } },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @109': {
        ours: {
          value: { array: ['hello', null, false, true, 12345678910], object: { string: 'string', null: null } },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @110': {
        ours: {
          value: { array: ['hello', null, false, true, 12345678910], object: { string: 'string', null: null } },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @111': {
        ours: {
          value: { array: ['hello', null, false, true, 12345678910], object: { string: 'string', null: null } },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @123': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @124': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @125': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @139': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @140': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @141': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @142': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @143': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @144': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @145': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @146': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @147': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @148': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @149': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true },
          },
          diagnostics: ['truncated'],
        },
        why: 'an unfinished number or literal at the cut is not shown: scalars appear only once complete',
      },
      'kitchen sink of partial json parsing @166': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true, number: 12345678910 },
            long: 'very ',
          },
          diagnostics: ['truncated'],
        },
        why: 'the partial string is kept exactly; the peer trims its trailing whitespace',
      },
      'kitchen sink of partial json parsing @171': {
        ours: {
          value: {
            array: ['hello', null, false, true, 12345678910],
            object: { string: 'string', null: null, false: false, true: true, number: 12345678910 },
            long: 'very long ',
          },
          diagnostics: ['truncated'],
        },
        why: 'the partial string is kept exactly; the peer trims its trailing whitespace',
      },
      'malformed JSON - trailing content after valid JSON #3': {
        ours: { value: 'hello', diagnostics: [] },
        why: 'text after the complete document is ignored (LLM output trails prose), so no error',
      },
    },
    agree: 277,
    differ: 75,
  },
  { file: 'langchain-python.json', compare: single(expectedValue), differences: {}, agree: 10, differ: 0 },
];

for (const peerFile of files) {
  const data = corpus<PeerCase[]>(`partial-json/${peerFile.file}`, `partial-json ${peerFile.file}`);
  describe.skipIf(!data.present)(peerFile.file, () => {
    test('every case agrees with the peer or is a listed difference', () => {
      const cases = data.load();
      const comparisons = cases.flatMap((c) => peerFile.compare(c));
      const names = new Set(comparisons.map((r) => r.name));
      expect(names.size, 'case names are unique').toBe(comparisons.length);
      for (const name of Object.keys(peerFile.differences)) expect(names.has(name), `listed: ${name}`).toBe(true);
      for (const r of comparisons) {
        const listed = peerFile.differences[r.name];
        if (listed) {
          expect(r.agree, `${r.name} is listed as a difference`).toBe(false);
          expect(r.ours, r.name).toEqual(listed.ours);
        } else {
          expect(r.agree, `${r.name}: ${JSON.stringify(r.ours)}`).toBe(true);
        }
      }
      const agree = comparisons.filter((r) => r.agree).length;
      const differ = comparisons.length - agree;
      console.log(`${peerFile.file}: ${agree} agree, ${differ} differ (of ${comparisons.length})`);
      expect({ agree, differ }).toEqual({ agree: peerFile.agree, differ: peerFile.differ });
    });
  });
}
