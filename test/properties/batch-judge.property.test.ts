/**
 * Properties of `judgeRecord` (packages/cli/src/batch-judge.ts, decision 039) over arbitrary
 * answers: free text, JSON values, JSON fenced or in prose, cut-off JSON, JSONL lines, values
 * with numbers written as strings (what coercion repairs), under every mode, a few schemas, and
 * finish reasons that do or do not say the answer was cut.
 *
 * - It never throws, and every status it gives is one of RECORD_STATUSES.
 * - The scorings are monotone: strict valid ⇒ salvage valid ⇒ coerce valid; what is usable
 *   (valid, salvaged or coerced) under strict is usable under salvage, and under coerce; what
 *   salvage finds valid or salvaged, coerce leaves as it is.
 * - `not-json` is a property of the text: the same under every scoring.
 * - `status` is the scoring the settings pick: strict with `salvage: false`, coerce with
 *   `coerce`, else salvage.
 * - The coerce scoring of a json answer salvage finds invalid is `coerced` exactly when
 *   parseJsonResponse with `coerce` succeeds on it.
 * - The salvage scoring is classifyResponse's status, except that its `invalid` is split into
 *   `invalid` and `not-json`, and prose it calls `truncated` (elements mode) is `not-json`.
 * - Result lines stay small: an excerpt of at most 200 characters.
 */

import { test as fcTest } from '@fast-check/vitest';
import { classifyResponse, parseJsonResponse } from '@llmjson/contracts';
import type { JsonSchema } from '@llmjson/core';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { type JudgeOptions, judgeRecord, resultText } from '../../packages/cli/src/batch-judge.js';
import { RECORD_STATUSES, type RecordStatus } from '../../packages/cli/src/batch-types.js';
import { jsonValueText, objectText } from '../support/arbitraries.js';
import { numRuns } from '../support/chunking.js';

const N = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
const COLOUR = {
  type: 'object',
  properties: { n: { type: 'number' }, colour: { enum: ['red', 'blue'] }, ok: { type: 'boolean' } },
};
const SCHEMAS: readonly (JsonSchema | undefined)[] = [undefined, N, COLOUR, { type: 'object' }, true];
const ARRAY_SCHEMAS: readonly (JsonSchema | undefined)[] = [
  undefined,
  { type: 'array', items: N },
  { type: 'array', items: {} },
];

/** Values a schema above may accept, reject, or accept once coerced. */
const nValue = fc.oneof(
  fc.integer({ min: -99, max: 99 }).map((n) => `{"n": ${n}}`),
  fc.integer({ min: -99, max: 99 }).map((n) => `{"n": "${n}"}`),
  fc.constantFrom('{"n": 1.0}', '{"n": 2.5}', '{"colour": "Red"}', '{"ok": "true"}', '{"n": [3]}', '{}', '[]'),
);

const fragment = fc.oneof(
  nValue,
  jsonValueText,
  objectText,
  fc.string({ maxLength: 30 }),
  fc.constantFrom('{', '[', '}', ']', '```', '```json', '\n', ',', '"', ':', 'null', 'Sure:', ' '),
);

const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 60 }),
  nValue,
  jsonValueText,
  fc.array(fragment, { maxLength: 6 }).map((parts) => parts.join('')),
  fc.array(fragment, { maxLength: 6 }).map((parts) => parts.join('\n')),
  fc.tuple(fc.string({ maxLength: 20 }), nValue).map(([prose, value]) => `${prose}\n\`\`\`json\n${value}\n\`\`\``),
  fc.tuple(fc.string({ maxLength: 20 }), nValue, fc.string({ maxLength: 20 })).map(([a, v, b]) => `${a} ${v} ${b}`),
  fc.tuple(jsonValueText, fc.nat()).map(([value, cut]) => value.slice(0, cut % (value.length + 1))),
  fc.array(nValue, { minLength: 1, maxLength: 4 }).map((lines) => `[${lines.join(', ')}]`),
);

const settings = fc.record({
  mode: fc.constantFrom('json', 'jsonl', 'elements', 'salvage') as fc.Arbitrary<JudgeOptions['mode']>,
  schemaIndex: fc.nat(),
  salvage: fc.boolean(),
  coerce: fc.constantFrom('off', 'all', 'string-to-number'),
  finishReason: fc.constantFrom(undefined, 'stop', 'length'),
});

const USABLE: ReadonlySet<RecordStatus> = new Set(['valid', 'salvaged', 'coerced']);

describe('judgeRecord', () => {
  fcTest.prop([text, settings], { numRuns: numRuns * 5 })(
    'never throws; monotone scorings; not-json everywhere or nowhere; the status the settings pick',
    (answer, s) => {
      const pool = s.mode === 'elements' ? ARRAY_SCHEMAS : SCHEMAS;
      const schema = pool[s.schemaIndex % pool.length];
      const options: JudgeOptions = {
        mode: s.mode,
        salvage: s.salvage,
        ...(s.coerce === 'off' ? {} : { coerce: s.coerce === 'all' ? true : ['string-to-number' as const] }),
        ...(schema === undefined ? {} : { schema }),
      };
      const result = judgeRecord(
        {
          index: 0,
          id: 'r',
          model: 'm',
          text: answer,
          ...(s.finishReason === undefined ? {} : { finishReason: s.finishReason }),
        },
        options,
      );
      const { strict, salvage, coerce } = result.scores;
      for (const status of [result.status, strict, salvage, coerce]) expect(RECORD_STATUSES).toContain(status);
      if (strict === 'valid') expect(salvage).toBe('valid');
      if (salvage === 'valid') expect(coerce).toBe('valid');
      if (USABLE.has(strict)) expect(USABLE.has(salvage)).toBe(true);
      if (USABLE.has(salvage)) expect(USABLE.has(coerce)).toBe(true);
      if (salvage === 'valid' || salvage === 'salvaged') expect(coerce).toBe(salvage);
      const notJson = [strict, salvage, coerce].map((status) => status === 'not-json');
      expect(new Set(notJson).size).toBe(1);
      const coercing = s.coerce !== 'off';
      expect(result.status).toBe(s.salvage ? (coercing && schema !== undefined ? coerce : salvage) : strict);
      if (s.salvage && coercing && schema === undefined) expect(coerce).toBe(salvage);
      if (result.excerpt !== undefined) expect(result.excerpt.length).toBeLessThanOrEqual(200);

      const classified = classifyResponse(answer, {
        mode: s.mode,
        ...(schema === undefined ? {} : { schema }),
        ...(s.finishReason === undefined ? {} : { finishReason: s.finishReason }),
      }).status;
      if (salvage === 'invalid' && schema !== undefined && s.mode === 'json') {
        // The coerce scoring's shortcut (the document coerced directly) answers as the engine does.
        const rules = s.coerce === 'string-to-number' ? ['string-to-number' as const] : true;
        const engine = parseJsonResponse(answer, { schema, coerce: rules }).status === 'succeeded';
        // The scoring coerces with the rules --coerce names, else all of them.
        expect(coerce === 'coerced').toBe(engine);
      }
      if (classified === 'invalid') expect(['invalid', 'not-json']).toContain(salvage);
      else if (classified === 'truncated' && salvage === 'not-json') expect(s.finishReason).not.toBe('length');
      else expect(salvage).toBe(classified);
    },
  );
});

describe('resultText', () => {
  fcTest.prop(
    [
      text,
      settings,
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.nat(),
      fc.boolean(),
      fc.boolean(),
    ],
    { numRuns: numRuns * 2 },
  )(
    'is JSON.stringify of every result the judge gives (any id, model, position; either vocabulary; a record schema)',
    (answer, s, id, model, index, bench, ownSchema) => {
      const pool = s.mode === 'elements' ? ARRAY_SCHEMAS : SCHEMAS;
      const schema = pool[s.schemaIndex % pool.length];
      const options: JudgeOptions = {
        mode: s.mode,
        salvage: s.salvage,
        statuses: bench ? 'jsonschemabench' : 'llmjson',
        ...(s.coerce === 'off' ? {} : { coerce: true }),
        ...(schema === undefined || ownSchema ? {} : { schema }),
        ...(ownSchema ? { schemaField: 'schema' } : {}),
      };
      const result = judgeRecord(
        {
          index,
          id,
          model,
          text: answer,
          ...(ownSchema && schema !== undefined ? { schema } : {}),
          ...(s.finishReason === undefined ? {} : { finishReason: s.finishReason }),
        },
        options,
      );
      expect(resultText(result)).toBe(JSON.stringify(result));
    },
  );
});
