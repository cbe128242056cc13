/**
 * `--schema FILE` / `--schema-ref NAME` with `--schema-root DIR`: the schema a command
 * validates against, resolved before any input is read (a problem is exit code 2).
 *
 * `--schema` names a JSON Schema file, or (stream modes) a JavaScript module and one of its
 * exports: `schemas.mjs` (the default export) or `schemas.mjs#Answer` (a named one). The
 * export is a Standard Schema (zod 4, valibot 1, arktype 2…) or a JSON Schema object, so the
 * schema a program already defines in code validates on the command line too.
 */

import { statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ContractConfigurationError,
  ContractErrorCode,
  compileContractSchema,
  createSchemaRegistry,
  defaultSchemaRoots,
  readSchemaFile,
  type SchemaRegistry,
} from '@llmjson/contracts';
import type { JsonSchema, SchemaInput } from '@llmjson/core';
import { isStandardSchema, quoteInput } from '@llmjson/core/internal';
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
  if (flags.schema !== undefined && schemaModule(flags.schema) !== undefined) {
    throw new UsageError(
      `--schema ${quoteInput(flags.schema)} is a JavaScript module: this command needs a JSON Schema file (batch workers receive the schema as data)`,
    );
  }
  const discriminator = flags.discriminator === undefined ? {} : { discriminator: flags.discriminator };
  if (flags.schema !== undefined) {
    const file = resolve(context.cwd, flags.schema);
    checkSchemaFileExists(file, `--schema ${quoteInput(flags.schema)}`);
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

/**
 * A schema file that is not there is SCHEMA_NOT_FOUND (exit 2, one line naming the path), as an
 * unresolvable `--schema-ref` is; one that is there but unreadable or broken stays SCHEMA_INVALID.
 */
export function checkSchemaFileExists(file: string, label: string): void {
  try {
    statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return;
    throw new ContractConfigurationError(
      ContractErrorCode.schemaNotFound,
      `${label}: no such file (${quoteInput(file)})`,
      { file },
    );
  }
}

const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);

/** `--schema` as a module and export name (`file.mjs#Name`; `default` without `#`), or undefined for a JSON file. */
function schemaModule(spec: string): { file: string; exportName: string } | undefined {
  const hash = spec.lastIndexOf('#');
  const file = hash > 0 && MODULE_EXTENSIONS.has(extname(spec.slice(0, hash))) ? spec.slice(0, hash) : spec;
  if (!MODULE_EXTENSIONS.has(extname(file))) return undefined;
  const exportName = file === spec ? 'default' : spec.slice(hash + 1);
  return { file, exportName };
}

/**
 * The schema named by the flags, as `schemaFromFlags` finds it, and also from a JavaScript
 * module (`--schema schemas.mjs#Answer`): its export must be a Standard Schema or a JSON
 * Schema object, and is compiled (a Standard Schema: its vendor and JSON Schema export read)
 * before any input is read.
 */
export async function loadSchemaFlags(
  flags: SchemaFlags,
  context: Context,
): Promise<{ schema: SchemaInput | undefined; schemaRef: string | undefined }> {
  const module = flags.schema === undefined ? undefined : schemaModule(flags.schema);
  if (module === undefined || flags.schema === undefined) return schemaFromFlags(flags, context);
  if (flags.schemaRef !== undefined) throw new UsageError('give --schema FILE or --schema-ref NAME, not both');
  const label = `--schema ${quoteInput(flags.schema)}`;
  const file = resolve(context.cwd, module.file);
  checkSchemaFileExists(file, label);
  try {
    if (!statSync(file).isFile()) throw new UsageError(`${label}: ${quoteInput(file)} is not a file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `${label}: cannot read ${quoteInput(file)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(
      `${label}: the module failed to load: ${quoteInput(error instanceof Error ? error.message : String(error))}`,
    );
  }
  const schema = exports[module.exportName];
  if (schema === undefined) {
    const names = Object.keys(exports).filter((name) => name !== 'default' || exports.default !== undefined);
    throw new UsageError(
      `${label}: the module has no export "${quoteInput(module.exportName)}"; it exports ${names.length === 0 ? 'nothing' : quoteInput(names.join(', '))}`,
    );
  }
  const json = typeof schema === 'object' && schema !== null && !Array.isArray(schema);
  if (!isStandardSchema(schema) && !json && typeof schema !== 'boolean') {
    throw new UsageError(
      `${label}: export "${quoteInput(module.exportName)}" is neither a Standard Schema (zod, valibot, arktype…) nor a JSON Schema object`,
    );
  }
  const discriminator = flags.discriminator === undefined ? {} : { discriminator: flags.discriminator };
  compileContractSchema(schema as SchemaInput, label, discriminator, { file });
  return { schema: schema as SchemaInput, schemaRef: undefined };
}
