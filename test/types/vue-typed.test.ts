/**
 * @llmjson/vue's refs are typed by the schema: `useJsonStream`'s value is
 * `DeepPartial<z.input<S>> | undefined` (unknown without a schema or with a JSON Schema),
 * `useJsonlStream`'s items are `readonly z.input<S>[]`, and the refs are read-only. The
 * `expectTypeOf` and `@ts-expect-error` lines are checked by `tsc -p tsconfig.test.json`; the
 * bodies also run (in an effect scope, where the run starts at once), so each typed value is
 * compared with what the composable really delivers.
 */

import type { DeepPartial, Diagnostic } from '@llmjson/core';
import { type LiveStatus, useJsonlStream, useJsonStream } from '@llmjson/vue';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { effectScope, type ShallowRef } from 'vue';
import { z } from 'zod';

const recipe = z.object({
  title: z.string(),
  steps: z.array(z.object({ text: z.string(), minutes: z.number().optional() })),
});
type Recipe = z.input<typeof recipe>;
const answer = { title: 'Phở bò', steps: [{ text: 'char the onions', minutes: 10 }] };

/** Runs `body` in an effect scope until `done` says the run is over, then stops the scope. */
async function inScope<R>(body: () => R, done: (result: R) => boolean): Promise<R> {
  const scope = effectScope();
  const result = scope.run(body) as R;
  // Polled up to 20 s: a bound for a loaded machine, not a timing assertion.
  for (let turn = 0; turn < 2000 && !done(result); turn++) await new Promise((resolve) => setTimeout(resolve, 10));
  scope.stop();
  return result;
}

describe('@llmjson/vue types', () => {
  test('useJsonStream with a zod schema: the value is DeepPartial of its input type; the refs are read-only', async () => {
    const live = await inScope(
      () => useJsonStream((_signal) => new Response(JSON.stringify(answer)), { schema: recipe, throttle: 0 }),
      (result) => result.status.value === 'done',
    );
    expectTypeOf(live.value.value).toEqualTypeOf<DeepPartial<Recipe> | undefined>();
    expectTypeOf(live.value).toEqualTypeOf<Readonly<ShallowRef<DeepPartial<Recipe> | undefined>>>();
    expectTypeOf(live.status.value).toEqualTypeOf<LiveStatus>();
    expectTypeOf(live.diagnostics.value).toEqualTypeOf<readonly Diagnostic[]>();
    expectTypeOf(live.complete.value).toEqualTypeOf<boolean>();
    // While it streams any key may be missing, and a string may be cut short.
    expectTypeOf(live.value.value?.steps?.[0]?.text).toEqualTypeOf<string | undefined>();
    // @ts-expect-error: not in the schema
    live.value.value?.servings;
    // @ts-expect-error: the refs are read-only
    live.status.value = 'done';
    expect(live.value.value).toEqual(answer);
    expect(live.value.value?.steps?.[0]?.minutes).toBe(10);
  });

  test('useJsonStream without a schema: unknown', () => {
    const live = effectScope().run(() => useJsonStream(null));
    expectTypeOf(live?.value.value).toEqualTypeOf<unknown>();
    expect(live?.status.value).toBe('idle');
  });

  test('useJsonlStream with a zod schema: readonly items of its input type', async () => {
    const text = `${JSON.stringify(answer)}\n{"title":1}\n`;
    const live = await inScope(
      () => useJsonlStream((_signal) => new Response(text), { schema: recipe, throttle: 0 }),
      (result) => result.status.value === 'done',
    );
    expectTypeOf(live.items.value).toEqualTypeOf<readonly Recipe[]>();
    expectTypeOf(live.items.value[0]?.steps[0]?.text).toEqualTypeOf<string | undefined>();
    expect(live.items.value).toEqual([answer]);
    expect(live.diagnostics.value.map((d) => d.reason)).toEqual(['schema']);
  });
});
