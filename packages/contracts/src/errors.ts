/**
 * The two classes of failure a contract distinguishes.
 *
 * - Before any model is called: `ContractConfigurationError` — the setup is wrong (a JSON
 *   prompt without a schema, a reference that resolves to nothing, a file that is not a JSON
 *   Schema, variables that are not an object). Fix the configuration; retrying cannot help.
 * - After the call: a failed outcome (`ContractValidationError` when thrown by `invoke`) — the
 *   model's answer is not JSON or does not match. Retry, fall back to another model, or report.
 */

import { type Diagnostic, LlmjsonError, type SchemaError } from '@llmjson/core';
import { quoteInput } from '@llmjson/core/internal';

export const ContractErrorCode = {
  /** A JSON or JSONL prompt declares neither `schema` nor `schema_ref`. */
  schemaRefMissing: 'SCHEMA_REF_MISSING',
  /** A schema reference is not dot-separated segments of letters, digits, `_` and `-`, or escapes its root. */
  schemaRefInvalid: 'SCHEMA_REF_INVALID',
  /** No search root holds the file a reference names. */
  schemaNotFound: 'SCHEMA_NOT_FOUND',
  /** The schema file is not UTF-8, not JSON, or not a valid JSON Schema. */
  schemaInvalid: 'SCHEMA_INVALID',
  /** The prompt configuration has the wrong shape (or the id is unknown). */
  promptInvalid: 'PROMPT_INVALID',
  /** The variables are not a JSON object, or the template names one that is not given. */
  variablesInvalid: 'VARIABLES_INVALID',
} as const;
export type ContractErrorCode = (typeof ContractErrorCode)[keyof typeof ContractErrorCode];

export interface ContractErrorDetails {
  readonly promptId?: string;
  readonly ref?: string;
  readonly file?: string;
  readonly cause?: unknown;
}

/**
 * Longest message of a `ContractConfigurationError`, in characters: a backstop. Each piece of
 * user input a message quotes is cut to `MAX_QUOTED_LENGTH` where the message is made; this
 * bounds whatever a message repeats in full (the details keep the whole reference and file).
 */
const MAX_MESSAGE_LENGTH = 2000;

/** The setup is wrong; raised before any model is called. */
export class ContractConfigurationError extends LlmjsonError {
  override readonly name: string = 'ContractConfigurationError';
  declare readonly code: ContractErrorCode;
  readonly promptId: string | undefined;
  readonly ref: string | undefined;
  readonly file: string | undefined;
  constructor(code: ContractErrorCode, message: string, details: ContractErrorDetails = {}) {
    super(
      code,
      quoteInput(message, MAX_MESSAGE_LENGTH),
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.promptId = details.promptId;
    this.ref = details.ref;
    this.file = details.file;
  }
}

/** Why an answer failed its contract. */
export const FailureDetail = {
  /** No JSON document could be read from the answer. */
  notJson: 'NOT_JSON',
  /** The document does not match the schema. */
  schemaMismatch: 'SCHEMA_MISMATCH',
} as const;
export type FailureDetail = (typeof FailureDetail)[keyof typeof FailureDetail];

/** The outcome of an answer that did not meet its contract. */
export interface ContractFailure {
  readonly status: 'failed';
  readonly reason: 'CONTRACT_VALIDATION_FAILED';
  readonly detail: FailureDetail;
  /** One line: `at /sections/0/start_line: must be integer`, or why it is not JSON. */
  readonly message: string;
  /** The validator's errors, with JSON-pointer paths (SCHEMA_MISMATCH only). */
  readonly errors: readonly SchemaError[];
}

/**
 * `failFast`'s outcome: the answer broke its contract while it streamed — a JSONL line that
 * fails its schema, a JSON value that no completion can make valid (a `violation`), or a
 * closed part of the document that fails its sub-schema — and the call was ended there.
 * (A detail of its own rather than a new `FailureDetail`, so that the outcomes of
 * `parseJsonResponse`, which never stops early, keep their two details.)
 */
export interface ContractViolation {
  readonly status: 'failed';
  readonly reason: 'CONTRACT_VALIDATION_FAILED';
  readonly detail: 'SCHEMA_VIOLATION';
  /** `at /items/0/id (type): must be integer`, with the line for JSONL. */
  readonly message: string;
  /** JSON Pointer of the offending value (`` for the root); inside the line's object for JSONL. */
  readonly path: string;
  /** The schema rule broken (`type`, `enum`, `required`, `additionalProperties`…). */
  readonly rule: string;
  readonly errors: readonly SchemaError[];
  /** The engine's diagnostic that ended the call. */
  readonly diagnostic: Diagnostic;
}

/** The outcome of an answer cut off at the token limit: never repaired into a complete one. */
export interface IncompleteAnswer {
  readonly status: 'incomplete';
  readonly reason: 'INCOMPLETE';
  /** The provider's finish reason (`length`, `max_tokens`, …). */
  readonly finishReason: string;
  readonly message: string;
}

/** Thrown by `invoke` when the answer failed its contract or was cut off; `outcome` says which. */
export class ContractValidationError extends LlmjsonError {
  override readonly name: string = 'ContractValidationError';
  /** The outcome's reason: `CONTRACT_VALIDATION_FAILED`, or `INCOMPLETE` for an answer cut off. */
  declare readonly code: 'CONTRACT_VALIDATION_FAILED' | 'INCOMPLETE';
  readonly outcome: ContractFailure | ContractViolation | IncompleteAnswer;
  /** The model's answer as it arrived (the last attempt's, after retries). */
  readonly text: string;
  constructor(outcome: ContractFailure | ContractViolation | IncompleteAnswer, text: string, promptId?: string) {
    super(
      outcome.reason,
      `${promptId === undefined ? '' : `prompt "${quoteInput(promptId)}": `}${
        outcome.status === 'failed' ? `${outcome.detail}: ${outcome.message}` : outcome.message
      }`,
    );
    this.outcome = outcome;
    this.text = text;
  }
}
