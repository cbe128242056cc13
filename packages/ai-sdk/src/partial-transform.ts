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
 *   with the complete document when it is valid.
 * Every part the AI SDK sent passes through unchanged and in order.
 *
 * Invariants: the first text block of each step is the document (as `Output.object` reads it);
 * each of its deltas is written once to one partial-value builder, which starts over at each
 * `start-step`: linear in the answer. With `failFast`, the first violation is reported, then
 * the transform calls the AI SDK's `stopStream()` (the model's stream is closed) and aborts
 * `abortController` with the `ContractViolationError`; nothing more is added.
 */

import {
  createPartialBuilder,
  type Diagnostic,
  type PartialBuilder,
  type PartialOptions,
  type SchemaInput,
} from '@llmjson/core';
import { checkOptionNames, namesChecked, optionNames } from '@llmjson/core/internal';
import type { TextStreamPart, ToolSet } from 'ai';
import { DiagnosticChannel, type OutputRunOptions } from './output-run.js';

export interface PartialTransformOptions<S extends SchemaInput = SchemaInput>
  extends Pick<
      PartialOptions<S>,
      | 'schema'
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
    OutputRunOptions {}

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
export function partialObjectTransform<S extends SchemaInput>(
  options: PartialTransformOptions<S> = {},
): LlmjsonStreamTransform {
  checkOptionNames('partialObjectTransform', options, PARTIAL_TRANSFORM_OPTIONS);
  const { onDiagnostic: _onDiagnostic, failFast: _failFast, abortController: _abortController, ...engine } = options;
  const builderOptions = namesChecked({
    ...(engine as PartialOptions),
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

    const start = () => {
      channel.reset();
      fatal = undefined;
      textId = undefined;
      builder = createPartialBuilder(builderOptions, {
        update(value) {
          if (fatal === undefined) out.push(custom(PartKind.partial, { value }));
        },
        diagnostic(diagnostic) {
          if (channel.failure !== undefined) return;
          if (FATAL.has(diagnostic.reason)) fatal ??= diagnostic;
          out.push(custom(PartKind.diagnostic, diagnostic));
          channel.report(diagnostic);
        },
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
      transform(part, controller) {
        controller.enqueue(part);
        if (stopped) return;
        if (part.type === 'start-step' || builder === undefined) start();
        const current = builder as PartialBuilder;
        if ((part.type === 'text-start' || part.type === 'text-delta') && textId === undefined) textId = part.id;
        if (part.type === 'text-delta' && part.id === textId) {
          current.write(part.text);
        } else if (part.type === 'text-end' && part.id === textId) {
          current.end();
          if (current.complete && fatal === undefined && channel.failure === undefined) {
            out.push(custom(PartKind.value, { value: current.value }));
          }
        }
        drain(controller);
      },
    });
  };
}
