/**
 * `failFast` on the Web JSONL stream checks the line in flight (`prefixCheck`, on by default
 * with `failFast`): the stream errors at the character that proves the line cannot match its
 * schema, before the line's newline arrives; `prefixCheck: false` keeps the complete-line check.
 */
import type { Diagnostic } from '@llmjson/core';
import {
  type ConfigurationError,
  ContractViolationError,
  createJsonlStream,
  type JsonlStreamOptions,
  linePrefixCheck,
} from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';

const SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' }, pad: { type: 'string' } },
  required: ['n'],
  additionalProperties: false,
} as const;

const ANSWER = `{"n": 1}\n{"n": "three", "pad": "${'x'.repeat(400)}"}\n{"n": 4}\n`;
const CERTAIN = ANSWER.indexOf('"three"');
const NEWLINE = ANSWER.indexOf('\n', CERTAIN);

async function run(size: number, options: JsonlStreamOptions) {
  const diagnostics: Diagnostic[] = [];
  const values: unknown[] = [];
  const chunks = chunkText(ANSWER, size);
  let pulled = 0;
  const source = new ReadableStream<string>(
    {
      pull(controller) {
        const chunk = chunks[pulled++];
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  const stream = createJsonlStream({
    schema: SCHEMA,
    compileJsonSchema: compileSchema,
    onDiagnostic: (d) => diagnostics.push(d),
    ...options,
  });
  let error: unknown;
  try {
    for await (const value of source.pipeThrough(stream)) values.push(value);
  } catch (e) {
    error = e;
  }
  return { values, diagnostics, error, pulled };
}

describe('failFast on the Web JSONL stream: the line in flight', () => {
  test('errors at the violation, before the line completes', async () => {
    for (const size of [1, 4, 16]) {
      const r = await run(size, { failFast: true, prefixCheckWith: linePrefixCheck });
      const label = `${size}-character chunks`;
      expect(r.values, label).toEqual([{ n: 1 }]);
      expect(r.error, label).toBeInstanceOf(ContractViolationError);
      expect((r.error as ContractViolationError).diagnostic, label).toMatchObject({
        reason: 'violation',
        line: 2,
        offset: CERTAIN,
        path: '/n',
        rule: 'type',
      });
      expect(r.pulled, label).toBeLessThan(Math.floor(NEWLINE / size));
    }
  });

  test('prefixCheck: false: the complete line fails its schema', async () => {
    for (const options of [
      { failFast: true, prefixCheck: false, prefixCheckWith: linePrefixCheck },
      { failFast: true, prefixCheck: false },
    ] as const) {
      const r = await run(4, options);
      expect(r.values).toEqual([{ n: 1 }]);
      expect((r.error as ContractViolationError).diagnostic.reason).toBe('schema');
    }
  });

  test('failFast without prefixCheckWith is the same configuration error as prefixCheck: true without it', () => {
    const error = (options: object) => {
      try {
        createJsonlStream({ schema: SCHEMA, compileJsonSchema: compileSchema, ...options });
      } catch (e) {
        return e as ConfigurationError;
      }
      return undefined;
    };
    const failFast = error({ failFast: true });
    const prefixCheck = error({ prefixCheck: true });
    expect(failFast?.code).toBe('NO_PREFIX_CHECKER');
    expect(failFast?.message).toBe(prefixCheck?.message);
  });

  test('prefixCheck: true without prefixCheckWith is a configuration error naming the import', () => {
    expect(() => createJsonlStream({ schema: SCHEMA, compileJsonSchema: compileSchema, prefixCheck: true })).toThrow(
      /prefixCheckWith: linePrefixCheck/,
    );
  });
});
