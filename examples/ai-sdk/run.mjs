/**
 * llmjson inside the AI SDK (`ai` 7), on the AI SDK's own mock model: no network, no key.
 * `node examples/ai-sdk/run.mjs` (Node 22 or later) after `npx tsc -b`.
 *
 * 1. object(): partial objects as the answer streams, the validated value at the end.
 * 2. failFast: a violation early in a long answer aborts the model call through its signal.
 * 3. jsonl(): an object per line as each line completes; the broken line is reported.
 * 4. array(): an answer cut off at the token limit still gives its complete elements.
 * 5. partialObjectTransform: validated partials in fullStream, as custom parts.
 */
import { array, jsonl, object, partialObjectTransform } from '@llmjson/ai-sdk';
import { generateText, streamText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that streams `text` in `size`-character deltas, counting the deltas it was read for. */
function model(text, { size = 6, finish = 'stop' } = {}) {
  const read = { count: 0, total: Math.ceil(text.length / size) };
  const mock = new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => {
      let i = 0;
      return {
        stream: new ReadableStream({
          pull(controller) {
            if (abortSignal?.aborted) return controller.error(abortSignal.reason);
            if (i === 0) controller.enqueue({ type: 'text-start', id: 't' });
            if (i < text.length) {
              controller.enqueue({ type: 'text-delta', id: 't', delta: text.slice(i, i + size) });
              read.count++;
              i += size;
              return;
            }
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: { unified: finish, raw: finish }, usage });
            controller.close();
          },
        }),
      };
    },
    doGenerate: async () => ({
      content: [{ type: 'text', text }],
      finishReason: { unified: finish, raw: finish },
      usage,
      warnings: [],
    }),
  });
  return { mock, read };
}

const Trip = z.object({
  city: z.string(),
  days: z.number().int().min(1),
  stops: z.array(z.object({ name: z.string(), hours: z.number() })),
});
const trip = {
  city: 'Lyon',
  days: 2,
  stops: [
    { name: 'Fourvière', hours: 2 },
    { name: 'Vieux Lyon', hours: 3 },
  ],
};

// 1. object(): partials, then the validated value.
{
  const { mock } = model(`Here you go:\n\`\`\`json\n${JSON.stringify(trip)}\n\`\`\``);
  const result = streamText({ model: mock, prompt: 'Plan a trip.', output: object({ schema: Trip }) });
  let partials = 0;
  let last;
  for await (const partial of result.partialOutputStream) {
    partials++;
    last = partial;
    if (partials === 8) console.log(`partial: ${JSON.stringify(partial)}`);
  }
  const output = await result.output;
  console.log(
    `object: ${partials} partials, the last equals the output: ${JSON.stringify(last) === JSON.stringify(output)}`,
  );
  console.log(`output: ${JSON.stringify(output)}`);
  const generated = await generateText({ model: mock, prompt: 'Plan a trip.', output: object({ schema: Trip }) });
  console.log(`generateText: ${generated.output.city}, ${generated.output.days} days`);
}

// 2. failFast: "days": 0 breaks `min(1)`; the model is stopped through the request's signal.
{
  const long = JSON.stringify({ ...trip, days: 0, stops: Array.from({ length: 400 }, () => trip.stops[0]) });
  const { mock, read } = model(long);
  const controller = new AbortController();
  const result = streamText({
    model: mock,
    prompt: 'Plan a trip.',
    abortSignal: controller.signal,
    output: object({ schema: Trip, failFast: true, abortController: controller }),
  });
  for await (const _ of result.partialOutputStream);
  const error = await result.output.catch((e) => e);
  console.log(`failFast: ${error.name} at ${error.path} (${error.rule})`);
  console.log(`the model was read for ${read.count} of ${read.total} chunks`);
}

// 3. jsonl(): each object as its line completes; the broken line is reported.
{
  const lines = [
    '{"name":"Fourvière","hours":2}',
    '{"name":"Parc","hours":"all day"}',
    '{"name":"Vieux Lyon","hours":3}',
  ];
  const { mock } = model(lines.join('\n'));
  const Stop = z.object({ name: z.string(), hours: z.number() });
  const output = jsonl({
    schema: Stop,
    onDiagnostic: (d) => console.log(`jsonl dropped: line ${d.line}: ${d.reason}`),
  });
  const result = streamText({ model: mock, prompt: 'List stops, one JSON object per line.', output });
  for await (const stop of result.elementStream) console.log(`jsonl object: ${JSON.stringify(stop)}`);
}

// 4. array(): cut off at the token limit, the complete elements remain.
{
  const text = JSON.stringify({ elements: [...trip.stops, { name: 'Presqu’île', hours: 4 }] }).slice(0, -20);
  const { mock } = model(text, { finish: 'length' });
  const result = streamText({
    model: mock,
    prompt: 'List stops.',
    output: array({ element: z.object({ name: z.string(), hours: z.number() }) }),
  });
  console.log(`array (cut off): ${JSON.stringify(await result.output)}`);
}

// 5. partialObjectTransform: validated partials and the final value in fullStream.
{
  const { mock } = model(JSON.stringify(trip));
  const result = streamText({
    model: mock,
    prompt: 'Plan a trip.',
    experimental_transform: partialObjectTransform({ schema: Trip }),
  });
  const kinds = {};
  for await (const part of result.fullStream)
    if (part.type === 'custom') kinds[part.kind] = (kinds[part.kind] ?? 0) + 1;
  console.log(`fullStream custom parts: ${JSON.stringify(kinds)}`);
}
