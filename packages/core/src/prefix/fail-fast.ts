/**
 * Fail fast: the first contract violation of a stream ends it, and the request that feeds it.
 *
 * Contract: a violation is a diagnostic whose reason is `schema` (a complete value that fails
 * its schema) or `violation` (a value still streaming that no completion can make valid).
 * Nothing else is: a prose or syntax line, a cut-off answer, a line past `maxLineLength` are
 * the noise a tolerant stream exists to skip, not proof that the model broke its contract.
 * With `failFast`, the adapters (Node and Web) turn the first violation into a
 * `ContractViolationError`: the diagnostic is reported first, values found before it are
 * delivered, nothing after it is, the stream errors with it, and `abortController` (when
 * given) is aborted with it at once, so that a `fetch` made with its signal stops the model.
 *
 * `failFast` is a boolean, not a level that could also stop at `syntax`: models open with a
 * sentence ("Here are the items:") or a fence far more often than they break a contract, and
 * those lines say nothing about the lines after them, so stopping there would throw away good
 * answers; a caller who wants that strictness stops the stream from `onDiagnostic`, and the
 * CLI's `--strict` fails the run on any dropped line at its end. A schema violation does say
 * something: the model misread the contract, and what follows is likely wrong too.
 *
 * After the violation the engine still reads the rest of the chunk that held it (its `stats`
 * count it); nothing of it is delivered or reported.
 *
 * No I/O here and no platform types: `Abortable` is the one method of `AbortController` used.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { type Diagnostic, DiagnosticReason, quoteInput } from '../diagnostics/diagnostics.js';
import { LlmjsonError } from '../diagnostics/errors.js';

/** What the error's `code` is: the same failure class as a contract's failed outcome. */
export const CONTRACT_VALIDATION_FAILED = 'CONTRACT_VALIDATION_FAILED';

/** The part of `AbortController` fail fast uses (`AbortController` itself, on any platform). */
export interface Abortable {
  abort(reason?: unknown): void;
}

/** The options every stream adapter (Node and Web) takes for fail fast. */
export interface FailFastOptions {
  /**
   * End the stream at the first contract violation (a `schema` or `violation` diagnostic):
   * the stream errors with a `ContractViolationError`, after the triggering diagnostic and
   * after every value found before it; nothing found after it is delivered. Default `false`:
   * a value that fails is skipped and reported, and the stream goes on.
   */
  readonly failFast?: boolean;
  /**
   * Aborted, with the `ContractViolationError` as its reason, the moment fail fast ends the
   * stream: pass the controller whose `signal` the request (a `fetch`) was made with, and the
   * model stops generating even when the stream is not piped from the response. Used only
   * with `failFast: true`. Default: none (piping with `pipeline` / `pipeThrough` already
   * destroys or cancels the source).
   */
  readonly abortController?: Abortable;
}

/** True for the reasons fail fast stops at: `schema` and `violation`. */
export function isViolation(diagnostic: Diagnostic): boolean {
  return diagnostic.reason === DiagnosticReason.schema || diagnostic.reason === DiagnosticReason.violation;
}

/**
 * Where a violation is and which rule it breaks: the diagnostic's own `path` and `rule`
 * (`violation`), else its first validator error's path and keyword (`schema`). The path is a
 * JSON Pointer into the value (`` for the value itself); the rule is `schema` when nothing
 * more precise is known.
 */
export function violationOf(diagnostic: Diagnostic): { readonly path: string; readonly rule: string } {
  const first = diagnostic.errors?.[0];
  return { path: diagnostic.path ?? first?.path ?? '', rule: diagnostic.rule ?? first?.keyword ?? 'schema' };
}

/** The stream ended at its first contract violation (`failFast: true`). */
export class ContractViolationError extends LlmjsonError {
  override readonly name: string = 'ContractViolationError';
  declare readonly code: typeof CONTRACT_VALIDATION_FAILED;
  /** The diagnostic that ended the stream (reason `schema` or `violation`). */
  readonly diagnostic: Diagnostic;
  /** JSON Pointer to the offending part of the value (`` for the value itself). */
  readonly path: string;
  /** The schema rule broken (`enum`, `type`, `required`, `additionalProperties`…). */
  readonly rule: string;
  constructor(diagnostic: Diagnostic) {
    const { path, rule } = violationOf(diagnostic);
    const where = diagnostic.line === undefined ? `offset ${diagnostic.offset}` : `line ${diagnostic.line}`;
    super(
      CONTRACT_VALIDATION_FAILED,
      `${CONTRACT_VALIDATION_FAILED} at ${path === '' ? 'the value' : quoteInput(path)} (${quoteInput(rule)}), ${where}: ${quoteInput(diagnostic.message, 1000)}`,
    );
    this.diagnostic = diagnostic;
    this.path = path;
    this.rule = rule;
  }
}

/** Throws ConfigurationError unless `failFast` is absent or a boolean and `abortController` absent or abortable. */
export function checkFailFastOptions(options: FailFastOptions): void {
  if (options.failFast !== undefined && typeof options.failFast !== 'boolean') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `failFast must be true or false, got ${quoteInput(String(options.failFast))}`,
    );
  }
  const controller = options.abortController as Partial<Abortable> | null | undefined;
  if (controller !== undefined && typeof controller?.abort !== 'function') {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      'abortController must be an AbortController (an object with an abort(reason) method)',
    );
  }
}

/**
 * Whether a JSONL or element stream checks the text in flight (`prefixCheck`): as the caller
 * says, else on exactly with `failFast`, so that a doomed line or element ends the stream — and
 * the request — the moment its text proves it, not when it completes. Off without `failFast`
 * for speed: on 4-character chunks the check costs the JSONL decoder 2.3× and the element
 * scanner 1.9× its time without (decision 027), a price worth paying when a violation stops the
 * stream, not to report one a little earlier. (The partial builder checks by default: there it
 * costs 1.08×.) With `failFast` and no checker (`prefixCheckWith`, which the Web streams do not
 * bundle unless imported) the engine then refuses the configuration (NO_PREFIX_CHECKER), as it
 * does for `prefixCheck: true` without one.
 */
export function prefixCheckDefault(options: FailFastOptions & { readonly prefixCheck?: boolean }): boolean {
  return options.prefixCheck ?? options.failFast === true;
}

/**
 * What both adapters do with diagnostics under fail fast. `report(d)` returns the error when
 * `d` ends the stream (once: later calls return nothing); `failure` is that error once set.
 * The controller is aborted at once, before the stream itself errors: the consumer may still
 * be reading the values found before the violation.
 */
export interface FailFast {
  readonly failure: ContractViolationError | undefined;
  check(diagnostic: Diagnostic): ContractViolationError | undefined;
}

export function createFailFast(options: FailFastOptions): FailFast | undefined {
  checkFailFastOptions(options);
  if (options.failFast !== true) return undefined;
  const controller = options.abortController;
  let failure: ContractViolationError | undefined;
  return {
    get failure() {
      return failure;
    },
    check(diagnostic) {
      if (failure !== undefined || !isViolation(diagnostic)) return undefined;
      failure = new ContractViolationError(diagnostic);
      controller?.abort(failure);
      return failure;
    },
  };
}
