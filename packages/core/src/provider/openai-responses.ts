/**
 * OpenAI Responses API SSE. Text: `response.output_text.delta`. Tool calls:
 * `response.function_call_arguments.delta`, keyed by `item_id` (name and call id from
 * `response.output_item.added`). Reasoning: `response.reasoning_summary_text.delta`,
 * `response.reasoning_text.delta`. Refusal: `response.refusal.delta`. Ends with
 * `response.completed` / `.incomplete` / `.failed`; a new `response.created` starts a new
 * response whose finish reason and usage replace the previous one's.
 */

import {
  type EventAt,
  errorFrom,
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  num,
  str,
  usageOf,
  type WireFormat,
} from './context.js';

export const openAIResponses: WireFormat = {
  name: 'openai-responses',
  title: 'OpenAI Responses',
  endMarker: 'response.completed',
  recognises: (event) => str(event.type)?.startsWith('response.') === true,
  create: (context) => new ResponsesReader(context),
};

class ResponsesReader implements FormatReader {
  /** Responses started. */
  #responses = 0;

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
  }

  event(event: Json, at: EventAt): void {
    const context = this.#context;
    const type = str(event.type);
    switch (type) {
      case 'response.created': {
        if (this.#responses > 0 && !context.finished) {
          context.cut(
            'a response ended without response.completed: a new response.created followed',
            at.line,
            at.offset,
          );
        }
        this.#responses++;
        context.finished = false;
        context.setFinishReason(undefined);
        context.setUsage(undefined);
        if (isObject(event.response)) context.setModel(event.response.model);
        return;
      }
      case 'response.output_text.delta':
        return context.emitText(str(event.delta));
      case 'response.refusal.delta':
        context.refuse(str(event.delta) ?? '');
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return context.emitReasoning(str(event.delta));
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = event.item;
        if (!isObject(item) || item.type !== 'function_call') return;
        const key = str(item.id) ?? `output${num(event.output_index) ?? 0}`;
        const call = context.call(key, num(event.output_index) ?? 0, str(item.call_id), str(item.name));
        if (type === 'response.output_item.done') {
          call.initial = str(item.arguments);
          context.close(call);
        }
        return;
      }
      case 'response.function_call_arguments.delta':
      case 'response.function_call_arguments.done': {
        const index = num(event.output_index) ?? 0;
        const call = context.call(str(event.item_id) ?? `output${index}`, index, undefined, undefined);
        if (type === 'response.function_call_arguments.delta') {
          context.emitArguments(call, str(event.delta));
        } else {
          call.initial = str(event.arguments);
          context.close(call);
        }
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const response = isObject(event.response) ? event.response : {};
        context.setModel(response.model);
        const u = response.usage;
        if (isObject(u)) context.setUsage(usageOf(num(u.input_tokens), num(u.output_tokens), num(u.total_tokens)));
        const details = response.incomplete_details;
        const reason = isObject(details) ? str(details.reason) : undefined;
        context.finished = true;
        context.reportRefusal();
        if (type === 'response.failed') {
          const e = isObject(response.error) ? response.error : {};
          context.providerError(errorFrom(e.message ?? 'response failed', e.code), at);
          context.setFinishReason(str(response.status) ?? 'failed');
          return;
        }
        context.setFinishReason(
          reason ?? str(response.status) ?? (type === 'response.completed' ? 'completed' : 'incomplete'),
        );
        return;
      }
    }
    // Other events (in_progress, content_part.*, output_text.done, annotations...) carry nothing
    // the decoder delivers: the deltas above already did.
  }
}
