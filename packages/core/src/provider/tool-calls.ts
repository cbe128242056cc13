/**
 * Tool calls as live partial values: a model server's streamed body in (any format the provider
 * decoder reads), and per tool call its arguments as they arrive — a partial value per call,
 * built by the partial builder (partial-value.ts), validated against that tool's schema.
 *
 * Contract: `write(text)` / `bytes(chunk)` / `end()` as the provider decoder's (decoder.ts),
 * which this engine drives. Each argument piece goes to the builder of its call: calls are
 * keyed as the decoder keys them (the provider's call id, else its index), so calls that
 * interleave stay apart, and so do calls whose backends reuse one index for every call. A
 * call's builder is made when its first piece arrives, with the schema `tools[name]` for the
 * name the provider gave by then (every format names a call before its arguments). The sink
 * receives an `update` per write that changed a call's arguments — the call, its snapshot, the
 * changes, and `complete` once the arguments are one whole JSON document (then validated, and
 * coerced with `coerce`) — and the answer text, reasoning and metadata the decoder delivers.
 *
 * Diagnostics: the decoder's own (`provider-error`, `truncated`…, and `too-long` for a call
 * whose arguments pass `maxArgumentsLength`: that call is dropped, gone from `calls`, no more
 * updates); and each call's builder's,
 * with `toolCall` set and the message prefixed with the call, where `offset` counts from the
 * start of that call's arguments: `violation` (prefix checks, on by default with a schema, so
 * `failFast` stops a doomed call while it streams), `schema` (complete arguments that fail),
 * `syntax` (arguments that are not JSON), `truncated` (a call the stream cut). A call to a tool
 * that `tools` does not list is a `schema` diagnostic (rule `tool`) when its first piece
 * arrives; its arguments are still delivered, unchecked.
 *
 * Invariants:
 * 1. Chunking does not matter: any split of the body gives the same updates' final values, the
 *    same diagnostics and the same `calls` (the builder's and the decoder's invariants).
 * 2. Every call ends: `complete`, or a `truncated` (or `syntax`) diagnostic at `end()`.
 * 3. Bounded: per call, what the builder keeps (its value, `maxValueLength` per string), and
 *    the decoder's copy of its arguments, `maxArgumentsLength` characters.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import type { Diagnostic } from '../diagnostics/diagnostics.js';
import { DiagnosticReason, quoteInput } from '../diagnostics/diagnostics.js';
import type { AdapterOptions } from '../engines/engine.js';
import { countDiagnostic, type DiagnosticCounts, type Engine, type ValidatorOptions } from '../engines/engine.js';
import type { Change } from '../engines/partial-changes.js';
import { createPartialBuilder, type DeepPartial, type PartialBuilder } from '../engines/partial-value.js';
import { checkChoice, checkOptionNames, namesChecked, optionNames } from '../options/option-checks.js';
import type { CoercionOptions } from '../schema/coercion-options.js';
import type { SchemaInput, SchemaValue } from '../schema/standard-schema.js';
import { createProviderDecoder } from './decoder.js';
import type {
  ProviderDecoder,
  ProviderDecoderOptions,
  ProviderMetadata,
  ProviderStats,
  ToolCallInfo,
} from './types.js';

/** The schemas of the tools, by name. */
export type ToolSchemas = Readonly<Record<string, SchemaInput>>;

/** The arguments' type of each tool of `T` (a Standard Schema's output; `unknown` for a JSON Schema). */
export type ToolArguments<T extends ToolSchemas> = { [K in keyof T & string]: SchemaValue<T[K]> };

export interface ToolCallOptions<T extends ToolSchemas = ToolSchemas>
  extends ProviderDecoderOptions,
    ValidatorOptions,
    CoercionOptions {
  /**
   * Per tool name, the schema its arguments must match (JSON Schema, with `compileJsonSchema`,
   * or Standard Schema). Default: none — every call's arguments are delivered unchecked. When
   * given, a call to a tool it does not list is a `schema` diagnostic (rule `tool`).
   */
  readonly tools?: T;
  /**
   * Prefix validation of each call's arguments while they stream (default `true` with a
   * schema: see the partial builder's `prefixCheck`). `false`: arguments are checked only once
   * complete.
   */
  readonly prefixCheck?: boolean;
  /**
   * Snapshots of each call's arguments: `true` (default) immutable, structurally shared
   * snapshots; `'paced'` the same, handed out only when the input pays for the copies (linear
   * time for long arrays: decision 020); `false` the builder's live value, for consumers that
   * apply the changes.
   */
  readonly snapshots?: boolean | 'paced';
  /** Deepest nesting of a call's arguments. Default 512. */
  readonly maxDepth?: number;
  /** Longest string or number kept in a call's arguments while it streams. Default 8 MiB. */
  readonly maxValueLength?: number;
}

/** What the sink receives for a call whose arguments changed. */
export interface ToolCallUpdate<T = unknown> {
  /** The key the decoder delivers the call's pieces under (its id, else its index). */
  readonly key: string;
  /** The provider's index of the call (see ToolCallInfo). */
  readonly index: number;
  /** The provider's call id, once known. */
  readonly id?: string;
  /** The tool's name, once known. */
  readonly name?: string;
  /** The arguments so far: a snapshot (see `snapshots`), `undefined` before the document starts. */
  readonly value: DeepPartial<T> | undefined;
  /** What changed since the call's previous update. */
  readonly changes: readonly Change[];
  /**
   * True once the arguments are one whole JSON document: the value is final, validated (a
   * `schema` diagnostic came before this update if it does not match) and coerced with `coerce`.
   */
  readonly complete: boolean;
}

export interface ToolCallSink {
  /** A call's arguments changed. */
  update(update: ToolCallUpdate): void;
  diagnostic(diagnostic: Diagnostic): void;
  /** A piece of the answer text the stream also holds (never empty). */
  text?(delta: string): void;
  /** A piece of reasoning text. */
  reasoning?(delta: string): void;
  /** The provider's metadata, each time an event changed it. */
  metadata?(metadata: ProviderMetadata): void;
}

export interface ToolCallStats {
  /** Calls seen. */
  calls: number;
  /** Calls whose arguments completed. */
  completeCalls: number;
  /** Updates delivered. */
  updates: number;
  /** The provider decoder's counts. */
  readonly provider: Readonly<ProviderStats>;
  /** Diagnostics by reason, the decoder's and every call's. */
  diagnostics: DiagnosticCounts;
}

/** A call as the engine holds it. */
export interface ToolCallState<T = unknown> {
  readonly key: string;
  readonly index: number;
  readonly id?: string;
  readonly name?: string;
  /** The arguments so far (the builder's current value). */
  readonly value: DeepPartial<T> | undefined;
  /** True once the arguments are one whole JSON document. */
  readonly complete: boolean;
}

export interface ToolCallDecoder extends Engine<ToolCallStats> {
  /** The raw body's bytes first, for a binary one (Bedrock): see ProviderDecoder.bytes. */
  bytes(chunk: Uint8Array): boolean;
  /** Every call seen, in order of first appearance. */
  readonly calls: readonly ToolCallState[];
  /** The provider decoder underneath (metadata, `toolCalls` with the raw argument text). */
  readonly provider: ProviderDecoder;
}

interface Call {
  readonly key: string;
  info: ToolCallInfo;
  readonly builder: PartialBuilder;
}

/** The call's label in messages: `tool call 0 (get_weather)`. */
function label(info: ToolCallInfo): string {
  return `tool call ${info.index}${info.name === undefined ? '' : ` (${quoteInput(info.name, 60)})`}`;
}

class ToolCalls implements ToolCallDecoder {
  readonly provider: ProviderDecoder;
  readonly stats: ToolCallStats;
  readonly #sink: ToolCallSink;
  readonly #options: ToolCallOptions;
  readonly #tools: ToolSchemas | undefined;
  readonly #calls: Call[] = [];
  readonly #byKey = new Map<string, Call>();

  constructor(options: ToolCallOptions, sink: ToolCallSink) {
    checkOptionNames('createToolCallDecoder', options, TOOL_CALL_DECODER_OPTIONS);
    checkChoice('prefixCheck', options.prefixCheck, [true, false]);
    checkChoice('snapshots', options.snapshots, [true, false, 'paced']);
    const tools = options.tools;
    if (tools !== undefined && (typeof tools !== 'object' || tools === null || Array.isArray(tools))) {
      throw new ConfigurationError(
        ConfigurationErrorCode.optionInvalid,
        `tools must be an object mapping tool names to schemas, got ${Array.isArray(tools) ? 'an array' : quoteInput(String(tools))}`,
      );
    }
    this.#options = options;
    this.#tools = tools;
    this.#sink = sink;
    // Every tool's schema is compiled (and checked) now: a broken one is a configuration error
    // before any input, not a failure at its first call.
    // Their warnings (`onWarning`) are said then, once per tool, not at every call.
    if (tools !== undefined) {
      for (const name of Object.keys(tools)) this.#builder(name, () => undefined, undefined, options.onWarning);
    }
    // The names were checked above, against the tool-call list the provider's is part of.
    this.provider = createProviderDecoder(namesChecked(options), {
      text: (delta) => sink.text?.(delta),
      reasoning: (delta) => sink.reasoning?.(delta),
      metadata: (metadata) => sink.metadata?.(metadata),
      diagnostic: (diagnostic) => this.#diagnostic(diagnostic),
      toolArguments: (key, delta, info) => this.#piece(key, delta, info),
      toolCallDropped: (key) => this.#drop(key),
    });
    this.stats = { calls: 0, completeCalls: 0, updates: 0, provider: this.provider.stats, diagnostics: {} };
  }

  get calls(): readonly ToolCallState[] {
    return this.#calls.map((call) => ({
      key: call.key,
      index: call.info.index,
      ...(call.info.id === undefined ? {} : { id: call.info.id }),
      ...(call.info.name === undefined ? {} : { name: call.info.name }),
      value: call.builder.value,
      complete: call.builder.complete,
    }));
  }

  bytes(chunk: Uint8Array): boolean {
    return this.provider.bytes(chunk);
  }

  write(text: string): void {
    this.provider.write(text);
  }

  end(): void {
    this.provider.end();
    // A call the stream cut: its builder reports what the end decides (`truncated`, `syntax`).
    for (const call of this.#calls) call.builder.end();
  }

  /** A builder for the arguments of a call to `name` (undefined: no schema), reporting to `report`. */
  #builder(
    name: string | undefined,
    report: (diagnostic: Diagnostic) => void,
    call?: () => Call,
    onWarning?: ToolCallOptions['onWarning'],
  ): PartialBuilder {
    const options = this.#options;
    // Own properties only: a model that calls `constructor` or `__proto__` names no tool, and must
    // not reach Object.prototype's members (which are not schemas) through a plain `tools` object.
    const tools = this.#tools;
    const schema = name === undefined || tools === undefined || !Object.hasOwn(tools, name) ? undefined : tools[name];
    return createPartialBuilder(
      {
        ...(schema === undefined ? {} : { schema }),
        ...(options.compileJsonSchema === undefined ? {} : { compileJsonSchema: options.compileJsonSchema }),
        ...(onWarning === undefined ? {} : { onWarning }),
        ...(options.coerce === undefined ? {} : { coerce: options.coerce }),
        ...(options.coerceWith === undefined ? {} : { coerceWith: options.coerceWith }),
        ...(options.prefixCheck === undefined ? {} : { prefixCheck: options.prefixCheck }),
        ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
        ...(options.maxValueLength === undefined ? {} : { maxValueLength: options.maxValueLength }),
        snapshots: options.snapshots ?? true,
        updateOn: 'changes',
      },
      {
        update: (value, changes) => {
          if (call === undefined) return;
          const { key, info, builder } = call();
          this.stats.updates++;
          if (builder.complete) this.stats.completeCalls++;
          this.#sink.update({
            key,
            index: info.index,
            ...(info.id === undefined ? {} : { id: info.id }),
            ...(info.name === undefined ? {} : { name: info.name }),
            value,
            changes,
            complete: builder.complete,
          });
        },
        diagnostic: report,
      },
    );
  }

  #piece(key: string, delta: string, info: ToolCallInfo): void {
    let call = this.#byKey.get(key);
    if (call === undefined) {
      let made: Call | undefined;
      const builder = this.#builder(
        info.name,
        (diagnostic) => this.#callDiagnostic(made as Call, diagnostic),
        () => made as Call,
      );
      made = { key, info, builder };
      call = made;
      this.#calls.push(call);
      this.#byKey.set(key, call);
      this.stats.calls++;
      const tools = this.#tools;
      if (tools !== undefined && info.name !== undefined && !Object.hasOwn(tools, info.name)) {
        const listed = Object.keys(tools);
        this.#callDiagnostic(call, {
          reason: DiagnosticReason.schema,
          offset: 0,
          excerpt: quoteInput(info.name, 60),
          message: `the model called ${JSON.stringify(quoteInput(info.name, 60))}, which is not one of the tools (${listed.length === 0 ? 'none' : quoteInput(listed.join(', '))}); its arguments are not checked`,
          rule: 'tool',
        });
      }
    } else {
      // The id or name may come with a later piece.
      call.info = info;
    }
    call.builder.write(delta);
  }

  /**
   * The decoder dropped the call (arguments past `maxArgumentsLength`, reported by it): the call
   * and its builder are forgotten, so it neither ends as `truncated` nor holds its value.
   */
  #drop(key: string): void {
    const call = this.#byKey.get(key);
    if (call === undefined) return;
    this.#byKey.delete(key);
    this.#calls.splice(this.#calls.indexOf(call), 1);
  }

  #callDiagnostic(call: Call, diagnostic: Diagnostic): void {
    const info = call.info;
    const toolCall = {
      index: info.index,
      ...(info.id === undefined ? {} : { id: info.id }),
      ...(info.name === undefined ? {} : { name: info.name }),
    };
    this.#diagnostic({ ...diagnostic, message: `${label(info)}: ${diagnostic.message}`, toolCall });
  }

  #diagnostic(diagnostic: Diagnostic): void {
    countDiagnostic(this.stats.diagnostics, diagnostic.reason);
    this.#sink.diagnostic(diagnostic);
  }
}

/**
 * Creates the tool-call engine. Throws ConfigurationError for an invalid option or tool schema
 * (see ToolCallOptions). Updates are typed by the tools' Standard Schemas where given.
 */
export function createToolCallDecoder<T extends ToolSchemas = ToolSchemas>(
  options: ToolCallOptions<T>,
  sink: ToolCallSink,
): ToolCallDecoder {
  return new ToolCalls(options, sink);
}

// ---- option names (the options policy: options/option-checks.ts) ----------------------------

/** The options `createToolCallDecoder` takes. */
export const TOOL_CALL_DECODER_OPTIONS = /* @__PURE__ */ optionNames<ToolCallOptions>()([
  'input',
  'maxEventLength',
  'maxArgumentsLength',
  'keepToolArguments',
  'tools',
  'prefixCheck',
  'snapshots',
  'maxDepth',
  'maxValueLength',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createToolCallStream` takes. */
export const TOOL_CALL_STREAM_OPTIONS = /* @__PURE__ */ optionNames<
  ToolCallOptions & AdapterOptions & { onText?: unknown; onReasoning?: unknown; onMetadata?: unknown }
>()([
  'input',
  'maxEventLength',
  'maxArgumentsLength',
  'keepToolArguments',
  'tools',
  'prefixCheck',
  'snapshots',
  'maxDepth',
  'maxValueLength',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
  'onText',
  'onReasoning',
  'onMetadata',
]);
