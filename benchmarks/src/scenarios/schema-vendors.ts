/**
 * Schema vendors (issue 12): the JSONL matrix's ~200-byte knowledge-extraction lines in
 * 4-character chunks, decoded with no schema, with the 3-branch JSON Schema (`oneOf`, ajv) and
 * with the equivalent zod 4 `z.discriminatedUnion` (a Standard Schema), all in one run. What does
 * validating through zod cost against ajv, and does llmjson's dispatch on a Standard Schema cost
 * more than the user's own switch on `type` calling that branch's zod schema?
 *
 * The validation share of a path is time(with the schema) − time(no schema) of the same path,
 * from the medians of this run; the per-round shares give the spread.
 */

import type { JsonSchema, StandardSchemaV1 } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { compileStandardSchema } from '@llmjson/core/internal';
import { z } from 'zod';
import {
  ajvCheck,
  directBranch,
  type Entrant,
  Layer,
  llmjsonDecoder,
  llmjsonStream,
  nativeLines,
  split2Json,
  streamparserJson,
} from '../entrants.js';
import { compare, fastestOf, median, type Ratio, ratio, type Timing } from '../harness.js';
import { charChunks, jsonlAnswer, triadObjects, triadSchema } from '../inputs.js';
import { formatRatio, formatSize, formatSpread, sideBySide } from '../report.js';
import type { Case, Contestant, Scenario, Table, TargetResult } from '../scenario.js';
import { branchValidators, INVALID_SHARE } from './jsonl-matrix.js';

/** The zod 4 schemas equivalent to `triadSchema()`: strict objects, as `additionalProperties: false`. */
export function triadZod() {
  const text = z.string().min(1);
  const evidence = z.array(z.strictObject({ quote: z.string().min(1), page: z.number().int().min(1) })).optional();
  const definition = z.strictObject({ type: z.literal('definition'), entity: text, definition: text, evidence });
  const relationship = z.strictObject({
    type: z.literal('relationship'),
    subject: text,
    predicate: z.enum(['enables', 'produces', 'consumes', 'contains', 'admits']),
    object: text,
    confidence: z.number().min(0).max(1).optional(),
    evidence,
  });
  const attribute = z.strictObject({
    type: z.literal('attribute'),
    entity: text,
    name: text,
    value: z.union([z.string(), z.number(), z.boolean()]),
    evidence,
  });
  return {
    union: z.discriminatedUnion('type', [definition, relationship, attribute]),
    definition,
    relationship,
    attribute,
  };
}

type TriadZod = ReturnType<typeof triadZod>;

/** `JSON.parse` on each pre-split line, then `accept`: the direct (no framing) layer. */
function preSplit(name: string, ours: boolean, lines: readonly string[], accept: (value: unknown) => boolean): Entrant {
  return {
    name,
    layer: Layer.direct,
    ours,
    run() {
      const values: unknown[] = [];
      for (const line of lines) {
        const value: unknown = JSON.parse(line);
        if (accept(value)) values.push(value);
      }
      return values;
    },
  };
}

/** What a zod user writes to validate "the named branch directly": a switch on `type`, that branch's `safeParse`. */
function zodBranch(schemas: TriadZod): (value: unknown) => boolean {
  return (value) => {
    if (typeof value !== 'object' || value === null) return false;
    switch ((value as { type?: unknown }).type) {
      case 'definition':
        return schemas.definition.safeParse(value).success;
      case 'relationship':
        return schemas.relationship.safeParse(value).success;
      case 'attribute':
        return schemas.attribute.safeParse(value).success;
      default:
        return false;
    }
  };
}

function renamed(entrant: Entrant, name: string): Entrant {
  return { ...entrant, name };
}

/** Entrant names the figures are read from. */
const Name = {
  parse: 'JSON.parse per pre-split line',
  ajvDispatch: 'JSON.parse + llmjson compileSchema (JSON Schema, ajv), dispatch on "type"',
  zodDispatch: 'JSON.parse + llmjson compileStandardSchema (zod union), dispatch on "type"',
  zodBranch: 'JSON.parse + switch on "type" + that branch\'s zod safeParse',
  zodWhole: 'JSON.parse + zod union safeParse',
  ajvBranch: 'JSON.parse + switch on "type" + that branch\'s ajv validator, per pre-split line',
  decoder: 'llmjson createJsonlDecoder, no schema',
  decoderAjv: 'llmjson createJsonlDecoder, JSON Schema (ajv)',
  decoderZod: 'llmjson createJsonlDecoder, zod union',
  stream: 'llmjson createJsonlStream, no schema',
  streamAjv: 'llmjson createJsonlStream, JSON Schema (ajv)',
  streamZod: 'llmjson createJsonlStream, zod union',
  streamparser: '@streamparser/json JSONParser',
  streamparserAjv: '@streamparser/json JSONParser + ajv',
  streamparserZod: '@streamparser/json JSONParser + zod safeParse',
  split2: 'split2 + JSON.parse',
  split2Ajv: 'split2 + JSON.parse + ajv',
  split2Zod: 'split2 + JSON.parse + zod safeParse',
} as const;

/** The paths whose validation share is compared: [label, no schema, ajv, zod]. */
const SHARES: readonly (readonly [string, string, string, string])[] = [
  ['llmjson createJsonlDecoder (engine)', Name.decoder, Name.decoderAjv, Name.decoderZod],
  ['llmjson createJsonlStream (stream)', Name.stream, Name.streamAjv, Name.streamZod],
  ['JSON.parse + llmjson compiled schema, pre-split lines (direct)', Name.parse, Name.ajvDispatch, Name.zodDispatch],
  ['@streamparser/json JSONParser + the check (engine)', Name.streamparser, Name.streamparserAjv, Name.streamparserZod],
  ['split2 + JSON.parse + the check (stream)', Name.split2, Name.split2Ajv, Name.split2Zod],
];

/** How long each entrant runs before it is verified and timed, in milliseconds (at least 5 runs). */
const WARM_UP_MS = 1_000;

async function warmUp(entrant: Entrant, ms: number): Promise<void> {
  const end = performance.now() + ms;
  for (let runs = 0; runs < 5 || performance.now() < end; runs++) await entrant.run();
}

function answerFor(quick: boolean) {
  // The jsonl-matrix scenario's ~200-byte lines: same size, seed and invalid share.
  return jsonlAnswer(quick ? 16_000 : 256_000, 40, INVALID_SHARE, triadObjects());
}

function cases(quick: boolean): Case[] {
  const answer = answerFor(quick);
  const input = charChunks(answer.text, 4);
  const json: JsonSchema = triadSchema();
  const zod = triadZod();
  const check = ajvCheck(json);
  const zodCheck = (value: unknown): boolean => zod.union.safeParse(value).success;
  const ajvCompiled = compileSchema(json);
  const zodCompiled = compileStandardSchema(zod.union as StandardSchemaV1);
  const contestants: Contestant[] = [
    ...[
      nativeLines(answer.lines),
      renamed(llmjsonDecoder(input.strings), Name.decoder),
      streamparserJson(input.strings),
      renamed(llmjsonStream(input.writes), Name.stream),
      split2Json(input.writes),
    ].map((entrant) => ({ entrant, expected: answer.objects })),
    ...[
      preSplit(Name.zodDispatch, true, answer.lines, (v) => zodCompiled.validate(v).valid),
      preSplit(Name.ajvDispatch, true, answer.lines, (v) => ajvCompiled.validate(v).valid),
      preSplit(Name.zodBranch, false, answer.lines, zodBranch(zod)),
      preSplit(Name.zodWhole, false, answer.lines, zodCheck),
      directBranch(answer.lines, branchValidators()),
      llmjsonDecoder(input.strings, { schema: json }, Name.decoderAjv),
      llmjsonDecoder(input.strings, { schema: zod.union }, Name.decoderZod),
      streamparserJson(input.strings, check),
      renamed(streamparserJson(input.strings, zodCheck), Name.streamparserZod),
      llmjsonStream(input.writes, { schema: json }, Name.streamAjv),
      llmjsonStream(input.writes, { schema: zod.union }, Name.streamZod),
      split2Json(input.writes, check),
      renamed(split2Json(input.writes, zodCheck), Name.split2Zod),
    ].map((entrant) => ({ entrant, expected: answer.valid })),
  ];
  return [{ label: '4-char chunks', size: input.size, contestants }];
}

/** Validation shares of one path: the share (÷ the no-schema time) of ajv and zod, and zod's ÷ ajv's. */
interface Share {
  readonly label: string;
  /** (time with ajv − time with no schema) ÷ time with no schema, from medians. */
  readonly ajv: number;
  readonly zod: number;
  /** zod's share ÷ ajv's share, from the medians of this run. */
  readonly zodOverAjv: number;
  /** zod's share ÷ ajv's, round by round, over the rounds that measured an ajv share above 0. */
  readonly perRound: Ratio | undefined;
  /** How many rounds `perRound` covers, of `rounds`. */
  readonly counted: number;
  readonly rounds: number;
}

function shareOf(label: string, none: Timing, ajv: Timing, zod: Timing): Share {
  const perRound: number[] = [];
  none.roundsMs.forEach((n, i) => {
    const a = (ajv.roundsMs[i] as number) - n;
    const z = (zod.roundsMs[i] as number) - n;
    if (a > 0) perRound.push(z / a);
  });
  return {
    label,
    ajv: (ajv.medianMs - none.medianMs) / none.medianMs,
    zod: (zod.medianMs - none.medianMs) / none.medianMs,
    zodOverAjv: (zod.medianMs - none.medianMs) / (ajv.medianMs - none.medianMs),
    perRound:
      perRound.length === 0
        ? undefined
        : { median: median(perRound), min: Math.min(...perRound), max: Math.max(...perRound) },
    counted: perRound.length,
    rounds: none.roundsMs.length,
  };
}

function perRoundText(s: Share): string {
  if (s.perRound === undefined) return 'n/a (no round measured an ajv share above 0)';
  const some = s.counted < s.rounds ? `, ${s.counted} of ${s.rounds} rounds with an ajv share above 0` : '';
  return `${formatSpread(s.perRound)}${some}`;
}

function percent(share: number): string {
  return `${share >= 0 ? '+' : ''}${Math.round(share * 100)} %`;
}

function shareText(s: Share): string {
  const fromMedians =
    s.ajv > 0 ? `${formatRatio(s.zodOverAjv)} from medians` : 'not measurable from medians (ajv share ≤ 0)';
  return `zod's share ÷ ajv's: ${fromMedians} (per round: ${perRoundText(s)})`;
}

export const schemaVendors: Scenario = {
  name: 'schema-vendors',
  title: 'Schema vendors: zod vs ajv vs no schema',
  about:
    "The jsonl-matrix scenario's ~200-byte knowledge-extraction lines (definition / relationship / attribute, " +
    `${INVALID_SHARE * 100}% invalid) in 4-character string deltas, decoded with no schema, with the 3-branch JSON Schema ` +
    "(oneOf, compiled by llmjson's ajv) and with the equivalent zod 4 z.discriminatedUnion of z.strictObject branches, " +
    'passed as a Standard Schema (llmjson dispatches on "type" from zod\'s JSON Schema export, then zod\'s ~standard.validate decides). ' +
    "Peers: @streamparser/json and split2 + JSON.parse, each with no check, an ajv validator of the whole oneOf, or the zod union's safeParse. " +
    "The direct rows validate pre-split lines without framing: llmjson's compiled JSON Schema and Standard Schema, " +
    'and the user\'s own switch on "type" calling that branch\'s zod safeParse or ajv validator. ' +
    'Validation share: time with the schema − time with no schema on the same path, from the medians of this run. ' +
    'Every share and the dispatch ratio are also given from the fastest run of each round, which a busy machine inflates less. ' +
    `Each entrant runs for ${WARM_UP_MS / 1000} s before it is verified and timed (zod's validators reach their optimized code only after many calls). ` +
    'Every entrant must deliver exactly its expected values, in order, before it is timed.',
  cases,
  async run(context) {
    const [c] = cases(context.quick);
    if (c === undefined) throw new Error('schema-vendors: no case');
    context.log(`${this.name}: ~200-byte lines, ${c.label}, ${formatSize(c.size)}`);
    // zod's validators take many calls to reach their optimized code; warmed up, the verifying
    // run that sizes each sample measures the steady state, not the first calls.
    for (const { entrant } of c.contestants) await warmUp(entrant, context.quick ? 50 : WARM_UP_MS);
    const timings = await compare(c.contestants, context.measure);
    // Every figure twice: from each round's median run (the method of every scenario) and from
    // each round's fastest run, which other processes taking the CPU inflate far less.
    const views = [
      { label: 'median runs', timings },
      { label: 'fastest runs', timings: timings.map(fastestOf) },
    ].map(({ label, timings: ts }) => {
      const find = (name: string): Timing => {
        const t = ts.find((x) => x.name === name);
        if (t === undefined) throw new Error(`schema-vendors: no timing for ${name}`);
        return t;
      };
      return {
        label,
        find,
        shares: SHARES.map(([path, none, ajv, zod]) => shareOf(path, find(none), find(ajv), find(zod))),
        dispatch: ratio(find(Name.zodDispatch), find(Name.zodBranch)),
      };
    });
    const [byMedian, byFastest] = views as [(typeof views)[number], (typeof views)[number]];
    const tables: Table[] = [
      sideBySide(`~200-byte lines, 4-char chunks. Input: ${formatSize(c.size)}.`, [{ label: c.label, timings }]),
      ...views.map((view) => ({
        caption:
          `Validation share, from the ${view.label} of each entrant: (time with the schema − time with no schema) ÷ time with no schema, on the same path; ` +
          "then zod's share ÷ ajv's share, from the medians over rounds and round by round (min–max when wide).",
        header: ['path', 'ajv share', 'zod share', "zod's share ÷ ajv's", 'per round'],
        rows: view.shares.map((s) => [
          s.label,
          percent(s.ajv),
          percent(s.zod),
          s.ajv > 0 ? formatRatio(s.zodOverAjv) : 'n/a',
          perRoundText(s),
        ]),
      })),
    ];
    const notes = [
      "time ÷ llmjson compares with llmjson's first entrant in the same layer: in the direct layer the zod dispatch, in the engine and stream layers the no-schema decoder and stream (so there it is the cost of the check).",
      ...views.map(
        (view) =>
          `Dispatch (${view.label}): on the zod union (compileStandardSchema, pre-split lines) ÷ the user's switch on "type" + that branch's zod safeParse = ${formatSpread(view.dispatch)} of the time; ` +
          `the zod union's own safeParse ÷ that switch = ${formatSpread(ratio(view.find(Name.zodWhole), view.find(Name.zodBranch)))}; ` +
          `llmjson's ajv dispatch ÷ the switch over per-branch ajv validators = ${formatSpread(ratio(view.find(Name.ajvDispatch), view.find(Name.ajvBranch)))}.`,
      ),
      'Targets are judged on the median runs, as in every scenario; the fastest-run figure is shown beside them.',
    ];
    const targets: TargetResult[] = byMedian.shares.slice(0, 2).map((s, i) => ({
      target: "4-char chunks: validation share through zod (Standard Schema) ≤ 2× ajv's",
      basis: `${s.label}, ~200-byte lines, 3-branch discriminated union`,
      measured: `${shareText(s)}; fastest runs: ${shareText(byFastest.shares[i] as Share)}`,
      met: s.ajv > 0 && s.zodOverAjv <= 2,
    }));
    targets.push({
      target: 'dispatch on a zod union ≤ 1.0× the zod direct branch (time)',
      basis:
        'JSON.parse + compileStandardSchema (zod union) vs JSON.parse + switch on "type" + that branch\'s zod safeParse, pre-split ~200-byte lines',
      measured: `time ÷ direct branch: ${formatSpread(byMedian.dispatch)} (median ${byMedian.dispatch.median.toFixed(3)}); fastest runs: ${formatSpread(byFastest.dispatch)} (median ${byFastest.dispatch.median.toFixed(3)})`,
      met: byMedian.dispatch.median <= 1,
    });
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables,
      notes,
      targets,
      data: { size: c.size, timings, views: views.map(({ label, shares, dispatch }) => ({ label, shares, dispatch })) },
    };
  },
};
