/**
 * `llmjson tools`: a model server's streamed body in (a file or stdin, any format the provider
 * decoder reads), the tool calls out — by default one JSON line per completed call
 * (`{"index", "id", "name", "arguments"}`), or with `--emit changes` one line per update of a
 * call while its arguments stream (`{"index", "id", "name", "changes", "complete"}`), for a
 * live view. `--tools FILE` gives each tool's schema: a JSON object mapping tool names to JSON
 * Schemas, or the tools array sent to the provider (OpenAI `{type: "function", function: {name,
 * parameters}}`, Anthropic `{name, input_schema}`), so the same file serves both. A completed
 * call whose arguments fail its schema is reported and not printed (like a JSONL line); a call
 * to a tool the file does not list is reported; `--fail-fast` ends the run at the first
 * violation (exit 4). The answer text the body also holds is not printed.
 */

import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { ContractConfigurationError, compileContractSchema } from '@llmjson/contracts';
import type { Diagnostic, JsonSchema, ProviderInput, ToolCallUpdate } from '@llmjson/core';
import { quoteInput } from '@llmjson/core/internal';
import { ContractViolationError, createToolCallStream } from '@llmjson/node';
import { type DiagnosticsFormat, formatDiagnostic } from './diagnostics-output.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { OUT_OF_RANGE_REASON, outOfRangeIn, outOfRangeMessage } from './out-of-range.js';
import { openInputFile } from './output-paths.js';
import { readRegularText, UnreadableFileError } from './read-file.js';
import { type Io, lineWriter } from './stream-command.js';
import { terminalText } from './terminal-text.js';

export interface ToolsFlags {
  readonly input: string;
  readonly tools?: string;
  readonly emit: 'calls' | 'changes';
  readonly failFast?: boolean;
  readonly diagnostics: DiagnosticsFormat;
}

/** The tools file as a map of tool name to JSON Schema (see the file's comment for the shapes read). */
export function toolSchemas(text: string, file: string): Record<string, JsonSchema> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ContractConfigurationError(
      'SCHEMA_INVALID',
      `--tools ${quoteInput(file)}: not JSON (${(error as Error).message})`,
    );
  }
  const out: Record<string, JsonSchema> = Object.create(null);
  if (Array.isArray(parsed)) {
    parsed.forEach((tool: unknown, i) => {
      const t = (typeof tool === 'object' && tool !== null ? tool : {}) as Record<string, unknown>;
      const fn = (typeof t.function === 'object' && t.function !== null ? t.function : t) as Record<string, unknown>;
      const name = fn.name;
      const schema = fn.parameters ?? fn.input_schema ?? fn.inputSchema;
      if (typeof name !== 'string' || typeof schema !== 'object' || schema === null) {
        throw new ContractConfigurationError(
          'SCHEMA_INVALID',
          `--tools ${quoteInput(file)}: tool ${i} has no name and schema (expected {type: "function", function: {name, parameters}} or {name, input_schema})`,
        );
      }
      out[name] = schema as JsonSchema;
    });
    return out;
  }
  if (typeof parsed !== 'object' || parsed === null) {
    throw new ContractConfigurationError(
      'SCHEMA_INVALID',
      `--tools ${quoteInput(file)}: expected an object mapping tool names to JSON Schemas, or a tools array`,
    );
  }
  for (const [name, schema] of Object.entries(parsed)) out[name] = schema as JsonSchema;
  return out;
}

/** The `--tools` file, read whole: a regular file of at most 64 MiB (read-file.ts), else exit 2 with one line. */
async function readTools(io: Io, file: string): Promise<Record<string, JsonSchema>> {
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    text = readRegularText(path, file, { label: 'cannot read --tools file' });
  } catch (error) {
    if (error instanceof UnreadableFileError && error.code === 'ENOENT') {
      throw new ContractConfigurationError(
        'SCHEMA_NOT_FOUND',
        `--tools ${quoteInput(file)}: no such file (${quoteInput(path)})`,
      );
    }
    throw error;
  }
  const tools = toolSchemas(text, file);
  // Compiled here, tool by tool, so that a schema the meta-schema rejects is said with its file
  // and tool (the stream compiles them again from the schema cache).
  for (const [name, schema] of Object.entries(tools)) {
    compileContractSchema(
      schema,
      `--tools ${quoteInput(file)}: the schema of tool "${quoteInput(name)}"`,
      {},
      { file: path },
    );
  }
  return tools;
}

export async function runToolsCommand(file: string | undefined, flags: ToolsFlags, io: Io): Promise<number> {
  const tools = flags.tools === undefined ? undefined : await readTools(io, flags.tools);
  if (flags.failFast === true && tools === undefined)
    throw new UsageError('--fail-fast needs --tools (the schemas to hold the calls to)');
  const stream = createToolCallStream({
    input: flags.input as ProviderInput,
    ...(tools === undefined ? {} : { tools }),
    ...(flags.failFast === true ? { failFast: true } : {}),
  });
  const input: Readable = file === undefined || file === '-' ? io.stdin : await openInputFile(io.cwd, file);
  const stdout = lineWriter(io.stdout);
  // Calls whose rejection a text line already said. The stream reports one bad call several
  // times — a violation while its arguments stream, then their schema failures once complete
  // (each counted in its stats, and each kept by --diagnostics json) — which on a terminal said
  // one forbidden key in four lines: the first says it.
  const said = new Set<string>();
  stream.on('diagnostic', (d: Diagnostic) => {
    // The violation that ends a --fail-fast run is stated by its one verdict line (below).
    const verdict = d.reason === 'schema' || d.reason === 'violation';
    if (flags.failFast === true && verdict && flags.diagnostics !== 'json') return;
    if (verdict && d.toolCall !== undefined && flags.diagnostics === 'text') {
      const key = callKey(d.toolCall);
      if (said.has(key)) return;
      said.add(key);
    }
    const text = formatDiagnostic(d, flags.diagnostics, 'llmjson tools');
    if (text !== undefined) io.stderr.write(text);
  });
  // Calls whose arguments failed their schema (reported), not printed as complete.
  const rejected = new Set<string>();
  stream.on('diagnostic', (d: Diagnostic) => {
    if (d.reason === 'schema' && d.toolCall !== undefined && d.rule !== 'tool') rejected.add(callKey(d.toolCall));
  });
  input.on('error', (error) => stream.destroy(error));
  let outOfRange = false;
  try {
    for await (const update of input.pipe(stream) as AsyncIterable<ToolCallUpdate>) {
      const line =
        flags.emit === 'changes'
          ? { ...identity(update), changes: update.changes, complete: update.complete }
          : update.complete && !rejected.has(callKey(update))
            ? { ...identity(update), arguments: update.value }
            : undefined;
      if (line === undefined) continue;
      const text = JSON.stringify(line);
      // A number beyond the double range would print as null: reported instead (out-of-range.ts).
      const found = outOfRangeIn(line, text);
      if (found !== undefined) {
        outOfRange = true;
        const d = { reason: OUT_OF_RANGE_REASON, offset: 0, excerpt: '', message: outOfRangeMessage(found) };
        const report = formatDiagnostic(
          { ...d, path: found.path, toolCall: identity(update) },
          flags.diagnostics,
          'llmjson tools',
        );
        if (report !== undefined) io.stderr.write(report);
        continue;
      }
      if (!(await stdout.write(`${text}\n`))) {
        input.destroy();
        return ExitCode.ok;
      }
    }
  } catch (error) {
    await stdout.flush();
    if (!(error instanceof ContractViolationError)) throw error;
    io.stderr.write(`llmjson tools: --fail-fast: ${terminalText(quoteInput(error.message, 1000))}\n`);
    return ExitCode.format;
  } finally {
    await stdout.flush();
  }
  if (stream.error !== undefined) return ExitCode.provider;
  if (outOfRange) return ExitCode.format;
  // A body that ended before the provider's end marker: the calls in it may be cut.
  return stream.complete ? ExitCode.ok : ExitCode.format;
}

function identity(u: { readonly index: number; readonly id?: string; readonly name?: string }) {
  return {
    index: u.index,
    ...(u.id === undefined ? {} : { id: u.id }),
    ...(u.name === undefined ? {} : { name: u.name }),
  };
}

function callKey(u: { readonly index: number; readonly id?: string }): string {
  return u.id ?? `#${u.index}`;
}
