/**
 * Diagnostics on stderr are gathered per job: the lines a chunk's work writes go out in one
 * write when that job ends (or once 16 KiB wait), in order, and nothing is left behind when the
 * command returns.
 */
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';
import { gatheredLines } from '../src/stream-command.js';

function recorder(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString());
      callback();
    },
  });
  return { stream, writes };
}

describe('stderr gathered per job', () => {
  test('lines written in one job go out together when it ends, in order', async () => {
    const { stream, writes } = recorder();
    const lines = gatheredLines(stream);
    for (let i = 0; i < 100; i++) lines.write(`line ${i}\n`);
    expect(writes).toEqual([]);
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBe(Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join(''));
    lines.write('next job\n');
    lines.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([writes[0], 'next job\n']);
  });

  test('16 KiB waiting are written at once, without waiting for the job to end', async () => {
    const { stream, writes } = recorder();
    const lines = gatheredLines(stream);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 40; i++) lines.write(line);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes.join('')).toBe(line.repeat(40));
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.length).toBeLessThanOrEqual(3);
  });

  test('a stderr whose write throws: nothing escapes the job; the command flush throws it', async () => {
    const broken = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    broken.write = () => {
      throw new Error('stderr is gone');
    };
    const lines = gatheredLines(broken);
    lines.write('one\n');
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    lines.write('two\n');
    expect(() => lines.flush()).toThrow('stderr is gone');
    // Thrown once: a later flush with nothing waiting is quiet.
    expect(() => lines.flush()).not.toThrow();
  });

  test('llmjson jsonl: every dropped line is on stderr, in order, and the closing line last', async () => {
    const bad = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? `{"n": ${i}}` : `not json ${i}`));
    const r = await runCli(['jsonl', '--strict'], { stdin: [bad.join('\n')] });
    expect(r.code).toBe(4);
    // Each diagnostic is its line and an excerpt line under it.
    const err = r.err.trimEnd().split('\n');
    expect(err).toHaveLength(4001);
    const lineNumbers = err.filter((l) => l.startsWith('llmjson jsonl:')).map((l) => Number(/line (\d+)/.exec(l)?.[1]));
    expect(lineNumbers).toEqual(bad.flatMap((_, i) => (i % 3 === 0 ? [] : [i + 1])));
    expect(err[4000]).toMatch(/--strict: 2000 lines or values were dropped/);
    expect(r.lines).toHaveLength(1000);
  });
});
