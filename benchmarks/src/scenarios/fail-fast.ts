/**
 * Fail fast: what stopping at the first contract violation saves. A local HTTP server plays a
 * model that goes wrong early — line 2 of its JSONL answer breaks the item schema's enum —
 * and writes the answer (1 KB, 10 KB, 100 KB) in 32-byte pieces, one per turn of the event
 * loop, until the answer ends or the connection closes. The client fetches it and pipes the
 * body (`Readable.fromWeb` + `pipeline`) into `createJsonlStream({ schema })`, with and without
 * `failFast`. Reported: the bytes the server wrote (what the model generated, what a paid API
 * bills), and the time from the request to the verdict — the ContractViolationError with
 * fail fast, the end of the stream without (a caller that skips the bad line learns nothing
 * sooner). The in-memory cases check that each entrant delivers the values before the bad line
 * (fail fast) or every valid value (skip and go on), against split2 + ajv destroyed by hand.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ContractViolationError, createJsonlStream, type JsonSchema } from '@llmjson/node';
import split2 from 'split2';
import { ajvCheck, type Entrant, Layer } from '../entrants.js';
import { median } from '../harness.js';
import { formatSize } from '../report.js';
import type { Case, Scenario, Table } from '../scenario.js';

const SIZES = [1_000, 10_000, 100_000] as const;
const QUICK_SIZES = [1_000, 10_000] as const;
/** Bytes per server write: a few tokens. */
const PIECE = 32;
/** The line (1-based) that breaks the schema: early. */
const BAD_LINE = 2;

const SCHEMA: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'integer' }, kind: { enum: ['fact', 'opinion'] }, text: { type: 'string' } },
  required: ['id', 'kind', 'text'],
};

interface Answer {
  readonly text: string;
  /** The valid lines' values, in order. */
  readonly valid: readonly unknown[];
  /** The valid values before the bad line. */
  readonly before: readonly unknown[];
}

/** About `size` bytes of JSONL whose line `BAD_LINE` breaks the enum. */
function answer(size: number): Answer {
  const lines: string[] = [];
  const valid: unknown[] = [];
  const before: unknown[] = [];
  let length = 0;
  for (let id = 1; length < size; id++) {
    const bad = id === BAD_LINE;
    const value = { id, kind: bad ? 'rumour' : 'fact', text: `item ${id}: a sentence of model output about it` };
    const line = `${JSON.stringify(value)}\n`;
    lines.push(line);
    length += line.length;
    if (!bad) valid.push(value);
    if (id < BAD_LINE) before.push(value);
  }
  return { text: lines.join(''), valid, before };
}

function pieces(text: string): Buffer[] {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += PIECE) out.push(bytes.subarray(i, i + PIECE));
  return out;
}

interface Served {
  /** Bytes written before the connection closed or the answer ended. */
  readonly written: number;
  /** Milliseconds from the request to the verdict. */
  readonly verdictMs: number;
  readonly values: number;
}

/** One request to a fresh local server that writes `chunks` like a model. */
async function serve(chunks: readonly Buffer[], failFast: boolean): Promise<Served> {
  let written = 0;
  let closed!: () => void;
  const answered = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const server = createServer((_request, response) => {
    let gone = false;
    response.on('close', () => {
      gone = true;
      closed();
    });
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    void (async () => {
      for (const chunk of chunks) {
        if (gone) return;
        await new Promise<void>((resolve) => response.write(chunk, () => resolve()));
        written += chunk.length;
        await nextTurn();
      }
      if (!gone) response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let values = 0;
  const started = performance.now();
  let verdictMs: number;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`);
    await pipeline(
      Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>),
      createJsonlStream({ schema: SCHEMA, failFast }),
      async (source: AsyncIterable<unknown>) => {
        for await (const _ of source) values++;
      },
    );
    verdictMs = performance.now() - started;
    if (failFast) throw new Error('fail fast: the stream ended without the violation');
  } catch (error) {
    if (!(error instanceof ContractViolationError)) throw error;
    verdictMs = performance.now() - started;
  }
  await answered;
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return { written, verdictMs, values };
}

/** Writes `chunks` to `stream` and collects what it delivers until it ends or fails. */
function collect(stream: NodeJS.ReadWriteStream, chunks: readonly string[]): Promise<unknown[]> {
  const values: unknown[] = [];
  return pipeline(
    Readable.from(chunks),
    stream,
    new Writable({
      objectMode: true,
      write(value: unknown, _encoding, callback) {
        values.push(value);
        callback();
      },
    }),
  ).then(
    () => values,
    (error: unknown) => {
      if (error instanceof ContractViolationError || error instanceof HandFailure) return values;
      throw error;
    },
  );
}

class HandFailure extends Error {}

function cases(quick: boolean): Case[] {
  const check = ajvCheck(SCHEMA);
  return (quick ? QUICK_SIZES : SIZES).map((size) => {
    const a = answer(size);
    const chunks = pieces(a.text).map((b) => b.toString());
    const ours = (failFast: boolean): Entrant => ({
      name: `llmjson createJsonlStream${failFast ? ', failFast' : ' (skip the bad line, go on)'}`,
      layer: Layer.stream,
      ours: true,
      run: () => collect(createJsonlStream({ schema: SCHEMA, failFast }), chunks),
    });
    const byHand: Entrant = {
      name: 'split2 + JSON.parse + ajv, destroyed at the first failure',
      layer: Layer.stream,
      ours: false,
      run: () =>
        collect(
          split2((line: string): unknown => {
            const value: unknown = JSON.parse(line);
            if (!check(value)) throw new HandFailure(`line fails: ${line}`);
            return value;
          }),
          chunks,
        ),
    };
    return {
      label: formatSize(size),
      size: Buffer.byteLength(a.text),
      contestants: [
        { entrant: ours(true), expected: a.before },
        { entrant: byHand, expected: a.before },
        { entrant: ours(false), expected: a.valid },
      ],
    };
  });
}

export const failFast: Scenario = {
  name: 'fail-fast',
  title: 'Fail fast: bytes a model generates after its answer goes wrong',
  about:
    `A local HTTP server writes JSONL answers of ${SIZES.map(formatSize).join(', ')} in ${PIECE}-byte pieces, one per event-loop turn, ` +
    `line ${BAD_LINE} breaking the schema; fetch + Readable.fromWeb + pipeline into createJsonlStream({ schema }) with and without failFast. ` +
    'Bytes written are counted by the server until the connection closes; the verdict is the error (fail fast) or the end of the stream.',
  cases,
  async run(context) {
    const rows: string[][] = [];
    const data: unknown[] = [];
    const sizes = context.quick ? QUICK_SIZES : SIZES;
    const rounds = Math.max(1, context.measure.rounds);
    for (const size of sizes) {
      context.log(`${this.name}: ${formatSize(size)}`);
      const chunks = pieces(answer(size).text);
      const total = chunks.reduce((sum, c) => sum + c.length, 0);
      const runs: { fast: Served[]; full: Served[] } = { fast: [], full: [] };
      for (let round = 0; round < rounds; round++) {
        // Alternate which goes first, so neither always runs on a colder process.
        if (round % 2 === 0) {
          runs.fast.push(await serve(chunks, true));
          runs.full.push(await serve(chunks, false));
        } else {
          runs.full.push(await serve(chunks, false));
          runs.fast.push(await serve(chunks, true));
        }
      }
      const fastWritten = median(runs.fast.map((r) => r.written));
      const fullWritten = median(runs.full.map((r) => r.written));
      const fastMs = median(runs.fast.map((r) => r.verdictMs));
      const fullMs = median(runs.full.map((r) => r.verdictMs));
      data.push({ size: total, runs });
      rows.push([
        formatSize(total),
        `${fullWritten} B`,
        `${fastWritten} B`,
        `${((fastWritten / fullWritten) * 100).toFixed(1)} %`,
        `${fullMs.toFixed(1)} ms`,
        `${fastMs.toFixed(1)} ms`,
        `${(fullMs / fastMs).toFixed(1)}×`,
      ]);
    }
    const table: Table = {
      caption: `Median over ${rounds} rounds. Bytes written by the server before the connection closed; time from the request to the verdict.`,
      header: [
        'answer',
        'written, skip and go on',
        'written, failFast',
        'failFast ÷ skip',
        'verdict, skip and go on',
        'verdict, failFast',
        'sooner by',
      ],
      rows,
    };
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [table],
      notes: [
        'Times depend on the simulated pace (one 32-byte write per event-loop turn) and are quoted only as a ratio; the byte counts are what a metered API would bill.',
      ],
      data,
    };
  },
};
