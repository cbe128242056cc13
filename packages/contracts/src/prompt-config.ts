/**
 * The prompt configuration and its templates.
 *
 * Shape: `{ system?, prompts: { [id]: { prompt, "response-type"?, schema?, schema_ref?,
 * discriminator?, system? } } }`. `response-type` is `text` (default), `json` or `jsonl`; a
 * JSON or JSONL prompt declares its schema inline (`schema`) or by reference (`schema_ref`),
 * not both. Unknown keys are errors (a misspelt `response_type` would otherwise silently mean
 * `text`). A configuration built in code may give a Standard Schema (zod 4, valibot 1,
 * arktype 2…, anything carrying `~standard`) as `schema`; a JSON file cannot hold one, so file
 * catalogs keep `schema` as JSON Schema or use `schema_ref`. Written in code, the configuration
 * also types each prompt's values (`createPromptManager` infers its type; see prompt-manager.ts);
 * an entry declared apart keeps its types with `as const` (or, when its schema is a Standard
 * Schema, `satisfies PromptEntry`).
 *
 * Templates are Handlebars, rendered without HTML escaping and in strict mode: `{{text}}`
 * placeholders, `{{#each}}` loops and `{{#if}}` conditionals; a placeholder whose variable
 * is not given is an error, never an empty string. Variables are one JSON object whose keys
 * become the template's variables.
 */

import type { SchemaInput } from '@llmjson/core';
import { isStandardSchema, quoteInput } from '@llmjson/core/internal';
import Handlebars from 'handlebars';
import { ContractConfigurationError, ContractErrorCode } from './errors.js';
import type { ResponseType } from './llm.js';

export interface PromptEntry {
  readonly prompt: string;
  readonly 'response-type'?: ResponseType;
  /** Inline schema: a JSON Schema, or (in code) a Standard Schema such as a zod schema. */
  readonly schema?: SchemaInput;
  readonly schema_ref?: string;
  /** Discriminator for a `oneOf` schema or a Standard Schema's union (detected by default; `false` for off). */
  readonly discriminator?: string | false;
  /** System prompt for this prompt (instead of the configuration's). */
  readonly system?: string;
}

export interface PromptConfig {
  readonly system?: string;
  readonly prompts: Readonly<Record<string, PromptEntry>>;
}

export type Variables = Readonly<Record<string, unknown>>;

const ENTRY_KEYS = new Set(['prompt', 'response-type', 'schema', 'schema_ref', 'discriminator', 'system']);
const RESPONSE_TYPES = new Set(['text', 'json', 'jsonl']);

export interface ConfigProblem {
  readonly promptId?: string;
  readonly message: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const handlebars = Handlebars.create();

/** Every shape problem of a configuration (empty when it is well-formed). */
export function configProblems(config: unknown): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!isObject(config)) {
    return [{ message: 'the prompt configuration must be a JSON object with a "prompts" object' }];
  }
  for (const key of Object.keys(config)) {
    if (key !== 'system' && key !== 'prompts') {
      problems.push({
        message: `unknown key ${JSON.stringify(quoteInput(key))} at the top level (expected "system" and "prompts")`,
      });
    }
  }
  if (config.system !== undefined && typeof config.system !== 'string') {
    problems.push({ message: '"system" must be a string' });
  }
  if (!isObject(config.prompts)) {
    problems.push({ message: '"prompts" must be an object mapping prompt ids to prompts' });
    return problems;
  }
  for (const [promptId, entry] of Object.entries(config.prompts)) {
    const problem = (message: string) => problems.push({ promptId, message });
    if (!isObject(entry)) {
      problem('a prompt must be an object with at least "prompt"');
      continue;
    }
    for (const key of Object.keys(entry)) {
      if (!ENTRY_KEYS.has(key)) {
        const hint = key === 'response_type' || key === 'responseType' ? ' (did you mean "response-type"?)' : '';
        problem(`unknown key ${JSON.stringify(quoteInput(key))}${hint}; allowed: ${[...ENTRY_KEYS].join(', ')}`);
      }
    }
    if (typeof entry.prompt !== 'string') {
      problem('"prompt" must be a string (the template)');
    } else {
      try {
        handlebars.parse(entry.prompt);
      } catch (error) {
        problem(`the template does not parse: ${(error as Error).message.split('\n').join(' ')}`);
      }
    }
    const type = entry['response-type'];
    if (type !== undefined && (typeof type !== 'string' || !RESPONSE_TYPES.has(type))) {
      problem(`"response-type" must be "text", "json" or "jsonl", got ${JSON.stringify(type)}`);
    }
    if (entry.schema !== undefined && entry.schema_ref !== undefined) {
      problem('give "schema" or "schema_ref", not both');
    }
    if (
      entry.schema !== undefined &&
      typeof entry.schema !== 'boolean' &&
      !isObject(entry.schema) &&
      !isStandardSchema(entry.schema)
    ) {
      problem(
        '"schema" must be a JSON Schema (an object or a boolean) or, in code, a Standard Schema (zod, valibot, arktype…)',
      );
    }
    if (entry.schema_ref !== undefined && typeof entry.schema_ref !== 'string') {
      problem('"schema_ref" must be a string such as "tnh.sectioning.default_section.v1"');
    }
    if (entry.discriminator !== undefined && typeof entry.discriminator !== 'string' && entry.discriminator !== false) {
      problem('"discriminator" must be a property name or false');
    }
    if (entry.system !== undefined && typeof entry.system !== 'string') problem('"system" must be a string');
  }
  return problems;
}

/** Checks the configuration's shape; throws PROMPT_INVALID listing every problem. */
export function checkPromptConfig(config: unknown): PromptConfig {
  const problems = configProblems(config);
  if (problems.length > 0) {
    const first = problems[0] as ConfigProblem;
    throw new ContractConfigurationError(
      ContractErrorCode.promptInvalid,
      `invalid prompt configuration: ${problems
        .map((p) => (p.promptId === undefined ? p.message : `prompt "${quoteInput(p.promptId)}": ${p.message}`))
        .join('; ')}`,
      first.promptId === undefined ? {} : { promptId: first.promptId },
    );
  }
  return config as PromptConfig;
}

/** Variables from JSON text (a `--vars` file): one top-level object, else VARIABLES_INVALID. */
export function parseVariables(text: string, source = 'the variables'): Variables {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ContractConfigurationError(
      ContractErrorCode.variablesInvalid,
      `${source} must be a JSON object; it is not JSON: ${(cause as Error).message}`,
      { cause },
    );
  }
  return checkVariables(value, source);
}

/** Checks that variables are one JSON object (its keys become the template's variables). */
export function checkVariables(value: unknown, source = 'the variables'): Variables {
  if (!isObject(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new ContractConfigurationError(
      ContractErrorCode.variablesInvalid,
      `${source} must be a JSON object whose keys are the template's variables, got ${what}`,
    );
  }
  return value;
}

const compiled = new Map<string, HandlebarsTemplateDelegate>();

/** Renders a template with the variables (strict: a placeholder without a variable is an error). */
export function renderTemplate(template: string, variables: Variables, promptId?: string): string {
  let render = compiled.get(template);
  if (render === undefined) {
    render = handlebars.compile(template, { noEscape: true, strict: true });
    // Templates come from configuration, so few; a caller that renders endless distinct ones
    // must not grow this without bound.
    if (compiled.size >= 512) compiled.clear();
    compiled.set(template, render);
  }
  try {
    return render(variables);
  } catch (cause) {
    const message = (cause as Error).message;
    const missing = /^"([^"]+)" not defined in .* - (\d+):(\d+)$/.exec(message);
    const where = promptId === undefined ? 'the template' : `prompt "${quoteInput(promptId)}"`;
    throw new ContractConfigurationError(
      ContractErrorCode.variablesInvalid,
      missing === null
        ? `${where} could not be rendered: ${message}`
        : `${where} uses {{${missing[1]}}} (line ${missing[2]}, column ${Number(missing[3]) + 1}), which is not among the variables (${
            Object.keys(variables).length === 0 ? 'none given' : `given: ${Object.keys(variables).join(', ')}`
          })`,
      promptId === undefined ? { cause } : { promptId, cause },
    );
  }
}
