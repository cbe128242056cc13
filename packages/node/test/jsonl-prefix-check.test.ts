/**
 * `failFast` on the JSONL stream checks the line in flight (`prefixCheck`, on by default with
 * `failFast`): the stream ends at the character that proves the line cannot match its schema,
 * before the line's newline arrives, and reads no more of the source than it must.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Diagnostic } from '@llmjson/core';
import { ContractViolationError, createJsonlStream, type JsonlStreamOptions } from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';

const SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' }, pad: { type: 'string' } },
  required: ['n'],
  additionalProperties: false,
} as const;

/**
 * A prose line (reported, not a violation), then a long line whose `"n"` is a string (certain at
 * its opening quote), then a good line. No value comes before the violation: with one still
 * unread, the stream holds its error until it is read, and meanwhile takes writes into its
 * buffer (text-transform.ts), so the count of chunks pulled would measure that buffer instead.
 */
const BAD_LINE = `{"n": "three", "pad": "${'x'.repeat(400)}"}`;
const ANSWER = `Here you go:\n${BAD_LINE}\n{"n": 4}\n`;
const CERTAIN = ANSWER.indexOf('"three"');
const NEWLINE = ANSWER.indexOf('\n', CERTAIN);

interface Run {
  readonly values: unknown[];
  readonly diagnostics: Diagnostic[];
  readonly error: unknown;
  /** Chunks the source handed out. */
  readonly pulled: number;
}

/** Pipes `chunks` from a generator that counts what is pulled from it, and reads the stream. */
async function run(chunks: readonly string[], options: JsonlStreamOptions): Promise<Run> {
  const values: unknown[] = [];
  const diagnostics: Diagnostic[] = [];
  let pulled = 0;
  async function* source() {
    for (const chunk of chunks) {
      pulled++;
      yield chunk;
    }
  }
  let error: unknown;
  try {
    await pipeline(
      Readable.from(source(), { objectMode: true, highWaterMark: 1 }),
      createJsonlStream({ schema: SCHEMA, onDiagnostic: (d) => diagnostics.push(d), ...options }),
      async (stream: AsyncIterable<unknown>) => {
        for await (const value of stream) values.push(value);
      },
    );
  } catch (e) {
    error = e;
  }
  return { values, diagnostics, error, pulled };
}

describe('failFast on the JSONL stream: the line in flight', () => {
  test('ends at the violation, before the line completes, and pulls no more than it must', async () => {
    for (const size of [1, 4, 16]) {
      const chunks = chunkText(ANSWER, size);
      const r = await run(chunks, { failFast: true });
      const label = `${size}-character chunks`;
      expect(r.values, label).toEqual([]);
      expect(r.error, label).toBeInstanceOf(ContractViolationError);
      const error = r.error as ContractViolationError;
      expect(error.diagnostic, label).toBe(r.diagnostics.at(-1));
      expect(error.diagnostic, label).toMatchObject({
        reason: 'violation',
        line: 2,
        offset: CERTAIN,
        column: CERTAIN - ANSWER.indexOf('\n') - 1,
        path: '/n',
        rule: 'type',
      });
      expect(
        r.diagnostics.map((d) => d.reason),
        label,
      ).toEqual(['prose', 'violation']);
      // The chunk that holds the violation, plus at most what the pipe had already read ahead
      // (one chunk in the source's buffer, one in flight): never the rest of the long line.
      const holding = Math.floor(CERTAIN / size) + 1;
      expect(r.pulled, label).toBeGreaterThanOrEqual(holding);
      expect(r.pulled, label).toBeLessThanOrEqual(holding + 2);
      expect(r.pulled, label).toBeLessThan(Math.floor(NEWLINE / size));
    }
  });

  test('values before the violation are delivered first, then the error', async () => {
    for (const size of [1, 4, 16]) {
      const r = await run(chunkText(`{"n": 1}\n${ANSWER}`, size), { failFast: true });
      expect(r.values).toEqual([{ n: 1 }]);
      expect((r.error as ContractViolationError).diagnostic).toMatchObject({ reason: 'violation', line: 3 });
    }
  });

  test('prefixCheck: false keeps failFast at the complete line: a `schema` diagnostic at its newline', async () => {
    const chunks = chunkText(ANSWER, 4);
    const r = await run(chunks, { failFast: true, prefixCheck: false });
    expect(r.values).toEqual([]);
    expect((r.error as ContractViolationError).diagnostic.reason).toBe('schema');
    expect(r.pulled).toBeGreaterThan(Math.floor(NEWLINE / 4));
  });

  test('without failFast nothing changes: no violation, the bad line skipped and reported whole', async () => {
    const r = await run(chunkText(ANSWER, 4), {});
    expect(r.error).toBeUndefined();
    expect(r.values).toEqual([{ n: 4 }]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['prose', 'schema']);
    // prefixCheck without failFast: the violation is reported, the stream goes on.
    const checked = await run(chunkText(ANSWER, 4), { prefixCheck: true });
    expect(checked.error).toBeUndefined();
    expect(checked.values).toEqual([{ n: 4 }]);
    expect(checked.diagnostics.map((d) => d.reason)).toEqual(['prose', 'violation', 'schema']);
  });

  test('an invalid prefixCheck is a configuration error', () => {
    expect(() => createJsonlStream({ schema: SCHEMA, failFast: true, prefixCheck: 1 as never })).toThrow(
      /prefixCheck must be true or false/,
    );
  });
});
