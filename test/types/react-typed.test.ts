/**
 * @llmjson/react's types: with a zod schema, `useJsonStream`'s value is
 * `DeepPartial<z.infer<schema>> | undefined` and `useJsonlStream`'s items are `z.infer<schema>`;
 * without a schema (or with a plain JSON Schema) they are `unknown`. The `expectTypeOf` calls are
 * checked by `tsc -p tsconfig.test.json`, and the `@ts-expect-error` lines fail that check if the
 * error they expect goes away. The hooks are not called here (that needs a component): the
 * bodies below only type-check; the test runs the one check that needs no React.
 */

import type { DeepPartial, JsonSchema } from '@llmjson/core';
import {
  type LiveStatus,
  type UseJsonlStreamResult,
  type UseJsonStreamResult,
  useJsonlStream,
  useJsonStream,
} from '@llmjson/react';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';

const article = z.object({
  title: z.string(),
  sections: z.array(z.object({ heading: z.string(), words: z.number() })),
});
type Article = z.infer<typeof article>;

/** Type-checked, never called: a hook outside a component would throw. */
export function typedUses(response: Response): void {
  const answer = useJsonStream(response, { schema: article });
  expectTypeOf(answer.value).toEqualTypeOf<DeepPartial<Article> | undefined>();
  expectTypeOf(answer).toEqualTypeOf<UseJsonStreamResult<Article>>();
  expectTypeOf(answer.status).toEqualTypeOf<LiveStatus>();
  expectTypeOf(answer.abort).toEqualTypeOf<(reason?: unknown) => void>();
  // A section still streaming may lack its heading.
  expectTypeOf(answer.value?.sections?.[0]?.heading).toEqualTypeOf<string | undefined>();

  const lines = useJsonlStream((signal) => fetch('/lines', { signal }), { schema: article, key: 'a' });
  expectTypeOf(lines.items).toEqualTypeOf<readonly Article[]>();
  expectTypeOf(lines).toEqualTypeOf<UseJsonlStreamResult<Article>>();

  expectTypeOf(useJsonStream(null).value).toEqualTypeOf<DeepPartial<unknown> | undefined>();
  const wide: JsonSchema = { type: 'object' };
  expectTypeOf(useJsonlStream(response, { schema: wide }).items).toEqualTypeOf<readonly unknown[]>();

  // @ts-expect-error: the source is a Response, a stream or a function, not a URL
  useJsonStream('/api/answer');
  // @ts-expect-error: throttle is 'frame' or milliseconds
  useJsonStream(response, { throttle: 'never' });
  // @ts-expect-error: JSONL is model text only: there is no `input` option
  useJsonlStream(response, { input: 'events' });
}

describe('@llmjson/react types', () => {
  test('the hooks are functions (the types above are checked by tsc)', () => {
    expect([typeof useJsonStream, typeof useJsonlStream]).toEqual(['function', 'function']);
  });
});
