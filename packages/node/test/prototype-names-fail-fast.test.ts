/**
 * failFast with names chosen by the input or the model that are Object.prototype's members:
 * an input key `constructor` against a closed schema stops a JSONL or partial stream with the
 * same ContractViolationError as any other unknown key; a call to a tool named `constructor`
 * stops a tool-call stream with the unknown-tool verdict, never a ConfigurationError.
 */

import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ContractViolationError,
  createJsonlStream,
  createPartialStream,
  createToolCallStream,
  type JsonSchema,
} from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';

const CLOSED: JsonSchema = {
  type: 'object',
  properties: { a: { type: 'string' } },
  required: ['a'],
  additionalProperties: false,
};

/** The error a pipeline of `chunks` through `stream` rejects with. */
async function failure(chunks: readonly string[], stream: Transform): Promise<unknown> {
  return pipeline(Readable.from(chunks), stream, async (source: AsyncIterable<unknown>) => {
    for await (const _ of source);
  }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

describe('failFast and keys named after Object.prototype members', () => {
  test.each(NAMES)('JSONL and partial streams: key %s stops the stream as any unknown key does', async (key) => {
    const stand = key[0] + 'q'.repeat(key.length - 1);
    const text = (k: string) => `{"a":"s","${k}":1}\n`;
    for (const size of [1, 3, 64]) {
      for (const make of [
        () => createJsonlStream({ schema: CLOSED, failFast: true }),
        () => createPartialStream({ schema: CLOSED, failFast: true }),
      ]) {
        const expected = await failure(chunkText(text(stand), size), make());
        expect(expected).toBeInstanceOf(ContractViolationError);
        const error = await failure(chunkText(text(key), size), make());
        expect(error).toBeInstanceOf(ContractViolationError);
        expect((error as Error).message.split(key).join(stand)).toBe((expected as Error).message);
      }
    }
  });

  test.each(NAMES)('tool-call stream: a call to %s is the unknown-tool verdict', async (name) => {
    const event = (delta: object) =>
      `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    const body = event({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: '{"a":"s"}' } }],
    });
    for (const size of [1, 7, body.length]) {
      const error = await failure(
        chunkText(body, size),
        createToolCallStream({ input: 'openai', tools: { get_weather: CLOSED }, failFast: true }),
      );
      expect(error).toBeInstanceOf(ContractViolationError);
      expect((error as ContractViolationError).rule).toBe('tool');
      expect((error as Error).message).toContain('which is not one of the tools (get_weather)');
    }
  });
});
