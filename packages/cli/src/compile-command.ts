/**
 * `llmjson compile <schema.json> [-o out.js]`: JSON Schema validation generated ahead of time,
 * as an ES module whose default export is a Standard Schema (`compileStandaloneModule`,
 * `@llmjson/core/ajv`). A page whose Content-Security-Policy forbids `eval` passes it as
 * `schema` to `@llmjson/web`: nothing compiles at run time.
 *
 * Everything is checked before anything is written: an unreadable or invalid schema, a
 * discriminator that cannot apply or an output file that cannot be written is exit 2 with one
 * line on stderr (control characters and line breaks the schema's strings bring into the
 * message are written as `\uXXXX`), and `-o` is left untouched. No string of the schema runs:
 * see "Inert strings" in ajv-standalone.ts.
 *
 * The schema's warnings (a `format` ajv does not know…) are printed to stderr, one line each,
 * as `llmjson check` prints them; the module is still written and the exit code is 0.
 */

import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { readSchemaFile } from '@llmjson/contracts';
import { ConfigurationError } from '@llmjson/core';
import { compileStandaloneModule } from '@llmjson/core/ajv';
import { quoteInput } from '@llmjson/core/internal';
import { ExitCode, UsageError } from './exit-codes.js';
import { fileProblem, writableFile } from './output-paths.js';
import { checkSchemaFileExists } from './schema-options.js';
import type { Io } from './stream-command.js';
import { terminalText } from './terminal-text.js';

export interface CompileFlags {
  /** A property name, or `false` from `--no-discriminator`; absent: detected. */
  readonly discriminator?: string | boolean;
  readonly output?: string;
}

// C0 and C1 controls, DEL, the line and paragraph separators, the bidi embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Runs `compile`; a ConfigurationError it throws keeps its code, its message made one line that
 * cannot drive the terminal: the message may quote the schema's strings (an `$id` in a pointer,
 * a pattern), and they may hold line breaks or escape sequences.
 */
function oneLine<T>(compile: () => T): T {
  try {
    return compile();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const message = error.message.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    throw message === error.message ? error : new ConfigurationError(error.code, message, { cause: error });
  }
}

export async function runCompileCommand(file: string, flags: CompileFlags, io: Io): Promise<number> {
  const output =
    flags.output === undefined ? undefined : writableFile(io.cwd, flags.output, '-o', [{ label: 'the schema', file }]);
  checkSchemaFileExists(resolve(io.cwd, file), quoteInput(file));
  const schema = readSchemaFile(resolve(io.cwd, file));
  const discriminator =
    flags.discriminator === false
      ? { discriminator: false as const }
      : typeof flags.discriminator === 'string'
        ? { discriminator: flags.discriminator }
        : {};
  const warnings: string[] = [];
  const code = oneLine(() =>
    compileStandaloneModule(schema, {
      ...discriminator,
      name: basename(file),
      onWarning: (warning) => warnings.push(warning.message),
    }),
  );
  for (const warning of warnings) io.stderr.write(`${terminalText(`${quoteInput(file)}: warning: ${warning}`)}\n`);
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
