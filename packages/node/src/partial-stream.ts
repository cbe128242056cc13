/**
 * Node adapter for the partial-value builder: while one JSON document streams in, emits the
 * value so far (a structurally shared snapshot), the changes since the last chunk, or both,
 * once per chunk that changed something. Bad input never becomes an 'error'.
 */

import type { Transform } from 'node:stream';
import {
  type Change,
  createPartialBuilder,
  type Diagnostic,
  type PartialOptions,
  type PartialStats,
} from '@llmjson/core';
import { createTextTransform, type TextTransformOptions } from './text-transform.js';

export interface PartialStreamOptions extends PartialOptions, TextTransformOptions {
  /**
   * What each emitted item is: `'snapshots'` (default) the value so far; `'changes'` the list
   * of changes since the previous item; `'both'` `{ value, changes }`.
   */
  readonly emit?: 'snapshots' | 'changes' | 'both';
}

export interface PartialStream extends Transform {
  readonly stats: Readonly<PartialStats>;
  /** The current value (the builder's latest snapshot, or its live tree with `snapshots: false`). */
  readonly value: unknown;
  /** True once the document is complete. */
  readonly complete: boolean;
  on(event: 'diagnostic', listener: (diagnostic: Diagnostic) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Creates a partial-value Transform. Throws ConfigurationError for an invalid option or schema. */
export function createPartialStream(options: PartialStreamOptions = {}): PartialStream {
  const emit = options.emit ?? 'snapshots';
  const { stream, engine } = createTextTransform(options, (output) =>
    // Changes alone need no snapshots: the builder then copies nothing.
    createPartialBuilder(
      emit === 'changes' && options.snapshots === undefined ? { ...options, snapshots: false } : options,
      {
        update(value: unknown, changes: readonly Change[]) {
          output.push(emit === 'snapshots' ? value : emit === 'changes' ? changes : { value, changes });
        },
        diagnostic: output.diagnostic,
      },
    ),
  );
  for (const name of ['stats', 'value', 'complete'] as const) {
    Object.defineProperty(stream, name, { get: () => engine[name], enumerable: true });
  }
  return stream as PartialStream;
}
