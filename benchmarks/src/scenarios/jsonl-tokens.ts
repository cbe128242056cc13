/**
 * JSONL throughput on a clean answer: the common case, where every line is one valid object
 * and the question is only what framing, decoding and parsing cost per token.
 */

import { llmjsonDecoder, llmjsonStream, nativeLines, split2Json, streamJsonl, streamparserJson } from '../entrants.js';
import { compare } from '../harness.js';
import { byteBlocks, jsonlAnswer, tokens } from '../inputs.js';
import { type CaseTimings, formatSize, sideBySide } from '../report.js';
import type { Case, Scenario } from '../scenario.js';

const FULL_SIZE = 256_000;
const QUICK_SIZE = 16_000;

function cases(quick: boolean): Case[] {
  const answer = jsonlAnswer(quick ? QUICK_SIZE : FULL_SIZE, 1);
  const expected = answer.objects;
  const chunkings = [
    { label: 'token chunks', input: tokens(answer.text) },
    { label: '64 KiB chunks', input: tokens(answer.text, (b) => byteBlocks(b)) },
  ];
  return chunkings.map(({ label, input }) => ({
    label,
    size: input.size,
    contestants: [
      nativeLines(answer.lines),
      llmjsonDecoder(input.strings),
      streamparserJson(input.strings),
      llmjsonStream(input.bytes),
      split2Json(input.bytes),
      streamJsonl(input.bytes),
    ].map((entrant) => ({ entrant, expected })),
  }));
}

export const jsonlTokens: Scenario = {
  name: 'jsonl-tokens',
  title: 'JSONL, clean answer',
  about:
    'A clean JSONL answer (extraction objects, one per line, with multi-byte UTF-8 text), no schema. ' +
    '"token chunks" replays it in 3–6-byte chunks as a model server sends it (some split a character); ' +
    '"64 KiB chunks" reads it like a file. Engines get the decoded text chunks, streams the byte chunks. ' +
    'Every entrant must deliver every object, in order, before it is timed.',
  cases,
  async run(context) {
    const results: CaseTimings[] = [];
    let size = 0;
    for (const c of cases(context.quick)) {
      context.log(`${this.name}: ${c.label}, ${formatSize(c.size)}`);
      results.push({ label: c.label, timings: await compare(c.contestants, context.measure) });
      size = c.size;
    }
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [sideBySide(`Input: ${formatSize(size)}, ${results.length} chunkings.`, results)],
      notes: [
        'time ÷ llmjson compares with llmjson in the same layer (engine with engine, stream with stream): above 1× llmjson is faster.',
      ],
      data: results,
    };
  },
};
