/**
 * The report of `llmjson batch`: a fold over result lines (`RecordResult`) and input problems,
 * written as JSON, markdown or HTML (`--report FILE`, by extension), summarised on stderr, merged
 * by `llmjson merge` and compared by `llmjson report diff` (docs/decisions/040-batch-reports.md).
 *
 * Invariants:
 * - Deterministic: the report depends only on the results and problems folded in, never on their
 *   order, the time, the machine or absolute paths. Models, keywords and paths are sorted by code
 *   unit (never `localeCompare`, which depends on the machine's locale).
 * - Exactly mergeable: every part is a commutative fold (sums; the examples of lowest position;
 *   the lexicographically smallest keys of a bounded map, with the rest counted as `other`), so
 *   `mergeReports(shards)` deep-equals the report of one builder fed every result, whatever the
 *   split and the order. That is what makes `merge` and `--resume` give the one-run report.
 * - Bounded: at most `MAX_EXAMPLES` examples, `MAX_KEYS` keywords and paths, and `MAX_MODELS`
 *   models are kept, whatever the number of records; names, messages and excerpts are cut. Array
 *   indices in paths are written `*`, so the paths stay bounded by the schema's shape.
 * - Model names, ids, messages and excerpts come from model output or the input: every format
 *   escapes them (terminal: terminalText; markdown: punctuation and line breaks; HTML: in full).
 *   The JSON keeps them as they are (cut to the bounds above): it is data for programs.
 */

import { writeFileSync } from 'node:fs';
import { extname, isAbsolute, relative } from 'node:path';
import { COERCION_RULES, type CoerceOption } from '@llmjson/core';
import { quoteInput } from '@llmjson/core/internal';
import { jsonSchemaBenchCode } from './batch-judge.js';
import { htmlReport } from './batch-report-html.js';
import {
  type BatchFormat,
  type InputProblem,
  type JsonSchemaBenchCode,
  RECORD_STATUSES,
  type RecordResult,
  type RecordStatus,
  SCORINGS,
  type Scoring,
} from './batch-types.js';
import { UsageError } from './exit-codes.js';
import { terminalText } from './terminal-text.js';

/** The version of the report's JSON; a reader refuses any other. */
export const REPORT_VERSION = 1;
/** Example failures kept per model (and for all models): those of lowest position. */
export const MAX_EXAMPLES = 3;
/** Input problems kept as examples (those of lowest position); all are counted. */
export const MAX_PROBLEM_EXAMPLES = 3;
/** Distinct failing keywords, and distinct paths, kept per model: the smallest by code unit; the rest counted as `other`. */
export const MAX_KEYS = 200;
/** Models kept by name: the smallest by code unit; the rest are summed into `otherModels`. */
export const MAX_MODELS = 1000;
/** Longest model name, id, keyword or path kept, in characters (`…` marks a cut). */
export const MAX_NAME_LENGTH = 200;
/** Longest message or excerpt kept, in characters. */
export const MAX_TEXT_LENGTH = 300;

export const JSON_SCHEMA_BENCH_CODES: readonly JsonSchemaBenchCode[] = [
  'MATCH',
  'SYNTAX_ERROR',
  'SEMANTIC_ERROR',
  'JSON_NOT_FOUND_ERROR',
  'EMPTY_INPUT_OR_BAD_FORMAT',
  'UNSUPPORTED_SCHEMA',
];

/** The statuses that count as a usable response: a value the schema accepts. */
export const USABLE_STATUSES: readonly RecordStatus[] = ['valid', 'salvaged', 'coerced'];

/** What the run was asked: two reports merge only when these agree (`shard` aside). */
export interface ReportSettings {
  /** `--mode`: what each response must be. */
  readonly mode: 'json' | 'jsonl' | 'elements' | 'salvage';
  /** false with `--no-salvage` (the run's status is then the strict scoring). */
  readonly salvage: boolean;
  /** `--coerce`: the rules, sorted (`coerceSetting`); false without the flag. */
  readonly coerce: false | readonly string[];
  /** `--format` as given, or `auto` (detected per file). */
  readonly format: BatchFormat | 'auto';
  /** `--schema FILE` or `--schema-ref NAME` as given (never made absolute); absent: none. */
  readonly schema?: string;
  /** The field paths as given (`--text-field`, …, `--schema-field`); absent: the format's own. */
  readonly fields?: {
    readonly text?: string;
    readonly id?: string;
    readonly model?: string;
    readonly finish?: string;
    readonly schema?: string;
  };
  /** `--statuses`: the vocabulary of each result line's status. */
  readonly statuses: 'llmjson' | 'jsonschemabench';
  /** The inputs as given on the command line. */
  readonly inputs: readonly string[];
  /** `--shard k/n`: `index` is k (1 ≤ k ≤ n), `count` is n. Absent: the run covered every record. */
  readonly shard?: { readonly index: number; readonly count: number };
}

export type StatusCounts = Readonly<Record<RecordStatus, number>>;

export interface KeyCount {
  readonly key: string;
  readonly count: number;
}

/** A failure shown as an example: the record's own fields, cut to the bounds. */
export interface FailureExample {
  /** Position of the record in the run. */
  readonly index: number;
  readonly id: string;
  readonly model: string;
  readonly status: RecordStatus;
  readonly keyword?: string;
  readonly path?: string;
  readonly message?: string;
  readonly excerpt?: string;
}

export interface ProblemExample {
  readonly index: number;
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** The counts of one model (or of all models, or of the models past `MAX_MODELS`). */
export interface ReportSummary {
  readonly records: number;
  /** Usable values found (documents, objects or elements). */
  readonly values: number;
  readonly diagnostics: number;
  /** The run's statuses (see `ReportSettings.salvage` and `coerce`). */
  readonly statuses: StatusCounts;
  /** The statuses under each scoring, side by side. */
  readonly scores: Readonly<Record<Scoring, StatusCounts>>;
  /** valid + salvaged + coerced under each scoring. */
  readonly usable: Readonly<Record<Scoring, number>>;
  /** `usable` in percent of `records`, rounded to 0.01 (0 without records). */
  readonly usablePercent: Readonly<Record<Scoring, number>>;
  /** The run's statuses in JSONSchemaBench's vocabulary. */
  readonly jsonschemabench: Readonly<Record<JsonSchemaBenchCode, number>>;
  /** Failing keywords of records that are not usable, most frequent first (complete counts). */
  readonly keywords: readonly KeyCount[];
  /** Failures at keywords past the `MAX_KEYS` kept. */
  readonly otherKeywords: number;
  /** Failing paths (JSON Pointers, array indices as `*`), most frequent first. */
  readonly paths: readonly KeyCount[];
  readonly otherPaths: number;
  /** Up to `MAX_EXAMPLES` failures, lowest position first. */
  readonly examples: readonly FailureExample[];
}

export interface ModelReport extends ReportSummary {
  readonly model: string;
}

export interface BatchReport {
  readonly version: typeof REPORT_VERSION;
  readonly settings: ReportSettings;
  /**
   * A merge of some, not all, of a run's shards: which (k, ascending) of `count`. Absent for one
   * shard (see `settings.shard`) and for a whole run.
   */
  readonly shards?: { readonly count: number; readonly indexes: readonly number[] };
  readonly totals: ReportSummary;
  /** Sorted by name (code units); at most `MAX_MODELS`. */
  readonly models: readonly ModelReport[];
  /** The models past `MAX_MODELS`, summed (absent when there are none). */
  readonly otherModels?: ReportSummary;
  /** Input items that are not records (counted, never scored). */
  readonly skippedInputLines: number;
  readonly inputProblems: readonly ProblemExample[];
}

/** The canonical `coerce` setting for a `--coerce` option: every rule for `true`, sorted. */
export function coerceSetting(option: CoerceOption | undefined): false | readonly string[] {
  if (option === undefined || option === false) return false;
  const rules = option === true ? COERCION_RULES : option;
  return [...new Set<string>(rules)].sort(compareText);
}

/** The scoring that gives a run's status, from its settings. */
export function runScoring(settings: Pick<ReportSettings, 'salvage' | 'coerce'>): Scoring {
  if (!settings.salvage) return 'strict';
  return settings.coerce === false ? 'salvage' : 'coerce';
}

/** Code-unit order: the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `text` at most `max` characters, `…` at a cut (never between the halves of a surrogate pair). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** A segment of a JSON Pointer that is an array index (`/0`, `/17`, not `/07`). */
const INDEX_SEGMENT = /\/(?:0|[1-9][0-9]*)(?=\/|$)/g;

/** A JSON Pointer with array indices written `*`, so a map of paths stays bounded by the schema's shape. */
export function normalisedPath(path: string): string {
  return cut(path.replace(INDEX_SEGMENT, '/*'), MAX_NAME_LENGTH);
}

// --- the fold -------------------------------------------------------------------------------------

/**
 * A map that keeps at most `cap` keys, the smallest by code unit; whatever belongs to a larger
 * key is combined into `other`. Which keys are kept does not depend on the order of arrival
 * (a key among the `cap` smallest of all keys seen is never evicted, as fewer than `cap` keys
 * are smaller), so merging two such maps gives the map of everything: the bound keeps merges exact.
 */
class CappedMap<V> {
  private readonly keys: string[] = [];
  private readonly values: V[] = [];
  other: V | undefined;

  constructor(
    private readonly cap: number,
    private readonly create: () => V,
    private readonly combine: (into: V, from: V) => void,
  ) {}

  /** The value of `key`, created when new; `other` when `key` is past the cap. */
  slot(key: string): V {
    const { keys, values } = this;
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((keys[middle] as string) < key) low = middle + 1;
      else high = middle;
    }
    if (low < keys.length && keys[low] === key) return values[low] as V;
    if (keys.length >= this.cap && low === keys.length) return this.otherSlot();
    const value = this.create();
    keys.splice(low, 0, key);
    values.splice(low, 0, value);
    if (keys.length > this.cap) {
      keys.pop();
      this.combine(this.otherSlot(), values.pop() as V);
    }
    return value;
  }

  private otherSlot(): V {
    this.other ??= this.create();
    return this.other;
  }

  entries(): [string, V][] {
    return this.keys.map((key, i) => [key, this.values[i] as V]);
  }
}

interface Count {
  n: number;
}

const newCount = (): Count => ({ n: 0 });
const addCount = (into: Count, from: Count) => {
  into.n += from.n;
};

/** Examples ordered by position (then id, status: a total order, so ties never depend on arrival). */
function compareExamples(a: { index: number; id?: string; status?: string }, b: typeof a): number {
  return a.index - b.index || compareText(a.id ?? '', b.id ?? '') || compareText(a.status ?? '', b.status ?? '');
}

/** Inserts `item` into `list` (sorted by `compare`), keeping the `max` smallest. */
function keepSmallest<T>(list: T[], item: T, max: number, compare: (a: T, b: T) => number): void {
  if (list.length >= max && compare(item, list[list.length - 1] as T) >= 0) return;
  let i = list.length;
  while (i > 0 && compare(item, list[i - 1] as T) < 0) i--;
  list.splice(i, 0, item);
  if (list.length > max) list.pop();
}

/** The mutable counts behind one `ReportSummary`. */
class Accumulator {
  records = 0;
  values = 0;
  diagnostics = 0;
  /** Counts by status index (RECORD_STATUSES), then by scoring and status, then by code: typed arrays, as `add` runs per record. */
  readonly statuses = new Float64Array(STATUS_COUNT);
  readonly scores = new Float64Array(SCORINGS.length * STATUS_COUNT);
  readonly bench = new Float64Array(JSON_SCHEMA_BENCH_CODES.length);
  readonly keywords = new CappedMap<Count>(MAX_KEYS, newCount, addCount);
  readonly paths = new CappedMap<Count>(MAX_KEYS, newCount, addCount);
  readonly examples: FailureExample[] = [];

  add(result: CheckedResult): void {
    this.records++;
    this.values += result.values;
    this.diagnostics += result.diagnostics;
    (this.statuses[result.status] as number)++;
    (this.scores[result.strict] as number)++;
    (this.scores[STATUS_COUNT + result.salvage] as number)++;
    (this.scores[2 * STATUS_COUNT + result.coerce] as number)++;
    (this.bench[result.bench] as number)++;
    const failure = result.failure;
    if (failure !== undefined) {
      if (failure.keyword !== undefined) this.keywords.slot(failure.keyword).n++;
      if (result.path !== undefined) this.paths.slot(result.path).n++;
      keepSmallest(this.examples, failure, MAX_EXAMPLES, compareExamples);
    }
  }

  /** Adds a summary's counts: the same as adding the results it was folded from. */
  addSummary(summary: ReportSummary): void {
    this.records += summary.records;
    this.values += summary.values;
    this.diagnostics += summary.diagnostics;
    for (const [i, status] of RECORD_STATUSES.entries()) {
      (this.statuses[i] as number) += summary.statuses[status];
      for (const [j, scoring] of SCORINGS.entries()) {
        (this.scores[j * STATUS_COUNT + i] as number) += summary.scores[scoring][status];
      }
    }
    for (const [i, code] of JSON_SCHEMA_BENCH_CODES.entries())
      (this.bench[i] as number) += summary.jsonschemabench[code];
    const addKeys = (map: CappedMap<Count>, list: readonly KeyCount[], other: number) => {
      for (const { key, count } of list) map.slot(key).n += count;
      if (other > 0) {
        map.other ??= newCount();
        map.other.n += other;
      }
    };
    addKeys(this.keywords, summary.keywords, summary.otherKeywords);
    addKeys(this.paths, summary.paths, summary.otherPaths);
    for (const example of summary.examples) keepSmallest(this.examples, example, MAX_EXAMPLES, compareExamples);
  }

  addAccumulator(other: Accumulator): void {
    this.addSummary(other.summary());
  }

  summary(): ReportSummary {
    const counted = <K extends string>(keys: readonly K[], counts: Float64Array, from = 0): Record<K, number> => {
      const out = {} as Record<K, number>;
      for (const [i, key] of keys.entries()) out[key] = counts[from + i] as number;
      return out;
    };
    const scores = {} as Record<Scoring, Record<RecordStatus, number>>;
    const usable = {} as Record<Scoring, number>;
    const usablePercent = {} as Record<Scoring, number>;
    for (const [j, scoring] of SCORINGS.entries()) {
      const counts = counted(RECORD_STATUSES, this.scores, j * STATUS_COUNT);
      scores[scoring] = counts;
      usable[scoring] = counts.valid + counts.salvaged + counts.coerced;
      usablePercent[scoring] = this.records === 0 ? 0 : Math.round((10000 * usable[scoring]) / this.records) / 100;
    }
    const sorted = (map: CappedMap<Count>): KeyCount[] =>
      map
        .entries()
        .map(([key, count]) => ({ key, count: count.n }))
        .sort((a, b) => b.count - a.count || compareText(a.key, b.key));
    return {
      records: this.records,
      values: this.values,
      diagnostics: this.diagnostics,
      statuses: counted(RECORD_STATUSES, this.statuses),
      scores,
      usable,
      usablePercent,
      jsonschemabench: counted(JSON_SCHEMA_BENCH_CODES, this.bench),
      keywords: sorted(this.keywords),
      otherKeywords: this.keywords.other?.n ?? 0,
      paths: sorted(this.paths),
      otherPaths: this.paths.other?.n ?? 0,
      examples: this.examples.map((e) => ({ ...e })),
    };
  }
}

/** A result as the fold uses it: checked, cut to the bounds, its example and code made once. */
interface CheckedResult {
  readonly model: string;
  /** Indexes in RECORD_STATUSES: the run's status and each scoring's. */
  readonly status: number;
  readonly strict: number;
  readonly salvage: number;
  readonly coerce: number;
  readonly values: number;
  readonly diagnostics: number;
  /** Index in JSON_SCHEMA_BENCH_CODES. */
  readonly bench: number;
  /** A record that is not usable: its example (made only for those: most records are usable). */
  readonly failure: FailureExample | undefined;
  /** The failure's path, normalised (`normalisedPath`). */
  readonly path: string | undefined;
}

const USABLE_SET: ReadonlySet<string> = new Set(USABLE_STATUSES);
const STATUS_COUNT = RECORD_STATUSES.length;
const STATUS_INDEX: ReadonlyMap<string, number> = new Map(RECORD_STATUSES.map((s, i) => [s, i]));
const BENCH_INDEX: ReadonlyMap<string, number> = new Map(JSON_SCHEMA_BENCH_CODES.map((c, i) => [c, i]));
const STATUS_SET: ReadonlySet<string> = new Set(RECORD_STATUSES);

function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** The index of a result's status under `scoring`; a result without its scores (an older line) counts its status under each. */
function scoreIndex(result: RecordResult, scoring: Scoring, statusIndex: number): number {
  return STATUS_INDEX.get(result.scores?.[scoring] as string) ?? statusIndex;
}

function checkResult(result: RecordResult): CheckedResult {
  const status = result.status;
  const statusIndex = STATUS_INDEX.get(status);
  if (statusIndex === undefined) {
    throw new UsageError(
      `result ${JSON.stringify(quoteInput(String(result.id)))}: unknown status ${JSON.stringify(quoteInput(String(status)))}; the statuses are ${RECORD_STATUSES.join(', ')}`,
    );
  }
  const model = cut(String(result.model), MAX_NAME_LENGTH);
  const keyword = typeof result.keyword === 'string' ? cut(result.keyword, MAX_NAME_LENGTH) : undefined;
  let failure: FailureExample | undefined;
  let path: string | undefined;
  if (!USABLE_SET.has(status)) {
    const example: { -readonly [K in keyof FailureExample]: FailureExample[K] } = {
      index: count(result.index),
      id: cut(String(result.id), MAX_NAME_LENGTH),
      model,
      status,
    };
    if (keyword !== undefined) example.keyword = keyword;
    if (typeof result.path === 'string') {
      example.path = cut(result.path, MAX_NAME_LENGTH);
      path = normalisedPath(result.path);
    }
    if (typeof result.message === 'string') example.message = cut(result.message, MAX_TEXT_LENGTH);
    if (typeof result.excerpt === 'string') example.excerpt = cut(result.excerpt, MAX_TEXT_LENGTH);
    failure = example;
  }
  const given = result.jsonschemabench;
  return {
    model,
    status: statusIndex,
    strict: scoreIndex(result, 'strict', statusIndex),
    salvage: scoreIndex(result, 'salvage', statusIndex),
    coerce: scoreIndex(result, 'coerce', statusIndex),
    values: count(result.values),
    diagnostics: count(result.diagnostics),
    bench:
      (given === undefined ? undefined : BENCH_INDEX.get(given)) ??
      (BENCH_INDEX.get(jsonSchemaBenchCode(keyword === undefined ? { status } : { status, keyword })) as number),
    failure,
    path,
  };
}

export interface ReportBuilderOptions {
  /** Input problems name their file relative to this directory (the report holds no absolute path). */
  readonly cwd?: string;
}

/**
 * Folds result lines and input problems into a report. `add` and `addProblem` take any order;
 * `report()` may be called at any time and does not change the builder.
 */
export class ReportBuilder {
  private readonly totals = new Accumulator();
  private readonly models = new CappedMap<Accumulator>(
    MAX_MODELS,
    () => new Accumulator(),
    (into, from) => into.addAccumulator(from),
  );
  private skipped = 0;
  private readonly problems: ProblemExample[] = [];
  private coverage: Coverage;

  constructor(
    private readonly settings: ReportSettings,
    private readonly options: ReportBuilderOptions = {},
  ) {
    this.coverage = coverageOf(settings, undefined);
  }

  add(result: RecordResult): void {
    const checked = checkResult(result);
    this.totals.add(checked);
    this.models.slot(checked.model).add(checked);
  }

  addProblem(problem: InputProblem): void {
    this.skipped++;
    const { cwd } = this.options;
    const file = cwd !== undefined && isAbsolute(problem.file) ? relative(cwd, problem.file) : problem.file;
    keepSmallest(
      this.problems,
      {
        index: count(problem.index),
        file: cut(file, MAX_NAME_LENGTH),
        line: count(problem.line),
        message: cut(problem.message, MAX_TEXT_LENGTH),
      },
      MAX_PROBLEM_EXAMPLES,
      compareProblems,
    );
  }

  /** Adds a report's counts: merging (`mergeReports`) is built on it. */
  addReport(report: BatchReport): void {
    this.totals.addSummary(report.totals);
    for (const model of report.models) {
      const { model: name, ...summary } = model;
      this.models.slot(name).addSummary(summary);
    }
    if (report.otherModels !== undefined) {
      // Past the cap in that report (MAX_MODELS names before them there), so past it here too.
      this.models.other ??= new Accumulator();
      this.models.other.addSummary(report.otherModels);
    }
    this.skipped += report.skippedInputLines;
    for (const problem of report.inputProblems) {
      keepSmallest(this.problems, { ...problem }, MAX_PROBLEM_EXAMPLES, compareProblems);
    }
  }

  /** @internal the merge's coverage of a run's shards. */
  setCoverage(coverage: Coverage): void {
    this.coverage = coverage;
  }

  report(): BatchReport {
    const { shard: _shard, ...settings } = this.settings;
    const coverage = this.coverage;
    let shardSettings: Pick<ReportSettings, 'shard'> = {};
    let shards: Pick<BatchReport, 'shards'> = {};
    if (coverage !== undefined && coverage.indexes.length < coverage.count) {
      if (coverage.indexes.length === 1) {
        shardSettings = { shard: { index: coverage.indexes[0] as number, count: coverage.count } };
      } else shards = { shards: { count: coverage.count, indexes: [...coverage.indexes] } };
    }
    return {
      version: REPORT_VERSION,
      settings: { ...settings, ...shardSettings },
      ...shards,
      totals: this.totals.summary(),
      models: this.models.entries().map(([model, acc]) => ({ model, ...acc.summary() })),
      ...(this.models.other === undefined ? {} : { otherModels: this.models.other.summary() }),
      skippedInputLines: this.skipped,
      inputProblems: this.problems.map((p) => ({ ...p })),
    };
  }
}

function compareProblems(a: ProblemExample, b: ProblemExample): number {
  return a.index - b.index || compareText(a.file, b.file) || a.line - b.line || compareText(a.message, b.message);
}

// --- merge ----------------------------------------------------------------------------------------

/** Which shards (k, ascending) of how many a report covers; undefined: the whole run. */
type Coverage = { readonly count: number; readonly indexes: readonly number[] } | undefined;

function coverageOf(settings: ReportSettings, shards: BatchReport['shards']): Coverage {
  if (shards !== undefined) return { count: shards.count, indexes: [...shards.indexes] };
  if (settings.shard !== undefined) return { count: settings.shard.count, indexes: [settings.shard.index] };
  return undefined;
}

/** The settings that must agree for a merge, in the order a refusal names them. */
const MERGED_SETTINGS: readonly (keyof ReportSettings)[] = [
  'mode',
  'salvage',
  'coerce',
  'format',
  'schema',
  'fields',
  'statuses',
  'inputs',
];

/** The first setting on which two reports differ (`shard` aside), or undefined. */
export function settingsDifference(
  a: ReportSettings,
  b: ReportSettings,
): { field: string; before: unknown; after: unknown } | undefined {
  for (const field of MERGED_SETTINGS) {
    if (canonical(a[field]) !== canonical(b[field])) return { field, before: a[field], after: b[field] };
  }
  return undefined;
}

/** JSON with object keys sorted: settings compare by content. */
function canonical(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => compareText(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

function shown(value: unknown): string {
  return value === undefined ? '(none)' : quoteInput(JSON.stringify(value));
}

function shardName(coverage: Coverage): string {
  return coverage === undefined ? 'the whole run' : `shard ${coverage.indexes.join(', ')} of ${coverage.count}`;
}

export interface MergeOptions {
  /** How each report is named in a refusal (its file name); default `report 1`, `report 2`, … */
  readonly names?: readonly string[];
}

/**
 * The report of the union of the runs `reports` came from: equal (deep) to the report one run
 * over all their records would give. UsageError when a report is of another version, when the
 * settings differ (naming the setting), or when two reports cover the same records (the same
 * shard twice, a shard and a whole run, two whole runs).
 */
export function mergeReports(reports: readonly BatchReport[], options: MergeOptions = {}): BatchReport {
  const name = (i: number) => options.names?.[i] ?? `report ${i + 1}`;
  const first = reports[0];
  if (first === undefined) throw new UsageError('give at least one report to merge');
  for (const [i, report] of reports.entries()) {
    if (report.version !== REPORT_VERSION) {
      throw new UsageError(
        `${name(i)} is a report of version ${shown(report.version)}; this llmjson reads version ${REPORT_VERSION}: merge reports written by the same version`,
      );
    }
    const difference = settingsDifference(first.settings, report.settings);
    if (difference !== undefined) {
      throw new UsageError(
        `${name(i)} differs from ${name(0)} in its settings: ${difference.field} is ${shown(difference.after)}, not ${shown(difference.before)}; merge only reports of one run (the same flags and inputs), split by --shard`,
      );
    }
  }
  const covered = new Map<number, number>();
  let count: number | undefined;
  for (const [i, report] of reports.entries()) {
    const coverage = coverageOf(report.settings, report.shards);
    if (coverage === undefined) {
      if (reports.length > 1) {
        throw new UsageError(
          `${name(i)} covers the whole run, so it overlaps ${name(i === 0 ? 1 : 0)}: merge the reports of distinct shards (--shard k/n) of one run`,
        );
      }
      continue;
    }
    if (count !== undefined && coverage.count !== count) {
      throw new UsageError(
        `${name(i)} is ${shardName(coverage)}, ${name(0)} of a split into ${count}: merge shards of one split (the same n in --shard k/n)`,
      );
    }
    count = coverage.count;
    for (const index of coverage.indexes) {
      const before = covered.get(index);
      if (before !== undefined) {
        throw new UsageError(
          `${name(i)} and ${name(before)} both hold shard ${index} of ${coverage.count}: they overlap; give each shard's report once`,
        );
      }
      covered.set(index, i);
    }
  }
  const builder = new ReportBuilder(first.settings);
  for (const report of reports) builder.addReport(report);
  if (count !== undefined) {
    builder.setCoverage({ count, indexes: [...covered.keys()].sort((a, b) => a - b) });
  }
  return builder.report();
}

// --- reading a report back --------------------------------------------------------------------

function fail(name: string, what: string): never {
  throw new UsageError(
    `${name} is not an llmjson batch report: ${what}; give a report.json written by llmjson batch --report or llmjson merge`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkCount(name: string, where: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) fail(name, `${where} is not a count`);
  return value;
}

function checkString(name: string, where: string, value: unknown): string {
  if (typeof value !== 'string') fail(name, `${where} is not a string`);
  return value;
}

function checkCounts<K extends string>(name: string, where: string, value: unknown, keys: readonly K[]): void {
  if (!isObject(value)) fail(name, `${where} is missing`);
  for (const key of keys) checkCount(name, `${where}.${key}`, value[key]);
}

function checkKeyCounts(name: string, where: string, value: unknown): void {
  if (!Array.isArray(value)) fail(name, `${where} is not a list`);
  for (const [i, entry] of value.entries()) {
    if (!isObject(entry)) fail(name, `${where}[${i}] is not an object`);
    checkString(name, `${where}[${i}].key`, entry.key);
    checkCount(name, `${where}[${i}].count`, entry.count);
  }
}

function checkSummary(name: string, where: string, value: unknown): void {
  if (!isObject(value)) fail(name, `${where} is missing`);
  for (const field of ['records', 'values', 'diagnostics', 'otherKeywords', 'otherPaths'] as const) {
    checkCount(name, `${where}.${field}`, value[field]);
  }
  checkCounts(name, `${where}.statuses`, value.statuses, RECORD_STATUSES);
  if (!isObject(value.scores)) fail(name, `${where}.scores is missing`);
  for (const scoring of SCORINGS)
    checkCounts(name, `${where}.scores.${scoring}`, value.scores[scoring], RECORD_STATUSES);
  checkCounts(name, `${where}.usable`, value.usable, SCORINGS);
  if (!isObject(value.usablePercent)) fail(name, `${where}.usablePercent is missing`);
  for (const scoring of SCORINGS) {
    const p = value.usablePercent[scoring];
    if (typeof p !== 'number' || !(p >= 0 && p <= 100))
      fail(name, `${where}.usablePercent.${scoring} is not a percentage`);
  }
  checkCounts(name, `${where}.jsonschemabench`, value.jsonschemabench, JSON_SCHEMA_BENCH_CODES);
  checkKeyCounts(name, `${where}.keywords`, value.keywords);
  checkKeyCounts(name, `${where}.paths`, value.paths);
  if (!Array.isArray(value.examples)) fail(name, `${where}.examples is not a list`);
  for (const [i, example] of value.examples.entries()) {
    const at = `${where}.examples[${i}]`;
    if (!isObject(example)) fail(name, `${at} is not an object`);
    checkCount(name, `${at}.index`, example.index);
    checkString(name, `${at}.id`, example.id);
    checkString(name, `${at}.model`, example.model);
    if (!STATUS_SET.has(checkString(name, `${at}.status`, example.status))) fail(name, `${at}.status is unknown`);
    for (const field of ['keyword', 'path', 'message', 'excerpt'] as const) {
      if (example[field] !== undefined) checkString(name, `${at}.${field}`, example[field]);
    }
  }
}

/**
 * A report read from JSON text, its shape checked (a UsageError naming `name` and what is wrong
 * otherwise), so that merging or comparing it cannot fail halfway.
 */
export function parseReport(text: string, name: string): BatchReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    fail(name, `not JSON (${quoteInput((error as Error).message)})`);
  }
  if (!isObject(value)) fail(name, 'not a JSON object');
  if (value.version !== REPORT_VERSION) {
    if (value.version === undefined) fail(name, 'it has no version');
    throw new UsageError(
      `${name} is a report of version ${shown(value.version)}; this llmjson reads version ${REPORT_VERSION}: write it again with this llmjson`,
    );
  }
  const settings = value.settings;
  if (!isObject(settings)) fail(name, 'settings is missing');
  if (!Array.isArray(settings.inputs) || !settings.inputs.every((i) => typeof i === 'string')) {
    fail(name, 'settings.inputs is not a list of names');
  }
  if (typeof settings.salvage !== 'boolean') fail(name, 'settings.salvage is not true or false');
  if (
    settings.coerce !== false &&
    !(Array.isArray(settings.coerce) && settings.coerce.every((r) => typeof r === 'string'))
  ) {
    fail(name, 'settings.coerce is not false or a list of rules');
  }
  for (const field of ['mode', 'format', 'statuses'] as const) checkString(name, `settings.${field}`, settings[field]);
  if (settings.schema !== undefined) checkString(name, 'settings.schema', settings.schema);
  if (settings.fields !== undefined) {
    if (!isObject(settings.fields)) fail(name, 'settings.fields is not an object');
    for (const [field, path] of Object.entries(settings.fields)) checkString(name, `settings.fields.${field}`, path);
  }
  const checkShard = (where: string, shard: unknown, indexes: unknown[]) => {
    if (!isObject(shard)) fail(name, `${where} is not an object`);
    const n = checkCount(name, `${where}.count`, shard.count);
    for (const k of indexes) {
      if (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 1 || k > n) fail(name, `${where} is not k of n`);
    }
  };
  if (settings.shard !== undefined) {
    checkShard('settings.shard', settings.shard, [isObject(settings.shard) ? settings.shard.index : undefined]);
  }
  if (value.shards !== undefined) {
    const indexes = isObject(value.shards) ? value.shards.indexes : undefined;
    if (!Array.isArray(indexes)) fail(name, 'shards.indexes is not a list');
    checkShard('shards', value.shards, indexes);
  }
  checkSummary(name, 'totals', value.totals);
  if (!Array.isArray(value.models)) fail(name, 'models is not a list');
  for (const [i, model] of value.models.entries()) {
    checkSummary(name, `models[${i}]`, model);
    checkString(name, `models[${i}].model`, (model as { model?: unknown }).model);
  }
  if (value.otherModels !== undefined) checkSummary(name, 'otherModels', value.otherModels);
  checkCount(name, 'skippedInputLines', value.skippedInputLines);
  if (!Array.isArray(value.inputProblems)) fail(name, 'inputProblems is not a list');
  for (const [i, problem] of value.inputProblems.entries()) {
    if (!isObject(problem)) fail(name, `inputProblems[${i}] is not an object`);
    checkCount(name, `inputProblems[${i}].index`, problem.index);
    checkString(name, `inputProblems[${i}].file`, problem.file);
    checkCount(name, `inputProblems[${i}].line`, problem.line);
    checkString(name, `inputProblems[${i}].message`, problem.message);
  }
  return value as unknown as BatchReport;
}

// --- diff -----------------------------------------------------------------------------------------

export interface CountChange {
  readonly before: number;
  readonly after: number;
  readonly change: number;
}

export interface PercentChange {
  /** null: no records on that side. */
  readonly before: number | null;
  readonly after: number | null;
  /** Percentage points; null when a side has no records. */
  readonly points: number | null;
}

export interface ModelDiff {
  readonly model: string;
  /** `before`/`after`: the model is only in the old/new report. */
  readonly presence: 'both' | 'before' | 'after';
  readonly records: CountChange;
  readonly usablePercent: Readonly<Record<Scoring, PercentChange>>;
  /** The run's statuses. */
  readonly statuses: Readonly<Record<RecordStatus, CountChange>>;
}

export interface ReportDiff {
  /** Settings that differ between the runs (informative: any two runs may be compared). */
  readonly settings: readonly { readonly field: string; readonly before: unknown; readonly after: unknown }[];
  readonly totals: ModelDiff;
  /** Every model of either report, sorted by name (the models past `MAX_MODELS` aside). */
  readonly models: readonly ModelDiff[];
}

const EMPTY_SUMMARY: ReportSummary = new Accumulator().summary();

function percentOf(summary: ReportSummary | undefined, scoring: Scoring): number | null {
  return summary === undefined || summary.records === 0 ? null : summary.usablePercent[scoring];
}

function summaryDiff(model: string, before: ReportSummary | undefined, after: ReportSummary | undefined): ModelDiff {
  const a = before ?? EMPTY_SUMMARY;
  const b = after ?? EMPTY_SUMMARY;
  const change = (x: number, y: number): CountChange => ({ before: x, after: y, change: y - x });
  const usablePercent = {} as Record<Scoring, PercentChange>;
  for (const scoring of SCORINGS) {
    const x = percentOf(before, scoring);
    const y = percentOf(after, scoring);
    usablePercent[scoring] = {
      before: x,
      after: y,
      points: x === null || y === null ? null : Math.round(100 * (y - x)) / 100,
    };
  }
  const statuses = {} as Record<RecordStatus, CountChange>;
  for (const status of RECORD_STATUSES) statuses[status] = change(a.statuses[status], b.statuses[status]);
  return {
    model,
    presence: before === undefined ? 'after' : after === undefined ? 'before' : 'both',
    records: change(a.records, b.records),
    usablePercent,
    statuses,
  };
}

/** Per-model changes from `before` to `after` (two runs, any settings: those that differ are listed). */
export function diffReports(before: BatchReport, after: BatchReport): ReportDiff {
  const settings: { field: string; before: unknown; after: unknown }[] = [];
  for (const field of [...MERGED_SETTINGS, 'shard'] as const) {
    if (canonical(before.settings[field]) !== canonical(after.settings[field])) {
      settings.push({ field, before: before.settings[field], after: after.settings[field] });
    }
  }
  const old = new Map(before.models.map((m) => [m.model, m]));
  const now = new Map(after.models.map((m) => [m.model, m]));
  const names = [...new Set([...old.keys(), ...now.keys()])].sort(compareText);
  return {
    settings,
    totals: summaryDiff('all', before.totals, after.totals),
    models: names.map((name) => summaryDiff(name, old.get(name), now.get(name))),
  };
}

// --- text, markdown -----------------------------------------------------------------------------

/** Widest a model name is shown in a table, in characters (an ellipsis marks a cut). */
export const MAX_CELL_LENGTH = 60;

/** A name as a terminal table shows it: escaped (terminalText), at most MAX_CELL_LENGTH characters. */
export function tableCell(text: string): string {
  // Only the head is looked at: a long name costs no more than a short one.
  const shown = terminalText(text.slice(0, MAX_CELL_LENGTH + 1));
  return shown.length <= MAX_CELL_LENGTH && text.length <= MAX_CELL_LENGTH ? shown : cut(shown, MAX_CELL_LENGTH);
}

/**
 * Text from the input as a markdown table cell or paragraph shows it: control characters and
 * line breaks escaped (terminalText), and every character markdown or inline HTML could act on
 * backslash-escaped (CommonMark: any ASCII punctuation may be), so it reads as it is.
 */
export function markdownText(text: string, max = MAX_TEXT_LENGTH): string {
  return terminalText(cut(text, max)).replace(/[\\|`*_[\]<>~&#$]/g, (c) => `\\${c}`);
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}

/** A count change as `+3`, `-2` or `0`; percentage points as `+1.5 pp`. */
export function signed(value: number, unit = ''): string {
  const text = unit === '' ? String(value) : value.toFixed(1);
  return `${value > 0 ? '+' : ''}${text}${unit}`;
}

const SCORING_LABELS: Readonly<Record<Scoring, string>> = {
  strict: 'strict',
  salvage: 'salvage',
  coerce: 'salvage + coerce',
};

export function scoringLabel(scoring: Scoring): string {
  return SCORING_LABELS[scoring];
}

/** Rows of the report: each model, then the models past the cap, then all. */
export function reportRows(
  report: BatchReport,
): { readonly name: string; readonly summary: ReportSummary; readonly total: boolean }[] {
  return [
    ...report.models.map((m) => ({ name: m.model, summary: m as ReportSummary, total: false })),
    ...(report.otherModels === undefined
      ? []
      : [{ name: `(the models past the first ${MAX_MODELS})`, summary: report.otherModels, total: false }]),
    { name: 'all', summary: report.totals, total: true },
  ];
}

/** The statuses worth a column: those any record has, or `valid` alone when none has one. */
export function shownStatuses(report: BatchReport): RecordStatus[] {
  const seen = RECORD_STATUSES.filter((s) => SCORINGS.some((scoring) => report.totals.scores[scoring][s] > 0));
  return seen.length === 0 ? ['valid'] : seen;
}

/** A plain-text table: the first column aligned left, the others right. */
export function alignedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** What a table shows for a path: the empty JSON Pointer is the whole value. */
export const WHOLE_VALUE = '(the whole value)';

function topKeys(list: readonly KeyCount[], max: number): string {
  return list
    .slice(0, max)
    .map((k) => `${k.key === '' ? WHOLE_VALUE : terminalText(quoteInput(k.key, 80))} ${k.count}`)
    .join(', ');
}

/**
 * The summary `llmjson batch` prints on stderr: per model, the run's statuses (the columns of
 * statuses some record has) and the usable share under each scoring; then the skipped input
 * lines and the most frequent failing keywords and paths. Every name is escaped (terminalText).
 */
export function summaryText(report: BatchReport): string {
  const statuses = shownStatuses(report);
  const header = ['model', 'records', ...statuses, 'strict', 'salvage', '+coerce'];
  const rows = reportRows(report).map(({ name, summary }) => [
    tableCell(name),
    String(summary.records),
    ...statuses.map((s) => String(summary.statuses[s])),
    ...SCORINGS.map((s) => percent(summary.usable[s], summary.records)),
  ]);
  const lines = [
    alignedTable(header, rows),
    `status columns: the run's statuses (${scoringLabel(runScoring(report.settings))} scoring); strict, salvage, +coerce: the usable share (valid + salvaged + coerced) under each scoring`,
  ];
  if (report.skippedInputLines > 0) {
    lines.push(
      `${report.skippedInputLines} input ${report.skippedInputLines === 1 ? 'line' : 'lines'} skipped (not a record)`,
    );
  }
  if (report.totals.keywords.length > 0) lines.push(`failing keywords: ${topKeys(report.totals.keywords, 5)}`);
  if (report.totals.paths.length > 0)
    lines.push(`failing paths (array indices as *): ${topKeys(report.totals.paths, 5)}`);
  return lines.join('\n');
}

/** A markdown table; a column of numbers (counts, percentages, changes) is aligned right. */
function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^(\*\*)?([+-]?[\d.]+(%| pp)?|-)(\*\*)?$/.test(r[i] ?? '')),
  );
  return [
    `| ${header.join(' | ')} |`,
    `| ${numeric.map((n) => (n ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** The settings in one sentence (names escaped for markdown by `text`). */
export function settingsSentence(settings: ReportSettings, text: (s: string) => string): string {
  const parts = [
    `mode ${settings.mode}`,
    `statuses by the ${scoringLabel(runScoring(settings))} scoring`,
    `coerce ${settings.coerce === false ? 'off' : settings.coerce.join(', ')}`,
    `format ${settings.format}`,
    `schema ${settings.schema === undefined ? (settings.fields?.schema === undefined ? 'none' : `per record (${text(settings.fields.schema)})`) : text(settings.schema)}`,
  ];
  if (settings.shard !== undefined) parts.push(`shard ${settings.shard.index} of ${settings.shard.count}`);
  return `${parts.join('; ')}. Inputs: ${settings.inputs.map(text).join(', ') || 'none'}.`;
}

/**
 * A model's most frequent failing keywords and paths in one sentence (`key` formats a keyword or
 * a path for the output at hand, escaping it), or '' when its failures name none.
 */
export function frequentFailures(
  summary: ReportSummary,
  key: (text: string, which: 'keywords' | 'paths') => string,
): string {
  const list = (which: 'keywords' | 'paths') =>
    summary[which]
      .slice(0, 3)
      .map((k) => `${key(k.key, which)} (${k.count})`)
      .join(', ');
  const parts = [
    ...(summary.keywords.length === 0 ? [] : [`keywords ${list('keywords')}`]),
    ...(summary.paths.length === 0 ? [] : [`paths ${list('paths')}`]),
  ];
  return parts.length === 0 ? '' : `Most frequent failing ${parts.join('; ')}.`;
}

/** The markdown report: settings, usable by scoring, statuses by scoring, JSONSchemaBench codes, failing keywords and paths, examples. */
export function markdownReport(report: BatchReport): string {
  const md = (s: string) => markdownText(s);
  const cell = (s: string) => markdownText(s, MAX_CELL_LENGTH);
  const rows = reportRows(report);
  const statuses = shownStatuses(report);
  const out: string[] = ['# llmjson batch report', '', settingsSentence(report.settings, md)];
  if (report.shards !== undefined) {
    out.push('', `A merge of shards ${report.shards.indexes.join(', ')} of ${report.shards.count}.`);
  }
  out.push(
    '',
    '## Usable responses by scoring',
    '',
    'Usable: valid, salvaged or coerced. Strict is `JSON.parse` of the whole text, as a naive harness scores it; the last column is what it misses.',
    '',
    markdownTable(
      ['model', 'records', 'strict', 'salvage', 'salvage + coerce', 'strict misses'],
      rows.map(({ name, summary, total }) => {
        const bold = (s: string) => (total ? `**${s}**` : s);
        return [
          bold(cell(name)),
          String(summary.records),
          ...SCORINGS.map((s) => percent(summary.usable[s], summary.records)),
          summary.records === 0
            ? '-'
            : `${signed((100 * (summary.usable.coerce - summary.usable.strict)) / summary.records, ' pp')}`,
        ];
      }),
    ),
    '',
    '## Statuses by scoring',
    '',
    markdownTable(
      ['model', 'scoring', ...statuses],
      rows.flatMap(({ name, summary }) =>
        SCORINGS.map((scoring) => [
          cell(name),
          scoringLabel(scoring),
          ...statuses.map((s) => String(summary.scores[scoring][s])),
        ]),
      ),
    ),
    '',
    '## JSONSchemaBench codes',
    '',
    markdownTable(
      ['model', ...JSON_SCHEMA_BENCH_CODES],
      rows.map(({ name, summary }) => [
        cell(name),
        ...JSON_SCHEMA_BENCH_CODES.map((c) => String(summary.jsonschemabench[c])),
      ]),
    ),
  );
  const keys = (title: string, column: string, list: readonly KeyCount[], other: number) => {
    out.push('', `## ${title}`, '');
    if (list.length === 0) {
      out.push('None.');
      return;
    }
    out.push(
      markdownTable(
        [column, 'failures'],
        list.slice(0, 10).map((k) => [k.key === '' ? WHOLE_VALUE : md(k.key), String(k.count)]),
      ),
    );
    const rest = list.slice(10).reduce((sum, k) => sum + k.count, 0) + other;
    if (rest > 0) out.push('', `And ${rest} more failures elsewhere.`);
  };
  keys('Failing keywords', 'keyword', report.totals.keywords, report.totals.otherKeywords);
  keys('Failing paths', 'path (array indices as \\*)', report.totals.paths, report.totals.otherPaths);
  out.push('', '## Example failures', '', `The first ${MAX_EXAMPLES} failures of each model, by position in the run.`);
  const mdKey = (text: string, which: 'keywords' | 'paths') =>
    which === 'paths' && text === '' ? WHOLE_VALUE : md(text);
  for (const { name, summary, total } of rows) {
    if (total || summary.examples.length === 0) continue;
    const frequent = frequentFailures(summary, mdKey);
    out.push(
      '',
      `### ${md(name)}`,
      '',
      ...(frequent === '' ? [] : [frequent, '']),
      markdownTable(
        ['position', 'id', 'status', 'keyword', 'path', 'message', 'excerpt'],
        summary.examples.map((e) => [
          String(e.index),
          md(e.id),
          e.status,
          md(e.keyword ?? ''),
          md(e.path ?? ''),
          md(e.message ?? ''),
          md(e.excerpt ?? ''),
        ]),
      ),
    );
  }
  if (report.skippedInputLines > 0) {
    out.push(
      '',
      '## Skipped input lines',
      '',
      `${report.skippedInputLines} input ${report.skippedInputLines === 1 ? 'line is' : 'lines are'} not a record; the first:`,
      '',
      ...report.inputProblems.map((p) => `- ${md(p.file)}:${p.line}: ${md(p.message)}`),
    );
  }
  return `${out.join('\n')}\n`;
}

// --- files ----------------------------------------------------------------------------------------

export type ReportFileFormat = 'json' | 'markdown' | 'html';

const EXTENSIONS: Readonly<Record<string, ReportFileFormat>> = { '.json': 'json', '.md': 'markdown', '.html': 'html' };

/**
 * The format a report file's extension names (`.json`, `.md`, `.html`, any case); else a
 * UsageError naming `flag` and the extensions there are. Call it before reading any input.
 */
export function reportFileFormat(file: string, flag = '--report'): ReportFileFormat {
  const format = EXTENSIONS[extname(file).toLowerCase()];
  if (format === undefined) {
    throw new UsageError(
      `${flag} ${quoteInput(file)}: the extension chooses the format: give a file ending in .json, .md or .html`,
    );
  }
  return format;
}

/** The report as `format` writes it. */
export function renderReport(report: BatchReport, format: ReportFileFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'markdown':
      return markdownReport(report);
    case 'html':
      return htmlReport(report);
  }
}

/**
 * Writes the report to `file` in the format its extension names (`reportFileFormat`). A file
 * system error is thrown as it is, for the caller to name its flag.
 */
export function writeReport(file: string, report: BatchReport): void {
  writeFileSync(file, renderReport(report, reportFileFormat(file)));
}
