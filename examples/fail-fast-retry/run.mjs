// Fail fast, retry with feedback, and coerce, against a local fake OpenAI-compatible server
// (started here, on a free port; no network, no key):
//   npx -y pnpm@10 build && node examples/fail-fast-retry/run.mjs
// The server streams its answer in 16-byte SSE pieces and counts the bytes it managed to send
// before the client closed the connection.
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createPromptManager } from '@llmjson/contracts';
import { ContractViolationError, createJsonlStream, openAICompatible } from '@llmjson/node';

const section = {
  type: 'object',
  properties: { title: { type: 'string' }, start_line: { type: 'integer', minimum: 1 } },
  required: ['title', 'start_line'],
  additionalProperties: false,
};
const config = {
  prompts: {
    sections: {
      prompt: 'Divide {{text}} into sections. Answer with JSON.',
      'response-type': 'json',
      schema: { type: 'object', properties: { sections: { type: 'array', items: section } }, required: ['sections'] },
    },
  },
};

// The model: the first answer breaks the schema early ("start_line": "one") and then goes on
// for ~40 KB; a retry (a conversation with a correction in it) answers right.
const filler = Array.from({ length: 800 }, (_, i) => `{"title": "Part ${i + 2}", "start_line": ${i + 10}}`).join(', ');
const wrong = `{"sections": [{"title": "Intro", "start_line": "one"}, ${filler}]}`;
const right = '{"sections": [{"title": "Intro", "start_line": 1}, {"title": "Body", "start_line": 12}]}';
const server = { written: 0, requests: [] };
const http = createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  const { messages } = JSON.parse(body);
  server.requests.push(messages);
  const text = messages.length > 1 ? right : wrong;
  server.written = 0;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (let i = 0; i < text.length && !res.destroyed; i += 16) {
    const event = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text.slice(i, i + 16) } }] })}\n\n`;
    if (!res.write(event)) await new Promise((resolve) => res.once('drain', resolve));
    server.written += event.length;
    await new Promise((resolve) => setImmediate(resolve)); // a model's pace, scaled down
  }
  if (!res.destroyed) res.end('data: [DONE]\n\n');
});
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${http.address().port}/v1`;
const llm = openAICompatible({ baseURL, model: 'fake' });
const whole = wrong.length;

// 1. Fail fast: the runner stops at "start_line": "o — no completion of it is an integer.
const fast = await createPromptManager(config, { failFast: true }).run('sections', { text: 'the Heart Sutra' }, llm);
console.log(`failFast: ${fast.status}, ${fast.error?.detail} at ${fast.error?.path} (${fast.error?.rule})`);
console.log(
  `  the server sent ${server.written} bytes of SSE for an answer of ${whole} characters before the call was aborted`,
);

// 2. Retry with feedback: the model is called again with the correction, and answers right.
server.requests.length = 0;
const retried = await createPromptManager(config, { failFast: true, retries: 2 }).run(
  'sections',
  { text: 'the Heart Sutra' },
  llm,
);
console.log(
  `retries: ${retried.status} after ${retried.attempts?.length} attempts: ${retried.attempts?.map((a) => a.status).join(', ')}`,
);
console.log(`  correction sent: ${server.requests[1]?.at(-1)?.content.split('\n')[1]}`);
console.log(`  result: ${JSON.stringify(retried.result?.json)}`);

// 3. Coerce: a JSONL answer with "12" for a number and "Intro " for an enum value.
const lines = [
  '{"title": "Intro", "start_line": "1", "kind": "Intro "}',
  '{"title": "Body", "start_line": 12, "kind": "body"}',
];
const schema = { ...section, properties: { ...section.properties, kind: { enum: ['intro', 'body'] } } };
const values = [];
const repairs = [];
await pipeline(
  Readable.from(lines.map((line) => `${line}\n`)),
  createJsonlStream({ schema, coerce: true, onDiagnostic: (d) => repairs.push(`${d.rule} ${d.path}`) }),
  async (objects) => {
    for await (const value of objects) values.push(value);
  },
);
console.log(`coerce: ${JSON.stringify(values)}`);
console.log(`  repairs reported: ${repairs.join('; ')}`);

// 4. Fail fast on a stream: the first line that breaks the contract ends it.
try {
  await pipeline(
    Readable.from([
      '{"title": "A", "start_line": 1}\n',
      '{"title": "B", "start_line": 0}\n',
      '{"title": "C", "start_line": 3}\n',
    ]),
    createJsonlStream({ schema: section, failFast: true }),
    async (objects) => {
      for await (const value of objects) console.log(`stream value: ${JSON.stringify(value)}`);
    },
  );
} catch (error) {
  if (!(error instanceof ContractViolationError)) throw error;
  console.log(`stream ended: ${error.code} at ${error.path} (${error.rule}), line ${error.diagnostic.line}`);
}
http.close();
