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
 * Configuration problems (unknown prompt, missing or broken schema, bad variables) throw
 * `ContractConfigurationError` before the model is called. What the model function itself
 * throws, and what `onDiagnostic` throws, reaches the caller unchanged (they are not answers).
 */

import {
  ConfigurationError,
  createElementScanner,
  createJsonlDecoder,
  type Diagnostic,
  isStandardSchema,
  type JsonSchema,
  jsonSchemaOf,
  quoteInput,
  type SchemaInput,
  type SchemaValue,
  type StandardSchemaV1,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { type CatalogReport, checkCatalog } from './catalog.js';
import { createEnvelope, type Envelope, type EnvelopeError, type EnvelopeSchema } from './envelope.js';
import { ContractConfigurationError, ContractErrorCode, ContractValidationError } from './errors.js';
import { type Llm, type LlmRequest, normalizeLlmResult, type ResponseType } from './llm.js';
import {
  checkPromptConfig,
  checkVariables,
  type PromptConfig,
  type PromptEntry,
  renderTemplate,
  type Variables,
} from './prompt-config.js';
import { incompleteOutcome, isTruncated, parseJsonResponse } from './responses.js';
import { compileContractSchema, createSchemaRegistry, type SchemaRegistry } from './schema-registry.js';

export interface PromptManagerOptions {
  /** Where `schema_ref`s resolve. Default: `createSchemaRegistry()` (workspace, user, built-in roots). */
  readonly registry?: SchemaRegistry;
  /** JSON prompts: `'fence-and-prose'` (default) finds the document around prose; `'none'` requires it whole. */
  readonly tolerate?: 'fence-and-prose' | 'none';
  /** Every diagnostic of an answer (JSONL lines dropped or recovered, elements that failed). */
  readonly onDiagnostic?: (diagnostic: Diagnostic, promptId: string) => void;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
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
 * time (`streamsArrayElements`): a JSON Schema with `items` (an object or `true`, not a
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

interface Prepared {
  readonly id: string;
  readonly request: LlmRequest;
  readonly responseType: ResponseType;
  readonly schema: SchemaInput | undefined;
  readonly schemaRef: string | undefined;
  /** The envelope's schema section, for a Standard Schema. */
  readonly schemaSection: EnvelopeSchema | undefined;
  readonly discriminator: string | false | undefined;
}

/**
 * Whether a JSON document's elements stream one by one: its schema (a Standard Schema's export)
 * is an array (`type: 'array'`, or no `type`) whose elements all have one schema, `items` (an
 * object or `true`), and no `prefixItems`. A tuple, an array without `items` and anything
 * else stream the document whole: the element scanner checks every element against `items`.
 */
function streamsArrayElements(input: SchemaInput | undefined): boolean {
  const schema = input !== undefined && isStandardSchema(input) ? jsonSchemaOf(input) : input;
  if (typeof schema !== 'object') return false;
  const items = schema.items;
  return (
    (schema.type === 'array' || schema.type === undefined) &&
    schema.prefixItems === undefined &&
    (items === true || (typeof items === 'object' && items !== null && !Array.isArray(items)))
  );
}

class Manager implements PromptManager {
  private readonly config: PromptConfig;
  private readonly registry: SchemaRegistry;
  private readonly options: PromptManagerOptions;

  constructor(config: unknown, options: PromptManagerOptions) {
    this.config = checkPromptConfig(config);
    this.registry = options.registry ?? createSchemaRegistry();
    this.options = options;
  }

  get ids(): readonly string[] {
    return Object.keys(this.config.prompts);
  }

  check(): CatalogReport {
    return checkCatalog(this.config, this.registry);
  }

  private entry(id: string): PromptEntry {
    const entry = Object.hasOwn(this.config.prompts, id) ? this.config.prompts[id] : undefined;
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
    const entry = this.entry(id);
    const variables = checkVariables(vars, `the variables of prompt "${quoteInput(id)}"`);
    const prompt = renderTemplate(entry.prompt, variables, id);
    const systemTemplate = entry.system ?? this.config.system;
    return systemTemplate === undefined
      ? { prompt }
      : { system: renderTemplate(systemTemplate, variables, id), prompt };
  }

  /** Everything that can go wrong before the call: resolved here, before `llm` runs. */
  private prepare(id: string, vars: Variables, options: CallOptions): Prepared {
    const entry = this.entry(id);
    const responseType = entry['response-type'] ?? 'text';
    let schema: SchemaInput | undefined;
    if (entry.schema_ref !== undefined) {
      try {
        schema = this.registry.resolve(entry.schema_ref).schema;
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
    if (schema !== undefined) {
      compileContractSchema(
        schema,
        entry.schema_ref === undefined
          ? `the schema of prompt "${quoteInput(id)}"`
          : `schema "${quoteInput(entry.schema_ref)}"`,
        entry.discriminator === undefined ? {} : { discriminator: entry.discriminator },
        { promptId: id },
      );
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
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    return {
      id,
      request,
      responseType,
      schema,
      schemaRef: entry.schema_ref,
      schemaSection,
      discriminator: entry.discriminator,
    };
  }

  /** Calls the model, yields values as they complete, returns the envelope. */
  private async *execute(prepared: Prepared, llm: Llm): AsyncGenerator<unknown, Envelope> {
    const { id, responseType, schema, discriminator } = prepared;
    const ready: unknown[] = [];
    const values: unknown[] = [];
    const diagnostics: Diagnostic[] = [];
    const onDiagnostic = this.options.onDiagnostic;
    // The caller's own exception, told apart from one the engine raised on the answer.
    let callbackFailure: { error: unknown } | undefined;
    const report = (d: Diagnostic) => {
      diagnostics.push(d);
      try {
        onDiagnostic?.(d, id);
      } catch (error) {
        callbackFailure = { error };
        throw error;
      }
    };
    const schemaOptions = {
      compileJsonSchema: compileSchema,
      ...(schema === undefined ? {} : { schema }),
      ...(discriminator === undefined ? {} : { discriminator }),
    };
    let engine =
      responseType === 'jsonl'
        ? createJsonlDecoder(schemaOptions, {
            value(value) {
              values.push(value);
              ready.push(value);
            },
            diagnostic: report,
          })
        : responseType === 'json' && streamsArrayElements(schema)
          ? createElementScanner(schemaOptions, { value: (element) => ready.push(element.value), diagnostic() {} })
          : undefined;

    const streamsElements = engine !== undefined && responseType === 'json';
    // An engine that throws on the answer (a validator bug) must not make the call throw: it
    // stops streaming, and the outcome is decided below.
    let engineFailure: string | undefined;
    const feed = (step: () => void): void => {
      try {
        step();
      } catch (error) {
        if (callbackFailure !== undefined && callbackFailure.error === error) throw error;
        if (error instanceof ConfigurationError) throw error; // the schema's (async validation), not the answer's
        engine = undefined;
        engineFailure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    };

    const { chunks, result } = normalizeLlmResult(await llm(prepared.request));
    let text = '';
    for await (const chunk of chunks) {
      text += chunk;
      if (engine === undefined) {
        if (responseType === 'text') yield chunk;
        continue;
      }
      const writing = engine;
      feed(() => writing.write(chunk));
      while (ready.length > 0) yield ready.shift();
    }
    const ending = engine;
    if (ending !== undefined) feed(() => ending.end());
    while (ready.length > 0) yield ready.shift();

    const finishReason = result.finishReason;
    const base = {
      responseType,
      schemaRef: prepared.schemaRef,
      schema: prepared.schemaSection,
      text,
      model: result.model,
      provider: result.provider,
      usage: result.usage,
      finishReason,
    };
    if (responseType === 'text') {
      const incomplete = isTruncated(finishReason);
      return createEnvelope({
        ...base,
        status: incomplete ? 'incomplete' : 'succeeded',
        ...(incomplete ? { error: incompleteError(finishReason as string) } : {}),
      });
    }
    if (responseType === 'jsonl' && engineFailure !== undefined) {
      return createEnvelope({
        ...base,
        status: 'failed',
        diagnostics,
        error: {
          reason: 'CONTRACT_VALIDATION_FAILED',
          detail: 'SCHEMA_MISMATCH',
          message: `validating the answer failed (${engineFailure}); its lines could not be checked`,
        },
      });
    }
    if (responseType === 'jsonl') {
      const incomplete = isTruncated(finishReason);
      if (incomplete) {
        // Said even when the cut fell on a line boundary (then no line is reported as cut).
        report({
          reason: 'truncated',
          offset: text.length,
          excerpt: '',
          message: `the provider cut the answer off at the token limit (finish reason "${finishReason}"); the ${values.length} complete valid lines before the cut were kept`,
        });
      }
      return createEnvelope({
        ...base,
        status: incomplete ? 'incomplete' : 'succeeded',
        json: values,
        diagnostics,
        ...(values.length === 0 ? { warnings: ['no valid objects in the answer'] } : {}),
        ...(incomplete ? { error: incompleteError(finishReason as string) } : {}),
      });
    }
    const outcome = parseJsonResponse(text, {
      ...schemaOptions,
      tolerate: this.options.tolerate,
      finishReason,
    });
    if (outcome.status === 'succeeded') {
      for (const d of outcome.diagnostics ?? []) report(d);
      // Without an element engine the document is the one value yielded (with one that failed,
      // the elements yielded before the failure stay a prefix; the envelope has the document).
      if (!streamsElements) yield outcome.json;
      return createEnvelope({ ...base, status: 'succeeded', json: outcome.json, diagnostics });
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
    return createEnvelope({ ...base, status: outcome.status, error });
  }

  async run(id: string, vars: Variables, llm: Llm, options: CallOptions = {}): Promise<Envelope> {
    const generator = this.execute(this.prepare(id, vars, options), llm);
    for (;;) {
      const step = await generator.next();
      if (step.done === true) return step.value;
    }
  }

  async invoke(id: string, vars: Variables, llm: Llm, options: CallOptions = {}): Promise<unknown> {
    const prepared = this.prepare(id, vars, options);
    const generator = this.execute(prepared, llm);
    let step = await generator.next();
    while (step.done !== true) step = await generator.next();
    const envelope = step.value;
    if (prepared.responseType === 'text') return envelope.result.text;
    if (prepared.responseType === 'jsonl') return envelope.result.json ?? [];
    if (envelope.status === 'succeeded') return envelope.result.json;
    const error = envelope.error as EnvelopeError;
    throw new ContractValidationError(
      error.reason === 'INCOMPLETE'
        ? incompleteOutcome(envelope.result.finish_reason as string)
        : {
            status: 'failed',
            reason: 'CONTRACT_VALIDATION_FAILED',
            detail: error.detail as 'NOT_JSON' | 'SCHEMA_MISMATCH',
            message: error.message,
            errors: error.errors ?? [],
          },
      envelope.result.text,
      id,
    );
  }

  stream(id: string, vars: Variables, llm: Llm, options: CallOptions = {}): PromptStream {
    const generator = this.execute(this.prepare(id, vars, options), llm);
    return new AnswerStream(generator);
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
  private readonly result: Promise<Envelope>;
  private settle!: { resolve(envelope: Envelope): void; reject(error: unknown): void };
  private readonly buffer: unknown[] = [];
  private wake: (() => void) | undefined;
  private pumping = false;
  private finished = false;
  private closed = false;
  private failure: { error: unknown } | undefined;

  constructor(private readonly generator: AsyncGenerator<unknown, Envelope>) {
    this.result = new Promise<Envelope>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Nobody may await the outcome: a failure still reaches the iteration.
    this.result.catch(() => {});
  }

  private start(): void {
    if (this.pumping) return;
    this.pumping = true;
    void this.pump();
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        if (this.closed) {
          await this.generator.return(undefined as never);
          this.settle.reject(new Error('the stream was closed before the answer ended'));
          return;
        }
        const step = await this.generator.next();
        if (step.done === true) {
          this.settle.resolve(step.value);
          return;
        }
        this.buffer.push(step.value);
        this.wake?.();
      }
    } catch (error) {
      this.failure = { error };
      this.settle.reject(error);
    } finally {
      this.finished = true;
      this.wake?.();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    this.start();
    return {
      next: async () => {
        while (this.buffer.length === 0 && !this.finished) {
          await new Promise<void>((wake) => {
            this.wake = wake;
          });
          this.wake = undefined;
        }
        if (this.buffer.length > 0) return { value: this.buffer.shift(), done: false };
        if (this.failure !== undefined) throw this.failure.error;
        return { value: undefined, done: true };
      },
      return: async () => {
        if (!this.finished) this.closed = true;
        return { value: undefined, done: true };
      },
    };
  }

  /** The envelope once the answer has ended; reading it starts the answer when nobody iterates. */
  get outcome(): Promise<Envelope> {
    this.start();
    return this.result;
  }
}

function incompleteError(finishReason: string): EnvelopeError {
  return { reason: 'INCOMPLETE', message: incompleteOutcome(finishReason).message };
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
