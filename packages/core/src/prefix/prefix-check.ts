/**
 * Prefix validation: while one JSON value streams in, a `violation` the moment its prefix proves
 * that no completion can match the schema (docs/decisions, "stream-time validation").
 *
 * Contract: a `PrefixChecker` is driven by the partial builder's own structural events — a value
 * starts (with its first character), a key closes, string text is appended, a scalar or string
 * completes, a container closes — and calls `report` once per violation, with the offset where
 * it became certain. It keeps no text: per open container a small frame, per open string a few
 * counters and the allowed constants still matching.
 *
 * Invariants:
 * 1. Never early: a violation is reported only when every completion of the prefix breaks the
 *    schema (the value after `JSON.parse`, as the validator sees it; duplicate keys aside, where
 *    the parsed value keeps the last member only). Whatever is not modelled (`pattern`, `format`,
 *    `not`, `if`, `dependentSchemas`, `patternProperties`, a `oneOf`/`anyOf` without a
 *    discriminator, a remote `$ref`…) checks nothing here: the complete-value check covers it.
 * 2. Once: after a violation at a value, nothing inside that value is checked again.
 * 3. Chunking does not matter: decisions and offsets depend on the text only.
 * 4. Nothing recurses on the value (frames are an array); walks over the schema are bounded
 *    (`$ref` chains and `allOf` nesting at MAX_SCHEMA_DEPTH, cycles cut).
 * 5. Never against coercion: with `repairable` (the coercions a `coerce` option turns on,
 *    coerce.ts), nothing is reported that one of them could repair, since the value delivered is
 *    the coerced one. A value that a rule may change (a string where a number, an integer or a
 *    boolean is required, or where an `enum`/`const` holds numbers or booleans:
 *    `string-to-number`, `string-to-boolean`; a value that is not an array where a `type`
 *    allows an array and rejects the value: `single-to-array`; `null` as the value of a key
 *    that no `required` names: `null-to-absent`) is not checked at all, nor is anything inside
 *    it. With `enum-case`, `enum`/`const`/discriminator strings compare as the rule does: case
 *    and surrounding whitespace ignored (ASCII while the string streams; a string or allowed
 *    value with other characters is checked only once complete, exactly as the rule would match
 *    it), and `maxLength` is not checked on a string that has allowed values. With
 *    `null-to-absent`, a key that `additionalProperties`/`unevaluatedProperties: false` forbids
 *    but another schema of the object declares is reported only once its value is seen not to
 *    be `null` (that `null` could be removed). Every other check stays.
 *
 * Schemas are compiled into `Rule` lists by prefix-rules.ts, lazily and once per schema
 * object; this file holds what runs per event: the checker, its frames and trackers, and the
 * checks it makes against the compiled rules.
 */

import { quoteInput } from '../diagnostics/diagnostics.js';
import { CoercionRule } from '../schema/coercion-rules.js';
import { isObject, pointerOf } from '../schema/json-pointer.js';
import type { Constant, JsonSchema } from '../schema/schema-validator.js';
import {
  ARRAY,
  BOOLEAN,
  type Dispatch,
  documentRules,
  INTEGER,
  indexRules,
  keyEntry,
  NONE,
  NULL,
  NUMBER,
  OBJECT,
  type Rule,
  rulesOf,
  STRING,
  type ValueSet,
} from './prefix-rules.js';

/** A path segment of the value: an object key or an array index. */
export type PrefixPathSegment = string | number;

/** What the checker reports; the builder turns it into a `violation` diagnostic. */
export interface PrefixViolation {
  /** Where it became certain: UTF-16 units from the start of the text. */
  readonly offset: number;
  readonly path: readonly PrefixPathSegment[];
  /** The schema keyword broken (`enum`, `type`, `additionalProperties`, `maxLength`…). */
  readonly rule: string;
  readonly message: string;
  /** The piece of the value that shows it (the string so far, the key, the number). */
  readonly excerpt: string;
  /** The root's discriminated branch (its discriminator's value), once the discriminator has completed. */
  readonly branch?: string;
}

function concat(a: readonly Rule[], b: readonly Rule[]): readonly Rule[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return [...a, ...b];
}

function where(path: readonly PrefixPathSegment[]): string {
  return path.length === 0 ? '/' : quoteInput(pointerOf(path));
}

/** What a value's first character says it is. */
function typeOfFirst(c: number): number {
  if (c === 0x7b) return OBJECT;
  if (c === 0x5b) return ARRAY;
  if (c === 0x22) return STRING;
  if (c === 0x74 || c === 0x66) return BOOLEAN;
  if (c === 0x6e) return NULL;
  return NUMBER;
}

const TYPE_NAMES: Readonly<Record<number, string>> = {
  [OBJECT]: 'an object',
  [ARRAY]: 'an array',
  [STRING]: 'a string',
  [NUMBER]: 'a number',
  [BOOLEAN]: 'a boolean',
  [NULL]: 'null',
};

interface Frame {
  rules: readonly Rule[];
  isArray: boolean;
  /** An object's key that last closed (its member in flight). */
  key: string;
  /** An array's elements started so far (the last one, `count - 1`, in flight). */
  count: number;
  /** Rules of the member whose key just closed. */
  next: readonly Rule[];
  /** The dispatch whose discriminator the member whose key just closed is. */
  nextDispatch: Dispatch | undefined;
  /** Dispatches already decided (or failed) in this object. */
  decided: Dispatch[] | undefined;
  /** Some rule of this object names the key that just closed in `required` (read with `null-to-absent`). */
  nextRequired: boolean;
  /** With `null-to-absent`: a forbidden key's violation, reported unless its value is `null`. */
  pending: PrefixViolation | undefined;
}

/** A string's checks in flight: constants still matching, code points so far. */
interface Tracker {
  readonly set: ValueSet;
  alive: readonly string[];
  /**
   * With `enum-case`: the allowed strings trimmed and lower-cased (undefined when one is not
   * ASCII: then only the complete string is checked), and for each how it matches so far.
   */
  folded?: readonly string[] | undefined;
  states?: Uint8Array | undefined;
}

// How an allowed string matches a string streaming under `enum-case` (Tracker.states).
const FOLD_MATCHING = 0; // its first `foldAt` characters are the string's, trimmed and lower-cased
const FOLD_TRAILING = 1; // matched whole, followed by whitespace only
const FOLD_DEAD = 2;

/** The coercions the checker must not report against (the `repairable` option), as flags. */
interface Repairs {
  readonly toNumber: boolean;
  readonly toBoolean: boolean;
  readonly toArray: boolean;
  readonly enumCase: boolean;
  readonly nullToAbsent: boolean;
}

/** Options of a PrefixChecker. */
export interface PrefixCheckOptions {
  /**
   * `true`: `schema` is a Standard Schema's export, which reads a schema with no `$schema` as
   * 2020-12, the dialect the export is asked for.
   */
  readonly exported?: boolean;
  /**
   * The coercions that will repair the value (the rules a `coerce` option turns on): nothing
   * that one of them could repair is reported (invariant 5). Default: none.
   */
  readonly repairable?: ReadonlySet<CoercionRule>;
}

/** `String.prototype.trim`'s whitespace among ASCII characters. */
function isTrimSpace(u: number): boolean {
  return u === 0x20 || (u >= 0x09 && u <= 0x0d);
}

/** Trimmed and lower-cased, as `enum-case` compares (coerce.ts). */
function caseKey(text: string): string {
  return text.trim().toLowerCase();
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** How many union branches one mayCoerce walk may visit (past it: assume a coercion). */
const COERCE_BUDGET = 64;

/**
 * Whether a coercion in `repairs` may change a value of JSON type `type` (its first character)
 * that `rules` apply to, so that nothing about it can be certain. `optionalKey`: the value is
 * that of an object key that no rule of the object requires. Conservative: true whenever the
 * coercion might apply (coerce.ts decides whether it does); the walk through union branches is
 * bounded by `budget`.
 */
function mayCoerce(
  rules: readonly Rule[],
  type: number,
  optionalKey: boolean,
  repairs: Repairs,
  budget: { left: number } = { left: COERCE_BUDGET },
): boolean {
  if (type === NULL && optionalKey && repairs.nullToAbsent) return true;
  for (const rule of rules) {
    if (rule.never) continue;
    if (type === STRING) {
      const noString = (rule.types & STRING) === 0;
      if (
        repairs.toNumber &&
        ((noString && (rule.types & (NUMBER | INTEGER)) !== 0) || rule.sets.some((s) => (s.mask & NUMBER) !== 0))
      ) {
        return true;
      }
      if (
        repairs.toBoolean &&
        ((noString && (rule.types & BOOLEAN) !== 0) || rule.sets.some((s) => (s.mask & BOOLEAN) !== 0))
      ) {
        return true;
      }
    }
    // `single-to-array` wraps a value that the node's own `type`, `enum` or `const` rejects,
    // where `type` allows an array (a number where only integers are allowed counts as rejected).
    if (
      repairs.toArray &&
      type !== ARRAY &&
      rule.typeText !== '' &&
      (rule.types & ARRAY) !== 0 &&
      ((rule.types & type) === 0 || rule.sets.length !== 0)
    ) {
      return true;
    }
    const branches = rule.alternatives ?? rule.dispatch?.branches;
    if (branches !== undefined) {
      for (const branch of branches) {
        // Union branches nested without end (a recursive schema): past the budget, assume a coercion.
        if (budget.left-- <= 0) return true;
        if (mayCoerce(rulesOf(rule.context, branch), type, false, repairs, budget)) return true;
      }
    }
  }
  return false;
}

/**
 * The prefix checker of one document. Drive it with the scanner's structure events, in order:
 * `start` for every value (root included), `key` when a key closes, `append` for each piece of
 * a string's decoded text, `endString`/`endScalar` when a string or scalar completes, `close`
 * when a container does. It reports each violation through the callback given at creation.
 */
export class PrefixChecker {
  readonly #report: (violation: PrefixViolation) => void;
  readonly #rootRules: readonly Rule[];
  /** The open containers' frames, `open` of them (the array keeps closed ones for reuse). */
  readonly #frames: Frame[] = [];
  #open = 0;
  // The string or scalar in flight.
  #valueRules: readonly Rule[] = NONE;
  #valueDepth = 0; // containers around the string or scalar in flight
  #valueDispatch: Dispatch | undefined;
  #valueParent: Frame | undefined;
  #trackers: Tracker[] | undefined;
  #maxLength = Number.POSITIVE_INFINITY;
  #codePoints = 0;
  #lastHigh = false;
  #stringLive = false;
  /** The root object's branch, once its discriminator completed (reported with every violation). */
  #rootBranch: string | undefined;

  /** Whether the string that just started is read (an `enum`, `const`, discriminator or `maxLength` applies to it). */
  get readsText(): boolean {
    return this.#stringLive;
  }

  /**
   * Whether nothing inside the container that just started can be reported (no rule applies to
   * its members, or a coercion may change it): a driver may then skip every event inside it
   * but its `close`.
   */
  get quiet(): boolean {
    const frame = this.#frames[this.#open - 1];
    return frame !== undefined && frame.rules.length === 0;
  }
  /** The coercions not to report against (`repairable`), or undefined for none. */
  readonly #repairs: Repairs | undefined;
  // With `enum-case`, the string in flight: only whitespace so far; characters matched after it.
  #foldLeading = false;
  #foldAt = 0;

  /**
   * `schema`: the JSON Schema of the document (a Standard Schema's export: `exported`, which
   * reads a schema with no `$schema` as 2020-12, the dialect the export is asked for; also
   * accepted as `options.exported`). `options.repairable`: see PrefixCheckOptions.
   */
  constructor(
    schema: JsonSchema,
    report: (violation: PrefixViolation) => void,
    exported = false,
    options: PrefixCheckOptions = {},
  ) {
    this.#report = (violation) =>
      report(this.#rootBranch === undefined ? violation : { ...violation, branch: this.#rootBranch });
    this.#rootRules = documentRules(schema, exported || options.exported === true);
    const rules = options.repairable;
    this.#repairs =
      rules === undefined || rules.size === 0
        ? undefined
        : {
            toNumber: rules.has(CoercionRule.stringToNumber),
            toBoolean: rules.has(CoercionRule.stringToBoolean),
            toArray: rules.has(CoercionRule.singleToArray),
            enumCase: rules.has(CoercionRule.enumCase),
            nullToAbsent: rules.has(CoercionRule.nullToAbsent),
          };
  }

  /** Starts over for another document under the same schema (a JSONL line, an array element). */
  reset(): void {
    this.#open = 0;
    this.#valueRules = NONE;
    this.#valueDepth = 0;
    this.#valueDispatch = undefined;
    this.#valueParent = undefined;
    this.#trackers = undefined;
    this.#stringLive = false;
    this.#rootBranch = undefined;
  }

  /** Whether the schema has anything a prefix can break (otherwise the builder need not call). */
  get active(): boolean {
    return this.#rootRules.length !== 0;
  }

  /**
   * A value starts at `offset` with character `c`, `depth` containers around it. (`_path`, the
   * value's path, is not read: the checker keeps the keys and indexes itself and builds a path
   * only for a violation.)
   */
  start(depth: number, c: number, offset: number, _path?: readonly PrefixPathSegment[]): void {
    let rules: readonly Rule[];
    let dispatch: Dispatch | undefined;
    let parent: Frame | undefined;
    const type = typeOfFirst(c);
    if (depth === 0) {
      rules = this.#rootRules;
    } else {
      parent = this.#frames[depth - 1] as Frame;
      const pending = parent.pending;
      if (pending !== undefined) {
        // A forbidden key whose `null` value `null-to-absent` could remove (see key()).
        parent.pending = undefined;
        if (type !== NULL) this.#report(pending);
      }
      if (parent.isArray) {
        const index = parent.count++;
        rules = parent.rules.length === 0 ? NONE : this.#element(parent, index, depth, offset, c);
      } else if (parent.rules.length === 0) {
        rules = NONE;
      } else {
        rules = parent.next;
        dispatch = parent.nextDispatch;
        if (dispatch !== undefined) rules = concat(rules, dispatch.rules);
      }
    }
    const repairs = this.#repairs;
    if (
      repairs !== undefined &&
      rules.length !== 0 &&
      mayCoerce(rules, type, parent !== undefined && !parent.isArray && !parent.nextRequired, repairs)
    ) {
      // A coercion may change this value: nothing about it (or inside it) is certain.
      rules = NONE;
    }
    if (rules.length !== 0 && !this.#checkStart(rules, type, c, offset, depth)) rules = NONE;
    if (type === OBJECT || type === ARRAY) {
      const frame = this.#frames[this.#open];
      if (frame === undefined) {
        this.#frames.push({
          rules,
          isArray: type === ARRAY,
          key: '',
          count: 0,
          next: NONE,
          nextDispatch: undefined,
          decided: undefined,
          nextRequired: false,
          pending: undefined,
        });
      } else {
        frame.rules = rules;
        frame.isArray = type === ARRAY;
        frame.key = '';
        frame.count = 0;
        frame.next = NONE;
        frame.nextDispatch = undefined;
        frame.decided = undefined;
        frame.nextRequired = false;
        frame.pending = undefined;
      }
      this.#open++;
      return;
    }
    this.#valueRules = rules;
    this.#valueDepth = depth;
    this.#valueDispatch = rules.length === 0 ? undefined : dispatch;
    this.#valueParent = parent;
    this.#stringLive = false;
    if (type === STRING && rules.length !== 0) this.#startString(rules);
  }

  /** An array element starts: `maxItems`, and the element's rules. */
  #element(frame: Frame, index: number, depth: number, offset: number, c: number): readonly Rule[] {
    let rules: readonly Rule[] = NONE;
    for (const rule of frame.rules) {
      if (index >= rule.maxItems) {
        const path = this.#pathAt(depth - 1);
        this.#report({
          offset,
          path,
          rule: 'maxItems',
          message: `the array at ${where(path)} has more than maxItems (${rule.maxItems}) elements: element ${index} starts here`,
          excerpt: String.fromCharCode(c),
        });
        frame.rules = NONE;
        return NONE;
      }
      rules = concat(rules, indexRules(rule, index));
    }
    return rules;
  }

  /** Checks what the first character decides; false after a violation. */
  #checkStart(rules: readonly Rule[], type: number, c: number, offset: number, depth: number): boolean {
    const broken = startBreaks(rules, type, c, 0, this.#repairs);
    if (broken === undefined) return true;
    const [rule, why] = broken;
    const path = this.#pathAt(depth);
    this.#report({
      offset,
      path,
      rule,
      message: `the value at ${where(path)} is ${why}`,
      excerpt: String.fromCharCode(c),
    });
    return false;
  }

  #startString(rules: readonly Rule[]): void {
    let trackers: Tracker[] | undefined;
    let maxLength = Number.POSITIVE_INFINITY;
    const fold = this.#repairs?.enumCase === true;
    for (const rule of rules) {
      if (rule.maxLength < maxLength) maxLength = rule.maxLength;
      for (const set of rule.sets) {
        trackers ??= [];
        if (fold) {
          const ascii = set.strings.every(isAscii);
          const folded = ascii ? set.strings.map(caseKey) : undefined;
          trackers.push({
            set,
            alive: set.strings,
            folded,
            states: folded === undefined ? undefined : new Uint8Array(folded.length),
          });
        } else {
          trackers.push({ set, alive: set.strings });
        }
      }
    }
    // `enum-case` may trim the string to an allowed value: its length before is no evidence.
    if (fold && trackers !== undefined) maxLength = Number.POSITIVE_INFINITY;
    this.#foldLeading = true;
    this.#foldAt = 0;
    this.#trackers = trackers;
    this.#maxLength = maxLength;
    this.#codePoints = 0;
    this.#lastHigh = false;
    this.#stringLive = trackers !== undefined || maxLength !== Number.POSITIVE_INFINITY;
  }

  /**
   * Text was appended to the string in flight: `full` is the whole string so far (read only
   * when reporting: reading a string built by appends flattens it), `added` its end, decoded
   * from `raw`, which starts at offset `rawFrom` (escapes complete).
   */
  append(full: string, added: string, raw: string, rawFrom: number): void {
    if (!this.#stringLive) return;
    const length = full.length;
    const from = length - added.length;
    let bad = -1; // index in `full` of the first unit that no completion can have
    let rule = '';
    let shown = '';
    const trackers = this.#trackers;
    if (trackers !== undefined && this.#repairs?.enumCase === true) {
      const found = this.#foldAppend(trackers, added);
      if (found !== undefined) {
        bad = from + found[0];
        rule = found[1].rule;
        shown = found[1].shown;
      }
    } else if (trackers !== undefined) {
      for (const tracker of trackers) {
        // The candidates still matching; a new list only once one stops matching.
        const candidates = tracker.alive;
        let alive: string[] | undefined;
        let longest = from;
        for (let n = 0; n < candidates.length; n++) {
          const candidate = candidates[n] as string;
          let k = from;
          const end = Math.min(candidate.length, length);
          while (k < end && candidate.charCodeAt(k) === added.charCodeAt(k - from)) k++;
          if (k === length) {
            alive?.push(candidate);
          } else {
            alive ??= candidates.slice(0, n);
            if (k > longest) longest = k;
          }
        }
        if (alive !== undefined) tracker.alive = alive;
        if (alive?.length === 0 && (bad < 0 || longest < bad)) {
          bad = longest;
          rule = tracker.set.rule;
          shown = tracker.set.shown;
        }
      }
    }
    if (this.#maxLength !== Number.POSITIVE_INFINITY) {
      let count = this.#codePoints;
      let high = this.#lastHigh;
      const limit = bad < 0 ? length : bad;
      for (let i = from; i < limit; i++) {
        const u = added.charCodeAt(i - from);
        if (!(high && u >= 0xdc00 && u <= 0xdfff)) count++;
        high = u >= 0xd800 && u <= 0xdbff;
        if (count > this.#maxLength) {
          bad = i;
          rule = 'maxLength';
          break;
        }
      }
      this.#codePoints = count;
      this.#lastHigh = high;
    }
    if (bad < 0) return;
    this.#stringLive = false;
    this.#valueDispatch = undefined;
    const path = this.#pathAt(this.#valueDepth);
    const seen = JSON.stringify(quoteInput(full.slice(0, bad + 1)));
    const message =
      rule === 'maxLength'
        ? `the string at ${where(path)} is longer than maxLength (${this.#maxLength} characters)`
        : this.#repairs?.enumCase === true
          ? `the string at ${where(path)} begins ${seen}, which no allowed value begins with, ignoring case and surrounding whitespace (${rule}: ${shown})`
          : `the string at ${where(path)} begins ${seen}, which no allowed value begins with (${rule}: ${shown})`;
    this.#report({
      offset: rawFrom + rawIndex(raw, bad - from),
      path,
      rule,
      message,
      excerpt: JSON.stringify(full.slice(Math.max(0, bad - 40), bad + 1)),
    });
  }

  /**
   * `enum-case` on the string in flight: feeds `added` to the trackers; the index in `added`
   * where a tracker's last allowed string stopped matching, and its set, or undefined. After a
   * character that is not ASCII (or for a set with one that is not), nothing is decided before
   * the string completes.
   */
  #foldAppend(trackers: readonly Tracker[], added: string): [number, ValueSet] | undefined {
    if (trackers.every((t) => t.states === undefined)) return undefined;
    for (let i = 0; i < added.length; i++) {
      const u = added.charCodeAt(i);
      if (u >= 0x80) {
        for (const tracker of trackers) tracker.states = undefined;
        return undefined;
      }
      if (this.#foldLeading) {
        if (isTrimSpace(u)) continue;
        this.#foldLeading = false;
      }
      const lower = u >= 0x41 && u <= 0x5a ? u + 0x20 : u;
      const at = this.#foldAt++;
      for (const tracker of trackers) {
        const states = tracker.states;
        const folded = tracker.folded;
        if (states === undefined || folded === undefined) continue;
        let alive = false;
        for (let k = 0; k < states.length; k++) {
          const state = states[k] as number;
          if (state === FOLD_DEAD) continue;
          const key = folded[k] as string;
          let next = FOLD_DEAD;
          if (state === FOLD_MATCHING) {
            if (at < key.length && key.charCodeAt(at) === lower) next = FOLD_MATCHING;
            else if (at === key.length && isTrimSpace(lower)) next = FOLD_TRAILING;
          } else if (isTrimSpace(lower)) {
            next = FOLD_TRAILING;
          }
          states[k] = next;
          if (next !== FOLD_DEAD) alive = true;
        }
        if (!alive) return [i, tracker.set];
      }
    }
    return undefined;
  }

  /** The string in flight closed (its closing quote at `quote`): it must be one of the constants whole. */
  endString(full: string, quote: number): void {
    const dispatch = this.#valueDispatch;
    this.#valueDispatch = undefined;
    if (this.#stringLive && this.#trackers !== undefined) {
      this.#stringLive = false;
      const fold = this.#repairs?.enumCase === true;
      for (const tracker of this.#trackers) {
        // `enum-case` repairs a string that matches exactly one allowed value but for case and spaces.
        if (fold ? !allowedFolded(tracker.set.strings, full) : !tracker.alive.includes(full)) {
          const path = this.#pathAt(this.#valueDepth);
          this.#report({
            offset: quote,
            path,
            rule: tracker.set.rule,
            message: `the string at ${where(path)} is ${JSON.stringify(quoteInput(full))}, which is not an allowed value (${tracker.set.rule}: ${tracker.set.shown})`,
            excerpt: JSON.stringify(full.length > 60 ? full.slice(full.length - 60) : full),
          });
          return;
        }
      }
    }
    this.#stringLive = false;
    if (dispatch !== undefined) this.#decide(dispatch, full);
  }

  /** With `enum-case`: the string constant of `dispatch` that `value` is but for case and spaces, if exactly one. */
  #foldedConstant(dispatch: Dispatch, value: unknown): number {
    if (this.#repairs?.enumCase !== true || typeof value !== 'string') return -1;
    const key = caseKey(value);
    let index = -1;
    for (let i = 0; i < dispatch.constants.length; i++) {
      const constant = dispatch.constants[i];
      if (typeof constant === 'string' && caseKey(constant) === key) {
        if (index >= 0) return -1;
        index = i;
      }
    }
    return index;
  }

  /** A number, `true`, `false` or `null` completed; `end` is just after it. */
  endScalar(value: unknown, text: string, end: number): void {
    const rules = this.#valueRules;
    const dispatch = this.#valueDispatch;
    this.#valueRules = NONE;
    this.#valueDispatch = undefined;
    if (rules.length === 0) return;
    if (typeof value === 'number') {
      for (const rule of rules) {
        const broken = numberRule(rule, value);
        if (broken !== undefined) {
          const path = this.#pathAt(this.#valueDepth);
          this.#report({
            offset: end,
            path,
            rule: broken[0],
            message: `the number at ${where(path)} is ${quoteInput(text)}, ${broken[1]}`,
            excerpt: quoteInput(text, 60),
          });
          return;
        }
      }
    }
    if (dispatch !== undefined) this.#decide(dispatch, value);
  }

  /** The discriminator value completed: its branch applies to the rest of the object. */
  #decide(dispatch: Dispatch, value: unknown): void {
    const parent = this.#valueParent;
    if (parent === undefined) return;
    let index = dispatch.constants.indexOf(value as Constant);
    // `enum-case` will make the value this constant: its branch is the one that applies.
    if (index < 0) index = this.#foldedConstant(dispatch, value);
    if (index < 0) return;
    if (parent === this.#frames[0]) this.#rootBranch = String(dispatch.constants[index]);
    let branch = dispatch.branchRules[index];
    if (branch === undefined) {
      branch = rulesOf(dispatch.rule.context, dispatch.branches[index]);
      dispatch.branchRules[index] = branch;
    }
    if (branch.length !== 0) parent.rules = concat(parent.rules, branch);
  }

  /** A key closed (its closing quote at `quote`) in the object at `depth - 1`. */
  key(depth: number, key: string, quote: number): void {
    if (depth < 1 || depth > this.#open) return;
    const frame = this.#frames[depth - 1] as Frame;
    frame.key = key;
    frame.next = NONE;
    frame.nextDispatch = undefined;
    frame.nextRequired = false;
    if (frame.rules.length === 0) return;
    const repairs = this.#repairs;
    if (repairs?.nullToAbsent === true) frame.nextRequired = frame.rules.some((r) => r.required?.has(key) === true);
    let rules: readonly Rule[] = NONE;
    for (const rule of frame.rules) {
      const entry = keyEntry(rule, key);
      const declared = entry.declared;
      let broken: 'additionalProperties' | 'unevaluatedProperties' | undefined;
      if (!declared && rule.additional === false) broken = 'additionalProperties';
      else if (rule.evaluated !== undefined && !rule.evaluated.has(key)) broken = 'unevaluatedProperties';
      if (broken !== undefined) {
        const path = this.#pathAt(depth);
        const listed = rule.properties === undefined ? 'none' : quoteInput(Object.keys(rule.properties).join(', '));
        const violation: PrefixViolation = {
          offset: quote,
          path,
          rule: broken,
          message: `the key ${JSON.stringify(quoteInput(key))} at ${where(path.slice(0, -1))} is not allowed (${broken} is false; declared: ${listed})`,
          excerpt: JSON.stringify(quoteInput(key, 60)),
        };
        // `null-to-absent` removes a `null` that another schema of this object declares and no
        // `required` names, and the forbidden key with it: that is certain only once the value starts.
        if (repairs?.nullToAbsent === true && !frame.nextRequired && frame.rules.some((r) => declares(r, key))) {
          frame.pending = violation;
        } else {
          this.#report(violation);
        }
        return;
      }
      rules = concat(rules, entry.rules);
      const dispatch = rule.dispatch;
      if (dispatch !== undefined && dispatch.property === key && frame.nextDispatch === undefined) {
        if (frame.decided === undefined) frame.decided = [];
        if (!frame.decided.includes(dispatch)) {
          frame.decided.push(dispatch);
          frame.nextDispatch = dispatch;
        }
      }
    }
    frame.next = rules;
  }

  /** The container at the top closed. */
  close(): void {
    if (this.#open > 0) this.#open--;
  }

  /**
   * The path of a value with `depth` containers around it (their current member: the key that
   * last closed, or the index of the element that last started). Built only for a violation.
   */
  #pathAt(depth: number): PrefixPathSegment[] {
    const path: PrefixPathSegment[] = [];
    for (let i = 0; i < depth; i++) {
      const frame = this.#frames[i] as Frame;
      path.push(frame.isArray ? frame.count - 1 : frame.key);
    }
    return path;
  }
}

/** Whether a `null` at `key` could be removed under `rule` (`null-to-absent` looks only there: coerce.ts). */
function declares(rule: Rule, key: string): boolean {
  if (rule.properties !== undefined && Object.hasOwn(rule.properties, key)) return true;
  return !rule.patterns && isObject(rule.additional);
}

/** With `enum-case`: `value` is allowed as it is, or is exactly one of `allowed` but for case and surrounding whitespace. */
function allowedFolded(allowed: readonly string[], value: string): boolean {
  if (allowed.includes(value)) return true;
  const key = caseKey(value);
  let matches = 0;
  for (const candidate of allowed) if (caseKey(candidate) === key) matches++;
  return matches === 1;
}

/**
 * What a value's first character `c` (of JSON type `type`) breaks in `rules`, if anything:
 * `[keyword, words]`. A `oneOf`/`anyOf` without a discriminator is broken when every branch is
 * (`depth` bounds the walk through nested ones); with `repairs`, a branch that a coercion may
 * repair is not.
 */
function startBreaks(
  rules: readonly Rule[],
  type: number,
  c: number,
  depth: number,
  repairs?: Repairs,
): [string, string] | undefined {
  for (const rule of rules) {
    if (rule.never) return ['false', `${TYPE_NAMES[type]}, but the schema there is false: no value is allowed`];
    const typeOk = (rule.types & type) !== 0 || (type === NUMBER && (rule.types & INTEGER) !== 0);
    if (!typeOk || (rule.dispatch !== undefined && type !== OBJECT)) {
      const allowed = rule.typeText === '' ? 'an object (every oneOf/anyOf branch is one)' : rule.typeText;
      return ['type', `${TYPE_NAMES[type]}, but the schema allows ${allowed}`];
    }
    for (const set of rule.sets) {
      const literal = c === 0x74 ? true : c === 0x66 ? false : null;
      const ok = (set.mask & type) !== 0 && (type !== BOOLEAN && type !== NULL ? true : set.scalars.includes(literal));
      if (!ok) {
        const what = type === BOOLEAN || type === NULL ? String(literal) : (TYPE_NAMES[type] as string);
        return [set.rule, `${what}, which is not an allowed value (${set.rule}: ${set.shown})`];
      }
    }
    const alternatives = rule.alternatives;
    if (alternatives !== undefined && depth < 8) {
      let all = alternatives.length !== 0;
      for (const branch of alternatives) {
        const branchRules = rulesOf(rule.context, branch);
        if (
          startBreaks(branchRules, type, c, depth + 1, repairs) === undefined ||
          (repairs !== undefined && mayCoerce(branchRules, type, false, repairs))
        ) {
          all = false;
          break;
        }
      }
      if (all)
        return [rule.alternativesKeyword, `${TYPE_NAMES[type]}, which no ${rule.alternativesKeyword} branch allows`];
    }
  }
  return undefined;
}

/** The bound `value` breaks, if any: `[keyword, words]`. */
function numberRule(rule: Rule, value: number): [string, string] | undefined {
  if ((rule.types & NUMBER) === 0 && (rule.types & INTEGER) !== 0 && !Number.isInteger(value)) {
    return ['type', 'which is not an integer'];
  }
  for (const bound of rule.bounds) {
    const limit = bound.limit;
    switch (bound.rule) {
      case 'minimum':
        if (value < limit) return [bound.rule, `below minimum ${limit}`];
        break;
      case 'maximum':
        if (value > limit) return [bound.rule, `above maximum ${limit}`];
        break;
      case 'exclusiveMinimum':
        if (value <= limit) return [bound.rule, `not above exclusiveMinimum ${limit}`];
        break;
      case 'exclusiveMaximum':
        if (value >= limit) return [bound.rule, `not below exclusiveMaximum ${limit}`];
        break;
    }
  }
  for (const set of rule.sets) {
    if (!set.scalars.includes(value)) return [set.rule, `which is not an allowed value (${set.rule}: ${set.shown})`];
  }
  return undefined;
}

/** Index in `raw` (a JSON string's text with complete escapes) of its `units`-th decoded unit. */
function rawIndex(raw: string, units: number): number {
  let i = 0;
  for (let n = 0; n < units && i < raw.length; n++)
    i += raw.charCodeAt(i) === 0x5c ? (raw.charCodeAt(i + 1) === 0x75 ? 6 : 2) : 1;
  return i;
}
