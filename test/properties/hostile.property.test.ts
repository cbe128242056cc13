/**
 * The "nothing crashes" campaign: every engine, every one-shot function, the Node and Web
 * streams and every CLI mode run on generated hostile input (deep nesting, random
 * characters and bytes, long strings, hostile keys, recursive schemas, catastrophic
 * patterns; no schema, JSON Schemas with ajv as the compiler, zod schemas with or without it)
 * under arbitrary chunking, with sinks that throw. Nothing may throw but the
 * sink's own exception; stats add up; nothing pollutes a prototype; every diagnostic has
 * the one shape with a bounded excerpt; every value can be serialized.
 *
 * Runs: 300 per property on CI, 60 locally; `pnpm hostile` (HOSTILE_RUNS=10000) is the nightly size.
 */
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseJsonResponse } from '@llmjson/contracts';
import {
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  createProviderDecoder,
  createSalvageScanner,
  createToolCallDecoder,
  type Diagnostic,
  DiagnosticReason,
  type Engine,
  elementPrefixCheck,
  extractAllJson,
  extractElements,
  extractJson,
  linePrefixCheck,
  parseJsonl,
  withCoercion,
} from '@llmjson/core';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { splitAt, splitPoints } from '../support/chunking.js';
import { runCli } from '../support/cli.js';
import {
  type HostileSchemaOptions,
  hostileBytes,
  hostileRuns,
  hostileSchemaOptions,
  hostileText,
  SinkFailure,
  throwAt,
  throwingCalls,
} from '../support/hostile.js';

const REASONS = new Set<string>(Object.values(DiagnosticReason));

/** The one diagnostic shape, with an excerpt and a message a terminal can print. */
function checkDiagnostic(d: Diagnostic): void {
  expect(REASONS.has(d.reason), d.reason).toBe(true);
  expect(Number.isSafeInteger(d.offset) && d.offset >= 0, `offset ${d.offset}`).toBe(true);
  expect(typeof d.excerpt).toBe('string');
  expect(d.excerpt.length).toBeLessThanOrEqual(200);
  expect(typeof d.message).toBe('string');
  expect(d.message.length).toBeLessThanOrEqual(1000);
  if (d.line !== undefined) expect(d.line).toBeGreaterThanOrEqual(1);
}

function checkValue(value: unknown): void {
  // The depth guard means that whatever is delivered can be serialized (no stack overflow).
  expect(() => JSON.stringify(value)).not.toThrow();
}

const sum = (counts: Readonly<Record<string, number | undefined>>) =>
  Object.values(counts).reduce<number>((a, b) => a + (b ?? 0), 0);

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
});

interface EngineRun {
  readonly name: string;
  /** Builds the engine over a sink whose every call first runs `call` (which may throw). */
  create(options: Options, call: () => void, out: Out): Engine<{ diagnostics: Record<string, number | undefined> }>;
  /** Stats that must add up after a run that nothing interrupted. */
  check?(stats: Record<string, unknown>, out: Out): void;
}

interface Options extends HostileSchemaOptions {
  readonly maxDepth?: number;
}

interface Out {
  values: unknown[];
  diagnostics: Diagnostic[];
}

/** The compiler, if any, that goes with a schema. */
const compiler = (o: HostileSchemaOptions) =>
  o.compileJsonSchema === undefined ? {} : { compileJsonSchema: o.compileJsonSchema };

const withSchema = (o: Options) => ({
  ...(o.schema === undefined ? {} : { schema: o.schema }),
  ...compiler(o),
  ...(o.maxDepth === undefined ? {} : { maxDepth: o.maxDepth }),
});

/** A sink's two callbacks, each first running `call` (which may throw), collecting into `out`. */
function collecting<V>(call: () => void, out: Out, pick: (v: V) => unknown) {
  return {
    value(v: V) {
      call();
      out.values.push(pick(v));
    },
    diagnostic(d: Diagnostic) {
      call();
      out.diagnostics.push(d);
    },
  };
}

const ENGINES: EngineRun[] = [
  {
    name: 'JSONL decoder',
    create: (o, call, out) =>
      createJsonlDecoder(
        withSchema(o),
        collecting(call, out, (v: unknown) => v),
      ),
    check(stats, out) {
      const s = stats as { lines: number; valueLines: number; skippedLines: number; reportedLines: number };
      expect(s.valueLines + s.skippedLines + s.reportedLines).toBe(s.lines);
      expect(stats.values).toBe(out.values.length);
    },
  },
  {
    name: 'salvage scanner',
    create: (o, call, out) =>
      createSalvageScanner(
        withSchema(o),
        collecting(call, out, (v: { value: unknown }) => v.value),
      ),
    check: (stats, out) => expect(stats.values).toBe(out.values.length),
  },
  {
    name: 'element scanner',
    create: (o, call, out) =>
      createElementScanner(
        {
          ...(o.schema === undefined ? {} : { elementSchema: o.schema }),
          ...compiler(o),
          ...(o.maxDepth === undefined ? {} : { maxDepth: o.maxDepth }),
        },
        collecting(call, out, (v: { value: unknown }) => v.value),
      ),
    check: (stats, out) => expect(stats.values).toBe(out.values.length),
  },
  {
    name: 'partial builder',
    create: (o, call, out) => {
      const sink = collecting(call, out, (v: unknown) => v);
      return createPartialBuilder(withSchema(o), { update: sink.value, diagnostic: sink.diagnostic });
    },
    check: (stats, out) => expect(stats.updates).toBe(out.values.length),
  },
  // Issue 13's opt-in paths: prefix checks of lines and elements in flight, and coercion.
  {
    name: 'JSONL decoder (coercion)',
    create: (o, call, out) =>
      createJsonlDecoder(
        o.schema === undefined ? withSchema(o) : { ...withSchema(o), coerce: true, coerceWith: withCoercion },
        collecting(call, out, (v: unknown) => v),
      ),
    check(stats, out) {
      const s = stats as { lines: number; valueLines: number; skippedLines: number; reportedLines: number };
      expect(s.valueLines + s.skippedLines + s.reportedLines).toBe(s.lines);
      expect(stats.values).toBe(out.values.length);
    },
  },
  {
    name: 'JSONL decoder (prefix checks)',
    create: (o, call, out) =>
      createJsonlDecoder(
        { ...withSchema(o), prefixCheck: true, prefixCheckWith: linePrefixCheck },
        collecting(call, out, (v: unknown) => v),
      ),
    check: (stats, out) => expect(stats.values).toBe(out.values.length),
  },
  {
    name: 'element scanner (prefix checks, coercion)',
    create: (o, call, out) =>
      createElementScanner(
        {
          ...(o.schema === undefined ? {} : { elementSchema: o.schema, coerce: true, coerceWith: withCoercion }),
          ...compiler(o),
          ...(o.maxDepth === undefined ? {} : { maxDepth: o.maxDepth }),
          prefixCheck: true,
          prefixCheckWith: elementPrefixCheck,
        },
        collecting(call, out, (v: { value: unknown }) => v.value),
      ),
    check: (stats, out) => expect(stats.values).toBe(out.values.length),
  },
  {
    name: 'partial builder (coercion)',
    create: (o, call, out) => {
      const sink = collecting(call, out, (v: unknown) => v);
      return createPartialBuilder(
        o.schema === undefined ? withSchema(o) : { ...withSchema(o), coerce: true, coerceWith: withCoercion },
        { update: sink.value, diagnostic: sink.diagnostic },
      );
    },
    check: (stats, out) => expect(stats.updates).toBe(out.values.length),
  },
  ...(
    [
      'auto',
      'openai',
      'openai-responses',
      'anthropic',
      'ollama',
      'gemini',
      'cohere',
      'mistral',
      'bedrock',
      'ai-sdk',
      'ag-ui',
    ] as const
  ).map(
    (input): EngineRun => ({
      name: `provider decoder (${input})`,
      create: (_o, call, out) =>
        createProviderDecoder(
          { input },
          {
            text(t) {
              call();
              out.values.push(t);
            },
            diagnostic(d) {
              call();
              out.diagnostics.push(d);
            },
            toolArguments() {
              call();
            },
            metadata() {
              call();
            },
          },
        ),
    }),
  ),
];

/** The tool-call engine's sink: updates as values, every callback first running `call`. */
function toolSink(call: () => void, out: Out) {
  const sink = collecting(call, out, (u: { value: unknown }) => u.value);
  return { update: sink.value, diagnostic: sink.diagnostic, text: call, reasoning: call, metadata: call };
}

ENGINES.push(
  {
    // The hostile text as one call's arguments, each chunk one OpenAI chat delta: a partial
    // builder per call, with the tool's schema, under the provider decoder.
    name: 'tool-call decoder (hostile arguments)',
    create: (o, call, out) => {
      const decoder = createToolCallDecoder(
        {
          input: 'openai',
          ...(o.schema === undefined ? {} : { tools: { f: o.schema } }),
          ...compiler(o),
          ...(o.maxDepth === undefined ? {} : { maxDepth: o.maxDepth }),
        },
        toolSink(call, out),
      );
      const delta = (args: string) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: args } }] } }] })}\n\n`;
      return {
        write: (chunk: string) => decoder.write(delta(chunk)),
        end: () => {
          decoder.write('data: [DONE]\n\n');
          decoder.end();
        },
        stats: decoder.stats,
      };
    },
    check: (stats, out) => expect(stats.updates).toBe(out.values.length),
  },
  {
    name: 'tool-call decoder (hostile body, auto)',
    create: (o, call, out) =>
      createToolCallDecoder(
        {
          input: 'auto',
          ...(o.schema === undefined ? {} : { tools: { f: o.schema, get_weather: o.schema } }),
          ...compiler(o),
        },
        toolSink(call, out),
      ),
    check: (stats, out) => expect(stats.updates).toBe(out.values.length),
  },
);

const hostileOptions: fc.Arbitrary<Options> = fc
  .tuple(hostileSchemaOptions, fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined, freq: 2 }))
  .map(([schemaOptions, maxDepth]) => ({ ...schemaOptions, ...(maxDepth === undefined ? {} : { maxDepth }) }));

describe.each(ENGINES)('$name on hostile input', (engine) => {
  test('throws nothing but the sink’s own exception; stats add up; diagnostics keep their shape', () => {
    fc.assert(
      fc.property(
        hostileText.chain((text) => fc.tuple(fc.constant(text), splitPoints(text.length))),
        hostileOptions,
        throwAt,
        ([text, points], options, at) => {
          const out: Out = { values: [], diagnostics: [] };
          const instance = engine.create(options, throwingCalls(at), out);
          let thrown: unknown;
          try {
            for (const chunk of splitAt(text, points)) instance.write(chunk);
            instance.end();
          } catch (error) {
            thrown = error;
          }
          if (thrown !== undefined) {
            expect(thrown).toBeInstanceOf(SinkFailure);
            return;
          }
          for (const d of out.diagnostics) checkDiagnostic(d);
          for (const v of out.values) checkValue(v);
          expect(sum(instance.stats.diagnostics)).toBe(out.diagnostics.length);
          engine.check?.(instance.stats as unknown as Record<string, unknown>, out);
        },
      ),
      { numRuns: hostileRuns },
    );
  });
});

describe('one-shot functions on hostile input', () => {
  test('parseJsonl, extractJson, extractAllJson, extractElements and parseJsonResponse never throw', () => {
    fc.assert(
      fc.property(hostileText, hostileOptions, (text, options) => {
        const o = withSchema(options);
        const jsonl = parseJsonl(text, o);
        expect(jsonl.stats.valueLines + jsonl.stats.skippedLines + jsonl.stats.reportedLines).toBe(jsonl.stats.lines);
        for (const v of jsonl.values) checkValue(v);
        for (const found of extractAllJson(text, o)) checkValue(found.value);
        const one = extractJson(text, o);
        if (one !== undefined) checkValue(one.value);
        const elements = extractElements(text, {
          ...(options.schema === undefined ? {} : { elementSchema: options.schema }),
          ...compiler(options),
        });
        for (const e of elements.values) checkValue(e);
        const outcome = parseJsonResponse(text, o.schema === undefined ? {} : { schema: o.schema });
        expect(['succeeded', 'failed', 'incomplete']).toContain(outcome.status);
        if (outcome.status === 'succeeded') checkValue(outcome.json);
      }),
      { numRuns: hostileRuns },
    );
  });
});

type NodeFactory = (onDiagnostic: (d: Diagnostic) => void, o: HostileSchemaOptions) => Transform;
type WebFactory = (
  onDiagnostic: (d: Diagnostic) => void,
  o: HostileSchemaOptions,
) => TransformStream<string | Uint8Array, unknown>;

// The Node streams get the schema alone (they default compileJsonSchema to ajv); the Web
// streams bundle no validator and get the compiler explicitly.
const s = (o: HostileSchemaOptions) => (o.schema === undefined ? {} : { schema: o.schema });
const sc = (o: HostileSchemaOptions) => ({ ...s(o), ...compiler(o) });
const e = (o: HostileSchemaOptions) => (o.schema === undefined ? {} : { elementSchema: o.schema });
const STREAMS: [string, NodeFactory, WebFactory][] = [
  [
    'jsonl',
    (onDiagnostic, o) => node.createJsonlStream({ onDiagnostic, ...s(o) }),
    (onDiagnostic, o) => web.createJsonlStream({ onDiagnostic, ...sc(o) }),
  ],
  [
    'salvage',
    (onDiagnostic, o) => node.createSalvageStream({ onDiagnostic, ...s(o) }),
    (onDiagnostic, o) => web.createSalvageStream({ onDiagnostic, ...sc(o) }),
  ],
  [
    'elements',
    (onDiagnostic, o) => node.createElementStream({ onDiagnostic, ...e(o) }),
    (onDiagnostic, o) => web.createElementStream({ onDiagnostic, ...e(o), ...compiler(o) }),
  ],
  [
    'partial',
    (onDiagnostic, o) => node.createPartialStream({ onDiagnostic, ...s(o) }),
    (onDiagnostic, o) => web.createPartialStream({ onDiagnostic, ...sc(o) }),
  ],
  [
    'provider',
    (onDiagnostic) => node.createProviderStream({ onDiagnostic, input: 'auto' }),
    (onDiagnostic) => web.createProviderStream({ onDiagnostic, input: 'auto' }),
  ],
];

describe.each(STREAMS)('%s streams (Node and Web) on hostile bytes', (_name, makeNode, makeWeb) => {
  test('end, or fail with the callback’s own exception; never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileBytes.chain((bytes) => fc.tuple(fc.constant(bytes), splitPoints(bytes.length))),
        hostileSchemaOptions,
        throwAt,
        async ([bytes, points], schemaOptions, at) => {
          const chunks = splitAt(bytes, points);
          const call = throwingCalls(at);
          const nodeStream = makeNode(() => call(), schemaOptions);
          let nodeError: unknown;
          try {
            await pipeline(Readable.from(chunks, { objectMode: true }), nodeStream, async (source) => {
              for await (const value of source as AsyncIterable<unknown>) checkValue(value);
            });
          } catch (error) {
            nodeError = error;
          }
          if (nodeError !== undefined) expect(nodeError).toBeInstanceOf(SinkFailure);

          const webCall = throwingCalls(at);
          const webStream = makeWeb(() => webCall(), schemaOptions);
          let webError: unknown;
          try {
            for await (const value of ReadableStream.from(chunks).pipeThrough(webStream)) checkValue(value);
          } catch (error) {
            webError = error;
          }
          if (webError !== undefined) expect(webError).toBeInstanceOf(SinkFailure);
        },
      ),
      { numRuns: hostileRuns },
    );
  });
});

const MODES = ['jsonl', 'json', 'salvage', 'partial', 'elements'] as const;
const SCHEMA_FILES = [
  undefined,
  'fixtures/schemas/tree.schema.json',
  'fixtures/schemas/catastrophic-pattern.schema.json',
  'fixtures/schemas/definition-relationship.schema.json',
];

describe('llmjson tools on hostile input', () => {
  const delta = (args: string) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'get_weather', arguments: args } }] } }] })}\n\n`;
  test("hostile bodies, and hostile text as one call's arguments: exit 0, 3 or 4, one-line messages, JSON lines", async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileBytes.chain((bytes) => fc.tuple(fc.constant(bytes), splitPoints(bytes.length))),
        fc.boolean(),
        fc.boolean(),
        async ([bytes, points], asArguments, failFast) => {
          // Either the bytes are the body, or their text is a call's arguments, one delta per piece.
          const chunks = asArguments
            ? splitAt(new TextDecoder().decode(bytes), points).map(delta)
            : splitAt(bytes, points);
          const argv = ['tools', '--tools', 'fixtures/cli/weather-tools.json', ...(failFast ? ['--fail-fast'] : [])];
          const run = await runCli(argv, { stdin: chunks });
          expect([0, 3, 4], `${argv.join(' ')}: exit ${run.code}\n${run.err.slice(0, 500)}`).toContain(run.code);
          expect(run.err).not.toMatch(/internal error|\n\s+at /);
          for (const line of run.out.split('\n')) if (line !== '') expect(() => JSON.parse(line)).not.toThrow();
        },
      ),
      { numRuns: hostileRuns },
    );
  });
});

describe('every CLI mode on hostile bytes', () => {
  test('exits 0, 3 or 4 with one-line messages, never an internal error; stdout is JSON lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileBytes.chain((bytes) => fc.tuple(fc.constant(bytes), splitPoints(bytes.length))),
        fc.constantFrom(...MODES),
        fc.constantFrom('text', 'auto'),
        fc.constantFrom(...SCHEMA_FILES),
        async ([bytes, points], mode, input, schema) => {
          // The elements mode takes the schema of the whole document (an array).
          const file = schema !== undefined && mode === 'elements' ? 'fixtures/schemas/tree-list.schema.json' : schema;
          const argv = [mode, '--input', input, ...(file === undefined ? [] : ['--schema', file])];
          const run = await runCli(argv, { stdin: splitAt(bytes, points) });
          expect([0, 3, 4], `${argv.join(' ')}: exit ${run.code}\n${run.err.slice(0, 500)}`).toContain(run.code);
          expect(run.err).not.toMatch(/internal error|\n\s+at /);
          for (const line of run.out.split('\n')) if (line !== '') expect(() => JSON.parse(line)).not.toThrow();
        },
      ),
      { numRuns: hostileRuns },
    );
  });
});
