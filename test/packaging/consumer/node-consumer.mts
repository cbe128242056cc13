// Type-checked in a fresh npm project against the packed tarballs (see ../packaging.test.ts),
// with @types/node (the optional peer of @llmjson/node, contracts and cli): lib ES2022,
// `types: ["node"]`, strict + exactOptionalPropertyTypes, under moduleResolution nodenext and
// bundler. Never run.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { main } from '@llmjson/cli';
import { createPromptManager, type JsonOutcome, parseJsonResponse } from '@llmjson/contracts';
import { createJsonlStream, createProviderStream, type Diagnostic, type JsonlStream } from '@llmjson/node';

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, mass: { type: 'number' } },
  required: ['name'],
} as const;

export async function names(input: Readable): Promise<string[]> {
  const diagnostics: Diagnostic[] = [];
  const objects = createJsonlStream({ schema, onDiagnostic: (d) => void diagnostics.push(d) });
  const seen: string[] = [];
  await pipeline(input, objects, async (values: AsyncIterable<{ name: string; mass?: number }>) => {
    for await (const value of values) seen.push(value.name);
  });
  return seen;
}

const records: JsonlStream = createJsonlStream({ records: true, maxLineLength: 1024 });
const text = createProviderStream({ input: 'openai' });

const outcome: JsonOutcome<{ name: string; mass?: number }> = parseJsonResponse('{"name":"ATP"}', { schema });
const documentName: string | undefined = outcome.status === 'succeeded' ? outcome.json.name : undefined;

const prompts = createPromptManager({
  prompts: { extract: { prompt: 'Name the molecules in: {{text}}', 'response-type': 'jsonl', schema } },
});
export const extracted = prompts.invoke('extract', { text: 'ATP' }, async () => '{"name":"ATP"}\n');

export const surface = [records, text, documentName, main, Readable.from(['{}'])];
