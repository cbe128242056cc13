/**
 * @llmjson/langchain's types: with a zod schema, the chunks `.stream()` of a chain ending in
 * `PartialJsonOutputParser` yields are `DeepPartial<z.infer<schema>>`; `emit: 'changes'` and
 * `'patch'` type them as change lists and RFC 6902 operations; `JsonlOutputParser` yields
 * `z.infer<schema>[]` and `SalvageJsonOutputParser` invokes to `z.infer<schema>`; without a
 * schema (or with a plain JSON Schema) the values are `unknown`. The `expectTypeOf` calls are
 * checked by `tsc -p tsconfig.test.json` (the `@ts-expect-error` lines fail that check if the
 * error they expect goes away); the test also runs a chain, so the typed value is the real one.
 */

import { AIMessageChunk } from '@langchain/core/messages';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import type { IterableReadableStream } from '@langchain/core/utils/stream';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import type { DeepPartial, JsonSchema } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import {
  type Change,
  JsonlOutputParser,
  type JsonPatchOperation,
  PartialJsonOutputParser,
  SalvageJsonOutputParser,
} from '@llmjson/langchain';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';

const article = z.object({
  title: z.string(),
  kind: z.enum(['news', 'essay']),
  sections: z.array(z.object({ heading: z.string(), words: z.number() })),
});
type Article = z.infer<typeof article>;

const ANSWER = '{"title": "T", "kind": "essay", "sections": [{"heading": "H", "words": 3}]}';
const prompt = ChatPromptTemplate.fromTemplate('Write about {topic}.');
const model = new FakeStreamingChatModel({
  chunks: [ANSWER.slice(0, 30), ANSWER.slice(30)].map((content) => new AIMessageChunk({ content })),
});

describe('@llmjson/langchain types', () => {
  test('the stream of prompt.pipe(model).pipe(parser) yields DeepPartial<z.infer<schema>>', async () => {
    const chain = prompt.pipe(model).pipe(new PartialJsonOutputParser({ schema: article }));
    const stream = await chain.stream({ topic: 'x' });
    expectTypeOf(stream).toEqualTypeOf<IterableReadableStream<DeepPartial<Article>>>();
    let last: DeepPartial<Article> | undefined;
    for await (const chunk of stream) {
      expectTypeOf(chunk).toEqualTypeOf<DeepPartial<Article>>();
      // A discriminant still streaming is a plain string; a section may lack its heading.
      expectTypeOf(chunk.kind).toEqualTypeOf<string | undefined>();
      expectTypeOf(chunk.sections?.[0]?.heading).toEqualTypeOf<string | undefined>();
      last = chunk;
    }
    expect(last).toEqual(JSON.parse(ANSWER));
  });

  test('emit types the chunks; JSONL and salvage type their values', () => {
    expectTypeOf(
      new PartialJsonOutputParser({ schema: article, emit: 'changes' }).stream,
    ).returns.resolves.toEqualTypeOf<IterableReadableStream<Change[]>>();
    expectTypeOf(new PartialJsonOutputParser({ emit: 'patch' }).invoke).returns.resolves.toEqualTypeOf<
      JsonPatchOperation[]
    >();
    expectTypeOf(new JsonlOutputParser({ schema: article }).invoke).returns.resolves.toEqualTypeOf<Article[]>();
    expectTypeOf(new SalvageJsonOutputParser({ schema: article }).invoke).returns.resolves.toEqualTypeOf<Article>();

    expectTypeOf(new PartialJsonOutputParser().invoke).returns.resolves.toEqualTypeOf<unknown>();
    const wide: JsonSchema = { type: 'object' };
    expectTypeOf(
      new JsonlOutputParser({ schema: wide, compileJsonSchema: compileSchema }).invoke,
    ).returns.resolves.toEqualTypeOf<unknown[]>();

    // @ts-expect-error: emit is 'values', 'changes' or 'patch' (LangChain's `diff` is 'patch' here)
    expect(() => new PartialJsonOutputParser({ emit: 'diff' })).toThrow(/emit must be/);
    // @ts-expect-error: an option the JSONL parser does not take
    expect(() => new JsonlOutputParser({ emit: 'values' })).toThrow(/emit/);
  });
});
