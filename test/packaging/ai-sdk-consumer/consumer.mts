// A typed consumer of @llmjson/ai-sdk as installed from its tarball: type-checked by
// test/packaging/ai-sdk.test.ts without @types/node, so a declaration of ours that names a Node
// type, or an output whose types stopped following the schema, fails there.

import { type DeepPartial, jsonl, object, partialObjectTransform } from '@llmjson/ai-sdk';
import { type LanguageModel, streamText } from 'ai';
import { z } from 'zod';

const Recipe = z.object({ title: z.string(), steps: z.array(z.string()) });

export async function titles(model: LanguageModel): Promise<string[]> {
  const controller = new AbortController();
  const result = streamText({
    model,
    prompt: 'A recipe for soup.',
    abortSignal: controller.signal,
    output: object({ schema: Recipe, failFast: true, abortController: controller }),
    experimental_transform: partialObjectTransform({ schema: Recipe }),
  });
  const seen: string[] = [];
  for await (const partial of result.partialOutputStream) {
    const typed: DeepPartial<z.infer<typeof Recipe>> = partial;
    if (typed.title !== undefined) seen.push(typed.title);
  }
  const recipe: z.infer<typeof Recipe> = await result.output;
  const lines = streamText({ model, prompt: 'Recipes, one per line.', output: jsonl({ schema: Recipe }) });
  for await (const line of lines.elementStream) seen.push(line.title);
  return [...seen, recipe.title];
}
