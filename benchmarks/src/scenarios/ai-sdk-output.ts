/**
 * The AI SDK's structured output, per chunk: `streamText` hands its output's
 * `parsePartialOutput({ text })` the whole text of the step so far on every text chunk. The AI
 * SDK's own `Output.object` repairs and parses that whole text each time (quadratic in the
 * answer); `object()` from @llmjson/ai-sdk reads only the text past what it read before, with
 * one partial-value builder (linear). Both are driven exactly as `streamText` drives them: the
 * text grows by one chunk, `parsePartialOutput` is awaited, and at the end `parseCompleteOutput`
 * gives the value (checked equal to `JSON.parse` of the answer for both).
 *
 * Measured at 10 KB and 100 KB answers (an object holding an array of records) in 16-character
 * chunks (a few tokens, as providers send them): the time per chunk of each output, and the
 * growth exponent from 10 KB to 100 KB (1 linear, 2 quadratic). Also reported: what `streamText`
 * itself then spends per chunk on `JSON.stringify` of each new partial (its change check), which
 * either output pays and neither controls.
 *
 * `ai` 7 (and so @llmjson/ai-sdk) needs Node 22 or later: on an older Node the scenario says so
 * and measures nothing; run it with `npx -y node@22 --expose-gc benchmarks/dist/run.js ai-sdk-output`
 * after `npx tsc -b && npx tsc -b benchmarks`; on Node 20 its cases are empty (with a warning). Both packages are loaded from packages/ai-sdk (its `ai` 7 devDependency,
 * and its build), since the benchmarks' own `ai` is the 5.x the provider scenarios use.
 */

import { z } from 'zod';
import type { Entrant } from '../entrants.js';
import { formatRatio, formatSize } from '../format.js';
import type { Case, Scenario, Table, TargetResult } from '../scenario.js';

const SIZES = [10_000, 100_000] as const;
const QUICK_SIZES = [2_000] as const;
const CHUNK = 16;
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const NOT_HERE = `ai-sdk-output not measured: ai 7 needs Node >= 22 and this is Node ${process.versions.node} (run: npx tsc -b && npx tsc -b benchmarks && npx -y node@22 --expose-gc benchmarks/dist/run.js ai-sdk-output)`;

/** The part of the AI SDK's `Output` interface that parses text. */
interface TextOutput {
  parsePartialOutput(options: { text: string }): Promise<{ partial: unknown } | undefined>;
  parseCompleteOutput(options: { text: string }, context: unknown): Promise<unknown>;
}

interface Modules {
  readonly objectOf: () => TextOutput;
  readonly sdkObjectOf: () => TextOutput;
}

let loaded: Promise<Modules> | undefined;

/** @llmjson/ai-sdk's build and the `ai` 7 it was built against, from packages/ai-sdk. */
function modules(): Promise<Modules> {
  loaded ??= (async () => {
    const base = new URL('../../../packages/ai-sdk/', import.meta.url);
    const ours = (await import(new URL('dist/index.js', base).href)) as {
      object: (options: { schema: unknown }) => TextOutput;
    };
    const ai = (await import(new URL('node_modules/ai/dist/index.js', base).href)) as {
      Output: { object: (options: { schema: unknown }) => TextOutput };
    };
    // The same zod schema for both, accepting any value: the work measured is reading the text.
    const schema = z.unknown();
    return {
      objectOf: () => ours.object({ schema }),
      sdkObjectOf: () => ai.Output.object({ schema }),
    };
  })();
  return loaded;
}

/** An answer of about `size` characters: an object holding an array of records. */
export function answerOf(size: number): { readonly text: string; readonly value: unknown } {
  const items: unknown[] = [];
  const value = { title: 'inventory', items };
  let length = 30;
  for (let i = 0; length < size; i++) {
    const item = { id: i, name: `item ${i}`, tags: ['a', 'b'], note: 'a sentence of model output about it' };
    items.push(item);
    length += JSON.stringify(item).length + 1;
  }
  return { text: JSON.stringify(value), value };
}

const context = {
  response: { id: 'r', timestamp: new Date(0), modelId: 'm' },
  usage: {},
  finishReason: 'stop',
};

interface Drive {
  readonly value: unknown;
  readonly partials: unknown[];
}

/** Drives `output` as streamText does: the text grows a chunk at a time; then the final parse. */
async function drive(output: TextOutput, text: string, keep: boolean): Promise<Drive> {
  const partials: unknown[] = [];
  let sofar = '';
  for (let i = 0; i < text.length; i += CHUNK) {
    sofar += text.slice(i, i + CHUNK);
    const result = await output.parsePartialOutput({ text: sofar });
    if (keep && result !== undefined) partials.push(result.partial);
  }
  return { value: await output.parseCompleteOutput({ text: sofar }, context), partials };
}

function entrants(text: string): Entrant[] {
  return [
    {
      name: 'llmjson object() (@llmjson/ai-sdk)',
      layer: 'engine',
      ours: true,
      run: async () => [(await drive((await modules()).objectOf(), text, false)).value],
    },
    {
      name: 'AI SDK Output.object (ai 7)',
      layer: 'engine',
      ours: false,
      run: async () => [(await drive((await modules()).sdkObjectOf(), text, false)).value],
    },
  ];
}

function cases(quick: boolean): Case[] {
  if (NODE_MAJOR < 22) {
    console.warn(`${NOT_HERE}; its cases are empty here.`);
    return [];
  }
  return (quick ? QUICK_SIZES : SIZES).map((size) => {
    const { text, value } = answerOf(size);
    return {
      label: `${formatSize(text.length)} answer`,
      size: text.length,
      contestants: entrants(text).map((entrant) => ({ entrant, expected: [value] })),
    };
  });
}

/** Median time of `rounds` runs of `run`, in milliseconds. */
async function timeOf(rounds: number, run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

export const aiSdkOutput: Scenario = {
  name: 'ai-sdk-output',
  title: "The AI SDK's structured output per chunk: object() against Output.object",
  about:
    "streamText hands its output the whole text so far on every chunk. Time per chunk of the AI SDK's Output.object (which re-parses that text) " +
    `and of @llmjson/ai-sdk's object() (which reads only the new text), driven as streamText drives them, ${CHUNK}-character chunks; ` +
    'growth exponent 10 KB → 100 KB (1 linear, 2 quadratic). ai 7 needs Node ≥ 22.',
  cases,
  async run(run) {
    if (NODE_MAJOR < 22) {
      run.log(NOT_HERE);
      return { scenario: this.name, title: this.title, about: this.about, tables: [], notes: [NOT_HERE], data: {} };
    }
    const m = await modules();
    const rows: string[][] = [];
    const data: Record<string, unknown>[] = [];
    const perChunk: { size: number; ours: number; theirs: number }[] = [];
    for (const size of run.quick ? QUICK_SIZES : SIZES) {
      const { text, value } = answerOf(size);
      const chunks = Math.ceil(text.length / CHUNK);
      // Both must end with the answer's value before anything is timed.
      for (const output of [m.objectOf(), m.sdkObjectOf()]) {
        const got = (await drive(output, text, false)).value;
        if (JSON.stringify(got) !== JSON.stringify(value)) throw new Error(`ai-sdk-output: a wrong value at ${size}`);
      }
      const rounds = run.quick ? 1 : Math.max(1, run.measure.rounds);
      const ours = await timeOf(rounds * 3, () => drive(m.objectOf(), text, false));
      // The AI SDK's output takes tens of seconds at 100 KB: one run there.
      const theirs = await timeOf(size >= 100_000 ? 1 : rounds, () => drive(m.sdkObjectOf(), text, false));
      // What streamText then does with each new partial (its change check): JSON.stringify.
      const { partials } = await drive(m.objectOf(), text, true);
      const stringify = await timeOf(3, async () => {
        for (const partial of partials) JSON.stringify(partial);
      });
      const oursUs = (ours * 1000) / chunks;
      const theirsUs = (theirs * 1000) / chunks;
      perChunk.push({ size: text.length, ours: ours, theirs: theirs });
      rows.push([
        formatSize(text.length),
        String(chunks),
        `${theirsUs.toFixed(1)} µs`,
        `${oursUs.toFixed(2)} µs`,
        formatRatio(theirs / ours),
        `${((stringify * 1000) / chunks).toFixed(1)} µs`,
      ]);
      data.push({ size: text.length, chunks, oursMs: ours, theirsMs: theirs, stringifyMs: stringify });
      run.log(
        `ai-sdk-output ${formatSize(text.length)}: Output.object ${theirs.toFixed(0)} ms, object() ${ours.toFixed(1)} ms`,
      );
    }
    const table: Table = {
      caption: `Work per ${CHUNK}-character chunk, parsePartialOutput as streamText calls it (then parseCompleteOutput)`,
      header: [
        'answer',
        'chunks',
        'Output.object (ai 7)',
        'object() (llmjson)',
        'less work',
        "streamText's JSON.stringify per partial",
      ],
      rows,
      chart: 'times',
    };
    const targets: TargetResult[] = [];
    const small = perChunk[0];
    const large = perChunk[perChunk.length - 1];
    if (small !== undefined && large !== undefined && large !== small) {
      const exponent = (ms: number, ms0: number) => Math.log(ms / ms0) / Math.log(large.size / small.size);
      const ourExponent = exponent(large.ours, small.ours);
      const theirExponent = exponent(large.theirs, small.theirs);
      targets.push({
        target: 'object(): linear where Output.object is quadratic',
        basis: `total time over the answer, ${formatSize(small.size)} → ${formatSize(large.size)}`,
        measured: `exponent ${ourExponent.toFixed(2)} (Output.object ${theirExponent.toFixed(2)})`,
        met: ourExponent < 1.3 && theirExponent > 1.7,
      });
      targets.push({
        target: 'object(): ≥ 20× less work per chunk than Output.object at 100 KB',
        basis: `${formatSize(large.size)} answer, ${CHUNK}-character chunks`,
        measured: formatRatio(large.theirs / large.ours),
        met: large.theirs / large.ours >= 20,
      });
    }
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [table],
      notes: [
        "streamText's own change check (JSON.stringify of each new partial) costs each chunk time in proportion to the partial's size, whichever output is used (the last column): quadratic over the answer, but a small constant next to Output.object's parse. object() gives a partial only when the value changed, so a chunk that changes nothing costs streamText nothing there.",
      ],
      targets,
      data,
    };
  },
};
