/**
 * Bytes on the wire for a live UI: a seeded 100 KB `{"title", "summary", "items": [ … ]}`
 * answer (about 1 100 small items: the structure-heavy case) arrives as 4-character model
 * tokens at a pace, and the server sends it to the browser as:
 * - llmjson `toEventStream` with its defaults (SSE, compact change lists, at most one event per
 *   50 ms), with `throttle: 0` (one event per chunk), `throttle: 250`, and as NDJSON;
 * - the wire format's version 1 form (every change with its whole path, one event per chunk:
 *   what `toEventStream` sent before the compact form);
 * - the raw text stream the AI SDK's `useObject` reads (`toTextStreamResponse`: one write per
 *   token, the client re-parses the text);
 * - RFC 6902 JSON Patch, one `STATE_DELTA`-like SSE event per chunk, where an appended string is
 *   a `replace` of the whole string (JSON Patch has no append).
 * The question (the live-UI issue): are the default events at most 1.25× the answer's own bytes?
 *
 * The pace is played on a virtual clock (`VirtualClock`: `setTimeout`, `clearTimeout` and
 * `performance.now` replaced while a run lasts), so that 50 tokens a second over a 100 KB answer
 * takes no 10 minutes and the figure does not depend on the machine's load: the events are
 * what the real `toEventStream` writes when the tokens arrive at those times. Byte counts are
 * exact, so there is one round. "With HTTP/1.1 chunk framing" adds what chunked transfer
 * encoding costs per write (the size in hex, two CRLFs), the one part of the transport every
 * entrant pays per write.
 */

import { applyChanges, type Change } from '@llmjson/core';
import {
  createPartialStream,
  fromEventStream,
  type ToEventStreamOptions,
  toEventStream,
  toJsonPatch,
} from '@llmjson/web';
import { type Entrant, Layer } from '../entrants.js';
import { charChunks } from '../inputs.js';
import { formatSize } from '../report.js';
import type { Case, Scenario, Table, TargetResult } from '../scenario.js';
import { itemsDocument } from './partial.js';

const FULL_SIZE = 100_000;
const QUICK_SIZE = 10_000;
const TARGET = 1.25;
/** Tokens per second; `Infinity`: the whole answer at once (a finished answer replayed). */
const PACES = [50, 2_000, Number.POSITIVE_INFINITY] as const;

const OURS = 'llmjson toEventStream() (defaults: SSE, compact, throttle 50 ms)';
const PER_CHUNK = 'llmjson toEventStream({ throttle: 0 }) (an event per chunk)';
const NDJSON = "llmjson toEventStream({ format: 'ndjson' })";
const SLOWER = 'llmjson toEventStream({ throttle: 250 })';
const VERSION_1 = 'llmjson wire version 1 (whole paths, an event per chunk)';
const TEXT = "raw text stream (the AI SDK's useObject: toTextStreamResponse)";
const PATCH = 'RFC 6902 JSON Patch per chunk (whole-string replace)';

/**
 * A clock that runs only when the program waits: timers fire in time order, each after every
 * pending promise job has run (a real `setImmediate` between them), and time jumps to the next
 * timer. Installed over the globals for one run.
 */
class VirtualClock {
  private time = 0;
  private sequence = 0;
  private readonly timers = new Map<
    number,
    { readonly at: number; readonly order: number; readonly run: () => void }
  >();
  private readonly saved = {
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
    now: performance.now,
  };

  install(): void {
    const fake = (run: () => void, ms?: number) => {
      const id = ++this.sequence;
      this.timers.set(id, { at: this.time + Math.max(0, ms ?? 0), order: id, run });
      return id;
    };
    globalThis.setTimeout = fake as unknown as typeof setTimeout;
    globalThis.clearTimeout = ((id: number) => this.timers.delete(id)) as unknown as typeof clearTimeout;
    Object.defineProperty(performance, 'now', { value: () => this.time, configurable: true, writable: true });
  }

  uninstall(): void {
    globalThis.setTimeout = this.saved.setTimeout;
    globalThis.clearTimeout = this.saved.clearTimeout;
    Object.defineProperty(performance, 'now', { value: this.saved.now, configurable: true, writable: true });
  }

  /** Fires timers until `done` settles. */
  async until<T>(done: Promise<T>): Promise<T> {
    let settled = false;
    done.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return done;
      let next: { at: number; order: number; run: () => void; id: number } | undefined;
      for (const [id, timer] of this.timers) {
        if (next === undefined || timer.at < next.at || (timer.at === next.at && timer.order < next.order))
          next = { ...timer, id };
      }
      if (next === undefined) throw new Error('virtual clock: nothing to wait for, and the run has not ended');
      this.timers.delete(next.id);
      this.time = next.at;
      next.run();
    }
  }
}

/** What one entrant sent: its writes (payload bytes each). */
interface Sent {
  readonly writes: readonly number[];
  /** The value the receiving side ends with (what `verify` checks). */
  readonly value: unknown;
}

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text).length;

/** The tokens as they arrive: after `i / pace` seconds (all at once when the pace is infinite). */
async function* paced(tokens: readonly string[], pace: number): AsyncGenerator<string> {
  for (let i = 0; i < tokens.length; i++) {
    if (Number.isFinite(pace)) {
      const due = (i * 1000) / pace;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    yield tokens[i] as string;
  }
}

/** The model text through the Web partial stream (changes), its change lists as they come. */
function changeStream(tokens: readonly string[], pace: number) {
  const partial = createPartialStream({ emit: 'changes' });
  void ReadableStream.from(paced(tokens, pace))
    .pipeTo(partial.writable)
    .catch(() => {});
  return partial;
}

/** llmjson's events: every write the server makes, and the value a client builds from them. */
async function sendEvents(tokens: readonly string[], pace: number, options: ToEventStreamOptions = {}): Promise<Sent> {
  const events = toEventStream(changeStream(tokens, pace), options);
  const writes: number[] = [];
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of events) {
    writes.push(chunk.length);
    text += decoder.decode(chunk, { stream: true });
  }
  // The value, read back by the reader the browser runs.
  let value: unknown;
  for await (const event of fromEventStream(new Response(text).body as ReadableStream<Uint8Array>)) {
    if (event.type === 'changes') value = applyChanges(value, event.changes);
  }
  return { writes, value };
}

/** Change lists per chunk, encoded by `encode` as one SSE event each. */
async function sendPerChunk(
  tokens: readonly string[],
  encode: (changes: readonly Change[], state: unknown) => string,
): Promise<Sent> {
  const writes: number[] = [];
  let state: unknown;
  for await (const list of changeStream(tokens, Number.POSITIVE_INFINITY).readable as unknown as AsyncIterable<
    readonly Change[]
  >) {
    if (list.length === 0) continue;
    writes.push(bytesOf(`data: ${encode(list, state)}\n\n`));
    state = applyChanges(state, list);
  }
  return { writes, value: state };
}

/** A change as version 1 wrote it: a container empty. */
function wholePath(change: Change): Change {
  if (change.op !== 'add' || typeof change.value !== 'object' || change.value === null) return change;
  return { op: 'add', path: change.path, value: Array.isArray(change.value) ? [] : {} };
}

function entrantsFor(text: string, tokens: readonly string[], pace: number): Record<string, () => Promise<Sent>> {
  return {
    [OURS]: () => sendEvents(tokens, pace),
    [PER_CHUNK]: () => sendEvents(tokens, pace, { throttle: 0 }),
    [NDJSON]: () => sendEvents(tokens, pace, { format: 'ndjson' }),
    [SLOWER]: () => sendEvents(tokens, pace, { throttle: 250 }),
    [VERSION_1]: () => sendPerChunk(tokens, (list) => JSON.stringify(list.map(wholePath))),
    [TEXT]: async () => ({ writes: tokens.map(bytesOf), value: JSON.parse(text) }),
    [PATCH]: () => sendPerChunk(tokens, (list, state) => JSON.stringify(toJsonPatch(list, state))),
  };
}

/** Chunked transfer encoding per write: the size in hex, CRLF, the data, CRLF. */
const chunked = (writes: readonly number[]) => writes.reduce((n, w) => n + w + w.toString(16).length + 4, 0);
const sum = (writes: readonly number[]) => writes.reduce((n, w) => n + w, 0);
const paceLabel = (pace: number) => (Number.isFinite(pace) ? `${pace} tokens/s` : 'all at once');

function input(quick: boolean) {
  const text = itemsDocument(quick ? QUICK_SIZE : FULL_SIZE, 4_242);
  return { text, tokens: charChunks(text, 4).strings };
}

function cases(quick: boolean): Case[] {
  const { text, tokens } = input(quick);
  const expected = [JSON.parse(text)];
  const make = (name: string, ours: boolean, run: () => Promise<Sent>): Entrant => ({
    name,
    layer: Layer.stream,
    ours,
    run: async () => [(await run()).value],
  });
  const runs = entrantsFor(text, tokens, Number.POSITIVE_INFINITY);
  return [
    {
      label: `${formatSize(bytesOf(text))} answer, 4-char tokens`,
      size: bytesOf(text),
      contestants: Object.entries(runs).map(([name, run]) => ({
        entrant: make(name, name.startsWith('llmjson'), run),
        expected,
      })),
    },
  ];
}

export const liveWire: Scenario = {
  name: 'live-wire',
  title: 'Bytes on the wire for a live UI',
  about:
    `A ${formatSize(FULL_SIZE)} answer (${formatSize(QUICK_SIZE)} with --quick) of about 1 100 small items, in 4-character tokens at ` +
    `${PACES.map(paceLabel).join(', ')} (a virtual clock), sent to the browser as llmjson's change events (defaults, and one event per chunk), ` +
    "the wire's version 1 form, the raw text stream the AI SDK's useObject reads, and RFC 6902 JSON Patch with whole-string replaces. " +
    `Payload bytes, writes, bytes with HTTP/1.1 chunk framing, and each as a multiple of the answer's own bytes. Target: the default events ≤ ${TARGET}× the answer.`,
  cases,
  async run(context) {
    const { text, tokens } = input(context.quick);
    const answer = bytesOf(text);
    const expected = JSON.stringify(JSON.parse(text));
    const rows: string[][] = [];
    const targets: TargetResult[] = [];
    const data: Record<string, Record<string, { bytes: number; writes: number; framed: number }>> = {};
    for (const pace of PACES) {
      context.log(`live-wire: ${paceLabel(pace)}`);
      data[paceLabel(pace)] = {};
      for (const [name, run] of Object.entries(entrantsFor(text, tokens, pace))) {
        const clock = new VirtualClock();
        clock.install();
        let sent: Sent;
        try {
          sent = await clock.until(run());
        } finally {
          clock.uninstall();
        }
        if (JSON.stringify(sent.value) !== expected) throw new Error(`live-wire: ${name} did not deliver the answer`);
        const bytes = sum(sent.writes);
        const framed = chunked(sent.writes);
        (data[paceLabel(pace)] as Record<string, unknown>)[name] = { bytes, writes: sent.writes.length, framed };
        rows.push([
          paceLabel(pace),
          name,
          bytes.toLocaleString('en-US'),
          `${(bytes / answer).toFixed(2)}×`,
          sent.writes.length.toLocaleString('en-US'),
          `${(framed / answer).toFixed(2)}×`,
        ]);
        if (name === OURS) {
          targets.push({
            target: `live wire, ${formatSize(answer)} answer at ${paceLabel(pace)}: default toEventStream ≤ ${TARGET}× the answer's bytes`,
            basis: OURS,
            measured: `${(bytes / answer).toFixed(2)}× (${(framed / answer).toFixed(2)}× with chunk framing)`,
            met: bytes / answer <= TARGET,
          });
        }
      }
    }
    const table: Table = {
      caption: `${formatSize(answer)} answer (${answer.toLocaleString('en-US')} bytes), 4-char tokens: what the server writes.`,
      header: ['pace', 'sent as', 'payload bytes', '× answer', 'writes', '× answer with chunk framing'],
      rows,
    };
    const names = [...new Set(rows.map((row) => row[1] as string))];
    const byPace: Table = {
      caption: `Bytes on the wire as a multiple of the ${formatSize(answer)} answer's own bytes, by pace (target ≤ ${TARGET}× for the default)`,
      header: ['sent as (bytes ÷ the answer’s bytes)', ...PACES.map(paceLabel)],
      rows: names.map((name) => [
        name,
        ...PACES.map((pace) => rows.find((row) => row[0] === paceLabel(pace) && row[1] === name)?.[3] ?? '—'),
      ]),
      chart: 'times',
    };
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [table, byPace],
      notes: [
        'Byte counts are exact and do not depend on the machine: one run per entrant and pace, on a virtual clock.',
        'JSON Patch and version 1 are computed per chunk from the same change lists; their pace does not change them.',
      ],
      targets,
      data,
    };
  },
};
