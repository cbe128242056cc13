/**
 * `partialObjectTransform({ schema })`: a `streamText` transform (`experimental_transform`) that
 * adds llmjson's validated partial values and diagnostics to `fullStream`, beside the text, for
 * consumers that read `fullStream` (a UI message stream, a logger) rather than
 * `partialOutputStream`.
 *
 * What it adds, as the AI SDK's own `custom` parts (`TextStreamCustomPart`: a `kind` of the form
 * `provider.name` and `providerMetadata`, which the AI SDK passes through untouched; ai 7 has
 * no other open part type), each right after the text delta that caused it:
 * - `{ type: 'custom', kind: 'llmjson.partial', providerMetadata: { llmjson: { value } } }`: the
 *   value so far, once per delta that changed it (structurally shared snapshots, paced for long
 *   arrays, decision 020), and only while its prefix can still match the schema;
 * - `{ type: 'custom', kind: 'llmjson.diagnostic', providerMetadata: { llmjson: diagnostic } }`;
 * - at the text's end, `{ type: 'custom', kind: 'llmjson.value', providerMetadata: { llmjson: { value } } }`
 *   with the complete document when it is valid. With the AI SDK's `jsonSchema()` / `zodSchema()`
 *   as `schema`, its JSON Schema checks the partials and the document (output-schema.ts), and its
 *   `validate` must accept the document too (a refusal is a `schema` diagnostic part instead).
 *   The part carries the document as parsed, as for every schema: the partials before it are
 *   parsed JSON too, and a UI merging them should not see the shape change at the end.
 * Every part the AI SDK sent passes through unchanged and in order.
 *
 * Invariants: the first text block of each step is the document (as `Output.object` reads it);
 * each of its deltas is written once to one partial-value builder, which starts over at each
 * `start-step`: linear in the answer. With `failFast`, the first violation is reported, then
 * the transform calls the AI SDK's `stopStream()` (the model's stream is closed) and aborts
 * `abortController` with the `ContractViolationError`; nothing more is added.
 */

import { createPartialBuilder, type Diagnostic, type PartialBuilder, type PartialOptions } from '@llmjson/core';
import { checkOptionNames, namesChecked, optionNames } from '@llmjson/core/internal';
import type { TextStreamPart, ToolSet } from 'ai';
import { DiagnosticChannel, type OutputRunOptions } from './output-run.js';
import { type OutputSchema, planSchema } from './output-schema.js';

export interface PartialTransformOptions<S extends OutputSchema = OutputSchema>
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
   * JSON Schema of the document (then `compileJsonSchema`), a zod 4, valibot 1 or arktype 2
   * schema, or the AI SDK's `jsonSchema()` / `zodSchema()` (then `compileJsonSchema`). Default:
   * none (any JSON document).
   */
  readonly schema?: S;
}

/** The options `partialObjectTransform` takes (the options policy: checked by name). */
export const PARTIAL_TRANSFORM_OPTIONS = /* @__PURE__ */ optionNames<PartialTransformOptions>()([
  'schema',
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

/** The `kind`s of the parts the transform adds. */
export const PartKind = {
  partial: 'llmjson.partial',
  diagnostic: 'llmjson.diagnostic',
  value: 'llmjson.value',
} as const;

const FATAL: ReadonlySet<string> = new Set(['syntax', 'schema', 'violation', 'truncated', 'too-long', 'too-deep']);

/** A transform for `streamText({ experimental_transform })`, typed for any tool set. */
export type LlmjsonStreamTransform = <TOOLS extends ToolSet>(options: {
  tools: TOOLS;
  stopStream: () => void;
}) => TransformStream<TextStreamPart<TOOLS>, TextStreamPart<TOOLS>>;

function custom(kind: string, data: unknown): TextStreamPart<ToolSet> {
  return { type: 'custom', kind: kind as `${string}.${string}`, providerMetadata: { llmjson: data as never } };
}

/**
 * A `streamText` transform that adds validated partial values, diagnostics and the final value
 * of the answer's JSON document to `fullStream` as `custom` parts (kinds in `PartKind`).
 */
export function partialObjectTransform<S extends OutputSchema>(
  options: PartialTransformOptions<S> = {},
): LlmjsonStreamTransform {
  checkOptionNames('partialObjectTransform', options, PARTIAL_TRANSFORM_OPTIONS);
  const plan = planSchema('partialObjectTransform', 'schema', options.schema, options.compileJsonSchema);
  const {
    schema: _schema,
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
  createPartialBuilder(builderOptions, { update() {}, diagnostic() {} });

  return <TOOLS extends ToolSet>({ stopStream }: { tools: TOOLS; stopStream: () => void }) => {
    // One transform per streamText call: its state is that call's.
    const channel = new DiagnosticChannel(options);
    const out: TextStreamPart<ToolSet>[] = [];
    let builder: PartialBuilder | undefined;
    let textId: string | undefined;
    let fatal: Diagnostic | undefined;
    let stopped = false;

    const report = (diagnostic: Diagnostic) => {
      if (channel.failure !== undefined) return;
      if (FATAL.has(diagnostic.reason)) fatal ??= diagnostic;
      out.push(custom(PartKind.diagnostic, diagnostic));
      channel.report(diagnostic);
    };

    const start = () => {
      channel.reset();
      fatal = undefined;
      textId = undefined;
      builder = createPartialBuilder(builderOptions, {
        update(value) {
          if (fatal === undefined) out.push(custom(PartKind.partial, { value }));
        },
        diagnostic: report,
      });
    };

    /** The `llmjson.value` part of a complete document once the schema's own `validate` accepts it, else a `schema` diagnostic. */
    const checkedValue = async (current: PartialBuilder) => {
      const result = await plan.finish(current.value);
      if ('value' in result) {
        out.push(custom(PartKind.value, { value: current.value }));
        return;
      }
      report({
        reason: 'schema',
        offset: current.stats.characters,
        excerpt: '',
        path: '',
        message: `the document does not match the schema: ${result.rejected}`,
      });
    };

    const drain = (controller: TransformStreamDefaultController<TextStreamPart<TOOLS>>) => {
      for (const part of out.splice(0)) controller.enqueue(part as TextStreamPart<TOOLS>);
      if (channel.failure !== undefined && !stopped) {
        stopped = true;
        stopStream();
      }
    };

    return new TransformStream<TextStreamPart<TOOLS>, TextStreamPart<TOOLS>>({
      transform(part, controller): Promise<void> | undefined {
        controller.enqueue(part);
        if (stopped) return undefined;
        if (part.type === 'start-step' || builder === undefined) start();
        const current = builder as PartialBuilder;
        if ((part.type === 'text-start' || part.type === 'text-delta') && textId === undefined) textId = part.id;
        if (part.type === 'text-delta' && part.id === textId) {
          current.write(part.text);
        } else if (part.type === 'text-end' && part.id === textId) {
          current.end();
          if (current.complete && fatal === undefined && channel.failure === undefined) {
            // Async only here, and only for a check the builder did not run: every other part passes synchronously.
            if (plan.checksApart) return checkedValue(current).then(() => drain(controller));
            out.push(custom(PartKind.value, { value: current.value }));
          }
        }
        drain(controller);
        return undefined;
      },
    });
  };
}
