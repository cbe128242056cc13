/**
 * Prefix validation's cost: the partial builder on the partial scenario's document (4-character
 * deltas), with the same JSON Schema — types, `additionalProperties: false`, `maxLength` on every
 * string (the per-character path), `maxItems`, numeric bounds — once with prefix checks (the
 * default) and once with `prefixCheck: false`. Both validate completed subtrees and the document
 * with ajv, so the ratio is what prefix checking adds to a schema-checked stream. Target: ≤ 1.3×.
 *
 * And the JSONL decoder on the benchmark matrix's short-line answer (the 3-branch discriminated
 * union, every branch strict, `"type"` first) in 4-character chunks, with `prefixCheck: true`
 * (each line checked while it streams) against the default (each line checked when complete).
 * Both validate every line with ajv. Target: ≤ 1.3×.
 *
 * And the element scanner on a JSON array of the same union's objects (elements of about 200
 * bytes) in 4-character chunks, with `prefixCheck: true` (each element checked while it streams)
 * against `prefixCheck: false` (each element checked when complete). Both validate every
 * element with ajv. Target: ≤ 1.3×, which decides whether the scanner checks prefixes by default.
 */

import {
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  elementPrefixCheck,
  type JsonSchema,
  linePrefixCheck,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { createJsonlStream } from '@llmjson/node';
import { drive, type Entrant, Layer } from '../entrants.js';
import { compare, fastestOf, ratio } from '../harness.js';
import { charChunks, jsonlAnswer, partialDocument, triadObjects, triadSchema } from '../inputs.js';
import { formatRatio, formatSize, formatSpread } from '../report.js';
import type { Case, Scenario, Table, TargetResult } from '../scenario.js';

const FULL_SIZES = [10_000, 100_000];
const QUICK_SIZES = [10_000];
const CHUNK = 4;
const TARGET = 1.3;
const ON = 'llmjson createPartialBuilder, schema, prefix checks on (default)';
const OFF = 'llmjson createPartialBuilder, schema, prefixCheck: false';
const JSONL_FULL_SIZES = [100_000];
const JSONL_QUICK_SIZES = [10_000];
const JSONL_ON = 'llmjson createJsonlDecoder, schema, prefixCheck: true';
const JSONL_OFF = 'llmjson createJsonlDecoder, schema, prefixCheck: false (default)';
const STREAM_ON =
  'llmjson createJsonlStream (Node), schema, failFast: true (prefix checks on, the default with failFast)';
const STREAM_OFF = 'llmjson createJsonlStream (Node), schema, failFast: true, prefixCheck: false';
const ELEMENT_FULL_SIZES = [100_000];
const ELEMENT_QUICK_SIZES = [10_000];
const ELEMENT_ON = 'llmjson createElementScanner, element schema, prefixCheck: true';
const ELEMENT_OFF = 'llmjson createElementScanner, element schema, prefixCheck: false (default)';
/**
 * The floor of any check that reads the text as it arrives: the entrant without prefix checks
 * plus one JavaScript pass over every character of every chunk that only counts quotes — no
 * parsing, no schema. A prefix check must read each character at least once (those outside
 * strings at least), so its cost cannot fall below this row.
 */
const FLOOR = 'floor: prefixCheck: false + one charCodeAt pass over every chunk (no parsing)';
/** The two entrants each case compares: [on, off]. */
const PAIRS: readonly (readonly [string, string])[] = [
  [ON, OFF],
  [JSONL_ON, JSONL_OFF],
  [STREAM_ON, STREAM_OFF],
  [ELEMENT_ON, ELEMENT_OFF],
];

const text = (maxLength: number) => ({ type: 'string', maxLength });

/** The partial document's schema, with a bound a prefix can break on every value. */
const schema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'summary', 'items'],
  properties: {
    title: text(10_000),
    summary: text(10_000_000),
    items: {
      type: 'array',
      maxItems: 1_000_000,
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          id: { type: 'integer', minimum: 0 },
          heading: text(10_000),
          text: text(1_000_000),
          detail: text(1_000_000),
          tags: { type: 'array', maxItems: 10, items: text(100) },
          score: { type: 'number', minimum: 0, maximum: 1 },
          done: { type: 'boolean' },
          note: { type: ['string', 'null'], maxLength: 10_000 },
        },
      },
    },
  },
};

// Written so the reads after each chunk cannot be optimised away.
export let sink: unknown;

function builder(chunks: readonly string[], prefixCheck: boolean): Entrant {
  return {
    name: prefixCheck ? ON : OFF,
    layer: Layer.engine,
    ours: prefixCheck,
    run() {
      let violations = 0;
      const partial = createPartialBuilder(
        { schema, compileJsonSchema: compileSchema, prefixCheck },
        {
          update(value) {
            sink = value;
          },
          diagnostic() {
            violations++;
          },
        },
      );
      for (const chunk of chunks) partial.write(chunk);
      partial.end();
      if (violations !== 0) throw new Error(`${violations} diagnostics on a valid document`);
      return [partial.value];
    },
  };
}

/** Reads every character of every chunk once, as a check in flight must (the floor's pass). */
function readEveryCharacter(chunk: string): void {
  let quotes = 0;
  for (let i = 0; i < chunk.length; i++) if (chunk.charCodeAt(i) === 0x22) quotes++;
  sink = quotes;
}

/**
 * `off` (prefix checks off) after the floor's pass over every chunk: a lower bound (the pass
 * runs apart, in one tight loop, cheaper than reading each chunk as it is written).
 */
function floorOf(off: Entrant, chunks: readonly string[]): Entrant {
  return {
    name: FLOOR,
    layer: Layer.floor,
    ours: false,
    run() {
      for (const chunk of chunks) readEveryCharacter(chunk);
      return off.run();
    },
  };
}

function jsonlDecoder(chunks: readonly string[], schema: JsonSchema, prefixCheck: boolean): Entrant {
  return {
    name: prefixCheck ? JSONL_ON : JSONL_OFF,
    layer: Layer.engine,
    ours: prefixCheck,
    run() {
      const values: unknown[] = [];
      let diagnostics = 0;
      const decoder = createJsonlDecoder(
        { schema, compileJsonSchema: compileSchema, prefixCheck, prefixCheckWith: linePrefixCheck },
        {
          value(value) {
            values.push(value);
          },
          diagnostic() {
            diagnostics++;
          },
        },
      );
      for (const chunk of chunks) decoder.write(chunk);
      decoder.end();
      if (diagnostics !== 0) throw new Error(`${diagnostics} diagnostics on a valid answer`);
      return values;
    },
  };
}

/** The Node JSONL stream with fail fast, the chunks written in one burst (as a replay or a socket read gives them). */
function jsonlStream(chunks: readonly string[], schema: JsonSchema, prefixCheck: boolean): Entrant {
  return {
    name: prefixCheck ? STREAM_ON : STREAM_OFF,
    layer: Layer.stream,
    ours: prefixCheck,
    run: () =>
      drive(createJsonlStream({ schema, failFast: true, ...(prefixCheck ? {} : { prefixCheck: false }) }), chunks),
  };
}

function elementScanner(chunks: readonly string[], schema: JsonSchema, prefixCheck: boolean): Entrant {
  return {
    name: prefixCheck ? ELEMENT_ON : ELEMENT_OFF,
    layer: Layer.engine,
    ours: prefixCheck,
    run() {
      const values: unknown[] = [];
      let diagnostics = 0;
      const scanner = createElementScanner(
        { elementSchema: schema, compileJsonSchema: compileSchema, prefixCheck, prefixCheckWith: elementPrefixCheck },
        {
          value(record) {
            values.push(record.value);
          },
          diagnostic() {
            diagnostics++;
          },
        },
      );
      for (const chunk of chunks) scanner.write(chunk);
      scanner.end();
      if (diagnostics !== 0) throw new Error(`${diagnostics} diagnostics on a valid array`);
      return values;
    },
  };
}

function cases(quick: boolean): Case[] {
  return [...builderCases(quick), ...jsonlCases(quick), ...streamCases(quick), ...elementCases(quick)];
}

/** What a Node user with `failFast` runs: the JSONL stream, prefix checks on (its default) and off. */
function streamCases(quick: boolean): Case[] {
  const schema = triadSchema();
  return (quick ? JSONL_QUICK_SIZES : JSONL_FULL_SIZES).map((chars, i): Case => {
    const answer = jsonlAnswer(chars, 120 + i, 0, triadObjects());
    const chunks = charChunks(answer.text, CHUNK).strings;
    return {
      label: `Node JSONL stream ${formatSize(chars)}`,
      size: Buffer.byteLength(answer.text),
      contestants: [jsonlStream(chunks, schema, true), jsonlStream(chunks, schema, false)].map((entrant) => ({
        entrant,
        expected: answer.valid,
      })),
    };
  });
}

/** The JSONL answer's objects (about 200 bytes each) as one JSON array. */
function elementCases(quick: boolean): Case[] {
  const schema = triadSchema();
  return (quick ? ELEMENT_QUICK_SIZES : ELEMENT_FULL_SIZES).map((chars, i): Case => {
    const answer = jsonlAnswer(chars, 140 + i, 0, triadObjects());
    const text = `[${answer.lines.join(',')}]`;
    const chunks = charChunks(text, CHUNK).strings;
    const expected = answer.valid;
    return {
      label: `elements ${formatSize(chars)}`,
      size: Buffer.byteLength(text),
      contestants: [
        elementScanner(chunks, schema, true),
        elementScanner(chunks, schema, false),
        floorOf(elementScanner(chunks, schema, false), chunks),
      ].map((entrant) => ({ entrant, expected })),
    };
  });
}

function jsonlCases(quick: boolean): Case[] {
  const schema = triadSchema();
  return (quick ? JSONL_QUICK_SIZES : JSONL_FULL_SIZES).map((chars, i): Case => {
    const answer = jsonlAnswer(chars, 120 + i, 0, triadObjects());
    const chunks = charChunks(answer.text, CHUNK).strings;
    const expected = answer.valid;
    return {
      label: `JSONL ${formatSize(chars)}`,
      size: Buffer.byteLength(answer.text),
      contestants: [
        jsonlDecoder(chunks, schema, true),
        jsonlDecoder(chunks, schema, false),
        floorOf(jsonlDecoder(chunks, schema, false), chunks),
      ].map((entrant) => ({ entrant, expected })),
    };
  });
}

function builderCases(quick: boolean): Case[] {
  return (quick ? QUICK_SIZES : FULL_SIZES).map((bytes, i): Case => {
    const document = partialDocument(bytes, 110 + i);
    const chunks = charChunks(document, CHUNK).strings;
    const expected = [JSON.parse(document)];
    return {
      label: formatSize(bytes),
      size: Buffer.byteLength(document),
      contestants: [builder(chunks, true), builder(chunks, false)].map((entrant) => ({ entrant, expected })),
    };
  });
}

export const prefixCheck: Scenario = {
  name: 'prefix-check',
  title:
    'Prefix validation: the partial builder, the JSONL decoder and the element scanner with and without prefix checks',
  about:
    "The partial scenario's seeded document (10 KB and 100 KB; 10 KB with --quick) in 4-character deltas, into createPartialBuilder with a JSON Schema that " +
    'bounds every value (types, additionalProperties: false, maxLength on every string, maxItems, minimum/maximum), compiled with ajv: ' +
    'prefix checks on (the default) against prefixCheck: false. Both check completed subtrees and the document with ajv. ' +
    `Target: prefix checks cost at most ${TARGET}× the builder without them. ` +
    "Then the JSONL decoder on the matrix's short-line answer (100 KB; 10 KB with --quick; the 3-branch discriminated union, every branch strict) " +
    `in 4-character chunks, prefixCheck: true against the default (false); both validate every line with ajv. Target: at most ${TARGET}×. ` +
    'Then the element scanner on the same kind of objects (about 200 bytes each) as one JSON array (100 KB; 10 KB with --quick), ' +
    `in 4-character chunks, prefixCheck: true against false; both validate every element with ajv. Target: at most ${TARGET}×. ` +
    "And what a Node user with failFast runs: createJsonlStream({ schema, failFast: true }) (prefix checks on, failFast's default) against the same with prefixCheck: false, " +
    'the 4-character chunks written in one burst (the stream hands chunks written together to the decoder together: decision 022).',
  cases,
  async run(context) {
    const rows: string[][] = [];
    const targets: TargetResult[] = [];
    const data: unknown[] = [];
    for (const c of cases(context.quick)) {
      context.log(`prefix-check: ${c.label}`);
      const timings = await compare(c.contestants, context.measure);
      const pair = PAIRS.find(([a]) => timings.some((t) => t.name === a));
      const on = timings.find((t) => t.name === pair?.[0]);
      const off = timings.find((t) => t.name === pair?.[1]);
      if (on === undefined || off === undefined) continue;
      const kind =
        on.name === JSONL_ON
          ? 'jsonl'
          : on.name === ELEMENT_ON
            ? 'elements'
            : on.name === STREAM_ON
              ? 'stream'
              : 'builder';
      const r = ratio(on, off);
      // The fastest run per round is less disturbed by other processes on a busy machine.
      const fastest = ratio(fastestOf(on), fastestOf(off));
      const floor = timings.find((t) => t.name === FLOOR);
      const floorRatio = floor === undefined ? undefined : ratio(fastestOf(floor), fastestOf(off));
      rows.push([
        c.label,
        on.medianMs.toFixed(2),
        off.medianMs.toFixed(2),
        formatSpread(r),
        formatSpread(fastest),
        floorRatio === undefined ? '—' : formatSpread(floorRatio),
      ]);
      targets.push({
        target:
          kind === 'jsonl'
            ? `JSONL prefix checks: ≤ ${TARGET}× the JSONL decoder without them (4-char chunks, same schema)`
            : kind === 'stream'
              ? `JSONL prefix checks on the Node stream with failFast (its default): ≤ ${TARGET}× the same stream with prefixCheck: false (4-char chunks written in one burst)`
              : kind === 'elements'
                ? `element prefix checks: ≤ ${TARGET}× the element scanner without them (4-char chunks, ~200-byte elements, same schema)`
                : `prefix checks: ≤ ${TARGET}× the partial builder without them (4-char chunks, same schema)`,
        basis: `${on.name} vs ${off.name}, ${c.label}`,
        measured:
          `time relative to prefixCheck: false: ${formatRatio(r.median)} (${formatRatio(r.min)}–${formatRatio(r.max)})` +
          (floorRatio === undefined
            ? ''
            : `; the floor (one charCodeAt pass over every chunk, no parsing) alone: ${formatRatio(floorRatio.median)}`),
        met: r.median <= TARGET,
      });
      data.push({ label: c.label, timings });
    }
    const table: Table = {
      caption: `Time of one run in ms (median over rounds), and on ÷ off (target ≤ ${TARGET}×; medians, then fastest runs). Rows: the partial builder (prefix checks on by default), then the JSONL decoder (off by default), then the element scanner. The last column is the floor of any check that reads each character as it arrives: the same entrant without prefix checks, plus one charCodeAt pass over every chunk that parses nothing (JSONL and elements; the builder reads every character already).`,
      header: [
        'case',
        'prefix checks on',
        'prefix checks off',
        'on ÷ off',
        'on ÷ off, fastest run per round',
        'floor ÷ off, fastest run per round',
      ],
      rows,
    };
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [table],
      notes: [
        'Both entrants must deliver the final value JSON.parse gives, with no diagnostic, before they are timed.',
        'JSONL: both entrants must deliver every line of the answer (all valid), with no diagnostic, before they are timed.',
        'Elements: both entrants must deliver every element of the array (all valid), with no diagnostic, before they are timed.',
      ],
      targets,
      data,
    };
  },
};
