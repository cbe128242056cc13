/**
 * The option policy every public factory shares: which option names each factory takes, and the
 * checks that turn a misspelt name or an enumerated value out of its set into a ConfigurationError
 * (OPTION_INVALID) when the stream, decoder or client is made.
 *
 * Invariants: each factory's names are one list here, held complete against its options type at
 * compile time (`optionNames`), and the same list is what docs/guide/options.md is checked
 * against (test/docs/options-tables.test.ts); an unknown name is an error that names the closest
 * known one; a value out of its set is an error that lists the allowed values and quotes what it
 * got (a string as a JSON string, so `'10'` reads `"10"`, not `10`).
 *
 * Why: in JavaScript nothing else stops `onDiagnostics` or `schemas`, and validation would then
 * simply be off (docs/decisions/031-one-options-policy.md). A factory that checked its caller's
 * names and passes them on with its own additions marks the object (`OPTION_NAMES_CHECKED`), so
 * the engine it calls does not refuse what the adapter takes and the engine does not.
 */

import type { OpenAICompatibleOptions } from '../client/openai-compatible.js';
import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { quoteInput } from '../diagnostics/diagnostics.js';
import type { ElementOptions } from '../engines/element-scanner.js';
import type { StreamOptions } from '../engines/engine.js';
import type { ExtractJsonOptions, ExtractOptions } from '../engines/extract-json.js';
import type { JsonlOptions } from '../engines/jsonl-decoder.js';
import type { PartialOptions } from '../engines/partial-value.js';
import type { SalvageOptions } from '../engines/salvage-scanner.js';
import type { FailFastOptions } from '../prefix/fail-fast.js';
import type { ToolCallOptions } from '../provider/tool-calls.js';
import type { ProviderDecoderOptions } from '../provider/types.js';

/**
 * Set (to `true`) on an options object whose names its factory already checked against a wider
 * list: the engine it is handed to then skips its own name check. A symbol, so that no user
 * option can collide with it and `Object.keys` never lists it.
 */
export const OPTION_NAMES_CHECKED: unique symbol = Symbol('llmjson.optionNamesChecked');

type Missing<O, L extends readonly string[]> = Exclude<keyof O, L[number]>;

/**
 * `names` as a list, checked at compile time against `O`: a name `O` does not have is a type
 * error, and so is a name of `O` that `names` leaves out (the error says which).
 */
export function optionNames<O>() {
  return <const L extends readonly (keyof O & string)[]>(
    names: L & ([Missing<O, L>] extends [never] ? unknown : { readonly missing: Missing<O, L> }),
  ): readonly string[] => names;
}

/** What every stream adapter (Node and Web take the same: decision 024) adds to its engine's options. */
type Adapter = StreamOptions & FailFastOptions;

// One list per factory, written out whole (no spreads), so that a bundle keeps only the lists of
// the factories it calls: the Web JSONL stream carries two lists, not fifteen.
/** The options `createJsonlDecoder` takes. */
export const JSONL_DECODER_OPTIONS = /* @__PURE__ */ optionNames<JsonlOptions>()([
  'schema',
  'discriminator',
  'strict',
  'maxLineLength',
  'maxDepth',
  'reportSkipped',
  'nullValue',
  'prefixCheck',
  'prefixCheckWith',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createPartialBuilder` takes. */
export const PARTIAL_BUILDER_OPTIONS = /* @__PURE__ */ optionNames<PartialOptions>()([
  'schema',
  'discriminator',
  'maxDepth',
  'maxValueLength',
  'snapshots',
  'snapshotBudget',
  'updateOn',
  'nullValue',
  'prefixCheck',
  'trackChanges',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createElementScanner` takes. */
export const ELEMENT_SCANNER_OPTIONS = /* @__PURE__ */ optionNames<ElementOptions>()([
  'path',
  'schema',
  'elementSchema',
  'discriminator',
  'maxElementLength',
  'maxDepth',
  'prefixCheck',
  'prefixCheckWith',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createSalvageScanner` takes. */
export const SALVAGE_SCANNER_OPTIONS = /* @__PURE__ */ optionNames<SalvageOptions>()([
  'schema',
  'discriminator',
  'maxCandidateLength',
  'maxDepth',
  'strict',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createProviderDecoder` takes. */
export const PROVIDER_DECODER_OPTIONS = /* @__PURE__ */ optionNames<ProviderDecoderOptions>()([
  'input',
  'maxEventLength',
  'maxArgumentsLength',
  'keepToolArguments',
]);

/** The options `createToolCallDecoder` takes. */
export const TOOL_CALL_DECODER_OPTIONS = /* @__PURE__ */ optionNames<ToolCallOptions>()([
  'input',
  'maxEventLength',
  'maxArgumentsLength',
  'keepToolArguments',
  'tools',
  'prefixCheck',
  'snapshots',
  'maxDepth',
  'maxValueLength',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

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

/** The options `openAICompatible` takes. */
export const OPENAI_COMPATIBLE_OPTIONS = /* @__PURE__ */ optionNames<OpenAICompatibleOptions>()([
  'baseURL',
  'apiKey',
  'model',
  'headers',
  'fetch',
  'extraBody',
  'onDiagnostic',
  'idleTimeoutMs',
  'totalTimeoutMs',
  'jsonMode',
  'structuredOutput',
]);

/** The options `createJsonlStream` takes. */
export const JSONL_STREAM_OPTIONS = /* @__PURE__ */ optionNames<JsonlOptions & Adapter & { records?: unknown }>()([
  'schema',
  'discriminator',
  'strict',
  'maxLineLength',
  'maxDepth',
  'reportSkipped',
  'nullValue',
  'prefixCheck',
  'prefixCheckWith',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
  'records',
]);

/** The options `createPartialStream` takes. */
export const PARTIAL_STREAM_OPTIONS = /* @__PURE__ */ optionNames<
  Omit<PartialOptions, 'updateOn' | 'nullValue' | 'trackChanges'> &
    Adapter & { emit?: unknown; maxSnapshotDelay?: unknown }
>()([
  'schema',
  'discriminator',
  'maxDepth',
  'maxValueLength',
  'snapshots',
  'snapshotBudget',
  'prefixCheck',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
  'emit',
  'maxSnapshotDelay',
]);

/** The options `createElementStream` takes. */
export const ELEMENT_STREAM_OPTIONS = /* @__PURE__ */ optionNames<ElementOptions & Adapter>()([
  'path',
  'schema',
  'elementSchema',
  'discriminator',
  'maxElementLength',
  'maxDepth',
  'prefixCheck',
  'prefixCheckWith',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
]);

/** The options `createSalvageStream` takes. */
export const SALVAGE_STREAM_OPTIONS = /* @__PURE__ */ optionNames<SalvageOptions & Adapter>()([
  'schema',
  'discriminator',
  'maxCandidateLength',
  'maxDepth',
  'strict',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
]);

/** The options `createProviderStream` takes. */
export const PROVIDER_STREAM_OPTIONS = /* @__PURE__ */ optionNames<
  ProviderDecoderOptions & StreamOptions & { onToolArguments?: unknown; onReasoning?: unknown; onMetadata?: unknown }
>()([
  'input',
  'maxEventLength',
  'maxArgumentsLength',
  'keepToolArguments',
  'highWaterMark',
  'onDiagnostic',
  'onToolArguments',
  'onReasoning',
  'onMetadata',
]);

/** The options `createToolCallStream` takes. */
export const TOOL_CALL_STREAM_OPTIONS = /* @__PURE__ */ optionNames<
  ToolCallOptions & Adapter & { onText?: unknown; onReasoning?: unknown; onMetadata?: unknown }
>()([
  'input',
  'maxEventLength',
  'maxArgumentsLength',
  'keepToolArguments',
  'tools',
  'prefixCheck',
  'snapshots',
  'maxDepth',
  'maxValueLength',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
  'onText',
  'onReasoning',
  'onMetadata',
]);

/** Every factory's list, by factory: for the docs test (docs/guide/options.md) and tools, not the factories. */
export const FACTORY_OPTION_NAMES: Readonly<Record<string, readonly string[]>> = {
  createJsonlDecoder: JSONL_DECODER_OPTIONS,
  createPartialBuilder: PARTIAL_BUILDER_OPTIONS,
  createElementScanner: ELEMENT_SCANNER_OPTIONS,
  createSalvageScanner: SALVAGE_SCANNER_OPTIONS,
  createProviderDecoder: PROVIDER_DECODER_OPTIONS,
  createToolCallDecoder: TOOL_CALL_DECODER_OPTIONS,
  extractAllJson: EXTRACT_ALL_JSON_OPTIONS,
  extractJson: EXTRACT_JSON_OPTIONS,
  openAICompatible: OPENAI_COMPATIBLE_OPTIONS,
  createJsonlStream: JSONL_STREAM_OPTIONS,
  createPartialStream: PARTIAL_STREAM_OPTIONS,
  createElementStream: ELEMENT_STREAM_OPTIONS,
  createSalvageStream: SALVAGE_STREAM_OPTIONS,
  createProviderStream: PROVIDER_STREAM_OPTIONS,
  createToolCallStream: TOOL_CALL_STREAM_OPTIONS,
};

/**
 * Throws ConfigurationError (OPTION_INVALID) for an own enumerable option name `factory` does
 * not take (`known`: its list here, or a list of another package's factory made with
 * `optionNames`), suggesting the closest one it does. Skipped for options marked `OPTION_NAMES_CHECKED`.
 * Not an object at all (`null`, a string) is an error too; `undefined` is no options.
 */
export function checkOptionNames(factory: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `${factory} takes an options object, got ${describeValue(options)}`,
    );
  }
  if ((options as { [OPTION_NAMES_CHECKED]?: unknown })[OPTION_NAMES_CHECKED] === true) return;
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const closest = closestName(name, known);
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `${factory} has no option ${JSON.stringify(quoteInput(name))}${closest === undefined ? '' : `: did you mean ${closest}?`} It takes ${known.join(', ')}`,
    );
  }
}

/** `options` marked as name-checked (see `OPTION_NAMES_CHECKED`), for handing to an engine. */
export function namesChecked<O extends object>(options: O): O {
  return { ...options, [OPTION_NAMES_CHECKED]: true };
}

/**
 * Throws ConfigurationError (OPTION_INVALID) unless `value` is absent or one of `choices`: the
 * message lists the allowed values and quotes what it got.
 */
export function checkChoice(name: string, value: unknown, choices: readonly unknown[]): void {
  if (value === undefined || choices.includes(value)) return;
  const allowed = choices.map(describeChoice);
  const list = allowed.length <= 2 ? allowed.join(' or ') : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
  throw new ConfigurationError(
    ConfigurationErrorCode.optionInvalid,
    `${name} must be ${list}, got ${describeValue(value)}`,
  );
}

function describeChoice(choice: unknown): string {
  return typeof choice === 'string' ? `'${choice}'` : String(choice);
}

/**
 * What a message says a wrong option value was: a string as a JSON string (`"10"`, so that it
 * is not read as the number 10), a number, boolean, null or undefined as itself, anything else
 * by its kind.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(quoteInput(value));
  if (value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'undefined') {
    return String(value);
  }
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * The known name nearest `name` by edit distance (insertions, deletions, substitutions and
 * swaps of neighbours), when it is near enough to be a slip: at most a third of the name's
 * length, and at least one. Case is a slip too (`maxlinelength`).
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    if (candidate.toLowerCase() === name.toLowerCase()) return candidate;
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: the number of single-character edits (a swap of two neighbours counts one). */
function editDistance(a: string, b: string): number {
  // Rows of the dynamic programme: two rows back, the previous row and the current one.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (before[j - 2] as number) + 1);
      }
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}
