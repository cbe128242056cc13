// The prompt runner on the bundled TrustGraph-style catalog, with a scripted model that streams
// recorded answers in small chunks (no network, no key):
//   node examples/contracts/prompt-runner.mjs
// Swap `scripted(...)` for `openAICompatible({ baseURL, model })` from @llmjson/node to call a
// real server.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ContractValidationError, checkCatalog, createPromptManager, createSchemaRegistry } from '@llmjson/contracts';

const fixtures = new URL('../../fixtures/contracts/', import.meta.url);
const config = JSON.parse(readFileSync(new URL('prompts.json', fixtures), 'utf8'));
// Workspace root first (here: the fixtures), then the user's and the built-in roots would follow.
const registry = createSchemaRegistry({ roots: [fileURLToPath(new URL('schemas/prompt-contracts', fixtures))] });

// 1. Before any model is called: every prompt's schema resolves and is valid JSON Schema.
const report = checkCatalog(config, registry);
console.log(`catalog: ${report.ok ? 'ok' : 'BROKEN'}, ${report.prompts.length} prompts`);
for (const p of report.prompts)
  console.log(`  ${p.promptId.padEnd(22)} ${p.responseType.padEnd(5)} ${p.schema ?? '-'}`);

// A model that streams a recorded answer in 4-character chunks.
const scripted =
  (name, finishReason = 'stop') =>
  () => ({
    output: (async function* () {
      const text = readFileSync(new URL(`answers/${name}.txt`, fixtures), 'utf8');
      for (let i = 0; i < text.length; i += 4) yield text.slice(i, i + 4);
    })(),
    model: 'recorded',
    provider: 'fixtures',
    finishReason,
  });

const prompts = createPromptManager(config, {
  registry,
  onDiagnostic: (d, id) => console.log(`  [${id}] dropped line ${d.line}: ${d.reason}: ${d.message}`),
});
const vars = { text: 'Mitochondria produce ATP, which powers the cell.' };

// 2. JSONL: the valid objects, as they arrive; invalid lines dropped and reported.
const stream = prompts.stream('agent-kg-extract', vars, scripted('agent-kg-extract'));
for await (const object of stream) console.log('object:', JSON.stringify(object));
console.log('outcome:', (await stream.outcome).status);

// 3. JSON: the validated document, or a typed failure.
console.log('sections:', JSON.stringify(await prompts.invoke('section-text', vars, scripted('section-text'))));
try {
  await prompts.invoke('section-text', vars, scripted('section-text-mismatch'));
} catch (error) {
  if (!(error instanceof ContractValidationError)) throw error;
  console.log(`failed: ${error.outcome.detail}: ${error.outcome.message}`);
}

// 4. The envelope for API consumers: canonical JSON text (RFC 8785).
const envelope = await prompts.run('section-text', vars, scripted('section-text'));
console.log('envelope:', JSON.stringify({ status: envelope.status, text: envelope.result.text }));
