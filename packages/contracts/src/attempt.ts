/**
 * One attempt of a prompt call: the model called once, its answer read chunk by chunk into the
 * engine of its response type, and decided into an envelope.
 *
 * Contract: `runAttempt` yields the answer's values as they complete (text chunks; JSONL lines;
 * a JSON array's elements, or the document once parsed), in the answer's order, and returns the
 * `Attempt`. It never throws for the model's answer: an engine that throws on it (a validator
 * bug) stops streaming and the outcome is decided without it. What the model function, its
 * stream and `onDiagnostic` throw reaches the caller unchanged, and so does a schema's
 * `ConfigurationError` (a Standard Schema that validates asynchronously). With `failFast`, the
 * first violation (fail fast's own `isViolation`) ends the reading, aborts the model's request
 * through the attempt's own signal (linked to the caller's) and closes the answer's stream;
 * nothing found after it is delivered or reported.
 *
 * Its own file: the prompt runner (prompt-manager.ts) decides what to call and how often
 * (retries, corrections, the stream's pump); this file reads one answer. The chunk loop stays
 * inline in `runAttempt`, the one per-chunk path; every other step is a method of `AnswerCheck`.
 */

import {
  type CoerceOption,
  ConfigurationError,
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  type Diagnostic,
  type ElementScanner,
  extractJson,
  type JsonlDecoder,
  type PartialBuilder,
  type SchemaInput,
} from '@llmjson/core';
import { NODE_DEFAULTS, withNodeDefaults } from '@llmjson/core/ajv';
import {
  excerptAround,
  isStandardSchema,
  isViolation,
  jsonSchemaOf,
  namesChecked,
  violationOf,
} from '@llmjson/core/internal';
import type { Correction } from './correction.js';
import { documentStart } from './document-start.js';
import {
  createEnvelope,
  type Envelope,
  type EnvelopeError,
  type EnvelopeInput,
  type EnvelopeSchema,
} from './envelope.js';
import type { ContractViolation } from './errors.js';
import {
  type Llm,
  type LlmMessage,
  type LlmRequest,
  type LlmResult,
  normalizeLlmResult,
  type ResponseType,
} from './llm.js';
import { incompleteOutcome, isTruncated, parseJsonResponse } from './responses.js';

/** A call, resolved before the model runs (the prompt runner's `prepare`). */
export interface Prepared {
  readonly id: string;
  /** The first attempt's request, without signal, attempt and messages. */
  readonly request: LlmRequest;
  readonly signal: AbortSignal | undefined;
  readonly failFast: boolean;
  readonly retries: number;
  readonly correction: Correction | undefined;
  readonly responseType: ResponseType;
  readonly schema: SchemaInput | undefined;
  readonly schemaRef: string | undefined;
  /** The envelope's schema section, for a Standard Schema. */
  readonly schemaSection: EnvelopeSchema | undefined;
  readonly discriminator: string | false | undefined;
  /** The `coerce` option of a json or jsonl prompt, when it turns any coercion on. */
  readonly coerce: CoerceOption | undefined;
}

/** One call of the model, as the prompt runner needs it. */
export interface Attempt {
  /** What its envelope was made from (to add `attempts` to). */
  readonly input: EnvelopeInput;
  readonly envelope: Envelope;
  /** The answer as it came (as far as it was read). */
  readonly text: string;
  /** What failed, when something was read. */
  readonly invalid?: { readonly value: unknown };
}

/** The runner's options an attempt reads. */
export interface AttemptOptions {
  readonly tolerate?: 'fence-and-prose' | 'none' | undefined;
  readonly onDiagnostic?:
    | ((diagnostic: Diagnostic, promptId: string, context: { readonly attempt: number }) => void)
    | undefined;
}

/**
 * Calls the model once with `messages` and reads its answer: yields values as they complete,
 * returns the attempt (see the file's comment).
 */
export async function* runAttempt(
  prepared: Prepared,
  llm: Llm,
  attempt: number,
  messages: readonly LlmMessage[],
  options: AttemptOptions,
): AsyncGenerator<unknown, Attempt> {
  const check = new AnswerCheck(prepared, attempt, options);
  const call = linkedController(prepared.signal);
  let stopped = false;
  let result: LlmResult;
  try {
    const request: LlmRequest = { ...prepared.request, signal: call.signal, attempt, messages: [...messages] };
    const normalized = normalizeLlmResult(await llm(request));
    result = normalized.result;
    const iterator = normalized.chunks[Symbol.asyncIterator]();
    let open = true;
    try {
      for (;;) {
        let step: IteratorResult<string>;
        try {
          step = await iterator.next();
        } catch (error) {
          open = false;
          throw error;
        }
        if (step.done === true) {
          open = false;
          break;
        }
        check.write(step.value);
        while (check.ready.length > 0) yield check.ready.shift();
        const violation = check.violation;
        if (violation !== undefined) {
          // Stop the model: the client closes its connection, and nothing more is read.
          stopped = true;
          call.abort(new Error(`failFast: ${violation.message}`));
          break;
        }
      }
    } finally {
      // Stopped early (failFast, or the consumer left): close the answer's stream.
      if (open) await iterator.return?.()?.catch(() => undefined);
    }
  } finally {
    call.unlink();
  }
  if (!stopped) {
    check.end();
    while (check.ready.length > 0) yield check.ready.shift();
  }
  const decided = check.decide(result);
  if (decided.yields !== undefined) yield decided.yields.value;
  return decided.attempt;
}

/** The attempt's own abort signal: the caller's aborts it (until `unlink`), and so does `abort`. */
function linkedController(callerSignal: AbortSignal | undefined): {
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
  unlink(): void;
} {
  const controller = new AbortController();
  const forward = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) forward();
  else callerSignal?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    unlink: () => callerSignal?.removeEventListener('abort', forward),
  };
}

/**
 * Whether a JSON document's elements stream one by one: its schema (a Standard Schema's export)
 * is an array (`type: 'array'`, or no `type`) whose elements all have one schema, `items` (an
 * object or `true`), and no `prefixItems`. A tuple, an array without `items` and anything
 * else stream the document whole: the element scanner checks every element against `items`.
 */
export function streamsArrayElements(input: SchemaInput | undefined): boolean {
  const schema = input !== undefined && isStandardSchema(input) ? jsonSchemaOf(input) : input;
  if (typeof schema !== 'object') return false;
  const items = schema.items;
  return (
    (schema.type === 'array' || schema.type === undefined) &&
    schema.prefixItems === undefined &&
    (items === true || (typeof items === 'object' && items !== null && !Array.isArray(items)))
  );
}

/** Shortest excerpt of a builder's diagnostic kept as it is, in characters. */
const MIN_EXCERPT = 20;

/** What `decide` makes of an answer: the attempt, and the document to yield last, if any. */
interface Decided {
  readonly attempt: Attempt;
  readonly yields?: { readonly value: unknown };
}

/**
 * One answer's engines and what they found: `write` each chunk, `end` once the answer has ended
 * (not after a failFast stop), take what is `ready` after each, and `decide` the outcome.
 */
class AnswerCheck {
  /** Values complete and not yet yielded, in order. */
  readonly ready: unknown[] = [];
  readonly #prepared: Prepared;
  readonly #options: AttemptOptions;
  readonly #context: { readonly attempt: number };
  /** The Node defaults (ajv, withCoercion: decision 031) with the prompt's schema options. */
  readonly #schemaOptions: ReturnType<typeof withNodeDefaults>;
  /** JSONL: the valid lines. */
  readonly #values: unknown[] = [];
  readonly #diagnostics: Diagnostic[] = [];
  /** What the builder reads of the answer (failFast on a JSON document). */
  readonly #toBuilder = documentStart();
  /** Whether the JSON document's elements stream (then it is not yielded whole). */
  readonly #streamsElements: boolean;
  #text = '';
  /** The JSONL decoder or the element scanner; gone once it threw. */
  #engine: JsonlDecoder | ElementScanner | undefined;
  /** failFast on a JSON document: a partial builder finds violations while it streams. */
  #builder: PartialBuilder | undefined;
  /** failFast: the first diagnostic that proves the answer breaks its contract. */
  #violation: Diagnostic | undefined;
  /** The caller's own exception, told apart from one the engine raised on the answer. */
  #callbackFailure: { error: unknown } | undefined;
  /** Why the engine stopped, when it threw on the answer. */
  #engineFailure: string | undefined;

  constructor(prepared: Prepared, attempt: number, options: AttemptOptions) {
    this.#prepared = prepared;
    this.#options = options;
    this.#context = { attempt };
    const { schema, discriminator, coerce, responseType } = prepared;
    // Every engine coerces alike: JSONL lines, array elements, the document (and the failFast
    // builder, whose prefix checks then skip what coercion repairs).
    this.#schemaOptions = withNodeDefaults({
      ...(schema === undefined ? {} : { schema }),
      ...(discriminator === undefined ? {} : { discriminator }),
      ...(coerce === undefined ? {} : { coerce }),
    });
    this.#engine =
      responseType === 'jsonl'
        ? this.#jsonlDecoder()
        : responseType === 'json' && streamsArrayElements(schema)
          ? this.#elementScanner()
          : undefined;
    this.#streamsElements = this.#engine !== undefined && responseType === 'json';
    this.#builder = prepared.failFast && responseType === 'json' ? this.#documentBuilder() : undefined;
  }

  /** The failFast violation that ends the reading, once found. */
  get violation(): Diagnostic | undefined {
    return this.#violation;
  }

  /** Reads the next chunk of the answer. */
  write(chunk: string): void {
    this.#text += chunk;
    this.#watch(chunk);
    const engine = this.#engine;
    if (engine !== undefined) this.#feed(() => engine.write(chunk));
    else if (this.#prepared.responseType === 'text') this.ready.push(chunk);
  }

  /** The answer has ended: its engines see the end. */
  end(): void {
    const engine = this.#engine;
    if (engine !== undefined) this.#feed(() => engine.end());
    this.#watch(undefined);
  }

  /** Records a diagnostic and tells `onDiagnostic`; what the callback throws is the caller's. */
  #report(d: Diagnostic): void {
    this.#diagnostics.push(d);
    try {
      this.#options.onDiagnostic?.(d, this.#prepared.id, this.#context);
    } catch (error) {
      this.#callbackFailure = { error };
      throw error;
    }
  }

  /** True for the first violation of a failFast call. */
  #violates(d: Diagnostic): boolean {
    return this.#prepared.failFast && this.#violation === undefined && isViolation(d);
  }

  /** JSONL: valid lines become ready; with failFast, the first violation ends the answer. */
  #jsonlDecoder(): JsonlDecoder {
    // failFast: a line is checked while it streams too, so the call ends before it completes (not
    // under coerce: the decoder then checks lines once complete, as a coercible line breaks the
    // schema in its text yet is delivered).
    const options = {
      ...this.#schemaOptions,
      prefixCheck: this.#prepared.failFast,
      prefixCheckWith: NODE_DEFAULTS.linePrefixCheck,
    };
    return createJsonlDecoder(options, {
      value: (value) => {
        if (this.#violation !== undefined) return;
        this.#values.push(value);
        this.ready.push(value);
      },
      diagnostic: (d) => {
        if (this.#violation !== undefined) return;
        if (this.#violates(d)) this.#violation = d;
        this.#report(d);
      },
    });
  }

  /** A JSON array whose elements share one schema: each valid element becomes ready. */
  #elementScanner(): ElementScanner {
    return createElementScanner(this.#schemaOptions, {
      value: (element) => {
        if (this.#violation === undefined) this.ready.push(element.value);
      },
      // Delivered as the elements stream (a failed or cut element), except a coercion's repair:
      // the document's own parse reports each once, with its path in the document.
      diagnostic: (d) => {
        if (this.#violation !== undefined || d.reason === 'recovered') return;
        this.#report(d);
      },
    });
  }

  /** failFast on a JSON document: a builder that reports only the first violation. */
  #documentBuilder(): PartialBuilder {
    return createPartialBuilder(
      { ...this.#schemaOptions, snapshots: false },
      {
        update() {},
        diagnostic: (d) => {
          if (!this.#violates(d)) return;
          // The builder's offsets count from the document's start: made the answer's. A short
          // excerpt gets the answer's text around the place (as far as it has arrived).
          const offset = d.offset + this.#toBuilder.skipped;
          const violation = {
            ...d,
            offset,
            ...(d.excerpt.length >= MIN_EXCERPT ? {} : { excerpt: excerptAround(this.#text, offset) }),
          };
          this.#violation = violation;
          this.#report(violation);
        },
      },
    );
  }

  /** Runs an engine's step; returns what it threw on the answer (the caller's and the schema's rethrown). */
  #guarded(step: () => void): unknown {
    try {
      step();
      return undefined;
    } catch (error) {
      if (this.#callbackFailure !== undefined && this.#callbackFailure.error === error) throw error;
      if (error instanceof ConfigurationError) throw error; // the schema's (async validation), not the answer's
      return error;
    }
  }

  /** Feeds the engine: one that throws on the answer stops streaming, and the outcome is decided without it. */
  #feed(step: () => void): void {
    const error = this.#guarded(step);
    if (error === undefined) return;
    this.#engine = undefined;
    this.#engineFailure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }

  /** Feeds the builder (`undefined`: the end). It only watches: when it fails, the answer is decided as without failFast. */
  #watch(chunk: string | undefined): void {
    const watching = this.#builder;
    if (watching === undefined) return;
    const text = chunk === undefined ? undefined : this.#toBuilder.read(chunk);
    if (chunk !== undefined && text === '') return;
    if (this.#guarded(() => (text === undefined ? watching.end() : watching.write(text))) !== undefined)
      this.#builder = undefined;
  }

  /** The outcome of the answer read: a violation, else by response type. */
  decide(result: LlmResult): Decided {
    const { responseType } = this.#prepared;
    if (this.#violation !== undefined) return { attempt: this.#violated(result, this.#violation) };
    if (responseType === 'text') return { attempt: this.#textAnswer(result) };
    if (responseType === 'jsonl') return { attempt: this.#jsonlAnswer(result) };
    return this.#jsonAnswer(result);
  }

  /** What every envelope of this answer says. */
  #base(result: LlmResult) {
    return {
      responseType: this.#prepared.responseType,
      schemaRef: this.#prepared.schemaRef,
      schema: this.#prepared.schemaSection,
      text: this.#text,
      model: result.model,
      provider: result.provider,
      usage: result.usage,
      finishReason: result.finishReason,
    };
  }

  #done(input: EnvelopeInput, invalid?: { value: unknown }): Attempt {
    return { input, envelope: createEnvelope(input), text: this.#text, ...(invalid === undefined ? {} : { invalid }) };
  }

  /** failFast ended the call: failed, SCHEMA_VIOLATION, with the value that failed as far as it came. */
  #violated(result: LlmResult, violation: Diagnostic): Attempt {
    const value = this.#prepared.responseType === 'jsonl' ? lineValue(this.#text, violation) : this.#builder?.value;
    const found = violationOutcome(violation, value);
    return this.#done(
      {
        ...this.#base(result),
        status: 'failed',
        diagnostics: this.#diagnostics,
        error: {
          reason: found.reason,
          detail: found.detail,
          message: found.message,
          ...(found.errors.length === 0 ? {} : { errors: found.errors }),
          path: found.path,
          rule: found.rule,
          diagnostic: found.diagnostic,
        },
      },
      found.invalid,
    );
  }

  /** Text: the answer, incomplete when the provider cut it off. */
  #textAnswer(result: LlmResult): Attempt {
    const incomplete = isTruncated(result.finishReason);
    return this.#done({
      ...this.#base(result),
      status: incomplete ? 'incomplete' : 'succeeded',
      ...(incomplete ? { error: incompleteError(result.finishReason as string) } : {}),
    });
  }

  /** JSONL: the valid lines (a cut-off answer keeps its complete ones); failed when the decoder threw. */
  #jsonlAnswer(result: LlmResult): Attempt {
    const base = this.#base(result);
    const diagnostics = this.#diagnostics;
    if (this.#engineFailure !== undefined) {
      return this.#done({
        ...base,
        status: 'failed',
        diagnostics,
        error: {
          reason: 'CONTRACT_VALIDATION_FAILED',
          detail: 'SCHEMA_MISMATCH',
          message: `validating the answer failed (${this.#engineFailure}); its lines could not be checked`,
        },
      });
    }
    const { finishReason } = result;
    const values = this.#values;
    const incomplete = isTruncated(finishReason);
    if (incomplete) {
      // Said even when the cut fell on a line boundary (then no line is reported as cut).
      this.#report({
        reason: 'truncated',
        offset: this.#text.length,
        excerpt: '',
        message: `the provider cut the answer off at the token limit (finish reason "${finishReason}"); the ${values.length} complete valid lines before the cut were kept`,
      });
    }
    return this.#done({
      ...base,
      status: incomplete ? 'incomplete' : 'succeeded',
      json: values,
      diagnostics,
      ...(values.length === 0 ? { warnings: ['no valid objects in the answer'] } : {}),
      ...(incomplete ? { error: incompleteError(finishReason as string) } : {}),
    });
  }

  /** JSON: the document decided on the whole answer; yielded last unless its elements streamed. */
  #jsonAnswer(result: LlmResult): Decided {
    const base = this.#base(result);
    const text = this.#text;
    const diagnostics = this.#diagnostics;
    const { tolerate } = this.#options;
    // The Node defaults in `schemaOptions` are names parseJsonResponse does not take from a user.
    const outcome = parseJsonResponse(
      text,
      namesChecked({ ...this.#schemaOptions, tolerate, finishReason: result.finishReason }),
    );
    if (outcome.status === 'succeeded') {
      for (const d of outcome.diagnostics ?? []) this.#report(d);
      // Without an element engine the document is the one value yielded (with one that failed,
      // the elements yielded before the failure stay a prefix; the envelope has the document).
      const done = this.#done({ ...base, status: 'succeeded', json: outcome.json, diagnostics });
      const attempt = done.envelope.status === 'succeeded' ? done : { ...done, invalid: { value: outcome.json } };
      return this.#streamsElements ? { attempt } : { attempt, yields: { value: outcome.json } };
    }
    const error: EnvelopeError =
      outcome.status === 'incomplete'
        ? incompleteError(outcome.finishReason)
        : {
            reason: outcome.reason,
            detail: outcome.detail,
            message: outcome.message,
            ...(outcome.errors.length === 0 ? {} : { errors: outcome.errors }),
          };
    const invalid =
      outcome.status === 'failed' && outcome.detail === 'SCHEMA_MISMATCH' ? failedDocument(text, tolerate) : undefined;
    // The elements' diagnostics (an element that failed, the cut), when the answer streamed them.
    return { attempt: this.#done({ ...base, status: outcome.status, diagnostics, error }, invalid) };
  }
}

/**
 * The failFast outcome of a violation, and a copy of the value that failed: where and which rule
 * as fail fast's own `violationOf` says, why from the validator's first error or the diagnostic.
 */
function violationOutcome(d: Diagnostic, value: unknown): ContractViolation & { invalid?: { value: unknown } } {
  const errors = d.errors ?? [];
  const first = errors[0];
  const { path, rule } = violationOf(d);
  const why = d.reason === 'schema' && first !== undefined ? first.message : d.message;
  const line = d.line === undefined ? '' : `line ${d.line}: `;
  let snapshot: unknown;
  try {
    snapshot = value === undefined ? undefined : structuredClone(value);
  } catch {
    snapshot = undefined;
  }
  return {
    status: 'failed',
    reason: 'CONTRACT_VALIDATION_FAILED',
    detail: 'SCHEMA_VIOLATION',
    message: `${line}at ${path === '' ? '/' : path} (${rule}): ${why}`,
    path,
    rule,
    errors,
    diagnostic: d,
    ...(snapshot === undefined ? {} : { invalid: { value: snapshot } }),
  };
}

/** The object on a JSONL diagnostic's line(s), when it parses. */
function lineValue(text: string, d: Diagnostic): unknown {
  if (d.line === undefined) return undefined;
  const lines = text.split('\n').slice(d.line - 1, d.endLine ?? d.line);
  try {
    return JSON.parse(lines.join('\n'));
  } catch {
    return undefined;
  }
}

/** The document a SCHEMA_MISMATCH answer was judged by (the preferred candidate), when there is one. */
function failedDocument(text: string, tolerate: AttemptOptions['tolerate']): { value: unknown } | undefined {
  try {
    if (tolerate === 'none') return { value: JSON.parse(text) };
    const found = extractJson(text);
    return found === undefined ? undefined : { value: found.value };
  } catch {
    return undefined;
  }
}

function incompleteError(finishReason: string): EnvelopeError {
  return { reason: 'INCOMPLETE', message: incompleteOutcome(finishReason).message };
}
