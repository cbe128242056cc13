/**
 * `SalvageJsonOutputParser`: a LangChain output parser for whole answers (`invoke`, or the last
 * step of a chain that is not streamed) that finds the JSON value in text that is not clean
 * JSON: the whole text, else the first fenced block (```` ```json ````, ```` ```jsonl ````,
 * ```` ```JSON ````, bare: any info string, any case), else inline code, else a value embedded in
 * prose; with a schema, the first one in that order that validates (`extractJson` from
 * @llmjson/core, which says why in decision 006). `repair: true` also repairs near-JSON
 * (single quotes, Python literals, comments, a cut-off end) and reports it.
 *
 * Contract: `invoke`/`parse` return the value, typed by the schema, or throw an
 * `LlmjsonOutputParserException` that carries the diagnostic of the best candidate that failed
 * (its schema errors) or, when there was none, says that the answer holds no JSON. Every
 * diagnostic goes to `onDiagnostic` and, inside a run, to the custom event
 * `llmjson_diagnostic`. `.stream()` works as for any parser that does not transform: the
 * value comes once, when the answer is complete (use `PartialJsonOutputParser` for partials).
 */

import type { CallbackManagerForChainRun } from '@langchain/core/callbacks/manager';
import type { BaseMessage } from '@langchain/core/messages';
import { BaseOutputParser } from '@langchain/core/output_parsers';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  type Diagnostic,
  type ExtractJsonOptions,
  extractJson,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkOptionNames, namesChecked, optionNames } from '@llmjson/core/internal';
import { chunkText, DiagnosticChannel, formatInstructions, LlmjsonOutputParserException } from './parser-run.js';

export interface SalvageParserOptions<S extends SchemaInput = SchemaInput>
  extends Pick<
    ExtractJsonOptions<S>,
    | 'schema'
    | 'discriminator'
    | 'maxCandidateLength'
    | 'maxDepth'
    | 'strict'
    | 'repair'
    | 'compileJsonSchema'
    | 'onWarning'
    | 'coerce'
    | 'coerceWith'
  > {
  /** Called with each diagnostic (candidates that failed, repairs), in text order; also dispatched to the run. */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

/** The options `SalvageJsonOutputParser` takes (the options policy: checked by name). */
export const SALVAGE_PARSER_OPTIONS = /* @__PURE__ */ optionNames<SalvageParserOptions>()([
  'schema',
  'discriminator',
  'maxCandidateLength',
  'maxDepth',
  'strict',
  'repair',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'onDiagnostic',
]);

/** Diagnostics that say why a candidate was not the answer (the best one is in the exception). */
const FAILED: ReadonlySet<string> = new Set(['schema', 'syntax', 'truncated', 'too-long', 'too-deep']);

/** A LangChain output parser that salvages the JSON value from a whole answer. */
export class SalvageJsonOutputParser<S extends SchemaInput = SchemaInput> extends BaseOutputParser<SchemaValue<S>> {
  static override lc_name(): string {
    return 'SalvageJsonOutputParser';
  }

  override lc_namespace = ['llmjson', 'output_parsers'];

  readonly #options: SalvageParserOptions<S>;
  readonly #extractOptions: ExtractJsonOptions;

  constructor(options: SalvageParserOptions<S> = {}) {
    super();
    checkOptionNames('SalvageJsonOutputParser', options, SALVAGE_PARSER_OPTIONS);
    this.#options = options;
    const { onDiagnostic: _onDiagnostic, ...engine } = options;
    this.#extractOptions = engine as ExtractJsonOptions;
    // Compiles the schema now: a broken schema or option is a ConfigurationError at construction.
    extractJson('', this.#extractOptions);
  }

  override getFormatInstructions(): string {
    return formatInstructions('Answer with one JSON value', this.#options.schema);
  }

  protected override _baseMessageToString(message: BaseMessage): string {
    return chunkText(message);
  }

  async #parseWhole(text: string, run: CallbackManagerForChainRun | undefined): Promise<SchemaValue<S>> {
    const diagnostics: Diagnostic[] = [];
    const found = extractJson(
      text,
      namesChecked({
        ...this.#extractOptions,
        onDiagnostic(diagnostic: Diagnostic) {
          diagnostics.push(diagnostic);
        },
      }),
    );
    const channel = new DiagnosticChannel(this.#options.onDiagnostic, run);
    for (const diagnostic of diagnostics) await channel.report(diagnostic);
    if (found !== undefined) return found.value as SchemaValue<S>;
    const failed = diagnostics.find((d) => d.reason === 'schema') ?? diagnostics.find((d) => FAILED.has(d.reason));
    throw new LlmjsonOutputParserException(
      failed ?? {
        reason: 'syntax',
        offset: 0,
        excerpt: text.slice(0, 80),
        message:
          'the answer holds no JSON value (whole, fenced, in inline code or in prose): ask the model for JSON, or pass repair: true for near-JSON',
      },
      text,
    );
  }

  override async parse(text: string): Promise<SchemaValue<S>> {
    return this.#parseWhole(text, undefined);
  }

  override async invoke(input: string | BaseMessage, options?: RunnableConfig): Promise<SchemaValue<S>> {
    return this._callWithConfig(
      (value: string | BaseMessage, _config?: Partial<RunnableConfig>, run?: CallbackManagerForChainRun) =>
        this.#parseWhole(typeof value === 'string' ? value : this._baseMessageToString(value), run),
      input,
      { ...options, runType: 'parser' },
    );
  }
}
