/**
 * The JSONL matrix: chunking (4-character string deltas, 64 KiB reads) × line size (about
 * 200 bytes, about 100 KB) × schema (none, a 3-branch discriminated `oneOf`), with every peer,
 * the do-nothing Transforms (the stream-overhead floor) and `JSON.parse` over pre-split lines
 * (the native ceiling) timed in the same run. In the schema cases, llmjson's dispatch is also
 * compared with validating the whole `oneOf` and with the user's own switch on `type` calling
 * that branch's ajv validator. Most of the targets are read off these cases.
 */

import type { ValidateFunction } from 'ajv';
import {
  ajvCheck,
  directBranch,
  type Entrant,
  llmjsonDecoder,
  llmjsonStream,
  llmjsonValidator,
  nativeLines,
  nothingTransform,
  readlineJson,
  split2Json,
  streamJsonl,
  streamparserJson,
} from '../entrants.js';
import { compare, type Ratio, ratio, type Skipped, type Timing } from '../harness.js';
import {
  blockChunks,
  type Chunked,
  charChunks,
  jsonlAnswer,
  jsonlLines,
  triadObjects,
  triadSchema,
} from '../inputs.js';
import { type CaseTimings, formatRatio, formatSize, formatSpread, sideBySide } from '../report.js';
import type { Case, Contestant, Scenario, Table, TargetResult } from '../scenario.js';

/** Share of objects the schema rejects: mostly valid, as a model's answer is. */
export const INVALID_SHARE = 0.05;
/** An entrant whose verifying run takes longer than this is not timed (split2 on long lines). */
const MAX_RUN_MS = 2_000;

const Lines = { short: 'short', long: 'long' } as const;
type Lines = (typeof Lines)[keyof typeof Lines];
const Chunking = { chars: '4-char chunks', blocks: '64 KiB chunks' } as const;
type Chunking = (typeof Chunking)[keyof typeof Chunking];

interface MatrixCase extends Case {
  readonly lines: Lines;
  readonly chunking: Chunking;
  readonly schema: boolean;
}

function answerFor(lines: Lines, quick: boolean) {
  if (lines === Lines.short) return jsonlAnswer(quick ? 16_000 : 256_000, 40, INVALID_SHARE, triadObjects());
  // Four lines of about 100 KB (two of about 5 KB in quick mode); the second is invalid.
  const maker = triadObjects(quick ? 5_000 : 100_000);
  const answer = jsonlLines(quick ? 2 : 4, 41, { valid: maker.valid, invalid: maker.valid });
  const [first, second, ...rest] = answer.objects as Record<string, unknown>[];
  const broken = { ...(second as Record<string, unknown>), type: 'definition', entity: '' };
  const objects = [first, broken, ...rest];
  const texts = objects.map((o) => JSON.stringify(o));
  return {
    text: texts.map((l) => `${l}\n`).join(''),
    lines: texts,
    objects,
    valid: objects.filter((o) => o !== broken),
  };
}

/** The user's per-branch validators: each branch of the `oneOf` compiled on its own. */
export function branchValidators(): Record<string, ValidateFunction> {
  const schema = triadSchema() as { oneOf: Record<string, unknown>[] };
  const out: Record<string, ValidateFunction> = {};
  for (const branch of schema.oneOf) {
    const type = ((branch.properties as Record<string, { const: string }>).type as { const: string }).const;
    out[type] = ajvCheck({ $schema: 'http://json-schema.org/draft-07/schema#', ...branch });
  }
  return out;
}

function noValidation(entrant: Entrant): Entrant {
  return { ...entrant, name: `${entrant.name} (no validation)` };
}

function contestants(answer: ReturnType<typeof answerFor>, input: Chunked, schema: boolean): Contestant[] {
  const floors = [nothingTransform(input.writes, true), nothingTransform(input.writes, false)];
  if (!schema) {
    return [
      ...[
        nativeLines(answer.lines),
        llmjsonDecoder(input.strings),
        streamparserJson(input.strings),
        llmjsonStream(input.writes),
        split2Json(input.writes),
        streamJsonl(input.writes),
        readlineJson(input.writes),
      ].map((entrant) => ({ entrant, expected: answer.objects })),
      { entrant: floors[0] as Entrant, expected: input.writes },
      { entrant: floors[1] as Entrant, expected: [] },
    ];
  }
  const json = triadSchema();
  const check = ajvCheck(json);
  return [
    ...[
      nativeLines(answer.lines, check),
      llmjsonValidator(answer.lines, json),
      llmjsonValidator(answer.lines, json, { discriminator: false }),
      directBranch(answer.lines, branchValidators()),
      llmjsonDecoder(input.strings, { schema: json }, 'llmjson createJsonlDecoder, dispatch on "type"'),
      llmjsonDecoder(
        input.strings,
        { schema: json, discriminator: false },
        'llmjson createJsonlDecoder, whole oneOf (discriminator: false)',
      ),
      streamparserJson(input.strings, check),
      llmjsonStream(input.writes, { schema: json }, 'llmjson createJsonlStream, dispatch on "type"'),
      split2Json(input.writes, check),
      streamJsonl(input.writes, check),
      readlineJson(input.writes, check),
    ].map((entrant) => ({ entrant, expected: answer.valid })),
    ...[noValidation(split2Json(input.writes)), noValidation(streamJsonl(input.writes))].map((entrant) => ({
      entrant,
      expected: answer.objects,
    })),
    { entrant: floors[0] as Entrant, expected: input.writes },
    { entrant: floors[1] as Entrant, expected: [] },
  ];
}

function cases(quick: boolean): MatrixCase[] {
  const out: MatrixCase[] = [];
  for (const lines of [Lines.short, Lines.long]) {
    const answer = answerFor(lines, quick);
    const chunkings = [
      { chunking: Chunking.chars, input: charChunks(answer.text, 4) },
      { chunking: Chunking.blocks, input: blockChunks(answer.text) },
    ];
    for (const schema of [false, true]) {
      for (const { chunking, input } of chunkings) {
        out.push({
          label: chunking,
          lines,
          chunking,
          schema,
          size: input.size,
          contestants: contestants(answer, input, schema),
        });
      }
    }
  }
  return out;
}

interface CaseResult {
  readonly c: MatrixCase;
  readonly timings: readonly Timing[];
  readonly skipped: readonly Skipped[];
}

function linesLabel(lines: Lines, quick: boolean): string {
  if (lines === Lines.short) return '~200-byte lines';
  return quick ? '~5 KB lines' : '~100 KB lines';
}

/** Speed of llmjson relative to `other`: time(other) ÷ time(llmjson), per round. */
function speed(other: Timing, ours: Timing): Ratio {
  return ratio(other, ours);
}

function targetsOf(results: readonly CaseResult[], quick: boolean): TargetResult[] {
  const targets: TargetResult[] = [];
  const find = (lines: Lines, chunking: Chunking, schema: boolean) =>
    results.find((r) => r.c.lines === lines && r.c.chunking === chunking && r.c.schema === schema);
  const timing = (r: CaseResult | undefined, test: (t: Timing) => boolean) => r?.timings.find(test);
  const add = (
    target: string,
    basis: string,
    threshold: number,
    other: Timing | undefined,
    ours: Timing | undefined,
  ) => {
    if (other === undefined || ours === undefined) return;
    const r = speed(other, ours);
    targets.push({
      target,
      basis,
      measured: `speed relative to ${other.name}: ${formatSpread(r)}`,
      met: r.median >= threshold,
    });
  };
  for (const lines of [Lines.short, Lines.long]) {
    const size = linesLabel(lines, quick);
    const charsSchema = find(lines, Chunking.chars, true);
    const charsPlain = find(lines, Chunking.chars, false);
    const blocksSchema = find(lines, Chunking.blocks, true);
    const stream = (r: CaseResult | undefined) => timing(r, (t) => t.layer === 'stream' && t.ours);
    const engine = (r: CaseResult | undefined) => timing(r, (t) => t.layer === 'engine' && t.ours);
    const ceiling = (r: CaseResult | undefined) => timing(r, (t) => t.layer === 'ceiling');
    const named = (r: CaseResult | undefined, prefix: string) => timing(r, (t) => t.name.startsWith(prefix));
    for (const floor of ['do-nothing Transform (a)', 'do-nothing Transform (b)']) {
      add(
        '4-char chunks, parse + discriminated validation: ≥ 0.85× the do-nothing Transform',
        `createJsonlStream, ${size}`,
        0.85,
        named(charsSchema, floor),
        stream(charsSchema),
      );
    }
    add(
      '4-char chunks, parse + validation: ≥ 2× stream-json (no validation)',
      `createJsonlStream, ${size}`,
      2,
      named(charsSchema, 'stream-json jsonl/Parser (no validation)'),
      stream(charsSchema),
    );
    const split2 = 'split2 + JSON.parse (no validation)';
    const split2Timing = named(charsSchema, split2);
    const split2Skipped = charsSchema?.skipped.find((s) => s.name === split2);
    const ours = stream(charsSchema);
    if (split2Timing !== undefined) {
      add(
        '4-char chunks, parse + validation: ≥ 2.5× split2 + JSON.parse (no validation)',
        `createJsonlStream, ${size}`,
        2.5,
        split2Timing,
        ours,
      );
    } else if (split2Skipped !== undefined && ours !== undefined) {
      const r = split2Skipped.runMs / ours.medianMs;
      targets.push({
        target: '4-char chunks, parse + validation: ≥ 2.5× split2 + JSON.parse (no validation)',
        basis: `createJsonlStream, ${size}`,
        measured: `speed relative to ${split2}: ${formatRatio(r)} (split2's one verifying run; not timed, over the ${MAX_RUN_MS / 1000} s budget)`,
        met: r >= 2.5,
      });
    }
    add(
      '64 KiB chunks, parse + validation: ≥ 0.6× the native ceiling',
      `createJsonlStream, ${size}`,
      0.6,
      ceiling(blocksSchema),
      stream(blocksSchema),
    );
    add(
      '64 KiB chunks, parse + validation: ≥ 0.6× the native ceiling',
      `createJsonlDecoder (engine), ${size}`,
      0.6,
      ceiling(blocksSchema),
      engine(blocksSchema),
    );
    add(
      'core decoder, no stream, 4-char chunks: ≥ 0.3× the native ceiling',
      `createJsonlDecoder, no schema, ${size}`,
      0.3,
      ceiling(charsPlain),
      engine(charsPlain),
    );
    add(
      'core decoder, no stream, 4-char chunks: ≥ 0.3× the native ceiling',
      `createJsonlDecoder, 3-branch schema, ${size}`,
      0.3,
      ceiling(charsSchema),
      engine(charsSchema),
    );
    add(
      'dispatch not slower than validating the named branch directly (≥ 1.0×)',
      `JSON.parse + compileSchema (dispatch), pre-split ${size}`,
      1,
      named(charsSchema, 'JSON.parse + switch on "type"'),
      timing(charsSchema, (t) => t.layer === 'direct' && t.ours),
    );
  }
  return targets;
}

export const jsonlMatrix: Scenario = {
  name: 'jsonl-matrix',
  title: 'JSONL matrix: chunking × line size × schema',
  about:
    'Knowledge-extraction answers (definition / relationship / attribute objects with multi-byte UTF-8 text), ' +
    `${INVALID_SHARE * 100}% of them invalid. "4-char chunks": 4-character string deltas, written to every stream as strings (not bytes). ` +
    '"64 KiB chunks": a file read, written to streams as bytes; engines get the decoded text. ' +
    'Streams are piped into the cheapest object-mode Writable. ' +
    'Floors: (a) an identity Transform (decodeStrings: false, object-mode readable side, like a PassThrough) whose sink receives every chunk; ' +
    '(b) a Transform that consumes every chunk and pushes nothing. ' +
    "With the schema, peers validate with one ajv validator compiled from the whole oneOf (llmjson's ajv options: allErrors, non-strict); " +
    'the "direct" rows validate pre-split lines without framing: llmjson\'s compiled schema, and the user\'s own switch on "type" calling that branch\'s ajv validator. ' +
    'Every entrant must deliver exactly its expected values, in order, before it is timed.',
  cases,
  async run(context) {
    const results: CaseResult[] = [];
    for (const c of cases(context.quick)) {
      context.log(
        `${this.name}: ${linesLabel(c.lines, context.quick)}, ${c.schema ? '3-branch oneOf' : 'no schema'}, ${c.label}, ${formatSize(c.size)}`,
      );
      const skipped: Skipped[] = [];
      const timings = await compare(c.contestants, context.measure, { maxRunMs: MAX_RUN_MS, skipped });
      for (const s of skipped) context.log(`  ${s.name}: not timed, one run took ${(s.runMs / 1000).toFixed(1)} s`);
      results.push({ c, timings, skipped });
    }
    const tables: Table[] = [];
    const notes: string[] = [
      "time ÷ llmjson compares with llmjson in the same layer (a floor with the stream, a direct row with llmjson's compileSchema dispatch): above 1× llmjson is faster.",
      'The ceiling is JSON.parse per pre-split line; with the schema, JSON.parse + the whole-oneOf ajv validator.',
    ];
    for (const lines of [Lines.short, Lines.long]) {
      for (const schema of [false, true]) {
        const here = results.filter((r) => r.c.lines === lines && r.c.schema === schema);
        const cases_: CaseTimings[] = here.map((r) => ({ label: r.c.label, timings: r.timings }));
        const size = here[0]?.c.size ?? 0;
        tables.push(
          sideBySide(
            `${linesLabel(lines, context.quick)}, ${schema ? '3-branch discriminated oneOf' : 'no schema'}. Input: ${formatSize(size)}.`,
            cases_,
          ),
        );
        for (const r of here) {
          for (const s of r.skipped) {
            const ours = r.timings.find((t) => t.layer === 'stream' && t.ours);
            notes.push(
              `${s.name}, ${linesLabel(lines, context.quick)}, ${schema ? 'schema' : 'no schema'}, ${r.c.label}: not timed; its one verifying run took ${(s.runMs / 1000).toFixed(1)} s` +
                (ours === undefined ? '.' : `, ${formatRatio(s.runMs / ours.medianMs)} llmjson's stream.`),
            );
          }
        }
        if (schema) {
          for (const r of here) {
            const dispatch = r.timings.find((t) => t.layer === 'direct' && t.ours);
            const direct = r.timings.find((t) => t.name.startsWith('JSON.parse + switch on "type"'));
            const whole = r.timings.find((t) => t.layer === 'direct' && !t.ours && t !== direct);
            if (dispatch !== undefined && direct !== undefined && whole !== undefined) {
              notes.push(
                `Dispatch, ${linesLabel(lines, context.quick)} (${r.c.label} run): llmjson's dispatch ÷ the direct branch = ${formatSpread(ratio(dispatch, direct))} of the time; the whole oneOf ÷ dispatch = ${formatSpread(ratio(whole, dispatch))}.`,
              );
            }
          }
        }
      }
    }
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables,
      notes,
      targets: targetsOf(results, context.quick),
      data: results.map((r) => ({
        lines: r.c.lines,
        chunking: r.c.chunking,
        schema: r.c.schema,
        size: r.c.size,
        timings: r.timings,
        skipped: r.skipped,
      })),
    };
  },
};
