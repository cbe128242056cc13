/**
 * JSONL with schema validation: what validating each object costs, and what discriminator
 * dispatch (validating only the `oneOf` branch the `type` names) saves over validating the
 * whole union the way a peer's user would, with one compiled ajv validator.
 */

import type { JsonSchema } from '@llmjson/core';
import {
  ajvCheck,
  llmjsonDecoder,
  llmjsonStream,
  nativeLines,
  split2Json,
  streamJsonl,
  streamparserJson,
} from '../entrants.js';
import { compare } from '../harness.js';
import {
  extractionObjects,
  extractionSchema,
  jsonlAnswer,
  type ObjectMaker,
  tokens,
  unionObjects,
  unionSchema,
} from '../inputs.js';
import { type CaseTimings, formatSize, sideBySide } from '../report.js';
import type { Case, Scenario } from '../scenario.js';

const FULL_SIZE = 256_000;
const QUICK_SIZE = 16_000;
/** Share of objects the schema rejects: models get a field wrong now and then. */
const INVALID_SHARE = 0.1;

interface Union {
  readonly label: string;
  readonly schema: JsonSchema;
  readonly maker: ObjectMaker;
}

function unions(): Union[] {
  return [
    { label: '2-branch oneOf', schema: extractionSchema(), maker: extractionObjects },
    { label: '8-branch oneOf', schema: unionSchema(8), maker: unionObjects(8) },
  ];
}

function cases(quick: boolean): Case[] {
  return unions().map(({ label, schema, maker }, i) => {
    const answer = jsonlAnswer(quick ? QUICK_SIZE : FULL_SIZE, 10 + i, INVALID_SHARE, maker);
    const input = tokens(answer.text);
    const check = ajvCheck(schema);
    return {
      label,
      size: input.size,
      contestants: [
        nativeLines(answer.lines, check),
        llmjsonDecoder(input.strings, { schema }, 'llmjson createJsonlDecoder, dispatch on "type"'),
        llmjsonDecoder(
          input.strings,
          { schema, discriminator: false },
          'llmjson createJsonlDecoder, whole oneOf (discriminator: false)',
        ),
        streamparserJson(input.strings, check),
        llmjsonStream(input.bytes, { schema }, 'llmjson createJsonlStream, dispatch on "type"'),
        split2Json(input.bytes, check),
        streamJsonl(input.bytes, check),
      ].map((entrant) => ({ entrant, expected: answer.valid })),
    };
  });
}

export const jsonlSchema: Scenario = {
  name: 'jsonl-schema',
  title: 'JSONL with a oneOf schema',
  about:
    `The clean answer in token chunks, now validated: ${INVALID_SHARE * 100}% of the objects break the schema and must be dropped. ` +
    "Peers validate with one ajv validator compiled from the whole schema, with llmjson's ajv options " +
    '(allErrors, non-strict). llmjson dispatches on the discriminator by default; the "whole oneOf" row turns that off. ' +
    'The 2-branch union is the demo schema (fixtures/schemas); the 8-branch one is an event union of the same shape.',
  cases,
  async run(context) {
    const results: CaseTimings[] = [];
    const sizes: string[] = [];
    for (const c of cases(context.quick)) {
      context.log(`${this.name}: ${c.label}, ${formatSize(c.size)}`);
      results.push({ label: c.label, timings: await compare(c.contestants, context.measure) });
      sizes.push(`${c.label} ${formatSize(c.size)}`);
    }
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [sideBySide(`Inputs: ${sizes.join(', ')}, token chunks.`, results)],
      notes: [
        'The ceiling here is JSON.parse + the whole-schema ajv validator on pre-split lines.',
        'time ÷ llmjson compares with llmjson (dispatch) in the same layer: above 1× llmjson is faster.',
      ],
      data: results,
    };
  },
};
