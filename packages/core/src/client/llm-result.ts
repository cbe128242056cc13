/**
 * What a model call returns, as one type for every package: llmjson's own client
 * (`openAICompatible`, in core and re-exported by @llmjson/node and @llmjson/web) returns it,
 * and the prompt runner (@llmjson/contracts) accepts it from the user's model function. Types
 * only, for any runtime.
 */

import type { Usage } from '../provider/types.js';
import type { ReadableStreamLike } from './from-async.js';

/**
 * The answer text: whole, as an async iterable of chunks (strings or UTF-8 bytes; a Node
 * Readable is one), or a WHATWG ReadableStream (typed structurally: core has no DOM types).
 */
export type LlmOutput = string | AsyncIterable<string | Uint8Array> | ReadableStreamLike<string | Uint8Array>;

/**
 * A model call's answer and what the provider said about it. `model`, `usage` and
 * `finishReason` may be filled in while `output` streams (a streaming client learns the finish
 * reason and usage at the end): read them once the output is consumed. `Output` narrows the
 * answer's form (llmjson's client: `AsyncIterable<string>`).
 */
export interface LlmResult<Output extends LlmOutput = LlmOutput> {
  readonly output: Output;
  readonly model?: string | undefined;
  readonly provider?: string | undefined;
  /**
   * Token counts: llmjson's clients give them normalised (`inputTokens`, `outputTokens`,
   * `totalTokens`); a client of one's own may pass the provider's fields as they are.
   */
  readonly usage?: Usage | Readonly<Record<string, unknown>> | undefined;
  readonly finishReason?: string | undefined;
}
