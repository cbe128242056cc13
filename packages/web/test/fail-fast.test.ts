/**
 * `failFast: true` on the Web streams: the first contract violation errors the stream with a
 * ContractViolationError after every value found before it (read first: erroring a WHATWG
 * stream drops its queue, so the adapter waits for it to drain), and `pipeThrough` cancels
 * the source at once.
 */
import type { Diagnostic } from '@llmjson/core';
import {
  ConfigurationError,
  ContractViolationError,
  createElementStream,
  createJsonlStream,
  createPartialStream,
  createSalvageStream,
} from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { afterEach, describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { ITEM_SCHEMA, jsonlAnswer, type ModelServer, startModelServer } from '../../node/test/model-server.js';

const SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
} as const;

const ANSWER = '{"n": 1}\nHere is more:\n{"n": 2}\n{"n": "three"}\n{"n": 4}\n';

async function read<T>(readable: ReadableStream<T>): Promise<{ values: T[]; error: unknown }> {
  const values: T[] = [];
  let error: unknown;
  try {
    for await (const value of readable) values.push(value);
  } catch (e) {
    error = e;
  }
  return { values, error };
}

describe('failFast (Web): JSONL', () => {
  test('values before the bad line, its diagnostic, then the error; at every chunk size', async () => {
    for (let size = 1; size <= 64; size++) {
      const diagnostics: Diagnostic[] = [];
      const stream = createJsonlStream({
        schema: SCHEMA,
        compileJsonSchema: compileSchema,
        failFast: true,
        prefixCheck: false,
        onDiagnostic: (d) => diagnostics.push(d),
      });
      const r = await read(ReadableStream.from(chunkText(ANSWER, size)).pipeThrough(stream));
      const label = `${size}-character chunks`;
      expect(r.values, label).toEqual([{ n: 1 }, { n: 2 }]);
      expect(
        diagnostics.map((d) => d.reason),
        label,
      ).toEqual(['prose', 'schema']); // prefixCheck: false: line 4 is checked when complete
      expect(r.error, label).toBeInstanceOf(ContractViolationError);
      expect((r.error as ContractViolationError).diagnostic).toBe(diagnostics[1]);
      expect((r.error as ContractViolationError).path).toBe('/n');
    }
  });

  test('without failFast nothing changes', async () => {
    const r = await read(
      ReadableStream.from([ANSWER]).pipeThrough(
        createJsonlStream({ schema: SCHEMA, compileJsonSchema: compileSchema }),
      ),
    );
    expect(r).toEqual({ values: [{ n: 1 }, { n: 2 }, { n: 4 }], error: undefined });
  });

  test('values queued and unread when the violation is found are read first; the writable side errors at once', async () => {
    for (const highWaterMark of [0, 1, 16]) {
      const stream = createJsonlStream({
        schema: SCHEMA,
        compileJsonSchema: compileSchema,
        failFast: true,
        prefixCheck: false,
        highWaterMark,
      });
      const writer = stream.writable.getWriter();
      const write = writer.write(ANSWER).catch((e: unknown) => e);
      const reader = stream.readable.getReader();
      // The write fails with the violation before anything is read.
      expect(await write, `highWaterMark ${highWaterMark}`).toBeInstanceOf(ContractViolationError);
      expect(await reader.read()).toEqual({ value: { n: 1 }, done: false });
      expect(await reader.read()).toEqual({ value: { n: 2 }, done: false });
      await expect(reader.read()).rejects.toBeInstanceOf(ContractViolationError);
    }
  });

  test('pipeThrough cancels the source with the error; abortController is aborted with it', async () => {
    let cancelled: unknown;
    let pulled = 0;
    const lines = ANSWER.split(/(?<=\n)/);
    // A model that would go on forever: only the cancel stops it.
    const source = new ReadableStream<string>({
      pull(c) {
        pulled++;
        c.enqueue(lines[pulled - 1] ?? `{"n": ${pulled}}\n`);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const controller = new AbortController();
    const r = await read(
      source.pipeThrough(
        createJsonlStream({
          schema: SCHEMA,
          compileJsonSchema: compileSchema,
          failFast: true,
          prefixCheck: false,
          abortController: controller,
        }),
      ),
    );
    expect(r.values).toEqual([{ n: 1 }, { n: 2 }]);
    // The pipe cancels its source once its pending read settles.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled).toBe(r.error);
    expect(controller.signal.reason).toBe(r.error);
    // Pulled no further than the pipe's read-ahead (a few lines) past the bad one.
    expect(pulled).toBeLessThan(lines.length + 10);
  });

  test('a syntax line is not a violation; the stream ends normally', async () => {
    const r = await read(
      ReadableStream.from(['{"n": 1,,}\n{"n": 2}\n{"n": 3']).pipeThrough(
        createJsonlStream({ schema: SCHEMA, compileJsonSchema: compileSchema, failFast: true, prefixCheck: false }),
      ),
    );
    expect(r).toEqual({ values: [{ n: 2 }], error: undefined });
  });

  test('the consumer cancelling the readable side errors the writable side, as a TransformStream does', async () => {
    const stream = createJsonlStream({ failFast: true });
    expect(stream).toBeInstanceOf(TransformStream);
    const writer = stream.writable.getWriter();
    await stream.readable.cancel('enough');
    await expect(writer.write('{"a": 1}\n')).rejects.toBe('enough');
  });

  test('a source that errors errors the readable side with its error, as a TransformStream does', async () => {
    const boom = new Error('connection reset');
    const source = new ReadableStream<string>({
      start(c) {
        c.enqueue('{"n": 1}\n');
        c.error(boom);
      },
    });
    const r = await read(source.pipeThrough(createJsonlStream({ failFast: true })));
    expect(r.error).toBe(boom);
  });

  test('options are checked when the stream is made', () => {
    expect(() => createJsonlStream({ failFast: 1 as unknown as boolean })).toThrow(ConfigurationError);
    expect(() => createJsonlStream({ failFast: true, abortController: null as unknown as AbortController })).toThrow(
      ConfigurationError,
    );
  });
});

describe('failFast (Web): the other streams', () => {
  test('elements, salvage and partial end at their first violation', async () => {
    const elements = await read(
      ReadableStream.from(chunkText('[{"n": 1}, {"m": 2}, {"n": 3}]', 5)).pipeThrough(
        createElementStream({
          elementSchema: SCHEMA,
          compileJsonSchema: compileSchema,
          failFast: true,
          prefixCheck: false,
        }),
      ),
    );
    expect(elements.values.map((e) => e.value)).toEqual([{ n: 1 }]);
    expect((elements.error as ContractViolationError).rule).toBe('required');

    const salvage = await read(
      ReadableStream.from(['Try `{"n": 1}`, or {"n": null}, or {"n": 3}']).pipeThrough(
        createSalvageStream({ schema: SCHEMA, compileJsonSchema: compileSchema, failFast: true }),
      ),
    );
    expect(salvage.values.map((v) => v.value)).toEqual([{ n: 1 }]);
    expect((salvage.error as ContractViolationError).path).toBe('/n');

    const partial = await read(
      ReadableStream.from(chunkText('{"items": [{"n": 1}, {"n": "x"}, {"n": 3}]}', 4)).pipeThrough(
        createPartialStream({
          schema: { type: 'object', properties: { items: { type: 'array', items: SCHEMA } } },
          compileJsonSchema: compileSchema,
          emit: 'changes',
          failFast: true,
        }),
      ),
    );
    expect((partial.error as ContractViolationError).path).toBe('/items/1/n');
    expect(JSON.stringify(partial.values)).not.toContain('3');
  });
});

describe('failFast (Web) over HTTP: fetch(...).body.pipeThrough(stream)', () => {
  let server: ModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const pieces = jsonlAnswer(2000, 3);

  test('the body is cancelled and the connection closes long before the answer ends', async () => {
    server = await startModelServer(pieces);
    const response = await fetch(server.url);
    const r = await read(
      (response.body as ReadableStream<Uint8Array>).pipeThrough(
        createJsonlStream({
          schema: ITEM_SCHEMA,
          compileJsonSchema: compileSchema,
          failFast: true,
          prefixCheck: false,
        }),
      ),
    );
    expect(r.error).toBeInstanceOf(ContractViolationError);
    expect(r.values).toHaveLength(2);
    const answered = await server.answered;
    expect(answered.whole).toBe(false);
    expect(answered.written).toBeLessThan(server.total / 10);
    console.info(`fail fast (pipeThrough): the server wrote ${answered.written} of ${server.total} bytes`);
  });

  test('without failFast the whole answer is written', async () => {
    server = await startModelServer(pieces);
    const response = await fetch(server.url);
    const r = await read(
      (response.body as ReadableStream<Uint8Array>).pipeThrough(
        createJsonlStream({ schema: ITEM_SCHEMA, compileJsonSchema: compileSchema }),
      ),
    );
    expect(r.values).toHaveLength(1999);
    expect(await server.answered).toEqual({ written: server.total, whole: true });
  });
});
