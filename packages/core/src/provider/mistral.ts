/**
 * Mistral chat completions SSE (`POST /v1/chat/completions` with `stream: true`): OpenAI chat
 * chunks, read by the chat reader (openai-chat.ts), which already knows what Mistral adds:
 *
 * - `delta.content` is a string or an array of chunks: `{type: "text", text}` is answer text,
 *   `{type: "thinking", thinking: [{type: "text", text}]}` (Magistral) is reasoning; other chunk
 *   types (`reference`, `image_url`) carry no answer text.
 * - A tool call may arrive whole (`id`, `name` and complete `arguments` in one delta, Mistral's
 *   own API) or in pieces (an `id`/`name` delta, then `arguments` pieces with an empty `name`,
 *   as Mistral-hosted and vLLM-served models send): both are one call per `index`; a whole call
 *   with a new `id` under an index already used is a new call. Object `arguments` are serialized.
 * - `finish_reason`: `stop`, `length`, `model_length` (the context window), `tool_calls`, and
 *   `error`, which is also a `provider-error`.
 *
 * Why a format of its own on the same reader: `input: 'mistral'` names what the user has, and
 * `provider` reports it. The wire is OpenAI chat's, so under `auto` (which cannot tell the two
 * apart by their events) a Mistral stream is decoded identically and reported as `openai`.
 */

import type { WireFormat } from './context.js';
import { createChatReader, openAIChat } from './openai-chat.js';

export const mistral: WireFormat = {
  name: 'mistral',
  title: 'Mistral chat completions',
  endMarker: openAIChat.endMarker,
  recognises: openAIChat.recognises,
  create: createChatReader,
};
