/**
 * A standalone validator module (ajv-standalone.ts) dispatching on a discriminator property
 * named after an Object.prototype member: a value without it is "missing discriminator", as in
 * the compiled validators (prototype-names.test.ts), not the prototype's member quoted back.
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { JsonSchema } from '@llmjson/core';
import { compileStandaloneModule } from '@llmjson/core/ajv';
import { expect, test } from 'vitest';

const schemaFor = (property: string): JsonSchema => ({
  oneOf: [
    { type: 'object', properties: { [property]: { const: 'x' } }, required: [property] },
    { type: 'object', properties: { [property]: { const: 'y' } }, required: [property] },
  ],
});

type Validate = (value: unknown) => { issues?: { message: string }[] };

test.each(['constructor', 'toString'])('a value without %s is "missing discriminator"', async (property) => {
  // Written inside this package, so that the module's imports (ajv's runtime) resolve.
  const dir = fileURLToPath(new URL(`./.tmp-prototype-names-${process.pid}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  try {
    const file = join(dir, `${property}.mjs`);
    writeFileSync(file, compileStandaloneModule(schemaFor(property)));
    const module = (await import(pathToFileURL(file).href)) as { default: { '~standard': { validate: Validate } } };
    const validate = module.default['~standard'].validate;
    expect(validate({ v: 1 }).issues?.[0]?.message).toBe(
      `missing discriminator "${property}"; expected one of "x", "y"`,
    );
    expect(validate({ [property]: 'y' }).issues).toBeUndefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
