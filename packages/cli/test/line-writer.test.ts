import { PassThrough, Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { lineWriter } from '../src/stream-command.js';

const VALUE = { 'k\u009b31m': 'a\u202eb\u2066c\u0085', plain: 'x\ty' };
const LINE = `${JSON.stringify(VALUE)}\n`;

async function written(tty: boolean): Promise<string> {
  const stdout = new PassThrough();
  if (tty) Object.assign(stdout, { isTTY: true });
  let out = '';
  stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const writer = lineWriter(stdout);
  writer.write(LINE);
  await writer.flush();
  return out;
}

describe('lineWriter', () => {
  test('on a terminal, C1 and bidi characters in printed JSON are \\u escapes: the same JSON value', async () => {
    const out = await written(true);
    expect(out).toBe('{"k\\u009b31m":"a\\u202eb\\u2066c\\u0085","plain":"x\\ty"}\n');
    expect(JSON.parse(out)).toEqual(VALUE);
  });

  test('into a pipe or file, the bytes as JSON.stringify wrote them', async () => {
    expect(await written(false)).toBe(LINE);
  });
});

test('a slow stdout: one wait for drain however many turns wrote, every line delivered in order', async () => {
  let received = '';
  const stdout = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, done) {
      received += chunk.toString();
      setTimeout(done, 2);
    },
  });
  const writer = lineWriter(stdout);
  let most = 0;
  const sent: string[] = [];
  for (let i = 0; i < 40; i++) {
    sent.push(`{"line":${i}}\n`);
    await writer.write(sent[i] as string);
    await nextTurn();
    most = Math.max(most, stdout.listenerCount('drain'));
  }
  await writer.flush();
  expect(most).toBeLessThanOrEqual(1);
  expect(received).toBe(sent.join(''));
});
