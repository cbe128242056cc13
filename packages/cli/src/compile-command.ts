/**
 * `llmjson compile <schema.json> [-o out.js]`: JSON Schema validation generated ahead of time,
 * as an ES module whose default export is a Standard Schema (`compileStandaloneModule`,
 * `@llmjson/core/ajv`). A page whose Content-Security-Policy forbids `eval` passes it as
 * `schema` to `@llmjson/web`: nothing compiles at run time.
 *
 * Everything is checked before anything is written: an unreadable or invalid schema, a
 * discriminator that cannot apply or an output file that cannot be written is exit 2 with one
 * line on stderr, and `-o` is left untouched.
 */

import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { readSchemaFile } from '@llmjson/contracts';
import { compileStandaloneModule } from '@llmjson/core/ajv';
import { quoteInput } from '@llmjson/core/internal';
import { ExitCode, UsageError } from './exit-codes.js';
import { fileProblem, writableFile } from './output-paths.js';
import { checkSchemaFileExists } from './schema-options.js';
import type { Io } from './stream-command.js';

export interface CompileFlags {
  /** A property name, or `false` from `--no-discriminator`; absent: detected. */
  readonly discriminator?: string | boolean;
  readonly output?: string;
}

export async function runCompileCommand(file: string, flags: CompileFlags, io: Io): Promise<number> {
  const output = flags.output === undefined ? undefined : writableFile(io.cwd, flags.output, '-o');
  checkSchemaFileExists(resolve(io.cwd, file), quoteInput(file));
  const schema = readSchemaFile(resolve(io.cwd, file));
  const discriminator =
    flags.discriminator === false
      ? { discriminator: false as const }
      : typeof flags.discriminator === 'string'
        ? { discriminator: flags.discriminator }
        : {};
  const code = compileStandaloneModule(schema, { ...discriminator, name: basename(file) });
  if (output === undefined) {
    // Resolved once written (or once the reader has gone: nothing more to do either way).
    await new Promise<void>((done) => io.stdout.write(code, () => done()));
    return ExitCode.ok;
  }
  try {
    writeFileSync(output, code);
  } catch (error) {
    throw new UsageError(`-o ${quoteInput(flags.output ?? '')}: cannot write it (${fileProblem(error)})`);
  }
  return ExitCode.ok;
}
