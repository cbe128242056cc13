/**
 * Partial values for live UIs: while one JSON document streams in, the best value so far and
 * the changes since the last chunk.
 *
 * Contract: `write(text)` consumes a chunk; when it changed anything (a value added, text
 * appended, a value closed), the sink receives the snapshot and the list of changes, once per
 * `write` (`updateOn: 'values'`: only when the value itself changed). With `snapshots:
 * 'paced'` (the streams' default, decision 020) an update may be deferred: it then goes out
 * with a later write (its changes first), at `flush()`, or when the document ends, stops or is
 * cut; so at most one update per write, and always one for the last change. `end()` reports
 * what the end of input decides. Changes are data: `{ op: 'add', path, value }` for a new key
 * or element (or the root), `{ op: 'append', path, value }` for text appended to a string,
 * `{ op: 'complete', path }` when a value closes (the `Change` type, and `applyChanges` that
 * replays a list, are in partial-changes.ts). With a schema, each completed subtree and the
 * document are checked (`schema` diagnostics) and, unless `prefixCheck: false`, the prefix is
 * checked as it streams: a `violation` diagnostic as soon as no completion can match
 * (prefix-check.ts, driven by this builder's scanner events).
 *
 * Coercion (`coerce`, opt-in; coerce.ts): snapshots stay the raw value while the document
 * streams. When the complete document is invalid as given and coercion makes it valid, each
 * repair is a `recovered` diagnostic (`path`, `rule`, at the document's start offset), no
 * `schema` diagnostic is reported for it, and the write that completes it delivers the coerced
 * value as the final snapshot, its changes turning the last snapshot into it: after the
 * changes that complete the raw document, `add` (and `complete`) changes that replace each
 * repaired path — its parent object, when a repair removed a key — and rebuild what is new
 * (unrepaired subtrees keep their identity). Subtrees that their sub-schema rejects but that
 * coercion under it repairs are not reported (the repairs are reported once, for the whole
 * document), nor is a `null` at an object key that `null-to-absent` may remove; the prefix
 * check reports nothing a turned-on coercion could repair (prefix-check.ts, invariant 5).
 *
 * Invariants (each a property test):
 * 1. Strings only grow; partial strings are visible.
 * 2. Numbers, `true`, `false` and `null` appear only once complete.
 * 3. A key appears once its name is complete (with its value's first state: `""`, `{}`, `[]`,
 *    or the complete scalar).
 * 4. Arrays only append; once a subtree is complete it never changes (but for the coerced
 *    document's final update, with `coerce`).
 * 5. Applying the changes in order to `undefined` reproduces the snapshot exactly.
 * 6. Structural sharing: a snapshot copies only the containers on the paths that changed
 *    since the previous snapshot; every other subtree is the same object (`===`). A snapshot
 *    already handed out (to `update`, or read from `value`) is never mutated. (With
 *    `snapshots: false` nothing is copied and the one live tree is handed out: for consumers
 *    of the changes only.)
 * 6a. Paced snapshots (`snapshots: 'paced'`) cost linear time: a container is copied only when
 *    a snapshot holding it was handed out, and an update is handed out only when the copies it
 *    will cause are at most 64 slots or the input since the previous one pays for them
 *    (`snapshotBudget` slots per character), so the total copying is at most
 *    `snapshotBudget` × characters + 64 × writes, plus one document's containers for each
 *    update that `flush()` or the end forces (`flush(limit)` forces at most `limit` slots).
 *    Slots are counted in time, not in members: an array element is one, an object member
 *    OBJECT_MEMBER_SLOTS (copying an object's member costs about that many array elements).
 *    An update is also paid for once the members added since the previous one are as many as
 *    the open containers held then (they doubled): at most 3 members copied per member added.
 *    Which writes carry an update depends on the chunking; the updates' values and the
 *    concatenated changes obey 1-8 like any others.
 * 7. Chunking does not matter: the final snapshot and the concatenated change lists' effect
 *    depend on the text only.
 * 8. A whole JSON document ends with its `JSON.parse` value, whatever its root; `complete` is
 *    true only for a whole document (never after a `truncated`, `syntax`, `too-deep` or
 *    `too-long` diagnostic).
 *
 * Where the document is: the first non-whitespace character of the input decides.
 * - `{`, `[` or `"`: the document starts there (a string root grows like any string).
 * - A word that starts like a number or literal (`-`, a digit, `t`, `f`, `n`): it is the
 *   document when nothing but whitespace follows it to the end of input and it is a JSON
 *   number, `true`, `false` or `null` (delivered, complete, by `end()`: a number can always
 *   grow, and more text would make the word prose). Otherwise it is prose, as anything else is.
 * - Prose: skipped up to the first `{` or `[`, where the document starts (a fence line before
 *   it is prose too; a bare string, number or literal after prose is not looked for).
 * Text after the document's closing bracket or quote is ignored, and reported by nothing.
 * `__proto__`, `constructor` and `prototype` keys are plain data (own members).
 * Nothing recurses on the value: copies walk the open containers with a loop, so a deep value
 * within `maxDepth` cannot overflow the call stack.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { type Diagnostic, DiagnosticReason, excerptAround, quoteInput } from '../diagnostics/diagnostics.js';
import { checkChoice, checkOptionNames, optionNames } from '../options/option-checks.js';
import { PrefixChecker, type PrefixViolation } from '../prefix/prefix-check.js';
import { type Coercer, type CoercionOptions, coercionRules } from '../schema/coercion-options.js';
import { CoercionRule } from '../schema/coercion-rules.js';
import { pointerOf } from '../schema/json-pointer.js';
import type { CompiledSchema, JsonSchema, JsonSchemaCompiler, ValidationResult } from '../schema/schema-validator.js';
import { isStandardSchema, jsonSchemaOf, type SchemaInput, type SchemaValue } from '../schema/standard-schema.js';
import { subSchemaAt, subSchemaPointer } from '../schema/sub-schemas.js';
import { DEFAULT_MAX_DEPTH } from '../syntax/depth.js';
import { JsonScanner, SCAN_ERROR, type ScanEvents } from '../syntax/json-scanner.js';
import { unfinishedEscape } from '../text/string-escape.js';
import type { AdapterOptions } from './engine.js';
import {
  checkPositiveInteger,
  coercionDiagnostic,
  compileJsonSchemaWith,
  countDiagnostic,
  type DiagnosticCounts,
  type Engine,
  type ValidatorOptions,
  validatorFor,
} from './engine.js';
import { type Change, diffChanges, type PathSegment } from './partial-changes.js';

/**
 * What a snapshot of a document of type `T` can hold while it streams (invariants 1-4): any
 * object key may still be missing, arrays hold partial elements, strings — string literals
 * included, so a discriminant is a plain `string` until complete — may be cut short; numbers,
 * booleans and `null` are atomic. `unknown` stays `unknown`. Only a complete document is
 * validated, and a `schema` diagnostic leaves a value that does not match visible: the type
 * describes a document on its way to matching the schema.
 */
export type DeepPartial<T> = unknown extends T
  ? T
  : T extends string
    ? string
    : T extends readonly (infer E)[]
      ? DeepPartial<E>[]
      : T extends object
        ? { [K in keyof T]?: DeepPartial<T[K]> }
        : T;

/** `S` is the schema's type, so that snapshots come out typed (`DeepPartial<SchemaValue<S>>`). */
export interface PartialOptions<S extends SchemaInput = SchemaInput> extends ValidatorOptions, CoercionOptions {
  /**
   * JSON Schema of the document. Each subtree is checked against its sub-schema when it
   * completes (where the schema says unambiguously what applies there: through `properties`,
   * `items` and local `$ref`s, not through `oneOf`/`anyOf`/`allOf`), and the complete document
   * against the whole schema. A mismatch is a `schema` diagnostic; the value stays visible.
   * A Standard Schema (zod 4, valibot 1, arktype 2…) validates the complete document itself;
   * subtrees are checked (by `compileJsonSchema`) against its JSON Schema export when it has
   * one and a compiler is given, and not at all otherwise or when the export does not compile.
   * With `coerce` (and `coerceWith`: see CoercionOptions), a complete document that is valid
   * only once coerced ends with the coerced value and one `recovered` diagnostic per repair;
   * snapshots before it are the raw value (see the file's contract).
   */
  readonly schema?: S;
  /** Discriminator for a `oneOf` document schema (detected by default; `false` for off). */
  readonly discriminator?: string | false;
  /**
   * Deepest nesting accepted, in levels. Default `DEFAULT_MAX_DEPTH` (512); deeper is
   * `too-deep` and stops the document.
   */
  readonly maxDepth?: number;
  /** Longest string or number kept while it streams, in UTF-16 code units. Default 8 MiB. */
  readonly maxValueLength?: number;
  /**
   * `true` (default): every update hands out an immutable, structurally shared snapshot,
   * which costs a copy of each container on a changed path (an array of n items: n per
   * update, so a growing array costs quadratic time). `'paced'`: immutable snapshots too, but
   * an update is handed out only once the input since the previous one pays for the copies it
   * will cause — the containers open around the value in flight, in slots (an array element
   * one, an object member 32: its copy takes that long): at most 64 members, at most
   * `snapshotBudget` slots per character, or once the members added since the previous update
   * are as many as were open then; else it is
   * deferred, its changes going out with the next update, which `flush()`, the document's end
   * (closed, stopped or cut off) and `end()` always deliver. Linear time, and while the open
   * containers hold at most 64 slots still an update per write (decision 020). `false`: no
   * copies — the value passed to `update` is the builder's one live tree, changed in place by
   * later writes; for consumers that only apply the changes.
   */
  readonly snapshots?: boolean | 'paced';
  /**
   * With `snapshots: 'paced'`: slots that a snapshot of more than 64 slots may cause to be
   * copied per character of input since the previous snapshot. Default 4 (decision 020).
   * `0`: such an update waits for `flush()`, a later small one, or the document's end.
   */
  readonly snapshotBudget?: number;
  /**
   * When the sink is called. `'changes'` (default): after every write that changed anything,
   * a value closing (`complete`) included. `'values'`: only after a write that changed the
   * value, for sinks that read the snapshot alone (so the same snapshot never comes twice); a
   * write that only closes values calls nothing, and its `complete` changes go with the next
   * update, if there is one.
   */
  readonly updateOn?: 'changes' | 'values';
  /**
   * What to do with a document that is `null`: `'value'` (default) delivers it; `'report'`
   * does not call `update` and reports a `null-value` diagnostic instead (`value` is still
   * `null` and `complete` true), for sinks that cannot carry `null` (a Node object-mode stream
   * of snapshots: decision 004). A `null` inside a document is always delivered.
   */
  readonly nullValue?: 'value' | 'report';
  /**
   * Prefix validation (default `true` whenever there is a schema: a JSON Schema, or a Standard
   * Schema with a JSON Schema export): while the document streams in, a `violation` diagnostic
   * (with `path` and `rule`) the moment its prefix proves that no completion can match the
   * schema — a string no `enum`/`const`/discriminator value starts with, a value of the wrong
   * type, a key `additionalProperties: false` forbids, a `maxLength`, `maxItems` or numeric
   * bound exceeded — at the offset where it became certain (prefix-check.ts). `false`: off.
   * With `coerce`, nothing that a turned-on coercion could repair is reported (so `failFast`
   * never stops an answer that coercion would fix).
   */
  readonly prefixCheck?: boolean;
  /**
   * `true` (default): each update carries the list of changes that lead to its snapshot.
   * `false`: the list is always empty and no change is recorded, for sinks that read only the
   * snapshot (the Node and Web snapshot streams): an update then costs no object per change.
   * `stats.changes` still counts the changes each update stands for.
   */
  readonly trackChanges?: boolean;
}

export interface PartialSink<T = unknown> {
  /**
   * A write changed something (with `updateOn: 'values'`: the value itself): the snapshot and
   * the changes that lead to it.
   */
  update(value: DeepPartial<T>, changes: readonly Change[]): void;
  diagnostic(diagnostic: Diagnostic): void;
}

export interface PartialStats {
  characters: number;
  /** Updates delivered (sink calls). */
  updates: number;
  /** Changes delivered. */
  changes: number;
  diagnostics: DiagnosticCounts;
}

export type PartialBuilder<T = unknown> = Engine<PartialStats> & {
  /**
   * The current snapshot (`undefined` before the document starts). With `snapshots: 'paced'`
   * it includes a deferred update's changes, and reading it makes it a snapshot (never
   * mutated afterwards: the next write that changes it copies the containers it touches).
   * So does a read with `snapshots: true` in the middle of a write (from a callback). Each read
   * costs the next write those copies, which pacing does not count against its budget: reading
   * it after every chunk while a long array grows copies that array every chunk.
   */
  readonly value: DeepPartial<T> | undefined;
  /** With `snapshots: 'paced'`: true while an update is deferred (see `flush`). */
  readonly deferred: boolean;
  /**
   * Delivers a deferred update now (`snapshots: 'paced'`); does nothing when there is none.
   * With a `limit` (slots, as `snapshotBudget` counts them): only when the copies the update
   * causes are at most `limit` slots, or the input since the previous update pays for them
   * (the streams' timer: a snapshot held back a frame costs at most that much each time, so
   * a timer cannot make a wide object's copying quadratic). Returns whether it delivered.
   */
  flush(limit?: number): boolean;
  /**
   * True once a whole document was read: an object, array or string root from the write that
   * holds its closing bracket or quote (text after it is ignored, so nothing later changes
   * this); a number, `true`, `false` or `null` root at `end()`, when only whitespace followed
   * it. Never true after a `truncated`, `syntax`, `too-deep` or `too-long` diagnostic. A
   * `schema` diagnostic leaves it true: the document was read whole; it is just not valid.
   */
  readonly complete: boolean;
};

type Container = Record<string, unknown> | unknown[];

interface Frame {
  node: Container;
  readonly path: readonly PathSegment[];
  readonly isArray: boolean;
  key: string | undefined; // pending key (objects)
  members: number; // elements or keys added (a copy of the node costs one slot each, OBJECT_MEMBER_SLOTS each for keys)
  /** `node` was created or copied since the last snapshot when this equals the builder's `epoch`. */
  epoch: number;
}

/** Distinct keys a builder remembers (a hostile stream of fresh keys must not grow it without bound), and their longest. */
const KEY_CACHE = 512;
const KEY_CACHE_LENGTH = 64;

/** The change list of every update when changes are not tracked. */
const NO_CHANGES: readonly Change[] = Object.freeze([]);

/** `snapshotBudget` by default: slots a paced snapshot may cost per character of input (decision 020). */
const DEFAULT_SNAPSHOT_BUDGET = 4;
/**
 * A paced snapshot that copies at most this many slots is always handed out: a write costs
 * about as much by itself (a call, a stream's machinery), so a small document keeps an update
 * per write however short its chunks, and the copying stays linear (this much per write).
 */
const SNAPSHOT_FLOOR = 64;

/**
 * What copying one object member costs, in slots (array elements): past a few keys V8 keeps an
 * object as a hash table, and a copy inserts every key again, at 25-50 ns a key against
 * 1-2 ns an element for up to 10 000 of them (1 µs against 35 ns at 10^6). Counting a key as
 * one slot let a wide object be copied 30 times as long as the budget meant: 14 s for 400 000
 * keys (decision 020, addendum of 2026-11-27).
 */
const OBJECT_MEMBER_SLOTS = 32;

/**
 * An object of at most this many members is copied by spread (V8 clones a small object's
 * layout at about 5 ns a key); a larger one, by inserting its keys into a new object (a
 * spread of a hash-table object builds a layout key by key: 200-300 ns a key, 5 times longer).
 */
const SPREAD_MEMBERS = 16;

// The value in flight: -1 none (or a container), a string, or a number or literal.
const KIND_STRING = 1;
const KIND_SCALAR = 2;

// Before the scanner starts, where the first non-whitespace character of the input decides.
const PHASE_START = 0; // only whitespace so far
const PHASE_PROSE = 1; // prose: the document starts at the first `{` or `[`
const PHASE_WORD = 2; // a word that starts like a number or literal
const PHASE_AFTER_WORD = 3; // whitespace after that word
const PHASE_DOCUMENT = 4; // the scanner reads the document

/** What ends a word: JSON whitespace, or a bracket (then the word was prose and the bracket opens the document). */
const WORD_END = /[\t\n\r {[]/g;
const OPENER = /[[{]/g;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index of the first non-whitespace character of `text` from `from`, or `text.length`. */
function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * A number, `true`, `false` or `null` the scanner accepted: `Number` reads a JSON number as
 * `JSON.parse` does (the same grammar's subset, rounded the same way), without its call cost.
 */
function scalarOf(text: string): unknown {
  const c = text.charCodeAt(0);
  if (c === 0x74) return true;
  if (c === 0x66) return false;
  if (c === 0x6e) return null;
  return Number(text);
}

/**
 * A copy of a wide object (see SPREAD_MEMBERS): its own keys inserted into a new object, a
 * `__proto__` key as plain data. The engine then keeps the copy as a hash table from the start.
 */
function copyRecord(node: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  const keys = Object.keys(node);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    setKey(copy, key, node[key]);
  }
  return copy;
}

/**
 * Sets `key` on an object as plain data (a `__proto__` key never touches the prototype).
 * `applyChanges` has its own copy (partial-changes.ts): this one stays local to the builder's
 * per-event code.
 */
function setKey(node: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    node[key] = value;
  }
}

/**
 * A string built by many appends is, in V8, a tree of its pieces (one node per append: about
 * eight times the text's size, all of it traced by every garbage collection while it lives).
 * Reading one character makes the engine flatten it into one piece; done once, when the
 * string completes, it keeps the tree small and the work linear. The read's result is kept
 * so the call cannot be optimised away.
 */
// biome-ignore lint/correctness/noUnusedVariables: written only so that the read in flatten() is not optimised away.
let flattened = 0;
function flatten(text: string): void {
  if (text.length > 32) flattened ^= text.charCodeAt(text.length >> 1);
}

class Builder implements ScanEvents {
  readonly stats: PartialStats = { characters: 0, updates: 0, changes: 0, diagnostics: {} };
  readonly #sink: PartialSink;
  readonly #maxValueLength: number;
  readonly #json: JsonScanner;
  readonly #validator: CompiledSchema | undefined;
  readonly #snapshots: boolean;
  /** `snapshots: 'paced'`: an update waits until the input since the last one pays for its copies. */
  readonly #paced: boolean;
  readonly #budget: number;
  /** Characters written since the last update was handed out (paced). */
  #credit = 0;
  /** Members added (elements and keys) since the last update, and the open slots at it (paced). */
  #addedSince = 0;
  #openAtUpdate = 0;
  /** An update is deferred (paced): its changes wait in `changes`. */
  #pending = false;
  /** Where subtrees find their sub-schemas: the JSON Schema, or a Standard Schema's export. */
  #subtreeSchema: JsonSchema | undefined;
  /** The subtree schema compiled whole, whose parts (`at`) check closed subtrees; compiled on first use. */
  #wholeSchema: CompiledSchema | undefined;
  readonly #compileJsonSchema: JsonSchemaCompiler | undefined;
  /** The subtree schema is a vendor's export: one that ajv cannot compile turns subtree checks off. */
  readonly #exported: boolean;
  readonly #valuesOnly: boolean;
  readonly #reportNull: boolean;
  /** Prefix validation, when on and the schema has anything a prefix can break. */
  readonly #prefix: PrefixChecker | undefined;
  /** The coercions `coerce` turns on, and their implementation (`coerceWith`), for subtree checks. */
  readonly #coercion: ReadonlySet<CoercionRule> | undefined;
  readonly #coerceWith: Coercer | undefined;
  /** Absolute offset where the document starts (what its `recovered` diagnostics point at). */
  #documentFrom = 0;

  #root: unknown;
  readonly #frames: Frame[] = [];
  /** Keys seen (raw text → key), at most KEY_CACHE of them. */
  readonly #keys = new Map<string, string>();
  /** The open containers' members, plus one per container (the floor is in these: see publish). */
  #openSlots = 0;
  /** The open objects' members: each costs OBJECT_MEMBER_SLOTS to copy (see copyCost). */
  #openKeys = 0;
  /**
   * Advanced each time a snapshot is handed out: a frame's container with this epoch was created
   * or copied since, so no snapshot holds it and it may be changed in place.
   */
  #epoch = 0;
  /** Changes since the last update: recorded (`trackChanges`), counted, and whether any adds or appends. */
  readonly #track: boolean;
  #changes: Change[] = [];
  #changeCount = 0;
  #valueChanged = false;
  /**
   * The string in flight's value so far. It is written into the tree only when a snapshot or
   * the value is handed out, or the string completes (`placeString`): a chunk inside a long
   * string then costs an append, not a store into its parent (and a copy of the path) each time.
   */
  #stringValue = '';
  #stringPlaced = true;

  // The chunk being scanned; text of a string, number or key in flight before it is kept in
  // `carried` (a held-back escape, a number or key split across chunks): nothing else is kept.
  #chunk = '';
  #chunkBase = 0;
  #received = 0;
  #carried = '';
  #carriedFrom = 0; // absolute offset where `carried` starts
  #phase = PHASE_START;
  #word = ''; // the word read in PHASE_WORD (at most maxValueLength characters)
  #wordFrom = 0; // absolute offset where it starts
  #done = false; // nothing more is read: the document closed or stopped, or input ended
  #closed = false; // a whole document was read

  // The scalar or string value in flight.
  #valueKind = -1;
  #valueFrom = 0;
  #valuePath: readonly PathSegment[] = [];
  #stringDone = 0; // absolute offset up to which the string's raw text was appended

  constructor(options: PartialOptions, sink: PartialSink) {
    checkOptionNames('createPartialBuilder', options, PARTIAL_BUILDER_OPTIONS);
    checkPositiveInteger('maxDepth', options.maxDepth, 'levels');
    checkPositiveInteger('maxValueLength', options.maxValueLength, 'characters');
    checkChoice('updateOn', options.updateOn, ['changes', 'values']);
    checkChoice('nullValue', options.nullValue, ['value', 'report']);
    this.#json = new JsonScanner({ maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH, events: this });
    this.#maxValueLength = options.maxValueLength ?? 8 * 1024 * 1024;
    this.#sink = sink;
    this.#validator = validatorFor(options);
    // validatorFor checked `coerce` and `coerceWith`, and that a schema is there to guide them.
    this.#coercion = coercionRules(options.coerce);
    this.#coerceWith = this.#coercion === undefined ? undefined : options.coerceWith;
    const standard = options.schema !== undefined && isStandardSchema(options.schema);
    this.#exported = standard;
    this.#compileJsonSchema = options.compileJsonSchema;
    this.#subtreeSchema =
      options.compileJsonSchema === undefined
        ? undefined
        : standard
          ? jsonSchemaOf(options.schema as StandardSchemaV1)
          : (options.schema as JsonSchema);
    checkChoice('snapshots', options.snapshots, [true, false, 'paced']);
    const budget = options.snapshotBudget;
    if (budget !== undefined && !(typeof budget === 'number' && budget >= 0 && !Number.isNaN(budget))) {
      throw new ConfigurationError(
        ConfigurationErrorCode.optionInvalid,
        `snapshotBudget must be a number ≥ 0 (slots per character), got ${quoteInput(String(budget))}`,
      );
    }
    this.#snapshots = options.snapshots !== false;
    this.#paced = options.snapshots === 'paced';
    this.#budget = budget ?? DEFAULT_SNAPSHOT_BUDGET;
    this.#valuesOnly = options.updateOn === 'values';
    checkChoice('trackChanges', options.trackChanges, [true, false]);
    this.#track = options.trackChanges !== false;
    this.#reportNull = options.nullValue === 'report';
    this.#prefix = undefined;
    checkChoice('prefixCheck', options.prefixCheck, [true, false]);
    if (options.schema !== undefined && options.prefixCheck !== false) {
      const schema = standard ? jsonSchemaOf(options.schema as StandardSchemaV1) : (options.schema as JsonSchema);
      if (schema !== undefined) {
        const checker = new PrefixChecker(
          schema,
          (v) => this.#violation(v),
          standard,
          this.#coercion === undefined ? {} : { repairable: this.#coercion },
        );
        if (checker.active) this.#prefix = checker;
      }
    }
  }

  get value(): unknown {
    this.#placeString();
    // The tree may hold containers not yet handed out (paced: deferred changes; or the string in
    // flight just placed): once read, they are a snapshot, copied before any later change.
    if (this.#snapshots) this.#epoch++;
    return this.#root;
  }

  get complete(): boolean {
    return this.#closed;
  }

  get deferred(): boolean {
    return this.#pending;
  }

  flush(limit?: number): boolean {
    if (this.#pending && limit !== undefined && !(this.#copyCost() <= limit || this.#paidFor())) return false;
    const updates = this.stats.updates;
    this.#publish(true);
    return this.stats.updates !== updates;
  }

  write(text: string): void {
    this.stats.characters += text.length;
    this.#credit += text.length;
    if (this.#done || text.length === 0) {
      this.#received += text.length;
      return;
    }
    let base = this.#received;
    this.#received += text.length;
    if (this.#phase !== PHASE_DOCUMENT) {
      const first = this.#findDocument(text, base);
      if (first < 0) return;
      text = text.slice(first);
      base += first;
    }
    this.#chunk = text;
    this.#chunkBase = base;
    const end = this.#json.scan(text, 0, base);
    if (end === SCAN_ERROR) {
      // The string in flight shows its text up to the error, as it would had the chunk ended
      // there: chunking does not matter.
      const at = base + this.#json.errorIndex;
      this.#flushString(at);
      this.#publish(true);
      this.#fail(at);
      this.#carried = '';
      return;
    }
    if (end >= 0) {
      this.#done = true;
      this.#closed = true;
      const result = this.#coerceDocument();
      this.#publish(true);
      this.#reportInvalid(result ?? this.#validator?.validate(this.#root), base + end);
      return;
    }
    this.#flushString(this.#received);
    const open = this.#json.keyOpenAt >= 0 ? this.#json.keyOpenAt : this.#valueKind > 0 ? this.#valueFrom : -1;
    if (open >= 0 && this.#received - open > this.#maxValueLength) {
      this.#report(
        DiagnosticReason.tooLong,
        open,
        `a string, number or key longer than maxValueLength (${this.#maxValueLength} characters); the document stops here`,
      );
      this.#done = true;
    }
    this.#carry();
    this.#publish();
  }

  end(): void {
    if (this.#done) return;
    this.#done = true;
    if ((this.#phase === PHASE_WORD || this.#phase === PHASE_AFTER_WORD) && this.#endWord()) return;
    if (this.#phase !== PHASE_DOCUMENT) {
      this.#report(DiagnosticReason.truncated, this.#received, 'no JSON document found');
      return;
    }
    // A deferred update goes out before the diagnostic that says the document was cut.
    this.#publish(true);
    this.#report(
      DiagnosticReason.truncated,
      this.#received,
      `input ended inside the document (${this.#frames.length} open); the value so far is the last snapshot`,
    );
  }

  // ---- where the document starts ----------------------------------------------------------

  /**
   * Follows the text before the document (see the contract): returns the index in `text`
   * (which starts at absolute offset `base`) where the scanner starts, or -1 when it does not
   * start in this chunk.
   */
  #findDocument(text: string, base: number): number {
    let i = 0;
    if (this.#phase === PHASE_START) {
      i = skipWhitespace(text, 0);
      if (i === text.length) return -1;
      const c = text.charCodeAt(i);
      if (c === 0x7b || c === 0x5b || c === 0x22) {
        this.#phase = PHASE_DOCUMENT;
        this.#documentFrom = base + i;
        return i;
      }
      if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e) {
        this.#phase = PHASE_WORD;
        this.#wordFrom = base + i;
      } else {
        this.#phase = PHASE_PROSE;
      }
    }
    if (this.#phase === PHASE_WORD) {
      WORD_END.lastIndex = i;
      const end = WORD_END.test(text) ? WORD_END.lastIndex - 1 : text.length;
      this.#word += text.slice(i, end);
      i = end;
      if (this.#word.length > this.#maxValueLength) {
        // Longer than any scalar kept while it streams: prose (it holds no bracket).
        this.#phase = PHASE_PROSE;
      } else if (end === text.length) {
        return -1;
      } else {
        const c = text.charCodeAt(end);
        this.#phase = c === 0x7b || c === 0x5b ? PHASE_PROSE : PHASE_AFTER_WORD;
      }
    }
    if (this.#phase === PHASE_AFTER_WORD) {
      i = skipWhitespace(text, i);
      if (i === text.length) return -1;
      this.#phase = PHASE_PROSE;
    }
    this.#word = '';
    OPENER.lastIndex = i;
    if (!OPENER.test(text)) return -1;
    this.#phase = PHASE_DOCUMENT;
    this.#documentFrom = base + OPENER.lastIndex - 1;
    return OPENER.lastIndex - 1;
  }

  /** The input ended after a word and whitespace: the document, when the word is a JSON scalar. */
  #endWord(): boolean {
    let value: unknown;
    try {
      value = JSON.parse(this.#word);
    } catch {
      return false;
    }
    this.#root = value;
    this.#closed = true;
    this.#documentFrom = this.#wordFrom;
    this.#added([], value);
    this.#completed([]);
    const result = this.#coerceDocument();
    this.#publish(true);
    if (this.#prefix !== undefined) {
      // A word is the document only once the input ends: that is when anything about it is certain.
      const at = this.#wordFrom + this.#word.length;
      this.#prefix.start(0, this.#word.charCodeAt(0), at, []);
      this.#prefix.endScalar(value, this.#word, at);
    }
    this.#reportInvalid(result ?? this.#validator?.validate(this.#root), this.#wordFrom + this.#word.length);
    return true;
  }

  // ---- scanner events -------------------------------------------------------------------

  valueStart(depth: number, start: number): void {
    if (this.#done) return;
    const c = this.#charAt(start);
    const path = this.#childPath(depth);
    if (depth > 0) {
      const parent = this.#frames[depth - 1] as Frame;
      parent.members++;
      this.#openSlots++;
      this.#addedSince++;
      if (!parent.isArray) this.#openKeys++;
    }
    this.#prefix?.start(depth, c, start, path);
    if (c === 0x7b || c === 0x5b) {
      const node: Container = c === 0x5b ? [] : {};
      this.#place(depth, path, node);
      this.#changeCount++;
      this.#valueChanged = true;
      if (this.#track) this.#changes.push({ op: 'add', path, value: c === 0x5b ? [] : {} });
      this.#frames.push({ node, path, isArray: c === 0x5b, key: undefined, members: 0, epoch: this.#epoch });
      this.#openSlots++;
      this.#valueKind = -1;
    } else if (c === 0x22) {
      this.#place(depth, path, '');
      this.#added(path, '');
      this.#stringValue = '';
      this.#stringPlaced = true;
      this.#valueKind = KIND_STRING;
      this.#valueFrom = start;
      this.#valuePath = path;
      this.#stringDone = start + 1;
    } else {
      this.#valueKind = KIND_SCALAR;
      this.#valueFrom = start;
      this.#valuePath = path;
    }
  }

  valueEnd(depth: number, end: number): void {
    if (this.#done) return;
    const kind = this.#valueKind;
    this.#valueKind = -1;
    if (kind === KIND_STRING) {
      this.#appendString(end - 1);
      this.#completed(this.#valuePath);
      const complete = this.#stringValue;
      this.#placeString();
      this.#stringValue = '';
      flatten(complete);
      this.#prefix?.endString(complete, end - 1);
      this.#checkSubtree(this.#valuePath, complete, end);
    } else if (kind === KIND_SCALAR) {
      const text = this.#text(this.#valueFrom, end);
      const value = scalarOf(text);
      this.#prefix?.endScalar(value, text, end);
      this.#place(depth, this.#valuePath, value);
      this.#added(this.#valuePath, value);
      this.#completed(this.#valuePath);
      this.#checkSubtree(this.#valuePath, value, end);
    } else {
      const frame = this.#frames.pop();
      if (frame !== undefined) {
        this.#openSlots -= frame.members + 1;
        if (!frame.isArray) this.#openKeys -= frame.members;
        this.#prefix?.close();
        this.#completed(frame.path);
        this.#checkSubtree(frame.path, frame.node, end);
      }
    }
  }

  key(depth: number, start: number, end: number): void {
    const frame = this.#frames[depth - 1];
    if (frame === undefined) return;
    // The key's text between its quotes; decoded only when it has an escape.
    const raw = this.#text(start + 1, end - 1);
    let key = this.#keys.get(raw);
    if (key === undefined) {
      key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
      if (raw.length <= KEY_CACHE_LENGTH && this.#keys.size < KEY_CACHE) {
        // The same key object each time it recurs: once used as a property name it is the
        // engine's own (internalized), so storing members under it takes the fast path. Copies,
        // not slices of the chunk (a slice would keep the whole chunk alive).
        const copy = `${key}\0`.slice(0, -1);
        key = copy;
        this.#keys.set(`${raw}\0`.slice(0, -1), copy);
      }
    }
    frame.key = key;
    if (this.#prefix !== undefined && !this.#done) this.#prefix.key(depth, key, end - 1);
  }

  // ---- building -----------------------------------------------------------------------------

  /** A value was added at `path` (recorded when changes are tracked). */
  #added(path: readonly PathSegment[], value: unknown): void {
    this.#changeCount++;
    this.#valueChanged = true;
    if (this.#track) this.#changes.push({ op: 'add', path, value });
  }

  /** The value at `path` closed. */
  #completed(path: readonly PathSegment[]): void {
    this.#changeCount++;
    if (this.#track) this.#changes.push({ op: 'complete', path });
  }

  #childPath(depth: number): readonly PathSegment[] {
    if (depth === 0) return [];
    const frame = this.#frames[depth - 1] as Frame;
    const segment = frame.isArray ? (frame.node as unknown[]).length : (frame.key as string);
    return [...frame.path, segment];
  }

  /** Sets the value at `path` (a child of the frame at `depth - 1`, or the root). */
  #place(depth: number, path: readonly PathSegment[], value: unknown): void {
    if (depth === 0) {
      this.#root = value;
      return;
    }
    const parent = this.#own(depth - 1);
    const segment = path[path.length - 1] as PathSegment;
    if (Array.isArray(parent)) parent[segment as number] = value;
    else setKey(parent, segment as string, value);
  }

  /**
   * Makes the frame at `index` (and every frame around it) writable, copying what a snapshot
   * holds. A frame's container is owned only if its parent's is (a copy or a new container is
   * always linked into an owned parent), so the copies run from the outermost unowned frame
   * inwards: a loop, never a recursion as deep as the value.
   */
  #own(index: number): Container {
    const frames = this.#frames;
    const target = frames[index] as Frame;
    const epoch = this.#epoch;
    if (!this.#snapshots || target.epoch === epoch) return target.node;
    let first = index;
    while (first > 0 && (frames[first - 1] as Frame).epoch !== epoch) first--;
    for (let i = first; i <= index; i++) {
      const frame = frames[i] as Frame;
      const copy: Container = Array.isArray(frame.node)
        ? frame.node.slice()
        : frame.members <= SPREAD_MEMBERS
          ? { ...frame.node }
          : copyRecord(frame.node);
      frame.epoch = epoch;
      frame.node = copy;
      if (i === 0) {
        this.#root = copy;
      } else {
        const parent = (frames[i - 1] as Frame).node;
        const segment = frame.path[frame.path.length - 1] as PathSegment;
        if (Array.isArray(parent)) parent[segment as number] = copy;
        else setKey(parent, segment as string, copy);
      }
    }
    return target.node;
  }

  /** Appends the string's raw text decoded so far (up to `to`, exclusive). */
  #appendString(to: number, rawText?: string): void {
    if (to <= this.#stringDone) return;
    const rawFrom = this.#stringDone;
    const raw = rawText ?? this.#text(rawFrom, to);
    this.#stringDone = to;
    const text = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
    if (text === '') return;
    const full = this.#stringValue + text;
    this.#stringValue = full;
    this.#stringPlaced = false;
    this.#changeCount++;
    this.#valueChanged = true;
    if (this.#track) this.#changes.push({ op: 'append', path: this.#valuePath, value: text });
    this.#prefix?.append(full, text, raw, rawFrom);
  }

  /** Writes the string in flight's value so far into the tree, when it changed since it last was. */
  #placeString(): void {
    if (this.#stringPlaced) return;
    this.#stringPlaced = true;
    const path = this.#valuePath;
    this.#place(path.length, path, this.#stringValue);
  }

  /** At the end of a chunk (or an error at `to`): the string in flight shows what has arrived of it. */
  #flushString(to: number): void {
    if (this.#valueKind !== KIND_STRING) return;
    const raw = this.#text(this.#stringDone, to);
    const held = unfinishedEscape(raw);
    this.#appendString(to - held, held === 0 ? raw : raw.slice(0, raw.length - held));
  }

  /**
   * Hands the changes of this write (and of deferred ones) to the sink; the snapshot becomes
   * read-only. Paced, unless `force`d or the document is done, the update is deferred while
   * its snapshot would cost more copying than the input since the last one pays for.
   */
  #publish(force = false): void {
    if (this.#changeCount === 0) return;
    // Only `complete` changes: nothing was copied, the snapshot is the one already handed out.
    if (this.#valuesOnly && !this.#valueChanged) return;
    if (this.#paced && !force && !this.#done && this.#openSlots > SNAPSHOT_FLOOR && !this.#paidFor()) {
      this.#pending = true;
      return;
    }
    this.#pending = false;
    this.#credit = 0;
    this.#addedSince = 0;
    this.#openAtUpdate = this.#openSlots;
    this.#placeString();
    const changes = this.#track ? this.#changes : NO_CHANGES;
    const count = this.#changeCount;
    if (this.#track) this.#changes = [];
    this.#changeCount = 0;
    this.#valueChanged = false;
    if (this.#snapshots) this.#epoch++;
    if (this.#root === null && this.#reportNull) {
      this.#report(
        DiagnosticReason.nullValue,
        this.#wordFrom,
        "the document is null, which cannot be delivered as a snapshot on this stream; use emit 'both' or 'changes' to receive it (the stream's value is null and complete is true)",
        'null',
      );
      return;
    }
    this.stats.updates++;
    this.stats.changes += count;
    this.#sink.update(this.#root, changes);
  }

  /**
   * What handing out the snapshot now would cost: the next write copies the open containers
   * around the value in flight (own()), in slots (an element one, an object member
   * OBJECT_MEMBER_SLOTS), one more per container for its allocation.
   */
  #copyCost(): number {
    return this.#openSlots + (OBJECT_MEMBER_SLOTS - 1) * this.#openKeys;
  }

  /**
   * The input since the last update pays for the copies that handing one out now causes: at
   * `snapshotBudget` slots per character, or because the members added since then are at least
   * as many as were open at it (the open containers doubled). The second keeps a wide object
   * of short members (`"a1":1,` is 7 characters, 28 slots at budget 4, less than a key's 32)
   * showing as it grows; the copies it allows are at most 3 members per member added. Not
   * with a budget of 0 (updates then wait for `flush()`, a small one, or the end).
   */
  #paidFor(): boolean {
    const cost = this.#copyCost();
    return cost <= this.#credit * this.#budget || (this.#budget > 0 && this.#addedSince >= this.#openAtUpdate);
  }

  /**
   * A subtree (not the root) closed: check it against its sub-schema, when there is one. The
   * sub-schema is the whole schema's part, compiled in place (`CompiledSchema.at`) where the
   * compiler can, so that its references mean what they mean to the whole; otherwise the
   * standalone sub-schema. A sub-schema that cannot be compiled (a reference to a document not
   * given, a vendor export ajv refuses) turns subtree checks off: the document is still checked
   * whole when it completes, and nothing after construction throws.
   */
  #checkSubtree(path: readonly PathSegment[], value: unknown, at: number): void {
    if (this.#subtreeSchema === undefined || path.length === 0) return;
    const coercion = this.#coercion;
    const coercing = coercion !== undefined && this.#coerceWith !== undefined;
    let sub: JsonSchema | undefined;
    let validator: CompiledSchema | undefined;
    try {
      // The whole was compiled when the stream was made (a cache hit, kept in `wholeSchema`); a
      // vendor's export is the vendor's to check whole, and is not compiled for this.
      if (!this.#exported) {
        const pointer = subSchemaPointer(this.#subtreeSchema, path);
        if (pointer === undefined) return;
        this.#wholeSchema ??= compileJsonSchemaWith(this.#compileJsonSchema, this.#subtreeSchema, {});
        validator = this.#wholeSchema.at?.(pointer);
      }
      if (validator === undefined || coercing) {
        sub = subSchemaAt(this.#subtreeSchema, path);
        if (sub === undefined) return;
        // compileSchema caches by schema object, and subSchemaAt returns the same object each time.
        validator ??= compileJsonSchemaWith(this.#compileJsonSchema, sub, {});
      }
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      this.#subtreeSchema = undefined;
      return;
    }
    if (validator === undefined) return;
    if (coercing && sub !== undefined) {
      // `null-to-absent` may remove a `null` member when its parent is coerced: not certain here.
      if (value === null && coercion.has(CoercionRule.nullToAbsent) && typeof path[path.length - 1] === 'string') {
        return;
      }
      // Valid once coerced under its sub-schema: the document's repairs are reported at its end.
      validator = (this.#coerceWith as Coercer)(validator, sub, coercion);
    }
    const result = validator.validate(value);
    if (result.valid) return;
    const pointer = path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
    countDiagnostic(this.stats.diagnostics, DiagnosticReason.schema);
    this.#sink.diagnostic({
      reason: DiagnosticReason.schema,
      offset: at,
      excerpt: '',
      message: `the value at ${pointer} does not match its schema: ${result.message}`,
      errors: result.errors.map((e) => ({ ...e, path: pointer + e.path })),
      ...(result.branch === undefined ? {} : { branch: result.branch }),
    });
  }

  /** The prefix checker found a violation: report it (`path` and `rule` say where and what). */
  #violation(found: PrefixViolation): void {
    countDiagnostic(this.stats.diagnostics, DiagnosticReason.violation);
    this.#sink.diagnostic({
      reason: DiagnosticReason.violation,
      offset: found.offset,
      excerpt: excerptAround(found.excerpt),
      message: found.message,
      path: pointerOf(found.path),
      rule: found.rule,
      ...(found.branch === undefined ? {} : { branch: found.branch }),
    });
  }

  /**
   * With `coerce`, the document is complete (its changes not yet published): validates it.
   * When it is valid only once coerced, reports each repair, makes the coerced value the root
   * and adds the changes that lead to it. Returns the result, for reportInvalid after the
   * publish; undefined without `coerce` (the document is then validated after the publish).
   */
  #coerceDocument(): ValidationResult | undefined {
    if (this.#validator === undefined || this.#coercion === undefined) return undefined;
    const result = this.#validator.validate(this.#root);
    if (!result.valid || result.fixes === undefined || result.fixes.length === 0) return result;
    const raw = this.#root;
    for (const fix of result.fixes) {
      countDiagnostic(this.stats.diagnostics, DiagnosticReason.recovered);
      this.#sink.diagnostic(coercionDiagnostic(fix, this.#documentFrom, excerptAt(raw, fix.path), result.branch));
    }
    const coerced = result.value;
    const changes: Change[] = [];
    diffChanges(raw, coerced, changes);
    for (const change of changes) {
      this.#changeCount++;
      if (change.op !== 'complete') this.#valueChanged = true;
      if (this.#track) this.#changes.push(change);
    }
    this.#root = coerced;
    return result;
  }

  /** The document was invalid (and coercion, if on, could not repair it): the `schema` diagnostic. */
  #reportInvalid(result: ValidationResult | undefined, at: number): void {
    if (result === undefined || result.valid) return;
    countDiagnostic(this.stats.diagnostics, DiagnosticReason.schema);
    this.#sink.diagnostic({
      reason: DiagnosticReason.schema,
      offset: at,
      excerpt: '',
      message: `the complete document does not match the schema: ${result.message}`,
      errors: result.errors,
      ...(result.branch === undefined ? {} : { branch: result.branch }),
    });
  }

  #fail(at: number): void {
    this.#done = true;
    this.#report(
      this.#json.depthExceeded ? DiagnosticReason.tooDeep : DiagnosticReason.syntax,
      at,
      `the document is not valid JSON at offset ${at}: ${this.#json.errorMessage}; the value so far is the last snapshot`,
    );
  }

  #report(reason: Diagnostic['reason'], offset: number, message: string, excerpt?: string): void {
    countDiagnostic(this.stats.diagnostics, reason);
    if (excerpt === undefined) {
      const from = Math.max(this.#chunkBase, offset - 60);
      excerpt = this.#chunk.slice(from - this.#chunkBase, Math.max(from, offset + 1) - this.#chunkBase);
    }
    this.#sink.diagnostic({ reason, offset, excerpt: excerptAround(excerpt), message });
  }

  #charAt(at: number): number {
    return this.#chunk.charCodeAt(at - this.#chunkBase);
  }

  /** Text from `from` to `to` (absolute): the carried piece, then the current chunk. */
  #text(from: number, to: number): string {
    const chunkFrom = from - this.#chunkBase;
    if (chunkFrom >= 0) return this.#chunk.slice(chunkFrom, to - this.#chunkBase);
    const head = this.#carried.slice(from - this.#carriedFrom);
    return to <= this.#chunkBase ? head.slice(0, to - from) : head + this.#chunk.slice(0, to - this.#chunkBase);
  }

  /** At the end of a chunk: keeps the text a key, number or string in flight still needs. */
  #carry(): void {
    const key = this.#json.keyOpenAt;
    const from =
      key >= 0
        ? key
        : this.#valueKind === KIND_SCALAR
          ? this.#valueFrom
          : this.#valueKind === KIND_STRING
            ? this.#stringDone
            : -1;
    if (from < 0 || this.#done) {
      this.#carried = '';
      return;
    }
    // A key or number that goes on through this chunk: append the chunk to what is carried
    // (a rope append), never copy the carried text again, so a long one stays linear.
    if (from === this.#carriedFrom && from < this.#chunkBase && this.#carried.length === this.#chunkBase - from) {
      this.#carried += this.#chunk;
      return;
    }
    this.#carried = this.#text(from, this.#received);
    this.#carriedFrom = from;
  }
}

/**
 * Most a snapshot that the Node and Web partial streams' timer hands out
 * (`flush(TIMER_FLUSH_SLOTS)`) may cost the next chunk in copies, in the builder's slots (an
 * array element one, an object member 32): about a millisecond at most. A larger
 * held-back snapshot waits for the input to pay for it (`snapshotBudget`), a later chunk or
 * the end. Unbounded, a timer firing between the chunks of a fast source copied a wide object
 * whole every 16 ms: quadratic time (decision 020, addendum of 2026-11-27).
 */
export const TIMER_FLUSH_SLOTS = 16_384;

/** Creates a partial-value builder. Throws ConfigurationError for a broken configuration. */
export function createPartialBuilder<S extends SchemaInput = SchemaInput>(
  options: PartialOptions<S>,
  sink: PartialSink<SchemaValue<S>>,
): PartialBuilder<SchemaValue<S>> {
  // Type-level only: the snapshots are typed by the caller's schema.
  return new Builder(options, sink as PartialSink) as PartialBuilder<SchemaValue<S>>;
}

/** A JSON Pointer's keys (as coercion fixes write them: `~0`, `~1` escapes, no percent-encoding). */
function keysOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** What a coercion fix's excerpt shows: the raw value at its path (a container by its kind), or nothing. */
function excerptAt(root: unknown, pointer: string): string {
  let node = root;
  for (const key of keysOf(pointer)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return '';
    node = (node as Record<string, unknown>)[key];
  }
  if (Array.isArray(node)) return node.length === 0 ? '[]' : '[…]';
  if (typeof node === 'object' && node !== null) return Object.keys(node).length === 0 ? '{}' : '{…}';
  return JSON.stringify(node) ?? '';
}

// ---- option names (the options policy: options/option-checks.ts) ----------------------------

/** The options `createPartialBuilder` takes. */
export const PARTIAL_BUILDER_OPTIONS = /* @__PURE__ */ optionNames<PartialOptions>()([
  'schema',
  'discriminator',
  'maxDepth',
  'maxValueLength',
  'snapshots',
  'snapshotBudget',
  'updateOn',
  'nullValue',
  'prefixCheck',
  'trackChanges',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
]);

/** The options `createPartialStream` takes. */
export const PARTIAL_STREAM_OPTIONS = /* @__PURE__ */ optionNames<
  Omit<PartialOptions, 'updateOn' | 'nullValue' | 'trackChanges'> &
    AdapterOptions & { emit?: unknown; maxSnapshotDelay?: unknown }
>()([
  'schema',
  'discriminator',
  'maxDepth',
  'maxValueLength',
  'snapshots',
  'snapshotBudget',
  'prefixCheck',
  'compileJsonSchema',
  'onWarning',
  'coerce',
  'coerceWith',
  'highWaterMark',
  'onDiagnostic',
  'failFast',
  'abortController',
  'emit',
  'maxSnapshotDelay',
]);
