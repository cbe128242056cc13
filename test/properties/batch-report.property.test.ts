/**
 * The report of `llmjson batch` is exactly mergeable: for random result lines and input problems,
 * split over n ≤ 8 shards by any assignment (not only `--shard k/n`'s position rule), the merge of
 * the shards' reports deep-equals the report of one builder fed everything, whatever the order of
 * the reports and of the lines within each; read back from their JSON files, the same. Small caps
 * are not needed to reach the bounds: models, keywords and paths are drawn from sets larger than
 * what most shards see, and the unit tests cover the caps themselves.
 *
 * And whatever text the input holds (model names, ids, keywords, paths, messages, excerpts: any
 * UTF-16, lone surrogates and controls included), every format shows it as text: the terminal
 * summary holds no raw control, bidi or line-breaking character but the newlines of its lines;
 * every markdown table row has its header's number of cells and no inline HTML; the HTML page
 * holds only the elements the page itself writes.
 *
 * A report file is input too: with any one value of a valid report replaced by any JSON value,
 * `parseReport` either refuses it (a UsageError) or returns a report that merges, compares and
 * renders in every format without an exception.
 */
import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import {
  type BatchReport,
  diffReports,
  markdownReport,
  mergeReports,
  parseReport,
  ReportBuilder,
  type ReportSettings,
  renderReport,
  summaryText,
} from '../../packages/cli/src/batch-report.js';
import { htmlReport } from '../../packages/cli/src/batch-report-html.js';
import {
  type InputProblem,
  RECORD_STATUSES,
  type RecordResult,
  type RecordStatus,
} from '../../packages/cli/src/batch-types.js';
import { UsageError } from '../../packages/cli/src/exit-codes.js';
import { numRuns } from '../support/chunking.js';

const SETTINGS: ReportSettings = {
  mode: 'json',
  salvage: true,
  coerce: ['enum-case'],
  format: 'openai-batch',
  fields: { schema: 'body.json_schema' },
  statuses: 'llmjson',
  inputs: ['a.jsonl'],
};

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'Llama-3', 'qwen|2.5', '__proto__', 'constructor', '', 'é\u0000\n'];
const status = fc.constantFrom<RecordStatus>(...RECORD_STATUSES);
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

/** A result line's fields; its position is given by its place in the run. */
const line = fc.record({
  model: fc.constantFrom(...MODELS),
  status,
  strict: status,
  coerce: status,
  values: fc.nat(3),
  diagnostics: fc.nat(3),
  keyword: maybe(fc.constantFrom('type', 'required', 'enum', 'additionalProperties', 'minLength')),
  path: maybe(fc.constantFrom('', '/name', '/items/0', '/items/17/name', '/a/b/3/c', '/__proto__')),
  message: maybe(fc.string({ maxLength: 20 })),
  excerpt: maybe(fc.string({ maxLength: 20 })),
});

type Line = typeof line extends fc.Arbitrary<infer T> ? T : never;

function resultAt(index: number, l: Line): RecordResult {
  return {
    index,
    id: `r${index % 5}`,
    model: l.model,
    status: l.status,
    scores: { strict: l.strict, salvage: l.status, coerce: l.coerce },
    values: l.values,
    diagnostics: l.diagnostics,
    ...(l.keyword === undefined ? {} : { keyword: l.keyword }),
    ...(l.path === undefined ? {} : { path: l.path }),
    ...(l.message === undefined ? {} : { message: l.message }),
    ...(l.excerpt === undefined ? {} : { excerpt: l.excerpt }),
  };
}

/** A run: each item a result line or an input problem, each assigned to one of n shards; then an order. */
const run = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    items: fc.array(
      fc.record({
        shard: fc.nat(n - 1),
        item: fc.oneof(
          { weight: 9, arbitrary: line.map((l) => ({ kind: 'result' as const, l })) },
          { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map((m) => ({ kind: 'problem' as const, m })) },
        ),
      }),
      { maxLength: 120 },
    ),
    seed: fc.integer(),
  }),
);

function feed(
  builder: ReportBuilder,
  item: { kind: 'result'; l: Line } | { kind: 'problem'; m: string },
  index: number,
) {
  if (item.kind === 'result') builder.add(resultAt(index, item.l));
  else builder.addProblem({ index, file: 'a.jsonl', line: index + 1, message: item.m } satisfies InputProblem);
}

/** A deterministic shuffle (the seed is part of the case, so a failure replays). */
function shuffled<T>(list: readonly T[], seed: number): T[] {
  const out = [...list];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('batch report merge', () => {
  fcTest.prop([run], { numRuns })(
    'merge of any split equals the one-run report, in any order',
    ({ n, items, seed }) => {
      const whole = new ReportBuilder(SETTINGS);
      for (const [index, { item }] of items.entries()) feed(whole, item, index);
      const expected = whole.report();

      const builders = Array.from(
        { length: n },
        (_, k) => new ReportBuilder({ ...SETTINGS, ...(n === 1 ? {} : { shard: { index: k + 1, count: n } }) }),
      );
      // Each shard folds its own items in an order of its own.
      const indexed = items.map((entry, index) => ({ ...entry, index }));
      for (const { shard, item, index } of shuffled(indexed, seed)) feed(builders[shard] as ReportBuilder, item, index);
      const shards: BatchReport[] = builders.map((b) => b.report());

      expect(mergeReports(shards)).toEqual(expected);
      expect(mergeReports(shuffled(shards, seed ^ 0x5bd1e995))).toEqual(expected);
      // Through their JSON files: the same, byte for byte.
      const files = shards.map((s, i) => parseReport(JSON.stringify(s), `shard-${i}.json`));
      expect(JSON.stringify(mergeReports(files))).toBe(JSON.stringify(expected));
    },
  );
});

/** A raw control, bidi or line-separating character other than the newline. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Every element the HTML page writes itself. */
const PAGE_ELEMENTS = new Set(
  'html head meta link title style body main header h1 h2 h3 p section ul li span svg g text rect table thead tbody tr th td b i code pre div wbr'.split(
    ' ',
  ),
);

const anyText = fc.string({ unit: 'binary', maxLength: 24 });
const hostileText = fc.oneof(
  anyText,
  fc.constantFrom(
    '<script>alert(1)</script>',
    'a|b',
    '\\|',
    '\u001b]0;x\u0007',
    '`code`',
    '</pre><b>',
    '"\'><img src=x>',
  ),
);

describe('batch report formats', () => {
  fcTest.prop(
    [
      fc.array(
        fc.record({
          model: hostileText,
          id: hostileText,
          keyword: hostileText,
          path: hostileText,
          message: hostileText,
          excerpt: hostileText,
          status,
        }),
        { minLength: 1, maxLength: 6 },
      ),
      fc.array(fc.record({ file: hostileText, message: hostileText }), { maxLength: 2 }),
    ],
    { numRuns },
  )('input text is shown as text in every format', (lines, problems) => {
    const builder = new ReportBuilder({ ...SETTINGS, inputs: lines.map((l) => l.id) });
    for (const [index, l] of lines.entries()) {
      builder.add({
        index,
        id: l.id,
        model: l.model,
        status: l.status,
        scores: { strict: l.status, salvage: l.status, coerce: l.status },
        values: 0,
        diagnostics: 0,
        keyword: l.keyword,
        path: l.path,
        message: l.message,
        excerpt: l.excerpt,
      });
    }
    for (const [i, p] of problems.entries())
      builder.addProblem({ index: 100 + i, file: p.file, line: i + 1, message: p.message });
    const report = builder.report();

    expect(summaryText(report)).not.toMatch(RAW_CONTROL);

    const md = markdownReport(report);
    expect(md).not.toMatch(RAW_CONTROL);
    // With every escape pair taken out, no '<' is left that could open inline HTML…
    const structure = md.split('\n').map((line) => line.replace(/\\[\s\S]/g, ''));
    expect(structure.join('\n')).not.toContain('<');
    // …and each table row has as many cells as its header.
    let cells: number | undefined;
    for (const line of structure) {
      if (!line.startsWith('|')) {
        cells = undefined;
        continue;
      }
      const count = line.split('|').length;
      cells ??= count;
      expect(count, line).toBe(cells);
    }

    const html = htmlReport(report);
    expect(html).not.toMatch(RAW_CONTROL);
    for (const [, name] of html.matchAll(/<\/?([A-Za-z][\w-]*)/g))
      expect(PAGE_ELEMENTS.has(name as string), name).toBe(true);
    expect(html.match(/<script|<img/gi)).toBeNull();
  });
});

/** Every path to a value inside `value` (objects and arrays), the root included. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) out.push(...paths(v, [...at, i]));
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  }
  return out;
}

function replaced(value: unknown, at: readonly (string | number)[], by: unknown): unknown {
  if (at.length === 0) return by;
  const [head, ...rest] = at as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head] = replaced(copy[head], rest, by);
  return copy;
}

describe('batch report files', () => {
  const sample = (() => {
    const builder = new ReportBuilder({ ...SETTINGS, shard: { index: 2, count: 3 } });
    builder.add({
      index: 1,
      id: 'a',
      model: 'm',
      status: 'invalid',
      scores: { strict: 'not-json', salvage: 'invalid', coerce: 'coerced' },
      values: 0,
      diagnostics: 1,
      keyword: 'type',
      path: '/x/0',
      message: 'must be string',
      excerpt: '{"x": [1]}',
    });
    builder.addProblem({ index: 4, file: 'a.jsonl', line: 5, message: 'not JSON' });
    return JSON.parse(JSON.stringify(builder.report())) as unknown;
  })();
  const all = paths(sample);

  // Every place in the report, each time with another value.
  fcTest.prop([fc.jsonValue({ maxDepth: 2 })], { numRuns: Math.ceil(numRuns / 4) })(
    'a report with any value replaced is refused as a usage error, or works everywhere',
    (value) => {
      for (const at of all) {
        const text = JSON.stringify(replaced(sample, at, value));
        let report: BatchReport;
        try {
          report = parseReport(text, 'r.json');
        } catch (error) {
          expect(error, JSON.stringify(at)).toBeInstanceOf(UsageError);
          continue;
        }
        mergeReports([report]);
        diffReports(report, report);
        summaryText(report);
        for (const format of ['json', 'markdown', 'html'] as const) renderReport(report, format);
      }
    },
  );
});
