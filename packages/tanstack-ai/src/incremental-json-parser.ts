/**
 * An incremental `jsonParser` for TanStack AI. Its `StreamProcessor` (and so `ChatClient` and
 * `useChat`, through their `streamProcessor` option) calls `jsonParser.parse(text)` on every
 * TOOL_CALL_ARGS event with the call's whole argument text so far; the default parser
 * (`partial-json`) parses that whole text again each time, so a call whose arguments arrive in n
 * pieces costs quadratic time. This parser keeps one llmjson partial builder per text it follows
 * and hands it only the characters added since its previous call: linear in the arguments.
 *
 * Contract:
 * 1. `parse(text)` returns what a partial builder fed `text` whole would hold (`value`): the
 *    same value whether the text arrived in one call or grew over many (`createPartialBuilder`'s
 *    invariant 7), so following texts is invisible in the results.
 * 2. Each followed text remembers the builder that read it. A text that extends one (starts
 *    with it) is read from where that builder stopped — from the longest such text, when several
 *    are; a text equal to one returns its value again without reading; any other text (a new
 *    call, an edited or shorter text) is parsed from its start by a fresh builder. Over one text
 *    growing by appends, the builders read each character once (`stats.charactersRead`).
 * 3. Several calls in flight at once (parallel tool calls, whose texts alternate) are each
 *    followed: at most `maxTexts` texts are kept, the least recently used dropped first; a
 *    dropped text that comes back is parsed again from its start (correct, just not free).
 * 4. Never throws for any text (TanStack's parser contract: a value or `undefined`). `''`,
 *    whitespace and a non-string give `undefined`, as the default parser does; prose or broken
 *    JSON give the value read before it (the default gives `undefined`). What `onDiagnostic`
 *    throws propagates (the text it was reading is dropped, so a later call reads it again).
 * 5. Values are immutable snapshots with structural sharing (TanStack keeps them as
 *    `parsedArguments` while later calls go on): a call copies only the containers on the paths
 *    that changed.
 *
 * Where it differs from `partial-json` on a prefix of valid JSON: a number or `true`/`false`/
 * `null` appears once complete (a delimiter follows it), never cut short — `{"n": 12` is `{}`,
 * not `{ n: 12 }` — and a root number or literal is `undefined` (the complete text is
 * `JSON.parse`d by TanStack at TOOL_CALL_END anyway). Decision 037.
 *
 * Why a prefix comparison: the text comes whole each time, so whether it extends a followed text
 * can only be known by comparing them; that is one native string comparison (no parsing, no
 * allocation; about 5 GB/s), far cheaper per character than any parse.
 */

import {
  ConfigurationError,
  ConfigurationErrorCode,
  createPartialBuilder,
  type DeepPartial,
  type Diagnostic,
  type PartialBuilder,
  type PartialOptions,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkOptionNames, namesChecked, optionNames } from '@llmjson/core/internal';

/** Texts followed at once by default: more parallel tool calls than models make in one turn. */
export const DEFAULT_MAX_TEXTS = 8;

export interface IncrementalJsonParserOptions<S extends SchemaInput = SchemaInput>
  extends Pick<
    PartialOptions<S>,
    'schema' | 'discriminator' | 'maxDepth' | 'maxValueLength' | 'prefixCheck' | 'compileJsonSchema' | 'onWarning'
  > {
  /**
   * Called with each diagnostic a builder reports, with the text it was reading: a prefix that
   * no completion can make match `schema` (`violation`), a completed value that does not match
   * it (`schema`), broken JSON (`syntax`). One parser sees the texts of every tool call without
   * their tool names, so a `schema` fits when the texts handed to this parser are the arguments
   * of one tool. A text parsed again from its start (see `maxTexts`) reports its diagnostics
   * again. Default: none.
   */
  readonly onDiagnostic?: (diagnostic: Diagnostic, text: string) => void;
  /**
   * Texts followed at once, each with its builder (parallel tool calls alternate their texts).
   * Past it the least recently used is dropped. Default `DEFAULT_MAX_TEXTS` (8).
   */
  readonly maxTexts?: number;
}

/** The options `createIncrementalJsonParser` takes (the options policy: checked by name). */
export const INCREMENTAL_JSON_PARSER_OPTIONS = /* @__PURE__ */ optionNames<IncrementalJsonParserOptions>()([
  'schema',
  'discriminator',
  'maxDepth',
  'maxValueLength',
  'prefixCheck',
  'compileJsonSchema',
  'onWarning',
  'onDiagnostic',
  'maxTexts',
]);

export interface IncrementalJsonParserStats {
  /** `parse` calls. */
  readonly calls: number;
  /** Characters handed to builders, over all calls: the parsing work. */
  readonly charactersRead: number;
  /** Texts parsed from their start by a fresh builder (a new text, or one that extends none followed). */
  readonly fullParses: number;
  /** Texts followed now (at most `maxTexts`). */
  readonly texts: number;
}

/** TanStack AI's `JSONParser` shape (`StreamProcessorOptions['jsonParser']`), typed by the schema. */
export interface IncrementalJsonParser<T = unknown> {
  /** The partial value of `text` (see the file's contract); `undefined` before a document starts. */
  parse(text: string): DeepPartial<T> | undefined;
  readonly stats: IncrementalJsonParserStats;
  /** Forgets every followed text (the next call of each parses it from its start). */
  reset(): void;
}

interface Followed {
  text: string;
  readonly builder: PartialBuilder;
  value: unknown;
}

/**
 * A `jsonParser` for TanStack AI's stream processor that reads each tool call's arguments once:
 * `new StreamProcessor({ jsonParser: createIncrementalJsonParser() })`, or
 * `useChat({ streamProcessor: { jsonParser: createIncrementalJsonParser() } })`. Options are
 * checked, and the schema compiled, now: a broken one is a ConfigurationError here, not a
 * silent `undefined` per event.
 */
export function createIncrementalJsonParser<S extends SchemaInput = SchemaInput>(
  options: IncrementalJsonParserOptions<S> = {},
): IncrementalJsonParser<SchemaValue<S>> {
  checkOptionNames('createIncrementalJsonParser', options, INCREMENTAL_JSON_PARSER_OPTIONS);
  const { onDiagnostic, maxTexts = DEFAULT_MAX_TEXTS, ...rest } = options;
  if (!(Number.isSafeInteger(maxTexts) && maxTexts > 0)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `createIncrementalJsonParser: maxTexts must be a positive integer (texts followed at once), got ${String(maxTexts)}`,
    );
  }
  // Changes are not read (TanStack keeps values only), so builders record none.
  const builderOptions = namesChecked({ ...(rest as PartialOptions), trackChanges: false });
  // Compiles the schema now (cached by content, so each later builder reuses it).
  createPartialBuilder(builderOptions, { update() {}, diagnostic() {} });

  /** Most recently used first. */
  let followed: Followed[] = [];
  /** The text being read while a builder writes: its diagnostics are about this one. */
  let reading = '';
  let calls = 0;
  let charactersRead = 0;
  let fullParses = 0;

  const sink = {
    update() {},
    diagnostic(diagnostic: Diagnostic) {
      onDiagnostic?.(diagnostic, reading);
    },
  };

  /** The followed text that `text` extends, the longest when several do. */
  function extended(text: string): Followed | undefined {
    let best: Followed | undefined;
    for (const entry of followed) {
      const length = entry.text.length;
      if (length > text.length || (best !== undefined && length <= best.text.length)) continue;
      // Not `startsWith`: V8 compares a rope (a text built by `+=`, as TanStack builds it) one
      // character at a time there, about 40 times slower than equality of a substring.
      if (text.substring(0, length) === entry.text) best = entry;
    }
    return best;
  }

  function parse(text: string): DeepPartial<SchemaValue<S>> | undefined {
    calls++;
    if (typeof text !== 'string' || text === '') return undefined;
    let entry = extended(text);
    if (entry !== undefined && entry.text.length === text.length) {
      touch(entry);
      return entry.value as DeepPartial<SchemaValue<S>> | undefined;
    }
    const from = entry === undefined ? 0 : entry.text.length;
    if (entry === undefined) {
      fullParses++;
      entry = { text: '', builder: createPartialBuilder(builderOptions, sink), value: undefined };
      followed.unshift(entry);
      if (followed.length > maxTexts) followed.pop();
    } else {
      touch(entry);
    }
    reading = text;
    try {
      entry.builder.write(from === 0 ? text : text.slice(from));
    } catch (error) {
      // Only onDiagnostic throws here; the builder stopped mid-write, so it cannot go on.
      followed = followed.filter((other) => other !== entry);
      throw error;
    }
    charactersRead += text.length - from;
    entry.text = text;
    entry.value = entry.builder.value;
    return entry.value as DeepPartial<SchemaValue<S>> | undefined;
  }

  function touch(entry: Followed): void {
    if (followed[0] === entry) return;
    followed = [entry, ...followed.filter((other) => other !== entry)];
  }

  return {
    parse,
    get stats() {
      return { calls, charactersRead, fullParses, texts: followed.length };
    },
    reset() {
      followed = [];
    },
  };
}
