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
 * placeholders (and paths into objects, `{{doc.title}}`), `{{#each}}` loops, `{{#if}}` /
 * `{{#unless}}` conditionals (with `{{else}}`), `{{#with}}`, and the data variables `@index`,
 * `@key`, `@first`, `@last` and `@root`; a placeholder whose variable is not given is an error,
 * never an empty string. Variables are one JSON object whose keys become the template's
 * variables.
 *
 * Only what the caller passed renders: a template sees the variables through a view that has
 * only their own members (`templateView`), so `{{constructor}}`, `{{toString}}` or
 * `{{a.__proto__}}` name a variable like any other — rendered when the caller passed it as an
 * own property, an error naming it when not (Handlebars' strict mode tests names with `in`,
 * which sees inherited members, and renders what its prototype guard then denies as ""). Everything else Handlebars can do is refused when the configuration is loaded (and
 * when a template is first compiled), with a message naming the prompt, the construct and what
 * to write instead: helpers other than the four blocks above (`log` writes to the console,
 * `lookup` reads any member), partials, decorators, block parameters (`as |x|`, which
 * Handlebars resolves without strict mode) and other `@data` variables. The compiler is told the
 * same (`knownHelpersOnly`, with `log` and `lookup` unknown), and the runtime denies prototype
 * members without logging (`allowProto…ByDefault: false`), so nothing a template names is
 * written to the console.
 */

import type { SchemaInput } from '@llmjson/core';
import { isStandardSchema, quoteInput } from '@llmjson/core/internal';
import type Handlebars from 'handlebars';
import { ContractConfigurationError, ContractErrorCode } from './errors.js';
import type { ResponseType } from './llm.js';
import { requireFromPackage } from './package-root.js';

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

let instance: typeof Handlebars | undefined;

/**
 * This module's own Handlebars, loaded when a template is first checked or rendered: loading it
 * took about 50 ms of every process and worker thread that imported this package, most of which
 * render no template (each worker of `llmjson batch`, `llmjson --version`).
 */
function handlebars(): typeof Handlebars {
  if (instance === undefined) {
    const created = (requireFromPackage('handlebars') as typeof Handlebars).create();
    // Not reachable from a checked template (the compiler is told they are unknown); removed so
    // that nothing compiled by this instance can reach them either.
    created.unregisterHelper('log');
    created.unregisterHelper('lookup');
    created.unregisterDecorator('inline');
    instance = created;
  }
  return instance;
}

/** The helpers a template may use: blocks over one value (`{{#if x}}…{{/if}}`). */
const BLOCK_HELPERS = new Set(['if', 'unless', 'each', 'with']);
/** The `@data` variables a template may use (set by `{{#each}}`, and the root). */
const DATA_VARIABLES = new Set(['index', 'key', 'first', 'last', 'root']);
/** What a problem message suggests instead. */
const ALLOWED =
  'templates may use {{name}} placeholders, {{#if}}, {{#unless}}, {{#each}} and {{#with}} blocks, and {{@index}}, {{@key}}, {{@first}}, {{@last}}, {{@root}}';

const COMPILE_OPTIONS: NonNullable<Parameters<typeof Handlebars.compile>[1]> = {
  noEscape: true,
  strict: true,
  // A helper the template calls must be one of these: the compiler refuses any other.
  knownHelpersOnly: true,
  knownHelpers: { helperMissing: false, blockHelperMissing: false, log: false, lookup: false },
};
const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = {
  // Denied, as by default, but without the warning Handlebars otherwise writes to the console.
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
  allowCallsToHelperMissing: false,
};

/** The parts of Handlebars' syntax tree the check reads. */
interface Node {
  readonly type: string;
  readonly loc?: { readonly start: { readonly line: number; readonly column: number } } | null;
  readonly body?: readonly Node[];
  readonly blockParams?: readonly string[];
  readonly path?: Node;
  readonly params?: readonly Node[];
  readonly hash?: { readonly pairs: readonly { readonly value: Node }[] };
  readonly program?: Node | null;
  readonly inverse?: Node | null;
  readonly data?: boolean;
  readonly parts?: readonly string[];
  readonly original?: unknown;
  readonly value?: unknown;
}

function at(node: Node): string {
  const start = node.loc?.start;
  return start === undefined ? '' : ` (line ${start.line}, column ${start.column + 1})`;
}

/**
 * What a template uses that templates may not (empty when it is fine); throws Handlebars'
 * parse error. Each problem says what to write instead.
 */
function templateProblems(template: string): string[] {
  const problems: string[] = [];
  const visit = (node: Node | null | undefined): void => {
    if (node === null || node === undefined) return;
    switch (node.type) {
      case 'Program':
        if (node.blockParams !== undefined && node.blockParams.length > 0) {
          problems.push(
            `uses block parameters (as |${node.blockParams.map((p) => quoteInput(p)).join(' ')}|)${at(node)}, which templates do not support (Handlebars resolves them without strict mode); inside the block, use {{this}} or {{name}}`,
          );
        }
        for (const statement of node.body ?? []) visit(statement);
        return;
      case 'MustacheStatement':
      case 'SubExpression':
        call(node, false);
        return;
      case 'BlockStatement':
        call(node, true);
        visit(node.program);
        visit(node.inverse);
        return;
      case 'PartialStatement':
      case 'PartialBlockStatement':
        problems.push(
          `uses a partial ({{> …}})${at(node)}, which templates do not support; write its text in the template`,
        );
        return;
      case 'Decorator':
      case 'DecoratorBlock':
        problems.push(`uses a decorator ({{* …}})${at(node)}, which templates do not support; remove it`);
        return;
      case 'PathExpression': {
        const head = node.parts?.[0];
        if (node.data === true && (head === undefined || !DATA_VARIABLES.has(head))) {
          problems.push(
            `uses {{${quoteInput(String(node.original))}}}${at(node)}, which is not a data variable templates have; ${ALLOWED}`,
          );
        }
        return;
      }
      default:
        // Text, comments and literals.
        return;
    }
  };
  const call = (node: Node, block: boolean): void => {
    const path = node.path as Node;
    const name = String(path.type === 'PathExpression' ? path.original : path.value);
    const params = node.params ?? [];
    const pairs = node.hash?.pairs ?? [];
    const helper = params.length > 0 || pairs.length > 0 || node.type === 'SubExpression' || BLOCK_HELPERS.has(name);
    if (!helper) {
      // A placeholder, or a section over a variable (`{{#items}}…{{/items}}`).
      visit(path);
      return;
    }
    const shown = quoteInput(name);
    if (!BLOCK_HELPERS.has(name)) {
      const why =
        name === 'log'
          ? 'which writes to the console'
          : name === 'lookup'
            ? 'which reads members the variables do not own'
            : 'which templates do not have';
      problems.push(`uses the helper "${shown}"${at(node)}, ${why}; remove it: ${ALLOWED}`);
    } else if (!block || node.type === 'SubExpression') {
      problems.push(`uses "${shown}" outside a block${at(node)}; write {{#${shown} value}}…{{/${shown}}}`);
    } else if (params.length !== 1) {
      problems.push(
        `uses {{#${shown}}} with ${params.length} values${at(node)}; it takes exactly one: {{#${shown} value}}…{{/${shown}}}`,
      );
    }
    for (const param of params) visit(param);
    for (const pair of pairs) visit(pair.value);
  };
  visit(handlebars().parse(template) as unknown as Node);
  return problems;
}

/** Every problem of a template, as messages; a template that does not parse has one. */
function templateCheck(template: string): string[] {
  try {
    return templateProblems(template);
  } catch (error) {
    return [`does not parse: ${(error as Error).message.split('\n').join(' ')}`];
  }
}

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
  } else if (typeof config.system === 'string') {
    for (const why of templateCheck(config.system))
      problems.push({ message: `the top-level "system" template ${why}` });
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
      for (const why of templateCheck(entry.prompt)) problem(`the template ${why}`);
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
    else if (typeof entry.system === 'string') {
      for (const why of templateCheck(entry.system)) problem(`the "system" template ${why}`);
    }
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

/**
 * The variables as a template sees them: each object and array behind a view (a Proxy over an
 * empty stand-in, made when the template first reaches it) that has only the original's own
 * members — so Handlebars' strict check (`name in object`), its `hasOwnProperty` and its loops
 * find what the caller passed and nothing inherited, and a key `__proto__` is an ordinary member.
 * Printed, a view reads as its original does (`[object Object]`; an array's items joined with
 * commas). Strings, numbers, booleans and functions are passed as they are. Lazy, so rendering
 * costs what the template reads, whatever the size of the variables.
 */
function templateView(variables: unknown): unknown {
  const views = new Map<object, object>();
  const viewOf = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    let view = views.get(value);
    if (view === undefined) {
      view = createView(value, viewOf);
      views.set(value, view);
    }
    return view;
  };
  return viewOf(variables);
}

function createView(source: object, viewOf: (value: unknown) => unknown): object {
  const members = source as Record<string, unknown>;
  const own = (key: string | symbol): key is string => typeof key === 'string' && Object.hasOwn(source, key);
  const print = (): string => {
    try {
      return String(source);
    } catch {
      // An object without a prototype (Object.create(null)) has no string form.
      return '[object Object]';
    }
  };
  // The stand-in keeps every proxy invariant trivially true: it owns nothing but an array's
  // `length`, and stays extensible. An array's stand-in makes the view an array to Handlebars.
  const standIn: object = Array.isArray(source) ? [] : Object.create(null);
  return new Proxy(standIn, {
    has: (_, key) => own(key),
    get: (_, key) => {
      if (key === Symbol.toPrimitive) return print;
      return own(key) ? viewOf(members[key]) : undefined;
    },
    getOwnPropertyDescriptor: (target, key) => {
      if (!own(key)) return undefined;
      if (key === 'length' && Array.isArray(source)) {
        return { ...Reflect.getOwnPropertyDescriptor(target, key), value: source.length };
      }
      const enumerable = Object.getOwnPropertyDescriptor(source, key)?.enumerable ?? false;
      return { value: viewOf(members[key]), writable: false, enumerable, configurable: true };
    },
    // An array's `length` among them, as its stand-in requires.
    ownKeys: () => Object.getOwnPropertyNames(source),
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}

const compiled = new Map<string, HandlebarsTemplateDelegate>();

/** The compiled template; throws PROMPT_INVALID for a template that uses what templates may not. */
function compiledTemplate(template: string, promptId: string | undefined): HandlebarsTemplateDelegate {
  let render = compiled.get(template);
  if (render !== undefined) return render;
  const problems = templateCheck(template);
  if (problems.length > 0) {
    const where = promptId === undefined ? 'the template' : `prompt "${quoteInput(promptId)}": the template`;
    throw new ContractConfigurationError(
      ContractErrorCode.promptInvalid,
      `${where} ${problems.join('; ')}`,
      promptId === undefined ? {} : { promptId },
    );
  }
  render = handlebars().compile(template, COMPILE_OPTIONS);
  // Templates come from configuration, so few; a caller that renders endless distinct ones
  // must not grow this without bound.
  if (compiled.size >= 512) compiled.clear();
  compiled.set(template, render);
  return render;
}

/**
 * The path at a Handlebars error's position (`doc.title` of `{{doc.title}}`), and whether it
 * names a variable itself (one name from the context: not nested, not `../`, not `@data`).
 */
function placeholderAt(template: string, error: unknown): { path: string; variable: boolean } | undefined {
  const { lineNumber, column, endLineNumber, endColumn } = error as Record<string, unknown>;
  if (typeof lineNumber !== 'number' || typeof column !== 'number' || typeof endColumn !== 'number') return undefined;
  if (endLineNumber !== lineNumber) return undefined;
  const text = template.split('\n', lineNumber)[lineNumber - 1]?.slice(column, endColumn);
  try {
    const path = (handlebars().parse(`{{${text}}}`).body[0] as unknown as { path: Node & { depth?: number } }).path;
    if (path.type !== 'PathExpression') return undefined;
    const original = String(path.original);
    const variable =
      path.parts?.length === 1 && path.depth === 0 && path.data !== true && !/^(?:this\b|\.)/.test(original);
    return { path: original, variable };
  } catch {
    return undefined;
  }
}

/**
 * Renders a template with the variables (strict: a placeholder without a variable is an error,
 * VARIABLES_INVALID; a template that uses what templates may not is PROMPT_INVALID).
 */
export function renderTemplate(template: string, variables: Variables, promptId?: string): string {
  const render = compiledTemplate(template, promptId);
  const where = promptId === undefined ? 'the template' : `prompt "${quoteInput(promptId)}"`;
  try {
    return render(templateView(variables), RUNTIME_OPTIONS);
  } catch (cause) {
    const message = (cause as Error).message;
    const missing = /^"([^"]+)" not defined in [\s\S]* - (\d+):(\d+)$/.exec(message);
    const primitive = /^Cannot use 'in' operator to search for '([\s\S]*?)' in /.exec(message);
    const given = Object.keys(variables);
    let why: string;
    if (missing !== null) {
      const name = missing[1] as string;
      const { path, variable } = placeholderAt(template, cause) ?? { path: name, variable: true };
      const position = `(line ${missing[2]}, column ${Number(missing[3]) + 1})`;
      why = variable
        ? `uses {{${quoteInput(path)}}} ${position}, which is not among the variables (${
            given.length === 0 ? 'none given' : `given: ${given.map((key) => quoteInput(key)).join(', ')}`
          })`
        : `uses {{${quoteInput(path)}}} ${position}, and "${quoteInput(name)}" is not among the members given there`;
    } else if (primitive !== null) {
      why = `looks up "${quoteInput(primitive[1] as string)}" in a string, number or boolean: only the variables and the members of objects among them can be used`;
    } else {
      why = `could not be rendered: ${message}`;
    }
    throw new ContractConfigurationError(
      ContractErrorCode.variablesInvalid,
      `${where} ${why}`,
      promptId === undefined ? { cause } : { promptId, cause },
    );
  }
}
