// Replays a recorded model answer in token-sized chunks through createJsonlStream and prints
// each object the moment the stream emits it, then the diagnostics summary.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createJsonlStream } from '@llmjson/node';

const root = new URL('../fixtures/', import.meta.url);
const answer = readFileSync(new URL('demo/extraction-answer.txt', root));
const schema = JSON.parse(readFileSync(new URL('schemas/definition-relationship.schema.json', root), 'utf8'));
const delay = Number(process.env.LLMJSON_DEMO_DELAY_MS ?? 2);

// Bytes in 3-to-6-byte tokens, as a model server sends them: some split a UTF-8 character.
async function* tokens() {
  for (let i = 0, n = 0; i < answer.length; n++) {
    const size = 3 + (n % 4);
    yield answer.subarray(i, i + size);
    i += size;
    if (delay > 0) await sleep(delay);
  }
}

const started = performance.now();
const stamp = () => `${String(Math.round(performance.now() - started)).padStart(5)} ms`;
const stream = createJsonlStream({
  schema,
  onDiagnostic: (d) => {
    const lines = d.endLine === undefined ? `line ${d.line}` : `lines ${d.line}-${d.endLine}`;
    console.log(`${stamp()}  ${d.reason.padEnd(9)} ${lines}: ${d.message}`);
  },
});

console.log('Replaying fixtures/demo/extraction-answer.txt in small chunks through createJsonlStream:\n');
await pipeline(Readable.from(tokens()), stream, async (objects) => {
  for await (const object of objects) {
    console.log(`${stamp()}  value     ${JSON.stringify(object)}`);
  }
});

const { lines, values, valueLines, skippedLines, reportedLines, diagnostics } = stream.stats;
console.log(
  `\n${lines} lines: ${values} values (from ${valueLines} lines), ${skippedLines} blank/fence lines skipped, ${reportedLines} lines reported.`,
);
console.log(
  `diagnostics: ${Object.entries(diagnostics)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ')}`,
);
