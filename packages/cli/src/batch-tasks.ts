/**
 * The run's inputs as numbered tasks (batch-block.ts `BlockTask`): blocks of JSONL lines, and
 * `.txt` responses `RECORDS_PER_TASK` at a time. Every thread that judges (batch-command.ts and
 * each worker thread, batch-pool-worker.ts) reads the inputs through this same function, so each
 * numbers the tasks alike: a task's number and content depend only on the inputs, the shard and
 * the positions `--resume` found judged. Each judges the tasks it owns (`owns`) and passes over
 * the others, cheaply: a JSONL block it does not own is counted, not decoded; a `.txt` response
 * of a task it does not own is not read at all (docs/decisions/044).
 */

import { closeSync, fstatSync } from 'node:fs';
import { basename } from 'node:path';
import { quoteInput } from '@llmjson/core/internal';
import type { BlockTask } from './batch-block.js';
import { BLOCK_BYTES, decodeBlock, forEachLine, isBlankLine, readBlocks } from './batch-lines.js';
import { type BatchInput, lineFormat, openRecordsFile, readText, textEntries } from './batch-records.js';
import { inShard, type PositionSet, type Shard } from './batch-shard.js';
import type { BatchFormat, BatchRecord } from './batch-types.js';
import { UsageError } from './exit-codes.js';

/** `.txt` responses per task. */
export const RECORDS_PER_TASK = 200;

export interface TaskSource {
  readonly inputs: readonly BatchInput[];
  /** `--format`, when given. */
  readonly format?: BatchFormat;
  readonly shard: Shard;
  /** `--resume`: the positions already judged. */
  readonly finished?: PositionSet;
}

export interface TaskHooks {
  /** Whether this thread judges task `number` (the others are passed over). */
  owns(number: number): boolean;
  /** Checked before each task: true ends the reading. */
  stopped?(): boolean;
  /** Bytes of the inputs read (or passed over) so far, as they go. */
  onBytes?(bytes: number): void;
  /**
   * A JSONL file's format, once its first record tells it (or where it is told, with --format), in
   * the block that is task `number`.
   */
  onFormat?(file: string, format: BatchFormat, detected: boolean, number: number): void;
  /** A `.txt` response passed over because `--resume` found it judged. */
  onResumed?(): void;
}

/** A task in the run's order: its content when this thread owns it, else only its number. */
export interface NumberedTask {
  readonly number: number;
  readonly task: BlockTask | undefined;
}

export async function* readTasks(source: TaskSource, hooks: TaskHooks): AsyncGenerator<NumberedTask> {
  const { shard, finished } = source;
  const onBytes = hooks.onBytes ?? (() => {});
  const stopped = hooks.stopped ?? (() => false);
  let number = 0;
  let index = 0;
  for (const input of source.inputs) {
    if (input.kind === 'texts') {
      // The records of the task being filled, and how many it has (only counted when not owned).
      let records: BatchRecord[] = [];
      let count = 0;
      for (const entry of textEntries(input, index)) {
        if (stopped()) return;
        index++;
        if (!inShard(shard, entry.index)) {
          onBytes(entry.size);
          continue;
        }
        if (finished?.has(entry.index) === true) {
          onBytes(entry.size);
          hooks.onResumed?.();
          continue;
        }
        if (hooks.owns(number)) {
          const record = readText(entry);
          onBytes(Buffer.byteLength(record.text));
          records.push(record);
        } else onBytes(entry.size);
        count++;
        if (count === RECORDS_PER_TASK) {
          yield { number, task: hooks.owns(number) ? { kind: 'records', records } : undefined };
          number++;
          records = [];
          count = 0;
        }
      }
      if (count > 0) {
        yield { number, task: hooks.owns(number) ? { kind: 'records', records } : undefined };
        number++;
      }
      continue;
    }
    const file = input.path;
    let format = source.format;
    let told = false;
    let line = 1;
    const { fd } = openRecordsFile(input);
    try {
      // Every thread reads the file on its own: each must read the same bytes, or they number the
      // tasks differently. So the file must be the one the run looked at, and is read up to the
      // size it had then (one still being written grows meanwhile) and no shorter.
      const shown = quoteInput(basename(file));
      // Another device or inode alone is not enough: some file systems (FUSE without fixed
      // inodes, SMB without server inodes) give the same file another inode once it is forgotten.
      const now = fstatSync(fd);
      const was = input.file;
      if (
        was !== undefined &&
        (now.dev !== was.dev || now.ino !== was.ino) &&
        (now.size !== input.size || now.mtimeMs !== was.mtimeMs)
      ) {
        throw new UsageError(`${shown} was replaced by another file since the run started: run again`);
      }
      let read = 0;
      const counted = (bytes: number) => {
        read += bytes;
        onBytes(bytes);
      };
      for await (const block of readBlocks(fd, counted, BLOCK_BYTES, input.size)) {
        if (stopped()) return;
        if (!told) {
          // The file's first record tells its format (or, with --format, is where it is told).
          const text = decodeBlock(block.bytes);
          forEachLine(text, (start, end) => {
            if (told || isBlankLine(text, start, end)) return;
            const found = lineFormat(text.slice(start, end));
            if (found === undefined) return;
            format ??= found;
            told = true;
            hooks.onFormat?.(file, format, source.format === undefined, number);
          });
        }
        if (hooks.owns(number)) {
          let done: number[] | undefined;
          if (finished !== undefined) {
            done = [];
            for (let p = index; p < index + block.positions; p++) if (finished.has(p)) done.push(p);
          }
          yield {
            number,
            task: {
              kind: 'lines',
              // A copy: the block's bytes are a view of the reader's buffer (batch-lines.ts).
              bytes: Buffer.from(block.bytes),
              file,
              format,
              detected: source.format === undefined,
              index,
              line,
              ...(done === undefined || done.length === 0 ? {} : { finished: done }),
            },
          };
        } else yield { number, task: undefined };
        number++;
        index += block.positions;
        line += block.lines;
      }
      if (read < input.size) {
        throw new UsageError(
          `${shown} is shorter (${read} bytes) than when the run started (${input.size}): it changed while the run read it; run again once it is complete`,
        );
      }
    } finally {
      closeSync(fd);
    }
  }
}
