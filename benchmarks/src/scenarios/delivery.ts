/**
 * The price of delivering a JSONL value at its closing bracket instead of its line break
 * (docs/decisions/002-deliver-at-line-break.md): to know where a value closes, the decoder
 * would have to run the JSON scanner over every character of the stream. This times today's
 * decoder, the scanner alone over every character of every chunk, and the two together.
 */

import { createJsonlDecoder } from '@llmjson/core';
import { JsonScanner, SCAN_ERROR, SCAN_MORE } from '@llmjson/core/internal';
import { type Entrant, Layer, llmjsonDecoder } from '../entrants.js';
import { compare, ratio, type Timing } from '../harness.js';
import { blockChunks, charChunks, jsonlLines, triadObjects } from '../inputs.js';
import { formatSize, formatSpread } from '../report.js';
import type { Case, Scenario, Table } from '../scenario.js';

const FULL_LINES = 20_000;
const QUICK_LINES = 500;

/**
 * Runs `scanner` over every character of `chunk`, resetting it after each completed top-level
 * value; returns how many values completed in the chunk.
 */
function scanChunk(scanner: JsonScanner, chunk: string): number {
  let completed = 0;
  let from = 0;
  while (from < chunk.length) {
    const end = scanner.scan(chunk, from);
    if (end === SCAN_MORE) break;
    if (end === SCAN_ERROR) throw new Error(`scanner error: ${scanner.errorMessage}`);
    completed++;
    scanner.reset();
    from = end;
  }
  return completed;
}

/** The scanner alone over every character: delivers the number of values it saw close. */
function scannerAlone(chunks: readonly string[]): Entrant {
  return {
    name: 'JsonScanner over every character (alone)',
    layer: Layer.engine,
    ours: false,
    run() {
      const scanner = new JsonScanner();
      let completed = 0;
      for (const chunk of chunks) completed += scanChunk(scanner, chunk);
      return [completed];
    },
  };
}

/** Today's decoder plus the scanner over every chunk: what delivery at the closing bracket costs. */
function decoderAndScanner(chunks: readonly string[]): Entrant {
  return {
    name: 'createJsonlDecoder + JsonScanner over every character',
    layer: Layer.engine,
    ours: false,
    run() {
      const values: unknown[] = [];
      const decoder = createJsonlDecoder(
        {},
        {
          value(value) {
            values.push(value);
          },
          diagnostic() {},
        },
      );
      const scanner = new JsonScanner();
      let completed = 0;
      for (const chunk of chunks) {
        completed += scanChunk(scanner, chunk);
        decoder.write(chunk);
      }
      decoder.end();
      if (completed !== values.length) throw new Error(`scanner saw ${completed} values, decoder ${values.length}`);
      return values;
    },
  };
}

function cases(quick: boolean): Case[] {
  const answer = jsonlLines(quick ? QUICK_LINES : FULL_LINES, 50, triadObjects());
  return [
    { label: '4-char chunks', input: charChunks(answer.text, 4) },
    { label: '64 KiB chunks', input: blockChunks(answer.text) },
  ].map(({ label, input }) => ({
    label,
    size: input.size,
    contestants: [
      { entrant: llmjsonDecoder(input.strings, {}, 'createJsonlDecoder (today)'), expected: answer.objects },
      { entrant: scannerAlone(input.strings), expected: [answer.objects.length] },
      { entrant: decoderAndScanner(input.strings), expected: answer.objects },
    ],
  }));
}

export const delivery: Scenario = {
  name: 'delivery',
  title: 'Delivery at the line break vs. at the closing bracket',
  about:
    `${FULL_LINES.toLocaleString('en')} JSONL lines (definition / relationship / attribute objects, no schema) in 4-character string chunks and in 64 KiB reads. ` +
    "Today's decoder finds line breaks with indexOf and parses each line once; delivering at the closing bracket would also run " +
    'JsonScanner over every character of every chunk. The added cost is time(decoder + scanner) ÷ time(decoder) − 1, per round.',
  cases,
  async run(context) {
    const rows: string[][] = [];
    const data: { label: string; timings: Timing[] }[] = [];
    let lines = 0;
    for (const c of cases(context.quick)) {
      context.log(`${this.name}: ${c.label}, ${formatSize(c.size)}`);
      const timings = await compare(c.contestants, context.measure);
      data.push({ label: c.label, timings });
      lines = c.contestants[0]?.expected.length ?? 0;
      const [today, alone, both] = timings as [Timing, Timing, Timing];
      const added = ratio(both, today);
      const percent = (x: number) => `${x >= 1 ? '+' : ''}${Math.round((x - 1) * 100)} %`;
      const wide = added.max / added.min > 1.1;
      rows.push([
        c.label,
        formatSize(c.size),
        `${today.medianMs.toFixed(1)} ms`,
        `${alone.medianMs.toFixed(1)} ms (${formatSpread(ratio(alone, today))} the decoder)`,
        `${both.medianMs.toFixed(1)} ms`,
        wide ? `${percent(added.median)} (${percent(added.min)} to ${percent(added.max)})` : percent(added.median),
      ]);
    }
    const table: Table = {
      caption: `${lines} lines; median over rounds. The added cost is the median of the per-round ratios.`,
      header: ['chunks', 'input', 'decoder today', 'scanner alone', 'decoder + scanner', 'cost if added'],
      rows,
    };
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [table],
      notes: [
        'Absolute times are quoted here only because decision 002 quotes them; the ratio is the figure to compare across machines.',
      ],
      data,
    };
  },
};
