/**
 * A typed consumer of @llmjson/react as installed from its tarball: strict, exactOptionalPropertyTypes,
 * DOM lib, no @types/node and no @types/react (the hooks' declarations need neither). The value is
 * typed from a zod schema as DeepPartial while it streams; the items of a JSONL answer whole.
 * Type-checked only (tsc --noEmit), never run.
 */

import { type DeepPartial, type LiveStatus, useJsonlStream, useJsonStream } from '@llmjson/react';
import { z } from 'zod';

const Planet = z.object({ name: z.string(), moons: z.number(), rings: z.boolean() });
type Planet = z.infer<typeof Planet>;

export function planets(): void {
  const answer = useJsonStream((signal) => fetch('/api/planets', { signal }), {
    schema: z.array(Planet),
    key: 'planets',
    throttle: 'frame',
  });
  const value: DeepPartial<Planet[]> | undefined = answer.value;
  const first: string | undefined = answer.value?.[0]?.name;
  const status: LiveStatus = answer.status;
  answer.abort('the user left');

  const lines = useJsonlStream(null, { schema: Planet });
  const items: readonly Planet[] = lines.items;
  const moons: number | undefined = lines.items[0]?.moons;
  void [value, first, status, items, moons];
}
