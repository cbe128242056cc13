/**
 * `llmjson run --prompts FILE --id ID --vars FILE --base-url URL --model NAME`: renders the
 * prompt, calls an OpenAI-compatible server with streaming, and writes each validated object
 * to stdout as it arrives (`--api`: the envelope instead).
 *
 * `--timeout S` (default 60) gives up on a server that sends nothing for S seconds, before its
 * headers or between two pieces of its answer; `--total-timeout S` (default none) on a call that
 * takes longer than S seconds in all. Either is exit 3 with one line naming the flag.
 *
 * `--fail-fast` ends the call at the first violation of the answer's contract (a JSONL line that
 * fails its schema; a JSON value no completion can make valid): the request is aborted, so the
 * server stops generating, and the exit code is 4 (`SCHEMA_VIOLATION`, naming the path and the
 * rule). `--retries N` calls the model again, up to N times, when the answer breaks its contract,
 * with the conversation so far and a correction naming the path, the rule, the offending excerpt
 * and the expected shape; each retry is one line on stderr. With retries, a json or jsonl
 * prompt's objects are printed once their attempt is the last, so stdout never holds two
 * answers; `--api` prints the envelope with its `attempts`.
 */

import { resolve } from 'node:path';
import { type AttemptFailure, createPromptManager, type Envelope, type Llm, parseVariables } from '@llmjson/contracts';
import type { Diagnostic } from '@llmjson/core';
import { quoteInput } from '@llmjson/core/internal';
import { openAICompatible, ProviderHttpError } from '@llmjson/node';
import { coerceFromFlag } from './coerce-flag.js';
import { type DiagnosticsFormat, formatDiagnostic, MAX_MESSAGE_LENGTH } from './diagnostics-output.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { OUT_OF_RANGE_REASON, outOfRangeIn, outOfRangeMessage } from './out-of-range.js';
import { writableFile, writeCheckedOutputFile } from './output-paths.js';
import { readRegularText } from './read-file.js';
import { registryFor } from './schema-options.js';
import { type Io, lineWriter } from './stream-command.js';
import { terminalLines, terminalText } from './terminal-text.js';

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
  /** Retries after an answer that breaks its contract (commander passes the text; default 0). */
  readonly retries?: string;
  /** End the call at the first violation of the contract. */
  readonly failFast?: boolean;
  /** `--coerce [rules]`: `true` without a value, else the comma-separated rule names. */
  readonly coerce?: string | boolean;
}

/** `--retries`: a whole number, 0 or more. */
function retriesOf(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d{1,3}$/.test(value)) {
    throw new UsageError(`--retries must be a whole number of retries from 0 to 999, got ${quoteInput(value)}`);
  }
  return Number(value);
}

/** The response type of prompt `id` in a configuration read from a file (`text` when it does not say). */
function responseTypeOf(config: unknown, id: string): unknown {
  const prompts = (config as { prompts?: unknown } | null)?.prompts;
  if (typeof prompts !== 'object' || prompts === null || !Object.hasOwn(prompts, id)) return undefined;
  const entry = (prompts as Record<string, unknown>)[id];
  return typeof entry === 'object' && entry !== null
    ? ((entry as Record<string, unknown>)['response-type'] ?? 'text')
    : undefined;
}

/** The stderr line for a retry (`--diagnostics json`: one JSON object). */
function retryLine(
  failure: AttemptFailure,
  retries: number,
  format: DiagnosticsFormat,
  source: string,
): string | undefined {
  if (format === 'none') return undefined;
  const next = failure.attempt + 1;
  if (format === 'json') {
    const { attempt, detail, path, rule, message, line } = failure;
    return `${terminalLines(JSON.stringify({ source, retry: { attempt, next, of: retries + 1, detail, path, rule, ...(line === undefined ? {} : { line }), message: quoteInput(message) } }))}\n`;
  }
  const where = `${failure.line === undefined ? '' : `line ${failure.line}, `}at ${failure.path === '' ? '/' : failure.path}`;
  return `${terminalText(`${source}: attempt ${failure.attempt} failed: ${failure.detail} ${where} (${failure.rule}): ${quoteInput(failure.message)}; retrying (attempt ${next} of ${retries + 1})`)}\n`;
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

/** A file read whole (`--prompts`, `--vars`): a regular file of at most 64 MiB (read-file.ts), else exit 2. */
function readText(io: Io, file: string, what: string): string {
  return readRegularText(resolve(io.cwd, file), file, { label: `cannot read ${what}` });
}

export async function runRunCommand(flags: RunFlags, io: Io): Promise<number> {
  const idleTimeoutMs = seconds('--timeout', flags.timeout, 60_000);
  const retries = retriesOf(flags.retries);
  const coerce = coerceFromFlag(flags.coerce);
  const totalTimeoutMs = seconds('--total-timeout', flags.totalTimeout, Number.POSITIVE_INFINITY);
  let config: unknown;
  try {
    config = JSON.parse(readText(io, flags.prompts, '--prompts file'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--prompts ${quoteInput(flags.prompts)} is not JSON: ${quoteInput((error as Error).message)}`);
  }
  if (coerce !== undefined && responseTypeOf(config, flags.id) === 'text') {
    throw new UsageError(
      `--coerce needs a schema to say what to repair, and prompt ${JSON.stringify(quoteInput(flags.id))} is a text prompt: it applies to json and jsonl prompts`,
    );
  }
  const outputFile =
    flags.outputFile === undefined
      ? undefined
      : writableFile(io.cwd, flags.outputFile, '--output-file', [
          { label: '--prompts', file: flags.prompts },
          { label: '--vars', file: flags.vars },
        ]);
  const vars =
    flags.vars === undefined
      ? {}
      : parseVariables(readText(io, flags.vars, '--vars file'), `--vars file ${flags.vars}`);
  const source = `llmjson run ${flags.id}`;
  // With retries, a structured answer's objects wait until their attempt is the last.
  const held: unknown[] | undefined =
    retries > 0 && responseTypeOf(config, flags.id) !== 'text' && flags.api !== true ? [] : undefined;
  const manager = createPromptManager(config, {
    registry: registryFor(flags, io),
    failFast: flags.failFast === true,
    retries,
    ...(coerce === undefined ? {} : { coerce }),
    onDiagnostic: (d, _id, { attempt }) => {
      const text = formatDiagnostic(d, flags.diagnostics, attempt > 1 ? `${source} (attempt ${attempt})` : source);
      if (text !== undefined) io.stderr.write(text);
    },
    onRetry: (failure) => {
      if (held !== undefined) held.length = 0;
      const text = retryLine(failure, retries, flags.diagnostics, source);
      if (text !== undefined) io.stderr.write(text);
    },
  });
  const apiKey = io.env[flags.apiKeyEnv];
  const clientOptions = {
    baseURL: flags.baseUrl,
    model: flags.model,
    ...(apiKey ? { apiKey } : {}),
    idleTimeoutMs,
    totalTimeoutMs,
    // What the server's stream itself got wrong (an event that is not JSON, a refusal...).
    onDiagnostic: (d: Diagnostic) => {
      const text = formatDiagnostic(d, flags.diagnostics, 'llmjson run (server stream)');
      if (text !== undefined) io.stderr.write(text);
    },
  };
  // A retry's request carries the whole conversation (`messages`: the earlier answers and their
  // corrections), which the client sends in place of the system and user messages.
  const llm: Llm = openAICompatible(clientOptions);
  const stdout = lineWriter(io.stdout);
  const stream = manager.stream(flags.id, vars, llm);
  let envelope: Envelope;
  try {
    const print = (value: unknown) => {
      if (typeof value === 'string') return stdout.write(value);
      const line = JSON.stringify(value);
      // A number beyond the double range would print as null: reported instead (out-of-range.ts);
      // the envelope fails with NUMBER_OUT_OF_RANGE, exit 4.
      const found = outOfRangeIn(value, line);
      if (found === undefined) return stdout.write(`${line}\n`);
      const d = { reason: OUT_OF_RANGE_REASON, offset: 0, excerpt: '', message: outOfRangeMessage(found) };
      const text = formatDiagnostic({ ...d, path: found.path }, flags.diagnostics, source);
      if (text !== undefined) io.stderr.write(text);
      return true;
    };
    for await (const value of stream) {
      if (held !== undefined) held.push(value);
      else if (flags.api !== true) await print(value);
    }
    envelope = await stream.outcome;
    for (const value of held ?? []) await print(value);
  } catch (error) {
    await stdout.flush();
    const timeout = timeoutOf(error);
    if (timeout !== undefined) {
      const what = timeout.total
        ? `did not finish within ${timeout.seconds} s`
        : `sent nothing for ${timeout.seconds} s`;
      io.stderr.write(
        `llmjson run: the model server at ${terminalText(quoteInput(flags.baseUrl))} ${what} (${timeout.flag}); giving up\n`,
      );
      return ExitCode.provider;
    }
    // The call itself failed: one line saying where and why.
    const status = error instanceof ProviderHttpError ? ` (HTTP ${error.status})` : '';
    const cause = (error as Error & { cause?: { message?: string } }).cause?.message;
    io.stderr.write(
      `llmjson: the model server at ${terminalText(quoteInput(flags.baseUrl))} failed${status}: ${terminalText(quoteInput((error as Error).message))}${cause === undefined ? '' : ` (${terminalText(quoteInput(cause))})`}\n`,
    );
    return ExitCode.provider;
  }
  if (flags.api === true) await stdout.write(`${JSON.stringify(envelope)}\n`);
  await stdout.flush();
  if (outputFile !== undefined) writeCheckedOutputFile(envelope, outputFile, flags.outputFile ?? '');
  if (envelope.status !== 'succeeded') {
    const error = envelope.error;
    io.stderr.write(
      `llmjson: ${envelope.status}: ${error?.detail ?? error?.reason ?? ''}: ${terminalText(quoteInput(error?.message ?? '', MAX_MESSAGE_LENGTH))}\n`,
    );
    return ExitCode.format;
  }
  return ExitCode.ok;
}
