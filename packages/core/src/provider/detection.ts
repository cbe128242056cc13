/**
 * The table of wire formats and `auto` detection. A new format is one module and one line in
 * `FORMATS` (plus its name in `ProviderFormat`). Under `auto` the first event that a format
 * recognises picks it, trying the formats in table order; streams of formats that are not
 * decoded yet are recognised only to be reported by name, never silently decoded into nothing.
 */

import { anthropic } from './anthropic.js';
import { type Json, str, type WireFormat } from './context.js';
import { gemini } from './gemini.js';
import { ollama } from './ollama.js';
import { openAIChat } from './openai-chat.js';
import { openAIResponses } from './openai-responses.js';
import type { ProviderFormat } from './types.js';

/** Every decoded format, in detection order. */
export const FORMATS: readonly WireFormat[] = [openAIChat, openAIResponses, anthropic, ollama, gemini];

const BY_NAME = new Map<string, WireFormat>(FORMATS.map((f) => [f.name, f]));

/** The values the `input` option takes. */
export const INPUTS: readonly string[] = [...FORMATS.map((f) => f.name), 'auto'];

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

const BEDROCK_KEYS = ['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop'];
const COHERE_TYPE = /^(?:message|content|tool-plan|tool-call|citation)-(?:start|delta|end)$/;

/** The name of a stream format that is recognised only to be reported. */
export function unsupportedFormat(event: Json): string | undefined {
  if (BEDROCK_KEYS.some((k) => k in event)) return 'Amazon Bedrock ConverseStream';
  const type = str(event.type);
  if (type !== undefined && COHERE_TYPE.test(type)) return 'Cohere v2 chat';
  return undefined;
}
