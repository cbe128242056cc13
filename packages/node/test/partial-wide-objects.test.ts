/**
 * The snapshot streams' timer and wide objects (decision 020, addendum of 2026-11-27): a timer
 * that fires between the chunks of a fast source hands out a held-back snapshot only when the
 * copies it causes cost at most 16 384 slots (an object member 32) or the input pays for them.
 * Unbounded, it handed out an object of n keys at every pause, and every next chunk copied it
 * whole: quadratic. Counted, not timed: the copies are read from the snapshots (a container
 * that the next snapshot holds as a different object was copied). Node and Web streams.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createPartialStream } from '@llmjson/node';
import { createPartialStream as createWebPartialStream } from '@llmjson/web';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { copiedBetween } from '../../../test/support/partial.js';

const N = 10_000;
const TEXT = `{${Array.from({ length: N }, (_, i) => `"key${i}":${i}`).join(',')}}`;
/** Every chunk is followed by a pause longer than maxSnapshotDelay: the timer fires each time. */
const PAUSE_MS = 4;

describe('a timer between chunks does not copy a wide object at every pause', () => {
  test('Node: at most 3 keys copied per key, and the last snapshot is the document', async () => {
    const stream = createPartialStream({ maxSnapshotDelay: 0 });
    const snapshots: unknown[] = [];
    stream.on('data', (value) => snapshots.push(value));
    for (const chunk of chunkText(TEXT, 4096)) {
      stream.write(chunk);
      await sleep(PAUSE_MS);
    }
    stream.end();
    await new Promise((resolve) => stream.on('end', resolve));
    expect(snapshots.at(-1)).toEqual(JSON.parse(TEXT));
    expect(copiedBetween(snapshots).keys).toBeLessThanOrEqual(3 * N);
  });

  test('Web: at most 3 keys copied per key, and the last snapshot is the document', async () => {
    const stream = createWebPartialStream({ maxSnapshotDelay: 0 });
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    const snapshots: unknown[] = [];
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        snapshots.push(value);
      }
    })();
    for (const chunk of chunkText(TEXT, 4096)) {
      await writer.write(chunk);
      await sleep(PAUSE_MS);
    }
    await writer.close();
    await reading;
    expect(snapshots.at(-1)).toEqual(JSON.parse(TEXT));
    expect(copiedBetween(snapshots).keys).toBeLessThanOrEqual(3 * N);
  });

  test('a small held-back snapshot still goes out by the timer', async () => {
    // 200 elements (200 slots): over the floor of 64, within the timer's limit.
    const long = `{"items": [${Array.from({ length: 200 }, (_, i) => i).join(',')}, "tail`;
    const stream = createPartialStream({ maxSnapshotDelay: 0, snapshotBudget: 0 });
    const snapshots: unknown[] = [];
    stream.on('data', (value) => snapshots.push(value));
    stream.write(long.slice(0, -8));
    stream.write(long.slice(-8));
    await sleep(30);
    expect((snapshots.at(-1) as { items: unknown[] }).items.at(-1)).toBe('tail');
    stream.end();
    await new Promise((resolve) => stream.on('end', resolve));
  });
});
