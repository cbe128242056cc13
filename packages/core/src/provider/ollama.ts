/**
 * Ollama's native NDJSON: /api/chat (`message.content`, `message.thinking`, `message.tool_calls`
 * with complete arguments, one piece each, keys `tool_call<n>`) and /api/generate (`response`,
 * `thinking`). Ends with `"done": true`, which carries `done_reason` and the token counts.
 */

import {
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  num,
  str,
  usageOf,
  type WireFormat,
} from './context.js';

export const ollama: WireFormat = {
  name: 'ollama',
  title: 'Ollama',
  endMarker: '"done": true',
  recognises: (event) =>
    typeof event.done === 'boolean' || isObject(event.message) || typeof event.response === 'string',
  create: (context) => new OllamaReader(context),
};

class OllamaReader implements FormatReader {
  #calls = 0;

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
  }

  event(event: Json): void {
    const context = this.#context;
    context.setModel(event.model);
    const message = event.message;
    if (isObject(message)) {
      context.emitReasoning(str(message.thinking));
      context.emitText(str(message.content));
      if (Array.isArray(message.tool_calls)) {
        for (const item of message.tool_calls) {
          if (!isObject(item)) continue;
          const fn = isObject(item.function) ? item.function : {};
          const n = this.#calls++;
          const call = context.call(`tool_call${n}`, num(fn.index) ?? n, str(item.id), str(fn.name));
          const args = fn.arguments;
          call.initial = typeof args === 'string' ? args : args === undefined ? undefined : JSON.stringify(args);
          context.close(call);
        }
      }
    }
    context.emitReasoning(str(event.thinking));
    context.emitText(str(event.response));
    if (event.done === true) {
      context.setFinishReason(str(event.done_reason) ?? 'stop');
      const input = num(event.prompt_eval_count);
      const output = num(event.eval_count);
      if (input !== undefined || output !== undefined) context.setUsage(usageOf(input, output, undefined));
      context.finishSegment();
    }
  }
}
