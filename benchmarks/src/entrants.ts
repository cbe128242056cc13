/**
 * The entrants of every scenario: llmjson and the libraries a user would otherwise pick,
 * each wired the way that library's documentation wires it, each returning the values it
 * delivered so the harness can check that all of them did the same work before timing it.
 *
 * Layers, compared within themselves:
 * - `ceiling`: `JSON.parse` on lines split before the clock starts (or on one valid document
 *   as large as the salvage input, or on the whole document whose array elements streams
 *   emit), the native limit;
 * - `direct`: `JSON.parse` on pre-split lines with a validator called directly (llmjson's
 *   compiled schema, or the user's own switch on `type` over per-branch ajv validators);
 * - `engine`: synchronous parsers fed decoded text chunks or the whole text (llmjson core,
 *   @streamparser/json, and for salvage a bracket matcher, best-effort-json-parser, jsonrepair);
 * - `stream`: Node streams fed the chunks as they arrive, strings or bytes (llmjson node,
 *   split2, stream-json, node:readline), each piped into the cheapest object-mode Writable;
 * - `floor`: Transforms that do nothing, the stream-overhead floor (compared with `stream`).
 */

import { createInterface } from 'node:readline';
import { type Duplex, Readable, Transform, Writable } from 'node:stream';
import { parsePartialJson } from '@ai-sdk/ui-utils';
import {
  type Change,
  type CompileOptions,
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  createSalvageScanner,
  type ElementOptions,
  type ElementRecord,
  extractAllJson,
  extractElements,
  extractJson,
  type JsonlOptions,
  type JsonlStats,
  type JsonSchema,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { createElementStream, createJsonlStream, type JsonlStreamOptions } from '@llmjson/node';
import { JSONParser } from '@streamparser/json';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse as bestEffortParse, disableErrorLogging } from 'best-effort-json-parser';
import { jsonrepair } from 'jsonrepair';
import { parse as jsonriverParse } from 'jsonriver';
import { parse as partialJsonParse } from 'partial-json';
import split2 from 'split2';
import StreamJson from 'stream-json';
import Pick from 'stream-json/filters/Pick.js';
import JsonlParser from 'stream-json/jsonl/Parser.js';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import type { StreamChunk } from './inputs.js';

export const Layer = {
  ceiling: 'ceiling',
  direct: 'direct',
  engine: 'engine',
  stream: 'stream',
  floor: 'floor',
} as const;
export type Layer = (typeof Layer)[keyof typeof Layer];

/** The layer whose llmjson entrant a row is compared with: a floor with the streams. */
export function referenceLayer(layer: Layer): Layer {
  return layer === Layer.floor ? Layer.stream : layer;
}

export interface Entrant {
  /** Row label: library and how it is used. */
  readonly name: string;
  readonly layer: Layer;
  /** True for llmjson's own entrants: the reference of their layer. */
  readonly ours: boolean;
  /** Decodes the prepared input once and returns the values delivered, in order. */
  readonly run: () => unknown[] | Promise<unknown[]>;
}

/** A value check as a peer's user writes it: a compiled ajv validator, or none. */
export type Check = ((value: unknown) => boolean) | undefined;

/**
 * Compiles `schema` for the peers with the options llmjson's own validator uses
 * (`allErrors`, non-strict keywords), so validation costs the same on both sides.
 */
export function ajvCheck(schema: JsonSchema): ValidateFunction {
  return new Ajv({ allErrors: true, strict: false }).compile(schema as Record<string, unknown>);
}

/**
 * `JSON.parse` on each pre-split line (then the check): the native ceiling. `tolerant` skips
 * the lines `JSON.parse` rejects.
 */
export function nativeLines(lines: readonly string[], check?: Check, tolerant = false): Entrant {
  const parse = tolerant
    ? (line: string): unknown => {
        try {
          return JSON.parse(line);
        } catch {
          return undefined;
        }
      }
    : (line: string): unknown => JSON.parse(line);
  return {
    name: `JSON.parse${tolerant ? ' in try/catch' : ''}${check === undefined ? '' : ' + ajv'} per pre-split line`,
    layer: Layer.ceiling,
    ours: false,
    run() {
      const values: unknown[] = [];
      for (const line of lines) {
        const value = parse(line);
        if (value !== undefined && (check === undefined || check(value))) values.push(value);
      }
      return values;
    },
  };
}

/**
 * `JSON.parse` on each pre-split line, then llmjson's compiled schema (`compileSchema`), called
 * directly: validation alone, without framing. With `discriminator: false` it validates the
 * whole `oneOf`; by default it dispatches on the discriminator.
 */
export function llmjsonValidator(lines: readonly string[], schema: JsonSchema, options: CompileOptions = {}): Entrant {
  const compiled = compileSchema(schema, options);
  const dispatch = options.discriminator !== false;
  return {
    name: `JSON.parse + llmjson compileSchema, ${dispatch ? 'dispatch on "type"' : 'whole oneOf (discriminator: false)'}, per pre-split line`,
    layer: Layer.direct,
    ours: dispatch,
    run() {
      const values: unknown[] = [];
      for (const line of lines) {
        const value: unknown = JSON.parse(line);
        if (compiled.validate(value).valid) values.push(value);
      }
      return values;
    },
  };
}

/**
 * What a user writes to validate "the named branch directly": `JSON.parse`, a hand-written
 * switch on `value.type`, and that branch's own precompiled ajv validator.
 */
export function directBranch(lines: readonly string[], branches: Readonly<Record<string, ValidateFunction>>): Entrant {
  const table = new Map(Object.entries(branches));
  return {
    name: `JSON.parse + switch on "type" + that branch's ajv validator, per pre-split line`,
    layer: Layer.direct,
    ours: false,
    run() {
      const values: unknown[] = [];
      for (const line of lines) {
        const value: unknown = JSON.parse(line);
        if (typeof value !== 'object' || value === null) continue;
        const validate = table.get((value as { type?: unknown }).type as string);
        if (validate?.(value)) values.push(value);
      }
      return values;
    },
  };
}

/**
 * One entrant over many inputs/**
 * One entrant over many inputs, each decoded by a fresh instance of `parts`' entrant (a batch
 * of model answers). Engines stay synchronous; streams run one after the other.
 */
export function batch(parts: readonly Entrant[]): Entrant {
  const first = parts[0];
  if (first === undefined) throw new Error('batch of no entrants');
  const { name, layer, ours } = first;
  if (layer !== Layer.stream) {
    return {
      name,
      layer,
      ours,
      run() {
        const values: unknown[] = [];
        for (const part of parts) values.push(...(part.run() as unknown[]));
        return values;
      },
    };
  }
  return {
    name,
    layer,
    ours,
    async run() {
      const values: unknown[] = [];
      for (const part of parts) values.push(...(await part.run()));
      return values;
    },
  };
}

/** llmjson's core decoder fed the decoded text chunks; `stats` receives each run's counts. */
export function llmjsonDecoder(
  chunks: readonly string[],
  options: JsonlOptions = {},
  name = 'llmjson createJsonlDecoder',
  stats?: (stats: Readonly<JsonlStats>) => void,
): Entrant {
  return {
    name,
    layer: Layer.engine,
    ours: true,
    run() {
      const values: unknown[] = [];
      const decoder = createJsonlDecoder(
        { compileJsonSchema: compileSchema, ...options },
        {
          value(value) {
            values.push(value);
          },
          diagnostic() {},
        },
      );
      for (const chunk of chunks) decoder.write(chunk);
      decoder.end();
      stats?.(decoder.stats);
      return values;
    },
  };
}

/**
 * @streamparser/json's JSONParser in newline-delimited mode, fed the decoded text chunks.
 * It stops at the first error (its documented behaviour): the values before it are kept.
 */
export function streamparserJson(chunks: readonly string[], check?: Check): Entrant {
  return {
    name: check === undefined ? '@streamparser/json JSONParser' : '@streamparser/json JSONParser + ajv',
    layer: Layer.engine,
    ours: false,
    run() {
      const values: unknown[] = [];
      let failed = false;
      const parser = new JSONParser({ separator: '\n', paths: ['$'] });
      parser.onValue = ({ value }) => {
        if (check === undefined || check(value)) values.push(value);
      };
      parser.onError = () => {
        failed = true;
      };
      for (const chunk of chunks) {
        if (failed) break;
        parser.write(chunk);
      }
      if (!failed && !parser.isEnded) parser.end();
      return values;
    },
  };
}

/**
 * Writes `chunks` into a Transform piped into the cheapest object-mode Writable (which keeps
 * what arrives, through `map`), and resolves when the Writable finishes. `stages` are piped
 * between the Transform and the Writable, in order (a stream-json pipeline). The chunks are
 * written synchronously, so the figure is the stream's own cost, not the event loop's.
 */
export function drive(
  stream: Duplex,
  chunks: readonly StreamChunk[],
  map?: (out: unknown) => unknown,
  stages: readonly Duplex[] = [],
): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const values: unknown[] = [];
    const sink = new Writable({
      objectMode: true,
      write:
        map === undefined
          ? (out: unknown, _encoding, callback) => {
              values.push(out);
              callback();
            }
          : (out: unknown, _encoding, callback) => {
              const value = map(out);
              if (value !== undefined) values.push(value);
              callback();
            },
    });
    sink.on('finish', () => resolve(values));
    let tail: Duplex = stream;
    stream.on('error', reject);
    for (const stage of stages) {
      stage.on('error', reject);
      tail = tail.pipe(stage);
    }
    tail.pipe(sink);
    process.nextTick(() => {
      for (const chunk of chunks) stream.write(chunk);
      stream.end();
    });
  });
}

/** llmjson's Node Transform fed the chunks (strings or bytes). */
export function llmjsonStream(
  chunks: readonly StreamChunk[],
  options: JsonlStreamOptions = {},
  name = 'llmjson createJsonlStream',
): Entrant {
  return { name, layer: Layer.stream, ours: true, run: () => drive(createJsonlStream(options), chunks) };
}

/**
 * split2 with a `JSON.parse` mapper, the usual Node JSONL recipe. `tolerant` wraps the parse
 * in try/catch so a bad line is dropped instead of failing the stream.
 */
export function split2Json(chunks: readonly StreamChunk[], check?: Check, tolerant = false): Entrant {
  const mapper = (line: string): unknown => {
    let value: unknown;
    if (tolerant) {
      try {
        value = JSON.parse(line);
      } catch {
        return undefined;
      }
    } else {
      value = JSON.parse(line);
    }
    return check === undefined || check(value) ? value : undefined;
  };
  const name = `split2 + JSON.parse${tolerant ? ' in try/catch' : ''}${check === undefined ? '' : ' + ajv'}`;
  return { name, layer: Layer.stream, ours: false, run: () => drive(split2(mapper), chunks) };
}

/**
 * stream-json's JSONL parser. `tolerant` sets `errorIndicator: undefined`, its documented
 * way to skip lines that do not parse; the check runs on each `{key, value}` it emits.
 */
export function streamJsonl(chunks: readonly StreamChunk[], check?: Check, tolerant = false): Entrant {
  const options = (tolerant ? { errorIndicator: undefined } : {}) as JsonlParser.JsonlParserOptions;
  const name = `stream-json jsonl/Parser${tolerant ? ' skipping bad lines' : ''}${check === undefined ? '' : ' + ajv'}`;
  return {
    name,
    layer: Layer.stream,
    ours: false,
    run: () =>
      drive(JsonlParser.make(options), chunks, (out) => {
        const { value } = out as { value: unknown };
        return check === undefined || check(value) ? value : undefined;
      }),
  };
}

/**
 * `node:readline` over a Readable of the chunks, `JSON.parse` per `'line'` (then the check):
 * what Node's own docs suggest for reading lines. The chunks are pushed synchronously, as
 * `drive` writes them.
 */
export function readlineJson(chunks: readonly StreamChunk[], check?: Check): Entrant {
  return {
    name: `node:readline + JSON.parse${check === undefined ? '' : ' + ajv'}`,
    layer: Layer.stream,
    ours: false,
    run: () =>
      new Promise((resolve, reject) => {
        const values: unknown[] = [];
        const input = new Readable({ objectMode: true, read() {} });
        const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
        lines.on('line', (line: string) => {
          try {
            const value: unknown = JSON.parse(line);
            if (check === undefined || check(value)) values.push(value);
          } catch (error) {
            reject(error as Error);
          }
        });
        lines.on('close', () => resolve(values));
        input.on('error', reject);
        process.nextTick(() => {
          for (const chunk of chunks) input.push(chunk);
          input.push(null);
        });
      }),
  };
}

/**
 * The stream-overhead floor: a Transform with llmjson's stream options (`decodeStrings: false`,
 * object-mode readable side) that does nothing. `identity` passes every chunk through (like a
 * PassThrough, so the sink receives every chunk); otherwise it consumes every chunk and pushes
 * nothing (the sink receives nothing).
 */
export function nothingTransform(chunks: readonly StreamChunk[], identity: boolean): Entrant {
  return {
    name: identity
      ? 'do-nothing Transform (a): passes every chunk through'
      : 'do-nothing Transform (b): consumes every chunk, pushes nothing',
    layer: Layer.floor,
    ours: false,
    run: () =>
      drive(
        new Transform({
          decodeStrings: false,
          readableObjectMode: true,
          transform: identity
            ? (chunk: StreamChunk, _encoding, callback) => callback(null, chunk)
            : (_chunk: StreamChunk, _encoding, callback) => callback(),
        }),
        chunks,
      ),
  };
}

/** `JSON.parse` of one whole, valid JSON document: the ceiling of the salvage scenario. */
export function nativeDocument(text: string): Entrant {
  return {
    name: 'JSON.parse of a valid document of the same size',
    layer: Layer.ceiling,
    ours: false,
    run: () => [JSON.parse(text)],
  };
}

/** llmjson's one-shot `extractAllJson`: every value in the text, in order. */
export function llmjsonExtractAll(text: string): Entrant {
  return {
    name: 'llmjson extractAllJson',
    layer: Layer.engine,
    ours: true,
    run: () => extractAllJson(text).map((found) => found.value),
  };
}

/** llmjson's `extractJson`: the one value it prefers (document, fence, inline, embedded). */
export function llmjsonExtractOne(text: string): Entrant {
  return {
    name: 'llmjson extractJson',
    layer: Layer.engine,
    ours: true,
    run() {
      const found = extractJson(text);
      return found === undefined ? [] : [found.value];
    },
  };
}

/** llmjson's core salvage scanner fed text chunks (a model's deltas). */
export function llmjsonSalvageScanner(chunks: readonly string[], name = 'llmjson createSalvageScanner'): Entrant {
  return {
    name,
    layer: Layer.engine,
    ours: true,
    run() {
      const values: unknown[] = [];
      const scanner = createSalvageScanner(
        {},
        {
          value(found) {
            values.push(found.value);
          },
          diagnostic() {},
        },
      );
      for (const chunk of chunks) scanner.write(chunk);
      scanner.end();
      return values;
    },
  };
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The common way to pull JSON out of prose: from each `{` or `[`, scan forward counting
 * brackets (skipping over strings), `JSON.parse` the balanced span, and on failure start
 * again at the next bracket; after a value, go on after it. Each start can scan to the end
 * of the text, so prose with brackets that never close costs quadratic time.
 */
export function matchBrackets(text: string): unknown[] {
  const values: unknown[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
      i++;
      continue;
    }
    let depth = 0;
    let inString = false;
    let end = -1;
    for (let j = i; j < n; j++) {
      const d = text.charCodeAt(j);
      if (inString) {
        if (d === BACKSLASH) j++;
        else if (d === QUOTE) inString = false;
      } else if (d === QUOTE) {
        inString = true;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) {
        depth++;
      } else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) {
        end = j + 1;
        break;
      }
    }
    if (end !== -1) {
      try {
        values.push(JSON.parse(text.slice(i, end)));
        i = end;
        continue;
      } catch {
        // Not JSON: try the next bracket.
      }
    }
    i++;
  }
  return values;
}

/** The nested-loop bracket matcher (`matchBrackets`) as an entrant. */
export function nestedLoopMatcher(text: string): Entrant {
  return {
    name: 'nested-loop bracket matcher + JSON.parse',
    layer: Layer.engine,
    ours: false,
    run: () => matchBrackets(text),
  };
}

// It logs every text with tokens after the value it returns (the prose after a fence).
disableErrorLogging();

/**
 * best-effort-json-parser's `parse`: its one value for the whole text (it takes the first
 * ```` ``` ```` fence's contents when the text holds one).
 */
export function bestEffortJson(text: string): Entrant {
  return {
    name: 'best-effort-json-parser parse',
    layer: Layer.engine,
    ours: false,
    run: () => [bestEffortParse(text)],
  };
}

/** jsonrepair (it strips a surrounding fence), then `JSON.parse` of what it returns. */
export function jsonrepairParse(text: string): Entrant {
  return {
    name: 'jsonrepair + JSON.parse',
    layer: Layer.engine,
    ours: false,
    run: () => [JSON.parse(jsonrepair(text))],
  };
}

/** `JSON.parse` of the whole document, then its `items`: the ceiling of the elements scenario. */
export function nativeItems(text: string): Entrant {
  return {
    name: 'JSON.parse of the whole document, then .items',
    layer: Layer.ceiling,
    ours: false,
    run: () => (JSON.parse(text) as { items: unknown[] }).items,
  };
}

/**
 * The ceiling for a byte stream: the reads decoded by one streaming `TextDecoder` (what a stream
 * written Buffers must do first), joined, then `JSON.parse` of the whole document and `.items`.
 */
export function nativeItemsFromBytes(writes: readonly StreamChunk[]): Entrant {
  return {
    name: 'TextDecoder over the reads, then JSON.parse of the whole document, then .items',
    layer: Layer.ceiling,
    ours: false,
    run() {
      const decoder = new TextDecoder();
      let text = '';
      for (const bytes of writes) text += typeof bytes === 'string' ? bytes : decoder.decode(bytes, { stream: true });
      text += decoder.decode();
      return (JSON.parse(text) as { items: unknown[] }).items;
    },
  };
}

/** llmjson's core element scanner fed text chunks; the values of the elements it emits. */
export function llmjsonElementScanner(
  chunks: readonly string[],
  options: ElementOptions,
  name = 'llmjson createElementScanner',
): Entrant {
  return {
    name,
    layer: Layer.engine,
    ours: true,
    run() {
      const values: unknown[] = [];
      const scanner = createElementScanner(
        { compileJsonSchema: compileSchema, ...options },
        {
          value(record) {
            values.push(record.value);
          },
          diagnostic() {},
        },
      );
      for (const chunk of chunks) scanner.write(chunk);
      scanner.end();
      return values;
    },
  };
}

/** llmjson's one-shot `extractElements` on the whole text. */
export function llmjsonExtractElements(text: string, options: ElementOptions): Entrant {
  return {
    name: 'llmjson extractElements, whole text',
    layer: Layer.engine,
    ours: true,
    run: () => extractElements(text, options).values,
  };
}

/**
 * @streamparser/json's JSONParser emitting each element of the array at `path` (`$.items.*`),
 * with `keepStack: false` so emitted elements are not kept in their parent (its README's
 * advice for streaming a large array), fed the decoded text chunks.
 */
export function streamparserElements(chunks: readonly string[], path: string): Entrant {
  return {
    name: `@streamparser/json JSONParser, paths ['${path}'], keepStack: false`,
    layer: Layer.engine,
    ours: false,
    run() {
      const values: unknown[] = [];
      const parser = new JSONParser({ paths: [path], keepStack: false });
      parser.onValue = ({ value }) => {
        values.push(value);
      };
      for (const chunk of chunks) parser.write(chunk);
      if (!parser.isEnded) parser.end();
      return values;
    },
  };
}

/** llmjson's Node element Transform fed the chunks (strings or bytes); the records' values. */
export function llmjsonElementStream(chunks: readonly StreamChunk[], options: ElementOptions): Entrant {
  return {
    name: 'llmjson createElementStream',
    layer: Layer.stream,
    ours: true,
    run: () => drive(createElementStream(options), chunks, (out) => (out as ElementRecord).value),
  };
}

/**
 * stream-json's documented pipeline for the elements of an array under a key: `parser()`,
 * `pick({ filter })`, `streamArray()`, connected with `pipe` (stream-chain's `chain` does the
 * same and is not a dependency here); the `value` of each `{ key, value }` it emits.
 */
export function streamJsonElements(chunks: readonly StreamChunk[], filter: string): Entrant {
  return {
    name: `stream-json parser + pick({ filter: '${filter}' }) + streamArray`,
    layer: Layer.stream,
    ours: false,
    run: () =>
      drive(StreamJson.parser(), chunks, (out) => (out as { value: unknown }).value, [
        Pick.pick({ filter }),
        StreamArray.streamArray(),
      ]),
  };
}

/*
 * Partial values: one document arriving in text chunks, the current value read after every
 * chunk (as a UI re-renders per delta). Each entrant returns `[final value]`; the reads in
 * between are kept in `sink` so they cannot be optimised away.
 */

/** Where the partial-value entrants put each value they read, so the reads are real. */
let sink: unknown;

/** The last value a partial-value entrant read (what keeps the reads observable). */
export function lastPartialRead(): unknown {
  return sink;
}

/**
 * llmjson's `createPartialBuilder` (default options: an immutable, structurally shared
 * snapshot per update) fed the chunks; after each write it reads `builder.value`, and the
 * sink keeps each change list it is delivered.
 */
export function llmjsonPartialBuilder(chunks: readonly string[], snapshots = true): Entrant {
  return {
    name: snapshots
      ? 'llmjson createPartialBuilder (snapshots + change lists)'
      : 'llmjson createPartialBuilder (change lists + live tree, snapshots: false)',
    layer: Layer.engine,
    // The snapshot entrant is the reference row; the live-tree one is compared with it.
    ours: snapshots,
    run() {
      let changes: readonly Change[] = [];
      let count = 0;
      const builder = createPartialBuilder(
        { snapshots },
        {
          update(_value, delivered) {
            changes = delivered;
            count += delivered.length;
          },
          diagnostic() {},
        },
      );
      for (const chunk of chunks) {
        builder.write(chunk);
        sink = builder.value;
      }
      builder.end();
      sink = changes.length + count;
      return [builder.value];
    },
  };
}

/**
 * A re-parse-per-chunk peer: the text so far is re-parsed whole after every chunk (how
 * `parsePartialJson`, partial-json and best-effort-json-parser are used on a stream).
 */
function reparse(name: string, chunks: readonly string[], parser: () => (text: string) => unknown): Entrant {
  return {
    name,
    layer: Layer.engine,
    ours: false,
    run() {
      const parse = parser();
      let text = '';
      let value: unknown;
      for (const chunk of chunks) {
        text += chunk;
        value = parse(text);
        sink = value;
      }
      return [value];
    },
  };
}

/** The AI SDK's `parsePartialJson` (`ai` 4.x re-exported it from `@ai-sdk/ui-utils` 1.x), re-run on the text so far. */
export function aiParsePartialJson(chunks: readonly string[]): Entrant {
  return reparse(
    'ai parsePartialJson (@ai-sdk/ui-utils), re-parse per chunk',
    chunks,
    () => (text) => parsePartialJson(text).value,
  );
}

/**
 * partial-json's `parse` (all partial types allowed, its default), re-run on the text so far;
 * it throws where the text so far ends on something it cannot complete (a lone `-`), so the
 * last value it returned stays current.
 */
export function partialJson(chunks: readonly string[]): Entrant {
  return reparse('partial-json parse, re-parse per chunk', chunks, () => {
    let last: unknown;
    return (text) => {
      try {
        last = partialJsonParse(text);
      } catch {}
      return last;
    };
  });
}

/** best-effort-json-parser's `parse`, re-run on the text so far. */
export function bestEffortPartial(chunks: readonly string[]): Entrant {
  return reparse('best-effort-json-parser parse, re-parse per chunk', chunks, () => (text) => bestEffortParse(text));
}

/**
 * jsonriver's `parse` over an async iterable of the chunks; each value it yields (one per
 * chunk that changed the value, updated in place) is read.
 */
export function jsonriverPartial(chunks: readonly string[]): Entrant {
  return {
    name: 'jsonriver parse (async iterable)',
    layer: Layer.engine,
    ours: false,
    async run() {
      async function* source(): AsyncIterable<string> {
        for (const chunk of chunks) yield chunk;
      }
      let value: unknown;
      for await (const current of jsonriverParse(source())) {
        value = current;
        sink = value;
      }
      return [value];
    },
  };
}

/**
 * @streamparser/json's JSONParser with `emitPartialTokens` and `emitPartialValues`: after each
 * chunk the root container (the bottom of the stack of the last value it emitted, live and
 * mutated in place) is read. Its partial strings are emitted on their own and enter their
 * parent only once complete.
 */
export function streamparserPartial(chunks: readonly string[]): Entrant {
  return {
    name: '@streamparser/json JSONParser, emitPartialTokens + emitPartialValues',
    layer: Layer.engine,
    ours: false,
    run() {
      let root: unknown;
      const parser = new JSONParser({ emitPartialTokens: true, emitPartialValues: true });
      parser.onValue = ({ value, stack }) => {
        root = stack.length > 0 ? stack[0]?.value : value;
      };
      for (const chunk of chunks) {
        parser.write(chunk);
        sink = root;
      }
      if (!parser.isEnded) parser.end();
      return [root];
    },
  };
}
