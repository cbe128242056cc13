/**
 * `PartialJsonOutputParser`: LangChain's JSON output parser, incremental. In `.stream()` it
 * yields the value so far as each chunk arrives (`emit: 'values'`), llmjson's change lists
 * (`'changes'`) or RFC 6902 operations made from those changes (`'patch'`); `invoke` returns the
 * complete, validated value (or, with `'changes'`/`'patch'`, the list that builds it, which is
 * what concatenating the streamed lists gives too: LangChain's contract between the two).
 *
 * Why not LangChain's `JsonOutputParser`: its `_transform` concatenates the chunks and parses the
 * whole text again on every chunk (quadratic in the answer), compares each result with the
 * previous one whole, and its diff mode diffs whole objects. Here one partial-value builder
 * (`createPartialBuilder` from @llmjson/core) lives for the run and is fed each chunk's text
 * once: total work is linear in the answer however it is chunked (decision 035 and the tests
 * count the characters the parser reads).
 *
 * Invariants:
 * 1. Values are structurally shared snapshots (a subtree that did not change is the same
 *    object as in the previous value), never mutated after they are yielded, and never the same
 *    snapshot twice; the last one yielded is the complete document, equal to `JSON.parse` of it.
 * 2. Applying the yielded change lists in order (`applyChanges`), or the yielded patches (any
 *    RFC 6902 implementation), to `undefined` gives the same value.
 * 3. With a schema, a prefix that no completion can make valid, or a closed subtree its
 *    sub-schema rejects, ends the stream at once with an `LlmjsonOutputParserException` (the
 *    model's stream is then closed by LangChain, so it stops generating); the complete document
 *    is validated at the end. An answer that holds no complete document (cut off, broken, or no
 *    JSON at all) ends with the exception too, after the partial values it did give.
 * 4. Fences (```` ```json ````, ```` ```jsonl ````, ```` ```JSON ````, bare) and prose before
 *    the document are skipped, and anything after it is ignored. In prose the document starts
 *    after a fence line or at a line that starts with `{` or `[`, never at a bracket inside a
 *    line (`see [1]`): document-locator.ts. JSON inside a prose line is found at the end, once,
 *    by salvage (`extractJson`), and delivered then: complete, validated, no partials before it.
 */

import type { CallbackManagerForChainRun } from '@langchain/core/callbacks/manager';
import { type BaseMessage, isBaseMessage } from '@langchain/core/messages';
import { BaseTransformOutputParser } from '@langchain/core/output_parsers';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  applyChanges,
  type Change,
  createPartialBuilder,
  type DeepPartial,
  type Diagnostic,
  extractJson,
  type PartialBuilder,
  type PartialOptions,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkChoice, checkOptionNames, namesChecked, optionNames } from '@llmjson/core/internal';
import { type JsonPatchOperation, toJsonPatch } from '@llmjson/web';
import { DocumentLocator, maskedPrefix } from './document-locator.js';
import {
  AnswerText,
  chunkText,
  DiagnosticChannel,
  formatInstructions,
  joinLists,
  LlmjsonOutputParserException,
} from './parser-run.js';

/** What each streamed chunk is. */
export type JsonEmit = 'values' | 'changes' | 'patch';

/** The parser's output for a document of type `V`: a partial value, a change list, or patch operations. */
export type JsonParserOutput<V, E extends JsonEmit> = E extends 'changes'
  ? Change[]
  : E extends 'patch'
    ? JsonPatchOperation[]
    : DeepPartial<V>;

export interface PartialJsonParserOptions<S extends SchemaInput = SchemaInput, E extends JsonEmit = JsonEmit>
  extends Pick<
    PartialOptions<S>,
    | 'schema'
    | 'discriminator'
    | 'maxDepth'
    | 'maxValueLength'
    | 'prefixCheck'
    | 'snapshotBudget'
    | 'compileJsonSchema'
    | 'onWarning'
    | 'coerce'
    | 'coerceWith'
  > {
  /**
   * What `.stream()` yields: `'values'` (default) the value so far, a structurally shared
   * snapshot, once per chunk that changed it (paced for long arrays: decision 020);
   * `'changes'` llmjson's change list per chunk (`add`, `append`, `complete`); `'patch'` the
   * RFC 6902 operations those changes make (`add`, and `replace` for a string that grew).
   */
  readonly emit?: E;
  /** Called with each diagnostic, in input order (also dispatched to the run as `llmjson_diagnostic`). */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

/** The options `PartialJsonOutputParser` takes (the options policy: checked by name). */
export const PARTIAL_JSON_PARSER_OPTIONS = /* @__PURE__ */ optionNames<PartialJsonParserOptions>()([
  'schema',
  'discriminator',
  'maxDepth',
  'maxValueLength',
  'prefixCheck',
  'snapshotBudget',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'emit',
  'onDiagnostic',
]);

/** Diagnostics after which the answer cannot become a valid document. */
const FATAL: ReadonlySet<string> = new Set(['syntax', 'schema', 'violation', 'truncated', 'too-long', 'too-deep']);

/** A diagnostic for an answer that ended without a document (nothing else said why). */
function noDocument(length: number): Diagnostic {
  return {
    reason: 'truncated',
    offset: length,
    excerpt: '',
    message: 'the answer ended before a complete JSON document: ask the model for a JSON value',
  };
}

/** One entry of what a write produced, in input order. */
type Produced = { readonly item: unknown } | { readonly diagnostic: Diagnostic };

/**
 * A LangChain output parser that reads a JSON answer incrementally with llmjson: partial values
 * (or changes, or JSON Patch) as the answer streams, prefix validation against `schema`, and
 * the validated document at the end. `S` is the schema's type: a zod, valibot or arktype
 * schema types the values (`DeepPartial` of its type while streaming).
 */
export class PartialJsonOutputParser<
  S extends SchemaInput = SchemaInput,
  E extends JsonEmit = 'values',
> extends BaseTransformOutputParser<JsonParserOutput<SchemaValue<S>, E>> {
  static override lc_name(): string {
    return 'PartialJsonOutputParser';
  }

  override lc_namespace = ['llmjson', 'output_parsers'];

  readonly emit: JsonEmit;
  readonly #options: PartialJsonParserOptions<S, E>;
  readonly #builderOptions: PartialOptions;

  constructor(options: PartialJsonParserOptions<S, E> = {}) {
    super();
    checkOptionNames('PartialJsonOutputParser', options, PARTIAL_JSON_PARSER_OPTIONS);
    checkChoice('emit', options.emit, ['values', 'changes', 'patch']);
    this.emit = options.emit ?? 'values';
    this.#options = options;
    const { emit: _emit, onDiagnostic: _onDiagnostic, ...engine } = options;
    this.#builderOptions = namesChecked(engine as PartialOptions);
    // Compiles the schema now: a broken schema or option is a ConfigurationError at construction.
    createPartialBuilder(this.#builderOptions, { update() {}, diagnostic() {} });
  }

  override getFormatInstructions(): string {
    return formatInstructions('Answer with one JSON value and nothing else', this.#options.schema);
  }

  /** Reads a message's text blocks (a content array included), as LangChain's JsonOutputParser does. */
  protected override _baseMessageToString(message: BaseMessage): string {
    return chunkText(message);
  }

  /** A chunk's text, through `_baseMessageToString` for a message (a subclass may override that, as in LangChain). */
  #text(chunk: string | BaseMessage): string {
    return typeof chunk === 'string' ? chunk : this._baseMessageToString(chunk);
  }

  /** A builder for one run, whose updates and diagnostics go to `produced` in input order. */
  #builder(produced: Produced[], whole: boolean): PartialBuilder {
    const emit = this.emit;
    return createPartialBuilder(
      namesChecked({
        ...this.#builderOptions,
        // A whole text needs no snapshots (the one live tree is the result); a stream of values
        // needs paced ones (linear however long the arrays); changes and patches none.
        snapshots: !whole && emit === 'values' ? 'paced' : false,
        updateOn: emit === 'values' ? 'values' : 'changes',
        nullValue: 'value',
        trackChanges: emit !== 'values',
      }),
      {
        update(value, changes) {
          produced.push({ item: emit === 'values' ? value : changes });
        },
        diagnostic(diagnostic) {
          produced.push({ diagnostic });
        },
      },
    );
  }

  /**
   * One run: the locator, the builder, and at the end the salvage of a document the locator
   * never saw start (JSON inside a prose line), fed to a fresh builder once, offsets kept.
   */
  #run(produced: Produced[], whole: boolean) {
    const locator = new DocumentLocator();
    let builder = this.#builder(produced, whole);
    return {
      write(text: string) {
        builder.write(locator.write(text));
      },
      end: (answer: string) => {
        const found = locator.started ? undefined : extractJson(answer);
        if (found === undefined) {
          builder.end();
        } else {
          builder = this.#builder(produced, whole);
          builder.write(maskedPrefix(answer.slice(0, found.start)) + answer.slice(found.start, found.end));
          builder.end();
        }
        return builder;
      },
    };
  }

  override async *_transform(
    input: AsyncGenerator<string | BaseMessage>,
    run?: CallbackManagerForChainRun,
  ): AsyncGenerator<JsonParserOutput<SchemaValue<S>, E>> {
    const produced: Produced[] = [];
    const parse = this.#run(produced, false);
    const channel = new DiagnosticChannel(this.#options.onDiagnostic, run);
    const answer = new AnswerText();
    // Patch mode keeps the value the operations apply to (applyChanges works in place: linear).
    let state: unknown;
    const drain = async function* (this: PartialJsonOutputParser<S, E>) {
      for (let i = 0; i < produced.length; i++) {
        const entry = produced[i] as Produced;
        if ('diagnostic' in entry) {
          await channel.report(entry.diagnostic);
          if (FATAL.has(entry.diagnostic.reason)) {
            throw new LlmjsonOutputParserException(entry.diagnostic, answer.toString());
          }
          continue;
        }
        if (this.emit === 'patch') {
          const changes = entry.item as Change[];
          const operations = toJsonPatch(changes, state);
          state = applyChanges(state, changes);
          if (operations.length > 0) yield operations as JsonParserOutput<SchemaValue<S>, E>;
        } else {
          yield entry.item as JsonParserOutput<SchemaValue<S>, E>;
        }
      }
      produced.length = 0;
    }.bind(this);
    for await (const chunk of input) {
      const text = this.#text(chunk);
      answer.add(text);
      parse.write(text);
      yield* drain();
    }
    const builder = parse.end(answer.toString());
    yield* drain();
    if (!builder.complete) {
      throw new LlmjsonOutputParserException(noDocument(builder.stats.characters), answer.toString());
    }
  }

  /**
   * The whole answer at once: the document (validated), or with `'changes'`/`'patch'` the list
   * that builds it. Throws `LlmjsonOutputParserException` as the stream would.
   */
  async #parseWhole(text: string, run: CallbackManagerForChainRun | undefined): Promise<unknown> {
    const produced: Produced[] = [];
    const parse = this.#run(produced, true);
    const channel = new DiagnosticChannel(this.#options.onDiagnostic, run);
    parse.write(text);
    const builder = parse.end(text);
    const changes: Change[] = [];
    for (const entry of produced) {
      if ('diagnostic' in entry) {
        await channel.report(entry.diagnostic);
        if (FATAL.has(entry.diagnostic.reason)) throw new LlmjsonOutputParserException(entry.diagnostic, text);
      } else if (this.emit !== 'values') {
        for (const change of entry.item as Change[]) changes.push(change);
      }
    }
    if (!builder.complete) throw new LlmjsonOutputParserException(noDocument(text.length), text);
    if (this.emit === 'values') return builder.value;
    return this.emit === 'changes' ? changes : toJsonPatch(changes, undefined);
  }

  override async parse(text: string): Promise<JsonParserOutput<SchemaValue<S>, E>> {
    return (await this.#parseWhole(text, undefined)) as JsonParserOutput<SchemaValue<S>, E>;
  }

  /** As LangChain's `invoke`, with the run's handlers receiving the diagnostics. */
  override async invoke(
    input: string | BaseMessage,
    options?: RunnableConfig,
  ): Promise<JsonParserOutput<SchemaValue<S>, E>> {
    return this._callWithConfig(
      async (value: string | BaseMessage, _config?: Partial<RunnableConfig>, run?: CallbackManagerForChainRun) =>
        (await this.#parseWhole(this.#text(value), run)) as JsonParserOutput<SchemaValue<S>, E>,
      input,
      { ...options, runType: 'parser' },
    );
  }

  /**
   * LangChain concatenates a stream's chunks for its traces: the latest value stands for the
   * values (as in JsonOutputParser); change lists and patches are joined, into one list kept
   * for the trace (never into a chunk that was yielded), so the joining stays linear.
   */
  override _concatOutputChunks<T>(first: T, second: T): T {
    // The input chunks (messages) are concatenated through here too.
    if (isBaseMessage(first)) return super._concatOutputChunks(first, second);
    if (this.emit === 'values') return second;
    return joinLists(first, second);
  }
}
