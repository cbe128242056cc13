/**
 * The Vercel AI SDK's `streamText(...).fullStream` as text the provider decoder reads
 * (`input: 'ai-sdk'`, or `auto`): one JSON line per part, `JSON.stringify(part) + '\n'`
 * (the format module, provider/ai-sdk.ts, says what each part becomes). So every llmjson stream
 * takes it: `Readable.from(fromAiSdk(result.fullStream)).pipe(createToolCallStream({ input:
 * 'ai-sdk', tools }))`.
 *
 * An `Error` in a part (`error` parts, `tool-error` parts) is written as `{message, name}`
 * (`JSON.stringify` would write `{}`). Parts the decoder ignores by design (lifecycle, results,
 * sources, files, raw chunks) are written as their `type` alone: a `file` part would otherwise
 * write its whole content, and a `raw` value need not be JSON. An exception the source throws
 * reaches the consumer unchanged.
 */

import { type AsyncSource, iterate } from './from-async.js';

/** The parts whose content the `ai-sdk` format reads; any other part is written as its type. */
const READ = new Set([
  'text-delta',
  'reasoning-delta',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
  'tool-call',
  'finish-step',
  'finish',
  'error',
]);

function replacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? { message: value.message, name: value.name } : value;
}

/** One JSON line for an AI SDK `fullStream` part. */
export function aiSdkLine(part: object): string {
  const type = (part as { type?: unknown }).type;
  if (typeof type === 'string' && !READ.has(type)) return `${JSON.stringify({ type })}\n`;
  return `${JSON.stringify(part, replacer)}\n`;
}

/** The parts of an AI SDK `fullStream` (an `AsyncIterable` or a `ReadableStream`), one JSON line each. */
export async function* fromAiSdk(fullStream: AsyncSource<object>): AsyncGenerator<string> {
  for await (const part of iterate(fullStream)) yield aiSdkLine(part);
}
