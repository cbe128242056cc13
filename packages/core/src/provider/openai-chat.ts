/**
 * OpenAI Chat Completions SSE, as OpenAI, vLLM, llama.cpp, Ollama's /v1, LM Studio, OpenRouter,
 * DeepSeek, Mistral... stream it (a server that ignored `stream: true` and sent one
 * `choices[0].message` is read the same way).
 *
 * Text: `choices[0].delta.content` (a string, or Mistral's content parts; legacy completions:
 * `choices[0].text`). Tool calls: `choices[0].delta.tool_calls[j]`, one call per `index` (key
 * `choice0.tool_call<index>`, or `…<index>.<id>` when a server sends every parallel call under
 * one index with different ids; object arguments are serialized; legacy `function_call`:
 * `choice0.function_call`). Reasoning: `delta.reasoning_content` / `delta.reasoning`. Refusal:
 * `delta.refusal`. Only choice 0 is decoded; another choice is reported once. Ends with a
 * `finish_reason` or `data: [DONE]`; a `finish_reason` of `error` (Mistral's word for a failed
 * generation) is also a `provider-error`. The same reader decodes `input: 'mistral'` (mistral.ts).
 */

import {
  type EventAt,
  FirstEntryOnly,
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  num,
  str,
  usageOf,
  type WireFormat,
} from './context.js';

export const openAIChat: WireFormat = {
  name: 'openai',
  title: 'OpenAI chat completions',
  endMarker: 'a finish_reason or [DONE]',
  recognises: (event) => Array.isArray(event.choices) || isObject(event.usage),
  create: (context) => createChatReader(context),
};

/** The chat reader, shared with the formats that stream the same chunks (Mistral). */
export function createChatReader(context: FormatContext): FormatReader {
  return new ChatReader(context);
}

class ChatReader implements FormatReader {
  readonly #choices: FirstEntryOnly;
  /** The key of the latest tool call per index. */
  readonly #callKeys = new Map<number, string>();

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
    this.#choices = new FirstEntryOnly(context, 'choice');
  }

  done(): void {
    this.#context.finishSegment();
  }

  event(event: Json, at: EventAt): void {
    const context = this.#context;
    context.setModel(event.model);
    if (isObject(event.usage)) {
      const u = event.usage;
      context.setUsage(usageOf(num(u.prompt_tokens), num(u.completion_tokens), num(u.total_tokens)));
    }
    if (Array.isArray(event.choices)) this.#choices.each(event.choices, at, (choice) => this.#choice(choice, at));
  }

  #choice(choice: Json, at: EventAt): void {
    const context = this.#context;
    // A streamed chunk has `delta`; a server that ignored `stream: true` sends one `message`.
    const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : undefined;
    if (delta !== undefined) {
      this.#content(delta.content);
      context.emitReasoning(str(delta.reasoning_content) ?? str(delta.reasoning));
      if (typeof delta.refusal === 'string') context.refuse(delta.refusal);
      if (Array.isArray(delta.tool_calls)) {
        delta.tool_calls.forEach((call: unknown, k: number) => {
          if (!isObject(call)) return;
          const callIndex = num(call.index) ?? k;
          this.#toolCall(this.#callKey(callIndex, str(call.id)), callIndex, str(call.id), call.function);
        });
      }
      if (isObject(delta.function_call)) this.#toolCall('choice0.function_call', 0, undefined, delta.function_call);
    } else {
      context.emitText(str(choice.text));
    }
    const finish = str(choice.finish_reason);
    if (finish !== undefined && finish !== '') {
      // Mistral's (and some compatible servers') `error` finish: the generation failed.
      if (finish === 'error') {
        context.providerError({ message: 'the response was stopped by an error', code: 'error' }, at);
      }
      context.setFinishReason(finish);
      context.finishSegment();
    }
  }

  #content(content: unknown): void {
    if (typeof content === 'string') {
      this.#context.emitText(content);
    } else if (Array.isArray(content)) {
      // Content parts (Mistral): text parts are answer text, thinking parts reasoning.
      for (const part of content) {
        if (!isObject(part)) continue;
        if (part.type === 'text') this.#context.emitText(str(part.text));
        else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
          for (const t of part.thinking) if (isObject(t)) this.#context.emitReasoning(str(t.text));
        }
      }
    }
  }

  #toolCall(key: string, index: number, id: string | undefined, fn: unknown): void {
    const call = this.#context.call(key, index, id, isObject(fn) ? str(fn.name) : undefined);
    if (!isObject(fn)) return;
    // Arguments are a JSON string; a server that sends the object itself gets it serialized.
    const args = fn.arguments;
    this.#context.emitArguments(
      call,
      typeof args === 'string' ? args : args === undefined || args === null ? undefined : JSON.stringify(args),
    );
  }

  /**
   * The key of a tool call. Calls are told apart by `index`, but some servers (Ollama's /v1)
   * send index 0 for every parallel call: a new non-empty `id` under an index that already has a
   * call with another id opens a new call.
   */
  #callKey(index: number, id: string | undefined): string {
    const base = `choice0.tool_call${index}`;
    const current = this.#callKeys.get(index) ?? base;
    const call = this.#context.findCall(current);
    if (call !== undefined && id !== undefined && id !== '' && call.id !== undefined && call.id !== id) {
      const next = `${base}.${id}`;
      this.#callKeys.set(index, next);
      return next;
    }
    return current;
  }
}
