/**
 * What the three outputs share: following the text the AI SDK hands them, the side channel for
 * diagnostics, fail fast, and the error an unusable answer becomes.
 *
 * Contract:
 * - The AI SDK calls an output's `parsePartialOutput({ text })` with the whole text of the step
 *   so far, once per text chunk. `TextFollower.next(text)` returns only what was not read yet
 *   (the text past the previous call's length), so each character reaches an llmjson engine
 *   once. A text that does not extend the previous one — shorter, or whose last characters
 *   before the previous length differ (a new step, a retried attempt, a second call with the
 *   same output object) — restarts: the whole text is returned with `restarted: true`, and the
 *   caller makes a new engine (the fallback is a full parse, never a wrong partial).
 * - Every diagnostic goes to `onDiagnostic`, in input order, once.
 * - With `failFast`, the first violation (`schema` or `violation`: core's fail-fast rule)
 *   aborts `abortController` with a `ContractViolationError` — the controller whose `signal`
 *   the user passed to `streamText` as `abortSignal`, so the model call stops — and is kept:
 *   the output then gives no more partials, and its final parse throws.
 *
 * Why the tail check and not a full prefix comparison: comparing the whole previous text per
 * chunk would be the quadratic work this package exists to remove. The AI SDK only ever appends
 * within a step (stream-text.ts: `text += chunk.text`) and resets at a step or retry boundary,
 * which a shorter text or a changed tail reveals.
 */

import { type Abortable, ContractViolationError, type Diagnostic, type SchemaInput } from '@llmjson/core';
import { checkFailFastOptions, isStandardSchema, isViolation, jsonSchemaOf } from '@llmjson/core/internal';
import {
  type FinishReason,
  type LanguageModelResponseMetadata,
  type LanguageModelUsage,
  NoObjectGeneratedError,
} from 'ai';

/** Characters of the previous text compared to tell an extension from a restart. */
const TAIL = 32;

export class TextFollower {
  #length = 0;
  #tail = '';

  /** Characters read so far (of the current text). */
  get length(): number {
    return this.#length;
  }

  next(text: string): { readonly text: string; readonly restarted: boolean } {
    const length = this.#length;
    const extends_ =
      text.length >= length && (length === 0 || text.slice(length - this.#tail.length, length) === this.#tail);
    const fresh = extends_ ? (length === 0 ? text : text.slice(length)) : text;
    this.#length = text.length;
    this.#tail = text.slice(Math.max(0, text.length - TAIL));
    return { text: fresh, restarted: !extends_ || length === 0 };
  }

  /** True when `text` is exactly the text read so far (the final parse of a streamed answer). */
  isAt(text: string): boolean {
    return (
      this.#length > 0 && text.length === this.#length && text.slice(Math.max(0, text.length - TAIL)) === this.#tail
    );
  }
}

/** The options every output takes for diagnostics and fail fast. */
export interface OutputRunOptions {
  /** Called with each diagnostic (a dropped line, a violation, a salvaged answer), in input order. */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
  /**
   * Stop at the first contract violation (a `schema` or `violation` diagnostic): the output
   * gives no more partials, `abortController` is aborted with the `ContractViolationError`, and
   * the final parse throws `NoObjectGeneratedError` with it as `cause`. Default `false`: a
   * violation is reported and the answer is still read (the final value is validated anyway).
   */
  readonly failFast?: boolean;
  /**
   * Aborted with the `ContractViolationError` the moment `failFast` stops: create an
   * `AbortController`, pass its `signal` to `streamText` as `abortSignal`, and the controller
   * here, so the model call stops generating. Used only with `failFast: true`.
   */
  readonly abortController?: Abortable;
}

/** Delivers diagnostics and applies fail fast, for one run of an output. */
export class DiagnosticChannel {
  readonly #options: OutputRunOptions;
  #failure: ContractViolationError | undefined;

  constructor(options: OutputRunOptions) {
    checkFailFastOptions(options);
    this.#options = options;
  }

  /** The violation that stopped the run under `failFast`, once there is one. */
  get failure(): ContractViolationError | undefined {
    return this.#failure;
  }

  report(diagnostic: Diagnostic): void {
    if (this.#failure !== undefined) return;
    this.#options.onDiagnostic?.(diagnostic);
    if (this.#options.failFast === true && isViolation(diagnostic)) {
      this.#failure = new ContractViolationError(diagnostic);
      this.#options.abortController?.abort(this.#failure);
    }
  }

  /** A new run (a new step or attempt): fail fast starts over. */
  reset(): void {
    this.#failure = undefined;
  }
}

/** What the AI SDK hands `parseCompleteOutput` beside the text. */
export interface CompleteContext {
  readonly response: Omit<LanguageModelResponseMetadata, 'messages' | 'body'>;
  readonly usage: LanguageModelUsage;
  readonly finishReason: FinishReason;
}

/** One line that names the reason, where, and what to fix. */
export function describe(diagnostic: Diagnostic): string {
  const where = diagnostic.line === undefined ? `offset ${diagnostic.offset}` : `line ${diagnostic.line}`;
  const path = diagnostic.path === undefined ? '' : ` at ${diagnostic.path === '' ? '/' : diagnostic.path}`;
  return `llmjson ${diagnostic.reason}${path} (${where}): ${diagnostic.message}`;
}

/** The AI SDK's own error for an answer that gives no output, so `NoObjectGeneratedError.isInstance` holds. */
export function noObject(text: string, context: CompleteContext, cause: Error | Diagnostic): NoObjectGeneratedError {
  const error = cause instanceof Error ? cause : new Error(describe(cause));
  return new NoObjectGeneratedError({
    message: `No object generated: ${error.message}`,
    cause: error,
    text,
    response: context.response,
    usage: context.usage,
    finishReason: context.finishReason,
  });
}

/** The JSON Schema to hand the provider: the schema itself, or a Standard Schema's export (none without one). */
export function jsonSchemaFor(schema: SchemaInput | undefined): Record<string, unknown> | undefined {
  if (schema === undefined) return undefined;
  const json = isStandardSchema(schema) ? jsonSchemaOf(schema) : schema;
  return typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : undefined;
}
