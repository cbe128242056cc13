/**
 * `array({ element })`: the AI SDK's `Output.array`, read incrementally with llmjson. The
 * provider is asked for the same document (`{ "elements": [...] }`, JSON mode); a bare array is
 * read too. Each element is delivered once complete and valid: in the partial list and on
 * `elementStream` as it closes, and in the final list even when the answer was cut off.
 *
 * Contract:
 * - One partial-value builder reads the answer, fed only the text past what it has read
 *   (output-run.ts), without snapshots (the elements come from its `complete` changes, and a
 *   complete subtree never changes again): linear in the answer.
 * - An element is validated against `element` when it closes (a Standard Schema: the vendor's
 *   output, as `Output.array` returns it; a JSON Schema: by `compileJsonSchema`; the AI SDK's
 *   `jsonSchema()` / `zodSchema()`: its JSON Schema by `compileJsonSchema`, then its `validate`,
 *   whose output is the element: output-schema.ts). An invalid one
 *   is dropped and reported (`schema`, with its path `/elements/3`); with `failFast` it aborts
 *   the request's controller and the final parse throws `NoObjectGeneratedError`.
 * - The final value is every valid element, in order. A cut-off answer (the token limit) keeps
 *   the complete elements before the cut, with a `truncated` diagnostic; an answer with no array
 *   at all (nor one in a fence or prose: salvage) is `NoObjectGeneratedError`.
 * - On a valid answer the final value equals `Output.array`'s.
 */

import {
  type Change,
  ConfigurationError,
  ConfigurationErrorCode,
  createPartialBuilder,
  type Diagnostic,
  extractJson,
  type JsonSchemaCompiler,
  type PartialBuilder,
} from '@llmjson/core';
import {
  checkOptionNames,
  compileStandardSchema,
  isStandardSchema,
  namesChecked,
  optionNames,
} from '@llmjson/core/internal';
import type { Output } from 'ai';
import { elementTransform } from './element-transform.js';
import { jsonResponseFormat, noDocument } from './object-output.js';
import {
  type CompleteContext,
  DiagnosticChannel,
  jsonSchemaFor,
  noObject,
  type OutputRunOptions,
  TextFollower,
} from './output-run.js';
import { type OutputSchema, type OutputValue, planSchema } from './output-schema.js';

export interface ArrayOutputOptions<S extends OutputSchema = OutputSchema> extends OutputRunOptions {
  /**
   * Each element's schema: zod 4, valibot 1, arktype 2, a JSON Schema (then `compileJsonSchema`),
   * or the AI SDK's `jsonSchema()` / `zodSchema()` (then `compileJsonSchema`; its `validate`
   * gives each element).
   */
  readonly element: S;
  /** Compiles a JSON Schema `element` (an AI SDK schema's too): `compileSchema` from `@llmjson/web/ajv`. Default: none. */
  readonly compileJsonSchema?: JsonSchemaCompiler;
  /** Deepest nesting accepted, in levels. Default 512. */
  readonly maxDepth?: number;
  /** Name of the output, for providers that use one. Default: none. */
  readonly name?: string;
  /** Description of the output, for providers that use one. Default: none. */
  readonly description?: string;
}

/** The options `array` takes (the options policy: checked by name). */
export const ARRAY_OUTPUT_OPTIONS = /* @__PURE__ */ optionNames<ArrayOutputOptions>()([
  'element',
  'compileJsonSchema',
  'maxDepth',
  'name',
  'description',
  'onDiagnostic',
  'failFast',
  'abortController',
]);

interface Run {
  readonly builder: PartialBuilder;
  /** Elements closed and not yet validated, with their index. */
  readonly closed: { readonly index: number; readonly value: unknown; readonly offset: number }[];
  readonly values: unknown[];
  ended: boolean;
}

/** The document the provider is asked for: `{ elements: [element, ...] }` (as the AI SDK's own). */
function wrapperSchema(element: Record<string, unknown> | undefined): Record<string, unknown> {
  const { $schema: _schema, $defs, definitions, ...items } = element ?? {};
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    ...(definitions !== undefined && { definitions }),
    ...($defs !== undefined && { $defs }),
    type: 'object',
    properties: { elements: { type: 'array', items } },
    required: ['elements'],
    additionalProperties: false,
  };
}

/** The elements of a salvaged document: `{ elements: [...] }` or a bare array. */
function elementsOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null && Array.isArray((value as { elements?: unknown }).elements)) {
    return (value as { elements: unknown[] }).elements;
  }
  return undefined;
}

/**
 * An AI SDK output for a list: the complete, valid elements so far as the partial output, each
 * on `elementStream` as it closes, all of them at the end (a cut-off answer's too).
 */
export function array<S extends OutputSchema>(
  options: ArrayOutputOptions<S>,
): Output.Output<OutputValue<S>[], OutputValue<S>[], OutputValue<S>> {
  checkOptionNames('array', options, ARRAY_OUTPUT_OPTIONS);
  if (options.element === undefined) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      'array needs `element`: the schema of each element',
    );
  }
  const plan = planSchema('array', 'element', options.element, options.compileJsonSchema);
  const schema = plan.engine as NonNullable<typeof plan.engine>;
  let compiled: ReturnType<JsonSchemaCompiler>;
  if (isStandardSchema(schema)) compiled = compileStandardSchema(schema);
  else if (options.compileJsonSchema !== undefined) compiled = options.compileJsonSchema(schema as never);
  else {
    throw new ConfigurationError(
      ConfigurationErrorCode.noJsonSchemaCompiler,
      'a JSON Schema `element` needs `compileJsonSchema` (compileSchema from @llmjson/web/ajv), or pass a zod, valibot or arktype schema',
    );
  }
  const builderOptions = namesChecked({
    ...(options.maxDepth !== undefined && { maxDepth: options.maxDepth }),
    snapshots: false as const,
    trackChanges: true,
    updateOn: 'changes' as const,
    nullValue: 'value' as const,
  });
  const channel = new DiagnosticChannel(options);
  const follower = new TextFollower();
  let run: Run | undefined;

  const start = (): Run => {
    channel.reset();
    const state: Run = {
      closed: [],
      values: [],
      ended: false,
      builder: createPartialBuilder(builderOptions, {
        update(value, changes) {
          collectClosed(state, value, changes);
        },
        diagnostic(diagnostic) {
          channel.report(diagnostic);
        },
      }),
    };
    return state;
  };

  const collectClosed = (state: Run, root: unknown, changes: readonly Change[]): void => {
    for (const change of changes) {
      if (change.op !== 'complete') continue;
      const path = change.path;
      const index = Array.isArray(root)
        ? path.length === 1
          ? path[0]
          : undefined
        : path.length === 2 && path[0] === 'elements'
          ? path[1]
          : undefined;
      if (typeof index !== 'number') continue;
      const list = Array.isArray(root) ? root : (root as { elements: unknown[] }).elements;
      state.closed.push({ index, value: list[index], offset: state.builder.stats.characters });
    }
  };

  /** Validates the closed elements into `values`; true when any was added. */
  const settle = async (state: Run): Promise<boolean> => {
    let added = false;
    for (const { index, value, offset } of state.closed.splice(0)) {
      if (channel.failure !== undefined) break;
      const checked = compiled.validate(value);
      let why: string;
      if (checked.valid) {
        const result = await plan.finish(value);
        if ('value' in result) {
          state.values.push(result.value);
          added = true;
          continue;
        }
        why = result.rejected;
      } else why = checked.message;
      const diagnostic: Diagnostic = {
        reason: 'schema',
        offset,
        excerpt: '',
        path: `/elements/${index}`,
        message: `element ${index} does not match the element schema: ${why}`,
        ...(!checked.valid && { errors: checked.errors }),
      };
      channel.report(diagnostic);
    }
    return added;
  };

  return {
    name: 'array',
    responseFormat: jsonResponseFormat(wrapperSchema(jsonSchemaFor(schema)), options.name, options.description),

    async parsePartialOutput({ text }) {
      const next = follower.next(text);
      if (next.restarted || run === undefined) run = start();
      if (channel.failure !== undefined) return undefined;
      run.builder.write(next.text);
      if (!(await settle(run)) || channel.failure !== undefined) return undefined;
      return { partial: run.values.slice() as OutputValue<S>[] };
    },

    async parseCompleteOutput({ text }, context: CompleteContext) {
      if (run === undefined || run.ended || !follower.isAt(text)) {
        follower.next('');
        follower.next(text);
        run = start();
        run.builder.write(text);
      }
      const current = run;
      current.ended = true;
      current.builder.end();
      await settle(current);
      if (channel.failure !== undefined) throw noObject(text, context, channel.failure);
      const root = current.builder.value;
      if (Array.isArray(root) || elementsOf(root) !== undefined) return current.values.slice() as OutputValue<S>[];
      // No list where the builder looked: a fenced or embedded one, anywhere in the text.
      const salvaged = elementsOf(extractJson(text)?.value);
      if (salvaged === undefined) throw noObject(text, context, noDocument(text.length));
      const values: unknown[] = [];
      for (const value of salvaged) {
        const result = compiled.validate(value).valid ? await plan.finish(value) : undefined;
        if (result !== undefined && 'value' in result) values.push(result.value);
      }
      return values as OutputValue<S>[];
    },

    createElementStreamTransform() {
      return elementTransform<OutputValue<S>>() as unknown as ReturnType<
        Output.Output<OutputValue<S>[], OutputValue<S>[], OutputValue<S>>['createElementStreamTransform']
      >;
    },
  };
}
