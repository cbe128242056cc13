/**
 * The Vercel AI SDK's `streamText(...).fullStream` parts (AI SDK 5), as JSON lines: the parts
 * are objects, so `fromAiSdk` (from-ai-sdk.ts) writes one `JSON.stringify(part)` per line and
 * this module reads those lines. `text-delta` {id, text} is answer text, `reasoning-delta`
 * {id, text} reasoning; `tool-input-start` {id, toolName} opens a call keyed by its id,
 * `tool-input-delta` {id, delta} are its argument pieces and `tool-input-end` closes it; a
 * `tool-call` {toolCallId, toolName, input} closes its call, and for a call whose input was not
 * streamed delivers the whole input as the one piece (`JSON.stringify`). `finish-step`
 * {finishReason, usage, response.modelId} and `finish` {finishReason, totalUsage} carry the
 * metadata; `finish` ends the stream. An `error` part is a provider error (the decoder's shared
 * rule, decoder.ts). Lifecycle parts (`start`, `start-step`, `text-start`, `text-end`,
 * `reasoning-start`, `reasoning-end`, `abort`) and the ones that carry no model output
 * (`tool-result`, `tool-error`, `source`, `file`, `raw`) are ignored by design.
 */

import {
  type CallState,
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  num,
  str,
  usageOf,
  type WireFormat,
} from './context.js';

/** Every part type of `TextStreamPart` (ai 5.0). */
export const AI_SDK_PARTS: ReadonlySet<string> = new Set([
  'start',
  'start-step',
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
  'tool-call',
  'tool-result',
  'tool-error',
  'source',
  'file',
  'finish-step',
  'finish',
  'abort',
  'error',
  'raw',
]);

export const aiSdk: WireFormat = {
  name: 'ai-sdk',
  title: 'AI SDK fullStream',
  endMarker: 'a finish part',
  recognises: (event) => AI_SDK_PARTS.has(str(event.type) ?? ''),
  create: (context) => new AiSdkReader(context),
};

function usageFrom(value: unknown) {
  if (!isObject(value)) return undefined;
  return usageOf(num(value.inputTokens), num(value.outputTokens), num(value.totalTokens));
}

class AiSdkReader implements FormatReader {
  #calls = 0;

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
  }

  /** The call keyed by the SDK's call id, numbered in order of first appearance. */
  #call(id: string | undefined, toolName: unknown): CallState | undefined {
    if (id === undefined) return undefined;
    const known = this.#context.findCall(id);
    if (known === undefined) this.#calls++;
    return this.#context.call(id, known?.index ?? this.#calls - 1, id, str(toolName));
  }

  event(event: Json): void {
    const context = this.#context;
    switch (event.type) {
      case 'text-delta':
        context.emitText(str(event.text));
        break;
      case 'reasoning-delta':
        context.emitReasoning(str(event.text));
        break;
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end': {
        const call = this.#call(str(event.id), event.toolName);
        if (call === undefined) break;
        if (event.type === 'tool-input-delta') context.emitArguments(call, str(event.delta));
        else if (event.type === 'tool-input-end') context.close(call);
        break;
      }
      case 'tool-call': {
        const call = this.#call(str(event.toolCallId), event.toolName);
        if (call === undefined) break;
        if (event.input !== undefined) call.initial = JSON.stringify(event.input);
        context.close(call);
        break;
      }
      case 'finish-step':
        if (isObject(event.response)) context.setModel(event.response.modelId);
        context.setFinishReason(str(event.finishReason));
        context.setUsage(usageFrom(event.usage));
        break;
      case 'finish':
        context.setFinishReason(str(event.finishReason));
        context.setUsage(usageFrom(event.totalUsage));
        context.finishSegment();
        break;
    }
  }
}
