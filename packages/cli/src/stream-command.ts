/**
 * `llmjson jsonl | json | salvage | partial | elements [file]`: model output in (a file, or
 * stdin for none or `-`; plain text or a provider's streamed body with `--input`), one JSON
 * value per line out, each written the moment the engine emits it. Diagnostics go to stderr.
 * Wiring only: every behaviour is the engines' (`@llmjson/node`) and the contracts'.
 */

import { createReadStream } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { canonicalJson, createEnvelope, isTruncated, parseJsonResponse, writeOutputFile } from '@llmjson/contracts';
import type { Diagnostic, JsonSchema } from '@llmjson/core';
import {
  createElementStream,
  createJsonlStream,
  createPartialStream,
  createProviderStream,
  createSalvageStream,
  type ProviderStream,
} from '@llmjson/node';
import { type DiagnosticsFormat, formatDiagnostic } from './diagnostics-output.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { writableFile } from './output-paths.js';
import type { Context, SchemaFlags } from './schema-options.js';
import { schemaFromFlags } from './schema-options.js';

export type Mode = 'jsonl' | 'json' | 'salvage' | 'partial' | 'elements';
export type InputFormat = 'text' | 'openai' | 'openai-responses' | 'anthropic' | 'ollama' | 'auto';

export interface StreamFlags extends SchemaFlags {
  readonly input: InputFormat;
  readonly api?: boolean;
  readonly outputFile?: string;
  readonly diagnostics: DiagnosticsFormat;
  readonly maxLineLength?: number;
  readonly strict?: boolean;
  readonly require?: number;
  readonly path?: string;
  readonly emit?: 'snapshots' | 'changes' | 'both';
  readonly tolerate?: 'fence-and-prose' | 'none';
}

export interface Io extends Context {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** Writes one line to stdout, waiting when the pipe is full; false once the reader has gone (EPIPE). */
export function lineWriter(stdout: Writable): { write(line: string): Promise<boolean>; readonly closed: boolean } {
  let closed = false;
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') closed = true;
  });
  return {
    get closed() {
      return closed;
    },
    async write(line: string) {
      if (closed) return false;
      if (!stdout.write(line)) {
        await new Promise<void>((done) => {
          const finish = () => {
            stdout.off('drain', finish);
            stdout.off('error', finish);
            stdout.off('close', finish);
            done();
          };
          stdout.on('drain', finish);
          stdout.on('error', finish);
          stdout.on('close', finish);
        });
      }
      return !closed;
    },
  };
}

export async function runStreamCommand(
  mode: Mode,
  file: string | undefined,
  flags: StreamFlags,
  io: Io,
): Promise<number> {
  // Everything that can be wrong with the command line is found before any input is read.
  const { schema, schemaRef } = schemaFromFlags(flags, io);
  const source = file === undefined || file === '-' ? undefined : resolve(io.cwd, file);
  if (source !== undefined) {
    try {
      await access(source, constants.R_OK);
    } catch {
      throw new UsageError(`cannot read input file ${file}`);
    }
  }
  if (mode !== 'elements' && flags.path !== undefined) throw new UsageError('--path applies to the elements mode only');
  const outputFile =
    flags.outputFile === undefined ? undefined : writableFile(io.cwd, flags.outputFile, '--output-file');
  const stdout = lineWriter(io.stdout);
  let diagnosticCount = 0;
  let dropped = 0;
  const onDiagnostic = (d: Diagnostic, origin = mode as string) => {
    diagnosticCount++;
    if (d.reason !== 'recovered' && d.reason !== 'blank' && d.reason !== 'fence') dropped++;
    const text = formatDiagnostic(d, flags.diagnostics, `llmjson ${origin}`);
    if (text !== undefined) io.stderr.write(text);
  };
  const input: Readable = source === undefined ? io.stdin : createReadStream(source);
  let provider: ProviderStream | undefined;
  let text: Readable = input;
  if (flags.input !== 'text') {
    provider = createProviderStream({ input: flags.input });
    provider.on('diagnostic', (d: Diagnostic) => onDiagnostic(d, 'input'));
    text = input.pipe(provider);
    input.on('error', (error) => provider?.destroy(error));
  }
  const common = {
    ...(schema === undefined ? {} : { schema }),
    ...(flags.discriminator === undefined ? {} : { discriminator: flags.discriminator }),
    onDiagnostic,
  };
  const values: unknown[] = [];
  let outOfRange = 0;
  const print = async (value: unknown) => {
    if (flags.api === true) return true;
    let nonFinite = false;
    const line = JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) nonFinite = true;
      return v;
    });
    if (nonFinite) {
      // JSON cannot carry it (JSON.stringify would print null): reported, not printed.
      outOfRange++;
      dropped++;
      io.stderr.write(
        `llmjson ${mode}: a value holds a number beyond the double range (read as Infinity); not printed\n`,
      );
      return true;
    }
    return stdout.write(`${line}\n`);
  };

  let json: unknown;
  let status: 'succeeded' | 'incomplete' | 'failed' = 'succeeded';
  let failure:
    | { reason: 'CONTRACT_VALIDATION_FAILED' | 'INCOMPLETE'; detail?: 'NOT_JSON' | 'SCHEMA_MISMATCH'; message: string }
    | undefined;
  let answer = '';

  if (mode === 'json') {
    text.setEncoding?.('utf8');
    for await (const chunk of text) answer += typeof chunk === 'string' ? chunk : String(chunk);
    const outcome = parseJsonResponse(answer, {
      schema: schema as JsonSchema | undefined,
      ...(flags.discriminator === undefined ? {} : { discriminator: flags.discriminator }),
      ...(flags.tolerate === undefined ? {} : { tolerate: flags.tolerate }),
      finishReason: provider?.finishReason,
    });
    if (outcome.status === 'succeeded') {
      json = outcome.json;
      await print(json);
    } else {
      status = outcome.status;
      failure =
        outcome.status === 'failed'
          ? { reason: outcome.reason, detail: outcome.detail, message: outcome.message }
          : { reason: 'INCOMPLETE', message: outcome.message };
    }
  } else {
    const engine =
      mode === 'jsonl'
        ? createJsonlStream({
            ...common,
            ...(flags.maxLineLength === undefined ? {} : { maxLineLength: flags.maxLineLength }),
          })
        : mode === 'salvage'
          ? createSalvageStream(common)
          : mode === 'elements'
            ? createElementStream({ ...common, ...(flags.path === undefined ? {} : { path: flags.path }) })
            : createPartialStream({ ...common, emit: flags.emit ?? 'snapshots' });
    const output = text.pipe(engine);
    text.on('error', (error) => engine.destroy(error));
    for await (const out of output) {
      const value = mode === 'salvage' || mode === 'elements' ? (out as { value: unknown }).value : out;
      if (mode === 'partial') json = flags.emit === 'changes' ? undefined : out;
      else values.push(value);
      if (!(await print(value))) {
        // The reader went away (`| head -1`): stop quietly.
        input.destroy();
        return ExitCode.ok;
      }
    }
    if (mode === 'partial') {
      const complete = (engine as ReturnType<typeof createPartialStream>).complete;
      json = (engine as ReturnType<typeof createPartialStream>).value;
      if (!complete || dropped > 0) {
        status = 'failed';
        failure = {
          reason: 'CONTRACT_VALIDATION_FAILED',
          detail: 'NOT_JSON',
          message: 'the document is not complete valid JSON',
        };
      }
    } else {
      json = values;
    }
    if (isTruncated(provider?.finishReason) && status === 'succeeded') {
      status = 'incomplete';
      failure = {
        reason: 'INCOMPLETE',
        message: `the answer was cut off at the token limit (finish reason "${provider?.finishReason}")`,
      };
    }
  }

  if (provider !== undefined && status === 'succeeded') {
    if (provider.error !== undefined) {
      status = 'failed';
      failure = {
        reason: 'CONTRACT_VALIDATION_FAILED',
        message: `the provider sent an error: ${provider.error.message}`,
      };
    } else if (!provider.complete) {
      status = 'incomplete';
      failure = { reason: 'INCOMPLETE', message: 'the provider stream ended before the answer did (no finish reason)' };
    }
  }
  let code: number =
    status === 'succeeded' ? ExitCode.ok : provider?.error !== undefined ? ExitCode.provider : ExitCode.format;
  const count =
    mode === 'json'
      ? status === 'succeeded'
        ? 1
        : 0
      : mode === 'partial'
        ? status === 'succeeded'
          ? 1
          : 0
        : values.length;
  if (failure === undefined && flags.strict === true && dropped > 0) {
    failure = {
      reason: 'CONTRACT_VALIDATION_FAILED',
      message: `--strict: ${dropped} ${dropped === 1 ? 'line or value was' : 'lines or values were'} dropped`,
    };
  }
  if (failure === undefined && flags.require !== undefined && count < flags.require) {
    failure = {
      reason: 'CONTRACT_VALIDATION_FAILED',
      message: `--require ${flags.require}: only ${count} valid ${count === 1 ? 'value' : 'values'}`,
    };
  }
  if (failure !== undefined) {
    if (code === ExitCode.ok) code = ExitCode.format;
    io.stderr.write(`llmjson: ${failure.detail === undefined ? failure.reason : failure.detail}: ${failure.message}\n`);
  }
  void outOfRange;
  if (flags.api !== true && outputFile === undefined) return code;
  const envelope = createEnvelope({
    responseType: mode === 'jsonl' || mode === 'salvage' || mode === 'elements' ? 'jsonl' : 'json',
    status: code === ExitCode.ok ? 'succeeded' : status === 'succeeded' ? 'failed' : status,
    json,
    schemaRef,
    text: mode === 'json' ? answer : answerText(json),
    model: provider?.model,
    provider: provider?.provider,
    usage: provider?.usage as Record<string, unknown> | undefined,
    finishReason: provider?.finishReason,
    error: failure,
  });
  if (flags.api === true) await stdout.write(`${JSON.stringify(envelope)}\n`);
  if (outputFile !== undefined) writeOutputFile(envelope, outputFile);
  void diagnosticCount;
  return code;
}

/** The text of a non-json mode's result for the envelope: its values as canonical JSON when they have one. */
function answerText(json: unknown): string {
  if (json === undefined) return '';
  try {
    return canonicalJson(json);
  } catch {
    return '';
  }
}
