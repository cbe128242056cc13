// A typed consumer of @llmjson/tanstack-ai as installed from its tarball: type-checked by
// test/packaging/tanstack-ai.test.ts without @types/node, so a declaration of ours that names a
// Node type, a parser that stopped fitting TanStack's `jsonParser` option, or a value type that
// stopped following the schema, fails there.

import { createIncrementalJsonParser, type IncrementalJsonParser } from '@llmjson/tanstack-ai';
import { StreamProcessor, type StreamProcessorOptions } from '@tanstack/ai';
import { z } from 'zod';

const Weather = z.object({ city: z.string(), days: z.number() });

export function processor(): StreamProcessor {
  const jsonParser: IncrementalJsonParser<z.infer<typeof Weather>> = createIncrementalJsonParser({
    schema: Weather,
    maxTexts: 4,
    onDiagnostic: (diagnostic, text) => console.log(diagnostic.reason, text.length),
  });
  const city: string | undefined = jsonParser.parse('{"city": "Os')?.city;
  const options: StreamProcessorOptions = { jsonParser };
  return new StreamProcessor({ ...options, events: { onTextUpdate: () => city } });
}
