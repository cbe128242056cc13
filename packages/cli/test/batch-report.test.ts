/**
 * The report of `llmjson batch` (batch-report.ts, batch-report-html.ts) and the commands that
 * read reports back (`llmjson merge`, `llmjson report diff`): the counts a builder folds, the
 * examples it keeps, its bounds, merging and its refusals, the escaping of input text in each
 * format, files by extension, and the diff.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../../test/support/cli.js';
import {
  type BatchReport,
  coerceSetting,
  diffReports,
  MAX_EXAMPLES,
  MAX_KEYS,
  MAX_MODELS,
  markdownReport,
  mergeReports,
  parseReport,
  ReportBuilder,
  type ReportSettings,
  renderReport,
  reportFileFormat,
  summaryText,
  writeReport,
} from '../src/batch-report.js';
import { htmlReport } from '../src/batch-report-html.js';
import type { InputProblem, RecordResult, RecordStatus, Scoring } from '../src/batch-types.js';
import { UsageError } from '../src/exit-codes.js';

const SETTINGS: ReportSettings = {
  mode: 'json',
  salvage: true,
  coerce: false,
  format: 'auto',
  schema: 'answer.schema.json',
  statuses: 'llmjson',
  inputs: ['runs/a.jsonl', 'runs/b.jsonl'],
};

/** A raw control, bidi or line-breaking character (a newline aside): what escaped text never holds. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const USABLE: readonly RecordStatus[] = ['valid', 'salvaged', 'coerced'];

function result(
  index: number,
  model: string,
  status: RecordStatus,
  extra: Partial<RecordResult> & { strict?: RecordStatus; coerce?: RecordStatus } = {},
): RecordResult {
  const { strict, coerce, ...rest } = extra;
  const scores: Record<Scoring, RecordStatus> = {
    strict: strict ?? status,
    salvage: status,
    coerce: coerce ?? status,
  };
  return {
    index,
    id: `r${index}`,
    model,
    status,
    scores,
    values: USABLE.includes(status) ? 1 : 0,
    diagnostics: status === 'valid' ? 0 : 1,
    ...rest,
  };
}

/** A small run: two models, every kind of failure, a salvage that strict misses. */
function sampleResults(): RecordResult[] {
  return [
    result(0, 'gpt-4o', 'valid'),
    result(1, 'gpt-4o', 'salvaged', { strict: 'not-json', excerpt: 'Sure:\n```json\n{"n": 2}\n```' }),
    result(2, 'gpt-4o', 'invalid', {
      keyword: 'required',
      path: '/items/3',
      message: "must have required property 'name'",
      excerpt: '{"items": [{}, {}, {}, {}]}',
      coerce: 'invalid',
    }),
    result(3, 'gpt-4o', 'invalid', {
      keyword: 'type',
      path: '/items/12/name',
      message: 'must be string',
      excerpt: '{"items": [... {"name": 5}]}',
      coerce: 'coerced',
    }),
    result(4, 'gpt-4o', 'truncated', { message: 'the text ends inside a value', excerpt: '{"n": 3, "more": [1,' }),
    result(5, 'gpt-4o', 'invalid', { keyword: 'type', path: '/items/0/name', message: 'must be string' }),
    result(7, 'llama3', 'not-json', { message: 'no JSON value in the text', excerpt: 'I cannot.' }),
    result(8, 'llama3', 'empty'),
    result(9, 'llama3', 'provider-error', { message: 'expired' }),
    result(10, 'llama3', 'unsupported-schema', { message: 'schema does not compile' }),
    result(11, 'llama3', 'valid'),
    result(12, 'Zephyr', 'salvaged', { strict: 'invalid' }),
  ];
}

function build(results: readonly RecordResult[], settings: ReportSettings = SETTINGS, problems: InputProblem[] = []) {
  const builder = new ReportBuilder(settings);
  for (const r of results) builder.add(r);
  for (const p of problems) builder.addProblem(p);
  return builder.report();
}

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('ReportBuilder', () => {
  test('counts per model and in total: the run status, each scoring, usable, JSONSchemaBench codes', () => {
    const report = build(sampleResults());
    expect(report.version).toBe(1);
    // Code-unit order: upper case first, whatever the machine's locale.
    expect(report.models.map((m) => m.model)).toEqual(['Zephyr', 'gpt-4o', 'llama3']);
    const gpt = report.models[1];
    expect(gpt?.records).toBe(6);
    expect(gpt?.statuses).toEqual({
      valid: 1,
      salvaged: 1,
      coerced: 0,
      truncated: 1,
      invalid: 3,
      'not-json': 0,
      empty: 0,
      'provider-error': 0,
      'unsupported-schema': 0,
    });
    expect(gpt?.scores.strict).toMatchObject({ valid: 1, salvaged: 0, 'not-json': 1, invalid: 3 });
    expect(gpt?.scores.coerce).toMatchObject({ valid: 1, salvaged: 1, coerced: 1, invalid: 2 });
    expect(gpt?.usable).toEqual({ strict: 1, salvage: 2, coerce: 3 });
    expect(gpt?.usablePercent).toEqual({ strict: 16.67, salvage: 33.33, coerce: 50 });
    expect(gpt?.jsonschemabench).toEqual({
      MATCH: 2,
      SYNTAX_ERROR: 1,
      SEMANTIC_ERROR: 3,
      JSON_NOT_FOUND_ERROR: 0,
      EMPTY_INPUT_OR_BAD_FORMAT: 0,
      UNSUPPORTED_SCHEMA: 0,
    });
    const llama = report.models[2];
    expect(llama?.jsonschemabench).toMatchObject({
      MATCH: 1,
      JSON_NOT_FOUND_ERROR: 1,
      EMPTY_INPUT_OR_BAD_FORMAT: 2,
      UNSUPPORTED_SCHEMA: 1,
    });
    expect(report.totals.records).toBe(12);
    expect(report.totals.usable).toEqual({ strict: 2, salvage: 4, coerce: 5 });
    expect(report.totals.values).toBe(4);
    expect(report.totals.diagnostics).toBe(10);
  });

  test('failing keywords and paths: complete counts, most frequent first, array indices as *', () => {
    const report = build(sampleResults());
    expect(report.totals.keywords).toEqual([
      { key: 'type', count: 2 },
      { key: 'required', count: 1 },
    ]);
    expect(report.totals.paths).toEqual([
      { key: '/items/*/name', count: 2 },
      { key: '/items/*', count: 1 },
    ]);
    expect(report.totals.otherKeywords).toBe(0);
  });

  test("markdown and HTML name each model's most frequent failing keywords and paths above its examples", () => {
    const report = build(sampleResults());
    expect(markdownReport(report)).toContain(
      '### gpt-4o\n\nMost frequent failing keywords type (2), required (1); paths /items/\\*/name (2), /items/\\* (1).\n',
    );
    expect(htmlReport(report)).toContain(
      '<h3>gpt-4o</h3>\n<p class="note">Most frequent failing keywords <code>type</code> (2), <code>required</code> (1); paths <code>/items/*/name</code> (2), <code>/items/*</code> (1).</p>',
    );
  });

  test('a status given in JSONSchemaBench terms by the result line is counted as given', () => {
    const report = build([result(0, 'm', 'invalid', { jsonschemabench: 'SYNTAX_ERROR', keyword: 'type' })]);
    expect(report.totals.jsonschemabench.SYNTAX_ERROR).toBe(1);
    expect(report.totals.jsonschemabench.SEMANTIC_ERROR).toBe(0);
  });

  test('examples: the failures of lowest position, whatever the order results arrive in', () => {
    const results = sampleResults();
    const report = build([...results].reverse());
    const gpt = report.models.find((m) => m.model === 'gpt-4o');
    expect(gpt?.examples.map((e) => e.index)).toEqual([2, 3, 4]);
    expect(gpt?.examples[0]).toEqual({
      index: 2,
      id: 'r2',
      model: 'gpt-4o',
      status: 'invalid',
      keyword: 'required',
      path: '/items/3',
      message: "must have required property 'name'",
      excerpt: '{"items": [{}, {}, {}, {}]}',
    });
    expect(report.totals.examples).toHaveLength(MAX_EXAMPLES);
    // The same report, byte for byte, in any order.
    expect(JSON.stringify(report)).toBe(JSON.stringify(build(results)));
  });

  test('input problems: all counted, the first by position kept, file names relative to the working directory', () => {
    const builder = new ReportBuilder(SETTINGS, { cwd: '/work/run' });
    for (const index of [40, 6, 30, 12]) {
      builder.addProblem({ index, file: '/work/run/runs/a.jsonl', line: index + 1, message: 'not JSON' });
    }
    const report = builder.report();
    expect(report.skippedInputLines).toBe(4);
    expect(report.inputProblems).toEqual([
      { index: 6, file: 'runs/a.jsonl', line: 7, message: 'not JSON' },
      { index: 12, file: 'runs/a.jsonl', line: 13, message: 'not JSON' },
      { index: 30, file: 'runs/a.jsonl', line: 31, message: 'not JSON' },
    ]);
  });

  test('bounded: long names and excerpts are cut; keywords, paths and models past their caps are counted apart', () => {
    const huge = 'x'.repeat(100_000);
    const one = build([result(0, huge, 'invalid', { excerpt: huge, message: huge, keyword: huge, path: `/${huge}` })]);
    expect(JSON.stringify(one).length).toBeLessThan(10_000);

    const results: RecordResult[] = [];
    for (let i = 0; i < MAX_KEYS + 50; i++) {
      results.push(result(i, 'm', 'invalid', { keyword: `k${String(i).padStart(4, '0')}`, path: `/p${i}` }));
    }
    const report = build(results);
    expect(report.totals.keywords).toHaveLength(MAX_KEYS);
    expect(report.totals.otherKeywords).toBe(50);
    expect(report.totals.keywords.at(-1)?.key).toBe(`k${String(MAX_KEYS - 1).padStart(4, '0')}`);
    expect(report.totals.otherPaths).toBe(50);

    const many: RecordResult[] = [];
    for (let i = 0; i < MAX_MODELS + 5; i++) many.push(result(i, `model-${String(i).padStart(5, '0')}`, 'valid'));
    const capped = build([...many].reverse());
    expect(capped.models).toHaveLength(MAX_MODELS);
    expect(capped.models.at(-1)?.model).toBe(`model-${String(MAX_MODELS - 1).padStart(5, '0')}`);
    expect(capped.otherModels?.records).toBe(5);
    expect(capped.totals.records).toBe(MAX_MODELS + 5);
  });

  test('a result with a status that is not one is refused with the statuses there are', () => {
    const builder = new ReportBuilder(SETTINGS);
    const error = thrown(() => builder.add({ ...result(0, 'm', 'valid'), status: 'ok' as RecordStatus }));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain('unknown status "ok"; the statuses are valid, salvaged, coerced');
  });

  test('coerceSetting: every rule for --coerce alone, a list sorted; false without the flag', () => {
    expect(coerceSetting(undefined)).toBe(false);
    expect(coerceSetting(['string-to-number', 'enum-case'])).toEqual(['enum-case', 'string-to-number']);
    expect((coerceSetting(true) as string[]).length).toBeGreaterThan(2);
  });
});

function shardReports(results: readonly RecordResult[], count: number, problems: InputProblem[] = []): BatchReport[] {
  return Array.from({ length: count }, (_, k) =>
    build(
      results.filter((r) => r.index % count === k),
      { ...SETTINGS, shard: { index: k + 1, count } },
      problems.filter((p) => p.index % count === k),
    ),
  );
}

describe('mergeReports', () => {
  test('the shards of a run merge into the report of the whole run, in any order', () => {
    const results = sampleResults();
    const problems: InputProblem[] = [{ index: 6, file: 'runs/a.jsonl', line: 7, message: 'not JSON' }];
    const whole = build(results, SETTINGS, problems);
    const shards = shardReports(results, 3, problems);
    expect(shards[0]?.settings.shard).toEqual({ index: 1, count: 3 });
    expect(mergeReports(shards)).toEqual(whole);
    expect(mergeReports([...shards].reverse())).toEqual(whole);
    // Read back from JSON files, the same.
    expect(mergeReports(shards.map((s, i) => parseReport(JSON.stringify(s), `s${i}.json`)))).toEqual(whole);
  });

  test('merging past the caps is exact too', () => {
    const results: RecordResult[] = [];
    for (let i = 0; i < 3 * MAX_KEYS; i++) {
      results.push(result(i, `m${i % 7}`, 'invalid', { keyword: `k${(i * 7919) % 997}`, path: `/p/${i}/q${i % 301}` }));
    }
    const whole = build(results);
    expect(whole.models[0]?.otherKeywords).toBe(0);
    expect(whole.totals.otherKeywords).toBeGreaterThan(0);
    expect(mergeReports(shardReports(results, 5))).toEqual(whole);

    const many: RecordResult[] = [];
    for (let i = 0; i < MAX_MODELS + 40; i++) many.push(result(i, `model-${(i * 7919) % 10007}`, 'valid'));
    const wholeMany = build(many);
    expect(wholeMany.otherModels?.records).toBe(40);
    expect(mergeReports(shardReports(many, 4))).toEqual(wholeMany);
  });

  test('some shards merge into a report that says which', () => {
    const shards = shardReports(sampleResults(), 4);
    const part = mergeReports([shards[3] as BatchReport, shards[1] as BatchReport]);
    expect(part.settings.shard).toBeUndefined();
    expect(part.shards).toEqual({ count: 4, indexes: [2, 4] });
    // …and that part merges with the rest into the whole run.
    expect(mergeReports([part, shards[0] as BatchReport, shards[2] as BatchReport])).toEqual(build(sampleResults()));
  });

  test('refused: another version, other settings, overlapping shards, splits of another size, nothing', () => {
    const shards = shardReports(sampleResults(), 2);
    const [a, b] = shards as [BatchReport, BatchReport];
    const refusal = (reports: BatchReport[]) => {
      const error = thrown(() => mergeReports(reports, { names: ['a.json', 'b.json', 'c.json'] }));
      expect(error).toBeInstanceOf(UsageError);
      return error.message;
    };
    expect(refusal([a, { ...b, version: 2 as 1 }])).toBe(
      'b.json is a report of version 2; this llmjson reads version 1: merge reports written by the same version',
    );
    expect(refusal([a, { ...b, settings: { ...b.settings, mode: 'jsonl' } }])).toContain(
      'b.json differs from a.json in its settings: mode is "jsonl", not "json"',
    );
    expect(refusal([a, { ...b, settings: { ...b.settings, inputs: ['runs/a.jsonl'] } }])).toContain(
      'settings: inputs is ["runs/a.jsonl"], not ["runs/a.jsonl","runs/b.jsonl"]',
    );
    expect(refusal([a, { ...b, settings: { ...b.settings, coerce: ['enum-case'] } }])).toContain(
      'coerce is ["enum-case"]',
    );
    expect(refusal([a, b, a])).toBe(
      "c.json and a.json both hold shard 1 of 2: they overlap; give each shard's report once",
    );
    const whole = build(sampleResults());
    expect(refusal([whole, a])).toContain('a.json covers the whole run, so it overlaps b.json');
    expect(refusal([whole, whole])).toContain('covers the whole run');
    const other = shardReports(sampleResults(), 3)[2] as BatchReport;
    expect(refusal([a, other])).toContain('b.json is shard 3 of 3, a.json of a split into 2');
    expect(refusal([])).toBe('give at least one report to merge');
    // One report merges into itself.
    expect(mergeReports([whole])).toEqual(whole);
  });
});

describe('parseReport', () => {
  test('refuses what is not a report, saying what is wrong', () => {
    const message = (text: string) => thrown(() => parseReport(text, 'r.json')).message;
    expect(message('{')).toMatch(/^r\.json is not an llmjson batch report: not JSON/);
    expect(message('[]')).toContain('not a JSON object');
    expect(message('{"version": 7}')).toBe(
      'r.json is a report of version 7; this llmjson reads version 1: write it again with this llmjson',
    );
    const report = JSON.parse(JSON.stringify(build(sampleResults())));
    report.models[0].statuses.valid = -1;
    expect(message(JSON.stringify(report))).toContain('models[0].statuses.valid is not a count');
    report.models[0].statuses.valid = 1;
    report.settings.coerce = 'all';
    expect(message(JSON.stringify(report))).toContain('settings.coerce is not false or a list of rules');
    report.settings.coerce = false;
    report.totals.examples[0].status = 'fine';
    expect(message(JSON.stringify(report))).toContain('totals.examples[0].status is unknown');
  });
});

describe('escaping', () => {
  const hostile = 'evil|model\\\n\u001b]0;pwned\u0007<script>alert(1)</script>\u202e';
  const report = build([
    result(0, hostile, 'invalid', {
      id: '<img src=x onerror=alert(1)>',
      keyword: 'type',
      path: '/a|b',
      message: 'must be <b>string</b> | not *bold*',
      excerpt: '```\n{"a": "</pre><script>x()</script>"}\n```',
    }),
  ]);

  test('the terminal summary escapes control and bidi characters', () => {
    const text = summaryText(report);
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text).toContain('evil|model\\\\u000a\\u001b]0;pwned\\u0007<script>');
  });

  test('markdown escapes pipes, backslashes, line breaks and markup', () => {
    const md = markdownReport(report);
    expect(md).not.toMatch(RAW_CONTROL);
    // The line break shows as \u000a (its backslash escaped too, as every backslash is).
    expect(md).toContain(
      'evil\\|model\\\\\\\\u000a\\\\u001b\\]0;pwned\\\\u0007\\<script\\>alert(1)\\</script\\>\\\\u202e',
    );
    expect(md).toContain('must be \\<b\\>string\\</b\\> \\| not \\*bold\\*');
    // No markup but escaped markup.
    expect(md).not.toMatch(/(?<!\\)</);
    // Every table row still has its columns: no cell's pipe split one.
    for (const line of md.split('\n').filter((l) => l.startsWith('| 0 |'))) {
      expect(line.split(/(?<!\\)\|/)).toHaveLength(9);
    }
  });

  test('HTML escapes everything from the input', () => {
    const html = htmlReport(report);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</pre><script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(RAW_CONTROL);
    // No network: no URL but the data: icon.
    expect(html.match(/\s(?:src|href)="/g)).toEqual([' href="']);
    expect(html).toContain('<link rel="icon" href="data:,">');
  });
});

describe('files', () => {
  test('writeReport chooses the format by extension; another extension is refused naming those there are', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-report-'));
    const report = build(sampleResults());
    writeReport(join(dir, 'r.json'), report);
    writeReport(join(dir, 'r.md'), report);
    writeReport(join(dir, 'R.HTML'), report);
    expect(parseReport(readFileSync(join(dir, 'r.json'), 'utf8'), 'r.json')).toEqual(report);
    expect(readFileSync(join(dir, 'r.md'), 'utf8')).toMatch(/^# llmjson batch report\n/);
    expect(readFileSync(join(dir, 'R.HTML'), 'utf8')).toMatch(/^<!doctype html>/);
    const error = thrown(() => writeReport(join(dir, 'r.txt'), report));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(
      /r\.txt: the extension chooses the format: give a file ending in \.json, \.md or \.html$/,
    );
    expect(reportFileFormat('x.md', '--out')).toBe('markdown');
    expect(thrown(() => reportFileFormat('report', '--out')).message).toMatch(/^--out report: /);
  });

  test('every format is the same bytes for the same report (nothing of the time or the machine)', () => {
    const a = build(sampleResults());
    const b = build([...sampleResults()].reverse());
    for (const format of ['json', 'markdown', 'html'] as const)
      expect(renderReport(a, format)).toBe(renderReport(b, format));
  });
});

describe('diffReports', () => {
  test('per model: records, usable per scoring in points, each status; a model on one side says so', () => {
    const before = build(sampleResults());
    const after = build([
      ...sampleResults()
        .filter((r) => r.model !== 'Zephyr')
        .map((r) => (r.index === 4 ? result(4, 'gpt-4o', 'valid') : r)),
      result(20, 'qwen', 'valid'),
    ]);
    const diff = diffReports(before, after);
    expect(diff.settings).toEqual([]);
    expect(diff.models.map((m) => [m.model, m.presence])).toEqual([
      ['Zephyr', 'before'],
      ['gpt-4o', 'both'],
      ['llama3', 'both'],
      ['qwen', 'after'],
    ]);
    const gpt = diff.models[1];
    expect(gpt?.records).toEqual({ before: 6, after: 6, change: 0 });
    expect(gpt?.statuses.truncated).toEqual({ before: 1, after: 0, change: -1 });
    expect(gpt?.statuses.valid).toEqual({ before: 1, after: 2, change: 1 });
    expect(gpt?.usablePercent.salvage).toEqual({ before: 33.33, after: 50, points: 16.67 });
    expect(diff.models[0]?.usablePercent.strict).toEqual({ before: 0, after: null, points: null });
    const changed = diffReports(before, { ...after, settings: { ...after.settings, mode: 'jsonl' } });
    expect(changed.settings).toEqual([{ field: 'mode', before: 'json', after: 'jsonl' }]);
  });
});

describe('llmjson merge and llmjson report diff', () => {
  /** A directory with the shard reports of the sample run and the whole run's report. */
  function workspace(): { dir: string; whole: BatchReport } {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-merge-'));
    const shards = shardReports(sampleResults(), 3);
    for (const [k, shard] of shards.entries()) writeReport(join(dir, `shard-${k + 1}.json`), shard);
    return { dir, whole: build(sampleResults()) };
  }

  test("merge writes the whole run's report in each format asked, the summary on stderr", async () => {
    const { dir, whole } = workspace();
    const r = await runCli(
      ['merge', 'shard-3.json', 'shard-1.json', 'shard-2.json', '--report', 'all.json', '--report', 'all.html'],
      { cwd: dir },
    );
    expect(r.err).toMatch(/^model +records +valid/);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(parseReport(readFileSync(join(dir, 'all.json'), 'utf8'), 'all.json')).toEqual(whole);
    expect(readFileSync(join(dir, 'all.html'), 'utf8')).toBe(htmlReport(whole));
    expect(r.err).toMatch(/^all +12 /m);
    // Without --report: the JSON on stdout.
    const printed = await runCli(['merge', 'shard-1.json', 'shard-2.json', 'shard-3.json'], { cwd: dir });
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.out)).toEqual(whole);
  });

  test('merge refuses overlaps, an output that is an input, an unknown extension, a file that is not a report', async () => {
    const { dir } = workspace();
    writeFileSync(join(dir, 'notes.json'), '{"hello": 1}');
    const cases: [string[], RegExp][] = [
      [
        ['shard-1.json', 'shard-2.json', 'shard-1.json'],
        /shard-1\.json and shard-1\.json both hold shard 1 of 3: they overlap/,
      ],
      [
        ['shard-1.json', 'shard-2.json', '--report', 'shard-2.json'],
        /--report shard-2\.json is the same file as the report shard-2\.json/,
      ],
      [
        ['shard-1.json', '--report', 'all.txt'],
        /--report all\.txt: the extension chooses the format: give a file ending in \.json, \.md or \.html/,
      ],
      [['shard-1.json', 'notes.json'], /notes\.json is not an llmjson batch report: it has no version/],
      [['shard-1.json', 'missing.json'], /cannot read report missing\.json: no such file/],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(['merge', ...argv], { cwd: dir });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(message);
    }
    expect(readFileSync(join(dir, 'shard-2.json'), 'utf8')).toMatch(/"version": 1/);
  });

  test('report diff: text, markdown and JSON, a model on one side saying so, names escaped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmjson-diff-'));
    writeReport(join(dir, 'old.json'), build(sampleResults()));
    writeReport(
      join(dir, 'new.json'),
      build([
        ...sampleResults().map((r) => (r.index === 4 ? result(4, 'gpt-4o', 'valid') : r)),
        result(30, 'new\u001b[31m|model', 'valid'),
      ]),
    );
    const text = await runCli(['report', 'diff', 'old.json', 'new.json'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.out).toContain('old.json -> new.json');
    expect(text.out).toMatch(
      /^gpt-4o +old +new +change\n {2}records +6 +6 +0\n {2}usable strict +16\.7% +33\.3% +\+16\.7 pp\n/m,
    );
    expect(text.out).toMatch(/^ {2}truncated +1 +0 +-1$/m);
    expect(text.out).toContain('new\\u001b[31m|model (only in new.json)');
    expect(text.out).not.toMatch(RAW_CONTROL);
    expect(text.out).toMatch(/^all models +old +new +change\n {2}records +12 +13 +\+1$/m);

    const md = await runCli(['report', 'diff', 'old.json', 'new.json', '--format', 'markdown'], { cwd: dir });
    expect(md.code).toBe(0);
    expect(md.out).toContain(
      '| gpt-4o | 6 → 6 (0) | 16.7% → 33.3% (+16.7 pp) | 33.3% → 50.0% (+16.7 pp) | 50.0% → 66.7% (+16.7 pp) | valid +1, truncated -1 |',
    );
    expect(md.out).toContain('| new\\\\u001b\\[31m\\|model (only in new.json) | - → 1 (+1) |');

    const json = await runCli(['report', 'diff', 'old.json', 'new.json', '--format', 'json'], { cwd: dir });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out);
    expect(parsed.old).toBe('old.json');
    expect(parsed.models.find((m: { model: string }) => m.model === 'gpt-4o').statuses.valid).toEqual({
      before: 1,
      after: 2,
      change: 1,
    });

    const bad = await runCli(['report', 'diff', 'old.json', 'new.json', '--format', 'html'], { cwd: dir });
    expect(bad.code).toBe(2);
  });
});
