/**
 * JSON Schema validation through ajv: one implementation of the validator seam
 * (`JsonSchemaCompiler`, schema-validator.ts), published as `@llmjson/core/ajv`. The Node
 * streams, contracts and the CLI use it by default; Web and core users pass it as
 * `compileJsonSchema` when they validate with JSON Schema, or use a Standard Schema, or code
 * generated ahead of time by `llmjson compile` (no `new Function` at run time).
 *
 * Contract: `compileSchema(schema, options)` compiles once (results are cached per schema
 * object and discriminator choice) and returns a validator that never throws on data. A
 * broken schema throws `ConfigurationError` at compile time, never at validation time.
 *
 * Dialects (schema-dialect.ts): draft-04 (ajv-draft-04: `id`, boolean `exclusiveMaximum`),
 * draft-06 (ajv's draft-07 class meta-validating with the draft-06 meta-schema), draft-07 (the
 * default when `$schema` is absent), 2019-09 and 2020-12, chosen by the root's `$schema` in any
 * spelling real schemas use (`http`/`https`, with or without `#`). A `$schema` in a sub-schema
 * changes nothing, as in plain ajv for every dialect class: the whole schema is meta-validated
 * and compiled in the root's dialect, and a sub-schema's `$schema` only has to be a string. A
 * root `$schema` naming no known dialect is SCHEMA_INVALID, listing the supported ones. Formats
 * come from ajv-formats.
 *
 * Quiet: ajv is given a logger that collects instead of printing. What it reports while
 * compiling (a `format` it does not know, checked as any string) becomes a `SchemaWarning` on
 * `CompiledSchema.warnings`, at most MAX_SCHEMA_WARNINGS per schema, quoted through
 * `quoteInput`; the engines hand them to `onWarning`. Keywords ajv does not know are
 * annotations (ajv's `strict: false`): real schemas carry many (`markdownDescription`, `x-*`),
 * and they are not warned about.
 *
 * A schema that fails meta-validation is SCHEMA_INVALID with a message naming, for each place
 * at fault (at most three), its pointer in the schema, the keyword and the value given there.
 *
 * Hardening (docs/decisions/013-linear-time-schema-regexes.md):
 * - Every regular expression a schema runs on data (`pattern`, `patternProperties` and the
 *   formats of ajv-formats) matches in time linear in the length of the string; a pattern
 *   that cannot is a ConfigurationError that names it (linear-regexp.ts).
 * - A schema whose references loop without descending into the value recurses forever on
 *   every value: it is a ConfigurationError naming the cycle (reference-cycles.ts).
 * - A value deep enough to exhaust the stack of the generated validator is invalid
 *   (`keyword: "depth"`), never an exception. Engines apply their depth guard before this.
 * - Messages quote user input (patterns, pointers, discriminator names and values) through
 *   `quoteInput`: at most MAX_QUOTED_LENGTH characters each.
 * - A result carries at most MAX_SCHEMA_ERRORS errors, then one `errors-omitted` entry counting
 *   the rest (diagnostics.ts). ajv still runs with `allErrors` and so still collects every
 *   error: it has no option to stop after N, and stopping at the first would lose the 2nd and
 *   3rd errors that messages show. The collection is linear in the value (a 1.4 MB line with
 *   100 000 forbidden keys validates in about the time JSON.parse takes to read it); what grew
 *   without bound was the output, 17 MB of errors for that line.
 *
 * Dispatch follows `findDispatch` (schema-validator.ts): each branch is compiled on its own
 * and only the branch a value names runs.
 */

import { _, Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import draft06MetaSchema from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import equalModule from 'ajv/dist/runtime/equal.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { ConfigurationError, ConfigurationErrorCode } from '../../diagnostics/configuration-error.js';
import { capSchemaErrors, quoteInput, type SchemaError } from '../../diagnostics/diagnostics.js';
import { jsonEqual } from '../json-equal.js';
import { escapePointer, isObject } from '../json-pointer.js';
import { linearRegExp, useLinearFormats } from '../linear-regexp.js';
import { rejectReferenceCycles } from '../reference-cycles.js';
import { type DialectName, dialectOf, type SchemaDialect, SUPPORTED_DIALECTS } from '../schema-dialect.js';
import { schemaIndex } from '../schema-index.js';
import { internSchema } from '../schema-intern.js';
import {
  type CompiledSchema,
  type CompileOptions,
  type Constant,
  compiledOnce,
  dispatchFailure,
  findDispatch,
  formatSchemaErrors,
  isStackOverflow,
  type JsonSchema,
  type SchemaWarning,
  tooDeep,
  VALID,
  type ValidationResult,
} from '../schema-validator.js';

type AddFormats = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS; its default export arrives either as the function or wrapped.
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

type AjvClass = new (options: Options) => Ajv;
// ajv-draft-04 is CommonJS: its default export arrives either as the class or wrapped.
const AjvDraft04: AjvClass =
  (AjvDraft04Module as unknown as { default?: AjvClass }).default ?? (AjvDraft04Module as unknown as AjvClass);

/** Each dialect's ajv class, and the id its meta-schema is registered under there (no `#`: ajv drops it). */
const DIALECT_CLASSES: Readonly<Record<DialectName, { readonly create: AjvClass; readonly meta: string }>> = {
  'draft-04': { create: AjvDraft04, meta: 'http://json-schema.org/draft-04/schema' },
  // ajv's draft-07 class is its draft-06 implementation too: it differs in the meta-schema only.
  'draft-06': { create: Ajv, meta: 'http://json-schema.org/draft-06/schema' },
  'draft-07': { create: Ajv, meta: 'http://json-schema.org/draft-07/schema' },
  '2019-09': { create: Ajv2019 as unknown as AjvClass, meta: 'https://json-schema.org/draft/2019-09/schema' },
  '2020-12': { create: Ajv2020 as unknown as AjvClass, meta: 'https://json-schema.org/draft/2020-12/schema' },
};

/** At most this many warnings per schema; the rest are counted in one `warnings-omitted` entry. */
export const MAX_SCHEMA_WARNINGS = 100;

/**
 * Collects what ajv logs while compiling, as SchemaWarnings: ajv's logger option, so that
 * nothing is printed. ajv logs errors only just before it throws (the code of a function that
 * did not compile): the throw is what is reported, so they are dropped.
 */
class WarningCollector {
  readonly #collected: SchemaWarning[] = [];
  readonly #seen = new Set<string>();
  #omitted = 0;
  readonly logger = {
    log: (): void => {},
    warn: (...args: unknown[]): void => this.#add(args.map(String).join(' ')),
    error: (): void => {},
  };

  #add(text: string): void {
    const warning = toWarning(text);
    const key = `${warning.kind}\n${warning.message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    if (this.#collected.length < MAX_SCHEMA_WARNINGS) this.#collected.push(warning);
    else this.#omitted++;
  }

  /** What was collected so far, frozen. */
  snapshot(): readonly SchemaWarning[] {
    const warnings = [...this.#collected];
    if (this.#omitted > 0) {
      warnings.push({ kind: 'warnings-omitted', message: `${this.#omitted} more warnings about this schema omitted` });
    }
    return Object.freeze(warnings.map((w) => Object.freeze(w)));
  }
}

/** At most this many `reference-unchecked` warnings per schema. */
const MAX_REFERENCE_WARNINGS = 20;

/**
 * `warnings` and one `reference-unchecked` warning per reference that the validator follows but
 * the walks without it (prefix checks, subtree checks: schema-index.ts) cannot — a `$dynamicRef`,
 * a `$recursiveRef`, an object shared under two bases. What such a reference names is checked
 * when its value is complete, not while it streams: said once per schema, never per value.
 */
function withReferenceWarnings(
  warnings: readonly SchemaWarning[],
  schema: Readonly<Record<string, unknown>>,
): readonly SchemaWarning[] {
  // Each dialect's validator applies only its own dynamic keyword; the others are annotations.
  const dialect = dialectOf(schema)?.name;
  const applies = (keyword: string): boolean =>
    keyword === '$ref' ||
    (keyword === '$recursiveRef' && dialect === '2019-09') ||
    (keyword === '$dynamicRef' && dialect === '2020-12');
  const unresolved = schemaIndex(schema)
    .unresolved(4 * MAX_REFERENCE_WARNINGS)
    .filter((r) => applies(r.keyword))
    .slice(0, MAX_REFERENCE_WARNINGS);
  if (unresolved.length === 0) return warnings;
  const more = unresolved.map(({ keyword, reference, path }) => {
    const schemaPath = `#${path.map((key) => `/${escapePointer(key)}`).join('')}/${keyword}`;
    return Object.freeze({
      kind: 'reference-unchecked',
      message: `${keyword} "${quoteInput(reference)}" at ${quoteInput(schemaPath)} is followed by the validator only: what it names is checked once its value is complete, not while it streams`,
      schemaPath,
    });
  });
  return Object.freeze([...warnings, ...more]);
}

const UNKNOWN_FORMAT = 'unknown format "';
const IGNORED_AT = '" ignored in schema at path "';

/**
 * One of ajv's log messages as a SchemaWarning that says what it means for values and what to do.
 * ajv writes `unknown format "<name>" ignored in schema at path "<path>"`; the name is the
 * schema's and may hold anything, the path is percent-encoded (no `"`, no space), so the last
 * `" ignored…"` ends the name. Read with indexOf, not a regex: a hostile name that repeats the
 * separator costs no more than its length.
 */
function toWarning(text: string): SchemaWarning {
  const separator = text.lastIndexOf(IGNORED_AT);
  if (text.startsWith(UNKNOWN_FORMAT) && text.endsWith('"') && separator >= UNKNOWN_FORMAT.length) {
    const name = text.slice(UNKNOWN_FORMAT.length, separator);
    const schemaPath = quoteInput(`${text.slice(separator + IGNORED_AT.length, -1)}/format`);
    return {
      kind: 'unknown-format',
      message: `unknown format "${quoteInput(name)}" at ${schemaPath} is not checked (any string passes); use a format ajv-formats knows, or remove it`,
      schemaPath,
    };
  }
  return { kind: 'validator', message: quoteInput(text) };
}

/** ajv for one schema, as `ajvFor` sets it up. */
export interface AjvSetup {
  readonly ajv: Ajv;
  /**
   * Whether the dialect's ajv applies draft-07's keywords (draft-04, draft-06 and draft-07 do;
   * 2019-09 and 2020-12 add `dependentSchemas`, `$recursiveRef`, `$dynamicRef`).
   */
  readonly draft07: boolean;
  readonly dialect: SchemaDialect;
  /** What ajv has reported while compiling so far (see WarningCollector). */
  warnings(): readonly SchemaWarning[];
}

/** Why a root `$schema` is refused: it names no dialect llmjson compiles. */
function unsupportedDialect($schema: unknown): ConfigurationError {
  const given = typeof $schema === 'string' ? `"${quoteInput($schema)}"` : `of type ${typeof $schema}`;
  return new ConfigurationError(
    ConfigurationErrorCode.schemaInvalid,
    `unsupported $schema ${given}; supported: ${SUPPORTED_DIALECTS} (their meta-schema URIs, http or https, with or without "#"); remove $schema for draft-07`,
  );
}

/**
 * The ajv instance for `schema`'s dialect (its root `$schema`, schema-dialect.ts). `code` adds
 * to the code options (ajv-standalone.ts asks for source generation); the linear-time regex
 * engine is always used.
 */
export function ajvFor(schema: JsonSchema, code: NonNullable<Options['code']> = {}): AjvSetup {
  const dialect = dialectOf(schema);
  if (dialect === undefined) throw unsupportedDialect(typeof schema === 'object' ? schema.$schema : undefined);
  const { create, meta } = DIALECT_CLASSES[dialect.name];
  const collector = new WarningCollector();
  // strict: false accepts the annotation keywords real schemas carry (examples, x-*);
  // the schema itself is still meta-validated on compile.
  const ajv = new create({
    allErrors: true,
    strict: false,
    validateSchema: true,
    logger: collector.logger,
    code: { ...code, regExp: linearRegExp },
  });
  if (dialect.name === 'draft-06') ajv.addMetaSchema(draft06MetaSchema);
  // Other spellings of the meta-schema's URI (https for http, with `#`) name the same one.
  const spelling = typeof schema === 'object' ? schema.$schema : undefined;
  if (typeof spelling === 'string') {
    const key = spelling.replace(/#$/, '');
    if (key !== meta && ajv.refs[key] === undefined) ajv.refs[key] = meta;
  }
  useJsonEqual(ajv);
  addFormats(ajv);
  useLinearFormats(ajv);
  shareMetaValidation(ajv, dialect.name);
  return {
    ajv,
    draft07: dialect.name === 'draft-04' || dialect.name === 'draft-06' || dialect.name === 'draft-07',
    dialect,
    warnings: () => collector.snapshot(),
  };
}

/**
 * One ajv per dialect (per thread) that only meta-validates, set up as `ajvFor` sets up its own:
 * the dialect's meta-schema is then compiled once, not once per schema. Compiling the meta-schema
 * was three quarters of compiling a small schema (about 6.5 of 9 ms), which a run with thousands
 * of distinct schemas (`llmjson batch --schema-field`) pays per schema.
 */
const metaValidators = new Map<DialectName, Ajv>();

function metaValidatorFor(name: DialectName): Ajv {
  let shared = metaValidators.get(name);
  if (shared === undefined) {
    const { create } = DIALECT_CLASSES[name];
    // Nothing is compiled here but the meta-schema, whose compilation logs nothing.
    const silent = { log: () => {}, warn: () => {}, error: () => {} };
    shared = new create({
      allErrors: true,
      strict: false,
      validateSchema: true,
      logger: silent,
      code: { regExp: linearRegExp },
    });
    if (name === 'draft-06') shared.addMetaSchema(draft06MetaSchema);
    useJsonEqual(shared);
    addFormats(shared);
    useLinearFormats(shared);
    metaValidators.set(name, shared);
  }
  return shared;
}

/**
 * `ajv.validateSchema` (which ajv calls on every schema it adds, with `validateSchema: true`)
 * through the dialect's shared meta-validator: the same meta-schema, options and formats, so the
 * same answer, the same `ajv.errors` and the same exception as ajv's own method, which this
 * follows line by line; only the meta-schema's compilation is shared.
 */
function shareMetaValidation(ajv: Ajv, name: DialectName): void {
  const shared = metaValidatorFor(name);
  const meta = DIALECT_CLASSES[name].meta;
  ajv.validateSchema = (schema: AnySchema, throwOrLogError?: boolean): boolean => {
    if (typeof schema === 'boolean') return true;
    const $schema = (schema as { $schema?: unknown }).$schema;
    if ($schema !== undefined && typeof $schema !== 'string') throw new Error('$schema must be a string');
    // Every spelling ajvFor accepts names the dialect's meta-schema (schema-dialect.ts); any other
    // is left to ajv itself, as before.
    if ($schema !== undefined && ajv.refs[$schema.replace(/#$/, '')] !== meta && $schema.replace(/#$/, '') !== meta) {
      return Ajv.prototype.validateSchema.call(ajv, schema, throwOrLogError) as boolean;
    }
    const valid = shared.validate(meta, schema) as boolean;
    ajv.errors = shared.errors ?? null;
    if (!valid && throwOrLogError) throw new Error(`schema is invalid: ${shared.errorsText(shared.errors)}`);
    return valid;
  };
}

/** The root's id as the dialect spells it (`id` in draft-04), or undefined. */
export function schemaId(schema: JsonSchema, dialect: SchemaDialect): string | undefined {
  if (typeof schema !== 'object' || !Object.hasOwn(schema, dialect.idKeyword)) return undefined;
  const id = schema[dialect.idKeyword];
  return typeof id === 'string' ? id : undefined;
}

/** Meta-schema keywords whose errors are about the keys a schema object holds, not one value. */
const OBJECT_KEYWORDS = new Set([
  'required',
  'dependencies',
  'dependentRequired',
  'additionalProperties',
  'propertyNames',
]);

/** At most this many places at fault are named in a meta-validation message. */
const META_PLACES_SHOWN = 3;

/** A schema value as a message shows it: JSON, quoted through quoteInput. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  try {
    return quoteInput(JSON.stringify(value));
  } catch {
    return Array.isArray(value) ? 'an array' : typeof value;
  }
}

/** The value at ajv's `instancePath` (a JSON pointer, not percent-encoded) in `root`, by own keys. */
function valueAt(root: unknown, keys: readonly string[]): unknown {
  let node = root;
  for (const key of keys) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * ajv's meta-validation errors as one message naming, for each place in the schema at fault, its
 * pointer, the keyword (the last key of the pointer) and the value given: ajv's own
 * (`data/properties/a/type must be equal to one of the allowed values`) names neither the value
 * nor what was allowed. The `anyOf`/`oneOf` summary beside more specific errors is left out.
 */
export function metaValidationMessage(errors: readonly ErrorObject[], schema: unknown): string {
  const byPath = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    const list = byPath.get(error.instancePath);
    if (list === undefined) byPath.set(error.instancePath, [error]);
    else list.push(error);
  }
  const places: string[] = [];
  for (const [path, list] of byPath) {
    if (places.length === META_PLACES_SHOWN) break;
    const specific = list.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
    const messages = (specific.length === 0 ? list : specific).map((e) => {
      const allowed = (e.params as { allowedValues?: unknown }).allowedValues;
      const suffix = Array.isArray(allowed) ? ` (${allowed.map((v) => JSON.stringify(v)).join(', ')})` : '';
      return `${e.message ?? 'is invalid'}${suffix}`;
    });
    const keys =
      path === ''
        ? []
        : path
            .slice(1)
            .split('/')
            .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const keyword = keys.at(-1);
    const told = quoteInput([...new Set(messages)].join(' or '));
    // An error about which keywords a schema object holds is told at the object, whose
    // message names them; any other is told at the keyword, with its value.
    if (keyword === undefined || list.every((e) => OBJECT_KEYWORDS.has(e.keyword))) {
      places.push(`the schema object at #${quoteInput(path)}: ${told}`);
    } else {
      places.push(
        `"${quoteInput(keyword)}" at #${quoteInput(path)} is ${describeValue(valueAt(schema, keys))}: ${told}`,
      );
    }
  }
  const more = byPath.size - places.length;
  return `${places.join('; ')}${more > 0 ? `; and ${more} more places` : ''}`;
}

type Equal = (a: unknown, b: unknown) => boolean;
// ajv's equality module is CommonJS: Node hands over `module.exports` ({ default }), a bundler may
// hand over the function itself.
const ajvEqual: Equal = (equalModule as unknown as { default?: Equal }).default ?? (equalModule as unknown as Equal);

/**
 * `enum`, `const` and `uniqueItems` compare with jsonEqual instead of ajv's own equality, which
 * calls a value's own `valueOf` or `toString` (json-equal.ts). ajv's keywords ask the instance's
 * scope for their equality function by the function itself; registering ours under that key
 * first makes every one of them, in compiled code and in standalone code alike, use ours.
 */
function useJsonEqual(ajv: Ajv): void {
  ajv.scope.value('func', { key: ajvEqual, ref: jsonEqual, code: _`require("@llmjson/core/ajv").jsonEqual` });
}

/** ajv's errors as SchemaErrors: at most MAX_SCHEMA_ERRORS, then the count of the rest (capSchemaErrors). */
function toSchemaErrors(errors: readonly ErrorObject[] | null | undefined): SchemaError[] {
  return capSchemaErrors(errors ?? [], (e) => ({
    path: e.instancePath,
    keyword: e.keyword,
    message: e.message ?? 'is invalid',
    schemaPath: e.schemaPath,
    params: e.params as Record<string, unknown>,
  }));
}

/** Whether the schema at `pointer` in `document` is a `oneOf`/`anyOf` that `findDispatch` dispatches (its branches read with the document's definitions). */
function dispatches(document: Readonly<Record<string, unknown>>, pointer: string): boolean {
  let node: unknown = document;
  for (const token of pointer.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  if (!isObject(node) || (node.oneOf === undefined && node.anyOf === undefined)) return false;
  const view = { ...node, definitions: document.definitions, $defs: document.$defs };
  return typeof findDispatch(view, undefined) !== 'string';
}

/**
 * `CompiledSchema.at` for a root registered in `ajv` under `rootId`: the part at a JSON pointer,
 * compiled by ajv in place (`getSchema("<root>#/pointer")`), so that its `$ref`s, nested `$id`
 * bases and dialect are the root's. One validator per pointer; a part ajv cannot compile alone
 * (a reference to a document that is not given) is undefined, never an exception.
 */
function partsOf(
  ajv: Ajv,
  rootId: string,
  schema: Readonly<Record<string, unknown>>,
  validateWhole: (value: unknown) => ValidationResult,
): (pointer: string) => CompiledSchema | undefined {
  const base = rootId.replace(/#.*$/, '');
  const parts = new Map<string, CompiledSchema | undefined>();
  return (pointer) => {
    if (pointer === '') return { validate: validateWhole };
    if (parts.has(pointer)) return parts.get(pointer);
    let part: CompiledSchema | undefined;
    // A part that dispatches (a discriminated `oneOf`) is left to the standalone sub-schema,
    // which compiles with dispatch and reports the branch, as the same schema at the root does.
    if (dispatches(schema, pointer)) {
      parts.set(pointer, undefined);
      return undefined;
    }
    try {
      const fragment = pointer
        .split('/')
        .map((token) => encodeURIComponent(token))
        .join('/');
      const compiled = ajv.getSchema(`${base}#${fragment}`);
      if (compiled !== undefined) {
        part = {
          validate: (value) => {
            try {
              if (compiled(value)) return VALID;
            } catch (error) {
              return tooDeep(error);
            }
            const errors = toSchemaErrors(compiled.errors);
            return { valid: false, errors, message: formatSchemaErrors(errors) };
          },
        };
      }
    } catch {
      part = undefined;
    }
    parts.set(pointer, part);
    return part;
  };
}

/**
 * Runs `compile`, turning whatever ajv throws into a ConfigurationError about `what`. With
 * `meta`, a failed meta-validation of `meta.schema` is told by `metaValidationMessage`.
 */
export function configurationErrors<T>(
  what: string,
  compile: () => T,
  meta?: { readonly ajv: Ajv; readonly schema: unknown },
): T {
  try {
    return compile();
  } catch (cause) {
    if (cause instanceof ConfigurationError) throw cause;
    const metaErrors = meta?.ajv.errors;
    if (
      meta !== undefined &&
      cause instanceof Error &&
      cause.message.startsWith('schema is invalid:') &&
      Array.isArray(metaErrors) &&
      metaErrors.length > 0
    ) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        `invalid ${what}, by its dialect's meta-schema: ${metaValidationMessage(metaErrors, meta.schema)}`,
        { cause },
      );
    }
    // ajv compiles (and meta-validates) by recursion: a deep enough schema ends here.
    const detail = isStackOverflow(cause)
      ? 'nested too deeply to compile (stack overflow)'
      : quoteInput(cause instanceof Error ? cause.message : String(cause));
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, `invalid ${what}: ${detail}`, { cause });
  }
}

function compileWith(ajv: Ajv, schema: AnySchema, what: string): ValidateFunction {
  return configurationErrors(what, () => ajv.compile(schema));
}

function compileUncached(schema: JsonSchema, options: CompileOptions): CompiledSchema {
  if (typeof schema !== 'boolean' && !isObject(schema)) {
    throw new ConfigurationError(ConfigurationErrorCode.schemaInvalid, 'a schema must be an object or a boolean');
  }
  const setup = ajvFor(schema);
  const { ajv, draft07, dialect } = setup;
  // The root is registered under its own id (`$id`, draft-04's `id`) or a private one, so that
  // the discriminated branches below can be compiled as references into it without registering
  // it twice.
  const ownId = schemaId(schema, dialect);
  const rootId = ownId ?? 'llmjson:root';
  let whole: ValidateFunction;
  if (typeof schema === 'boolean') {
    whole = compileWith(ajv, schema, 'schema');
  } else {
    // A self-applying schema recurses forever on its first value; ajv compiles most of them
    // without complaint and overflows the stack on the others (a ring of bare `$ref`s), so
    // the cycle is looked for first, to be named.
    rejectReferenceCycles(schema, rootId.replace(/#\/?$/, ''), draft07, ajv);
    whole = configurationErrors(
      'schema',
      () => {
        ajv.addSchema(ownId !== undefined ? schema : { ...schema, [dialect.idKeyword]: rootId });
        const compiled = ajv.getSchema(rootId);
        if (compiled === undefined) throw new Error(`schema ${quoteInput(rootId)} could not be compiled`);
        return compiled;
      },
      { ajv, schema },
    );
  }
  // Everything the whole schema holds has been compiled: what ajv noticed is known. The branches
  // compiled below are parts of it and would only repeat it.
  const warnings = typeof schema === 'boolean' ? setup.warnings() : withReferenceWarnings(setup.warnings(), schema);
  const validateWhole = (value: unknown): ValidationResult => {
    try {
      if (whole(value)) return VALID;
    } catch (error) {
      return tooDeep(error);
    }
    const errors = toSchemaErrors(whole.errors);
    return { valid: false, errors, message: formatSchemaErrors(errors) };
  };
  const at = typeof schema === 'boolean' ? undefined : partsOf(ajv, rootId, schema, validateWhole);
  if (options.discriminator === false || typeof schema === 'boolean') {
    if (typeof options.discriminator === 'string') {
      throw new ConfigurationError(
        ConfigurationErrorCode.discriminatorInvalid,
        `discriminator "${quoteInput(options.discriminator)}" cannot apply to a boolean schema`,
      );
    }
    return at === undefined ? { validate: validateWhole, warnings } : { validate: validateWhole, warnings, at };
  }
  const dispatch = findDispatch(schema, options.discriminator);
  if (typeof dispatch === 'string') {
    if (options.discriminator !== undefined) {
      throw new ConfigurationError(
        ConfigurationErrorCode.discriminatorInvalid,
        `discriminator "${quoteInput(options.discriminator)}" cannot be used: ${dispatch}`,
      );
    }
    return at === undefined ? { validate: validateWhole, warnings } : { validate: validateWhole, warnings, at };
  }

  // The branches are compiled by reference into the root, so local $refs, $defs and the
  // root's $id keep their meaning; the root's other keywords are validated separately.
  const rest: Record<string, unknown> = { ...schema };
  delete rest[dispatch.keyword];
  delete rest[dialect.idKeyword];
  const hasOtherConstraints = Object.keys(rest).some(
    (k) => !['$schema', '$defs', 'definitions', 'title', 'description', '$comment', 'examples'].includes(k),
  );
  const base = hasOtherConstraints ? compileWith(ajv, rest, 'schema') : undefined;
  const validators = dispatch.constants.map((_, i) => {
    // The branch compiled in place (a JSON pointer into the registered root), not through a
    // `$ref` wrapper, so that validating it costs what validating it directly costs.
    // The root's URI without its fragment: an `$id` written with a trailing `#` names the same.
    const pointer = `${rootId.replace(/#.*$/, '')}#/${dispatch.keyword}/${i}`;
    return configurationErrors(`${dispatch.keyword} branch ${i}`, () => {
      const compiled = ajv.getSchema(pointer);
      if (compiled === undefined) throw new Error(`${quoteInput(pointer)} could not be compiled`);
      return compiled;
    });
  });
  const names = dispatch.constants.map(String);
  // Shared results for valid values: the hot path allocates nothing (a try/catch costs nothing in V8).
  const validResults: ValidationResult[] = names.map((branch) => Object.freeze({ valid: true, branch }));
  const count = names.length;
  const select = buildSelector(dispatch.property, dispatch.constants, validators);
  const property = dispatch.property;

  const validate = (value: unknown): ValidationResult => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return dispatchFailure(value, dispatch);
    let code: number;
    let baseValid = true;
    try {
      code = select(value as Record<string, unknown>);
      if (code !== 2 * count && base !== undefined) baseValid = base(value);
    } catch (error) {
      return tooDeep(error);
    }
    if (code === 2 * count) return dispatchFailure(value, dispatch);
    const i = code % count;
    const branch = names[i] as string;
    if (base !== undefined && !baseValid) {
      const errors = toSchemaErrors(base.errors);
      return { valid: false, branch, errors, message: formatSchemaErrors(errors) };
    }
    if (code < count) return validResults[i] as ValidationResult;
    const errors = toSchemaErrors(validators[i]?.errors);
    return { valid: false, branch, errors, message: `branch "${quoteInput(branch)}": ${formatSchemaErrors(errors)}` };
  };
  return {
    validate,
    warnings,
    discriminator: property,
    branches: dispatch.constants.map(String),
    ...(at === undefined ? {} : { at }),
  };
}

/**
 * Builds `select(value)`, which validates `value` against the branch its discriminator names:
 * it returns `i` when branch `i` accepts, `count + i` when branch `i` rejects, and `2 * count`
 * when no branch is named. The selector is generated as a `switch` with one call site per
 * branch, as a hand-written dispatcher would be, so each call site stays monomorphic and
 * dispatch costs what validating the named branch directly costs (a map lookup and one shared
 * call site measured about twice the validation time). ajv generates its validators the same
 * way, so this adds no new requirement on the runtime.
 */
function buildSelector(
  property: string,
  constants: readonly Constant[],
  validators: readonly ValidateFunction[],
): (value: Record<string, unknown>) => number {
  const count = constants.length;
  const parameters = validators.map((_, i) => `v${i}`);
  // JSON.stringify yields valid JavaScript literals for strings, numbers and booleans.
  const cases = constants
    .map((constant, i) => `case ${JSON.stringify(constant)}: return v${i}(value) ? ${i} : ${count + i};`)
    .join('\n');
  const body = `return function select(value) {\nswitch (value[${JSON.stringify(property)}]) {\n${cases}\n}\nreturn ${2 * count};\n};`;
  return new Function(...parameters, body)(...validators) as (value: Record<string, unknown>) => number;
}

const cache = new WeakMap<object, Map<string, CompiledSchema>>();
const booleanSchemas = new Map<string, CompiledSchema>();

/**
 * Compiles `schema` once per content: later calls with the same object, or with a new object of
 * the same content (parsed again, spread from a base), reuse the validator, which is compiled
 * from and cached on the content's private frozen representative (schema-intern.ts).
 */
export function compileSchema(schema: JsonSchema, options: CompileOptions = {}): CompiledSchema {
  const key = options.discriminator === undefined ? '' : JSON.stringify(options.discriminator);
  if (typeof schema === 'boolean') {
    const k = `${schema}:${key}`;
    let compiled = booleanSchemas.get(k);
    if (compiled === undefined) {
      compiled = compileUncached(schema, options);
      booleanSchemas.set(k, compiled);
    }
    return compiled;
  }
  if (!isObject(schema)) return compileUncached(schema, options);
  const representative = internSchema(schema);
  return compiledOnce(cache, representative, key, () => compileUncached(representative, options));
}
