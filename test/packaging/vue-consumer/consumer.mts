// Type-checked by test/packaging/vue.test.ts against the installed tarballs (strict,
// exactOptionalPropertyTypes, DOM lib, no @types/node): the refs are typed by a zod schema.
import { type DeepPartial, type LiveStatus, useJsonlStream, useJsonStream } from '@llmjson/vue';
import type { ShallowRef } from 'vue';
import { ref } from 'vue';
import { z } from 'zod';

const Recipe = z.object({ title: z.string(), steps: z.array(z.object({ text: z.string() })) });
type Recipe = z.input<typeof Recipe>;

const dish = ref('pho');
const live = useJsonStream((signal) => fetch(`/api/recipe?dish=${dish.value}`, { signal }), {
  schema: Recipe,
  key: dish,
  throttle: 'frame',
});
const value: DeepPartial<Recipe> | undefined = live.value.value;
const title: string | undefined = live.value.value?.title;
const status: LiveStatus = live.status.value;
const readOnly: Readonly<ShallowRef<boolean>> = live.complete;
live.abort();

const source = ref<Response | null>(null);
const list = useJsonlStream(() => source.value, { schema: Recipe });
const items: readonly Recipe[] = list.items.value;

export { items, readOnly, status, title, value };
