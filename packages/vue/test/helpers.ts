/**
 * What the Vue binding's tests share: a source the test writes into (and whose cancellation it
 * can see), a hand-run animation-frame clock, and a wait for the stream pipes to drain. No DOM
 * types: tsconfig.test.json type-checks these with Node's lib only.
 */

import { vi } from 'vitest';

const encoder = new TextEncoder();

/** A byte stream the test writes model text into, and the spy its cancellation calls. */
export function pushable() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancel = vi.fn();
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel,
  });
  return {
    stream,
    cancel,
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
  };
}

/** Lets every promise chain run (stream pipes and Vue's scheduler use microtasks only). */
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Replaces `requestAnimationFrame` with a clock the test advances: `frame()` runs the callbacks
 * requested so far, as one frame. Call `vi.unstubAllGlobals()` after the test.
 */
export function manualFrames() {
  let waiting = new Map<number, (time: number) => void>();
  let next = 0;
  let now = 0;
  vi.stubGlobal('requestAnimationFrame', (callback: (time: number) => void) => {
    next += 1;
    waiting.set(next, callback);
    return next;
  });
  vi.stubGlobal('cancelAnimationFrame', (id: number) => waiting.delete(id));
  return {
    /** How many callbacks wait for the next frame. */
    get pending() {
      return waiting.size;
    },
    frame() {
      const run = waiting;
      waiting = new Map();
      now += 16;
      for (const callback of run.values()) callback(now);
    },
  };
}
