/**
 * The built binary as a shell runs it: objects leave stdout while stdin is still open, a
 * reader that goes away ends it quietly, Ctrl-C is exit 130.
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

function once(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => stream.once('data', (d: Buffer) => resolve(d.toString())));
}

describe('llmjson binary', () => {
  test('streams: one line in, its object out, before stdin closes', async () => {
    const child = spawn(process.execPath, [BIN, 'jsonl'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const first = once(child.stdout);
    child.stdin.write('{"type": "definition", "entity": "ATP"}\n');
    expect(await first).toBe('{"type":"definition","entity":"ATP"}\n');
    // stdin is still open: a second object follows the same way.
    const second = once(child.stdout);
    child.stdin.write('{"n": 2}\n');
    expect(await second).toBe('{"n":2}\n');
    child.stdin.end();
    expect(await exited).toBe(0);
  });

  test('`| head -1` exits quietly: no EPIPE trace', () => {
    const lines = Array.from({ length: 20000 }, (_, i) => `{"n": ${i}}`).join('\n');
    const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" jsonl | head -1`], {
      input: lines,
      encoding: 'utf8',
    });
    expect(r.stdout).toBe('{"n":0}\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  test('interrupted (SIGINT) is exit 130', async () => {
    const child = spawn(process.execPath, [BIN, 'jsonl'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const first = once(child.stdout);
    child.stdin.write('{"a": 1}\n');
    await first;
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  });
});
