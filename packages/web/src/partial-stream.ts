/**
 * Web adapter for the partial-value builder: the value so far (a structurally shared
 * snapshot), the changes since the last chunk, or both, once per chunk that changed something.
 */

import {
  type Change,
  createPartialBuilder,
  type PartialBuilder,
  type PartialOptions,
  type PartialStats,
} from '@llmjson/core';
import { createTextTransformStream, type TextTransformOptions } from './text-transform.js';

export interface PartialStreamOptions extends PartialOptions, TextTransformOptions {
  /**
   * What each emitted item is: `'snapshots'` (default) the value so far; `'changes'` the list
   * of changes since the previous item; `'both'` `{ value, changes }`.
   */
  readonly emit?: 'snapshots' | 'changes' | 'both';
}

export interface PartialStream extends TransformStream<string | Uint8Array, unknown> {
  readonly stats: Readonly<PartialStats>;
}

/** Creates a partial-value TransformStream. Throws ConfigurationError for an invalid option or schema. */
export function createPartialStream(options: PartialStreamOptions = {}): PartialStream {
  const emit = options.emit ?? 'snapshots';
  const { stream, engine } = createTextTransformStream<unknown, PartialBuilder>(options, (output) =>
    // Changes alone need no snapshots: the builder then copies nothing.
    createPartialBuilder(
      emit === 'changes' && options.snapshots === undefined ? { ...options, snapshots: false } : options,
      {
        update(value: unknown, changes: readonly Change[]) {
          output.enqueue(emit === 'snapshots' ? value : emit === 'changes' ? changes : { value, changes });
        },
        diagnostic: output.diagnostic,
      },
    ),
  );
  Object.defineProperty(stream, 'stats', { get: () => engine.stats, enumerable: true });
  return stream as PartialStream;
}
