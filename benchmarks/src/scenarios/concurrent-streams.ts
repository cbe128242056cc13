/**
 * Many streams at once: a server that reads many model responses on many sockets holds one
 * llmjson stream per response and feeds each one the chunk that just arrived. The questions:
 * does the work stay what the same input costs through one stream (no per-stream cost that grows
 * with the number of streams open: a shared cache missed, a table per stream), how much heap does
 * an open stream hold, idle and mid-document, and what does creating a stream cost when its
 * schema arrives as a new object of the same content (parsed from a file per request) rather
 * than the object seen before (schema-intern.ts)?
 *
 * Shape: N = 1 000 and 10 000 streams (100 and 1 000 with --quick), each with its own seeded
 * answer — two JSONL lines of the 3-branch discriminated union (`triadSchema`) for the JSONL
 * streams, one union object for the partial streams — cut in 4-character chunks and fed one
 * chunk per stream per round, as sockets' reads come in, with an event-loop turn between rounds.
 * The reference is the same input through one stream: the same writes, each to an idle stream,
 * with as many event-loop turns (one after every N writes). Peers of the partial streams run the
 * same interleaving: the AI SDK's `parsePartialJson` per stream, re-parsing the stream's text so
 * far after each chunk (as `useObject` does), and jsonriver, one parser per stream over an async
 * iterable fed the stream's chunks.
 */

import { Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parsePartialJson } from '@ai-sdk/ui-utils';
import { createJsonlDecoder, type JsonSchema } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { createJsonlStream, createPartialStream } from '@llmjson/node';
import { parse as jsonriverParse } from 'jsonriver';
import { type Entrant, Layer } from '../entrants.js';
import { compare, median, ratio, type Timing } from '../harness.js';
import { charChunks, jsonlLines, random, triadObjects, triadSchema } from '../inputs.js';
import { formatRatio, formatSize, formatSpread } from '../report.js';
import type { Case, Scenario, Table, TargetResult } from '../scenario.js';

const FULL_COUNTS = [1_000, 10_000];
const QUICK_COUNTS = [100, 1_000];
const CHUNK = 4;
const LINES_PER_STREAM = 2;
/** Streams created per run of a creation entrant. */
const CREATED = 1_000;
/** Targets. */
const INTERLEAVED_TARGET = 1.5;
const IDLE_HEAP_TARGET = 8_000;
const CREATION_TARGET = 3;
/** Heap measurements per kind; the median is quoted. */
const HEAP_REPEATS = 3;

/** A set of `n` parsers, one per stream, written to by stream index. */
interface Fleet {
  write(stream: number, chunk: string): void;
  /** Ends every stream; resolves with what they delivered, stream by stream. */
  end(): Promise<unknown[]>;
}

type FleetMaker = (n: number) => Fleet;

/** Where entrants put what they read, so the reads are real. */
let sink: unknown;

/** The last value an entrant read (what keeps the reads observable). */
export function lastRead(): unknown {
  return sink;
}

const RESOLVED = Promise.resolve();
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * N Node JSONL streams with `schema`, default options; delivers every value of every stream,
 * stream by stream (`keep`), or reads each and keeps none (what the heap figures measure: the
 * streams, not what their consumer keeps).
 */
function jsonlFleet(schema: JsonSchema, keep = true): FleetMaker {
  return (n) => {
    const outputs = Array.from({ length: n }, (): unknown[] => []);
    const streams = outputs.map((values) => {
      const stream = createJsonlStream({ schema });
      stream.on(
        'data',
        keep
          ? (value: unknown) => {
              values.push(value);
            }
          : (value: unknown) => {
              sink = value;
            },
      );
      return stream;
    });
    return {
      write: (s, chunk) => streams[s]?.write(chunk),
      async end() {
        for (const stream of streams) stream.end();
        await Promise.all(streams.map((stream) => finished(stream)));
        return outputs.flat();
      },
    };
  };
}

/** N core JSONL decoders with `schema` (no Node stream around them): the engine's share of the interleaving. */
function decoderFleet(schema: JsonSchema): FleetMaker {
  return (n) => {
    const outputs = Array.from({ length: n }, (): unknown[] => []);
    const decoders = outputs.map((values) =>
      createJsonlDecoder(
        { schema, compileJsonSchema: compileSchema },
        {
          value(value) {
            values.push(value);
          },
          diagnostic() {},
        },
      ),
    );
    return {
      write: (s, chunk) => decoders[s]?.write(chunk),
      async end() {
        for (const decoder of decoders) decoder.end();
        return outputs.flat();
      },
    };
  };
}

/**
 * The simplest framing a user could write, per stream: each chunk appended to the stream's
 * pending string, `JSON.parse` at the newline; no validation, no stream. What any per-stream
 * state built from small chunks pays on the interleaving, to compare the decoder's loss with.
 */
const minimalFleet: FleetMaker = (n) => {
  const pending = Array.from({ length: n }, () => '');
  const outputs = Array.from({ length: n }, (): unknown[] => []);
  return {
    write(s, chunk) {
      let text = chunk;
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n')) {
        const line = (pending[s] ?? '') + text.slice(0, at);
        pending[s] = '';
        text = text.slice(at + 1);
        if (line !== '') outputs[s]?.push(JSON.parse(line));
      }
      pending[s] += text;
    },
    end: async () => outputs.flat(),
  };
};

/**
 * N Transforms that pass every chunk through and do nothing else (llmjson's stream options):
 * Node's own stream machinery, the floor of the interleaving; delivers every chunk, stream by stream.
 */
const floorFleet: FleetMaker = (n) => {
  const outputs = Array.from({ length: n }, (): unknown[] => []);
  const streams = outputs.map((chunks) => {
    const stream = new Transform({
      decodeStrings: false,
      readableObjectMode: true,
      transform: (chunk: string, _encoding, callback) => callback(null, chunk),
    });
    stream.on('data', (chunk: unknown) => {
      chunks.push(chunk);
    });
    return stream;
  });
  return {
    write: (s, chunk) => streams[s]?.write(chunk),
    async end() {
      for (const stream of streams) stream.end();
      await Promise.all(streams.map((stream) => finished(stream)));
      return outputs.flat();
    },
  };
};

/** N Node partial streams with `schema`, default options (paced snapshots); each snapshot read; delivers each stream's final value. */
function partialFleet(schema: JsonSchema): FleetMaker {
  return (n) => {
    const streams = Array.from({ length: n }, () => {
      const stream = createPartialStream({ schema });
      stream.on('data', (snapshot: unknown) => {
        sink = snapshot;
      });
      return stream;
    });
    return {
      write: (s, chunk) => streams[s]?.write(chunk),
      async end() {
        for (const stream of streams) stream.end();
        await Promise.all(streams.map((stream) => finished(stream)));
        return streams.map((stream) => stream.value);
      },
    };
  };
}

/** The AI SDK's parsePartialJson per stream: the stream's text so far re-parsed after each chunk. */
const aiSdkFleet: FleetMaker = (n) => {
  const texts = Array.from({ length: n }, () => '');
  const values = Array.from({ length: n }, (): unknown => undefined);
  return {
    write(s, chunk) {
      const text = (texts[s] ?? '') + chunk;
      texts[s] = text;
      values[s] = parsePartialJson(text).value;
      sink = values[s];
    },
    end: async () => values,
  };
};

/** An async iterable that yields what is pushed into it, until closed. */
function channel(): { push(chunk: string): void; close(): void; readonly chunks: AsyncIterable<string> } {
  const queue: string[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  return {
    push(chunk) {
      queue.push(chunk);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    chunks: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const chunk = queue.shift();
          if (chunk !== undefined) yield chunk;
          else if (closed) return;
          else {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
          }
        }
      },
    },
  };
}

/** jsonriver, one parser per stream over an async iterable of that stream's chunks; each value it yields read. */
const jsonriverFleet: FleetMaker = (n) => {
  const channels = Array.from({ length: n }, channel);
  const values = Array.from({ length: n }, (): unknown => undefined);
  const readers = channels.map(async (c, s) => {
    for await (const value of jsonriverParse(c.chunks)) {
      values[s] = value;
      sink = value;
    }
  });
  return {
    write: (s, chunk) => channels[s]?.push(chunk),
    async end() {
      for (const c of channels) c.close();
      await Promise.all(readers);
      return values;
    },
  };
};

/** Writes chunk `r` of every stream in round `r`, for rounds `from` to `to`, an event-loop turn after each round. */
async function feedInterleaved(
  fleet: Fleet,
  chunks: readonly (readonly string[])[],
  to: number,
  from = 0,
): Promise<void> {
  for (let r = from; r < to; r++) {
    for (let s = 0; s < chunks.length; s++) {
      const chunk = chunks[s]?.[r];
      if (chunk !== undefined) fleet.write(s, chunk);
    }
    await nextTurn();
  }
}

function roundsOf(chunks: readonly (readonly string[])[]): number {
  let rounds = 0;
  for (const c of chunks) rounds = Math.max(rounds, c.length);
  return rounds;
}

function interleaved(
  name: string,
  layer: Layer,
  ours: boolean,
  make: FleetMaker,
  chunks: readonly (readonly string[])[],
): Entrant {
  const rounds = roundsOf(chunks);
  return {
    name,
    layer,
    ours,
    async run() {
      const fleet = make(chunks.length);
      await feedInterleaved(fleet, chunks, rounds);
      return fleet.end();
    },
  };
}

/**
 * One stream written `chunks` one at a time, each to an idle stream (a microtask after each
 * write; `settle` false for a synchronous engine, which needs none), with an event-loop turn
 * after every `perTurn` writes: the interleaved run's writes and turns, through one stream.
 */
function oneStream(
  name: string,
  make: FleetMaker,
  chunks: readonly string[],
  perTurn: number,
  layer: Layer = Layer.stream,
  settle = true,
): Entrant {
  return {
    name,
    layer,
    ours: false,
    async run() {
      const fleet = make(1);
      let written = 0;
      for (const chunk of chunks) {
        fleet.write(0, chunk);
        if (settle) await RESOLVED;
        if (++written === perTurn) {
          written = 0;
          await nextTurn();
        }
      }
      return fleet.end();
    },
  };
}

/** The union's schema without the root's annotations, as the items of an array. */
function arrayOf(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, title: _title, ...items } = schema as Record<string, unknown>;
  return { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items };
}

interface Inputs {
  readonly n: number;
  readonly jsonl: readonly (readonly string[])[];
  readonly jsonlValues: unknown[];
  readonly jsonlSize: number;
  readonly documents: unknown[];
  readonly partial: readonly (readonly string[])[];
  readonly partialSize: number;
}

function inputs(n: number): Inputs {
  const jsonl: (readonly string[])[] = [];
  const jsonlValues: unknown[] = [];
  const documents: unknown[] = [];
  const partial: (readonly string[])[] = [];
  let jsonlSize = 0;
  let partialSize = 0;
  const maker = triadObjects();
  for (let s = 0; s < n; s++) {
    const answer = jsonlLines(LINES_PER_STREAM, 7_000 + s, maker);
    const chunked = charChunks(answer.text, CHUNK);
    jsonl.push(chunked.strings);
    jsonlValues.push(...answer.valid);
    jsonlSize += chunked.size;
    const document = maker.valid(random(90_000 + s));
    const text = JSON.stringify(document);
    const parts = charChunks(text, CHUNK);
    documents.push(document);
    partial.push(parts.strings);
    partialSize += parts.size;
  }
  return { n, jsonl, jsonlValues, jsonlSize, documents, partial, partialSize };
}

const names = {
  jsonl: (n: number) => `llmjson createJsonlStream × ${n.toLocaleString('en-US')}, interleaved`,
  jsonlOne: 'llmjson createJsonlStream × 1, the same input',
  decoder: (n: number) => `llmjson createJsonlDecoder × ${n.toLocaleString('en-US')} (core, no stream), interleaved`,
  decoderOne: 'llmjson createJsonlDecoder × 1 (core, no stream), the same input',
  minimal: (n: number) =>
    `append + JSON.parse at the newline × ${n.toLocaleString('en-US')} (no validation, no stream), interleaved`,
  minimalOne: 'append + JSON.parse at the newline × 1 (no validation, no stream), the same input',
  floor: (n: number) => `do-nothing Transform × ${n.toLocaleString('en-US')} (passes each chunk), interleaved`,
  floorOne: 'do-nothing Transform × 1 (passes each chunk), the same input',
  partial: (n: number) => `llmjson createPartialStream × ${n.toLocaleString('en-US')} (schema), interleaved`,
  partialOne: 'llmjson createPartialStream × 1 (schema), the same documents as one array',
  ai: (n: number) => `ai parsePartialJson × ${n.toLocaleString('en-US')}, re-parse per chunk, interleaved`,
  river: (n: number) => `jsonriver parse × ${n.toLocaleString('en-US')}, interleaved`,
  sameJsonl: `createJsonlStream({ schema }) × ${CREATED}, the same schema object`,
  newJsonl: `createJsonlStream({ schema: JSON.parse(text) }) × ${CREATED}, a new equal object each`,
  samePartial: `createPartialStream({ schema }) × ${CREATED}, the same schema object`,
  newPartial: `createPartialStream({ schema: JSON.parse(text) }) × ${CREATED}, a new equal object each`,
  parseAlone: `JSON.parse(schema text) × ${CREATED} alone`,
};

function creation(name: string, ours: boolean, create: () => unknown): Entrant {
  return {
    name,
    layer: Layer.stream,
    ours,
    run() {
      for (let i = 0; i < CREATED; i++) sink = create();
      return [CREATED];
    },
  };
}

function casesFor(all: readonly Inputs[]): Case[] {
  const schema = triadSchema();
  const schemaText = JSON.stringify(schema);
  const arraySchema = arrayOf(schema);
  const cases: Case[] = [];
  for (const input of all) {
    const { n } = input;
    const label = n.toLocaleString('en-US');
    cases.push({
      label: `${label} JSONL streams`,
      size: input.jsonlSize,
      contestants: [
        {
          entrant: interleaved(names.jsonl(n), Layer.stream, true, jsonlFleet(schema), input.jsonl),
          expected: input.jsonlValues,
        },
        { entrant: oneStream(names.jsonlOne, jsonlFleet(schema), input.jsonl.flat(), n), expected: input.jsonlValues },
        {
          entrant: interleaved(names.decoder(n), Layer.engine, true, decoderFleet(schema), input.jsonl),
          expected: input.jsonlValues,
        },
        {
          entrant: oneStream(names.decoderOne, decoderFleet(schema), input.jsonl.flat(), n, Layer.engine, false),
          expected: input.jsonlValues,
        },
        {
          entrant: interleaved(names.minimal(n), Layer.engine, false, minimalFleet, input.jsonl),
          expected: input.jsonlValues,
        },
        {
          entrant: oneStream(names.minimalOne, minimalFleet, input.jsonl.flat(), n, Layer.engine, false),
          expected: input.jsonlValues,
        },
        {
          entrant: interleaved(names.floor(n), Layer.floor, false, floorFleet, input.jsonl),
          expected: input.jsonl.flat(),
        },
        {
          entrant: oneStream(names.floorOne, floorFleet, input.jsonl.flat(), n, Layer.floor),
          expected: input.jsonl.flat(),
        },
      ],
    });
    const arrayText = `[${input.documents.map((d) => JSON.stringify(d)).join(',')}]`;
    cases.push({
      label: `${label} partial streams`,
      size: input.partialSize,
      contestants: [
        {
          entrant: interleaved(names.partial(n), Layer.stream, true, partialFleet(schema), input.partial),
          expected: input.documents,
        },
        {
          entrant: oneStream(names.partialOne, partialFleet(arraySchema), charChunks(arrayText, CHUNK).strings, n),
          expected: [input.documents],
        },
        {
          entrant: interleaved(names.ai(n), Layer.engine, false, aiSdkFleet, input.partial),
          expected: input.documents,
        },
        {
          entrant: interleaved(names.river(n), Layer.engine, false, jsonriverFleet, input.partial),
          expected: input.documents,
        },
      ],
    });
  }
  cases.push({
    label: 'stream creation',
    size: schemaText.length,
    contestants: [
      creation(names.sameJsonl, true, () => createJsonlStream({ schema })),
      creation(names.newJsonl, false, () => createJsonlStream({ schema: JSON.parse(schemaText) as JsonSchema })),
      creation(names.samePartial, true, () => createPartialStream({ schema })),
      creation(names.newPartial, false, () => createPartialStream({ schema: JSON.parse(schemaText) as JsonSchema })),
      creation(names.parseAlone, false, () => JSON.parse(schemaText)),
    ].map((entrant) => ({ entrant, expected: [CREATED] })),
  });
  return cases;
}

function cases(quick: boolean): Case[] {
  return casesFor((quick ? QUICK_COUNTS : FULL_COUNTS).map(inputs));
}

const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;

/**
 * heapUsed after collections, repeated until it settles: V8 drops the bytecode of functions not
 * run for a few collections (the timed runs' code), so the first collections after the timing
 * free megabytes that have nothing to do with the streams, and a figure taken across them comes
 * out negative.
 */
function heapUsed(): number {
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 20; i++) {
    gc?.();
    const now = process.memoryUsage().heapUsed;
    if (Math.abs(last - now) < 16_384) return now;
    last = now;
  }
  return last;
}

interface HeapFigures {
  /** Bytes per stream, created and nothing written. */
  readonly idle: number;
  /** Bytes per stream, half of each stream's chunks written. */
  readonly mid: number;
}

/**
 * One measurement: the heap before, with `make`'s N streams created, and with half of each
 * stream's chunks written; then the rest, so that every stream ends on a whole document, as in
 * the timed runs. A function of its own so that the fleet dies with its frame (a variable of a
 * loop in an async function stays alive in the function's context until overwritten, and the
 * next round's "before" would count the previous fleet).
 */
async function measureOnce(make: FleetMaker, chunks: readonly (readonly string[])[]): Promise<HeapFigures> {
  const n = chunks.length;
  const before = heapUsed();
  const fleet = make(n);
  const idle = (heapUsed() - before) / n;
  const rounds = roundsOf(chunks);
  const half = Math.ceil(rounds / 2);
  await feedInterleaved(fleet, chunks, half);
  const mid = (heapUsed() - before) / n;
  await feedInterleaved(fleet, chunks, rounds, half);
  await fleet.end();
  return { idle, mid };
}

/** Heap held per open stream of `make`, idle and mid-document (the median of HEAP_REPEATS). */
async function heapPerStream(make: FleetMaker, chunks: readonly (readonly string[])[]): Promise<HeapFigures> {
  // Compiled schemas and code paths first: they are paid once per process, not per stream.
  const warm = make(1);
  await feedInterleaved(warm, chunks.slice(0, 1), roundsOf(chunks));
  await warm.end();
  const idle: number[] = [];
  const mid: number[] = [];
  for (let i = 0; i < HEAP_REPEATS; i++) {
    sink = undefined;
    // Streams that ended still wait for their 'close' (next ticks): let them go first.
    await nextTurn();
    const figures = await measureOnce(make, chunks);
    idle.push(figures.idle);
    mid.push(figures.mid);
  }
  return { idle: median(idle), mid: median(mid) };
}

const formatBytes = (bytes: number) => (bytes < 10_000 ? `${Math.round(bytes)} B` : `${(bytes / 1000).toFixed(1)} KB`);

function find(timings: readonly Timing[], name: string): Timing {
  const t = timings.find((x) => x.name === name);
  if (t === undefined) throw new Error(`concurrent-streams: no timing for ${name}`);
  return t;
}

/** Time ÷ reference per round, with the parse's own time taken off `a` first. */
function ratioWithout(a: Timing, b: Timing, taken: Timing): ReturnType<typeof ratio> {
  const rounds = a.roundsMs.map((ms, i) => Math.max(0, ms - (taken.roundsMs[i] ?? 0)));
  return ratio({ ...a, roundsMs: rounds, medianMs: median(rounds) }, b);
}

export const concurrentStreams: Scenario = {
  name: 'concurrent-streams',
  title: 'Many streams at once: interleaved chunks, heap per stream, creation with an equal schema',
  about:
    `N = ${FULL_COUNTS.map((n) => n.toLocaleString('en-US')).join(' and ')} streams (${QUICK_COUNTS.join(' and ')} with --quick), ` +
    `each with its own seeded answer — ${LINES_PER_STREAM} JSONL lines of the 3-branch discriminated \`oneOf\` (\`triadSchema\`, about 200 B a line) for the Node JSONL streams, ` +
    'one object of that union for the Node partial streams (with the schema) — cut in 4-character chunks and fed one chunk per stream per round, ' +
    'an event-loop turn after each round, as a server reading many sockets does; default options. ' +
    'Reference: the same input through one stream (for the partial streams the same documents as one array, its schema an array of the union), ' +
    'the same writes each to an idle stream, with as many event-loop turns. To split the cost, the same interleaving of the JSONL input through N core decoders ' +
    '(`createJsonlDecoder`, no stream), through the simplest framing a user could write (append each chunk to the stream’s pending string, `JSON.parse` at the newline) ' +
    'and through N do-nothing Transforms (Node’s stream machinery alone), each against one of its kind. ' +
    'Peers on the same interleaving: the AI SDK’s `parsePartialJson` per stream, ' +
    'the stream’s text so far re-parsed after each chunk (as `useObject` does), and jsonriver, one parser per stream over an async iterable of its chunks. ' +
    'Heap per open stream: `heapUsed` after `gc()` with N streams created and nothing written (idle), then with half of each stream’s chunks written (mid-document), ' +
    `minus the heap before, ÷ N (median of ${HEAP_REPEATS}). Creation: ${CREATED} streams created with the schema object seen before, ` +
    'and with `JSON.parse` of the schema’s text per stream (a new object of the same content, as a server that reads its schema per request), ' +
    'beside `JSON.parse` alone (its own share).',
  cases,
  async run(context) {
    const counts = context.quick ? QUICK_COUNTS : FULL_COUNTS;
    const all = counts.map(inputs);
    const caseList = casesFor(all);
    const timings = new Map<string, Timing[]>();
    for (const c of caseList) {
      context.log(`concurrent-streams: ${c.label}`);
      timings.set(c.label, await compare(c.contestants, context.measure));
    }

    const targets: TargetResult[] = [];
    const largest = all[all.length - 1] as Inputs;
    const interleavingRows: string[][] = [];
    for (const input of all) {
      const label = input.n.toLocaleString('en-US');
      const jsonl = timings.get(`${label} JSONL streams`) ?? [];
      const partial = timings.get(`${label} partial streams`) ?? [];
      const jsonlRatio = ratio(find(jsonl, names.jsonl(input.n)), find(jsonl, names.jsonlOne));
      const partialOne = find(partial, names.partialOne);
      const ours = find(partial, names.partial(input.n));
      const partialRatio = ratio(ours, partialOne);
      interleavingRows.push(
        [
          `${label} JSONL streams (${formatSize(input.jsonlSize)})`,
          names.jsonl(input.n),
          `${find(jsonl, names.jsonl(input.n)).medianMs.toFixed(0)} ms`,
          formatSpread(jsonlRatio),
        ],
        [
          `${label} JSONL streams`,
          names.decoder(input.n),
          `${find(jsonl, names.decoder(input.n)).medianMs.toFixed(0)} ms`,
          `${formatSpread(ratio(find(jsonl, names.decoder(input.n)), find(jsonl, names.decoderOne)))} one decoder`,
        ],
        [
          `${label} JSONL streams`,
          names.minimal(input.n),
          `${find(jsonl, names.minimal(input.n)).medianMs.toFixed(0)} ms`,
          `${formatSpread(ratio(find(jsonl, names.minimal(input.n)), find(jsonl, names.minimalOne)))} one loop; llmjson's interleaved decoders ÷ these: ${formatSpread(ratio(find(jsonl, names.decoder(input.n)), find(jsonl, names.minimal(input.n))))}`,
        ],
        [
          `${label} JSONL streams`,
          names.floor(input.n),
          `${find(jsonl, names.floor(input.n)).medianMs.toFixed(0)} ms`,
          `${formatSpread(ratio(find(jsonl, names.floor(input.n)), find(jsonl, names.floorOne)))} one do-nothing Transform`,
        ],
        [
          `${label} partial streams (${formatSize(input.partialSize)})`,
          names.partial(input.n),
          `${ours.medianMs.toFixed(0)} ms`,
          formatSpread(partialRatio),
        ],
        ...[names.ai(input.n), names.river(input.n)].map((name) => {
          const peer = find(partial, name);
          return [
            `${label} partial streams`,
            name,
            `${peer.medianMs.toFixed(0)} ms`,
            `${formatSpread(ratio(peer, partialOne))}; ${formatSpread(ratio(peer, ours))} llmjson's`,
          ];
        }),
      );
      if (input === largest) {
        for (const [kind, r] of [
          ['JSONL', jsonlRatio],
          ['partial', partialRatio],
        ] as const) {
          targets.push({
            target: `concurrent streams: ${label} interleaved ${kind} streams ≤ ${INTERLEAVED_TARGET}× the same input through one stream`,
            basis: `${kind === 'JSONL' ? names.jsonl(input.n) : names.partial(input.n)}, 4-char chunks`,
            measured: `time ÷ one stream: ${formatSpread(r)}`,
            met: r.median <= INTERLEAVED_TARGET,
          });
        }
      }
    }
    const interleavingTable: Table = {
      caption:
        'Interleaved streams against the same input through one stream (time ÷ one stream: 1× means no cost for having many open; median over rounds). The core decoder alone and a do-nothing Transform, each ÷ one of its own kind, split the cost between the engine and Node’s stream machinery. Peers ÷ the one llmjson stream, and ÷ llmjson’s interleaved streams.',
      header: ['case', 'entrant', 'time of one run', 'time ÷ one stream'],
      rows: interleavingRows,
    };

    const schema = triadSchema();
    const heapRows: string[][] = [];
    const notes: string[] = [];
    if (gc === undefined) {
      notes.push('Heap per stream not measured: run node with --expose-gc (as `pnpm bench` does).');
    } else {
      const kinds: [string, FleetMaker, readonly (readonly string[])[]][] = [
        ['llmjson createJsonlStream (schema)', jsonlFleet(schema, false), largest.jsonl],
        ['llmjson createPartialStream (schema)', partialFleet(schema), largest.partial],
        ['ai parsePartialJson (text so far + last value)', aiSdkFleet, largest.partial],
        ['jsonriver parse (parser + async iterable)', jsonriverFleet, largest.partial],
      ];
      for (const [name, make, chunks] of kinds) {
        context.log(`concurrent-streams: heap, ${name}`);
        const figures = await heapPerStream(make, chunks);
        heapRows.push([name, formatBytes(figures.idle), formatBytes(figures.mid)]);
        if (name.startsWith('llmjson')) {
          targets.push({
            target: `concurrent streams: heap per idle stream < ${IDLE_HEAP_TARGET / 1000} KB`,
            basis: `${name}, ${largest.n.toLocaleString('en-US')} streams`,
            measured: `${formatBytes(figures.idle)} idle, ${formatBytes(figures.mid)} mid-document`,
            met: figures.idle < IDLE_HEAP_TARGET,
          });
        }
      }
    }
    const heapTable: Table = {
      caption: `Heap held per open stream, ${largest.n.toLocaleString('en-US')} streams open (heapUsed after gc, ÷ N; median of ${HEAP_REPEATS}).`,
      header: ['stream', 'idle (created, nothing written)', 'mid-document (half the chunks written)'],
      rows: heapRows,
    };

    const created = timings.get('stream creation') ?? [];
    const parse = find(created, names.parseAlone);
    const creationRows: string[][] = [];
    for (const [same, fresh] of [
      [names.sameJsonl, names.newJsonl],
      [names.samePartial, names.newPartial],
    ] as const) {
      const a = find(created, same);
      const b = find(created, fresh);
      const whole = ratio(b, a);
      const own = ratioWithout(b, a, parse);
      creationRows.push(
        [same, `${((a.medianMs * 1000) / CREATED).toFixed(1)} µs`, '1×', '1×'],
        [fresh, `${((b.medianMs * 1000) / CREATED).toFixed(1)} µs`, formatSpread(whole), formatSpread(own)],
      );
      targets.push({
        target: `concurrent streams: creating a stream with a new equal schema object ≤ ${CREATION_TARGET}× with the same object`,
        basis: `${fresh}, JSON.parse's own time taken off`,
        measured: `time ÷ same object: ${formatSpread(own)} (with JSON.parse: ${formatSpread(whole)})`,
        met: own.median <= CREATION_TARGET,
      });
    }
    creationRows.push([names.parseAlone, `${((parse.medianMs * 1000) / CREATED).toFixed(1)} µs`, '—', '—']);
    const creationTable: Table = {
      caption:
        'Creating a stream: with the schema object seen before, and with a new object of the same content per stream (time per stream, median over rounds; ratios to the same object, with and without JSON.parse’s own time).',
      header: ['entrant', 'time per stream', 'time ÷ same object', 'without JSON.parse'],
      rows: creationRows,
    };

    notes.push(
      'Every entrant delivers what it must before it is timed: every valid line of every JSONL stream, in stream order; every partial stream’s final value (JSON.parse of its document).',
      `Chunks: ${CHUNK} characters; the one-stream references get an event-loop turn every N writes, as many as the interleaved run’s rounds.`,
      'Figures from one process run; quote ratios between entrants of the same run, not absolute times (the machine may be shared).',
      `Targets: ${largest.n.toLocaleString('en-US')} interleaved streams ≤ ${INTERLEAVED_TARGET}× one stream; < ${IDLE_HEAP_TARGET / 1000} KB per idle stream; creation with a new equal schema ≤ ${CREATION_TARGET}× the same object (${formatRatio(CREATION_TARGET)}).`,
    );
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [interleavingTable, heapTable, creationTable],
      notes,
      targets,
      data: { timings: Object.fromEntries(timings), heap: heapRows },
    };
  },
};
