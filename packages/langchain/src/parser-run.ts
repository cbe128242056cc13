/**
 * What the three LangChain parsers share: the text of a chunk, the side channel for
 * diagnostics, the exception a broken answer becomes, and the format instructions.
 *
 * Contract:
 * - A chunk's text is read once, from the chunk alone (a string, or a message's `.text`, which
 *   joins the text blocks of a content array): nothing here ever concatenates chunks, so the
 *   parsers feed each character to an llmjson engine exactly once (the engines then keep their
 *   own state; see the parsers' files).
 * - Every diagnostic goes, in input order, to the `onDiagnostic` option and, when the parser
 *   runs inside a LangChain run (`invoke`, `stream`, `streamEvents`, a callback handler), to
 *   that run as the custom event `llmjson_diagnostic` (decision 035): LangChain's own channel
 *   for data beside a run's output, which `streamEvents` shows as `on_custom_event` and
 *   LangSmith records, so dropped lines are never silent and never mixed into the values.
 * - A diagnostic that decides the answer is unusable becomes an `LlmjsonOutputParserException`
 *   (an `OutputParserException`, so LangChain's retry and fixing parsers treat it as one) that
 *   carries the diagnostic itself and the model's text.
 */

import type { CallbackManagerForChainRun } from '@langchain/core/callbacks/manager';
import type { BaseMessage } from '@langchain/core/messages';
import { OutputParserException } from '@langchain/core/output_parsers';
import type { Diagnostic, SchemaInput } from '@llmjson/core';
import { isStandardSchema, jsonSchemaOf } from '@llmjson/core/internal';

/** The name of the custom event each diagnostic is dispatched as, on the parser's run. */
export const DIAGNOSTIC_EVENT = 'llmjson_diagnostic';

/** The text of one chunk: a string, or a message's text (its text blocks, joined). */
export function chunkText(chunk: string | BaseMessage): string {
  return typeof chunk === 'string' ? chunk : chunk.text;
}

/**
 * An answer the parser could not turn into its output: a prefix that breaks the schema, a
 * document that does not match it, text that is not JSON or was cut off. `diagnostic` is
 * llmjson's account of it (reason, offset, excerpt, the validator's errors); `llmOutput` the
 * model's text so far; `observation` what to tell the model if the answer is sent back.
 */
export class LlmjsonOutputParserException extends OutputParserException {
  readonly diagnostic: Diagnostic;

  constructor(diagnostic: Diagnostic, llmOutput: string) {
    const message = describe(diagnostic);
    super(message, llmOutput, message);
    this.name = 'LlmjsonOutputParserException';
    this.diagnostic = diagnostic;
  }
}

/** One line that names the reason, where, and the validator's first errors. */
export function describe(diagnostic: Diagnostic): string {
  const where = diagnostic.line === undefined ? `offset ${diagnostic.offset}` : `line ${diagnostic.line}`;
  const path = diagnostic.path === undefined ? '' : ` at ${diagnostic.path === '' ? '/' : diagnostic.path}`;
  return `llmjson ${diagnostic.reason}${path} (${where}): ${diagnostic.message}`;
}

/**
 * Delivers diagnostics to the option and to the run, in order. The run's handlers are awaited
 * (a handler may be async, such as a tracer), so the events keep the order of the input.
 */
export class DiagnosticChannel {
  readonly #onDiagnostic: ((diagnostic: Diagnostic) => void) | undefined;
  readonly #run: CallbackManagerForChainRun | undefined;

  constructor(
    onDiagnostic: ((diagnostic: Diagnostic) => void) | undefined,
    run: CallbackManagerForChainRun | undefined,
  ) {
    this.#onDiagnostic = onDiagnostic;
    this.#run = run;
  }

  async report(diagnostic: Diagnostic): Promise<void> {
    this.#onDiagnostic?.(diagnostic);
    await this.#run?.handleCustomEvent(DIAGNOSTIC_EVENT, diagnostic);
  }
}

/**
 * The model's text kept for the exception only: the chunks are held as they came and joined
 * once, when an exception needs them (never per chunk).
 */
export class AnswerText {
  readonly #chunks: string[] = [];

  add(text: string): void {
    if (text !== '') this.#chunks.push(text);
  }

  toString(): string {
    return this.#chunks.join('');
  }
}

/** The schema as a JSON Schema, for the format instructions (a Standard Schema's export, when it has one). */
function jsonSchemaFor(schema: SchemaInput | undefined): unknown {
  if (schema === undefined) return undefined;
  return isStandardSchema(schema) ? jsonSchemaOf(schema) : schema;
}

/** The instructions for the prompt: what to answer with, and the schema when there is one. */
export function formatInstructions(what: string, schema: SchemaInput | undefined): string {
  const json = jsonSchemaFor(schema);
  if (json === undefined) return `${what}.`;
  return `${what}, matching this JSON Schema:\n\`\`\`json\n${JSON.stringify(json)}\n\`\`\``;
}

/**
 * The lists `joinLists` made: only these are appended to in place. LangChain concatenates a
 * stream's chunks for its traces (`_concatOutputChunks`) one chunk at a time, and joining lists
 * by copying would cost quadratic time in the chunks; a chunk that was yielded is never changed.
 */
const traceLists = new WeakSet<object>();

/** `first` then `second`, appending to `first` only when it is a trace list made here. */
export function joinLists<T>(first: T, second: T): T {
  if (!Array.isArray(first) || !Array.isArray(second)) return second;
  const joined = traceLists.has(first) ? first : [...first];
  traceLists.add(joined);
  for (const item of second) joined.push(item);
  return joined as T;
}
