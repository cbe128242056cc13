/**
 * What the React binding's tests share: a source the test writes into (and whose cancellation it
 * can see), a hand-run animation-frame clock, a wait for the stream pipes to drain, and a probe
 * component that records every hook result it renders. No DOM types: tsconfig.test.json
 * type-checks these with Node's lib only, so nothing here reads the document.
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

/** A whole answer as a byte stream. */
export const bytes = (...chunks: string[]) => ReadableStream.from(chunks.map((chunk) => encoder.encode(chunk)));

/** Lets every promise chain run (stream pipes use microtasks only). */
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Replaces `requestAnimationFrame` with a clock the test advances: `frame()` runs the callbacks
 * requested so far, as one frame. Call `vi.unstubAllGlobals()` after the test.
 */
export function manualFrames() {
  let waiting = new Map<number, (time: number) => void>();
  let next = 0;
  let now = 0;
  let ran = 0;
  vi.stubGlobal('requestAnimationFrame', (callback: (time: number) => void) => {
    next += 1;
    waiting.set(next, callback);
    return next;
  });
  vi.stubGlobal('cancelAnimationFrame', (id: number) => waiting.delete(id));
  return {
    /** Frames run so far. */
    get ran() {
      return ran;
    },
    frame() {
      const callbacks = waiting;
      waiting = new Map();
      now += 16;
      ran += 1;
      for (const callback of callbacks.values()) callback(now);
    },
  };
}

/** Runs `body` with React's act() checks off: renders happen when React schedules them, as in an app. */
export async function outsideAct(body: () => Promise<void>): Promise<void> {
  const scope = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean | undefined };
  const before = scope.IS_REACT_ACT_ENVIRONMENT;
  scope.IS_REACT_ACT_ENVIRONMENT = false;
  try {
    await body();
  } finally {
    scope.IS_REACT_ACT_ENVIRONMENT = before;
  }
}
