/**
 * The built binary as a shell runs it: objects leave stdout while stdin is still open, a
 * reader that goes away ends it quietly (and a command with files to write still writes them), Ctrl-C is exit 130, memory stays flat on a long
 * stream, and a file it cannot read is one line and exit 2, never an internal error.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { openAISse } from '../../../test/support/provider.js';

const BIN = fileURLToPath(new URL('../bin/llmjson.js', import.meta.url));

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

  test('`batch --report r.json --report r.md | head -1`: the reports and the summary are still written, exit 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-epipe-'));
    try {
      // Far more result lines than a pipe holds (64 KiB), so the writes after `head` has gone fail.
      const records = Array.from({ length: 5000 }, (_, i) =>
        JSON.stringify({ id: `r${i}`, model: `m${i % 2}`, text: '{"n": 1}' }),
      );
      writeFileSync(join(dir, 'runs.jsonl'), `${records.join('\n')}\n`);
      const r = spawnSync(
        'bash',
        [
          '-c',
          `set -o pipefail; "${process.execPath}" "${BIN}" batch runs.jsonl --report r.json --report r.md --workers 0 | head -1`,
        ],
        { cwd: dir, encoding: 'utf8', timeout: 60_000 },
      );
      expect(r.stdout).toBe(
        '{"index":0,"id":"r0","model":"m0","status":"valid","scores":{"strict":"valid","salvage":"valid","coerce":"valid"},"values":1,"diagnostics":0}\n',
      );
      expect(r.stderr).toMatch(/^all +5000 +5000 /m);
      expect(r.stderr).not.toContain('EPIPE');
      expect(r.status).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { totals: { records: number } };
      expect(report.totals.records).toBe(5000);
      expect(readFileSync(join(dir, 'r.md'), 'utf8')).toContain('| **all** | 5000 |');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  test.each([
    ['jsonl', (i: number) => `{"n": ${i}}`, '\n'],
    ['salvage', (i: number) => `Item: {"n": ${i}}`, '\n'],
  ])(
    '`%s --output-file o.json | head -1`: the output file is still written with every value, exit 0',
    (mode, line, separator) => {
      const dir = mkdtempSync(join(tmpdir(), 'llmjson-epipe-'));
      try {
        // Far more lines than a pipe holds (64 KiB), so the writes after `head` has gone fail.
        writeFileSync(join(dir, 'answer.txt'), Array.from({ length: 20_000 }, (_, i) => line(i)).join(separator));
        const r = spawnSync(
          'bash',
          ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" ${mode} answer.txt --output-file o.json | head -1`],
          { cwd: dir, encoding: 'utf8', timeout: 60_000 },
        );
        expect(r.stdout).toBe('{"n":0}\n');
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        const written = JSON.parse(readFileSync(join(dir, 'o.json'), 'utf8')) as unknown[];
        expect(written).toHaveLength(20_000);
        expect(written.at(-1)).toEqual({ n: 19_999 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    90_000,
  );

  test('`run --output-file o.json | head -1`: the output file is still written, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-epipe-'));
    // 10 000 objects: far more than a pipe holds, so the writes after `head` has gone fail.
    const answer = Array.from({ length: 10_000 }, (_, i) => `{"n": ${i}}`).join('\n');
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(openAISse(answer, 'stop', 4096));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      writeFileSync(
        join(dir, 'prompts.json'),
        JSON.stringify({ prompts: { x: { prompt: 'Count.', 'response-type': 'jsonl', schema: { type: 'object' } } } }),
      );
      const command = `set -o pipefail; "${process.execPath}" "${BIN}" run --prompts prompts.json --id x --base-url ${url} --model m --output-file o.json | head -1`;
      // Not spawnSync: the server answers from this process.
      const child = spawn('bash', ['-c', command], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const code = await new Promise<number | null>((done) => child.on('close', done));
      expect(stdout).toBe('{"n":0}\n');
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const written = JSON.parse(readFileSync(join(dir, 'o.json'), 'utf8')) as unknown[];
      expect(written).toHaveLength(10_000);
      expect(written.at(-1)).toEqual({ n: 9999 });
    } finally {
      await new Promise((done) => server.close(done));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

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

describe('llmjson binary: bounded memory, clean failures', () => {
  test('jsonl keeps no value it does not need: 30 MB of objects under a 48 MB heap limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-flat-'));
    const file = join(dir, 'big.jsonl');
    try {
      // 150 000 objects of about 200 bytes, each an array of 40 numbers: kept in memory they
      // would take about 80 MB of heap (8 bytes per element and more), so keeping them fails.
      const out = createWriteStream(file);
      const numbers = Array.from({ length: 40 }, (_, i) => i * 37).join(',');
      for (let i = 0; i < 150_000; i++) {
        if (!out.write(`{"id": ${i}, "v": [${numbers}]}\n`)) {
          await new Promise<void>((done) => out.once('drain', () => done()));
        }
      }
      await new Promise<void>((done) => out.end(() => done()));
      const r = spawnSync(process.execPath, ['--max-old-space-size=48', BIN, 'jsonl', file, '--require', '150000'], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(25_000_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test('a directory as the input file: one line on stderr and exit 2, not an internal error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-dir-'));
    const r = spawnSync(process.execPath, [BIN, 'jsonl', dir], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`llmjson: cannot read input file ${dir}: it is a directory\n`);
    expect(r.stdout).toBe('');
  });
});
