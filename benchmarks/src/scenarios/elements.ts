/**
 * Element streaming: the elements of a large JSON array under a key, each delivered as soon
 * as it is complete. A seeded ~1 MB document `{"title": …, "items": [ … ]}` (records with long
 * multi-line strings, nesting and multi-byte UTF-8) arrives in 64 KiB reads and in
 * 4-character deltas. The question: what does delivering element by element cost against
 * `JSON.parse` of the whole document (the target: at least half its speed with 64 KiB
 * chunks), and against the streaming parsers a user would otherwise pick
 * (@streamparser/json with a `$.items.*` path, stream-json's pick + streamArray)?
 */

import {
  llmjsonElementScanner,
  llmjsonElementStream,
  llmjsonExtractElements,
  nativeItems,
  nativeItemsFromBytes,
  streamJsonElements,
  streamparserElements,
} from '../entrants.js';
import { compare, ratio, type Skipped, type Timing } from '../harness.js';
import { blockChunks, charChunks, elementDocument } from '../inputs.js';
import { formatSize, formatSpread, sideBySide } from '../report.js';
import type { Case, Scenario, TargetResult } from '../scenario.js';

const FULL_SIZE = 1_000_000;
const QUICK_SIZE = 150_000;
const PATH = '$.items';
/** Speed relative to `JSON.parse` of the whole document that element streaming must reach. */
const CEILING_TARGET = 0.5;
/** An entrant whose verifying run takes longer is not timed. */
const MAX_RUN_MS = 2_000;
const BLOCKS = '64 KiB chunks';
const CHARS = '4-char chunks';

function cases(quick: boolean): Case[] {
  const document = elementDocument(quick ? QUICK_SIZE : FULL_SIZE, 90);
  const expected = document.items;
  const options = { path: PATH };
  const blocks = blockChunks(document.text);
  const chars = charChunks(document.text, 4);
  return [
    {
      label: BLOCKS,
      size: blocks.size,
      contestants: [
        nativeItems(document.text),
        nativeItemsFromBytes(blocks.writes),
        llmjsonElementScanner(blocks.strings, options),
        llmjsonExtractElements(document.text, options),
        streamparserElements(blocks.strings, `${PATH}.*`),
        llmjsonElementStream(blocks.writes, options),
        streamJsonElements(blocks.writes, 'items'),
      ].map((entrant) => ({ entrant, expected })),
    },
    {
      label: CHARS,
      size: chars.size,
      contestants: [
        nativeItems(document.text),
        llmjsonElementScanner(chars.strings, options),
        streamparserElements(chars.strings, `${PATH}.*`),
      ].map((entrant) => ({ entrant, expected })),
    },
  ];
}

interface CaseResult {
  readonly label: string;
  readonly size: number;
  readonly timings: readonly Timing[];
  readonly skipped: readonly Skipped[];
}

export const elements: Scenario = {
  name: 'elements',
  title: 'Element streaming: the items of a large JSON array',
  about:
    `A seeded compact JSON document \`{"title": …, "items": [ … ]}\` of about ${formatSize(FULL_SIZE)} (${formatSize(QUICK_SIZE)} with --quick): records with long multi-line strings holding quotes (escapes), ` +
    'nested objects and arrays, numbers, booleans and nulls, mixing ASCII with 2- to 4-byte UTF-8 characters. ' +
    '"64 KiB chunks": engines get the text the 64 KiB reads decode to, streams are written the Buffers; "4-char chunks": 4-character string deltas. ' +
    `llmjson: createElementScanner({ path: '${PATH}' }) (engine), extractElements on the whole text (engine), createElementStream({ path: '${PATH}' }) (stream). ` +
    `Peers: @streamparser/json's JSONParser with paths ['${PATH}.*'] and keepStack: false (engine); stream-json's parser() + pick({ filter: 'items' }) + streamArray() (stream). ` +
    'The ceiling is JSON.parse of the whole document, then reading .items; beside it, for the streams (written the reads as bytes), the same after one streaming TextDecoder over the reads. Streams are piped into the cheapest object-mode Writable. ' +
    'Every entrant must deliver exactly the elements of items, in order, before it is timed.',
  cases,
  async run(context) {
    const results: CaseResult[] = [];
    for (const c of cases(context.quick)) {
      context.log(`${this.name}: ${c.label}, ${formatSize(c.size)}`);
      const skipped: Skipped[] = [];
      const timings = await compare(c.contestants, context.measure, { maxRunMs: MAX_RUN_MS, skipped });
      results.push({ label: c.label, size: c.size, timings, skipped });
    }

    const targets: TargetResult[] = [];
    const blocks = results.find((r) => r.label === BLOCKS);
    const ceiling = blocks?.timings.find((t) => t.layer === 'ceiling');
    if (blocks !== undefined && ceiling !== undefined) {
      for (const name of ['llmjson createElementScanner', 'llmjson createElementStream']) {
        const mine = blocks.timings.find((t) => t.name === name);
        if (mine === undefined) continue;
        const r = ratio(ceiling, mine);
        // The stream is written the reads' bytes: what decoding them and JSON.parse take together, beside.
        const bytes = blocks.timings.find((t) => t.layer === 'ceiling' && t !== ceiling);
        const fromBytes =
          name === 'llmjson createElementStream' && bytes !== undefined
            ? `; relative to ${bytes.name}: ${formatSpread(ratio(bytes, mine))}`
            : '';
        targets.push({
          target: `element streaming, 64 KiB chunks: ≥ ${CEILING_TARGET}× JSON.parse of the whole document`,
          basis: `${name}, ${formatSize(blocks.size)} document`,
          measured: `speed relative to ${ceiling.name}: ${formatSpread(r)}${fromBytes}`,
          met: r.median >= CEILING_TARGET,
        });
      }
    }

    const items = cases(context.quick)[0]?.contestants[0]?.expected.length ?? 0;
    const notes = [
      `The document holds ${items} items; every entrant delivers exactly those elements, in order, before it is timed.`,
      'time ÷ llmjson compares with llmjson in the same layer: the engines with createElementScanner, the streams with createElementStream; above 1× llmjson is faster.',
      ...results.flatMap((r) =>
        r.skipped.map(
          (s) => `${s.name}, ${r.label}: not timed; its one verifying run took ${(s.runMs / 1000).toFixed(1)} s.`,
        ),
      ),
    ];
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [
        sideBySide(
          `Input: ${formatSize(results[0]?.size ?? 0)}, ${items} items.`,
          results.map((r) => ({ label: r.label, timings: r.timings })),
        ),
      ],
      notes,
      targets,
      data: results,
    };
  },
};
