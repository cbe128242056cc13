/**
 * The `llmjson` command line: argument parsing (commander), `--help` with examples for every
 * command, exit codes. `main(argv, io)` runs one command and resolves to its exit code; it
 * never calls `process.exit`, so tests run it in-process. Commands other than the stream modes
 * are imported when chosen, so `llmjson jsonl` does not load what `batch` or `run` need.
 */

import { readFileSync } from 'node:fs';
import { ContractConfigurationError } from '@llmjson/contracts';
import { COERCION_RULES, ConfigurationError, ProviderFormat } from '@llmjson/core';
import { quoteInput } from '@llmjson/core/internal';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { BatchFlags } from './batch-command.js';
import { BATCH_FORMATS } from './batch-types.js';
import { COERCE_HELP } from './coerce-flag.js';
import type { CompileFlags } from './compile-command.js';
import { MAX_MESSAGE_LENGTH } from './diagnostics-output.js';
import { EXIT_CODES_HELP, ExitCode, UsageError } from './exit-codes.js';
import type { DiffFlags, MergeFlags } from './report-command.js';
import {
  DEFAULT_MAX_LENGTH,
  DEFAULT_PARTIAL_EMIT,
  type Io,
  type Mode,
  runStreamCommand,
  type StreamFlags,
} from './stream-command.js';
import { terminalLines, terminalText } from './terminal-text.js';
import type { ToolsFlags } from './tools-command.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

function positiveInteger(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 1 || !/^\d+$/.test(value)) {
      throw new InvalidArgumentError(`${name} must be a positive integer.`);
    }
    return n;
  };
}

function nonNegativeInteger(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 0 || !/^\d+$/.test(value)) {
      throw new InvalidArgumentError(`${name} must be a whole number.`);
    }
    return n;
  };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Makes every option that takes a value, on `command` and its subcommands, a usage error when
 * given twice (`--schema a.json --schema b.json` kept only the last, silently); the repeatable
 * ones (`--schema-root`, parsed by `collect`) stay repeatable. The options are made per `main`
 * call, so what each has seen is per run.
 */
function refuseRepeats(command: Command): void {
  for (const option of command.options) {
    if (!(option.required || option.optional) || option.variadic) continue;
    const parse = option.parseArg as ((value: string, previous: unknown) => unknown) | undefined;
    if (parse === collect) continue;
    let given: string | undefined;
    option.argParser((value: string, previous: unknown) => {
      if (given !== undefined) {
        throw new InvalidArgumentError(
          `${option.long ?? option.flags} was given twice ('${quoteInput(given)}', then '${quoteInput(value)}'): give it once.`,
        );
      }
      given = value;
      return parse === undefined ? value : parse.call(option, value, previous);
    });
  }
  for (const sub of command.commands) refuseRepeats(sub);
}

/**
 * Commander's messages quote what they echo in single quotes ('--bogus', 'grpc'): each piece is
 * cut, then the whole message is bounded, like every usage message (a 1 MB `--path` must not
 * print 1 MB).
 */
function boundCommanderMessage(message: string): string {
  const cut = message.replace(/'([^'\n]*)'/g, (_match, inner: string) => `'${quoteInput(inner)}'`);
  return cut.length <= MAX_MESSAGE_LENGTH ? cut : `${quoteInput(cut.trimEnd(), MAX_MESSAGE_LENGTH)}\n`;
}

/** The options a stream mode takes beyond those every mode takes (--input, --api, --output-file, --diagnostics, the schema options, --coerce). */
type ModeOption = 'strict' | 'require' | 'fail-fast' | 'max-line-length' | 'tolerate' | 'max-length' | 'path' | 'emit';

const MODES: Record<Mode, { summary: string; options: readonly ModeOption[]; examples: string }> = {
  jsonl: {
    summary: 'one JSON object per line: each valid object as soon as its line is complete',
    options: ['strict', 'require', 'fail-fast', 'max-line-length'],
    examples: `  curl -N $URL -d @req.json | llmjson jsonl --schema item.schema.json
  llmjson jsonl answer.txt --schema-ref llmjson.kg.definition_relationship.v1 --diagnostics json 2>dropped.jsonl
  llmjson jsonl answer.txt --strict --require 10
  curl -N $URL -d @req.json | llmjson jsonl --schema item.schema.json --fail-fast
  llmjson jsonl answer.txt --schema item.schema.json --coerce string-to-number,enum-case
  llmjson jsonl recorded-sse.txt --input text --diagnostics none`,
  },
  json: {
    summary: 'one JSON document (fence or prose around it tolerated): printed once it is complete and valid',
    options: ['fail-fast', 'tolerate', 'max-length'],
    examples: `  llmjson json answer.txt --schema sections.schema.json --output-file sections.json
  llmjson json --tolerate none --api < answer.txt
  curl -N $URL | llmjson json --input anthropic --schema sections.schema.json --fail-fast
  llmjson json answer.txt --schema sections.schema.json --coerce`,
  },
  salvage: {
    summary: 'every JSON value hidden in prose, fences or inline code, as each closes',
    options: ['strict', 'require'],
    examples: `  llmjson salvage chat-log.md --schema action.schema.json
  llmjson salvage chat-log.md --schema action.schema.json --coerce enum-case --require 1`,
  },
  partial: {
    summary: 'what each chunk changed in the value so far (or the whole value so far, with --emit snapshots)',
    options: ['fail-fast', 'emit'],
    examples: `  curl -N $URL | llmjson partial
  llmjson partial answer.json --emit snapshots | tail -1
  curl -N $URL | llmjson partial --input openai --schema doc.schema.json --fail-fast
  llmjson partial answer.json --schema doc.schema.json --coerce --emit snapshots | tail -1`,
  },
  elements: {
    summary: 'each element of a JSON array (or of the array at --path) as soon as it is complete',
    options: ['strict', 'require', 'fail-fast', 'path'],
    examples: `  llmjson elements answer.json --path '$.items' --schema doc.schema.json
  llmjson elements truncated.json --require 1
  curl -N $URL | llmjson elements --path '$.items' --schema doc.schema.json --fail-fast
  llmjson elements answer.json --path '$.items' --schema doc.schema.json --coerce string-to-number`,
  },
};

/** The examples of `llmjson --help`: one per kind of use, with --fail-fast and --retries. */
const TOP_EXAMPLES = `  curl -N $URL -d @req.json | llmjson jsonl --schema item.schema.json
  curl -N $URL -d @req.json | llmjson jsonl --schema item.schema.json --fail-fast
  llmjson json answer.txt --schema-ref llmjson.kg.definition_relationship.v1 --fail-fast
  llmjson run --prompts prompts.json --id extract --base-url http://127.0.0.1:8080/v1 --model qwen2.5 --fail-fast --retries 2
  llmjson batch runs/*.jsonl --mode jsonl --schema item.schema.json --report report.json
  llmjson demo`;

const INPUT_AUTO_HELP = `Input (--input auto, the default): a model server's streamed body is decoded without a flag:
SSE whose first line is "data: {" or "data: [" (or "event: NAME" then "data:"; ": comment",
"id:" and "retry:" lines before it skipped), or JSON lines whose first line is a provider event
that names its model (Ollama's NDJSON). Anything else is text, read unchanged: prose, a fence,
an array, a pretty-printed document, a model's own JSONL. Text is decided on its first
characters, except a first line starting with "{", decided once that line ends (or 64 KiB
arrived). --input text forces text; --input openai (anthropic, ollama...) forces a format.`;

/** `--input`'s values: every wire format core decodes (ProviderFormat), plus text and auto. */
export const INPUT_CHOICES: readonly string[] = ['auto', 'text', ...Object.values(ProviderFormat)];

const INPUT_HELP =
  "what the input is: auto (a model server's streamed body is decoded, anything else is read as text, unchanged: see Input below), text (read as text, whatever it looks like), or the provider's wire format";

/**
 * `--schema` of the stream modes, which also load a schema from code (schema-options.ts); batch
 * sends its schema to worker threads as data, so it takes a JSON Schema file only.
 */
const SCHEMA_MODULE_HELP =
  'JSON Schema file each value must match, or module.mjs#Export: a JavaScript module and one of its exports (default without #), a Standard Schema (zod, valibot, arktype...) or a JSON Schema object';

function schemaOptions(command: Command, schemaHelp = 'JSON Schema file each value must match'): Command {
  return command
    .option('--schema <file>', schemaHelp)
    .option('--schema-ref <name>', 'schema by dotted reference, e.g. llmjson.kg.definition_relationship.v1 (built in)')
    .option(
      '--schema-root <dir>',
      'where --schema-ref looks first (repeatable, highest precedence first), before ./schemas/prompt-contracts, the user and the built-in roots',
      collect,
    )
    .option('--discriminator <key>', 'property naming the oneOf branch (detected by default)');
}

export interface MainOptions {
  /** Parse the command line and stop: nothing is read, opened or run (exit 0, or 2 for a usage error). */
  readonly parseOnly?: boolean;
}

export async function main(argv: readonly string[], io: Io, options: MainOptions = {}): Promise<number> {
  let code: number = ExitCode.ok;
  const program = new Command('llmjson')
    .description('Validated objects from LLM output, the moment each one is complete.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(terminalLines(boundCommanderMessage(s))),
    })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `\nExamples:\n${TOP_EXAMPLES}\n\n${INPUT_AUTO_HELP}\n\n${EXIT_CODES_HELP}\n\nDiagnostics go to stderr; values to stdout, one JSON per line, as they complete.\n`,
    );

  for (const mode of Object.keys(MODES) as Mode[]) {
    const takes = (option: ModeOption) => MODES[mode].options.includes(option);
    const command = program
      .command(mode)
      .summary(MODES[mode].summary)
      .description(`${MODES[mode].summary}.\nReads [file], or stdin when it is absent or "-".`)
      .argument('[file]', 'input file (default: stdin)')
      .addOption(new Option('--input <format>', INPUT_HELP).choices(INPUT_CHOICES).default('auto'))
      .option('--api', 'print the envelope {status, result, error} instead of the values')
      .option('--output-file <file>', 'write the result as canonical JSON (RFC 8785), only on success')
      .addOption(
        new Option('--diagnostics <format>', 'diagnostics on stderr').choices(['text', 'json', 'none']).default('text'),
      );
    if (takes('strict')) command.option('--strict', 'any dropped line or value is a failure (exit 4)');
    if (takes('require')) {
      command.option(
        '--require <n>',
        'fewer than n valid values is a failure (exit 4)',
        nonNegativeInteger('--require'),
      );
    }
    schemaOptions(command, SCHEMA_MODULE_HELP);
    if (takes('fail-fast')) {
      command.option(
        '--fail-fast',
        'end the run at the first violation of the schema (a value that fails it, or a prefix no completion can make valid): stop reading, exit 4, one stderr line naming the path and the rule; values already printed stay printed. Prose and syntax lines are not violations (jsonl skips them as usual). Needs --schema or --schema-ref',
      );
    }
    command.option('--coerce [rules]', COERCE_HELP);
    if (takes('max-line-length')) {
      command.option(
        '--max-line-length <n>',
        'longest line kept, in characters (default 8 MiB)',
        positiveInteger('--max-line-length'),
      );
    }
    if (takes('tolerate')) {
      command.addOption(
        new Option('--tolerate <what>', 'what may surround the document')
          .choices(['fence-and-prose', 'none'])
          .default('fence-and-prose'),
      );
    }
    if (takes('max-length')) {
      command.option(
        '--max-length <characters>',
        `longest answer read, in characters (default ${DEFAULT_MAX_LENGTH} = 64 MiB); past it reading stops with a too-long diagnostic and exit 4`,
        positiveInteger('--max-length'),
      );
    }
    if (takes('path')) command.option('--path <path>', "the array: '$' (default) or '$.key.key'");
    if (takes('emit')) {
      command.addOption(
        new Option(
          '--emit <what>',
          'what each line is: changes (what changed since the previous line; the output grows with the input), snapshots (the whole value so far; the output grows with the square of the document: 550 MB for an 8 MiB string), or both, as {value, changes}',
        )
          .choices(['snapshots', 'changes', 'both'])
          .default(DEFAULT_PARTIAL_EMIT),
      );
    }
    command.addHelpText('after', `\nExamples:\n${MODES[mode].examples}\n\n${INPUT_AUTO_HELP}\n\n${EXIT_CODES_HELP}\n`);
    command.action(async (file: string | undefined, flags: StreamFlags) => {
      if (options.parseOnly === true) return;
      code = await runStreamCommand(mode, file, flags, io);
    });
  }

  program
    .command('tools')
    .summary("a model server's streamed tool calls: each call's arguments, validated against its tool's schema")
    .description(
      "a model server's streamed tool calls: each call's arguments, validated against its tool's schema.\nReads [file], or stdin when it is absent or \"-\".",
    )
    .argument('[file]', 'input file (default: stdin)')
    .addOption(
      new Option('--input <format>', INPUT_HELP).choices(INPUT_CHOICES.filter((c) => c !== 'text')).default('auto'),
    )
    .option(
      '--tools <file>',
      'the tools\' schemas: a JSON object mapping tool names to JSON Schemas, or the tools array sent to the provider ({type: "function", function: {name, parameters}} or {name, input_schema})',
    )
    .addOption(
      new Option(
        '--emit <what>',
        'what each line is: calls (one line per completed call: {index, id, name, arguments}) or changes (one line per update while a call streams: {index, id, name, changes, complete})',
      )
        .choices(['calls', 'changes'])
        .default('calls'),
    )
    .option(
      '--fail-fast',
      'end the run at the first call whose arguments break its schema, or a call to a tool --tools does not list: exit 4, one stderr line naming the call, the path and the rule. Needs --tools',
    )
    .addOption(
      new Option('--diagnostics <format>', 'diagnostics on stderr').choices(['text', 'json', 'none']).default('text'),
    )
    .addHelpText(
      'after',
      `\nExamples:\n  curl -N $URL -d @req.json | llmjson tools --tools tools.json\n  curl -N $URL -d @req.json | llmjson tools --tools tools.json --emit changes --fail-fast\n  llmjson tools recorded.sse --input anthropic\n\nA completed call whose arguments fail its schema is reported on stderr and not printed;\nthe answer text the body also holds is not printed (llmjson jsonl and json read it).\n\n${EXIT_CODES_HELP}\n`,
    )
    .action(async (file: string | undefined, flags: ToolsFlags) => {
      if (options.parseOnly === true) return;
      const { runToolsCommand } = await import('./tools-command.js');
      code = await runToolsCommand(file, flags, io);
    });

  program
    .command('check')
    .summary('check a prompt catalog: every schema declared, resolvable and valid, before any model is called')
    .argument('[path]', 'prompts.json, or a directory of prompt configurations', 'prompts.json')
    .option('--schema-root <dir>', 'where schema_ref looks first (repeatable, highest precedence first)', collect)
    .addHelpText(
      'after',
      '\nExamples:\n  llmjson check prompts.json\n  llmjson check prompts/ --schema-root ./contracts\n\nExit code 2 when any problem is found; each is listed on stderr with its code and prompt id.',
    )
    .action(async (path: string, flags: { schemaRoot?: string[] }) => {
      if (options.parseOnly === true) return;
      const { runCheckCommand } = await import('./check-command.js');
      code = await runCheckCommand(path, flags, io);
    });

  program
    .command('compile')
    .summary('generate a JSON Schema validator ahead of time: an ES module for pages whose CSP forbids eval')
    .argument('<schema>', 'JSON Schema file')
    .option('--discriminator <name>', 'property naming the oneOf branch (detected by default)')
    .option('--no-discriminator', 'validate the whole schema, without dispatch on a discriminator')
    .option('-o, --output <file>', 'write the module here (default: stdout)')
    .addHelpText(
      'after',
      "\nExamples:\n  llmjson compile item.schema.json > validate-item.js\n  llmjson compile kg.schema.json --discriminator type -o src/validate-kg.js\n\nThe module's default export is a Standard Schema: pass it as `schema` to createJsonlStream\n(@llmjson/web) and the page needs no 'unsafe-eval'. It imports ajv's runtime, ajv-formats and\n@llmjson/core/ajv, which a bundler resolves. Exit code 2 when the schema cannot be compiled.",
    )
    .action(async (file: string, flags: CompileFlags) => {
      if (options.parseOnly === true) return;
      const { runCompileCommand } = await import('./compile-command.js');
      code = await runCompileCommand(file, flags, io);
    });

  program
    .command('run')
    .summary('render a prompt, call an OpenAI-compatible server with streaming, print validated objects as they arrive')
    .requiredOption(
      '--prompts <file>',
      'prompt configuration {system?, prompts: {id: {prompt, response-type, schema | schema_ref}}}',
    )
    .requiredOption('--id <id>', 'the prompt to run')
    .option('--vars <file>', 'JSON object whose keys are the template variables')
    .requiredOption('--base-url <url>', 'API root, e.g. http://127.0.0.1:11434/v1')
    .requiredOption('--model <name>', 'model name')
    .option('--api-key-env <name>', 'environment variable holding the API key', 'OPENAI_API_KEY')
    .option('--schema-root <dir>', 'where schema_ref looks first (repeatable)', collect)
    .option('--api', 'print the envelope instead of the values')
    .option('--output-file <file>', 'write the result as canonical JSON, only on success')
    .option('--timeout <seconds>', 'give up when the server sends nothing for this long (0: never)', '60')
    .option('--total-timeout <seconds>', 'give up when the whole call takes longer (default: no limit)')
    .option(
      '--retries <n>',
      'call the model again, up to n times, when the answer breaks its contract, with a correction naming the path and rule',
      '0',
    )
    .option('--fail-fast', 'end the call at the first violation of the contract and abort the request (exit 4)')
    .option('--coerce [rules]', COERCE_HELP)
    .addOption(
      new Option('--diagnostics <format>', 'diagnostics on stderr').choices(['text', 'json', 'none']).default('text'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  llmjson run --prompts prompts.json --id extract --vars vars.json --base-url http://127.0.0.1:8080/v1 --model qwen2.5\n  llmjson run --prompts prompts.json --id extract --base-url http://127.0.0.1:8080/v1 --model qwen2.5 --fail-fast --retries 2\n  llmjson run --prompts prompts.json --id extract --base-url http://127.0.0.1:8080/v1 --model qwen2.5 --coerce string-to-number,enum-case\n\nWith --retries, the objects of a json or jsonl prompt are printed once their attempt is the last,\nand each retry is one line on stderr; --api prints the envelope with every attempt.\n',
    )
    .action(async (flags) => {
      if (options.parseOnly === true) return;
      const { runRunCommand } = await import('./run-command.js');
      code = await runRunCommand(flags, io);
    });

  schemaOptions(
    program
      .command('batch')
      .summary(
        'score recorded model outputs (batch-API results, benchmark samples, JSONL records, .txt files) per model: strict, salvage and coerce side by side',
      )
      .argument('<files...>', 'JSONL files of records (any --format), or directories of .txt files')
      .addOption(
        new Option('--mode <mode>', 'what each response must be')
          .choices(['json', 'jsonl', 'elements', 'salvage'])
          .default('json'),
      )
      .option(
        '--no-salvage',
        "the run's status by the strict scoring (JSON.parse of the whole text), not salvage (fences, prose); the report shows all three anyway",
      )
      .addOption(
        new Option(
          '--format <format>',
          "the records' layout (default: detected from each file's first record; records when nothing else fits)",
        ).choices(BATCH_FORMATS),
      )
      .option(
        '--text-field <path>',
        "where a record's response text is: a dotted path (response.body.choices.0.message.content) or a JSON Pointer (default: the format's)",
      )
      .option('--id-field <path>', "where a record's id is (default: the format's; else file:line)")
      .option('--model-field <path>', "where a record's model is (default: the format's)")
      .option('--finish-field <path>', "where a record's finish reason is (a cut answer: length, max_tokens)")
      .option(
        '--schema-field <path>',
        "where a record's own schema is: an object, a JSON text of one, or a name resolved through --schema-root (instead of --schema)",
      )
      .option(
        '--coerce [rules]',
        `the run's status by the salvage + coerce scoring (the report shows every scoring anyway): repair what the schema makes unambiguous in a value it rejects ("5" for a number, "Red" for the enum value "red"). No value: every rule; or a comma-separated list of ${COERCION_RULES.join(', ')}. Needs --schema, --schema-ref or --schema-field`,
      )
      .addOption(
        new Option(
          '--statuses <vocabulary>',
          "each result line's status also in JSONSchemaBench's codes (MATCH, SYNTAX_ERROR...) with jsonschemabench",
        )
          .choices(['llmjson', 'jsonschemabench'])
          .default('llmjson'),
      )
      .option(
        '--shard <k/n>',
        "take only the k-th of n shares of the records (position mod n = k - 1; k from 1), or auto: from the scheduler's variables (Kubernetes Indexed Job, AWS Batch array, GitLab, CircleCI, Buildkite, LLMJSON_SHARD=k/n)",
      )
      .option(
        '--resume',
        'continue a stopped run: keep the result lines already in --out, judge only the records they miss, append',
      )
      .option('--out <file>', 'write one result line per record here (default: stdout)')
      .option(
        '--report <file>',
        'write the report here, as JSON, markdown or HTML by the extension (.json, .md, .html); repeat for several',
        collect,
      )
      .option(
        '--workers <n>',
        'threads that judge, the main thread one of them (0 or 1: the main thread alone; default: one per core, or 0 when the inputs are under 32 MiB; more than the cores: the cores, with a note on stderr)',
        nonNegativeInteger('--workers'),
      )
      .option('--no-progress', 'no progress bar (it is shown only on a terminal, never in CI)'),
  )
    .addHelpText(
      'after',
      `\nExamples:
  llmjson batch batch_output.jsonl --schema answer.schema.json --report report.html --report report.json
  llmjson batch samples.jsonl --format lm-eval --schema-field doc.json_schema --statuses jsonschemabench --out results.jsonl
  llmjson batch runs/*.jsonl --mode jsonl --schema-ref llmjson.kg.definition_relationship.v1 --shard auto --out results.jsonl --report shard.json
  llmjson batch runs/*.jsonl --schema answer.schema.json --out results.jsonl --resume

Each result line: {"index", "id", "model", "status", "scores": {"strict", "salvage", "coerce"},
"values", "diagnostics"} and, for a failure, "keyword", "path", "message", "excerpt". status is
valid, salvaged, coerced, truncated, invalid, not-json, empty, provider-error or
unsupported-schema. The per-model summary goes to stderr. SIGTERM or SIGINT stops the run
with whole lines in --out (exit 143 or 130): --resume continues it. See docs/guide/evaluation.md.`,
    )
    .action(async (files: string[], flags: BatchFlags) => {
      if (options.parseOnly === true) return;
      const { runBatchCommand } = await import('./batch-command.js');
      code = await runBatchCommand(files, flags, io);
    });

  program
    .command('merge')
    .summary("merge the reports of a run's shards (batch --shard k/n --report) into the report of the whole run")
    .argument('<reports...>', 'report.json files written by llmjson batch --report (or by merge)')
    .option(
      '--report <file>',
      'write the merged report here, as JSON, markdown or HTML by the extension (.json, .md, .html); repeat for several (default: JSON on stdout)',
      collect,
    )
    .addHelpText(
      'after',
      '\nExamples:\n  llmjson merge shard-*.json --report report.json --report report.html\n  llmjson merge shard-1.json shard-2.json > report.json\n\nThe merged report is exactly the report one run over every record would have written.\nRefused (exit 2): reports of another llmjson version or other settings (flags, inputs), and\nreports that overlap (the same shard twice, a shard and a whole run). Merging some of the\nshards gives a report that says which. The summary table goes to stderr.\n',
    )
    .action(async (files: string[], flags: MergeFlags) => {
      if (options.parseOnly === true) return;
      const { runMergeCommand } = await import('./report-command.js');
      code = await runMergeCommand(files, flags, io);
    });

  const report = program
    .command('report')
    .summary('read batch reports back: report diff OLD.json NEW.json (per-model changes between two runs)');
  report
    .command('diff')
    .summary('per model, what changed between two batch reports: records, usable per scoring, each status')
    .argument('<old>', 'the earlier report.json')
    .argument('<new>', 'the later report.json')
    .addOption(
      new Option('--format <format>', 'text (a block per model), markdown (one table) or json')
        .choices(['text', 'markdown', 'json'])
        .default('text'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  llmjson report diff last-week.json report.json\n  llmjson report diff main.json branch.json --format markdown >> $GITHUB_STEP_SUMMARY\n\nPer model: records, the usable share (valid, salvaged, coerced) under each scoring with the\nchange in percentage points, and each status count that either report has; a model in one\nreport only says so. Settings that differ are listed first.\n',
    )
    .action(async (oldFile: string, newFile: string, flags: DiffFlags) => {
      if (options.parseOnly === true) return;
      const { runReportDiffCommand } = await import('./report-command.js');
      code = await runReportDiffCommand(oldFile, newFile, flags, io);
    });

  program
    .command('demo')
    .summary(
      'replay bundled recorded answers at a token pace: objects appear live, a document grows (no network, no key)',
    )
    .option('--speed <tokens>', 'tokens per second (0: no pauses)', nonNegativeInteger('--speed'), 150)
    .addHelpText('after', '\nExamples:\n  llmjson demo\n  llmjson demo --speed 20')
    .action(async (flags: { speed: number }) => {
      if (options.parseOnly === true) return;
      const { runDemoCommand } = await import('./demo-command.js');
      code = await runDemoCommand(flags, io);
    });

  refuseRepeats(program);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; every other parse error is a usage error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (
      error instanceof UsageError ||
      error instanceof ContractConfigurationError ||
      error instanceof ConfigurationError
    ) {
      const message = terminalText(quoteInput(error.message, MAX_MESSAGE_LENGTH));
      io.stderr.write(`llmjson: ${error instanceof UsageError ? '' : `${error.code}: `}${message}\n`);
      return ExitCode.usage;
    }
    throw error;
  }
  return code;
}
