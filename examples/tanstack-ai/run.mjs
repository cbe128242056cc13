/**
 * llmjson's incremental jsonParser inside TanStack AI's StreamProcessor (the engine of
 * `ChatClient` and `useChat`, which take it as `streamProcessor: { jsonParser }`). A recorded run
 * (no network, no key) streams two parallel tool calls whose argument texts alternate, a few
 * characters per TOOL_CALL_ARGS event: the partial arguments show as they grow, each call's text
 * is read once, and a third call that breaks its tool's schema is reported the moment its prefix
 * proves it. Run: node examples/tanstack-ai/run.mjs
 */

import { createIncrementalJsonParser } from '@llmjson/tanstack-ai';
import { StreamProcessor } from '@tanstack/ai';
import { z } from 'zod';

/** AG-UI chunks of a run whose calls send their arguments `step` characters at a time, in turn. */
function recordedRun(calls, step) {
  const chunks = [{ type: 'RUN_STARTED', runId: 'r1', threadId: 't1', timestamp: 0 }];
  for (const { id, name } of calls)
    chunks.push({ type: 'TOOL_CALL_START', toolCallId: id, toolCallName: name, timestamp: 0 });
  const longest = Math.max(...calls.map((call) => call.args.length));
  for (let from = 0; from < longest; from += step) {
    for (const { id, args } of calls) {
      const delta = args.slice(from, from + step);
      if (delta) chunks.push({ type: 'TOOL_CALL_ARGS', toolCallId: id, delta, timestamp: 0 });
    }
  }
  for (const { id } of calls) chunks.push({ type: 'TOOL_CALL_END', toolCallId: id, timestamp: 0 });
  chunks.push({ type: 'RUN_FINISHED', runId: 'r1', threadId: 't1', finishReason: 'tool_calls', timestamp: 0 });
  return chunks;
}

const trips = [
  {
    id: 'call-1',
    name: 'planTrip',
    args: JSON.stringify({ city: 'Lyon', days: 2, stops: ['Fourvière', 'Vieux Lyon'] }),
  },
  { id: 'call-2', name: 'planTrip', args: JSON.stringify({ city: 'Kyoto', days: 3, stops: ['Gion', 'Arashiyama'] }) },
];

// 1. Two parallel calls: the partial arguments after every args event, read incrementally.
const jsonParser = createIncrementalJsonParser();
const processor = new StreamProcessor({ jsonParser });
let shown = 0;
for (const chunk of recordedRun(trips, 5)) {
  processor.processChunk(chunk);
  if (chunk.type === 'TOOL_CALL_ARGS' && shown++ % 5 === 0) {
    const call = processor.getState().toolCalls.get(chunk.toolCallId);
    console.log(`${call.id} so far: ${JSON.stringify(call.parsedArguments)}`);
  }
}
for (const part of processor.getMessages().flatMap((message) => message.parts)) {
  if (part.type === 'tool-call') console.log(`${part.id} ${part.state}: ${JSON.stringify(part.input)}`);
}
const total = trips.reduce((sum, trip) => sum + trip.args.length, 0);
const { calls, charactersRead } = jsonParser.stats;
let wholeTexts = 0;
for (const trip of trips)
  for (let end = 5; end < trip.args.length + 5; end += 5) wholeTexts += Math.min(end, trip.args.length);
console.log(
  `${calls} parse calls read ${charactersRead} characters of ${total} (parsing each text whole: ${wholeTexts})`,
);

// 2. A schema for the tool's arguments: the violation as soon as the prefix proves it.
const PlanTrip = z.object({ city: z.string(), days: z.number().int().min(1).max(14), stops: z.array(z.string()) });
const checked = createIncrementalJsonParser({
  schema: PlanTrip,
  onDiagnostic: (diagnostic, text) => console.log(`violation: ${diagnostic.message} (after ${JSON.stringify(text)})`),
});
const strict = new StreamProcessor({ jsonParser: checked });
const long = { id: 'call-3', name: 'planTrip', args: '{"city": "Oslo", "days": 40, "stops": []}' };
for (const chunk of recordedRun([long], 4)) strict.processChunk(chunk);
