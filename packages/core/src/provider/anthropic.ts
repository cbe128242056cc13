/**
 * Anthropic Messages SSE. Text: `content_block_delta` with `text_delta`. Tool calls:
 * `input_json_delta.partial_json` per `*tool_use` content block, keyed `message<n>.block<index>`
 * because block indexes restart at every `message_start` (`n` counts them from 1). Tool uses
 * that arrive complete (`input` in `content_block_start`, or content in `message_start`) are
 * delivered as one piece. Reasoning: `thinking_delta`. Usage: input tokens count cache creation
 * and cache reads. Ends with `message_stop`; a new `message_start` starts a new message whose
 * finish reason and usage replace the previous one's.
 */

import {
  type CallState,
  type EventAt,
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  num,
  str,
  usageOf,
  type WireFormat,
} from './context.js';

const EVENTS = new Set([
  'message_start',
  'message_delta',
  'message_stop',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'ping',
]);

export const anthropic: WireFormat = {
  name: 'anthropic',
  title: 'Anthropic Messages',
  endMarker: 'message_stop',
  recognises: (event) => EVENTS.has(str(event.type) ?? ''),
  create: (context) => new AnthropicReader(context),
};

const USAGE_FIELDS = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens'];

class AnthropicReader implements FormatReader {
  /** Messages started. */
  #messages = 0;
  /** Tool blocks of the current message. */
  readonly #blocks = new Map<number, CallState>();
  #usage: Record<string, number> = {};

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
  }

  event(event: Json, at: EventAt): void {
    const context = this.#context;
    switch (event.type) {
      case 'message_start': {
        this.#messages = context.startMessage('message_start', 'message_stop', at);
        this.#blocks.clear();
        const message = isObject(event.message) ? event.message : {};
        context.setModel(message.model);
        this.#usage = {};
        this.#mergeUsage(message.usage, true);
        context.setFinishReason(str(message.stop_reason));
        if (Array.isArray(message.content)) {
          message.content.forEach((block: unknown, index: number) => {
            const call = this.#startBlock(index, block);
            if (call !== undefined) context.close(call);
          });
        }
        return;
      }
      case 'content_block_start':
        this.#startBlock(num(event.index) ?? 0, event.content_block);
        return;
      case 'content_block_delta': {
        const delta = event.delta;
        if (!isObject(delta)) return;
        switch (delta.type) {
          case 'text_delta':
            return context.emitText(str(delta.text));
          case 'input_json_delta': {
            const index = num(event.index) ?? 0;
            const call = this.#blocks.get(index) ?? this.#blockCall(index, undefined, undefined);
            return context.emitArguments(call, str(delta.partial_json));
          }
          case 'thinking_delta':
            return context.emitReasoning(str(delta.thinking));
          default:
            // signature_delta, citations_delta: not text.
            return;
        }
      }
      case 'content_block_stop': {
        const call = this.#blocks.get(num(event.index) ?? 0);
        if (call !== undefined) context.close(call);
        return;
      }
      case 'message_delta': {
        const delta = event.delta;
        if (isObject(delta) && typeof delta.stop_reason === 'string') context.setFinishReason(delta.stop_reason);
        this.#mergeUsage(event.usage, false);
        return;
      }
      case 'message_stop':
        context.finished = true;
        return;
    }
    // `ping` is a keep-alive.
  }

  /** Opens content block `index` of the current message; returns its call for a tool block. */
  #startBlock(index: number, block: unknown): CallState | undefined {
    if (!isObject(block)) return undefined;
    const type = str(block.type) ?? '';
    if (type.endsWith('tool_use')) {
      const call = this.#blockCall(index, str(block.id), str(block.name));
      if (isObject(block.input) && Object.keys(block.input).length > 0) call.initial = JSON.stringify(block.input);
      return call;
    }
    if (type === 'text') this.#context.emitText(str(block.text));
    else if (type === 'thinking') this.#context.emitReasoning(str(block.thinking));
    return undefined;
  }

  #blockCall(index: number, id: string | undefined, name: string | undefined): CallState {
    const call = this.#context.call(`message${Math.max(1, this.#messages)}.block${index}`, index, id, name);
    this.#blocks.set(index, call);
    return call;
  }

  #mergeUsage(usage: unknown, replace: boolean): void {
    if (!isObject(usage)) {
      if (replace) this.#context.setUsage(undefined);
      return;
    }
    for (const field of USAGE_FIELDS) {
      const value = num(usage[field]);
      if (value !== undefined) this.#usage[field] = value;
    }
    const u = this.#usage;
    const input =
      u.input_tokens === undefined
        ? undefined
        : u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    this.#context.setUsage(usageOf(input, u.output_tokens, undefined));
  }
}
