/**
 * `llmjson run --prompts FILE --id ID --vars FILE --base-url URL --model NAME`: renders the
 * prompt, calls an OpenAI-compatible server with streaming, and writes each validated object
 * to stdout as it arrives (`--api`: the envelope instead).
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createPromptManager, type Envelope, parseVariables, writeOutputFile } from '@llmjson/contracts';
import { openAICompatible, ProviderHttpError } from '@llmjson/node';
import { type DiagnosticsFormat, formatDiagnostic } from './diagnostics-output.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { writableFile } from './output-paths.js';
import { registryFor } from './schema-options.js';
import { type Io, lineWriter } from './stream-command.js';

export interface RunFlags {
  readonly prompts: string;
  readonly id: string;
  readonly vars?: string;
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKeyEnv: string;
  readonly schemaRoot?: string[];
  readonly api?: boolean;
  readonly outputFile?: string;
  readonly diagnostics: DiagnosticsFormat;
}

function readText(io: Io, file: string, what: string): string {
  try {
    return readFileSync(resolve(io.cwd, file), 'utf8');
  } catch {
    throw new UsageError(`cannot read ${what} ${file}`);
  }
}

export async function runRunCommand(flags: RunFlags, io: Io): Promise<number> {
  let config: unknown;
  try {
    config = JSON.parse(readText(io, flags.prompts, '--prompts file'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--prompts ${flags.prompts} is not JSON: ${(error as Error).message}`);
  }
  const outputFile =
    flags.outputFile === undefined ? undefined : writableFile(io.cwd, flags.outputFile, '--output-file');
  const vars =
    flags.vars === undefined
      ? {}
      : parseVariables(readText(io, flags.vars, '--vars file'), `--vars file ${flags.vars}`);
  const manager = createPromptManager(config, {
    registry: registryFor(flags, io),
    onDiagnostic: (d) => {
      const text = formatDiagnostic(d, flags.diagnostics, `llmjson run ${flags.id}`);
      if (text !== undefined) io.stderr.write(text);
    },
  });
  const apiKey = io.env[flags.apiKeyEnv];
  const llm = openAICompatible({
    baseURL: flags.baseUrl,
    model: flags.model,
    ...(apiKey ? { apiKey } : {}),
    // What the server's stream itself got wrong (an event that is not JSON, a refusal...).
    onDiagnostic: (d) => {
      const text = formatDiagnostic(d, flags.diagnostics, 'llmjson run (server stream)');
      if (text !== undefined) io.stderr.write(text);
    },
  });
  const stdout = lineWriter(io.stdout);
  const stream = manager.stream(flags.id, vars, llm);
  let envelope: Envelope;
  try {
    for await (const value of stream) {
      if (flags.api !== true) await stdout.write(typeof value === 'string' ? value : `${JSON.stringify(value)}\n`);
    }
    envelope = await stream.outcome;
  } catch (error) {
    // The call itself failed: one line saying where and why.
    const status = error instanceof ProviderHttpError ? ` (HTTP ${error.status})` : '';
    const cause = (error as Error & { cause?: { message?: string } }).cause?.message;
    io.stderr.write(
      `llmjson: the model server at ${flags.baseUrl} failed${status}: ${(error as Error).message}${cause === undefined ? '' : ` (${cause})`}\n`,
    );
    return ExitCode.provider;
  }
  if (flags.api === true) await stdout.write(`${JSON.stringify(envelope)}\n`);
  if (outputFile !== undefined) writeOutputFile(envelope, outputFile);
  if (envelope.status !== 'succeeded') {
    const error = envelope.error;
    io.stderr.write(`llmjson: ${envelope.status}: ${error?.detail ?? error?.reason ?? ''}: ${error?.message ?? ''}\n`);
    return ExitCode.format;
  }
  return ExitCode.ok;
}
