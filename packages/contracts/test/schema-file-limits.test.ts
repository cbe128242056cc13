/**
 * Schema files are read whole, so the registry reads only regular files of at most 64 MiB
 * (`MAX_SCHEMA_FILE_BYTES`): a device, a FIFO or a larger file is SCHEMA_INVALID saying which,
 * checked on the opened handle before anything past the cap is read. (The CLI's tests run the
 * FIFO and `/dev/zero` cases in a child process with a deadline: limits.test.ts.)
 */
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContractConfigurationError, readSchemaFile } from '@llmjson/contracts';
import { describe, expect, test } from 'vitest';
import { thrownBy } from '../../../test/support/thrown.js';

const failure = (run: () => unknown): ContractConfigurationError => thrownBy(ContractConfigurationError, run);

describe('readSchemaFile: regular files of at most 64 MiB', () => {
  test('a file one byte past 64 MiB is refused by its size, not read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-schema-cap-'));
    const file = join(dir, 'big.schema.json');
    writeFileSync(file, '');
    // Sparse: no disk, and all zeros, which today's reader would read whole and call "not JSON".
    truncateSync(file, 64 * 1024 * 1024 + 1);
    const error = failure(() => readSchemaFile(file));
    expect(error.code).toBe('SCHEMA_INVALID');
    expect(error.message).toBe(`schema file ${file}: larger than 67108864 bytes (the limit for a schema file)`);
  });

  test('at 64 MiB exactly the file is read (and then judged as JSON)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-schema-cap-'));
    const file = join(dir, 'edge.schema.json');
    writeFileSync(file, '{}');
    truncateSync(file, 64 * 1024 * 1024);
    expect(failure(() => readSchemaFile(file)).message).toContain('is not JSON');
  });

  test('/dev/null and a directory: said what they are (FIFOs and /dev/zero: limits.test.ts, in a child process)', () => {
    expect(failure(() => readSchemaFile('/dev/null')).message).toBe(
      'schema file /dev/null: it is not a regular file (a character device)',
    );
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-schema-cap-'));
    expect(failure(() => readSchemaFile(dir)).message).toBe(`schema file ${dir}: it is a directory`);
  });
});
