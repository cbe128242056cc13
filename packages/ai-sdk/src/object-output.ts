/**
 * `object({ schema })`: the AI SDK's `Output.object`, read incrementally with llmjson. For
 * `streamText` (`output: object({ schema })`, then `partialOutputStream` and `output`) and
 * `generateText` (`output`).
 *
 * Why not the AI SDK's `Output.object`: its `parsePartialOutput` repairs and parses the whole
 * text again on every chunk (quadratic in the answer) and does not validate partials (its source
 * says so). Here one partial-value builder (`createPartialBuilder` from @llmjson/core) lives for
 * the step and is fed only the text past what it has read (output-run.ts): the work is linear
 * in the answer however it is chunked (the benchmark `ai-sdk-output` measures it).
 *
 * Invariants:
 * 1. Partials are structurally shared snapshots, never mutated after they are given, given only
 *    when the value changed (so the AI SDK publishes nothing for a chunk that changed nothing),
 *    and paced for long arrays (decision 020): linear however the answer is chunked.
 * 2. Every partial is a prefix of a document the schema can still accept: from the first
 *    `violation` (prefix validation) or `schema` diagnostic on, no partial is given; with
 *    `failFast` the request's controller is aborted there (output-run.ts).
 * 3. The final value is the complete document, validated: for a Standard Schema, the vendor's
 *    output (zod's defaults and stripped keys), equal to what `Output.object` returns for a
 *    valid answer; for the AI SDK's `jsonSchema()` / `zodSchema()`, its `validate`'s output
 *    (output-schema.ts), a refusal being a `schema` failure. A fence or prose around the document is skipped; when the text holds no
 *    valid document where the builder looked (prose with a stray `{` before it), the salvage
 *    order of `extractJson` (whole text, fenced blocks, inline code, embedded values) is tried
 *    before giving up. Otherwise the AI SDK's `NoObjectGeneratedError`, with llmjson's reason.
 * 4. State belongs to one call at a time: a text that does not extend the previous one (a new
 *    step, a retry, the next call) starts over.
 */

import {
  createPartialBuilder,
  type DeepPartial,
  type Diagnostic,
  extractJson,
  type PartialBuilder,
  type PartialOptions,
} from '@llmjson/core';
import { checkOptionNames, namesChecked, optionNames } from '@llmjson/core/internal';
import type { Output } from 'ai';
import {
  type CompleteContext,
  DiagnosticChannel,
  jsonSchemaFor,
  noObject,
  type OutputRunOptions,
  TextFollower,
} from './output-run.js';
import { type OutputSchema, type OutputValue, planSchema } from './output-schema.js';

export interface ObjectOutputOptions<S extends OutputSchema = OutputSchema>
  extends Pick<
      PartialOptions,
      | 'discriminator'
      | 'maxDepth'
      | 'maxValueLength'
      | 'prefixCheck'
      | 'snapshotBudget'
      | 'compileJsonSchema'
      | 'onWarning'
      | 'coerce'
      | 'coerceWith'
    >,
    OutputRunOptions {
  /**
   * The document's schema: zod 4, valibot 1 (through `toStandardJsonSchema`), arktype 2, a
   * JSON Schema (then `compileJsonSchema`, e.g. `compileSchema` from `@llmjson/web/ajv`), or the
   * AI SDK's `jsonSchema()` / `zodSchema()` (its JSON Schema, with `compileJsonSchema`; its
   * `validate` gives the final value). It types the output and partials, is sent to the
   * provider as the JSON response format, checks every prefix, and validates the final value.
   */
  readonly schema: S;
  /** Name of the output, for providers that use one (tool or schema name). Default: none. */
  readonly name?: string;
  /** Description of the output, for providers that use one. Default: none. */
  readonly description?: string;
}

/** The options `object` takes (the options policy: checked by name). */
export const OBJECT_OUTPUT_OPTIONS = /* @__PURE__ */ optionNames<ObjectOutputOptions>()([
  'schema',
  'name',
  'description',
  'discriminator',
  'maxDepth',
  'maxValueLength',
  'prefixCheck',
  'snapshotBudget',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'onDiagnostic',
  'failFast',
  'abortController',
]);

/** Diagnostics after which the text read cannot be a valid document. */
const FATAL: ReadonlySet<string> = new Set(['syntax', 'schema', 'violation', 'truncated', 'too-long', 'too-deep']);

/** One step's reading: the builder, the latest snapshot not given yet, the first fatal diagnostic. */
interface Run {
  readonly builder: PartialBuilder;
  pending: { readonly value: unknown } | undefined;
  fatal: Diagnostic | undefined;
  ended: boolean;
}

/** The response format the provider gets: JSON, with the schema when there is one to send. */
export function jsonResponseFormat(
  schema: Record<string, unknown> | undefined,
  name: string | undefined,
  description: string | undefined,
): Output.Output['responseFormat'] {
  return Promise.resolve({
    type: 'json' as const,
    ...(schema !== undefined && { schema }),
    ...(name !== undefined && { name }),
    ...(description !== undefined && { description }),
  }) as Output.Output['responseFormat'];
}

/**
 * An AI SDK output for one JSON document: linear, prefix-checked partials while it streams, the
 * validated value at the end. `S` types both (`DeepPartial` while streaming).
 */
export function object<S extends OutputSchema>(
  options: ObjectOutputOptions<S>,
): Output.Output<OutputValue<S>, DeepPartial<OutputValue<S>>, never> {
  checkOptionNames('object', options, OBJECT_OUTPUT_OPTIONS);
  const plan = planSchema('object', 'schema', options.schema, options.compileJsonSchema);
  const {
    schema: _schema,
    name,
    description,
    onDiagnostic: _onDiagnostic,
    failFast: _failFast,
    abortController: _abortController,
    ...engine
  } = options;
  const builderOptions = namesChecked({
    ...(engine as PartialOptions),
    ...(plan.engine !== undefined && { schema: plan.engine }),
    snapshots: 'paced',
    updateOn: 'values',
    nullValue: 'value',
    trackChanges: false,
  } satisfies PartialOptions);
  // Compiles the schema now: a broken schema or option is a ConfigurationError here, not mid-stream.
  createPartialBuilder(builderOptions, { update() {}, diagnostic() {} });
  const channel = new DiagnosticChannel(options);
  const follower = new TextFollower();
  let run: Run | undefined;

  const start = (): Run => {
    channel.reset();
    const state: Run = {
      pending: undefined,
      fatal: undefined,
      ended: false,
      builder: createPartialBuilder(builderOptions, {
        update(value) {
          if (state.fatal === undefined) state.pending = { value };
        },
        diagnostic(diagnostic) {
          if (FATAL.has(diagnostic.reason) && state.fatal === undefined) {
            state.fatal = diagnostic;
            state.pending = undefined;
          }
          channel.report(diagnostic);
        },
      }),
    };
    return state;
  };

  return {
    name: 'object',
    responseFormat: jsonResponseFormat(jsonSchemaFor(plan.engine), name, description),

    async parsePartialOutput({ text }) {
      const next = follower.next(text);
      if (next.restarted || run === undefined) run = start();
      if (run.fatal !== undefined || channel.failure !== undefined) return undefined;
      run.builder.write(next.text);
      const pending = run.pending;
      run.pending = undefined;
      return pending === undefined ? undefined : { partial: pending.value as DeepPartial<OutputValue<S>> };
    },

    async parseCompleteOutput({ text }, context: CompleteContext) {
      // generateText, or a text other than the one streamed: read it whole.
      if (run === undefined || run.ended || !follower.isAt(text)) {
        follower.next('');
        follower.next(text);
        run = start();
        run.builder.write(text);
      }
      const current = run;
      current.ended = true;
      if (channel.failure !== undefined) throw noObject(text, context, channel.failure);
      current.builder.end();
      if (channel.failure !== undefined) throw noObject(text, context, channel.failure);
      let rejected: string | undefined;
      if (current.builder.complete && current.fatal === undefined) {
        const result = await plan.finish(current.builder.value);
        if ('value' in result) return result.value as OutputValue<S>;
        rejected = result.rejected;
      }
      const salvaged = extractJson(text, {
        ...(plan.engine !== undefined && { schema: plan.engine }),
        ...(options.compileJsonSchema !== undefined && { compileJsonSchema: options.compileJsonSchema }),
      });
      if (salvaged !== undefined) {
        const result = await plan.finish(salvaged.value);
        if ('value' in result) return result.value as OutputValue<S>;
        rejected ??= result.rejected;
      }
      if (rejected !== undefined) {
        // The schema's own check refused a document the JSON Schema accepted: a `schema` failure, not a cut.
        const refusal: Diagnostic = {
          reason: 'schema',
          offset: text.length,
          excerpt: '',
          path: '',
          message: `the document does not match the schema: ${rejected}`,
        };
        channel.report(refusal);
        throw noObject(text, context, channel.failure ?? refusal);
      }
      throw noObject(text, context, current.fatal ?? noDocument(text.length));
    },

    createElementStreamTransform() {
      return undefined;
    },
  };
}

/** Why an answer gave nothing when no diagnostic said so. */
export function noDocument(length: number): Diagnostic {
  return {
    reason: 'truncated',
    offset: length,
    excerpt: '',
    message: 'the answer ended before a complete JSON document: ask the model for one JSON value',
  };
}
