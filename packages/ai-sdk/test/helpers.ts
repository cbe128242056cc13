/**
 * What the @llmjson/ai-sdk tests share: the Node gate (ai 7 needs Node 22 or later: on Node 20
 * the suites skip and say why), and a mock language model from the AI SDK's own `ai/test` that
 * streams a recorded chunk sequence as text deltas, recording the abort signal it was called
 * with and how many chunks were pulled before the stream stopped.
 */
import { MockLanguageModelV4 } from 'ai/test';
import { describe } from 'vitest';

export const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** `describe`, skipped on Node < 22 with a visible message (ai 7 declares `engines: node >= 22`). */
export function describeAi(name: string, body: () => void): void {
  if (NODE_MAJOR < 22) {
    console.warn(
      `${name} skipped: ai 7 requires Node >= 22 and this is Node ${process.versions.node}; run it with \`npx -y node@22 node_modules/vitest/vitest.mjs run packages/ai-sdk\``,
    );
  }
  describe.skipIf(NODE_MAJOR < 22)(name, body);
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

export interface MockRun {
  readonly model: MockLanguageModelV4;
  /** Text chunks the model handed out before its stream ended or was cancelled. */
  pulled: number;
  /** The abort signal of the last call, as the model received it. */
  signal: AbortSignal | undefined;
  /** True once the model saw its call's signal aborted. */
  sawAbort: boolean;
}

/** A model whose every stream call answers with `chunks` as text deltas (one text block), then `finishReason`. */
export function mockModel(chunks: readonly string[], finishReason: 'stop' | 'length' = 'stop'): MockRun {
  const run: MockRun = {
    model: undefined as unknown as MockLanguageModelV4,
    pulled: 0,
    signal: undefined,
    sawAbort: false,
  };
  (run as { model: MockLanguageModelV4 }).model = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text: chunks.join('') }],
      finishReason: { unified: finishReason, raw: finishReason },
      usage,
      warnings: [],
    }),
    doStream: async (options) => {
      run.signal = options.abortSignal;
      run.pulled = 0;
      const parts: unknown[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        ...chunks.map((delta) => ({ type: 'text-delta', id: 't', delta })),
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: { unified: finishReason, raw: finishReason }, usage },
      ];
      let next = 0;
      const onAbort = () => {
        run.sawAbort = true;
      };
      options.abortSignal?.addEventListener('abort', onAbort, { once: true });
      return {
        stream: new ReadableStream({
          pull(controller) {
            if (options.abortSignal?.aborted === true) {
              run.sawAbort = true;
              controller.error(options.abortSignal.reason);
              return;
            }
            const part = parts[next++] as { type: string };
            if (part === undefined) {
              controller.close();
              return;
            }
            if (part.type === 'text-delta') run.pulled++;
            controller.enqueue(part as never);
          },
        }),
      };
    },
  });
  return run;
}

/** Every item of an async iterable. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** `text` in pieces of `size` characters. */
export function chunked(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
