/**
 * `llmjson run --prompts FILE --id ID --vars FILE --base-url URL --model NAME`: renders the
 * prompt, calls an OpenAI-compatible server with streaming, and writes each validated object
 * to stdout as it arrives (`--api`: the envelope instead).
 *
 * `--timeout S` (default 60) gives up on a server that sends nothing for S seconds, before its
 * headers or between two pieces of its answer; `--total-timeout S` (default none) on a call that
 * takes longer than S seconds in all. Either is exit 3 with one line naming the flag.
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createPromptManager, type Envelope, parseVariables } from '@llmjson/contracts';
import { quoteInput } from '@llmjson/core';
import { openAICompatible, ProviderHttpError } from '@llmjson/node';
import { type DiagnosticsFormat, formatDiagnostic } from './diagnostics-output.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { writableFile, writeCheckedOutputFile } from './output-paths.js';
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
  /** Seconds the server may stay silent (commander passes the text; default 60; 0: no limit). */
  readonly timeout?: string;
  /** Seconds the whole call may take (default: no limit; 0: no limit). */
  readonly totalTimeout?: string;
}

/** A `--timeout`-style value in milliseconds: decimal seconds, 0 for no limit. */
function seconds(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+(?:\.\d+)?$/.test(value)) {
    throw new UsageError(`${flag} must be a number of seconds (0: no limit), got ${quoteInput(value)}`);
  }
  const ms = Number(value) * 1000;
  // Below a millisecond still means a limit, not none.
  return ms === 0 ? Number.POSITIVE_INFINITY : Math.max(1, Math.round(ms));
}

/**
 * The timeout openAICompatible rejects with, told apart by its name and code rather than by
 * `instanceof`, which two installed copies of @llmjson/node would defeat.
 */
function timeoutOf(error: unknown): { flag: string; seconds: number; total: boolean } | undefined {
  if (!(error instanceof Error) || error.name !== 'ProviderTimeoutError') return undefined;
  const { code, timeoutMs } = error as Error & { code?: unknown; timeoutMs?: unknown };
  if (typeof timeoutMs !== 'number') return undefined;
  const total = code === 'TOTAL_TIMEOUT';
  return { flag: total ? '--total-timeout' : '--timeout', seconds: timeoutMs / 1000, total };
}

function readText(io: Io, file: string, what: string): string {
  try {
    return readFileSync(resolve(io.cwd, file), 'utf8');
  } catch {
    throw new UsageError(`cannot read ${what} ${quoteInput(file)}`);
  }
}

export async function runRunCommand(flags: RunFlags, io: Io): Promise<number> {
  const idleTimeoutMs = seconds('--timeout', flags.timeout, 60_000);
  const totalTimeoutMs = seconds('--total-timeout', flags.totalTimeout, Number.POSITIVE_INFINITY);
  let config: unknown;
  try {
    config = JSON.parse(readText(io, flags.prompts, '--prompts file'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--prompts ${quoteInput(flags.prompts)} is not JSON: ${quoteInput((error as Error).message)}`);
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
    idleTimeoutMs,
    totalTimeoutMs,
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
    const timeout = timeoutOf(error);
    if (timeout !== undefined) {
      const what = timeout.total
        ? `did not finish within ${timeout.seconds} s`
        : `sent nothing for ${timeout.seconds} s`;
      io.stderr.write(
        `llmjson run: the model server at ${quoteInput(flags.baseUrl)} ${what} (${timeout.flag}); giving up\n`,
      );
      return ExitCode.provider;
    }
    // The call itself failed: one line saying where and why.
    const status = error instanceof ProviderHttpError ? ` (HTTP ${error.status})` : '';
    const cause = (error as Error & { cause?: { message?: string } }).cause?.message;
    io.stderr.write(
      `llmjson: the model server at ${quoteInput(flags.baseUrl)} failed${status}: ${quoteInput((error as Error).message)}${cause === undefined ? '' : ` (${quoteInput(cause)})`}\n`,
    );
    return ExitCode.provider;
  }
  if (flags.api === true) await stdout.write(`${JSON.stringify(envelope)}\n`);
  if (outputFile !== undefined) writeCheckedOutputFile(envelope, outputFile, flags.outputFile ?? '');
  if (envelope.status !== 'succeeded') {
    const error = envelope.error;
    io.stderr.write(`llmjson: ${envelope.status}: ${error?.detail ?? error?.reason ?? ''}: ${error?.message ?? ''}\n`);
    return ExitCode.format;
  }
  return ExitCode.ok;
}
