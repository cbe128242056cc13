// A typed consumer of @llmjson/ag-ui, type-checked by test/packaging/ag-ui.test.ts in a fresh
// project without @types/node: the events it returns are AG-UI's own types.
import type { BaseEvent, StateDeltaEvent } from '@ag-ui/core';
import { agUiRun, fromAgUiState, type ToolCallEvent, toAgUiState, toAgUiToolCalls } from '@llmjson/ag-ui';
import { createPartialStore, createPartialStream, createToolCallStream } from '@llmjson/web';
import { z } from 'zod';

const tools = { get_weather: z.object({ city: z.string() }) };

export async function toolCalls(body: ReadableStream<Uint8Array>): Promise<BaseEvent[]> {
  const calls = createToolCallStream({ input: 'openai', tools, onDiagnostic: (d) => events.diagnostic(d) });
  const events = toAgUiToolCalls(calls, { parentMessageId: 'm1' });
  body.pipeTo(calls.writable).catch(() => {});
  const out: BaseEvent[] = [];
  for await (const event of agUiRun(events, { threadId: 't', runId: 'r' })) out.push(event);
  return out;
}

export async function state(body: ReadableStream<Uint8Array>): Promise<unknown> {
  const partial = createPartialStream({ emit: 'changes' });
  body.pipeTo(partial.writable).catch(() => {});
  const deltas: StateDeltaEvent[] = [];
  const events = [];
  for await (const event of toAgUiState(partial, { throttle: 50 })) {
    if (event.type === 'STATE_DELTA') deltas.push(event);
    events.push(event);
  }
  const store = createPartialStore<{ city: string }>();
  await store.feed(fromAgUiState(events));
  return store.getSnapshot()?.city;
}

export const first = (events: readonly ToolCallEvent[]): string | undefined =>
  events[0]?.type === 'TOOL_CALL_START' ? events[0].toolCallName : undefined;
