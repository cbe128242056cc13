/**
 * Hostile tool calls: a model that calls tools named after Object.prototype's members
 * (`constructor`, `toString`, `__proto__`…) mixed with real ones, with arguments that are small
 * or past `maxArgumentsLength`, through the core tool-call decoder and the Node and Web
 * tool-call streams, under arbitrary chunking. Nothing throws; every call is accounted for:
 * a call to a tool that `tools` does not list has exactly one `tool` diagnostic (and its
 * arguments, unchecked; none when its first piece alone is past the cap, as nothing of it is
 * delivered); a call whose arguments pass the cap has exactly one `too-long` diagnostic and is
 * never emitted; every other call is emitted complete, with no diagnostic;
 * the answer text around the calls arrives whole; no prototype changes.
 *
 * Runs: 300 per property on CI, 60 locally (HOSTILE_RUNS overrides).
 */

import { Readable } from 'node:stream';
import { createToolCallDecoder, type Diagnostic, type JsonSchema, type ToolCallUpdate } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { splitAt, splitPoints } from '../support/chunking.js';
import { hostileRuns } from '../support/hostile.js';

const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__'];
const REAL = ['get_weather', 'get_time'];
const SCHEMA: JsonSchema = {
  type: 'object',
  properties: { q: { type: 'string' } },
  required: ['q'],
  additionalProperties: false,
};
/** A plain object, as users write it: its prototype is Object.prototype. */
const TOOLS: Record<string, JsonSchema> = { get_weather: SCHEMA, get_time: SCHEMA };
/** Small in the property (fast); the default (8 MiB) has its own test below. */
const CAP = 64;

interface Call {
  readonly id: string;
  readonly name: string;
  /** The arguments, `{"q": "..."}`, cut into the deltas the model streams. */
  readonly pieces: readonly string[];
  readonly oversized: boolean;
}

const call = (i: number): fc.Arbitrary<Call> =>
  fc
    .record({
      name: fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.constantFrom(...REAL)),
      size: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: CAP, max: 400 })),
      cuts: fc.array(fc.integer({ min: 0, max: 420 }), { maxLength: 6 }),
    })
    .map(({ name, size, cuts }) => {
      const args = `{"q":"${'abcdefghij'.repeat(41).slice(0, size)}"}`;
      return {
        id: `call_${i}`,
        name,
        pieces: splitAt(args, cuts).filter((p) => p !== ''),
        oversized: args.length > CAP,
      };
    });

const calls: fc.Arbitrary<Call[]> = fc
  .integer({ min: 1, max: 5 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => call(i))));

/** An OpenAI chat stream: text, then each call's deltas (its index, id and name on the first), then the end. */
function body(list: readonly Call[]): string {
  const event = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = event({ role: 'assistant', content: 'Calling. ' });
  list.forEach((c, index) => {
    c.pieces.forEach((piece, k) => {
      const fn = k === 0 ? { name: c.name, arguments: piece } : { arguments: piece };
      out += event({ tool_calls: [{ index, ...(k === 0 ? { id: c.id, type: 'function' } : {}), function: fn }] });
    });
  });
  return `${out}${event({ content: 'Done.' })}${event({}, 'tool_calls')}data: [DONE]\n\n`;
}

interface Outcome {
  readonly updates: ToolCallUpdate[];
  readonly diagnostics: Diagnostic[];
  readonly text: string;
}

/** Every call accounted for, as the header says. */
function check(list: readonly Call[], { updates, diagnostics, text }: Outcome, cap = CAP): void {
  expect(text).toBe('Calling. Done.');
  for (const c of list) {
    const mine = diagnostics.filter((d) => d.toolCall?.id === c.id);
    const known = Object.hasOwn(TOOLS, c.name);
    // The unknown-tool diagnostic comes with the call's first piece: none when that piece alone
    // is past the cap (the call is dropped before any of it is delivered).
    const reached = (c.pieces[0]?.length ?? 0) <= cap;
    const expected = [...(known || !reached ? [] : ['schema:tool']), ...(c.oversized ? ['too-long'] : [])];
    expect(
      mine.map((d) => (d.rule === 'tool' ? 'schema:tool' : d.reason)),
      `${c.id} (${c.name})`,
    ).toEqual(expected);
    const complete = updates.filter((u) => u.id === c.id && u.complete);
    expect(complete.length, `${c.id} (${c.name}) emitted`).toBe(c.oversized ? 0 : 1);
    if (!c.oversized) expect(JSON.stringify(complete[0]?.value)).toBe(c.pieces.join(''));
  }
  // Nothing else: no diagnostic without a call.
  expect(diagnostics.filter((d) => d.toolCall === undefined)).toEqual([]);
}

const prototypeNames = () => Object.getOwnPropertyNames(Object.prototype).join(',');

describe('hostile tool calls: prototype-named tools and oversized arguments', () => {
  const before = prototypeNames();

  test('core decoder: every call emitted, or reported once; nothing throws', () => {
    fc.assert(
      fc.property(
        calls.chain((list) => fc.tuple(fc.constant(list), splitPoints(body(list).length))),
        ([list, points]) => {
          const outcome: Outcome = { updates: [], diagnostics: [], text: '' };
          const decoder = createToolCallDecoder(
            { input: 'auto', tools: TOOLS, compileJsonSchema: compileSchema, maxArgumentsLength: CAP },
            {
              update: (u) => outcome.updates.push(u),
              diagnostic: (d) => outcome.diagnostics.push(d),
              text: (t) => {
                (outcome as { text: string }).text += t;
              },
            },
          );
          for (const chunk of splitAt(body(list), points)) decoder.write(chunk);
          decoder.end();
          check(list, outcome);
          expect(decoder.calls.map((c) => c.id)).toEqual(list.filter((c) => !c.oversized).map((c) => c.id));
          expect(prototypeNames()).toBe(before);
        },
      ),
      { numRuns: hostileRuns },
    );
  });

  test('Node and Web streams: the same accounting; the pipeline never rejects', async () => {
    await fc.assert(
      fc.asyncProperty(
        calls.chain((list) => fc.tuple(fc.constant(list), splitPoints(body(list).length))),
        async ([list, points]) => {
          const chunks = splitAt(body(list), points).map((c) => new TextEncoder().encode(c));
          for (const run of [runNode, runWeb]) check(list, await run(chunks, { maxArgumentsLength: CAP }));
          expect(prototypeNames()).toBe(before);
        },
      ),
      { numRuns: Math.max(10, Math.floor(hostileRuns / 3)) },
    );
  });

  test('arguments past the default cap (8 MiB) in 1 MiB deltas, between calls to prototype-named tools', async () => {
    const mib = 'x'.repeat(1024 * 1024);
    const list: Call[] = [
      { id: 'call_0', name: 'constructor', pieces: ['{"q":"a"}'], oversized: false },
      { id: 'call_1', name: 'get_weather', pieces: ['{"q":"', ...Array(9).fill(mib), '"}'], oversized: true },
      { id: 'call_2', name: 'toString', pieces: ['{"q":"b"}'], oversized: false },
      { id: 'call_3', name: 'get_time', pieces: ['{"q":"c"}'], oversized: false },
    ];
    const chunks = [new TextEncoder().encode(body(list))];
    for (const run of [runNode, runWeb]) check(list, await run(chunks, {}), 8 * 1024 * 1024);
  });
});

async function runNode(chunks: readonly Uint8Array[], options: { maxArgumentsLength?: number }): Promise<Outcome> {
  const outcome = { updates: [] as ToolCallUpdate[], diagnostics: [] as Diagnostic[], text: '' };
  const stream = node.createToolCallStream({
    input: 'auto',
    tools: TOOLS,
    ...options,
    onDiagnostic: (d) => outcome.diagnostics.push(d),
    onText: (t) => {
      outcome.text += t;
    },
  });
  for await (const update of Readable.from(chunks).pipe(stream)) outcome.updates.push(update as ToolCallUpdate);
  return outcome;
}

async function runWeb(chunks: readonly Uint8Array[], options: { maxArgumentsLength?: number }): Promise<Outcome> {
  const outcome = { updates: [] as ToolCallUpdate[], diagnostics: [] as Diagnostic[], text: '' };
  const stream = web.createToolCallStream({
    input: 'auto',
    tools: TOOLS,
    compileJsonSchema: compileSchema,
    ...options,
    onDiagnostic: (d) => outcome.diagnostics.push(d),
    onText: (t) => {
      outcome.text += t;
    },
  });
  for await (const update of ReadableStream.from(chunks).pipeThrough(stream)) outcome.updates.push(update);
  return outcome;
}
