// Measures, over the recorded provider streams in ../shared/corpora/recorded-streams, how often
// the line break that ends a line arrives in a later text delta than the line's last visible
// character: the only case where delivering a value at its closing bracket instead of at its
// line break would make it available one delta earlier. Used by docs/decisions/002.
import { existsSync, readFileSync } from 'node:fs';

const dir = new URL('../../shared/corpora/recorded-streams/', import.meta.url);
if (!existsSync(dir)) {
  console.error(`no corpus at ${dir.pathname}`);
  process.exit(2);
}
const index = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8'));

function textDeltas(file) {
  const deltas = [];
  for (const line of readFileSync(new URL(file, dir), 'utf8').split('\n')) {
    const payload = line.startsWith('data: ') ? line.slice(6) : line;
    if (!payload.startsWith('{')) continue;
    const event = JSON.parse(payload);
    const candidates = [
      event.choices?.[0]?.delta?.content,
      event.type === 'content_block_delta' && event.delta?.type === 'text_delta' ? event.delta.text : undefined,
      event.type === 'response.output_text.delta' ? event.delta : undefined,
      event.candidates?.[0]?.content?.parts?.[0]?.text,
      event.contentBlockDelta?.delta?.text,
      event.type === 'content-delta' ? event.delta?.message?.content?.text : undefined,
    ];
    const text = candidates.find((c) => typeof c === 'string' && c.length > 0);
    if (text !== undefined) deltas.push(text);
  }
  return deltas;
}

let lines = 0;
let later = 0;
for (const entry of index) {
  if (entry.kind !== 'text' && entry.kind !== 'json-text') continue;
  const deltas = textDeltas(entry.file);
  let lastVisibleDelta = -1;
  let fileLines = 0;
  let fileLater = 0;
  deltas.forEach((delta, d) => {
    for (const ch of delta) {
      if (ch === '\n') {
        if (lastVisibleDelta >= 0) {
          fileLines++;
          if (lastVisibleDelta < d) fileLater++;
        }
        lastVisibleDelta = -1;
      } else if (ch !== ' ' && ch !== '\r' && ch !== '\t') {
        lastVisibleDelta = d;
      }
    }
  });
  console.log(`${entry.file}: ${fileLines} lines, line break in a later delta: ${fileLater}`);
  lines += fileLines;
  later += fileLater;
}
console.log(
  `total: ${lines} lines; line break in a later delta than the last character: ${later} (${((100 * later) / Math.max(1, lines)).toFixed(1)}%)`,
);
