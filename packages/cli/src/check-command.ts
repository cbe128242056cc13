/**
 * `llmjson check [prompts.json | dir]`: the catalog check, every problem listed, before any model
 * is called. Each configuration is read whole, so each must be a regular file of at most 64 MiB
 * (read-file.ts): the file named, or any `.json` entry of the directory named, that is not (a
 * FIFO, `/dev/zero`, a symlink to nothing) is exit 2 with one line, before any configuration is read.
 */

import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { checkCatalog } from '@llmjson/contracts';
import { quoteInput } from '@llmjson/core/internal';
import { ExitCode, UsageError } from './exit-codes.js';
import { fileProblem } from './output-paths.js';
import { notRegular, readRegularText } from './read-file.js';
import { registryFor } from './schema-options.js';
import type { Io } from './stream-command.js';
import { terminalText } from './terminal-text.js';

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
    }
  }
  io.stderr.write(
    `${prompts} ${prompts === 1 ? 'prompt' : 'prompts'} ok, ${problems} ${problems === 1 ? 'problem' : 'problems'}\n`,
  );
  return problems === 0 ? ExitCode.ok : ExitCode.usage;
}
