/**
 * Yield and cost on answers as models really write them: prose and a fence around the
 * lines, a trailing comma, a pretty-printed object, a line cut in the middle, an object
 * that breaks the schema, an answer cut at the token limit. The first question is how many
 * intact objects each entrant delivers; the second what that costs.
 */

import {
  ajvCheck,
  batch,
  type Check,
  type Entrant,
  llmjsonDecoder,
  llmjsonStream,
  nativeLines,
  split2Json,
  streamJsonl,
  streamparserJson,
} from '../entrants.js';
import { compare, ratio, type Timing } from '../harness.js';
import { extractionSchema, type NoisyAnswer, type NoisyKind, noisyAnswer, random, tokens } from '../inputs.js';
import { formatRatio, formatSize, formatSpread } from '../report.js';
import type { Case, Contestant, Scenario } from '../scenario.js';

const FULL_ANSWERS = 200;
const QUICK_ANSWERS = 24;

/** Objects a reader sees intact in the answer: llmjson must deliver every one of them. */
const INTACT: ReadonlySet<NoisyKind> = new Set(['clean', 'trailing-comma', 'pretty']);

function objectsOf(answer: NoisyAnswer, kinds: ReadonlySet<NoisyKind>): unknown[] {
  return answer.items.filter((item) => kinds.has(item.kind)).map((item) => item.object);
}

/** What a line-by-line `JSON.parse` delivers: the objects written alone on their line. */
function perLineYield(answer: NoisyAnswer): unknown[] {
  return objectsOf(answer, new Set(['clean']));
}

/**
 * What @streamparser/json delivers: it reads whitespace-separated values, so a pretty-printed
 * object passes, but it stops at the first text that is not JSON — prose, a fence, a cut
 * line, the comma after `{…},` (whose object it has already delivered) — keeping the values
 * before it.
 */
function streamparserYield(answer: NoisyAnswer): unknown[] {
  if (answer.framing === 'fenced') return [];
  const values: unknown[] = [];
  for (const item of answer.items) {
    if (item.kind === 'invalid') continue;
    if (item.kind === 'broken' || item.kind === 'cut') break;
    values.push(item.object);
    if (item.kind === 'trailing-comma') break;
  }
  return values;
}

export interface NoisyBatch {
  readonly answers: readonly NoisyAnswer[];
  /** Objects intact in the answers (what llmjson must deliver). */
  readonly intact: number;
}

export function noisyBatch(quick: boolean): NoisyBatch {
  const next = random(30);
  const answers = Array.from({ length: quick ? QUICK_ANSWERS : FULL_ANSWERS }, (_, i) =>
    noisyAnswer(5 + Math.floor(next() * 36), 1000 + i),
  );
  return { answers, intact: answers.reduce((n, a) => n + objectsOf(a, INTACT).length, 0) };
}

function contestant(
  answers: readonly NoisyAnswer[],
  make: (answer: NoisyAnswer) => Entrant,
  expected: (answer: NoisyAnswer) => unknown[],
): Contestant {
  return { entrant: batch(answers.map(make)), expected: answers.flatMap(expected) };
}

function cases(quick: boolean): Case[] {
  const { answers } = noisyBatch(quick);
  const schema = extractionSchema();
  const check: Check = ajvCheck(schema);
  const input = new Map(answers.map((a) => [a, tokens(a.text)]));
  const chunks = (a: NoisyAnswer) => input.get(a) ?? tokens(a.text);
  const size = answers.reduce((n, a) => n + chunks(a).size, 0);
  return [
    {
      label: `${answers.length} answers`,
      size,
      contestants: [
        contestant(answers, (a) => nativeLines(a.text.split('\n'), check, true), perLineYield),
        contestant(
          answers,
          (a) => llmjsonDecoder(chunks(a).strings, { schema }),
          (a) => objectsOf(a, INTACT),
        ),
        contestant(answers, (a) => streamparserJson(chunks(a).strings, check), streamparserYield),
        contestant(
          answers,
          (a) => llmjsonStream(chunks(a).bytes, { schema }),
          (a) => objectsOf(a, INTACT),
        ),
        contestant(answers, (a) => split2Json(chunks(a).bytes, check, true), perLineYield),
        contestant(answers, (a) => streamJsonl(chunks(a).bytes, check, true), perLineYield),
      ],
    },
  ];
}

export const noisyAnswers: Scenario = {
  name: 'noisy-answers',
  title: 'JSONL as models write it',
  about:
    'A batch of model answers (a fresh parser per answer, token chunks, the demo schema): most fenced between lines of prose, ' +
    'each with the slips models make — a trailing comma (8% of objects), a pretty-printed object (7%), a line cut short (7%), ' +
    'an object that breaks the schema (8%), and a quarter of the answers cut at the token limit. ' +
    'Peers are wired to survive bad lines where they can (try/catch around JSON.parse, stream-json errorIndicator); ' +
    '@streamparser/json stops at its first error, as documented.',
  cases,
  async run(context) {
    const { intact } = noisyBatch(context.quick);
    const [c] = cases(context.quick);
    if (c === undefined) throw new Error('no case');
    context.log(`${this.name}: ${c.label}, ${formatSize(c.size)}`);
    const timings = await compare(c.contestants, context.measure);
    const delivered = new Map(c.contestants.map((x) => [x.entrant.name, x.expected.length]));
    const reference = (t: Timing) => timings.find((r) => r.layer === t.layer && r.ours);
    const table = {
      caption: `Input: ${c.label}, ${formatSize(c.size)}, ${intact} intact objects.`,
      header: ['entrant', 'layer', 'intact objects delivered', 'time ÷ llmjson'],
      rows: timings.map((t) => {
        const n = delivered.get(t.name) ?? 0;
        const r = reference(t);
        return [
          t.name,
          t.layer,
          `${n} of ${intact} (${Math.round((100 * n) / intact)}%)`,
          r === undefined || t.layer === 'ceiling' ? '—' : formatSpread(ratio(t, r)),
        ];
      }),
    };
    const ceiling = timings.find((t) => t.layer === 'ceiling');
    const engine = timings.find((t) => t.layer === 'engine' && t.ours);
    const notes = [
      'Every entrant delivers exactly the objects listed for it (checked before timing); none delivers a broken or schema-invalid object.',
      'llmjson also reports every line it does not turn into a value (prose, fence, syntax, schema, truncated) with its line number and reason; the peers drop them without a word.',
    ];
    if (ceiling !== undefined && engine !== undefined) {
      notes.push(
        `llmjson's engine takes ${formatRatio(ratio(engine, ceiling).median)} the time of JSON.parse in try/catch on pre-split lines, which recovers only the objects written alone on their line.`,
      );
    }
    return { scenario: this.name, title: this.title, about: this.about, tables: [table], notes, data: timings };
  },
};
