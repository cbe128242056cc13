/**
 * One-shot salvage: `extractAllJson` returns every value the salvage scanner finds in a whole
 * text; `extractJson` returns the one value a caller wants.
 *
 * Contract: both run the same scanner as the streams, so `extractAllJson(text)` equals what
 * `createSalvageScanner` delivers for `text` under any chunking. Order of preference for
 * `extractJson`: the whole text (document), then the first fenced value, then the first value
 * in inline code, then the first object embedded in prose (else the first embedded array);
 * with a schema, the first value in that order that validates.
 *
 * Recoveries: the scanner's own (a trailing comma, decision 003) apply to every candidate
 * unless `strict` is set, before anything nested in it could be preferred, and are reported
 * (`recovered: true` and a `recovered` diagnostic). Repair of near-JSON (jsonrepair) happens
 * only when asked for, and is reported (`repaired: true` and a `recovered` diagnostic), never
 * silent; it is tried on fenced blocks, inline code and the span from the first `{`/`[` to the
 * last `}`/`]` — never on prose — when no value was found, and also when the value that would
 * be returned lies inside a candidate that failed: then the fenced block, inline code or whole
 * text around it is repaired first, so that a piece of a broken answer never wins over the
 * repaired answer.
 *
 * Coercion (`coerce`, coerce.ts): a value the schema rejects as written may be delivered coerced,
 * after one `recovered` diagnostic per repair (with `rule` and `path`); it then counts as valid
 * for the order of preference, and a repaired value is coerced the same way.
 *
 * Guarantees: neither function throws for any text (only for a broken configuration: an
 * invalid schema or option). A value nested deeper than `maxDepth` (default 512) is reported
 * `too-deep` and never returned, before any validation, whether found as written or repaired.
 */

import { jsonrepair } from 'jsonrepair';
import { type Diagnostic, DiagnosticReason, excerptAround } from '../diagnostics/diagnostics.js';
import { checkChoice, checkOptionNames, namesChecked, optionNames } from '../options/option-checks.js';
import type { ValidationResult } from '../schema/schema-validator.js';
import type { SchemaInput, SchemaValue } from '../schema/standard-schema.js';
import { DEFAULT_MAX_DEPTH, depthExceeds, mayExceedDepth } from '../syntax/depth.js';
import { fencedBlocks, inlineCodeSpans } from '../text/fence.js';
import { coercionDiagnostic, validatorFor } from './engine.js';
import { isNestedInFailure, type SalvagedValue, type SalvageSource } from './salvage-delivery.js';
import { createSalvageScanner, type SalvageOptions } from './salvage-scanner.js';

export interface ExtractOptions<S extends SchemaInput = SchemaInput> extends SalvageOptions<S> {
  /** Receives diagnostics (schema failures, truncated candidates, repairs). */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

export interface ExtractJsonOptions<S extends SchemaInput = SchemaInput> extends ExtractOptions<S> {
  /**
   * When no valid JSON is found (or only a value nested in a candidate that failed), repair
   * near-JSON (single quotes, Python `True`/`None`, comments, unquoted keys, a cut-off end)
   * with jsonrepair. Default `false`.
   */
  readonly repair?: boolean;
}

/** Every JSON value in `text`, in document order. */
export function extractAllJson<S extends SchemaInput = SchemaInput>(
  text: string,
  options: ExtractOptions<S> = {},
): SalvagedValue<SchemaValue<S>>[] {
  checkOptionNames('extractAllJson', options, EXTRACT_ALL_JSON_OPTIONS);
  const values: SalvagedValue<SchemaValue<S>>[] = [];
  const onDiagnostic = options.onDiagnostic;
  // The names were checked above, against a list the scanner's is part of.
  const scanner = createSalvageScanner(namesChecked(options), {
    value(value) {
      values.push(value);
    },
    diagnostic(d) {
      onDiagnostic?.(d);
    },
  });
  scanner.write(text);
  scanner.end();
  return values;
}

const PREFERENCE: readonly SalvageSource[] = ['document', 'fence', 'inline', 'embedded'];

/** The one value a caller wants from `text`, or `undefined` when there is none. */
export function extractJson<S extends SchemaInput = SchemaInput>(
  text: string,
  options: ExtractJsonOptions<S> = {},
): SalvagedValue<SchemaValue<S>> | undefined {
  checkOptionNames('extractJson', options, EXTRACT_JSON_OPTIONS);
  checkChoice('repair', options.repair, [true, false]);
  const found = preferred(extractAllJson(text, namesChecked(options)));
  if (options.repair !== true) return found;
  // A repaired value is validated against the same schema before it is returned.
  if (found === undefined) return repairNearJson(text, options, undefined) as SalvagedValue<SchemaValue<S>> | undefined;
  if (!isNestedInFailure(found)) return found;
  // A piece of a candidate that failed: its fenced block, inline code or the whole text,
  // repaired, is the better answer; the piece remains the answer when none repairs.
  return (repairNearJson(text, options, found) as SalvagedValue<SchemaValue<S>> | undefined) ?? found;
}

/** The value `extractJson` prefers among all found, or undefined. */
function preferred<T>(values: readonly SalvagedValue<T>[]): SalvagedValue<T> | undefined {
  for (const source of PREFERENCE) {
    // In prose an object is the answer far more often than an array, which is often a
    // citation such as `[1]`: the first embedded object wins over an earlier embedded array.
    const found =
      source === 'embedded'
        ? (values.find((v) => v.source === source && !Array.isArray(v.value)) ??
          values.find((v) => v.source === source))
        : values.find((v) => v.source === source);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Places where near-JSON may sit, in the order of preference. */
function repairCandidates(text: string): { source: SalvageSource; start: number; end: number }[] {
  const candidates: { source: SalvageSource; start: number; end: number }[] = [];
  for (const block of fencedBlocks(text)) candidates.push({ source: 'fence', start: block.start, end: block.end });
  for (const span of inlineCodeSpans(text)) candidates.push({ source: 'inline', start: span.start, end: span.end });
  // The span from the first opening to the last closing bracket: near-JSON with prose (or a
  // JSONP wrapper) around it, or the whole text when nothing surrounds it. Never the whole text
  // otherwise: repair would read any prose as an array of words.
  const first = text.search(/[{[]/);
  const last = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (first >= 0 && last > first) {
    const whole = text.slice(0, first).trim() === '' && text.slice(last + 1).trim() === '';
    candidates.push({ source: whole ? 'document' : 'embedded', start: first, end: last + 1 });
  }
  return candidates;
}

/**
 * The first repair candidate that jsonrepair turns into an object or array (that the schema
 * accepts). With `around`, only candidates that contain it: its fenced block, its inline code,
 * or the span from the first opening to the last closing bracket (for a value in prose only
 * when `around` is in prose too).
 */
function repairNearJson(
  text: string,
  options: ExtractJsonOptions,
  around: SalvagedValue | undefined,
): SalvagedValue | undefined {
  // The salvage scanner delivered the schema's warnings already: not twice.
  const { onWarning: _, ...quiet } = options;
  const validator = validatorFor(quiet);
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  for (const candidate of repairCandidates(text)) {
    if (
      around !== undefined &&
      ((candidate.source === 'embedded' && around.source !== 'embedded') ||
        candidate.start > around.start ||
        around.end > candidate.end)
    ) {
      continue;
    }
    const original = text.slice(candidate.start, candidate.end);
    if (original.trim() === '') continue;
    const trimmedStart = candidate.start + (original.length - original.trimStart().length);
    const trimmedEnd = candidate.end - (original.length - original.trimEnd().length);
    let repaired: string;
    let value: unknown;
    try {
      // jsonrepair recurses on nesting: a hostile depth ends here as a RangeError, not a crash.
      repaired = jsonrepair(original);
      value = JSON.parse(repaired);
    } catch {
      continue;
    }
    // Repair turns any word into a string: only objects and arrays count as salvaged JSON.
    if (typeof value !== 'object' || value === null) continue;
    if (mayExceedDepth(repaired.length, maxDepth) && depthExceeds(value, maxDepth)) {
      options.onDiagnostic?.({
        reason: DiagnosticReason.tooDeep,
        offset: trimmedStart,
        excerpt: excerptAround(original.trim()),
        message: `repaired value nested deeper than maxDepth (${maxDepth} levels); the value was dropped`,
      });
      continue;
    }
    let branch: string | undefined;
    let result: ValidationResult | undefined;
    if (validator !== undefined) {
      try {
        result = validator.validate(value);
      } catch {
        result = undefined;
      }
      if (result === undefined || !result.valid) continue;
      branch = result.branch;
    }
    options.onDiagnostic?.({
      reason: DiagnosticReason.recovered,
      offset: trimmedStart,
      excerpt: excerptAround(original.trim()),
      message: `near-JSON repaired (${candidate.source}): the text was not valid JSON as written`,
    });
    // With `coerce`, the repaired value may also have been coerced: each repair is reported.
    if (result?.valid === true && result.fixes !== undefined) {
      for (const fix of result.fixes) {
        options.onDiagnostic?.(coercionDiagnostic(fix, trimmedStart, original.trim(), branch));
      }
      value = result.value;
    }
    return {
      value,
      source: candidate.source,
      start: trimmedStart,
      end: trimmedEnd,
      ...(branch === undefined ? {} : { branch }),
      repaired: true,
    };
  }
  return undefined;
}

// ---- option names (the options policy: options/option-checks.ts) ----------------------------

/** The options `extractAllJson` takes. */
export const EXTRACT_ALL_JSON_OPTIONS = /* @__PURE__ */ optionNames<ExtractOptions>()([
  'schema',
  'discriminator',
  'maxCandidateLength',
  'maxDepth',
  'strict',
  'onDiagnostic',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `extractJson` takes. */
export const EXTRACT_JSON_OPTIONS = /* @__PURE__ */ optionNames<ExtractJsonOptions>()([
  'schema',
  'discriminator',
  'maxCandidateLength',
  'maxDepth',
  'strict',
  'onDiagnostic',
  'repair',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);
