/**
 * The prompt runner: renders a configured prompt, calls the user's model function, and
 * returns what the prompt's response type promises — checked locally every time, even when
 * the provider claims structured output.
 *
 * - `invoke(id, vars, llm)`: `text` → the answer; `json` → the validated document (a failed or
 *   cut-off answer throws `ContractValidationError`); `jsonl` → the array of valid objects
 *   (invalid lines dropped and reported; none valid → `[]` with a warning; a cut-off answer
 *   still yields its complete lines). `text` and `json` behave as they did before `jsonl`.
 * - `run(id, vars, llm)`: the envelope (`succeeded` / `incomplete` / `failed`); never throws
 *   for the model's answer — not for a document nested thousands of levels deep under a
 *   recursive schema (every engine's depth guard, default 512 levels, reports it before
 *   validation: a `json` answer is `NOT_JSON`, a `jsonl` line or an array element is dropped
 *   and reported), and not for a validator that throws on a value: a `json` document then
 *   fails its contract; a streaming engine that throws stops streaming, and the answer's
 *   outcome is decided on the whole text (`json`) or is a failed contract (`jsonl`).
 *   Recovered `json` documents (a trailing comma) succeed, with their `recovered` notes in
 *   `diagnostics` and through `onDiagnostic`.
 * - `stream(id, vars, llm)`: an async iterable of validated objects as they arrive (each JSONL
 *   line; each element of a JSON array whose schema gives every element one `items` schema;
 *   any other JSON document — a tuple, an array schema without `items` — once complete; text
 *   chunks for a text prompt) and `outcome`, the envelope, once the answer has ended.
 * - Schemas: a prompt's `schema` may be a Standard Schema (zod, valibot, arktype…) when the
 *   configuration is built in code. Its vendor validates every value (JSONL lines, array
 *   elements, the document), with the same outcomes as a JSON Schema; the model's request
 *   carries the vendor's JSON Schema export as `schema` when there is one (none: no `schema`);
 *   the envelope names the vendor (`result.schema`). A Standard Schema that validates
 *   asynchronously throws core's `ConfigurationError` from the call (it cannot be known before
 *   a value reaches the async refinement).
 * - Types: `createPromptManager` infers the configuration's type, so a configuration written in
 *   code types what each prompt returns (`PromptTypesOf`, `PromptValue`): `invoke` resolves to
 *   the answer (`string`) for a text prompt, the document for a `json` prompt, the array of
 *   objects for a `jsonl` prompt; `run`'s envelope has that as `result.json` (none for text);
 *   `stream` yields text chunks, JSONL objects, or the JSON document — its elements where the
 *   runner streams them (for a Standard Schema: where its type carries a JSON Schema export and
 *   its value type is a plain array). Values are typed from an inline `schema` as core's
 *   engines type them (`SchemaValue`: a Standard Schema's input type, a JSON Schema written
 *   `as const`). A `schema_ref`, a schema typed `JsonSchema`, a configuration read from a file
 *   (`unknown`, `any`), an id the configuration's type does not name, or a `response-type` not
 *   pinned to one literal give `unknown` (`unknown[]` from a `jsonl` prompt's `invoke`), as
 *   before. The runner exposes no partial snapshots, so nothing here is `DeepPartial`.
 * - failFast and retries (json and jsonl prompts; manager options, overridable per call):
 *   `failFast` ends the call at the first violation of the contract, aborting the model's request
 *   through `LlmRequest.signal` (the runner's own signal, linked to the caller's); `retries: n`
 *   calls the model again, up to n times, when an answer fails its contract, with the
 *   conversation so far (`LlmRequest.messages`) and a correction (`correction`, see
 *   correction.ts) naming the path, the rule, the offending excerpt and the expected shape. A cut
 *   off answer is not retried. The envelope lists every attempt (`attempts`).
 * - coerce (json and jsonl prompts; manager option, overridable per call): a document or line
 *   the schema rejects as written is repaired where the schema makes the repair unambiguous
 *   (`true`: every coercion; a list: those; docs/decisions/018 section 4), validated again and
 *   delivered coerced; each repair is a `recovered` diagnostic (`rule`, `path`) in the
 *   envelope's `diagnostics` and through `onDiagnostic`. A document coerced into validity
 *   succeeds. With `failFast`, nothing a turned-on coercion could repair ends the call (JSONL
 *   lines are then checked once complete; a JSON document's prefix checks skip what coercion
 *   repairs).
 * - Layout: this file resolves a call (`prepare`), calls the model again while retries remain
 *   (`execute`) and pumps a stream (`AnswerStream`); one attempt — the model called once, its
 *   answer read and decided — is attempt.ts, and where a JSON document starts for the failFast
 *   builder is document-start.ts.
 * Configuration problems (unknown prompt, missing or broken schema, bad variables) throw
 * `ContractConfigurationError` before the model is called. What the model function itself
 * throws, and what `onDiagnostic` throws, reaches the caller unchanged (they are not answers).
 */

import {
  type CoerceOption,
  ConfigurationError,
  ConfigurationErrorCode,
  type Diagnostic,
  type JsonSchema,
  type SchemaInput,
  type SchemaValue,
  type StandardSchemaV1,
} from '@llmjson/core';
import {
  checkChoice,
  checkOptionNames,
  coercionRules,
  isStandardSchema,
  jsonSchemaOf,
  quoteInput,
} from '@llmjson/core/internal';
import { type Attempt, type Prepared, runAttempt } from './attempt.js';
import { type CatalogReport, checkCatalog } from './catalog.js';
import {
  type AttemptFailure,
  type Correction,
  checkCorrection,
  excerptOf,
  excerptOfText,
  expectedAt,
  renderCorrection,
  valueAt,
} from './correction.js';
import {
  createEnvelope,
  type Envelope,
  type EnvelopeAttempt,
  type EnvelopeError,
  type EnvelopeSchema,
} from './envelope.js';
import { ContractConfigurationError, ContractErrorCode, ContractValidationError } from './errors.js';
import type { Llm, LlmMessage, LlmRequest } from './llm.js';
import { CONTRACTS_OPTION_NAMES } from './option-names.js';
import {
  checkPromptConfig,
  checkVariables,
  type PromptConfig,
  type PromptEntry,
  renderTemplate,
  type Variables,
} from './prompt-config.js';
import { coercingValidator, incompleteOutcome } from './responses.js';
import { compileContractSchema, createSchemaRegistry, type SchemaRegistry } from './schema-registry.js';

export interface PromptManagerOptions {
  /** Where `schema_ref`s resolve. Default: `createSchemaRegistry()` (workspace, user, built-in roots). */
  readonly registry?: SchemaRegistry;
  /** JSON prompts: `'fence-and-prose'` (default) finds the document around prose; `'none'` requires it whole. */
  readonly tolerate?: 'fence-and-prose' | 'none';
  /**
   * Every diagnostic of an answer (JSONL lines dropped or recovered, elements that failed, the
   * violation that ended a `failFast` call), with the attempt it belongs to (1-based).
   */
  readonly onDiagnostic?: (diagnostic: Diagnostic, promptId: string, context: { readonly attempt: number }) => void;
  /**
   * json and jsonl prompts: end the call at the first violation of the answer's contract — a
   * JSONL line that fails its schema, or, while a JSON document streams, a value no completion
   * can make valid or a closed part that fails its sub-schema (the document that opens the
   * answer, after whitespace and a fence line, is the one checked). The runner aborts the model
   * call (`LlmRequest.signal`), stops reading, and the outcome is `failed`, detail
   * `SCHEMA_VIOLATION`, naming the path and the rule. Default `false`: JSONL skips bad lines and
   * goes on; JSON is decided on the whole answer. Overridable per call.
   */
  readonly failFast?: boolean;
  /**
   * json and jsonl prompts: how many times to call the model again when an answer fails its
   * contract (`NOT_JSON`, `SCHEMA_MISMATCH`, `SCHEMA_VIOLATION`; not a cut-off answer), with the
   * conversation so far and a correction (`correction`). Default 0. Overridable per call.
   */
  readonly retries?: number;
  /**
   * The correction sent after a failed answer: a function of the `AttemptFailure`, or a
   * template whose `{{attempt}}`, `{{detail}}`, `{{path}}`, `{{rule}}`, `{{message}}`,
   * `{{excerpt}}`, `{{expected}}`, `{{line}}`, `{{format}}` are filled in. Default
   * `defaultCorrection`. Overridable per call.
   */
  readonly correction?: Correction;
  /**
   * Called before each retry, with why the attempt failed. `stream` calls it in the iteration's
   * order — after the failed attempt's values, before the next attempt's — so a UI can drop what
   * it showed of the failed answer (when nobody iterates, as soon as the attempt fails).
   */
  readonly onRetry?: (failure: AttemptFailure, promptId: string) => void;
  /**
   * json and jsonl prompts: repair what the schema makes unambiguous in a document or line it
   * rejects as written (`"5"` for a number, `"Red"` for the enum value `"red"`…), validate
   * again, and deliver the coerced copy, each repair a `recovered` diagnostic with `rule` and
   * `path`. `true`: every coercion; a list of them (`['string-to-number', 'enum-case']`).
   * Default `false`: values are never changed. Overridable per call.
   */
  readonly coerce?: CoerceOption;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** This call's `failFast` (default: the manager's). */
  readonly failFast?: boolean;
  /** This call's `retries` (default: the manager's). */
  readonly retries?: number;
  /** This call's `correction` (default: the manager's). */
  readonly correction?: Correction;
  /** This call's `coerce` (default: the manager's). */
  readonly coerce?: CoerceOption;
}

/** `T`: the values yielded; `J`: the envelope's `result.json` (both `unknown` by default). */
export interface PromptStream<T = unknown, J = unknown> extends AsyncIterable<T> {
  /** The envelope, once the answer has ended (consumes the answer itself when nobody iterates). */
  readonly outcome: Promise<Envelope<J>>;
}

/** Whether `T` is `any` (a configuration from `JSON.parse`): then nothing is typed. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/** An entry's response type when its type pins one (absent: `text`); `undefined` when it does not. */
type ResponseTypeOf<E> =
  IsAny<E> extends true
    ? undefined
    : E extends object
      ? 'response-type' extends keyof E
        ? [E['response-type']] extends [never]
          ? undefined
          : [E['response-type']] extends ['text']
            ? 'text'
            : [E['response-type']] extends ['json']
              ? 'json'
              : [E['response-type']] extends ['jsonl']
                ? 'jsonl'
                : undefined
        : 'text'
      : undefined;

/** The type of an entry's values: from its inline `schema`; `unknown` for a `schema_ref` or none. */
type EntryValue<E> = E extends { readonly schema_ref: string }
  ? unknown
  : E extends { readonly schema: infer S }
    ? SchemaValue<S>
    : unknown;

/**
 * Whether a `json` entry's stream yields its array's elements, as the runner decides at run
 * time (`streamsArrayElements`, attempt.ts): a JSON Schema with `items` (an object or `true`, not a
 * tuple's array), no `prefixItems`, and `type: 'array'` or no `type`; a Standard Schema whose
 * type carries a JSON Schema export (`~standard.jsonSchema`: zod, arktype, valibot through
 * `toStandardJsonSchema`) and whose value type is a plain array (`T[]`: the vendors export it
 * with `items`; a tuple has `prefixItems`).
 */
type StreamsElements<E> = E extends { readonly schema_ref: string }
  ? false
  : E extends { readonly schema: infer S }
    ? S extends StandardSchemaV1
      ? S['~standard'] extends { readonly jsonSchema: unknown }
        ? IsPlainArray<SchemaValue<S>>
        : false
      : S extends { readonly prefixItems: unknown } | { readonly items: readonly unknown[] }
        ? false
        : S extends { readonly items: object | true }
          ? S extends { readonly type: 'array' }
            ? true
            : S extends { readonly type: unknown }
              ? false
              : true
          : false
    : false;

/** Whether `T` is exactly an array `E[]` (not a tuple, not a union with a non-array). */
type IsPlainArray<T> = unknown extends T
  ? false
  : [T] extends [readonly (infer E)[]]
    ? E[] extends T
      ? true
      : false
    : false;

/** The element type of an array type (`unknown` stays `unknown`). */
type ElementOf<T> = unknown extends T ? unknown : [T] extends [readonly (infer E)[]] ? E : never;

/**
 * The types of one prompt's answer: `value`, what `invoke` resolves to; `json`, the envelope's
 * `result.json` (from `run` and `stream(…).outcome`); `streamed`, what `stream` yields.
 */
export interface PromptTypes<Value = unknown, Json = unknown, Streamed = unknown> {
  readonly value: Value;
  readonly json: Json;
  readonly streamed: Streamed;
}

/** A prompt entry's types, by its response type (`undefined`: not pinned, nothing typed). */
type EntryTypes<E, V = EntryValue<E>> = {
  text: PromptTypes<string, never, string>;
  json: PromptTypes<V, V, StreamsElements<E> extends true ? ElementOf<V> : V>;
  jsonl: PromptTypes<V[], V[], V>;
  undefined: PromptTypes;
}[`${ResponseTypeOf<E>}`];

/** Every id's types unknown: the types of a configuration whose type says nothing. */
export type UntypedPrompts = { readonly [id: string]: PromptTypes };

/**
 * The types of each prompt of a configuration of type `C` (see `PromptManager`): for an entry
 * whose `response-type` is one literal (absent: `text`), `text` → `PromptTypes<string, never,
 * string>`; `json` → the document `V` (streamed: its elements where the runner streams them);
 * `jsonl` → `V[]` (streamed: each `V`). `V` is `SchemaValue` of the inline `schema`, `unknown`
 * for a `schema_ref`. A configuration typed `unknown` or `any` gives `UntypedPrompts`.
 */
export type PromptTypesOf<C> =
  IsAny<C> extends true
    ? UntypedPrompts
    : C extends { readonly prompts: infer P }
      ? IsAny<P> extends true
        ? UntypedPrompts
        : { readonly [Id in keyof P]: EntryTypes<P[Id]> }
      : UntypedPrompts;

/** Prompt `Id`'s types: an id the map does not name has `PromptTypes` (all `unknown`). */
type TypesOfId<P, Id extends string> = (P & UntypedPrompts)[Id];

/**
 * What `invoke(id, …)` resolves to for a configuration of type `C`: `string` for a text prompt,
 * the document for `json`, the array of objects for `jsonl`, typed from the inline `schema`
 * (`SchemaValue`); `unknown` where the configuration's type does not say.
 */
export type PromptValue<C, Id extends string> = TypesOfId<PromptTypesOf<C>, Id>['value'];

/**
 * A prompt runner. `P` maps prompt ids to their types (`PromptTypesOf` of the configuration,
 * inferred by `createPromptManager`); the default, `UntypedPrompts`, types nothing. Any string
 * is an id: one `P` does not name (an id only known at run time, a configuration read from a
 * file) gives `unknown`, as before. A typed runner is assignable to `PromptManager`.
 */
export interface PromptManager<P extends UntypedPrompts = UntypedPrompts> {
  /** The prompt ids, in configuration order. */
  readonly ids: readonly string[];
  /** The rendered system and user prompt. */
  render(id: string, vars: Variables): { system?: string; prompt: string };
  /** The catalog check of this configuration. */
  check(): CatalogReport;
  invoke<Id extends string>(
    id: Id,
    vars: Variables,
    llm: Llm,
    options?: CallOptions,
  ): Promise<TypesOfId<P, Id>['value']>;
  run<Id extends string>(
    id: Id,
    vars: Variables,
    llm: Llm,
    options?: CallOptions,
  ): Promise<Envelope<TypesOfId<P, Id>['json']>>;
  stream<Id extends string>(
    id: Id,
    vars: Variables,
    llm: Llm,
    options?: CallOptions,
  ): PromptStream<TypesOfId<P, Id>['streamed'], TypesOfId<P, Id>['json']>;
}

class Manager implements PromptManager {
  readonly #config: PromptConfig;
  readonly #registry: SchemaRegistry;
  readonly #options: PromptManagerOptions;

  constructor(config: unknown, options: PromptManagerOptions) {
    checkOptionNames('createPromptManager', options, CONTRACTS_OPTION_NAMES.createPromptManager);
    checkChoice('tolerate', options.tolerate, ['fence-and-prose', 'none']);
    checkChoice('failFast', options.failFast, [true, false]);
    checkRetries(options.retries, 'createPromptManager');
    checkCorrection(options.correction, 'createPromptManager');
    checkCoerce(options.coerce, 'createPromptManager');
    this.#config = checkPromptConfig(config);
    this.#registry = options.registry ?? createSchemaRegistry();
    this.#options = options;
  }

  get ids(): readonly string[] {
    return Object.keys(this.#config.prompts);
  }

  check(): CatalogReport {
    return checkCatalog(this.#config, this.#registry);
  }

  #entry(id: string): PromptEntry {
    const entry = Object.hasOwn(this.#config.prompts, id) ? this.#config.prompts[id] : undefined;
    if (entry === undefined) {
      throw new ContractConfigurationError(
        ContractErrorCode.promptInvalid,
        `no prompt with id ${JSON.stringify(quoteInput(id))}; the configuration has: ${this.ids.join(', ') || 'none'}`,
        { promptId: id },
      );
    }
    return entry;
  }

  render(id: string, vars: Variables): { system?: string; prompt: string } {
    const entry = this.#entry(id);
    const variables = checkVariables(vars, `the variables of prompt "${quoteInput(id)}"`);
    const prompt = renderTemplate(entry.prompt, variables, id);
    const systemTemplate = entry.system ?? this.#config.system;
    return systemTemplate === undefined
      ? { prompt }
      : { system: renderTemplate(systemTemplate, variables, id), prompt };
  }

  /** Everything that can go wrong before the call: resolved here, before `llm` runs. */
  #prepare(id: string, vars: Variables, options: CallOptions): Prepared {
    checkOptionNames('the call', options, CONTRACTS_OPTION_NAMES.call);
    checkChoice('failFast', options.failFast, [true, false]);
    checkRetries(options.retries, 'the call options');
    checkCorrection(options.correction, 'the call options');
    checkCoerce(options.coerce, 'the call options');
    const entry = this.#entry(id);
    const responseType = entry['response-type'] ?? 'text';
    let schema: SchemaInput | undefined;
    if (entry.schema_ref !== undefined) {
      try {
        schema = this.#registry.resolve(entry.schema_ref).schema;
      } catch (error) {
        if (error instanceof ContractConfigurationError) {
          throw new ContractConfigurationError(error.code, `prompt "${quoteInput(id)}": ${error.message}`, {
            promptId: id,
            ref: entry.schema_ref,
            ...(error.file === undefined ? {} : { file: error.file }),
            cause: error,
          });
        }
        throw error;
      }
    } else if (entry.schema !== undefined) {
      schema = entry.schema;
    } else if (responseType !== 'text') {
      throw new ContractConfigurationError(
        ContractErrorCode.schemaRefMissing,
        `prompt "${quoteInput(id)}" has response-type "${responseType}" but declares no schema: add "schema" (inline) or "schema_ref"`,
        { promptId: id },
      );
    }
    // Coercion applies to json and jsonl prompts (a text prompt has no schema to guide it).
    const coerceOption = options.coerce ?? this.#options.coerce;
    const coerce = responseType !== 'text' && coercionRules(coerceOption) !== undefined ? coerceOption : undefined;
    if (schema !== undefined) {
      const compiled = compileContractSchema(
        schema,
        entry.schema_ref === undefined
          ? `the schema of prompt "${quoteInput(id)}"`
          : `schema "${quoteInput(entry.schema_ref)}"`,
        entry.discriminator === undefined ? {} : { discriminator: entry.discriminator },
        { promptId: id },
      );
      // Before the call: a Standard Schema without a JSON Schema export cannot guide coercion.
      if (coerce !== undefined) coercingValidator(compiled, schema, coerce);
    }
    const rendered = this.render(id, vars);
    let requestSchema: JsonSchema | undefined = schema as JsonSchema | undefined;
    let schemaSection: EnvelopeSchema | undefined;
    if (schema !== undefined && isStandardSchema(schema)) {
      requestSchema = jsonSchemaOf(schema);
      const vendor = String(schema['~standard'].vendor);
      schemaSection = requestSchema === undefined ? { vendor } : { vendor, json_schema: requestSchema };
    }
    const request: LlmRequest = {
      id,
      ...rendered,
      responseType,
      ...(requestSchema === undefined ? {} : { schema: requestSchema }),
    };
    return {
      id,
      request,
      signal: options.signal,
      failFast: options.failFast ?? this.#options.failFast ?? false,
      retries: options.retries ?? this.#options.retries ?? 0,
      correction: options.correction ?? this.#options.correction,
      responseType,
      schema,
      schemaRef: entry.schema_ref,
      schemaSection,
      discriminator: entry.discriminator,
      coerce,
    };
  }

  /**
   * Calls the model, yields values as they complete, returns the envelope; calls it again with a
   * correction while an answer fails its contract and retries remain.
   */
  async *#execute(prepared: Prepared, llm: Llm): AsyncGenerator<unknown, Envelope> {
    const { request } = prepared;
    const structured = prepared.responseType !== 'text';
    const retries = structured ? prepared.retries : 0;
    const recordAttempts = structured && (retries > 0 || prepared.failFast);
    const messages: LlmMessage[] = [
      ...(request.system === undefined ? [] : [{ role: 'system' as const, content: request.system }]),
      { role: 'user', content: request.prompt },
    ];
    const attempts: EnvelopeAttempt[] = [];
    for (let attempt = 1; ; attempt++) {
      const done: Attempt = yield* runAttempt(prepared, llm, attempt, messages, this.#options);
      const { envelope } = done;
      const failure = failureOf(prepared, attempt, envelope, done);
      const last = failure === undefined || attempt > retries;
      const correction = last ? undefined : renderCorrection(prepared.correction, failure);
      attempts.push(attemptRecord(attempt, envelope, done, correction));
      if (last) return recordAttempts ? createEnvelope({ ...done.input, attempts }) : envelope;
      // In band, so that a stream's consumer is told between the attempts' values.
      yield new RetryMark(failure, prepared.id);
      messages.push({ role: 'assistant', content: done.text }, { role: 'user', content: correction as string });
    }
  }

  async run(id: string, vars: Variables, llm: Llm, options: CallOptions = {}): Promise<Envelope> {
    return this.#drain(this.#execute(this.#prepare(id, vars, options), llm));
  }

  /** Runs an answer to its end without its values; tells `onRetry` of each retry. */
  async #drain(generator: AsyncGenerator<unknown, Envelope>): Promise<Envelope> {
    for (;;) {
      const step = await generator.next();
      if (step.done === true) return step.value;
      if (step.value instanceof RetryMark) this.#options.onRetry?.(step.value.failure, step.value.promptId);
    }
  }

  async invoke(id: string, vars: Variables, llm: Llm, options: CallOptions = {}): Promise<unknown> {
    const prepared = this.#prepare(id, vars, options);
    const envelope = await this.#drain(this.#execute(prepared, llm));
    if (prepared.responseType === 'text') return envelope.result.text;
    const error = envelope.error as EnvelopeError;
    // JSONL keeps its lines unless failFast ended the call.
    const violated = envelope.status === 'failed' && error.detail === 'SCHEMA_VIOLATION';
    if (prepared.responseType === 'jsonl' && !violated) return envelope.result.json ?? [];
    if (envelope.status === 'succeeded') return envelope.result.json;
    throw new ContractValidationError(
      error.reason === 'INCOMPLETE'
        ? incompleteOutcome(envelope.result.finish_reason as string)
        : violated
          ? {
              status: 'failed',
              reason: 'CONTRACT_VALIDATION_FAILED',
              detail: 'SCHEMA_VIOLATION',
              message: error.message,
              path: error.path ?? '',
              rule: error.rule ?? 'schema',
              errors: error.errors ?? [],
              diagnostic: error.diagnostic as Diagnostic,
            }
          : {
              status: 'failed',
              reason: 'CONTRACT_VALIDATION_FAILED',
              detail: error.detail as 'NOT_JSON' | 'SCHEMA_MISMATCH',
              message: error.message,
              errors: error.errors ?? [],
            },
      envelope.attempts?.at(-1)?.text ?? envelope.result.text,
      id,
    );
  }

  stream(id: string, vars: Variables, llm: Llm, options: CallOptions = {}): PromptStream {
    const generator = this.#execute(this.#prepare(id, vars, options), llm);
    return new AnswerStream(generator, this.#options.onRetry);
  }
}

/**
 * The values of one answer as they arrive, and its outcome. One pump drives the answer and
 * buffers what it yields; the iterator reads the buffer, so reading `outcome` (which starts the
 * pump when nobody iterates) never takes values from the iteration. Leaving the iteration early
 * closes the answer (the model call's stream is closed with it) and settles `outcome` with an
 * error saying so.
 */
class AnswerStream implements PromptStream {
  readonly #result: Promise<Envelope>;
  #settle!: { resolve(envelope: Envelope): void; reject(error: unknown): void };
  readonly #buffer: unknown[] = [];
  #wake: (() => void) | undefined;
  #pumping = false;
  #finished = false;
  #closed = false;
  #failure: { error: unknown } | undefined;

  #iterating = false;
  readonly #generator: AsyncGenerator<unknown, Envelope>;
  readonly #onRetry: PromptManagerOptions['onRetry'];

  constructor(generator: AsyncGenerator<unknown, Envelope>, onRetry: PromptManagerOptions['onRetry']) {
    this.#generator = generator;
    this.#onRetry = onRetry;
    this.#result = new Promise<Envelope>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // Nobody may await the outcome: a failure still reaches the iteration.
    this.#result.catch(() => {});
  }

  #start(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    void this.#pump();
  }

  async #pump(): Promise<void> {
    try {
      for (;;) {
        if (this.#closed) {
          await this.#generator.return(undefined as never);
          this.#settle.reject(new Error('the stream was closed before the answer ended'));
          return;
        }
        const step = await this.#generator.next();
        if (step.done === true) {
          this.#settle.resolve(step.value);
          return;
        }
        if (step.value instanceof RetryMark && !this.#iterating) {
          this.#onRetry?.(step.value.failure, step.value.promptId);
          continue;
        }
        this.#buffer.push(step.value);
        this.#wake?.();
      }
    } catch (error) {
      this.#failure = { error };
      this.#settle.reject(error);
    } finally {
      this.#finished = true;
      this.#wake?.();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    this.#iterating = true;
    this.#start();
    return {
      next: async () => {
        for (;;) {
          while (this.#buffer.length === 0 && !this.#finished) {
            await new Promise<void>((wake) => {
              this.#wake = wake;
            });
            this.#wake = undefined;
          }
          const value = this.#buffer[0];
          if (!(value instanceof RetryMark)) break;
          this.#buffer.shift();
          this.#onRetry?.(value.failure, value.promptId);
        }
        if (this.#buffer.length > 0) return { value: this.#buffer.shift(), done: false };
        if (this.#failure !== undefined) throw this.#failure.error;
        return { value: undefined, done: true };
      },
      return: async () => {
        if (!this.#finished) this.#closed = true;
        return { value: undefined, done: true };
      },
    };
  }

  /** The envelope once the answer has ended; reading it starts the answer when nobody iterates. */
  get outcome(): Promise<Envelope> {
    this.#start();
    return this.#result;
  }
}

/** Yielded by `execute` between two attempts (never handed to a consumer). */
class RetryMark {
  constructor(
    readonly failure: AttemptFailure,
    readonly promptId: string,
  ) {}
}

/** `coerce`: `true`, `false` or a list of coercions; else ConfigurationError naming the allowed ones. */
function checkCoerce(coerce: unknown, where: string): void {
  try {
    coercionRules(coerce);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    throw new ConfigurationError(error.code, `${where}: ${error.message}`);
  }
}

function checkRetries(retries: unknown, where: string): void {
  if (retries === undefined) return;
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `${where}: retries must be a whole number of retries, 0 or more, got ${quoteInput(String(retries))}`,
    );
  }
}

/** Why an attempt failed its contract (a cut-off or successful answer: undefined). */
function failureOf(prepared: Prepared, attempt: number, envelope: Envelope, done: Attempt): AttemptFailure | undefined {
  const error = envelope.error;
  const responseType = prepared.responseType;
  if (envelope.status !== 'failed' || error === undefined || responseType === 'text') return undefined;
  if (error.reason !== 'CONTRACT_VALIDATION_FAILED') return undefined;
  // A number beyond the double range is corrected as an answer that is not JSON.
  const detail = error.detail === 'NUMBER_OUT_OF_RANGE' ? 'NOT_JSON' : (error.detail ?? 'SCHEMA_MISMATCH');
  const errors = error.errors ?? [];
  const first = errors[0];
  const path = error.path ?? first?.path ?? '';
  const rule = error.rule ?? first?.keyword ?? (detail === 'NOT_JSON' ? 'json' : 'schema');
  const diagnostic = error.diagnostic;
  const message =
    detail === 'SCHEMA_VIOLATION' && diagnostic !== undefined
      ? diagnostic.reason === 'schema' && first !== undefined
        ? first.message
        : diagnostic.message
      : detail === 'SCHEMA_MISMATCH' && first !== undefined
        ? first.message
        : error.message;
  // The offending value itself; for a violation, only a primitive (a container may be cut where
  // the answer stopped, and then the text around the place says more).
  const offending = done.invalid === undefined ? undefined : valueAt(done.invalid.value, path);
  const whole =
    offending !== undefined &&
    (detail !== 'SCHEMA_VIOLATION' ||
      diagnostic?.reason === 'schema' ||
      typeof offending !== 'object' ||
      offending === null);
  const excerpt = whole
    ? excerptOf(offending)
    : diagnostic !== undefined && diagnostic.excerpt !== ''
      ? excerptOfText(diagnostic.excerpt)
      : detail === 'NOT_JSON'
        ? excerptOfText(done.text)
        : '';
  const expected = detail === 'NOT_JSON' ? undefined : expectedAt(prepared.schema, path, errors, diagnostic?.branch);
  return {
    attempt,
    promptId: prepared.id,
    responseType,
    detail,
    message,
    path,
    rule,
    ...(diagnostic?.line === undefined ? {} : { line: diagnostic.line }),
    excerpt,
    ...(expected === undefined ? {} : { expected }),
    errors,
    ...(diagnostic === undefined ? {} : { diagnostic }),
  };
}

/** The envelope's record of one attempt. */
function attemptRecord(
  attempt: number,
  envelope: Envelope,
  done: Attempt,
  correction: string | undefined,
): EnvelopeAttempt {
  const { result } = envelope;
  return {
    attempt,
    status: envelope.status,
    text: done.text,
    ...(envelope.error === undefined ? {} : { error: envelope.error }),
    ...(envelope.diagnostics === undefined ? {} : { diagnostics: envelope.diagnostics }),
    ...(envelope.status === 'succeeded' || done.invalid === undefined ? {} : { value: done.invalid.value }),
    ...(correction === undefined ? {} : { correction }),
    ...(result.model === undefined ? {} : { model: result.model }),
    ...(result.usage === undefined ? {} : { usage: result.usage }),
    ...(result.finish_reason === undefined ? {} : { finish_reason: result.finish_reason }),
  };
}

/**
 * Creates a prompt runner. Throws `ContractConfigurationError` when the configuration is
 * malformed. The configuration's type is inferred (as if written `as const`), so a
 * configuration written in code types each prompt's values (`PromptValue`); an entry declared
 * apart keeps its types with `as const` (or, with a Standard Schema, `satisfies PromptEntry`).
 */
export function createPromptManager<const C = unknown>(
  config: C,
  options: PromptManagerOptions = {},
): PromptManager<PromptTypesOf<C>> {
  // Type-level only: the runner delivers what each prompt's schema accepted.
  return new Manager(config, options) as PromptManager<PromptTypesOf<C>>;
}
