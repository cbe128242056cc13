// Type-checked in a fresh npm project against the packed tarballs (see ../packaging.test.ts),
// without @types/node: lib ES2022 + DOM, `types: []`, strict + exactOptionalPropertyTypes, under
// moduleResolution nodenext and bundler. Never run.
import { type Diagnostic, extractJson, type JsonlRecord, parseJsonl } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import {
  createJsonlStream,
  createPartialStream,
  createSalvageStream,
  type JsonlStream,
  openAICompatible,
  ProviderHttpError,
} from '@llmjson/web';
import { compileSchema as compileForWeb } from '@llmjson/web/ajv';

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, mass: { type: 'number' } },
  required: ['name'],
  additionalProperties: false,
} as const;

const parsed = parseJsonl('{"name":"ATP"}\n', { schema, compileJsonSchema: compileSchema, maxLineLength: 1024 });
const names: string[] = parsed.values.map((value) => value.name);
const masses: (number | undefined)[] = parsed.values.map((value) => value.mass);
const firstLine: number | undefined = parsed.records[0]?.line;

const found = extractJson('Sure: {"name":"ATP"}', { schema, compileJsonSchema: compileSchema });
const foundName: string | undefined = found?.value.name;

const diagnostics: Diagnostic[] = [];
const objects = createJsonlStream({
  schema,
  compileJsonSchema: compileForWeb,
  onDiagnostic: (d) => void diagnostics.push(d),
});
const records: JsonlStream<JsonlRecord<{ name: string; mass?: number }>> = createJsonlStream({
  schema,
  compileJsonSchema: compileForWeb,
  records: true,
});
const writable: WritableStream<string | Uint8Array> = objects.writable;
const readable: ReadableStream<{ name: string; mass?: number }> = objects.readable;

export async function render(response: Response): Promise<string[]> {
  const seen: string[] = [];
  if (response.body === null) return seen;
  await response.body.pipeThrough(objects).pipeTo(new WritableStream({ write: (value) => void seen.push(value.name) }));
  return seen;
}

// openAICompatible takes the DOM's own fetch, RequestInit and AbortSignal.
const llm = openAICompatible({
  baseURL: 'https://api.example/v1',
  model: 'm',
  fetch: (url, init) => fetch(url, { ...init, keepalive: true }),
});
export async function ask(signal: AbortSignal): Promise<string | number> {
  try {
    let text = '';
    for await (const piece of (await llm({ prompt: 'hi', signal })).output) text += piece;
    return text;
  } catch (error) {
    if (error instanceof ProviderHttpError) return error.status;
    throw error;
  }
}

export const surface = [
  names,
  masses,
  firstLine,
  foundName,
  records,
  writable,
  readable,
  objects.stats.values,
  createPartialStream(),
  createSalvageStream(),
];
