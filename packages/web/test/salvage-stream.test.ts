import { extractAllJson } from '@llmjson/core';
import { ConfigurationError, createSalvageStream, type Diagnostic, type SalvagedValue } from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { describe, expect, test } from 'vitest';
import { chunkBytes, utf8 } from '../../../test/support/chunking.js';
import { readAll } from '../../../test/support/web.js';

const ANSWER =
  'Voilà — the café:\n```json\n{"name": "café", "emoji": "😀"}\n```\nand inline `[1, 2]`, then {"broken": tru}.';

describe('createSalvageStream (Web)', () => {
  test('byte chunks of every size give the one-shot values, diagnostics and stats', async () => {
    const oneShotDiagnostics: Diagnostic[] = [];
    const expected = extractAllJson(ANSWER, { onDiagnostic: (d) => oneShotDiagnostics.push(d) });
    expect(expected.map((v) => v.source)).toEqual(['fence', 'inline']);
    const bytes = utf8.encode(ANSWER);
    let stats: unknown;
    for (const size of [1, 2, 3, 5, bytes.length]) {
      const diagnostics: Diagnostic[] = [];
      const stream = createSalvageStream({ onDiagnostic: (d) => diagnostics.push(d) });
      const values: SalvagedValue[] = await readAll(ReadableStream.from(chunkBytes(bytes, size)).pipeThrough(stream));
      expect(values, `${size}-byte chunks`).toEqual(expected);
      expect(diagnostics, `${size}-byte chunks`).toEqual(oneShotDiagnostics);
      stats ??= structuredClone(stream.stats);
      expect(stream.stats, `${size}-byte chunks`).toEqual(stats);
    }
    expect(stats).toMatchObject({ values: 2, fences: 1, inlineSpans: 1 });
  });

  test('an exception thrown by onDiagnostic reaches the readable side as a rejection', async () => {
    const stream = createSalvageStream({
      onDiagnostic: () => {
        throw new Error('callback failed');
      },
    });
    await expect(readAll(ReadableStream.from(['```json\nnot json\n```\n']).pipeThrough(stream))).rejects.toThrow(
      'callback failed',
    );
  });

  test('a broken configuration throws when the stream is created', () => {
    expect(() => createSalvageStream({ schema: { type: 'nope' }, compileJsonSchema: compileSchema })).toThrow(
      expect.objectContaining({ code: 'SCHEMA_INVALID' }),
    );
    expect(() => createSalvageStream({ maxCandidateLength: 0 })).toThrow(/maxCandidateLength/);
    expect(() => createSalvageStream({ highWaterMark: Number.NaN })).toThrow(ConfigurationError);
  });
});
