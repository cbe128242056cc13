import { PassThrough } from 'node:stream';
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
