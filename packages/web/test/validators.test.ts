/**
 * The Web streams bundle no JSON Schema validator: a JSON Schema needs `compileJsonSchema`
 * (ajv from `@llmjson/web/ajv`), a Standard Schema needs nothing. Each case decodes under
 * arbitrary chunking, and the three routes must agree on values and diagnostics.
 */

import { test as propertyTest } from '@fast-check/vitest';
import {
  ConfigurationError,
  createElementStream,
  createJsonlStream,
  createPartialStream,
  createSalvageStream,
  type Diagnostic,
} from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { splitAt, splitPoints } from '../../../test/support/chunking.js';
import { readAll } from '../../../test/support/web.js';

const jsonSchema = {
  type: 'object',
  required: ['name', 'n'],
  properties: { name: { type: 'string' }, n: { type: 'integer', minimum: 0 } },
  additionalProperties: false,
} as const;
const zodSchema = z.strictObject({ name: z.string(), n: z.int().min(0) });

const text = '{"name":"a","n":1}\n{"name":"b","n":-1}\nnot json\n{"name":"c","n":2,"x":0}\n{"name":"d","n":3}\n';

async function decode(
  chunks: readonly string[],
  options: Parameters<typeof createJsonlStream>[0],
): Promise<{ values: unknown[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const values = await readAll(
    ReadableStream.from(chunks).pipeThrough(
      createJsonlStream({ ...options, onDiagnostic: (d) => diagnostics.push(d) }),
    ),
  );
  return { values, diagnostics };
}

describe('Web streams and JSON Schema compilers', () => {
  test('a JSON Schema without compileJsonSchema is a configuration error that names the fixes', () => {
    for (const create of [
      () => createJsonlStream({ schema: jsonSchema }),
      () => createSalvageStream({ schema: jsonSchema }),
      () => createElementStream({ elementSchema: jsonSchema }),
      () => createPartialStream({ schema: jsonSchema }),
    ]) {
      let error: unknown;
      try {
        create();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).code).toBe('NO_JSON_SCHEMA_COMPILER');
      expect((error as Error).message).toContain("'@llmjson/web/ajv'");
      expect((error as Error).message).toContain('llmjson compile');
    }
  });

  propertyTest.prop([splitPoints(text.length)])(
    'ajv through compileJsonSchema and zod with no compiler keep and drop the same lines, however chunked',
    async (points) => {
      const chunks = splitAt(text, points);
      const withAjv = await decode(chunks, { schema: jsonSchema, compileJsonSchema: compileSchema });
      const withZod = await decode(chunks, { schema: zodSchema });
      const expected = [
        { name: 'a', n: 1 },
        { name: 'd', n: 3 },
      ];
      expect(withAjv.values).toEqual(expected);
      expect(withZod.values).toEqual(expected);
      const shape = (d: Diagnostic) => [d.line, d.offset, d.reason, d.errors?.map((e) => e.path)];
      expect(withAjv.diagnostics.map(shape)).toEqual([
        [2, 19, 'schema', ['/n']],
        [3, 39, 'prose', undefined],
        [4, 48, 'schema', ['']],
      ]);
      // zod names the unknown key in the path's parent, as ajv does (additionalProperties at '').
      expect(withZod.diagnostics.map(shape)).toEqual(withAjv.diagnostics.map(shape));
    },
  );
});
