// llmjson inside AG-UI, both ways, on recorded model streams (no network, no key).
// Out: a model's tool calls as TOOL_CALL_START / ARGS / END events and its JSON answer as
// STATE_SNAPSHOT / STATE_DELTA, framed as one run, every event checked by @ag-ui/core's schemas.
// In: the AG-UI body read back with input: 'ag-ui', its tool-call arguments as live partial values.
// Run: node examples/ag-ui/run.mjs

import { EventSchemas } from '@ag-ui/core/schemas';
import { agUiRun, fromAgUiState, toAgUiState, toAgUiToolCalls } from '@llmjson/ag-ui';
import { createPartialStore, createPartialStream, createToolCallStream } from '@llmjson/web';
import { z } from 'zod';

const tools = {
  get_weather: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
  get_time: z.object({ timezone: z.string() }),
};
const encoder = new TextEncoder();

/** A recorded OpenAI chat stream calling the tools, in small pieces as a model sends them. */
function modelBody(unit) {
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'gpt-4.1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const call = (index, id, name) =>
    chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] });
  const piece = (index, text) => chunk({ tool_calls: [{ index, function: { arguments: text } }] });
  const text =
    call(0, 'call_w', 'get_weather') +
    call(1, 'call_t', 'get_time') +
    ['{"city": "Lis', 'bon", "un', `it": "${unit.slice(0, 3)}`, `${unit.slice(3)}"}`].map((p) => piece(0, p)).join('') +
    ['{"time', 'zone": "Europe/', 'Lisbon"}'].map((p) => piece(1, p)).join('') +
    `${chunk({}, 'tool_calls')}data: [DONE]\n\n`;
  return stream(text.match(/[\s\S]{1,24}/g));
}

function stream(chunks) {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

/** AG-UI's HTTP transport: one SSE event per AG-UI event. */
const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');

async function collect(source) {
  const out = [];
  for await (const item of source) out.push(item);
  return out;
}

// ---- Out: tool calls ------------------------------------------------------------------------
async function toolCallRun(unit, failFast = false) {
  const calls = createToolCallStream({ input: 'openai', tools, failFast, onDiagnostic: (d) => events.diagnostic(d) });
  const events = toAgUiToolCalls(calls);
  modelBody(unit)
    .pipeTo(calls.writable)
    .catch(() => {});
  return collect(agUiRun(events, { threadId: 'thread-1', runId: `run-${unit}` }));
}

const run = await toolCallRun('celsius');
const valid = run.every((e) => EventSchemas.safeParse(e).success);
console.log(`out: ${run.length} events, all valid per @ag-ui/core: ${valid}`);
console.log(`out: ${[...new Set(run.map((e) => e.type))].join(' ')}`);
const args = run.filter((e) => e.type === 'TOOL_CALL_ARGS' && e.toolCallId === 'call_w').map((e) => e.delta);
console.log(`out: TOOL_CALL_ARGS deltas of call_w: ${JSON.stringify(args)}`);

const kelvin = await toolCallRun('kelvin');
const violation = kelvin.find((e) => e.type === 'CUSTOM');
console.log(
  `out: ${violation.name} ${violation.value.reason} at ${violation.value.path ?? ''}: ${violation.value.excerpt}`,
);
const stopped = await toolCallRun('kelvin', true);
console.log(`out with failFast: ${stopped.at(-1).type} ${stopped.at(-1).code}`);

// ---- In: the AG-UI body as a provider stream ---------------------------------------------------
const body = sse(run);
const back = stream(body.match(/[\s\S]{1,40}/g)).pipeThrough(createToolCallStream({ input: 'ag-ui', tools }));
for await (const call of back) {
  console.log(`in: ${call.name} ${call.complete ? 'done' : 'so far'} ${JSON.stringify(call.value)}`);
}

// ---- Out and in: a JSON answer as agent state ---------------------------------------------------
const answer = JSON.stringify({
  destination: 'Lisbon',
  days: [
    { day: 1, plan: 'Alfama, the castle and a fado evening' },
    { day: 2, plan: 'Belém: the tower, the monastery and pastéis' },
  ],
});
const partial = createPartialStream({ emit: 'changes' });
stream(answer.match(/[\s\S]{1,4}/g))
  .pipeTo(partial.writable)
  .catch(() => {});
const state = await collect(
  agUiRun(toAgUiState(partial, { throttle: 0 }), { threadId: 'thread-1', runId: 'run-state' }),
);
const deltas = state.filter((e) => e.type === 'STATE_DELTA');
console.log(
  `state: 1 STATE_SNAPSHOT and ${deltas.length} STATE_DELTA events, all valid: ${state.every((e) => EventSchemas.safeParse(e).success)}`,
);
console.log(`state: a delta: ${JSON.stringify(deltas[20].delta)}`);
const store = createPartialStore();
await store.feed(fromAgUiState(state));
console.log(`state read back equals the answer: ${JSON.stringify(store.getSnapshot()) === answer}`);

const throttled = createPartialStream({ emit: 'changes' });
stream(answer.match(/[\s\S]{1,4}/g))
  .pipeTo(throttled.writable)
  .catch(() => {});
const coalesced = await collect(toAgUiState(throttled));
console.log(
  `state with the default 50 ms throttle, the answer arriving at once: ${coalesced.map((e) => e.type).join(', ')}`,
);
