/**
 * Recorded model answers (fixtures/answers/<name>.txt) decoded against hand-written
 * expectations (<name>.expected.json): values, diagnostics (reason, line, endLine, branch) and
 * line accounting, through the core decoder at every chunk size and through the Node stream
 * as byte chunks that split UTF-8 sequences and `\r\n` pairs. Every chunking must also give
 * exactly the diagnostics and records of the whole input.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Diagnostic, JsonlOptions, JsonlRecord, JsonSchema } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkBytes, everyChunkSize } from './support/chunking.js';
import { type Collected, decodeChunks, streamChunks } from './support/collect.js';

interface ExpectedDiagnostic {
  reason: Diagnostic['reason'];
  line: number;
  endLine?: number;
  branch?: string;
}

interface ExpectedAnswer {
  description: string;
  options: { schema?: string; strict?: boolean; maxLineLength?: number };
  values: unknown[];
  /** Branch of each value, for answers validated against a discriminated schema. */
  branches?: string[];
  diagnostics: ExpectedDiagnostic[];
  stats: { lines: number; values: number; valueLines: number; skippedLines: number; reportedLines: number };
}

interface Fixture {
  name: string;
  bytes: Uint8Array;
  text: string;
  expected: ExpectedAnswer;
  options: JsonlOptions;
}

const answersDir = fileURLToPath(new URL('../fixtures/answers/', import.meta.url));
const schemasDir = fileURLToPath(new URL('../fixtures/schemas/', import.meta.url));
const BYTE_CHUNK_SIZES = [1, 2, 3, 5, 7, 64];
/** Half of a surrogate pair without the other half: an excerpt cut inside a character. */
const LONE_SURROGATE = /\p{Cs}/u;

const files = readdirSync(answersDir);
const names = files
  .filter((f) => f.endsWith('.expected.json'))
  .map((f) => f.slice(0, -'.expected.json'.length))
  .sort();

/** One compiled-once schema object per file, so every run of a fixture reuses its validator. */
const schemas = new Map<string, JsonSchema>();
function loadSchema(file: string): JsonSchema {
  let schema = schemas.get(file);
  if (schema === undefined) {
    schema = JSON.parse(readFileSync(schemasDir + file, 'utf8')) as JsonSchema;
    schemas.set(file, schema);
  }
  return schema;
}

function loadFixture(name: string): Fixture {
  const bytes = new Uint8Array(readFileSync(`${answersDir}${name}.txt`));
  const expected = JSON.parse(readFileSync(`${answersDir}${name}.expected.json`, 'utf8')) as ExpectedAnswer;
  const { schema, strict, maxLineLength } = expected.options;
  const options: JsonlOptions = {
    ...(schema === undefined ? {} : { schema: loadSchema(schema), compileJsonSchema: compileSchema }),
    ...(strict === undefined ? {} : { strict }),
    ...(maxLineLength === undefined ? {} : { maxLineLength }),
  };
  // The byte-order mark, if any, is kept: dropping it is the decoder's job.
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  return { name, bytes, text, expected, options };
}

const fixtures = names.map(loadFixture);

function summarize(d: Diagnostic): ExpectedDiagnostic {
  return {
    reason: d.reason,
    line: d.line ?? -1,
    ...(d.endLine === undefined ? {} : { endLine: d.endLine }),
    ...(d.branch === undefined ? {} : { branch: d.branch }),
  };
}

function countByReason(diagnostics: readonly ExpectedDiagnostic[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const d of diagnostics) counts[d.reason] = (counts[d.reason] ?? 0) + 1;
  return counts;
}

/** Checks one run against the hand-written expectation. */
function expectMatches(actual: Collected, expected: ExpectedAnswer, label: string): void {
  expect(actual.values, label).toEqual(expected.values);
  // Own-key order and hostile keys such as `__proto__` survive only if they are own data properties.
  expect(JSON.stringify(actual.values), label).toBe(JSON.stringify(expected.values));
  if (expected.branches !== undefined) {
    expect(
      actual.records.map((r) => r.branch),
      label,
    ).toEqual(expected.branches);
  }
  expect(actual.diagnostics.map(summarize), label).toEqual(expected.diagnostics);
  for (const d of actual.diagnostics) {
    expect(typeof d.offset, label).toBe('number');
    expect(Number.isInteger(d.offset) && d.offset >= 0, label).toBe(true);
    expect(d.excerpt.length, label).toBeGreaterThan(0);
    expect(LONE_SURROGATE.test(d.excerpt), `${label}: excerpt ${JSON.stringify(d.excerpt)}`).toBe(false);
    expect(d.message.length, label).toBeGreaterThan(0);
  }
  const { lines, values, valueLines, skippedLines, reportedLines, diagnostics } = actual.stats;
  expect({ lines, values, valueLines, skippedLines, reportedLines }, label).toEqual(expected.stats);
  expect(valueLines + skippedLines + reportedLines, label).toBe(lines);
  expect(diagnostics, label).toEqual(countByReason(expected.diagnostics));
}

/** Line, end line, offset and branch of each value: these must not depend on chunking either. */
function placement(records: readonly JsonlRecord[]): Omit<JsonlRecord, 'value'>[] {
  return records.map(({ value: _value, ...info }) => info);
}

const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

afterAll(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('fixtures/answers', () => {
  it('holds at least 14 answers, each with its expectation', () => {
    expect(names.length).toBeGreaterThanOrEqual(14);
    const answers = files
      .filter((f) => f.endsWith('.txt'))
      .map((f) => f.slice(0, -'.txt'.length))
      .sort();
    expect(answers).toEqual(names);
  });

  it('keeps answers cut inside their last line without a final line break', () => {
    const cut = fixtures.filter(({ expected }) => {
      const last = expected.diagnostics.at(-1);
      return last?.reason === 'truncated' && (last.endLine ?? last.line) === expected.stats.lines;
    });
    expect(cut.length).toBeGreaterThan(0);
    for (const { name, text } of cut) expect(text.endsWith('\n'), name).toBe(false);
  });
});

describe.each(fixtures)('answer $name', (fixture) => {
  const { text, bytes, expected, options } = fixture;

  it('core decoder: whole and at every chunk size 1..64', () => {
    for (const [label, chunks] of everyChunkSize(text)) {
      expectMatches(decodeChunks(chunks, options), expected, label);
    }
  });

  it('Node stream: Buffer chunks of 1, 2, 3, 5, 7 and 64 bytes', async () => {
    for (const size of BYTE_CHUNK_SIZES) {
      const chunks = chunkBytes(bytes, size).map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength));
      expectMatches(await streamChunks(chunks, options), expected, `${size}-byte chunks`);
    }
  });

  it('gives the same diagnostics and value placement however it is chunked', async () => {
    const reference = decodeChunks([text], options);
    for (const [label, chunks] of everyChunkSize(text)) {
      const run = decodeChunks(chunks, options);
      expect(run.diagnostics, label).toEqual(reference.diagnostics);
      expect(placement(run.records), label).toEqual(placement(reference.records));
    }
    for (const size of BYTE_CHUNK_SIZES) {
      const run = await streamChunks(chunkBytes(bytes, size), options);
      expect(run.diagnostics, `${size}-byte chunks`).toEqual(reference.diagnostics);
      expect(placement(run.records), `${size}-byte chunks`).toEqual(placement(reference.records));
    }
  });
});
