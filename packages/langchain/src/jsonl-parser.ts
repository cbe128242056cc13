/**
 * `JsonlOutputParser`: a LangChain output parser for answers written one JSON object per line.
 * In `.stream()` each validated object comes out the moment its line ends, as a one-element
 * list (`[object]`, the idiom of LangChain's list parsers: the concatenated chunks are what
 * `invoke` returns, the list of every object).
 *
 * Invariants (those of `createJsonlDecoder`, which does the work):
 * 1. Chunking does not matter: the same objects and diagnostics for any split of the answer.
 * 2. Nothing is lost silently: a line that is not JSON, fails the schema or is cut off is
 *    dropped and reported (`onDiagnostic`, and the custom event `llmjson_diagnostic` on the
 *    run: decision 035) with its line number, offset, excerpt and reason; blank lines and fence
 *    lines (```` ```jsonl ````, ```` ```json ````, ```` ```JSON ````, bare) are skipped. A dropped
 *    line never ends the stream: nothing does but a broken configuration.
 * 3. Linear: each chunk's text is fed to the decoder once; it keeps only the line in flight.
 */

import type { CallbackManagerForChainRun } from '@langchain/core/callbacks/manager';
import { type BaseMessage, isBaseMessage } from '@langchain/core/messages';
import { BaseTransformOutputParser } from '@langchain/core/output_parsers';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  createJsonlDecoder,
  type Diagnostic,
  type JsonlOptions,
  linePrefixCheck,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkOptionNames, namesChecked, optionNames } from '@llmjson/core/internal';
import { chunkText, DiagnosticChannel, formatInstructions, joinLists } from './parser-run.js';

export interface JsonlParserOptions<S extends SchemaInput = SchemaInput>
  extends Pick<
    JsonlOptions<S>,
    | 'schema'
    | 'discriminator'
    | 'strict'
    | 'maxLineLength'
    | 'maxDepth'
    | 'reportSkipped'
    | 'prefixCheck'
    | 'compileJsonSchema'
    | 'onWarning'
    | 'coerce'
    | 'coerceWith'
  > {
  /** Called with each diagnostic (a dropped line among them), in input order; also dispatched to the run. */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

/** The options `JsonlOutputParser` takes (the options policy: checked by name). */
export const JSONL_PARSER_OPTIONS = /* @__PURE__ */ optionNames<JsonlParserOptions>()([
  'schema',
  'discriminator',
  'strict',
  'maxLineLength',
  'maxDepth',
  'reportSkipped',
  'prefixCheck',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'onDiagnostic',
]);

/** One entry of what a write produced, in input order. */
type Produced<V> = { readonly value: V } | { readonly diagnostic: Diagnostic };

/**
 * A LangChain output parser for JSONL answers: validated objects as their lines complete,
 * dropped lines reported. `S` types the objects (a zod, valibot or arktype schema's type).
 */
export class JsonlOutputParser<S extends SchemaInput = SchemaInput> extends BaseTransformOutputParser<
  SchemaValue<S>[]
> {
  static override lc_name(): string {
    return 'JsonlOutputParser';
  }

  override lc_namespace = ['llmjson', 'output_parsers'];

  readonly #options: JsonlParserOptions<S>;
  readonly #decoderOptions: JsonlOptions;

  constructor(options: JsonlParserOptions<S> = {}) {
    super();
    checkOptionNames('JsonlOutputParser', options, JSONL_PARSER_OPTIONS);
    this.#options = options;
    const { onDiagnostic: _onDiagnostic, ...engine } = options;
    // The prefix check is the built-in one: a parser that asks for it needs no second option.
    this.#decoderOptions = namesChecked({ ...(engine as JsonlOptions), prefixCheckWith: linePrefixCheck });
    // Compiles the schema now: a broken schema or option is a ConfigurationError at construction.
    createJsonlDecoder(this.#decoderOptions, { value() {}, diagnostic() {} });
  }

  override getFormatInstructions(): string {
    return formatInstructions(
      'Answer with JSON Lines: one JSON object per line, nothing else, no fence',
      this.#options.schema,
    );
  }

  protected override _baseMessageToString(message: BaseMessage): string {
    return chunkText(message);
  }

  /** A chunk's text, through `_baseMessageToString` for a message (a subclass may override that, as in LangChain). */
  #text(chunk: string | BaseMessage): string {
    return typeof chunk === 'string' ? chunk : this._baseMessageToString(chunk);
  }

  #decoder(produced: Produced<SchemaValue<S>>[]) {
    return createJsonlDecoder(this.#decoderOptions, {
      value(value) {
        produced.push({ value: value as SchemaValue<S> });
      },
      diagnostic(diagnostic) {
        produced.push({ diagnostic });
      },
    });
  }

  override async *_transform(
    input: AsyncGenerator<string | BaseMessage>,
    run?: CallbackManagerForChainRun,
  ): AsyncGenerator<SchemaValue<S>[]> {
    const produced: Produced<SchemaValue<S>>[] = [];
    const decoder = this.#decoder(produced);
    const channel = new DiagnosticChannel(this.#options.onDiagnostic, run);
    const drain = async function* () {
      for (let i = 0; i < produced.length; i++) {
        const entry = produced[i] as Produced<SchemaValue<S>>;
        if ('diagnostic' in entry) await channel.report(entry.diagnostic);
        else yield [entry.value];
      }
      produced.length = 0;
    };
    for await (const chunk of input) {
      decoder.write(this.#text(chunk));
      yield* drain();
    }
    decoder.end();
    yield* drain();
  }

  async #parseWhole(text: string, run: CallbackManagerForChainRun | undefined): Promise<SchemaValue<S>[]> {
    const produced: Produced<SchemaValue<S>>[] = [];
    const decoder = this.#decoder(produced);
    decoder.write(text);
    decoder.end();
    const channel = new DiagnosticChannel(this.#options.onDiagnostic, run);
    const values: SchemaValue<S>[] = [];
    for (const entry of produced) {
      if ('diagnostic' in entry) await channel.report(entry.diagnostic);
      else values.push(entry.value);
    }
    return values;
  }

  /** Every valid object of the answer; dropped lines are reported, never thrown. */
  override async parse(text: string): Promise<SchemaValue<S>[]> {
    return this.#parseWhole(text, undefined);
  }

  override async invoke(input: string | BaseMessage, options?: RunnableConfig): Promise<SchemaValue<S>[]> {
    return this._callWithConfig(
      (value: string | BaseMessage, _config?: Partial<RunnableConfig>, run?: CallbackManagerForChainRun) =>
        this.#parseWhole(this.#text(value), run),
      input,
      { ...options, runType: 'parser' },
    );
  }

  /** The trace's output is every object, joined linearly (see PartialJsonOutputParser). */
  override _concatOutputChunks<T>(first: T, second: T): T {
    if (isBaseMessage(first)) return super._concatOutputChunks(first, second);
    return joinLists(first, second);
  }
}
