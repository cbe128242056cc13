/**
 * `llmjson check [prompts.json | dir]`: the catalog check, every problem listed, before any model
 * is called. Each configuration is read whole, so each must be a regular file of at most 64 MiB
 * (read-file.ts): the file named, or any `.json` entry of the directory named, that is not (a
 * FIFO, `/dev/zero`, a symlink to nothing) is exit 2 with one line, before any configuration is read.
 *
 * The warnings of each JSON Schema that compiles (a `format` ajv does not know…:
 * `CompiledSchema.warnings`) are printed to stderr once per schema — a schema file shared by
 * several prompts once — and change nothing in the exit code: the schema is usable as it is.
 */

import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { type CatalogEntry, checkCatalog, type SchemaRegistry } from '@llmjson/contracts';
import type { SchemaWarning } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { isStandardSchema, quoteInput } from '@llmjson/core/internal';
import { ExitCode, UsageError } from './exit-codes.js';
import { fileProblem } from './output-paths.js';
import { notRegular, readRegularText } from './read-file.js';
import { registryFor } from './schema-options.js';
import type { Io } from './stream-command.js';
import { terminalText } from './terminal-text.js';

/** An own property of a parsed configuration's object, or undefined. */
function own(node: unknown, key: string): unknown {
  return typeof node === 'object' && node !== null && Object.hasOwn(node, key)
    ? (node as Record<string, unknown>)[key]
    : undefined;
}

/**
 * The warnings of the JSON Schema a checked prompt uses, compiled as the catalog check compiled it
 * (the same content and discriminator: compileSchema's cache answers). None for a Standard
 * Schema, which has no JSON Schema compiler's warnings.
 */
function warningsOf(config: unknown, entry: CatalogEntry, registry: SchemaRegistry): readonly SchemaWarning[] {
  const prompt = own(own(config, 'prompts'), entry.promptId);
  const schema = entry.schema === 'inline' ? own(prompt, 'schema') : registry.resolve(entry.schema ?? '').schema;
  if (isStandardSchema(schema) || (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null))) {
    return [];
  }
  const discriminator = own(prompt, 'discriminator');
  try {
    return (
      compileSchema(
        schema as Readonly<Record<string, unknown>> | boolean,
        typeof discriminator === 'string' || discriminator === false ? { discriminator } : {},
      ).warnings ?? []
    );
  } catch {
    // The catalog check compiled it: this cannot fail, and a failure would be its problem to report.
    return [];
  }
}

export async function runCheckCommand(
  target: string | undefined,
  flags: { schemaRoot?: string[] },
  io: Io,
): Promise<number> {
  const path = resolve(io.cwd, target ?? 'prompts.json');
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith('.json'))
          .sort()
          .map((name) => join(path, name))
      : [path];
  } catch {
    throw new UsageError(
      `cannot read ${quoteInput(target ?? 'prompts.json')} (give a prompt configuration file or a directory of them)`,
    );
  }
  if (files.length === 0) throw new UsageError(`no .json prompt configurations in ${quoteInput(target ?? '')}`);
  // Every file checked before the first is read: a FIFO or a device among them is one line, exit 2.
  const given = target ?? 'prompts.json';
  const shownName = (file: string) => (file === path ? given : join(given, relative(path, file)));
  for (const file of files) {
    const shown = shownName(file);
    let why: string | undefined;
    try {
      why = notRegular(statSync(file));
    } catch (error) {
      why = fileProblem(error);
    }
    if (why !== undefined) throw new UsageError(`cannot read ${quoteInput(shown)}: ${why}`);
  }
  const registry = registryFor(flags, io);
  let problems = 0;
  let prompts = 0;
  // Schema files (and inline schemas, by prompt) whose warnings were printed.
  const warned = new Set<string>();
  for (const file of files) {
    const name = quoteInput(relative(io.cwd, file) || file);
    let config: unknown;
    try {
      config = JSON.parse(readRegularText(file, shownName(file)));
    } catch (error) {
      // Swapped for a FIFO or grown past the cap since the check above: still one line, exit 2.
      if (error instanceof UsageError) throw error;
      problems++;
      io.stderr.write(
        `${terminalText(`${name}: PROMPT_INVALID: not JSON: ${quoteInput((error as Error).message)}`)}\n`,
      );
      continue;
    }
    const report = checkCatalog(config, registry);
    prompts += report.prompts.length;
    for (const p of report.problems) {
      problems++;
      io.stderr.write(
        `${terminalText(`${name}: ${p.promptId === undefined ? '' : `prompt "${quoteInput(p.promptId)}": `}${p.code}: ${p.message}`)}\n`,
      );
    }
    for (const p of report.prompts) {
      const schema =
        p.schema === undefined
          ? 'no schema'
          : p.schema === 'inline'
            ? 'inline schema'
            : `${quoteInput(p.schema)} (${p.root}: ${quoteInput(p.file ?? '')})`;
      io.stdout.write(
        `${terminalText(`${name}: prompt "${quoteInput(p.promptId)}": ${p.responseType}, ${schema}: ok`)}\n`,
      );
      if (p.schema === undefined) continue;
      const key = p.file ?? `${file}\u0000${p.promptId}`;
      if (warned.has(key)) continue;
      warned.add(key);
      for (const warning of warningsOf(config, p, registry)) {
        io.stderr.write(
          `${terminalText(`${name}: prompt "${quoteInput(p.promptId)}": ${schema}: warning: ${warning.message}`)}\n`,
        );
      }
    }
  }
  io.stderr.write(
    `${prompts} ${prompts === 1 ? 'prompt' : 'prompts'} ok, ${problems} ${problems === 1 ? 'problem' : 'problems'}\n`,
  );
  return problems === 0 ? ExitCode.ok : ExitCode.usage;
}
