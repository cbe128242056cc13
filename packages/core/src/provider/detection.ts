/**
 * The table of wire formats and `auto` detection. A new format is one module and one line in
 * `FORMATS` (plus its name in `ProviderFormat`). Under `auto` the first event that a format
 * recognises picks it, trying the formats in table order; an event none recognises is reported
 * (`unrecognized`, naming the formats `auto` knows), never silently decoded into nothing.
 * A binary body (Bedrock's AWS event stream) is recognised before any event, by its first byte
 * (decoder.ts, event-stream.ts).
 */

import { agUi } from './ag-ui.js';
import { aiSdk } from './ai-sdk.js';
import { anthropic } from './anthropic.js';
import { bedrock } from './bedrock.js';
import { cohere } from './cohere.js';
import type { Json, WireFormat } from './context.js';
import { gemini } from './gemini.js';
import { mistral } from './mistral.js';
import { ollama } from './ollama.js';
import { openAIChat } from './openai-chat.js';
import { openAIResponses } from './openai-responses.js';
import type { ProviderFormat } from './types.js';

/**
 * Every decoded format, in detection order. Mistral streams OpenAI chat chunks: `auto` reads
 * them as `openai` (the same reader), so `mistral` is only picked by name (see mistral.ts).
 * Bedrock comes last: its `metadata` event is a common key.
 */
export const FORMATS: readonly WireFormat[] = [
  openAIChat,
  openAIResponses,
  anthropic,
  ollama,
  gemini,
  cohere,
  aiSdk,
  agUi,
  bedrock,
];

const BY_NAME = new Map<string, WireFormat>([...FORMATS, mistral].map((f) => [f.name, f]));

/** The values the `input` option takes. */
export const INPUTS: readonly string[] = [...BY_NAME.keys(), 'auto'];

export function wireFormat(name: ProviderFormat): WireFormat {
  return BY_NAME.get(name) as WireFormat;
}

/** The first format, in table order, that recognises `event`. */
export function detectFormat(event: Json): WireFormat | undefined {
  return FORMATS.find((f) => f.recognises(event));
}

const titles = FORMATS.map((f) => f.title);
/** "auto recognises A, B and C streams". */
export const AUTO_RECOGNISES = `auto recognises ${titles.slice(0, -1).join(', ')} and ${titles.at(-1)} streams`;
