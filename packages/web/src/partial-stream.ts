/**
 * Web adapter for the partial-value builder: the value so far (a structurally shared
 * snapshot), the changes since the last chunk, or both.
 */

import {
  type Change,
  createPartialBuilder,
  type PartialBuilder,
  type PartialOptions,
  type PartialStats,
} from '@llmjson/core';
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface PartialStreamOptions extends Omit<PartialOptions, 'updateOn' | 'nullValue'>, TextTransformOptions {
  /**
   * What each emitted item is: `'snapshots'` (default) the value so far, once per chunk that
   * changed it (never the same snapshot twice: a chunk that only closes values enqueues
   * nothing); `'changes'` the list of changes, once per chunk that changed anything (a
   * `complete` included); `'both'` `{ value, changes }`, as often as `'changes'`. A document
   * that is `null` is enqueued as `null` (the Node stream reports it instead: decision 004).
   */
  readonly emit?: 'snapshots' | 'changes' | 'both';
}

export interface PartialStream extends TransformStream<string | Uint8Array, unknown> {
  readonly stats: Readonly<PartialStats>;
  /** The current value (the builder's latest snapshot, or its live tree with `snapshots: false`). */
  readonly value: unknown;
  /** True once a whole document was read (the builder's `complete`: never after a cut or broken one). */
  readonly complete: boolean;
}

/** Creates a partial-value TransformStream. Throws ConfigurationError for an invalid option or schema. */
export function createPartialStream(options: PartialStreamOptions = {}): PartialStream {
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
  return stream as PartialStream;
}
