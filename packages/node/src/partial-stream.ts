/**
 * Node adapter for the partial-value builder: while one JSON document streams in, emits the
 * value so far (a structurally shared snapshot), the changes since the last chunk, or both.
 * Bad input never becomes an 'error' (with `failFast`, the first `violation` — a prefix no
 * completion can make valid — or `schema` diagnostic does: a `ContractViolationError`).
 */

import type { Transform } from 'node:stream';
import {
  type Change,
  createPartialBuilder,
  type DeepPartial,
  type Diagnostic,
  type PartialOptions,
  type PartialStats,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { withAjvDefault } from './json-schema-default.js';
import { createTextTransform, type TextTransformOptions, type TypedAsyncIterator } from './text-transform.js';

export interface PartialStreamOptions<S extends SchemaInput = SchemaInput>
  extends Omit<PartialOptions<S>, 'updateOn' | 'nullValue'>,
    TextTransformOptions {
  /**
   * What each emitted item is: `'snapshots'` (default) the value so far, once per chunk that
   * changed it (never the same snapshot twice: a chunk that only closes values emits nothing);
   * `'changes'` the list of changes, once per chunk that changed anything (a `complete`
   * included); `'both'` `{ value, changes }`, as often as `'changes'`. A document that is
   * `null` cannot travel as a snapshot (`push(null)` ends an object-mode stream): it is
   * reported with a `null-value` diagnostic, and `value` is `null`, `complete` true; `'both'`
   * and `'changes'` carry it (decision 004).
   */
  readonly emit?: 'snapshots' | 'changes' | 'both';
}

/** An item of `emit: 'both'`. */
export interface PartialUpdate<T = unknown> {
  readonly value: DeepPartial<T>;
  readonly changes: readonly Change[];
}

/**
 * `T` is the document's type (snapshots are `DeepPartial<T>`); `Item` what the readable side
 * yields, which `emit` decides (Node itself types it `any`).
 */
export interface PartialStream<T = unknown, Item = DeepPartial<T>> extends Transform {
  readonly stats: Readonly<PartialStats>;
  /** The current value (the builder's latest snapshot, or its live tree with `snapshots: false`). */
  readonly value: DeepPartial<T> | undefined;
  /** True once a whole document was read (the builder's `complete`: never after a cut or broken one). */
  readonly complete: boolean;
  [Symbol.asyncIterator](): TypedAsyncIterator<Item>;
  toArray(options?: Parameters<Transform['toArray']>[0]): Promise<Item[]>;
  on(event: 'data', listener: (item: Item) => void): this;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/**
 * Creates a partial-value Transform. Throws ConfigurationError for an invalid option or schema.
 * Snapshots are typed `DeepPartial` of a Standard Schema's type; `unknown` for a JSON Schema or none.
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
      ? { ...options, updateOn: 'values', nullValue: 'report' }
      : // Changes alone need no snapshots: the builder then copies nothing.
        { ...options, snapshots: options.snapshots ?? emit === 'both', updateOn: 'changes', nullValue: 'value' };
  const { stream, engine } = createTextTransform(options, (output) =>
    createPartialBuilder(withAjvDefault(builderOptions), {
      update(value: unknown, changes: readonly Change[]) {
        output.push(emit === 'snapshots' ? value : emit === 'changes' ? changes : { value, changes });
      },
      diagnostic: output.diagnostic,
    }),
  );
  for (const name of ['stats', 'value', 'complete'] as const) {
    Object.defineProperty(stream, name, { get: () => engine[name], enumerable: true });
  }
  return stream as PartialStream<unknown, unknown>;
}
