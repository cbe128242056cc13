/**
 * `failFast: true`: the first contract violation (a `schema` or `violation` diagnostic) ends
 * the stream with a ContractViolationError — after the diagnostic, after every value found
 * before it, and before any value after it — and ends the request that feeds it.
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Diagnostic } from '@llmjson/core';
import {
  CONTRACT_VALIDATION_FAILED,
  ConfigurationError,
  ContractViolationError,
  createElementStream,
  createJsonlStream,
  createPartialStream,
  createProviderStream,
  createSalvageStream,
} from '@llmjson/node';
import { afterEach, describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { createTextTransform } from '../src/text-transform.js';
import { ITEM_SCHEMA, jsonlAnswer, type ModelServer, startModelServer } from './model-server.js';

const SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
} as const;

/** Two good lines, prose, a line that fails the schema, a good line after it. */
const ANSWER = '{"n": 1}\nHere is more:\n{"n": 2}\n{"n": "three"}\n{"n": 4}\n';

interface Run {
  readonly values: unknown[];
  readonly diagnostics: Diagnostic[];
  readonly error: unknown;
}

/** Feeds `chunks` through `stream` with `pipeline` and reads it with `for await`. */
async function run(
  stream: NodeJS.ReadWriteStream,
  chunks: readonly (string | Uint8Array)[],
  diagnostics: Diagnostic[],
): Promise<Run> {
  const values: unknown[] = [];
  let error: unknown;
  try {
    await pipeline(Readable.from(chunks, { objectMode: true }), stream, async (source: AsyncIterable<unknown>) => {
      for await (const value of source) values.push(value);
    });
  } catch (e) {
    error = e;
  }
  return { values, diagnostics, error };
}

function jsonl(chunks: readonly string[], extra: { failFast?: boolean; highWaterMark?: number } = {}) {
  const diagnostics: Diagnostic[] = [];
  return run(
    createJsonlStream({ schema: SCHEMA, onDiagnostic: (d) => diagnostics.push(d), ...extra }),
    chunks,
    diagnostics,
  );
}

describe('failFast: JSONL', () => {
  test('without it nothing changes: the bad line is skipped and reported, the stream goes on', async () => {
    const r = await jsonl([ANSWER]);
    expect(r.error).toBeUndefined();
    expect(r.values).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
    expect(r.diagnostics.map((d) => d.reason)).toEqual(['prose', 'schema']);
  });

  test('the first line that fails its schema ends the stream: values before it, its diagnostic, none after; at every chunk size', async () => {
    for (let size = 1; size <= 64; size++) {
      const r = await jsonl(chunkText(ANSWER, size), { failFast: true });
      const label = `${size}-character chunks`;
      expect(r.values, label).toEqual([{ n: 1 }, { n: 2 }]);
      // The prose line is not a contract violation: reported, skipped, and the stream went on.
      expect(
        r.diagnostics.map((d) => d.reason),
        label,
      ).toEqual(['prose', 'violation']); // prefixCheck is on with failFast: found while line 4 streams
      expect(r.error, label).toBeInstanceOf(ContractViolationError);
      const error = r.error as ContractViolationError;
      expect(error.code).toBe(CONTRACT_VALIDATION_FAILED);
      expect(error.diagnostic).toBe(r.diagnostics[1]);
      expect(error.path).toBe('/n');
      expect(error.rule).toBe('type');
      expect(error.message).toContain('/n');
      expect(error.message).toContain('(type)');
      expect(error.message).toContain('line 4');
    }
  });

  test('values buffered when the violation is found are still read before the error (a slow reader)', async () => {
    // One chunk: both good values are pushed, unread, before the bad line is decoded.
    for (const highWaterMark of [0, 1, 16]) {
      const r = await jsonl([ANSWER], { failFast: true, highWaterMark });
      expect(r.values, `highWaterMark ${highWaterMark}`).toEqual([{ n: 1 }, { n: 2 }]);
      expect(r.error).toBeInstanceOf(ContractViolationError);
    }
    // Paused, then read with read(): the same.
    const stream = createJsonlStream({ schema: SCHEMA, failFast: true });
    const failed = new Promise<unknown>((resolve) => stream.on('error', resolve));
    stream.end(ANSWER);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.destroyed).toBe(false);
    expect([stream.read(), stream.read()]).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await failed).toBeInstanceOf(ContractViolationError);
    expect(stream.destroyed).toBe(true);
  });

  test("a 'data' listener and pipe() see the same values, then the error", async () => {
    const seen: unknown[] = [];
    const stream = createJsonlStream({ schema: SCHEMA, failFast: true });
    const error = await new Promise<unknown>((resolve) => {
      stream.on('data', (v: unknown) => seen.push(v));
      stream.on('error', resolve);
      stream.end(ANSWER);
    });
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    expect(error).toBeInstanceOf(ContractViolationError);

    const written: unknown[] = [];
    const sink = new Writable({
      objectMode: true,
      highWaterMark: 1,
      write(value, _encoding, callback) {
        written.push(value);
        setImmediate(callback);
      },
    });
    const piped = createJsonlStream({ schema: SCHEMA, failFast: true });
    const failure = new Promise<unknown>((resolve) => piped.on('error', resolve));
    piped.pipe(sink);
    piped.end(ANSWER);
    expect(await failure).toBeInstanceOf(ContractViolationError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([{ n: 1 }, { n: 2 }]);
  });

  test("the 'diagnostic' event sees the triggering diagnostic before the error, and nothing after it", async () => {
    const events: string[] = [];
    const stream = createJsonlStream({ schema: SCHEMA, failFast: true });
    stream.on('diagnostic', (d: Diagnostic) => events.push(d.reason));
    stream.on('data', () => events.push('value'));
    await new Promise<void>((resolve) => {
      stream.on('error', () => {
        events.push('error');
        resolve();
      });
      stream.end(`${ANSWER}not json either\n{"n": "five"}\n`);
    });
    expect(events).toEqual(['value', 'prose', 'value', 'violation', 'error']);
  });

  test('syntax, prose, cut-off and too-long lines are not violations: the stream goes to its end', async () => {
    const input = `Sure!\n{"n": 1,,}\n\`\`\`json\n{"n": 2}\n\`\`\`\n{"n": 3, "s": "${'x'.repeat(200)}"}\n{"n": 4`;
    const diagnostics: Diagnostic[] = [];
    const stream = createJsonlStream({
      schema: SCHEMA,
      failFast: true,
      maxLineLength: 100,
      onDiagnostic: (d) => diagnostics.push(d),
    });
    const r = await run(stream, chunkText(input, 7), diagnostics);
    expect(r.error).toBeUndefined();
    expect(r.values).toEqual([{ n: 2 }]);
    expect(new Set(diagnostics.map((d) => d.reason))).toEqual(new Set(['prose', 'syntax', 'too-long', 'truncated']));
  });

  test('abortController is aborted with the error, at the violation', async () => {
    const controller = new AbortController();
    const r = await run(
      createJsonlStream({ schema: SCHEMA, failFast: true, abortController: controller }),
      [ANSWER],
      [],
    );
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe(r.error);
    // Without failFast it is never used.
    const unused = new AbortController();
    await run(createJsonlStream({ schema: SCHEMA, abortController: unused }), [ANSWER], []);
    expect(unused.signal.aborted).toBe(false);
  });

  test('options are checked when the stream is made', () => {
    expect(() => createJsonlStream({ failFast: 'yes' as unknown as boolean })).toThrow(ConfigurationError);
    expect(() => createJsonlStream({ failFast: true, abortController: {} as AbortController })).toThrow(
      /abortController must be an AbortController/,
    );
    expect(() => createJsonlStream({ failFast: false })).not.toThrow();
  });
});

describe('failFast: the other streams', () => {
  test('elements: the first element that fails its schema', async () => {
    const diagnostics: Diagnostic[] = [];
    const r = await run(
      createElementStream({
        elementSchema: SCHEMA,
        failFast: true,
        onDiagnostic: (d) => diagnostics.push(d),
      }),
      chunkText('[{"n": 1}, {"n": 2}, {"m": 3}, {"n": 4}]', 3),
      diagnostics,
    );
    expect((r.values as { value: unknown }[]).map((e) => e.value)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(r.error).toBeInstanceOf(ContractViolationError);
    expect((r.error as ContractViolationError).rule).toBe('required');
    expect(diagnostics.map((d) => d.reason)).toEqual(['schema']);
  });

  test('salvage: the first value found that fails its schema', async () => {
    const r = await run(
      createSalvageStream({ schema: SCHEMA, failFast: true }),
      ['Here: `{"n": 1}` and then {"n": true} and {"n": 3}'],
      [],
    );
    expect((r.values as { value: unknown }[]).map((v) => v.value)).toEqual([{ n: 1 }]);
    expect((r.error as ContractViolationError).path).toBe('/n');
  });

  test('partial: a subtree that closes and fails its sub-schema ends the document', async () => {
    const schema = {
      type: 'object',
      properties: { items: { type: 'array', items: SCHEMA } },
    } as const;
    const diagnostics: Diagnostic[] = [];
    const r = await run(
      createPartialStream({ schema, emit: 'changes', failFast: true, onDiagnostic: (d) => diagnostics.push(d) }),
      chunkText('{"items": [{"n": 1}, {"n": "x"}, {"n": 3}]}', 4),
      diagnostics,
    );
    expect(r.error).toBeInstanceOf(ContractViolationError);
    const error = r.error as ContractViolationError;
    expect(error.path).toBe('/items/1/n');
    expect(error.rule).toBe('type');
    // Nothing of the third item ever arrives.
    expect(JSON.stringify(r.values)).not.toContain('3');
    expect(diagnostics).toHaveLength(1);
  });

  test('a `violation` diagnostic (a prefix no completion can make valid) ends the stream with its own path and rule', async () => {
    const violation: Diagnostic = {
      reason: 'violation',
      offset: 9,
      excerpt: '{"kind": "x',
      message: 'no allowed value of kind starts with "x"',
      path: '/kind',
      rule: 'enum',
    };
    const diagnostics: Diagnostic[] = [];
    const { stream } = createTextTransform({ failFast: true, onDiagnostic: (d) => diagnostics.push(d) }, (output) => ({
      write(text: string) {
        // One value per character, as an engine's values do not depend on how text is chunked
        // (the adapter may hand chunks written together to the engine as one text). What the
        // engine finds after the violation (here 'x' itself) is not delivered.
        for (const character of text) {
          if (character === 'x') output.diagnostic(violation);
          output.push(character);
        }
      },
      end() {},
    }));
    const r = await run(stream, ['a', 'b', 'x', 'c'], diagnostics);
    expect(r.values).toEqual(['a', 'b']);
    expect(diagnostics).toEqual([violation]);
    const error = r.error as ContractViolationError;
    expect(error).toBeInstanceOf(ContractViolationError);
    expect([error.path, error.rule, error.diagnostic]).toEqual(['/kind', 'enum', violation]);
    expect(error.message).toBe(
      'CONTRACT_VALIDATION_FAILED at /kind (enum), offset 9: no allowed value of kind starts with "x"',
    );
  });

  test('the provider stream takes no failFast (it validates nothing); a failing stream after it ends it in a pipeline', async () => {
    const provider = createProviderStream({ input: 'ollama' });
    const body = ANSWER.split('\n').map((line) => `${JSON.stringify({ message: { content: `${line}\n` } })}\n`);
    const values: unknown[] = [];
    await expect(
      pipeline(
        Readable.from(body),
        provider,
        createJsonlStream({ schema: SCHEMA, failFast: true }),
        async (source: AsyncIterable<unknown>) => {
          for await (const value of source) values.push(value);
        },
      ),
    ).rejects.toBeInstanceOf(ContractViolationError);
    expect(values).toEqual([{ n: 1 }, { n: 2 }]);
    expect(provider.destroyed).toBe(true);
  });
});

describe('failFast over HTTP: the model stops generating', () => {
  let server: ModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  // 2000 lines (about 200 KB) in 64-character writes; line 3 breaks the enum.
  const pieces = jsonlAnswer(2000, 3);

  test('pipeline(Readable.fromWeb(fetch body), jsonl): the error destroys the body and the connection closes early', async () => {
    server = await startModelServer(pieces);
    const response = await fetch(server.url);
    const values: unknown[] = [];
    const failed = pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>),
      createJsonlStream({ schema: ITEM_SCHEMA, failFast: true }),
      async (source: AsyncIterable<unknown>) => {
        for await (const value of source) values.push(value);
      },
    );
    await expect(failed).rejects.toBeInstanceOf(ContractViolationError);
    const answered = await server.answered;
    expect(values).toHaveLength(2);
    expect(answered.whole).toBe(false);
    expect(answered.written).toBeLessThan(server.total / 10);
    console.info(`fail fast (pipeline): the server wrote ${answered.written} of ${server.total} bytes`);
  });

  test('without failFast the server writes the whole answer', async () => {
    server = await startModelServer(pieces);
    const response = await fetch(server.url);
    const values: unknown[] = [];
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>),
      createJsonlStream({ schema: ITEM_SCHEMA }),
      async (source: AsyncIterable<unknown>) => {
        for await (const value of source) values.push(value);
      },
    );
    const answered = await server.answered;
    expect(values).toHaveLength(1999);
    expect(answered).toEqual({ written: server.total, whole: true });
  });

  test('abortController: the fetch is aborted even when the body is not piped with pipeline', async () => {
    server = await startModelServer(pieces);
    const controller = new AbortController();
    const response = await fetch(server.url, { signal: controller.signal });
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
    // Silence the body's own abort error: the stream's error is the one that matters.
    body.on('error', () => {});
    const stream = body.pipe(createJsonlStream({ schema: ITEM_SCHEMA, failFast: true, abortController: controller }));
    const values: unknown[] = [];
    let error: unknown;
    try {
      for await (const value of stream) values.push(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ContractViolationError);
    expect(controller.signal.reason).toBe(error);
    const answered = await server.answered;
    expect(values).toHaveLength(2);
    expect(answered.written).toBeLessThan(server.total / 10);
  });
});
