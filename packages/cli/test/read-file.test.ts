/**
 * `readRegularFile`, the one reader of files read whole: a regular file of at most `maxBytes`,
 * checked on the opened handle; anything else an UnreadableFileError (exit 2) saying why.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { thrownBy } from '../../../test/support/thrown.js';
import { DEFAULT_MAX_FILE_BYTES, readRegularFile, readRegularText, UnreadableFileError } from '../src/read-file.js';

const refusal = (run: () => unknown): UnreadableFileError => thrownBy(UnreadableFileError, run);

describe('readRegularFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmjson-read-file-'));

  test('a regular file is read whole, at the cap exactly too; one byte past it is refused by its size', () => {
    writeFileSync(join(dir, 'ten'), '0123456789');
    expect(readRegularText(join(dir, 'ten'), 'ten')).toBe('0123456789');
    expect(readRegularFile(join(dir, 'ten'), 'ten', { maxBytes: 10 }).toString()).toBe('0123456789');
    const past = refusal(() => readRegularFile(join(dir, 'ten'), 'ten', { maxBytes: 9, label: '--vars' }));
    expect(past.message).toBe('--vars ten: larger than 9 bytes (the limit for a file read whole)');
    expect(past.code).toBe('TOO_LARGE');
    expect(DEFAULT_MAX_FILE_BYTES).toBe(64 * 1024 * 1024);
  });

  test('an empty file and a large one read back unchanged', () => {
    writeFileSync(join(dir, 'empty'), '');
    expect(readRegularFile(join(dir, 'empty'), 'empty').length).toBe(0);
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'é');
    writeFileSync(join(dir, 'big'), big);
    expect(readRegularFile(join(dir, 'big'), 'big').equals(big)).toBe(true);
  });

  test('a device, a directory, a missing file: one line saying which, with the file system code', () => {
    const device = refusal(() => readRegularFile('/dev/null', '/dev/null'));
    expect(device.message).toBe('cannot read /dev/null: it is not a regular file (a character device)');
    expect(device.code).toBe('NOT_REGULAR');
    const directory = refusal(() => readRegularFile(dir, 'the-dir'));
    expect(directory.message).toBe('cannot read the-dir: it is a directory');
    const missing = refusal(() => readRegularFile(join(dir, 'nothing'), 'nothing'));
    expect(missing.code).toBe('ENOENT');
    expect(missing.message).toBe('cannot read nothing: no such file (or a symlink to nothing)');
  });

  test('a name is quoted at most 200 characters', () => {
    const long = 'n'.repeat(10_000);
    expect(refusal(() => readRegularFile(join(dir, 'nothing'), long)).message.length).toBeLessThan(300);
  });
});
