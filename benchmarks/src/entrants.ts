/**
 * The entrants of every scenario: llmjson and the libraries a user would otherwise pick,
 * each wired the way that library's documentation wires it, each returning the values it
 * delivered so the harness can check that all of them did the same work before timing it.
 *
 * Layers, compared within themselves:
 * - `ceiling`: `JSON.parse` on lines split before the clock starts, the native limit;
 * - `engine`: synchronous parsers fed decoded text chunks (llmjson core, @streamparser/json);
 * - `stream`: Node Transforms fed the raw byte chunks (llmjson node, split2, stream-json).
 */

import type { Duplex } from 'node:stream';
import { createJsonlDecoder, type JsonlOptions, type JsonlStats, type JsonSchema } from '@llmjson/core';
import { createJsonlStream, type JsonlStreamOptions } from '@llmjson/node';
import { JSONParser } from '@streamparser/json';
import { Ajv, type ValidateFunction } from 'ajv';
import split2 from 'split2';
import JsonlParser from 'stream-json/jsonl/Parser.js';

export const Layer = {
  ceiling: 'ceiling',
  engine: 'engine',
  stream: 'stream',
} as const;
export type Layer = (typeof Layer)[keyof typeof Layer];

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
      const decoder = createJsonlDecoder(options, {
        value(value) {
          values.push(value);
        },
        diagnostic() {},
      });
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
 * Writes `chunks` into a Transform and collects what it emits (through `map`). The chunks are
 * written synchronously once the readable side flows, so the figure is the stream's own cost,
 * not the event loop's.
 */
export function drive(
  stream: Duplex,
  chunks: readonly Uint8Array[],
  map?: (out: unknown) => unknown,
): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const values: unknown[] = [];
    stream.on('data', (out: unknown) => {
      if (map === undefined) values.push(out);
      else {
        const value = map(out);
        if (value !== undefined) values.push(value);
      }
    });
    stream.on('end', () => resolve(values));
    stream.on('error', reject);
    process.nextTick(() => {
      for (const chunk of chunks) stream.write(chunk);
      stream.end();
    });
  });
}

/** llmjson's Node Transform fed the byte chunks. */
export function llmjsonStream(
  chunks: readonly Uint8Array[],
  options: JsonlStreamOptions = {},
  name = 'llmjson createJsonlStream',
): Entrant {
  return { name, layer: Layer.stream, ours: true, run: () => drive(createJsonlStream(options), chunks) };
}

/**
 * split2 with a `JSON.parse` mapper, the usual Node JSONL recipe. `tolerant` wraps the parse
 * in try/catch so a bad line is dropped instead of failing the stream.
 */
export function split2Json(chunks: readonly Uint8Array[], check?: Check, tolerant = false): Entrant {
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
export function streamJsonl(chunks: readonly Uint8Array[], check?: Check, tolerant = false): Entrant {
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
