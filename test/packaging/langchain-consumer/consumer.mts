// A typed consumer of @llmjson/langchain as installed from its tarball: type-checked by
// test/packaging/langchain.test.ts without @types/node, so a declaration of ours that names a
// Node type, or a chunk type that stopped following the schema, fails there.

import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { type DeepPartial, JsonlOutputParser, PartialJsonOutputParser } from '@llmjson/langchain';
import { z } from 'zod';

const Recipe = z.object({ title: z.string(), steps: z.array(z.string()) });

export async function titles(model: BaseChatModel): Promise<string[]> {
  const prompt = ChatPromptTemplate.fromTemplate('A recipe for {dish}.');
  const seen: string[] = [];
  for await (const recipe of await prompt
    .pipe(model)
    .pipe(new PartialJsonOutputParser({ schema: Recipe }))
    .stream({ dish: 'soup' })) {
    const typed: DeepPartial<z.infer<typeof Recipe>> = recipe;
    if (typed.title !== undefined) seen.push(typed.title);
  }
  const lines: z.infer<typeof Recipe>[] = await prompt
    .pipe(model)
    .pipe(new JsonlOutputParser({ schema: Recipe }))
    .invoke({ dish: 'soup' });
  return [...seen, ...lines.map((line) => line.title)];
}
