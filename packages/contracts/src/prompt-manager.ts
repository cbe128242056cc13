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
 *   line; each element of a JSON array; a JSON object once complete; text chunks for a text
 *   prompt) and `outcome`, the envelope, once the answer has ended.
 * - Schemas: a prompt's `schema` may be a Standard Schema (zod, valibot, arktype…) when the
 *   configuration is built in code. Its vendor validates every value (JSONL lines, array
 *   elements, the document), with the same outcomes as a JSON Schema; the model's request
 *   carries the vendor's JSON Schema export as `schema` when there is one (none: no `schema`);
 *   the envelope names the vendor (`result.schema`). A Standard Schema that validates
 *   asynchronously throws core's `ConfigurationError` from the call (it cannot be known before
 *   a value reaches the async refinement).
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
} from '@llmjson/core';
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

export interface PromptStream extends AsyncIterable<unknown> {
  /** The envelope, once the answer has ended (consumes the answer itself when nobody iterates). */
  readonly outcome: Promise<Envelope>;
}

export interface PromptManager {
  /** The prompt ids, in configuration order. */
  readonly ids: readonly string[];
  /** The rendered system and user prompt. */
  render(id: string, vars: Variables): { system?: string; prompt: string };
  /** The catalog check of this configuration. */
  check(): CatalogReport;
  invoke(id: string, vars: Variables, llm: Llm, options?: CallOptions): Promise<unknown>;
  run(id: string, vars: Variables, llm: Llm, options?: CallOptions): Promise<Envelope>;
  stream(id: string, vars: Variables, llm: Llm, options?: CallOptions): PromptStream;
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

/** Whether the document is an array (its elements then stream): from a Standard Schema's export. */
function isArraySchema(input: SchemaInput | undefined): boolean {
  const schema = input !== undefined && isStandardSchema(input) ? jsonSchemaOf(input) : input;
  if (typeof schema !== 'object') return false;
  return (
    schema.type === 'array' ||
    (schema.type === undefined && (schema.items !== undefined || schema.prefixItems !== undefined))
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
        : responseType === 'json' && isArraySchema(schema)
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

/** Creates a prompt runner. Throws `ContractConfigurationError` when the configuration is malformed. */
export function createPromptManager(config: unknown, options: PromptManagerOptions = {}): PromptManager {
  return new Manager(config, options);
}
