/**
 * Web adapter for the partial-value builder: the value so far (a structurally shared
 * snapshot), the changes since the last chunk, or both. With `failFast`, the first `violation` (a
 * prefix no completion can make valid) or `schema` diagnostic errors the stream with a
 * `ContractViolationError`.
 */

import {
  type Change,
  createPartialBuilder,
  type DeepPartial,
  type PartialBuilder,
  type PartialOptions,
  type PartialStats,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface PartialStreamOptions<S extends SchemaInput = SchemaInput>
  extends Omit<PartialOptions<S>, 'updateOn' | 'nullValue'>,
    TextTransformOptions {
  /**
   * What each emitted item is: `'snapshots'` (default) the value so far, once per chunk that
   * changed it (never the same snapshot twice: a chunk that only closes values enqueues
   * nothing); `'changes'` the list of changes, once per chunk that changed anything (a
   * `complete` included); `'both'` `{ value, changes }`, as often as `'changes'`. A document
   * that is `null` is enqueued as `null` (the Node stream reports it instead: decision 004).
   */
  readonly emit?: 'snapshots' | 'changes' | 'both';
}

/** An item of `emit: 'both'`. */
export interface PartialUpdate<T = unknown> {
  readonly value: DeepPartial<T>;
  readonly changes: readonly Change[];
}

/** `T` is the document's type (snapshots are `DeepPartial<T>`); `Item` what `emit` enqueues. */
export interface PartialStream<T = unknown, Item = DeepPartial<T>> extends TransformStream<string | Uint8Array, Item> {
  readonly stats: Readonly<PartialStats>;
  /** The current value (the builder's latest snapshot, or its live tree with `snapshots: false`). */
  readonly value: DeepPartial<T> | undefined;
  /** True once a whole document was read (the builder's `complete`: never after a cut or broken one). */
  readonly complete: boolean;
}

/**
 * Creates a partial-value TransformStream. Throws ConfigurationError for an invalid option or
 * schema. Snapshots are typed `DeepPartial` of a Standard Schema's type; `unknown` for a JSON
 * Schema or none.
 */
export function createPartialStream<S extends SchemaInput = SchemaInput>(
  options: PartialStreamOptions<S> & { readonly emit: 'changes' },
): PartialStream<SchemaValue<S>, readonly Change[]>;
export function createPartialStream<S extends SchemaInput = SchemaInput>(
  options: PartialStreamOptions<S> & { readonly emit: 'both' },
): PartialStream<SchemaValue<S>, PartialUpdate<SchemaValue<S>>>;
export function createPartialStream<S extends SchemaInput = SchemaInput>(
  options?: PartialStreamOptions<S> & { readonly emit?: 'snapshots' },
): PartialStream<SchemaValue<S>>;
export function createPartialStream<S extends SchemaInput = SchemaInput>(
  options?: PartialStreamOptions<S>,
): PartialStream<SchemaValue<S>, DeepPartial<SchemaValue<S>> | readonly Change[] | PartialUpdate<SchemaValue<S>>>;
export function createPartialStream(options: PartialStreamOptions = {}): PartialStream<unknown, unknown> {
  const emit = options.emit ?? 'snapshots';
  const builderOptions: PartialOptions =
    emit === 'snapshots'
      ? { ...options, updateOn: 'values', nullValue: 'value' }
      : // Changes alone need no snapshots: the builder then copies nothing.
        { ...options, snapshots: options.snapshots ?? emit === 'both', updateOn: 'changes', nullValue: 'value' };
  const { stream, engine } = createTextTransformStream<unknown, PartialBuilder>(options, (output) =>
    createPartialBuilder(builderOptions, {
      update(value: unknown, changes: readonly Change[]) {
        output.enqueue(emit === 'snapshots' ? value : emit === 'changes' ? changes : { value, changes });
      },
      diagnostic: output.diagnostic,
    }),
  );
  for (const name of ['stats', 'value', 'complete'] as const) {
    Object.defineProperty(stream, name, { get: () => engine[name], enumerable: true });
  }
  return stream as PartialStream<unknown, unknown>;
}
