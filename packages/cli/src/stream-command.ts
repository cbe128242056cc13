/**
 * `llmjson jsonl | json | salvage | partial | elements [file]`: model output in (a file, or
 * stdin for none or `-`; plain text or a provider's streamed body with `--input`), one JSON
 * value per line out, each written the moment the engine emits it. Diagnostics go to stderr.
 * Wiring only: every behaviour is the engines' (`@llmjson/node`) and the contracts'.
 *
 * `--fail-fast` (json, jsonl, partial, elements): the first contract violation — a value that
 * fails its schema, or a prefix no completion can make valid (where the engine checks
 * prefixes) — ends the run: reading stops, the input is closed (a pipe's writer, `curl -N`, stops with it), and the
 * run exits 4 with one stderr line naming the line or offset, the path and the rule. Values
 * already printed stay printed. json mode watches the document as the partial mode reads it
 * (the first `{` or `[` after any prose or fence), so it can stop before the answer is whole.
 *
 * `--coerce [rules]` (every mode; needs a schema): a value the schema rejects as written is
 * repaired where the schema makes it unambiguous, and printed coerced; each repair is a
 * `recovered` diagnostic line (its message names the path and the rule), never a dropped value.
 * With `--fail-fast`, what coercion repairs is no violation.
 */

import { finished, type Readable, type Writable } from 'node:stream';
import { canonicalJson, createEnvelope, isTruncated, parseJsonResponse } from '@llmjson/contracts';
import {
  type CoerceOption,
  ContractViolationError,
  createPartialBuilder,
  type Diagnostic,
  type JsonlRecord,
  type JsonSchema,
  ProviderFormat,
  type ProviderInput,
  type SchemaInput,
} from '@llmjson/core';
import { withNodeDefaults } from '@llmjson/core/ajv';
import { createUtf8Chunks, isStandardSchema, isViolation, jsonSchemaOf, quoteInput } from '@llmjson/core/internal';
import {
  createElementStream,
  createJsonlStream,
  createPartialStream,
  createProviderStream,
  createSalvageStream,
  type ProviderStream,
} from '@llmjson/node';
import { coerceFromFlag } from './coerce-flag.js';
import { type DiagnosticsFormat, formatDiagnostic, MAX_MESSAGE_LENGTH } from './diagnostics-output.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { sniffInput } from './input-sniff.js';
import { jsonlAnswerNote } from './jsonl-answer.js';
import { LineIndex } from './line-index.js';
import {
  type CliDiagnostic,
  OUT_OF_RANGE_DETAIL,
  OUT_OF_RANGE_REASON,
  type OutOfRange,
  outOfRangeIn,
  outOfRangeMessage,
} from './out-of-range.js';
import { openInputFile, writableFile, writeCheckedOutputFile } from './output-paths.js';
import type { Context, SchemaFlags } from './schema-options.js';
import { loadSchemaFlags } from './schema-options.js';
import { terminalLines, terminalOutput, terminalText } from './terminal-text.js';

export type Mode = 'jsonl' | 'json' | 'salvage' | 'partial' | 'elements';

/** A pushed value that cannot be printed (reported when pushed). */
const UNPRINTABLE = Symbol('unprintable');

/** Where a printed value starts, for the diagnostic of one that cannot be printed. */
interface ValueAt {
  readonly offset: number;
  readonly line?: number;
  readonly endLine?: number;
}
export type PartialEmit = 'snapshots' | 'changes' | 'both';

/**
 * Longest answer json mode reads, in characters (64 MiB): far beyond any model's output, and
 * well below V8's longest string (2^29 - 24 characters, about 512 MiB), past which reading
 * would die with `RangeError: Invalid string length`.
 */
export const DEFAULT_MAX_LENGTH = 64 * 1024 * 1024;

/**
 * What `partial` prints by default: the changes since the previous line. Their total size
 * grows with the input; whole snapshots grow with the square of it (docs/decisions/014).
 */
export const DEFAULT_PARTIAL_EMIT: PartialEmit = 'changes';
/** `--input`: `auto` (the default) decides between text and a provider stream (input-sniff.ts). */
export type InputFormat = 'text' | ProviderInput;

export interface StreamFlags extends SchemaFlags {
  readonly input?: InputFormat;
  readonly api?: boolean;
  readonly outputFile?: string;
  readonly diagnostics: DiagnosticsFormat;
  readonly maxLineLength?: number;
  /** json mode: longest answer read, in characters (default `DEFAULT_MAX_LENGTH`). */
  readonly maxLength?: number;
  readonly strict?: boolean;
  readonly require?: number;
  readonly path?: string;
  readonly emit?: PartialEmit;
  readonly tolerate?: 'fence-and-prose' | 'none';
  /** End the run at the first contract violation (exit 4). */
  readonly failFast?: boolean;
  /** `--coerce [rules]`: `true` without a value, else the comma-separated rule names. */
  readonly coerce?: string | boolean;
}

export interface Io extends Context {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** Writes one line to stdout, waiting when the pipe is full; false once the reader has gone (EPIPE). */
/** Output pieces are gathered up to this many characters before one write (a syscall on a file or pipe). */
const OUTPUT_BATCH = 65_536;

/**
 * Stdout for printed values: pieces written in the same turn of the event loop are gathered and
 * written at once (at the end of the turn, or when OUTPUT_BATCH characters are waiting), so a
 * value is printed as soon as the turn that found it ends and a big input costs a few writes,
 * not one per value. `write` gives false once the reader went away (`| head -1`); when a full
 * batch meets a slow reader it returns a promise that waits for `drain`. `flush` writes what waits: call it before returning.
 * On a terminal, the C1 and bidi characters inside printed JSON strings are written as \u escapes
 * (the same JSON, read back the same), and so are controls other than newline and tab in a text
 * answer (terminal-text.ts); a pipe or file gets the bytes as they are.
 */
export function lineWriter(stdout: Writable): {
  write(line: string): boolean | Promise<boolean>;
  flush(): Promise<boolean>;
  readonly closed: boolean;
} {
  let closed = false;
  let pending = '';
  let scheduled = false;
  const terminal = (stdout as { isTTY?: boolean }).isTTY === true;
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') closed = true;
  });
  // One wait for 'drain' however many flushes need it (one set of listeners, not one per
  // flush: a slow pipe had eleven waiting), and nothing more is written until it comes.
  let draining: Promise<void> | undefined;
  const drained = (): Promise<void> => {
    draining ??= new Promise<void>((done) => {
      const finish = () => {
        stdout.off('drain', finish);
        stdout.off('error', finish);
        stdout.off('close', finish);
        draining = undefined;
        done();
      };
      stdout.on('drain', finish);
      stdout.on('error', finish);
      stdout.on('close', finish);
    });
    return draining;
  };
  const flush = async (): Promise<boolean> => {
    while (draining !== undefined) await draining;
    if (closed) return false;
    if (pending === '') return true;
    const text = pending;
    pending = '';
    if (!stdout.write(text)) await drained();
    return !closed;
  };
  return {
    get closed() {
      return closed;
    },
    // Synchronous unless a full batch has to be written: no promise per printed value.
    write(line: string): boolean | Promise<boolean> {
      if (closed) return false;
      pending += terminal ? terminalOutput(line) : line;
      if (pending.length >= OUTPUT_BATCH) return flush();
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          void flush();
        });
      }
      return true;
    },
    flush,
  };
}

/**
 * Stderr for diagnostics: the lines one job writes (a chunk's worth of diagnostics) are gathered
 * and written at the end of that job (a microtask), or once DIAGNOSTIC_BATCH characters wait —
 * one system call, not one per line (writes to a pipe or file are synchronous). Everything the
 * command writes to stderr goes through it, so lines keep their order; `flush` before returning.
 * Nothing it writes holds a control or bidi character but the newlines ending lines (terminal-text.ts).
 */
export function gatheredLines(stderr: Writable): { write(text: string): void; flush(): void } {
  let pending = '';
  let scheduled = false;
  // A write that threw in a microtask would be an uncaught exception: it is kept, and thrown
  // by the command's own `flush`, as a write made by the command itself would have been.
  let failure: { error: unknown } | undefined;
  const drain = (): void => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    try {
      stderr.write(text);
    } catch (error) {
      failure ??= { error };
    }
  };
  return {
    write(text: string): void {
      // A backstop: whatever a line quotes, no control or bidi character reaches the terminal.
      pending += terminalLines(text);
      if (pending.length >= DIAGNOSTIC_BATCH) drain();
      else if (!scheduled) {
        scheduled = true;
        queueMicrotask(drain);
      }
    },
    flush(): void {
      drain();
      if (failure !== undefined) {
        const { error } = failure;
        failure = undefined;
        throw error;
      }
    },
  };
}

const DIAGNOSTIC_BATCH = 16_384;

export async function runStreamCommand(
  mode: Mode,
  file: string | undefined,
  flags: StreamFlags,
  io: Io,
): Promise<number> {
  const stdout = lineWriter(io.stdout);
  const stderr = gatheredLines(io.stderr);
  try {
    return await streamCommand(mode, file, flags, io, stdout, stderr);
  } finally {
    stderr.flush();
    await stdout.flush();
  }
}

async function streamCommand(
  mode: Mode,
  file: string | undefined,
  flags: StreamFlags,
  io: Io,
  stdout: ReturnType<typeof lineWriter>,
  stderr: ReturnType<typeof gatheredLines>,
): Promise<number> {
  // Everything that can be wrong with the command line is found before any input is read.
  const coerce = coerceFromFlag(flags.coerce);
  const { schema, schemaRef } = await loadSchemaFlags(flags, io);
  if (mode !== 'elements' && flags.path !== undefined) throw new UsageError('--path applies to the elements mode only');
  const failFast = flags.failFast === true;
  if (failFast && schema === undefined) {
    throw new UsageError('--fail-fast needs a schema to check against: add --schema or --schema-ref');
  }
  if (coerce !== undefined && schema === undefined) {
    throw new UsageError('--coerce needs a schema to say what to repair: add --schema or --schema-ref');
  }
  if (coerce !== undefined && schema !== undefined && isStandardSchema(schema) && jsonSchemaOf(schema) === undefined) {
    // Found here for json mode too, which would otherwise meet it only once the answer is read.
    throw new UsageError(
      `--coerce needs the schema's JSON Schema to know what to repair, and this ${quoteInput(String(schema['~standard'].vendor))} schema exports none (zod 4 and arktype 2 do; valibot through @valibot/to-json-schema)`,
    );
  }
  const outputFile =
    flags.outputFile === undefined
      ? undefined
      : writableFile(io.cwd, flags.outputFile, '--output-file', [
          { label: 'the input file', file },
          { label: '--schema', file: flags.schema },
        ]);
  let diagnosticCount = 0;
  let dropped = 0;
  const lines = new LineIndex();
  /**
   * partial: an out-of-range report held back. A snapshot does not say where its number sits, so
   * the report's offset is how far the input was read, and the builder reports a syntax error
   * found in the same chunk after delivering that chunk's value: the report waits for the first
   * diagnostic at or past its offset, the next value, or the end, so that the lines keep offset
   * order. Only the report waits; the value was not printed, and the others are not held.
   */
  let heldBack: CliDiagnostic | undefined;
  const releaseHeldBack = (): void => {
    if (heldBack === undefined) return;
    const d = heldBack;
    heldBack = undefined;
    onDiagnostic(d);
  };
  const onDiagnostic = (reported: CliDiagnostic, origin = mode as string) => {
    if (heldBack !== undefined && reported.offset >= heldBack.offset) releaseHeldBack();
    diagnosticCount++;
    let d = reported;
    if (origin !== 'input' && d.line === undefined) {
      // The engine said where by offset alone: the line and column are said too.
      const at = lines.locate(d.offset);
      if (at !== undefined) d = { ...d, line: at.line, column: at.column };
    }
    // A null document cannot travel on the Node partial stream as a snapshot: printed below, not dropped.
    const nullDocument = mode === 'partial' && d.reason === 'null-value';
    if (nullDocument) return;
    // The violation that ends a --fail-fast run is stated by its one verdict line (below).
    if (failFast && origin !== 'input' && isViolation(d as Diagnostic) && flags.diagnostics !== 'json') return;
    if (d.reason !== 'recovered' && d.reason !== 'blank' && d.reason !== 'fence') dropped++;
    const text = formatDiagnostic(d, flags.diagnostics, `llmjson ${origin}`);
    if (text !== undefined) stderr.write(text);
  };
  const common = {
    ...(schema === undefined ? {} : { schema }),
    ...(flags.discriminator === undefined ? {} : { discriminator: flags.discriminator }),
    ...(failFast ? { failFast } : {}),
    // The Node streams bring the coercion themselves (coerceWith).
    ...(coerce === undefined ? {} : { coerce }),
    onDiagnostic,
  };
  const engine =
    mode === 'json'
      ? undefined
      : mode === 'jsonl'
        ? createJsonlStream({
            ...common,
            // Records, for the line of a value that cannot be printed; a null line is still reported.
            records: true,
            nullValue: 'report',
            ...(flags.maxLineLength === undefined ? {} : { maxLineLength: flags.maxLineLength }),
          })
        : mode === 'salvage'
          ? createSalvageStream(common)
          : mode === 'elements'
            ? createElementStream({ ...common, ...(flags.path === undefined ? {} : { path: flags.path }) })
            : createPartialStream({ ...common, emit: flags.emit ?? DEFAULT_PARTIAL_EMIT });
  // Opened last, once nothing else can fail, so a usage error never leaves it open.
  let input: Readable = file === undefined || file === '-' ? io.stdin : await openInputFile(io.cwd, file);
  let format: InputFormat = flags.input ?? 'auto';
  if (format === 'auto') {
    // Text or a provider's streamed body, from its first bytes (input-sniff.ts); text reads as it is.
    const sniffed = await sniffInput(input);
    input = sniffed.input;
    const { decision } = sniffed;
    if (decision.kind === 'event-stream') {
      const bedrock = (Object.values(ProviderFormat) as string[]).includes('bedrock');
      if (!bedrock) {
        input.destroy();
        throw new UsageError(
          'the input is an AWS event stream (Amazon Bedrock ConverseStream), which this version does not decode',
        );
      }
      format = 'bedrock' as ProviderFormat;
    } else {
      format = decision.kind === 'text' ? 'text' : decision.kind === 'sse' ? 'auto' : decision.provider;
    }
  }
  const provider: ProviderStream | undefined = format === 'text' ? undefined : createProviderStream({ input: format });
  let text: Readable = input;
  if (provider !== undefined) {
    provider.on('diagnostic', (d: Diagnostic) => onDiagnostic(d, 'input'));
    text = input.pipe(provider);
    input.on('error', (error) => provider.destroy(error));
  }
  // Values are kept only for what needs them all at the end (the envelope, the output file):
  // otherwise memory would grow with the whole input, however long the stream runs.
  const keepValues = flags.api === true || outputFile !== undefined;
  const values: unknown[] = [];
  let valueCount = 0;
  /** The first value that could not be printed (a number beyond the double range). */
  let outOfRange: OutOfRange | undefined;
  /** partial: the paths already reported (each later snapshot holds the same number). */
  const reportedPaths = new Set<string>();
  const reportOutOfRange = (found: OutOfRange, at: ValueAt): void => {
    let where = found;
    if (mode === 'partial') {
      // Said by its path in the document, not in the printed change.
      where = outOfRangeIn((engine as ReturnType<typeof createPartialStream>).value) ?? found;
      if (reportedPaths.has(where.path)) return;
      reportedPaths.add(where.path);
    }
    outOfRange ??= where;
    const d = { reason: OUT_OF_RANGE_REASON, ...at, excerpt: '', message: outOfRangeMessage(where), path: where.path };
    if (mode !== 'partial') onDiagnostic(d);
    else {
      releaseHeldBack();
      heldBack = d;
    }
  };
  /** Whether the value `printLine` was last given could be printed. */
  let printable = true;
  /**
   * The line of one value (undefined with --api, which prints none), or UNPRINTABLE: a number
   * beyond the double range (1e999 parses as Infinity) would print as `null`, so such a value is
   * reported instead, where `source` (the engine's output item) says it starts.
   */
  const lineOf = (value: unknown, source?: unknown): string | undefined | typeof UNPRINTABLE => {
    // JSON.stringify writes a number beyond the double range as `null`: only a line that holds a
    // `null` is looked at again, value by value (--api prints no line: the value is walked).
    const line = flags.api === true ? undefined : JSON.stringify(value);
    const found = outOfRangeIn(value, line);
    if (found === undefined) return line;
    reportOutOfRange(found, valueAt(source));
    return UNPRINTABLE;
  };
  /** Prints what `lineOf` gave; `printable` says whether it could. Nothing is allocated per value. */
  const printLine = (line: string | undefined | typeof UNPRINTABLE): boolean | Promise<boolean> => {
    printable = line !== UNPRINTABLE;
    if (line === undefined || line === UNPRINTABLE) return true;
    const written = stdout.write(`${line}\n`);
    // With a file to write, a reader of stdout that goes away (`| head -1`) does not end the run:
    // the rest is read, and the file written, without printing.
    if (outputFile === undefined) return written;
    return written instanceof Promise ? written.then(() => true) : true;
  };
  /** Prints one value (unless --api), or reports it when it cannot be printed. */
  const print = (value: unknown, source?: unknown): boolean | Promise<boolean> => printLine(lineOf(value, source));
  const valueAt = (source: unknown): ValueAt => {
    if (source === undefined) return { offset: 0 };
    if (mode === 'partial') return { offset: lines.length };
    if (mode === 'jsonl') {
      const record = source as JsonlRecord;
      return { offset: record.offset, line: record.line, endLine: record.endLine };
    }
    return { offset: (source as { start: number }).start };
  };

  let json: unknown;
  let status: 'succeeded' | 'incomplete' | 'failed' = 'succeeded';
  let failure:
    | {
        reason: 'CONTRACT_VALIDATION_FAILED' | 'INCOMPLETE';
        detail?: 'NOT_JSON' | 'SCHEMA_MISMATCH' | typeof OUT_OF_RANGE_DETAIL;
        message: string;
      }
    | undefined;
  let answer = '';
  /** The failure was already stated by a diagnostic line: no second line for it. */
  let failureReported = false;
  /** What ended a --fail-fast run. */
  let violation: ContractViolationError | undefined;
  const stopAt = (error: ContractViolationError) => {
    violation = error;
    // Nothing more is read: the writer of a pipe (or the file) is let go.
    provider?.destroy();
    input.destroy();
    status = 'failed';
    failure = { reason: 'CONTRACT_VALIDATION_FAILED', detail: 'SCHEMA_MISMATCH', message: error.message };
    failureReported = true;
    const { line, offset } = error.diagnostic;
    const where = line === undefined ? `offset ${offset}` : `line ${line}`;
    stderr.write(
      `llmjson ${mode}: --fail-fast: ${where}: ${error.path === '' ? 'the value' : terminalText(quoteInput(error.path))} breaks rule "${terminalText(quoteInput(error.rule))}": ${terminalText(quoteInput(error.diagnostic.message, MAX_MESSAGE_LENGTH))}\n`,
    );
  };

  const maxLength = flags.maxLength ?? DEFAULT_MAX_LENGTH;
  let tooLong = false;
  if (mode === 'json') {
    const watch = failFast ? documentWatcher(schema, flags.discriminator, coerce) : undefined;
    // Decoded here, not by setEncoding: that re-decodes what is already buffered (the bytes
    // --input auto looked at and gave back), which an object-mode stdin does not survive.
    const decoder = createUtf8Chunks();
    const take = (piece: string): boolean => {
      // Counted before appending: the oversized string is never built.
      if (answer.length + piece.length > maxLength) {
        tooLong = true;
        return false;
      }
      answer += piece;
      lines.push(piece);
      const found = watch?.(piece);
      if (found !== undefined) {
        onDiagnostic(found.diagnostic);
        stopAt(found);
        return false;
      }
      return true;
    };
    let reading = true;
    for await (const chunk of text) {
      // A string after bytes: the bytes' unfinished character (U+FFFD) comes first, in order.
      reading = take(typeof chunk === 'string' ? decoder.flush() + chunk : decoder.decode(chunk as Uint8Array));
      if (!reading) break;
    }
    if (reading) take(decoder.flush());
  }
  if (tooLong) {
    input.destroy();
    answer = '';
    const message = `the answer is longer than --max-length (${maxLength} characters); the rest was not read`;
    onDiagnostic({ reason: 'too-long', offset: maxLength, excerpt: '', message });
    status = 'failed';
    failure = { reason: 'CONTRACT_VALIDATION_FAILED', detail: 'NOT_JSON', message };
    failureReported = flags.diagnostics !== 'none';
  } else if (engine === undefined) {
    // After a --fail-fast stop (stated by stopAt) there is no document to parse.
    const outcome =
      violation === undefined
        ? parseJsonResponse(answer, {
            schema: schema as JsonSchema | undefined,
            ...(flags.discriminator === undefined ? {} : { discriminator: flags.discriminator }),
            ...(flags.tolerate === undefined ? {} : { tolerate: flags.tolerate }),
            ...(coerce === undefined ? {} : { coerce }),
            finishReason: provider?.finishReason,
          })
        : undefined;
    if (outcome?.status === 'succeeded') {
      // A recovered document (a trailing comma removed, a value coerced) is printed, and each recovery said.
      for (const d of outcome.diagnostics ?? []) onDiagnostic(d);
      json = outcome.json;
      await print(json);
      // A JSONL answer read as one document: the lines not printed are said, with the mode for them.
      const note = jsonlAnswerNote(answer, json, outcome.source);
      if (note !== undefined) onDiagnostic(note);
    } else if (outcome !== undefined) {
      status = outcome.status;
      failure =
        outcome.status === 'failed'
          ? { reason: outcome.reason, detail: outcome.detail, message: outcome.message }
          : { reason: 'INCOMPLETE', message: outcome.message };
    }
  } else {
    // Each chunk the pipe writes to the engine passes the line index first (unchanged, bytes or
    // text), so the index has it before the engine reports on it. Not a 'data' listener (it
    // would keep the input flowing once the engine has stopped, --fail-fast), nor a stage of its
    // own (it would change how chunks reach the engine, and so what partial prints).
    // JSONL diagnostics carry their line already: the index is not fed there.
    if (mode !== 'jsonl') {
      const write = engine.write.bind(engine) as (chunk: unknown, ...rest: unknown[]) => boolean;
      engine.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        lines.push(chunk);
        return write(chunk, ...rest);
      }) as typeof engine.write;
    }
    // Each value is looked at the moment the engine pushes it, not when it is printed: the engine
    // reports what it finds as it finds it, while a value may wait in the stream's buffer (a slow
    // stdout, a batch of writes), so an out-of-range report made at printing came after the
    // diagnostics of later input. Pushes and 'data' events keep one order: the lines wait in a
    // queue, and the value is printed as soon as it is read, as before.
    // --api prints no partial snapshot: the document is looked at once, at the end.
    const pushed: (string | undefined | typeof UNPRINTABLE)[] = [];
    let next = 0;
    if (!(mode === 'partial' && flags.api === true)) {
      const push = engine.push.bind(engine);
      engine.push = (item: unknown, encoding?: BufferEncoding): boolean => {
        // jsonl reads records (for a value's line), salvage and elements their own: each has its value.
        if (item !== null) {
          releaseHeldBack();
          pushed.push(lineOf(mode === 'partial' ? item : (item as { value: unknown }).value, item));
        }
        return push(item, encoding);
      };
    }
    const takePushed = (): string | undefined | typeof UNPRINTABLE => {
      const line = pushed[next++];
      if (next === pushed.length) {
        pushed.length = 0;
        next = 0;
      }
      return line;
    };
    const output = text.pipe(engine);
    text.on('error', (error) => engine.destroy(error));
    try {
      const ended = await consume(output, (out) => {
        if (mode === 'partial') return flags.api === true ? true : printLine(takePushed());
        const value = (out as { value: unknown }).value;
        const written = printLine(takePushed());
        if (printable) {
          valueCount++;
          if (keepValues) values.push(value);
        }
        return written;
      });
      if (ended === 'stopped') {
        // The reader went away (`| head -1`): stop quietly.
        input.destroy();
        return ExitCode.ok;
      }
    } catch (error) {
      if (!(error instanceof ContractViolationError)) throw error;
      releaseHeldBack();
      stopAt(error);
    }
    if (violation !== undefined) {
      json = mode === 'partial' ? (engine as ReturnType<typeof createPartialStream>).value : values;
    } else if (mode === 'partial') {
      const complete = (engine as ReturnType<typeof createPartialStream>).complete;
      json = (engine as ReturnType<typeof createPartialStream>).value;
      if (complete && json === null && (flags.emit ?? 'changes') === 'snapshots') await print(null);
      if (outOfRange === undefined) {
        const found = outOfRangeIn(json);
        if (found !== undefined) reportOutOfRange(found, { offset: lines.length });
      }
      // A complete document JSON cannot print has that one reason (said below), not NOT_JSON.
      if (!complete || (dropped > 0 && outOfRange === undefined)) {
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
        message: `the answer was cut off at the token limit (finish reason ${JSON.stringify(quoteInput(provider?.finishReason ?? ''))})`,
      };
    }
  }

  if (provider !== undefined && status === 'succeeded') {
    if (provider.error !== undefined) {
      status = 'failed';
      failure = {
        reason: 'CONTRACT_VALIDATION_FAILED',
        message: `the provider sent an error: ${quoteInput(provider.error.message)}`,
      };
    } else if (!provider.complete) {
      status = 'incomplete';
      failure = { reason: 'INCOMPLETE', message: 'the provider stream ended before the answer did (no finish reason)' };
    }
  }
  releaseHeldBack();
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
        : valueCount;
  if (failure === undefined && outOfRange !== undefined) {
    // A value that cannot be printed is a format error in every mode: its diagnostic said why.
    status = 'failed';
    failure = {
      reason: 'CONTRACT_VALIDATION_FAILED',
      detail: OUT_OF_RANGE_DETAIL,
      message: outOfRangeMessage(outOfRange),
    };
    failureReported = flags.diagnostics !== 'none';
  }
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
    if (!failureReported) {
      stderr.write(
        `llmjson: ${failure.detail === undefined ? failure.reason : failure.detail}: ${terminalText(quoteInput(failure.message, MAX_MESSAGE_LENGTH))}\n`,
      );
    }
  }
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
  if (outputFile !== undefined) writeCheckedOutputFile(envelope, outputFile, flags.outputFile ?? '');
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

/**
 * json mode under --fail-fast: the document read as it streams (by the partial builder, which
 * finds it after any prose or fence) and checked as each subtree closes; returns the first
 * violation of a piece of the answer, once. With `coerce`, what coercion repairs is no violation.
 */
function documentWatcher(
  schema: SchemaInput | undefined,
  discriminator: string | undefined,
  coerce: CoerceOption | undefined,
): (piece: string) => ContractViolationError | undefined {
  let found: ContractViolationError | undefined;
  const builder = createPartialBuilder(
    withNodeDefaults({
      ...(schema === undefined ? {} : { schema }),
      ...(discriminator === undefined ? {} : { discriminator }),
      ...(coerce === undefined ? {} : { coerce }),
      snapshots: false,
    }),
    {
      update() {},
      diagnostic(d) {
        if (found === undefined && isViolation(d)) found = new ContractViolationError(d);
      },
    },
  );
  let reported = false;
  return (piece) => {
    if (found === undefined) builder.write(piece);
    if (found === undefined || reported) return undefined;
    reported = true;
    return found;
  };
}

/**
 * Reads every item of an object-mode stream through `take`, from 'data' events: `for await`
 * would cost a promise per item. The stream pauses while `take`'s promise waits (a slow
 * stdout). Resolves 'stopped' once `take` gives false (the stream is then destroyed), 'ended'
 * at the stream's end; rejects with its error, or when it closes before its end.
 */
function consume(output: Readable, take: (item: unknown) => boolean | Promise<boolean>): Promise<'ended' | 'stopped'> {
  return new Promise((resolve, reject) => {
    let done = false;
    const settle = (outcome: 'ended' | 'stopped' | { error: unknown }) => {
      if (done) return;
      done = true;
      output.off('data', onData);
      if (outcome === 'ended') resolve(outcome);
      else {
        output.destroy();
        if (outcome === 'stopped') resolve(outcome);
        else reject(outcome.error);
      }
    };
    const onData = (item: unknown) => {
      let taken: boolean | Promise<boolean>;
      try {
        taken = take(item);
      } catch (error) {
        settle({ error });
        return;
      }
      if (taken === true) return;
      if (taken === false) {
        settle('stopped');
        return;
      }
      output.pause();
      taken.then(
        (ok) => {
          if (done) return;
          if (ok) output.resume();
          else settle('stopped');
        },
        (error: unknown) => settle({ error }),
      );
    };
    output.on('data', onData);
    finished(output, (error) => settle(error === undefined || error === null ? 'ended' : { error }));
  });
}
