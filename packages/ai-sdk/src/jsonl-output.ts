/**
 * `jsonl({ schema })`: an AI SDK output for answers written as JSON Lines, one object per line.
 * No AI SDK output mode reads them: `Output.array` needs the whole `{ "elements": [...] }`
 * document, and a cut-off or partly broken answer loses everything.
 *
 * Contract:
 * - Each line is read once, by one JSONL decoder (`createJsonlDecoder` from @llmjson/core) fed
 *   only the text past what it has read (output-run.ts): linear in the answer.
 * - An object is delivered (a partial list one longer, and `elementStream` yields it) as soon as
 *   its line ends, validated against `schema` (with a Standard Schema, the vendor's output; with
 *   the AI SDK's `jsonSchema()` / `zodSchema()`, its JSON Schema by `compileJsonSchema`, then its
 *   `validate`, whose output is the object and whose refusal drops the line as invalid:
 *   output-schema.ts). The
 *   last line needs no line break: the step's `text-end` (or `finish-step`) ends the decoder,
 *   once, for the element stream and the final parse alike.
 * - Blank and fence lines are skipped; a prose, malformed, invalid or cut-off line is dropped
 *   and reported to `onDiagnostic` (with its line number); the answer goes on. With `failFast`,
 *   the first invalid line (or, with `prefixCheck`, a line whose text already breaks the schema)
 *   aborts the request's controller and the final parse throws `NoObjectGeneratedError`.
 * - The final value is every valid object, in order (an empty list when there is none: dropped
 *   lines are reported, never thrown, as in every llmjson JSONL stream).
 * - The response format is text: JSON mode would force one document.
 */

import {
  createJsonlDecoder,
  type Diagnostic,
  type JsonlDecoder,
  type JsonlOptions,
  type JsonlValueInfo,
  linePrefixCheck,
} from '@llmjson/core';
import { checkOptionNames, namesChecked, optionNames, prefixCheckDefault } from '@llmjson/core/internal';
import type { Output } from 'ai';
import { elementTransform } from './element-transform.js';
import {
  type CompleteContext,
  DiagnosticChannel,
  noObject,
  type OutputRunOptions,
  TextFollower,
} from './output-run.js';
import { type OutputSchema, type OutputValue, planSchema } from './output-schema.js';

export interface JsonlOutputOptions<S extends OutputSchema = OutputSchema>
  extends Pick<
      JsonlOptions,
      | 'discriminator'
      | 'strict'
      | 'maxLineLength'
      | 'maxDepth'
      | 'prefixCheck'
      | 'compileJsonSchema'
      | 'onWarning'
      | 'coerce'
      | 'coerceWith'
    >,
    OutputRunOptions {
  /**
   * Schema every object must match: zod 4, valibot 1, arktype 2, a JSON Schema (then
   * `compileJsonSchema`), or the AI SDK's `jsonSchema()` / `zodSchema()` (then
   * `compileJsonSchema`; its `validate` gives each object). Default: none (every JSON value passes).
   */
  readonly schema?: S;
}

/** The options `jsonl` takes (the options policy: checked by name). */
export const JSONL_OUTPUT_OPTIONS = /* @__PURE__ */ optionNames<JsonlOutputOptions>()([
  'schema',
  'discriminator',
  'strict',
  'maxLineLength',
  'maxDepth',
  'prefixCheck',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'onDiagnostic',
  'failFast',
  'abortController',
]);

interface Run {
  readonly decoder: JsonlDecoder;
  /** The decoder's end, once asked for (by the final parse or the element stream: whichever comes first). */
  finished: Promise<void> | undefined;
  /** Objects decoded and not yet passed through the schema's final check, with where their line was. */
  readonly fresh: { readonly value: unknown; readonly info: JsonlValueInfo }[];
  readonly values: unknown[];
  ended: boolean;
}

/**
 * An AI SDK output for JSON Lines: the validated objects so far as the partial output, each one
 * on `elementStream` as its line completes, all of them at the end.
 */
export function jsonl<S extends OutputSchema>(
  options: JsonlOutputOptions<S> = {},
): Output.Output<OutputValue<S>[], OutputValue<S>[], OutputValue<S>> {
  checkOptionNames('jsonl', options, JSONL_OUTPUT_OPTIONS);
  const plan = planSchema('jsonl', 'schema', options.schema, options.compileJsonSchema);
  const {
    schema: _schema,
    onDiagnostic: _onDiagnostic,
    failFast: _failFast,
    abortController: _abortController,
    ...engine
  } = options;
  const prefixCheck = prefixCheckDefault(options);
  const decoderOptions = namesChecked({
    ...(engine as JsonlOptions),
    ...(plan.engine !== undefined && { schema: plan.engine }),
    prefixCheck,
    ...(prefixCheck && { prefixCheckWith: linePrefixCheck }),
    nullValue: 'value',
  } satisfies JsonlOptions);
  createJsonlDecoder(decoderOptions, { value() {}, diagnostic() {} });
  const channel = new DiagnosticChannel(options);
  const follower = new TextFollower();
  let run: Run | undefined;

  const start = (): Run => {
    channel.reset();
    const fresh: Run['fresh'] = [];
    return {
      fresh,
      values: [],
      ended: false,
      finished: undefined,
      decoder: createJsonlDecoder(decoderOptions, {
        value(value, info) {
          if (channel.failure === undefined) fresh.push({ value, info });
        },
        diagnostic(diagnostic) {
          channel.report(diagnostic);
        },
      }),
    };
  };

  /**
   * Moves the decoded objects through the schema's final check into `values`; true when any was
   * added. A refusal drops the line as an invalid one is dropped: reported, as `schema`.
   */
  const settle = async (current: Run): Promise<boolean> => {
    let added = false;
    for (const { value, info } of current.fresh.splice(0)) {
      if (channel.failure !== undefined) break;
      const result = await plan.finish(value);
      if ('value' in result) {
        current.values.push(result.value);
        added = true;
        continue;
      }
      const refusal: Diagnostic = {
        reason: 'schema',
        line: info.line,
        ...(info.endLine !== info.line && { endLine: info.endLine }),
        offset: info.offset,
        excerpt: '',
        message: `line ${info.line} does not match the schema: ${result.rejected}`,
        ...(info.branch !== undefined && { branch: info.branch }),
      };
      channel.report(refusal);
    }
    return added;
  };

  /** Ends the decoder once (its last line needs no line break) and settles what that delivers. */
  const finish = (current: Run): Promise<void> => {
    current.finished ??= (async () => {
      current.decoder.end();
      await settle(current);
    })();
    return current.finished;
  };

  return {
    name: 'jsonl',
    responseFormat: Promise.resolve({ type: 'text' as const }),

    async parsePartialOutput({ text }) {
      const next = follower.next(text);
      if (next.restarted || run === undefined) run = start();
      if (channel.failure !== undefined) return undefined;
      run.decoder.write(next.text);
      if (!(await settle(run)) || channel.failure !== undefined) return undefined;
      return { partial: run.values.slice() as OutputValue<S>[] };
    },

    async parseCompleteOutput({ text }, context: CompleteContext) {
      if (run === undefined || run.ended || !follower.isAt(text)) {
        follower.next('');
        follower.next(text);
        run = start();
        run.decoder.write(text);
      }
      const current = run;
      current.ended = true;
      await finish(current);
      if (channel.failure !== undefined) throw noObject(text, context, channel.failure);
      return current.values.slice() as OutputValue<S>[];
    },

    createElementStreamTransform() {
      // The last line ends with the text: when the step's text ends, its object is delivered too.
      const atEnd = async (): Promise<readonly unknown[] | undefined> => {
        const current = run;
        if (current === undefined || channel.failure !== undefined) return undefined;
        await finish(current);
        return channel.failure === undefined ? current.values : undefined;
      };
      return elementTransform<OutputValue<S>>(atEnd) as unknown as ReturnType<
        Output.Output<OutputValue<S>[], OutputValue<S>[], OutputValue<S>>['createElementStreamTransform']
      >;
    },
  };
}
