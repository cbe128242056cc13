// llmjson's LangChain.js output parsers on LangChain's own fake streaming chat model (no network,
// no key):
//   npx -y pnpm@10 build && node examples/langchain/run.mjs
// 1. A JSON answer, fenced as ```JSON and wrapped in prose, streamed in 6-character chunks: the
//    partial values as they arrive, then the same answer as RFC 6902 operations of each change.
// 2. The same schema broken early in a long answer: the stream ends there with an
//    OutputParserException carrying llmjson's diagnostic, and the model stops being read.
// 3. A JSONL answer in a ```jsonl fence: each object as its line ends; the dropped line reported
//    as the custom event llmjson_diagnostic (what streamEvents and LangSmith show).
// 4. The salvage parser on a whole answer (invoke).

import { AIMessageChunk } from '@langchain/core/messages';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { JsonlOutputParser, PartialJsonOutputParser, SalvageJsonOutputParser } from '@llmjson/langchain';
import { z } from 'zod';

const Trip = z.object({
  city: z.string(),
  days: z.number().int().min(1),
  stops: z.array(z.object({ name: z.string(), hours: z.number() })),
});

/** A fake chat model that answers with `text` in chunks of `size` characters. */
function model(text, size) {
  const chunks = [];
  for (let i = 0; i < text.length; i += size) chunks.push(new AIMessageChunk({ content: text.slice(i, i + size) }));
  return new FakeStreamingChatModel({ chunks });
}

const prompt = ChatPromptTemplate.fromTemplate('Plan a trip to {city}. {format}');
const trip = JSON.stringify({
  city: 'Lyon',
  days: 2,
  stops: [
    { name: 'Fourvière', hours: 2 },
    { name: 'Vieux Lyon', hours: 3 },
  ],
});
const answer = `Here is your plan:\n\`\`\`JSON\n${trip}\n\`\`\`\nEnjoy!`;

// 1. Partial values, then patches.
const parser = new PartialJsonOutputParser({ schema: Trip });
const input = { city: 'Lyon', format: parser.getFormatInstructions() };
let partials = 0;
let last;
for await (const value of await prompt.pipe(model(answer, 6)).pipe(parser).stream(input)) {
  partials++;
  last = value;
  if (value.stops?.length === 1 && value.stops[0].hours !== undefined) console.log(`partial: ${JSON.stringify(value)}`);
}
console.log(`values: ${partials} partials, the last equals JSON.parse: ${JSON.stringify(last) === trip}`);

const patcher = new PartialJsonOutputParser({ schema: Trip, emit: 'patch' });
const operations = [];
for await (const patch of await prompt.pipe(model(answer, 6)).pipe(patcher).stream(input)) operations.push(...patch);
console.log(`patch: ${operations.length} operations, first ${JSON.stringify(operations[0])}`);
console.log(`patch: ${JSON.stringify(operations.find((op) => op.path === '/stops/1/name' && op.op === 'replace'))}`);

// 2. A violation early in a long answer.
const filler = Array.from({ length: 500 }, (_, i) => `{"name": "Stop ${i}", "hours": 1}`).join(', ');
const broken = `{"city": "Lyon", "days": 0, "stops": [${filler}]}`;
let tokens = 0;
try {
  const stream = await prompt
    .pipe(model(broken, 8))
    .pipe(parser)
    .stream(input, { callbacks: [{ handleLLMNewToken: () => void tokens++ }] });
  for await (const _ of stream) {
  }
} catch (error) {
  console.log(
    `violation: ${error.name}: ${error.diagnostic.reason} at ${error.diagnostic.path} (${error.diagnostic.rule})`,
  );
  console.log(`violation: the model was read for ${tokens} of ${Math.ceil(broken.length / 8)} chunks`);
}

// 3. JSONL: objects as their lines end, the dropped line as a custom event.
const Stop = z.object({ name: z.string(), hours: z.number() });
const lines =
  '```jsonl\n{"name": "Fourvière", "hours": 2}\n{"name": "Bellecour", "hours": "two"}\n{"name": "Vieux Lyon", "hours": 3}\n```';
const jsonl = prompt.pipe(model(lines, 5)).pipe(new JsonlOutputParser({ schema: Stop }));
for await (const event of jsonl.streamEvents(input, { version: 'v2' })) {
  if (event.event === 'on_parser_stream') console.log(`jsonl object: ${JSON.stringify(event.data.chunk[0])}`);
  if (event.event === 'on_custom_event' && event.name === 'llmjson_diagnostic') {
    console.log(`jsonl dropped: line ${event.data.line}: ${event.data.reason}`);
  }
}

// 4. Salvage on invoke.
const chat = new FakeListChatModel({ responses: [`Sure! The plan is \`${trip}\`, have fun.`] });
const salvaged = await prompt
  .pipe(chat)
  .pipe(new SalvageJsonOutputParser({ schema: Trip }))
  .invoke(input);
console.log(`salvage: ${salvaged.city}, ${salvaged.days} days, ${salvaged.stops.length} stops`);
