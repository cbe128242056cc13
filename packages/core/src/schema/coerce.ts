/**
 * Schema-guided coercion (opt-in, `coerce`): repairs what the schema makes unambiguous in a
 * value the schema rejects, and says what it repaired.
 *
 * Contract: `coerceToSchema(value, schema, rules, compiled)` returns `undefined` unless it can
 * change `value` into one that `compiled` (the real validator: ajv, or the vendor of a
 * Standard Schema) accepts; otherwise the coerced copy, the `branch` the validator reports and
 * one `CoercionFix` per repair (`rule`, JSON Pointer `path`, one-line `message`). The JSON
 * Schema (`schema`: the schema itself, or a Standard Schema's export) only guides where to
 * look; validity is always decided by `compiled`. `withCoercion(compiled, schema, rules)`
 * wraps a validator so that a value it rejects is coerced and validated again: a result that
 * is valid after coercion carries `value` (the coerced copy) and `fixes`.
 *
 * Rules (each one applies only where the part of the value is invalid as it stands: its JSON
 * type, `enum` or `const` does not match, or a required property is missing; a valid value is
 * never touched, and the whole value is returned only if the validator then accepts it):
 * - `string-to-number`: a string that is exactly a JSON number (`"5"`, `"-1.5e3"`, `"1.0"`,
 *   `"1e2"`, `"-0"`) where a number (or an integer, or an `enum`/`const` holding that number)
 *   is required, and only when the number reads back as the number the string wrote: the
 *   shortest decimal of the double (`String(n)`) has the same decimal value as the string
 *   (`exactNumber`). Not coerced, and said so in the `schema` diagnostic's message: a string
 *   with more significant digits than a double keeps (`"9007199254740993"` would read as
 *   9007199254740992, `"0.30000000000000001"` as 0.3), one beyond the double range
 *   (`"1e999"`) and one that would underflow to 0 (`"1e-400"`). Not numbers at all, so never
 *   coerced: surrounding spaces (`" 12 "`), a `+`, trailing text (`"12abc"`), hex
 *   (`"0x10"`), `"1."`, `".5"`, `NaN` and `Infinity`.
 * - `float-to-integer`: such a string written with a fraction or exponent (`"5.0"`, `"5e0"`)
 *   whose value is an integer, where only an integer is allowed; it needs `string-to-number`
 *   too. A JSON number `5.0` needs nothing: `JSON.parse` gives 5, an integer to every validator.
 * - `string-to-boolean`: exactly `"true"` or `"false"` where a boolean is required.
 * - `enum-case`: a string that differs from exactly one allowed `enum`/`const` string only in
 *   letter case or surrounding whitespace; never when two allowed values would match.
 * - `single-to-array`: a value that is not an array where `type` requires one becomes
 *   `[value]`, only when the value (after its own coercions) fits the array's `items`.
 * - `default`: a missing *required* property whose schema has a `default` gets a copy of it.
 *   Optional properties are never filled: their absence makes nothing invalid.
 * - `null-to-absent`: `null` for an optional (not required) property whose schema refuses
 *   `null` is removed.
 *
 * Unions: a discriminated root (`findDispatch`) is coerced inside the branch its discriminator
 * names; when the discriminator itself names no branch, it may be repaired (`enum-case`, or
 * `string-to-number` for a numeric constant) only if exactly one branch then matches, and
 * that fix says which branch it chose. Any other `anyOf`/`oneOf` is coerced branch by branch
 * and a result is kept only when exactly one branch becomes valid (at the root: by the real
 * validator; inside the value: by a structural check of `type`, `enum`, `const`, `required`,
 * `properties`, `items` that every valid value passes), and the fixes name that branch. Two
 * branches that both become valid: nothing is coerced (never a silent choice).
 *
 * Refusals: where a rule finds the string it would coerce but the coercion would change what
 * the string says (the lossy numbers above), nothing is coerced there, and the validator's
 * invalid result comes back with the reason appended to its message (`; not coerced: …`).
 * The other rules cannot lose anything: `string-to-boolean` takes exactly `"true"`/`"false"`,
 * `enum-case` only lands on a value the schema lists (and says which), `default` copies the
 * schema's own JSON (a default JSON cannot hold, such as NaN in a schema written in code, is
 * not filled), `null-to-absent` removes only a `null`; none converts a number to a string.
 *
 * Invariants: the input is never mutated (changed objects and arrays are copied on write; keys
 * are set as own properties, so `__proto__` is data); parts nested deeper than
 * MAX_COERCION_DEPTH levels are left as they are (recursion is bounded); the result depends on
 * the value and schema only, so chunking cannot change it.
 */

import { ConfigurationError } from '../diagnostics/configuration-error.js';
import { quoteInput } from '../diagnostics/diagnostics.js';
import { type CoercionFix, CoercionRule } from './coercion-rules.js';
import { escapePointer, isObject, pointerKeys, type SchemaObject, walkKeys } from './json-pointer.js';
import {
  type CompiledSchema,
  type Constant,
  type Dispatch,
  findDispatch,
  type JsonSchema,
  type ValidationResult,
} from './schema-validator.js';
import { resolveLocalAt } from './sub-schemas.js';

export interface CoercionResult {
  /** The coerced copy (the input is never changed). */
  readonly value: unknown;
  readonly fixes: readonly CoercionFix[];
  /** The discriminator branch the validator reported for the coerced value. */
  readonly branch?: string;
}

/** Parts of a value nested deeper than this are left as they are. */
export const MAX_COERCION_DEPTH = 256;

const validWithFixes = new WeakMap<CompiledSchema, Map<string, CompiledSchema>>();

/**
 * `compiled`, with coercion: a value it rejects is coerced under `schema` (a JSON Schema: the
 * schema `compiled` was made from, or a Standard Schema's export) and validated again; if the
 * copy is valid the result is `{ valid: true, branch?, value, fixes }`, else the first result.
 * Cached per validator and set of rules.
 */
export function withCoercion(
  compiled: CompiledSchema,
  schema: JsonSchema,
  rules: ReadonlySet<CoercionRule>,
): CompiledSchema {
  const key = [...rules].sort().join(',');
  let perValidator = validWithFixes.get(compiled);
  if (perValidator === undefined) {
    perValidator = new Map();
    validWithFixes.set(compiled, perValidator);
  }
  let wrapped = perValidator.get(key);
  if (wrapped === undefined) {
    const coercer = new Coercer(schema, rules, compiled);
    const validate = (value: unknown): ValidationResult => {
      const result = compiled.validate(value);
      if (result.valid) return result;
      let coerced: CoercionResult | undefined;
      const refusals = new Set<string>();
      try {
        coerced = coercer.coerce(value, refusals);
      } catch (error) {
        // A broken configuration (an async Standard Schema) is the caller's; anything else
        // means no coercion, and the validator's verdict stands.
        if (error instanceof ConfigurationError) throw error;
        return result;
      }
      if (coerced === undefined) return refusals.size === 0 ? result : withRefusals(result, refusals);
      return {
        valid: true,
        ...(coerced.branch === undefined ? {} : { branch: coerced.branch }),
        value: coerced.value,
        fixes: coerced.fixes,
      };
    };
    wrapped = {
      validate,
      ...(compiled.discriminator === undefined ? {} : { discriminator: compiled.discriminator }),
      ...(compiled.branches === undefined ? {} : { branches: compiled.branches }),
    };
    perValidator.set(key, wrapped);
  }
  return wrapped;
}

/** Most refusals one message lists; the rest are counted. */
const MAX_REFUSALS_SHOWN = 3;

/** The invalid `result` with why nothing was coerced appended to its message. */
function withRefusals(result: ValidationResult, refusals: ReadonlySet<string>): ValidationResult {
  if (result.valid) return result;
  const listed = [...refusals];
  const more = listed.length > MAX_REFUSALS_SHOWN ? `; and ${listed.length - MAX_REFUSALS_SHOWN} more` : '';
  return { ...result, message: `${result.message}; ${listed.slice(0, MAX_REFUSALS_SHOWN).join('; ')}${more}` };
}

/**
 * The number a JSON number string denotes, when a double holds it: `String(n)` (the shortest
 * decimal that reads back as n) has the same decimal value as `text`. Otherwise why not: beyond
 * the double range, too small (it would read as 0), or more digits than a double keeps.
 * `text` must match JSON_NUMBER.
 */
function exactNumber(text: string): number | string {
  const number = Number(text);
  if (!Number.isFinite(number)) return `it is beyond the range of a number (it would read as ${number})`;
  const key = decimalKey(text);
  if (key === decimalKey(String(number))) return number;
  if (number === 0) return 'it is too small for a number (it would read as 0)';
  return `it has more significant digits than a number keeps (it would read back as ${quoteInput(String(number), 40)})`;
}

/**
 * A JSON number string's decimal value, normalised: sign, significant digits, exponent
 * (`"-1.50e2"` and `"-150"` both give `-15e1`; every zero gives `0`). Loops, not regular
 * expressions, so that a long run of zeros costs linear time.
 */
function decimalKey(text: string): string {
  let i = 0;
  const negative = text.charCodeAt(0) === 45; // '-'
  if (negative) i++;
  let digits = '';
  let point = -1;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46)
      point = digits.length; // '.'
    else if (c >= 48 && c <= 57) digits += text[i];
    else break;
  }
  const fraction = point < 0 ? 0 : digits.length - point;
  // After the digits: nothing, or e/E and a signed exponent (JSON_NUMBER has checked the form).
  let exponent = i < text.length ? BigInt(text.slice(i + 1)) : 0n;
  exponent -= BigInt(fraction);
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 48) start++;
  if (start === digits.length) return '0';
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  exponent += BigInt(digits.length - end);
  return `${negative ? '-' : ''}${digits.slice(start, end)}e${exponent}`;
}

/** Whether `node` asks for a number: its `type`, or a number among its `enum`/`const` values. */
function wantsNumber(node: SchemaObject): boolean {
  if (typeAllows(node.type, 'number') || typeAllows(node.type, 'integer')) return true;
  const allowed = allowedValues(node);
  return allowed?.some((a) => typeof a === 'number') === true;
}

/**
 * Coerces `value` (which `compiled` rejects) under `schema` with `rules`: the coerced copy and
 * its fixes when `compiled` accepts it, else `undefined`. See the file's contract.
 */
export function coerceToSchema(
  value: unknown,
  schema: JsonSchema,
  rules: ReadonlySet<CoercionRule>,
  compiled: CompiledSchema,
): CoercionResult | undefined {
  return new Coercer(schema, rules, compiled).coerce(value);
}

// The guide: where in the JSON Schema to look ---------------------------------------------

interface Guide {
  /** The document `$ref`s resolve in. */
  readonly root: SchemaObject;
  /** The schema of the value, inside `root`. */
  readonly node: unknown;
}

/**
 * `schema` as a guide. A sub-schema made standalone by `elementSchemaAt` may be a `$ref` into
 * the whole document embedded under `definitions.document` (a recursive schema): the guide is
 * then that document and the node the reference names.
 */
function guideOf(schema: JsonSchema): Guide | undefined {
  if (!isObject(schema)) return undefined;
  const ref = schema.$ref;
  const definitions = schema.definitions;
  const embedded = isObject(definitions) ? definitions.document : undefined;
  if (typeof ref === 'string' && !ref.startsWith('#') && isObject(embedded) && typeof embedded.$id === 'string') {
    const hash = ref.indexOf('#');
    if (hash >= 0 && ref.slice(0, hash) === embedded.$id) {
      const fragment = ref.slice(hash + 1);
      const keys = fragment === '' ? [] : pointerKeys(fragment);
      const node = keys === undefined ? undefined : walkKeys(embedded, keys);
      if (node !== undefined) return { root: embedded, node };
    }
  }
  return { root: schema, node: schema };
}

// Values -------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets `key` as an own data property (so that `__proto__` stays data). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Equality of JSON values, as `enum` and `const` compare. */
function jsonEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > MAX_COERCION_DEPTH) {
    return false;
  }
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i], depth + 1));
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1),
    )
  );
}

function typeFits(value: unknown, type: unknown): boolean {
  if (Array.isArray(type)) return type.some((t) => typeFits(value, t));
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    default:
      return true; // not a type this check knows: leave it to the validator
  }
}

function typeAllows(type: unknown, name: string): boolean {
  return type === name || (Array.isArray(type) && type.includes(name));
}

/** The node's own `type`, `const` and `enum` accept `value` (nothing below it is checked). */
function localFits(value: unknown, node: SchemaObject): boolean {
  if (node.type !== undefined && !typeFits(value, node.type)) return false;
  if (Object.hasOwn(node, 'const') && !jsonEqual(value, node.const)) return false;
  if (Array.isArray(node.enum) && !node.enum.some((e) => jsonEqual(value, e))) return false;
  return true;
}

/** A JSON number exactly as JSON writes it: no spaces, no `+`, no hex, no `NaN`/`Infinity`. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** How a message shows a value: as JSON, bounded; a container longer than 40 characters by its kind. */
function show(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  if (typeof value === 'object' && value !== null && json.length > 40) {
    return Array.isArray(value) ? 'an array' : 'an object';
  }
  return quoteInput(json, 80);
}

function at(path: string): string {
  return path === '' ? '/' : quoteInput(path);
}

/** Allowed values for `enum-case`: the node's `const`, or its `enum`. */
function allowedValues(node: SchemaObject): readonly unknown[] | undefined {
  if (Object.hasOwn(node, 'const')) return [node.const];
  return Array.isArray(node.enum) ? node.enum : undefined;
}

function caseKey(text: string): string {
  return text.trim().toLowerCase();
}

// The walk -----------------------------------------------------------------------------------

class Coercer {
  readonly #guide: Guide | undefined;
  readonly #rules: ReadonlySet<CoercionRule>;
  readonly #compiled: CompiledSchema;
  readonly #dispatch: Dispatch | undefined;

  constructor(schema: JsonSchema, rules: ReadonlySet<CoercionRule>, compiled: CompiledSchema) {
    this.#guide = guideOf(schema);
    this.#rules = rules;
    this.#compiled = compiled;
    const root = this.#guide === undefined ? undefined : this.#resolve(this.#guide.node);
    let dispatch: Dispatch | undefined;
    if (compiled.discriminator !== undefined && isObject(root)) {
      const found = findDispatch(root, compiled.discriminator);
      if (typeof found !== 'string') dispatch = found;
    }
    this.#dispatch = dispatch;
  }

  /** Where the walks of the current `coerce` call record what they refused to coerce, and why. */
  refusals: Set<string> | undefined;

  coerce(value: unknown, refusals?: Set<string>): CoercionResult | undefined {
    this.refusals = refusals;
    try {
      return this.#coerce(value);
    } finally {
      this.refusals = undefined;
    }
  }

  #coerce(value: unknown): CoercionResult | undefined {
    const guide = this.#guide;
    if (guide === undefined) return undefined;
    const root = this.#resolve(guide.node);
    if (!isObject(root)) return undefined;
    const keyword = Array.isArray(root.oneOf) ? 'oneOf' : Array.isArray(root.anyOf) ? 'anyOf' : undefined;
    if (keyword === undefined) {
      const walk = new Walk(this);
      return this.#accept({ value: walk.coerce(value, root, '', 0), fixes: walk.fixes });
    }
    // A root union: try each branch (with the root's other keywords) and keep the one that the
    // validator accepts, only when there is exactly one.
    const rest: Record<string, unknown> = { ...root };
    delete rest.oneOf;
    delete rest.anyOf;
    const branches = root[keyword] as readonly unknown[];
    const dispatch = this.#dispatch;
    if (dispatch !== undefined && isPlainObject(value)) {
      const tag = Object.hasOwn(value, dispatch.property) ? value[dispatch.property] : undefined;
      const named = dispatch.constants.indexOf(tag as Constant);
      if (named >= 0) return this.#accept(this.#branch(value, branches[named], rest, keyword, named));
    }
    let chosen: CoercionResult | undefined;
    for (let i = 0; i < branches.length; i++) {
      const attempt = this.#branch(value, branches[i], rest, keyword, i);
      if (attempt.fixes.length === 0) continue;
      // With a discriminator, a branch counts only if its constant is what the value now names.
      if (
        dispatch !== undefined &&
        !(isPlainObject(attempt.value) && attempt.value[dispatch.property] === dispatch.constants[i])
      ) {
        continue;
      }
      // The result must be this branch's: one that only another branch accepts is not a choice of this one.
      if (!this.fits(attempt.value, branches[i], 0)) continue;
      const accepted = this.#accept(attempt);
      if (accepted === undefined) continue;
      if (chosen !== undefined) return undefined; // two branches: ambiguous, choose none
      chosen = accepted;
    }
    return chosen;
  }

  /** Coerces `value` under one root branch plus the root's other keywords; fixes name the branch. */
  #branch(value: unknown, branch: unknown, rest: SchemaObject, keyword: string, index: number): Attempt {
    const walk = new Walk(this);
    const out = walk.coerce(walk.coerce(value, branch, '', 0), rest, '', 0);
    const dispatch = this.#dispatch;
    const name =
      dispatch === undefined
        ? `${keyword} branch ${index}`
        : `branch "${quoteInput(String(dispatch.constants[index]))}"`;
    const fixes = walk.fixes.map((fix) =>
      dispatch !== undefined && fix.path === `/${escapePointer(dispatch.property)}`
        ? { ...fix, message: `${fix.message}: chose ${name}` }
        : dispatch !== undefined
          ? fix
          : { ...fix, message: `${fix.message} in ${name}` },
    );
    return { value: out, fixes };
  }

  /** The result when the validator accepts the coerced value (and something was fixed). */
  #accept(attempt: Attempt): CoercionResult | undefined {
    if (attempt.fixes.length === 0) return undefined;
    const result = this.#compiled.validate(attempt.value);
    if (!result.valid) return undefined;
    return result.branch === undefined ? attempt : { ...attempt, branch: result.branch };
  }

  get rules(): ReadonlySet<CoercionRule> {
    return this.#rules;
  }

  #resolve(node: unknown): unknown {
    const root = this.#guide?.root;
    return root === undefined ? node : resolveLocalAt(root, node, [])[0];
  }

  resolve(node: unknown): unknown {
    return this.#resolve(node);
  }

  /**
   * Whether `value` can be valid under `node`: a necessary condition (every value the schema
   * accepts passes), from `type`, `const`, `enum`, `required`, `properties`,
   * `additionalProperties`, `prefixItems`/`items` and the combinators.
   */
  fits(value: unknown, schema: unknown, depth: number): boolean {
    const node = this.#resolve(schema);
    if (node === false) return false;
    if (!isObject(node) || depth > MAX_COERCION_DEPTH) return true;
    if (!localFits(value, node)) return false;
    if (Array.isArray(node.allOf) && !node.allOf.every((s) => this.fits(value, s, depth + 1))) return false;
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = node[keyword];
      if (Array.isArray(branches) && !branches.some((s) => this.fits(value, s, depth + 1))) return false;
    }
    if (isPlainObject(value)) {
      if (
        Array.isArray(node.required) &&
        !node.required.every((k) => typeof k !== 'string' || Object.hasOwn(value, k))
      ) {
        return false;
      }
      const properties = isObject(node.properties) ? node.properties : undefined;
      const additional = node.patternProperties === undefined ? node.additionalProperties : undefined;
      for (const key of Object.keys(value)) {
        const sub = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : additional;
        if (sub !== undefined && !this.fits(value[key], sub, depth + 1)) return false;
      }
    } else if (Array.isArray(value)) {
      const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
      const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
      for (let i = 0; i < value.length; i++) {
        const sub = i < prefix.length ? prefix[i] : rest;
        if (sub !== undefined && !this.fits(value[i], sub, depth + 1)) return false;
      }
    }
    return true;
  }
}

/** A coerced value and the fixes that made it. */
interface Attempt {
  readonly value: unknown;
  readonly fixes: readonly CoercionFix[];
}

/** One coercion attempt: collects the fixes it makes; values are copied on write. */
class Walk {
  readonly fixes: CoercionFix[] = [];
  readonly #coercer: Coercer;

  constructor(coercer: Coercer) {
    this.#coercer = coercer;
  }

  #fix(rule: CoercionRule, path: string, message: string): void {
    this.fixes.push({ rule, path, message: `${message} at ${at(path)} (${rule})` });
  }

  #has(rule: CoercionRule): boolean {
    return this.#coercer.rules.has(rule);
  }

  /**
   * `value` coerced under `schema` at `path`: the same object when nothing changed. `wrap`
   * false: this value is the element of a `single-to-array` wrap, and is not wrapped again
   * (`"5"` must not become `[[5]]`, and a recursive schema must not wrap without end).
   */
  coerce(value: unknown, schema: unknown, path: string, depth: number, wrap = true): unknown {
    const node = this.#coercer.resolve(schema);
    if (!isObject(node) || depth > MAX_COERCION_DEPTH) return value;
    let out = value;
    if (Array.isArray(node.allOf)) {
      for (const sub of node.allOf) out = this.coerce(out, sub, path, depth + 1, wrap);
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = node[keyword];
      if (Array.isArray(branches)) out = this.#union(out, branches, keyword, path, depth, wrap);
    }
    if (!localFits(out, node)) {
      const scalar = this.#scalar(out, node, path, depth, wrap);
      // A value just wrapped in an array was coerced as its element already.
      if (scalar !== out && Array.isArray(scalar) && !Array.isArray(out)) return scalar;
      out = scalar;
    }
    if (isPlainObject(out)) return this.#object(out, node, path, depth);
    if (Array.isArray(out)) return this.#array(out, node, path, depth);
    return out;
  }

  /**
   * A union inside the value: left alone when some branch may already accept it; else each
   * branch is tried, and a result kept only when exactly one branch's result may be valid.
   */
  #union(
    value: unknown,
    branches: readonly unknown[],
    keyword: string,
    path: string,
    depth: number,
    wrap: boolean,
  ): unknown {
    const coercer = this.#coercer;
    if (branches.some((b) => coercer.fits(value, b, depth + 1))) return value;
    let chosen: { value: unknown; fixes: CoercionFix[]; index: number } | undefined;
    for (let i = 0; i < branches.length; i++) {
      const walk = new Walk(coercer);
      const attempt = walk.coerce(value, branches[i], path, depth + 1, wrap);
      if (walk.fixes.length === 0 || !coercer.fits(attempt, branches[i], depth + 1)) continue;
      if (chosen !== undefined) return value; // two branches: ambiguous
      chosen = { value: attempt, fixes: walk.fixes, index: i };
    }
    if (chosen === undefined) return value;
    const index = chosen.index;
    for (const fix of chosen.fixes)
      this.fixes.push({ ...fix, message: `${fix.message} in ${keyword} branch ${index}` });
    return chosen.value;
  }

  /** A scalar (or a non-array for an array) that the node's `type`, `enum` or `const` rejects. */
  #scalar(value: unknown, node: SchemaObject, path: string, depth: number, wrap: boolean): unknown {
    if (typeof value === 'string') {
      const allowed = allowedValues(node);
      if (allowed !== undefined && this.#has(CoercionRule.enumCase)) {
        const key = caseKey(value);
        const matches = allowed.filter((a) => typeof a === 'string' && caseKey(a) === key);
        const match = matches[0];
        if (matches.length === 1 && localFits(match, node)) {
          this.#fix(CoercionRule.enumCase, path, `coerced ${show(value)} to ${show(match)}`);
          return match;
        }
      }
      if (this.#has(CoercionRule.stringToNumber) && JSON_NUMBER.test(value)) {
        const number = exactNumber(value);
        if (typeof number === 'string') {
          // The string is a number, but not one a double holds: coercing would change it.
          if (wantsNumber(node)) {
            this.#coercer.refusals?.add(
              `not coerced: ${show(value)} at ${at(path)} is not exactly a number, ${number} (${CoercionRule.stringToNumber})`,
            );
          }
        } else if (localFits(number, node)) {
          // Written with a fraction or exponent, where only an integer is allowed.
          const float =
            /[.eE]/.test(value) &&
            node.type !== undefined &&
            typeAllows(node.type, 'integer') &&
            !typeAllows(node.type, 'number');
          if (!float) {
            this.#fix(CoercionRule.stringToNumber, path, `coerced ${show(value)} to ${show(number)}`);
            return number;
          }
          if (this.#has(CoercionRule.floatToInteger)) {
            this.#fix(CoercionRule.floatToInteger, path, `coerced ${show(value)} to the integer ${show(number)}`);
            return number;
          }
        }
      }
      if (this.#has(CoercionRule.stringToBoolean) && (value === 'true' || value === 'false')) {
        const bool = value === 'true';
        if (localFits(bool, node)) {
          this.#fix(CoercionRule.stringToBoolean, path, `coerced ${show(value)} to ${show(bool)}`);
          return bool;
        }
      }
    }
    if (wrap && !Array.isArray(value) && this.#has(CoercionRule.singleToArray) && typeAllows(node.type, 'array')) {
      const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
      const items = prefix.length > 0 ? prefix[0] : Array.isArray(node.items) ? node.additionalItems : node.items;
      const walk = new Walk(this.#coercer);
      const element = items === undefined ? value : walk.coerce(value, items, `${path}/0`, depth + 1, false);
      const wrapped = [element];
      if ((items === undefined || this.#coercer.fits(element, items, depth + 1)) && localFits(wrapped, node)) {
        this.#fix(CoercionRule.singleToArray, path, `wrapped ${show(value)} in an array`);
        this.fixes.push(...walk.fixes);
        return wrapped;
      }
    }
    return value;
  }

  #object(value: Record<string, unknown>, node: SchemaObject, path: string, depth: number): unknown {
    const properties = isObject(node.properties) ? node.properties : undefined;
    const required = Array.isArray(node.required) ? node.required.filter((k) => typeof k === 'string') : [];
    const additional = isObject(node.additionalProperties) ? node.additionalProperties : undefined;
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      let sub: unknown;
      if (properties !== undefined && Object.hasOwn(properties, key)) sub = properties[key];
      else if (node.patternProperties === undefined && additional !== undefined) sub = additional;
      else continue;
      const child = value[key];
      const childPath = `${path}/${escapePointer(key)}`;
      if (
        child === null &&
        this.#has(CoercionRule.nullToAbsent) &&
        !required.includes(key) &&
        !this.#coercer.fits(null, sub, depth + 1)
      ) {
        out ??= { ...value };
        delete out[key];
        this.#fix(CoercionRule.nullToAbsent, childPath, 'removed null from the optional property');
        continue;
      }
      const coerced = this.coerce(child, sub, childPath, depth + 1);
      if (coerced !== child) {
        out ??= { ...value };
        setOwn(out, key, coerced);
      }
    }
    if (properties !== undefined && this.#has(CoercionRule.default)) {
      for (const key of required) {
        if (Object.hasOwn(value, key) || !Object.hasOwn(properties, key)) continue;
        const sub = this.#coercer.resolve(properties[key]);
        if (!isObject(sub) || !Object.hasOwn(sub, 'default') || sub.default === undefined) continue;
        const copy: unknown = JSON.parse(JSON.stringify(sub.default) ?? 'null');
        // A default JSON cannot hold (a schema written in code: NaN, a Date, undefined inside)
        // would be filled changed: none is filled.
        if (!jsonEqual(copy, sub.default)) continue;
        out ??= { ...value };
        setOwn(out, key, copy);
        this.#fix(
          CoercionRule.default,
          `${path}/${escapePointer(key)}`,
          `filled the missing required property with its default ${show(copy)}`,
        );
      }
    }
    return out ?? value;
  }

  #array(value: readonly unknown[], node: SchemaObject, path: string, depth: number): unknown {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
    const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const sub = i < prefix.length ? prefix[i] : rest;
      if (sub === undefined) continue;
      const child = value[i];
      const coerced = this.coerce(child, sub, `${path}/${i}`, depth + 1);
      if (coerced !== child) {
        out ??= value.slice();
        out[i] = coerced;
      }
    }
    return out ?? value;
  }
}
