/**
 * `--schema FILE` / `--schema-ref NAME` with `--schema-root DIR`: the schema a command
 * validates against, resolved before any input is read (a problem is exit code 2).
 */

import { resolve } from 'node:path';
import {
  compileContractSchema,
  createSchemaRegistry,
  defaultSchemaRoots,
  readSchemaFile,
  type SchemaRegistry,
} from '@llmjson/contracts';
import { type JsonSchema, quoteInput } from '@llmjson/core';
import { UsageError } from './exit-codes.js';

export interface SchemaFlags {
  readonly schema?: string;
  readonly schemaRef?: string;
  readonly schemaRoot?: readonly string[];
  readonly discriminator?: string;
}

export interface Context {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** `--schema-root` directories (highest first), then workspace, user and built-in roots. */
export function registryFor(flags: Pick<SchemaFlags, 'schemaRoot'>, context: Context): SchemaRegistry {
  const custom = (flags.schemaRoot ?? []).map((dir) => ({ dir: resolve(context.cwd, dir), kind: 'custom' as const }));
  return createSchemaRegistry({ roots: [...custom, ...defaultSchemaRoots({ cwd: context.cwd, env: context.env })] });
}

/** The schema named by the flags (or undefined), checked to compile. */
export function schemaFromFlags(
  flags: SchemaFlags,
  context: Context,
): { schema: JsonSchema | undefined; schemaRef: string | undefined } {
  if (flags.schema !== undefined && flags.schemaRef !== undefined) {
    throw new UsageError('give --schema FILE or --schema-ref NAME, not both');
  }
  const discriminator = flags.discriminator === undefined ? {} : { discriminator: flags.discriminator };
  if (flags.schema !== undefined) {
    const file = resolve(context.cwd, flags.schema);
    const schema = readSchemaFile(file);
    compileContractSchema(schema, `--schema ${quoteInput(flags.schema)}`, discriminator, { file });
    return { schema, schemaRef: undefined };
  }
  if (flags.schemaRef !== undefined) {
    const registry = registryFor(flags, context);
    const { schema, file } = registry.resolve(flags.schemaRef);
    compileContractSchema(schema, `schema file ${quoteInput(file)}`, discriminator, { ref: flags.schemaRef, file });
    return { schema, schemaRef: flags.schemaRef };
  }
  return { schema: undefined, schemaRef: undefined };
}
