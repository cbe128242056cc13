// Runs in a fresh npm project where the packed tarballs are installed (see ../packaging.test.ts):
// imports every entry point of every package and runs one JSONL answer end to end through the
// Node stream, the Web stream, the one-shot core decoder and the contracts parser. Prints one
// JSON object for the test to compare.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as cli from '@llmjson/cli';
import * as contracts from '@llmjson/contracts';
import * as core from '@llmjson/core';
import * as coreAjv from '@llmjson/core/ajv';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import * as webAjv from '@llmjson/web/ajv';

const schema = {
  oneOf: [
    {
      type: 'object',
      properties: { type: { const: 'definition' }, entity: { type: 'string' }, definition: { type: 'string' } },
      required: ['type', 'entity', 'definition'],
    },
    {
      type: 'object',
      properties: { type: { const: 'relationship' }, subject: { type: 'string' }, object: { type: 'string' } },
      required: ['type', 'subject', 'object'],
    },
  ],
};

// A fenced answer with one line that fails its branch, cut off at the token limit, and a
// character split across chunks.
const answer = [
  '```jsonl',
  '{"type":"definition","entity":"ATP","definition":"energy currency ⚡"}',
  '{"type":"relationship","subject":"stomata"}',
  '{"type":"relationship","subject":"stomata","object":"carbon dioxide"}',
  '```',
  '{"type":"definition","entity":"NAD',
].join('\n');
const bytes = new TextEncoder().encode(answer);
const chunks = [];
for (let i = 0; i < bytes.length; i += 3) chunks.push(bytes.subarray(i, i + 3));

const summary = (values) => values.map((v) => v.entity ?? `${v.subject}->${v.object}`);

const nodeDiagnostics = [];
const nodeStream = node.createJsonlStream({ schema, onDiagnostic: (d) => nodeDiagnostics.push(d.reason) });
const nodeValues = [];
await pipeline(Readable.from(chunks), nodeStream, async (values) => {
  for await (const value of values) nodeValues.push(value);
});

const webDiagnostics = [];
const webStream = web.createJsonlStream({
  schema,
  compileJsonSchema: webAjv.compileSchema,
  onDiagnostic: (d) => webDiagnostics.push(d.reason),
});
const webValues = [];
await new ReadableStream({
  start(controller) {
    for (const chunk of chunks) controller.enqueue(chunk);
    controller.close();
  },
})
  .pipeThrough(webStream)
  .pipeTo(new WritableStream({ write: (value) => void webValues.push(value) }));

const oneShot = core.parseJsonl(answer, { schema, compileJsonSchema: coreAjv.compileSchema });
const outcome = contracts.parseJsonlResponse(answer, { schema, finishReason: 'length' });

console.log(
  JSON.stringify({
    exports: {
      core: typeof core.parseJsonl,
      coreAjv: typeof coreAjv.compileSchema,
      node: typeof node.createJsonlStream,
      web: typeof web.createJsonlStream,
      webAjv: typeof webAjv.compileSchema,
      contracts: typeof contracts.createPromptManager,
      cli: typeof cli.main,
    },
    node: { values: summary(nodeValues), diagnostics: nodeDiagnostics, stats: nodeStream.stats.values },
    web: { values: summary(webValues), diagnostics: webDiagnostics, stats: webStream.stats.values },
    core: { values: summary(oneShot.values), diagnostics: oneShot.diagnostics.map((d) => d.reason) },
    contracts: { status: outcome.status },
  }),
);
