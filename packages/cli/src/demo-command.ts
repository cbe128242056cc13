/**
 * `llmjson demo`: replays two bundled recorded answers at a model's token pace — no network,
 * no key — and shows what llmjson does with them as they stream:
 * 1. a JSONL extraction answer (prose, a fence, a trailing comma, a pretty-printed object, a
 *    schema failure, a broken line, a cut last line): each object the moment its line ends,
 *    each dropped line with its reason;
 * 2. a JSON-document answer: the partial value growing (the summary text, items appearing
 *    and completing), from the change events;
 * then the stats.
 */

import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSchemaRegistry, defaultSchemaRoots } from '@llmjson/contracts';
import type { Change, Diagnostic } from '@llmjson/core';
import { createJsonlStream, createPartialStream } from '@llmjson/node';
import { ExitCode } from './exit-codes.js';
import type { Io } from './stream-command.js';

const DEMO = new URL('../demo/', import.meta.url);

export interface DemoFlags {
  /** Tokens per second; 0 replays without pauses. */
  readonly speed: number;
}

/** The answer as a model server sends it: bytes in 3-to-6-byte tokens (some split a UTF-8 character). */
async function* tokens(bytes: Uint8Array, perSecond: number): AsyncIterable<Buffer> {
  for (let i = 0, n = 0; i < bytes.length; n++) {
    const size = 3 + (n % 4);
    yield Buffer.from(bytes.subarray(i, i + size));
    i += size;
    if (perSecond > 0) await sleep(1000 / perSecond);
  }
}

export async function runDemoCommand(flags: DemoFlags, io: Io): Promise<number> {
  const started = performance.now();
  const stamp = () => `${String(Math.round(performance.now() - started)).padStart(6)} ms`;
  const say = (line: string) => io.stdout.write(`${line}\n`);
  const registry = createSchemaRegistry({ roots: defaultSchemaRoots({ cwd: io.cwd, env: io.env }).slice(-1) });
  const { schema, file } = registry.resolve('llmjson.kg.definition_relationship.v1');

  const extraction = readFileSync(new URL('extraction-answer.txt', DEMO));
  say(
    `1. A JSONL extraction answer (${extraction.length} bytes) streamed at ${flags.speed || 'full'} tokens/s through`,
  );
  say(
    `   createJsonlStream, validated against llmjson.kg.definition_relationship.v1 (${file.split('/').slice(-4).join('/')}):`,
  );
  const jsonl = createJsonlStream({
    schema,
    onDiagnostic: (d: Diagnostic) => {
      const lines = d.endLine === undefined ? `line ${d.line}` : `lines ${d.line}-${d.endLine}`;
      say(`${stamp()}  ${d.reason.padEnd(9)} ${lines}: ${d.message}`);
    },
  });
  Readable.from(tokens(extraction, flags.speed)).pipe(jsonl);
  for await (const value of jsonl) say(`${stamp()}  object    ${JSON.stringify(value)}`);
  const s = jsonl.stats;
  say(
    `   ${s.values} objects emitted; ${Object.entries(s.diagnostics)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}.`,
  );

  const document = readFileSync(new URL('document-answer.txt', DEMO));
  say('');
  say(`2. A JSON-document answer (${document.length} bytes) through createPartialStream({ emit: 'changes' }):`);
  const partial = createPartialStream({ emit: 'changes' });
  Readable.from(tokens(document, flags.speed)).pipe(partial);
  let summary = 0;
  let updates = 0;
  for await (const changes of partial as AsyncIterable<Change[]>) {
    updates++;
    for (const change of changes) {
      const path = change.path.join('.');
      if (change.op === 'append' && path === 'summary') summary += change.value.length;
      else if (change.op === 'add' && change.path.length === 2 && change.path[0] === 'items')
        say(`${stamp()}  item ${change.path[1]} appears`);
      else if (change.op === 'complete' && change.path.length === 2 && change.path[0] === 'items')
        say(`${stamp()}  item ${change.path[1]} complete`);
      else if (change.op === 'complete' && path === 'summary')
        say(`${stamp()}  summary complete (${summary} characters, grown over ${updates} updates)`);
      else if (change.op === 'complete' && path === 'title') say(`${stamp()}  title complete`);
      else if (change.op === 'complete' && change.path.length === 0) say(`${stamp()}  document complete`);
    }
  }
  say(
    `   ${partial.stats.updates} updates, ${partial.stats.changes} changes; final value: ${JSON.stringify(partial.value).slice(0, 100)}…`,
  );
  return ExitCode.ok;
}
