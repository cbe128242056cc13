/**
 * Node adapter for the partial-value builder: while one JSON document streams in, emits the
 * value so far (a structurally shared snapshot), the changes since the last chunk, or both.
 * Snapshots are paced by default (decision 020): linear time however long the arrays, an
 * update held back at most `maxSnapshotDelay` ms.
 * Bad input never becomes an 'error' (with `failFast`, the first `violation` — a prefix no
 * completion can make valid — or `schema` diagnostic does: a `ContractViolationError`).
 */

import type { Transform } from 'node:stream';
import {
  type Change,
  createPartialBuilder,
  type DeepPartial,
  type Diagnostic,
  type PartialBuilder,
  type PartialOptions,
  type PartialStats,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import {
  checkChoice,
  checkOptionNames,
  checkSnapshotDelay,
  namesChecked,
  PARTIAL_STREAM_OPTIONS,
  TIMER_FLUSH_SLOTS,
} from '@llmjson/core/internal';
import { withAjvDefault } from './json-schema-default.js';
import { createTextTransform, type TextTransformOptions, type TypedAsyncIterator } from './text-transform.js';

export interface PartialStreamOptions<S extends SchemaInput = SchemaInput>
  extends Omit<PartialOptions<S>, 'updateOn' | 'nullValue' | 'snapshots' | 'trackChanges'>,
    TextTransformOptions {
  /**
   * What each emitted item is: `'snapshots'` (default) the value so far, at most once per
   * chunk that changed it — paced (see `snapshots`), so for a document with long arrays not
   * for every chunk — and never the same snapshot twice (a chunk that only closes values emits
   * nothing); the last value is always emitted;
   * `'changes'` the list of changes, once per chunk that changed anything (a `complete`
   * included); `'both'` `{ value, changes }`, as often as `'changes'`. A document that is
   * `null` cannot travel as a snapshot (`push(null)` ends an object-mode stream): it is
   * reported with a `null-value` diagnostic, and `value` is `null`, `complete` true; `'both'`
   * and `'changes'` carry it (decision 004).
   */
  readonly emit?: 'snapshots' | 'changes' | 'both';
  /**
   * `'paced'` (default with `emit: 'snapshots'`): a snapshot for a chunk only when the input
   * since the previous snapshot pays for the copies it causes (`snapshotBudget`), else it waits
   * for a later chunk, at most `maxSnapshotDelay` ms, or the end; linear time (decision 020).
   * While the open containers are small (up to 64 slots: array elements and object members)
   * that is every chunk. A paced item
   * carries all the changes since the previous one (with `'changes'` or `'both'` too), so the
   * change lists still reproduce every value. `true` (default with `'both'`): a snapshot for
   * every chunk that changed the value; a growing array of n items costs n per chunk, so
   * quadratic time. `false` (default with `'changes'`): no copies; the value is the builder's
   * one live tree, mutated by later chunks.
   */
  readonly snapshots?: boolean | 'paced';
  /**
   * Longest a paced snapshot is held back, in milliseconds, when no chunk delivers it first.
   * Default 16 (a display frame at 60 Hz). The timer hands out only a snapshot whose copies
   * cost at most 16 384 slots (an array element one, an object member 32: an array of 16 000
   * items, an object of 500 keys) or that the input since the previous one pays for; a wider
   * one waits for the budget, a later chunk or the end, so that the copying stays linear.
   */
  readonly maxSnapshotDelay?: number;
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
  /**
   * The current value (the builder's latest snapshot, or its live tree with `snapshots: false`).
   * Paced, it includes changes whose snapshot is held back, and reading it makes it a snapshot
   * (never mutated afterwards), which costs the copies a snapshot costs.
   */
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
  checkOptionNames('createPartialStream', options, PARTIAL_STREAM_OPTIONS);
  checkChoice('emit', options.emit, ['snapshots', 'changes', 'both']);
  const emit = options.emit ?? 'snapshots';
  const delay = checkSnapshotDelay(options.maxSnapshotDelay);
  // Changes alone need no snapshots: the builder then copies nothing.
  const snapshots = options.snapshots ?? (emit === 'snapshots' ? 'paced' : emit === 'both');
  const builderOptions: PartialOptions = namesChecked(
    emit === 'snapshots'
      ? // Snapshots alone: no change is recorded (the items carry none).
        { ...options, snapshots, updateOn: 'values', nullValue: 'report', trackChanges: false }
      : // Changes are what the items carry, whatever a caller's options object holds.
        { ...options, snapshots, updateOn: 'changes', nullValue: 'value', trackChanges: true },
  );
  let builder!: PartialBuilder;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  // Items are per write: each chunk goes to the builder on its own, directly (decision 022).
  const { stream } = createTextTransform(
    options,
    (output) => {
      builder = createPartialBuilder(withAjvDefault(builderOptions), {
        update(value: unknown, changes: readonly Change[]) {
          output.push(emit === 'snapshots' ? value : emit === 'changes' ? changes : { value, changes });
        },
        diagnostic: output.diagnostic,
      });
      // A deferred (paced) update goes out after `delay` ms if no chunk delivers it first.
      return {
        write(text: string) {
          builder.write(text);
          if (builder.deferred && timer === undefined) timer = setTimeout(wake, delay).unref();
        },
        end() {
          stop();
          builder.end();
        },
      };
    },
    'direct',
  );
  const wake = () => {
    timer = undefined;
    if (stream.destroyed) return;
    try {
      builder.flush(TIMER_FLUSH_SLOTS);
    } catch (error) {
      stream.destroy(error as Error);
    }
  };
  stream.once('close', stop);
  (stream as WithBuilder)[BUILDER] = builder;
  for (const name of ['stats', 'value', 'complete'] as const) {
    Object.defineProperty(stream, name, { get: BUILDER_GETTERS[name], enumerable: true });
  }
  return stream as PartialStream<unknown, unknown>;
}

const BUILDER = Symbol('builder');
type WithBuilder = Transform & { [BUILDER]: PartialBuilder };
/**
 * The stream's live properties. One getter for every stream, not a closure each: streams then
 * share their property layout, which keeps Node's own property reads on them fast.
 */
const BUILDER_GETTERS = {
  stats(this: WithBuilder) {
    return this[BUILDER].stats;
  },
  value(this: WithBuilder) {
    return this[BUILDER].value;
  },
  complete(this: WithBuilder) {
    return this[BUILDER].complete;
  },
};
