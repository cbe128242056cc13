/**
 * The llmjson wire format, version 2: what `toEventStream` writes and `fromEventStream` reads
 * (docs/guide/live-wire.md is the specification another language can produce it from).
 *
 * A stream is a sequence of payloads, each one JSON text without a line break, framed as
 * Server-Sent Events (`data: PAYLOAD` and a blank line; every payload but a change list is
 * preceded by `event: TYPE`) or as NDJSON (one payload per line):
 * - `{"type":"start","v":2}` first, always;
 * - a change list: a JSON array of changes in the compact form of wire-changes.ts (each change
 *   relative to the one before it: a string appends, an integer completes, `[levels, segment,
 *   value]` adds), or with its whole path (`{"op":"add","path":[…],"value":V}`, version 1's
 *   only form, still read); an added value is a scalar, a string, `{}` or `[]` (containers are
 *   filled by later changes);
 * - `{"type":"diagnostic","diagnostic":{…}}`, a diagnostic of the producer;
 * - `{"type":"end","complete":B,"valid":B,"stats":{…}}` last (with `"error":"message"` when the
 *   producer failed).
 *
 * Invariants: encoding a change never reads a container's members (a container is written as
 * `{}` or `[]`: the builder's live containers are mutated after the change is made, and the
 * members travel as their own changes), so a change list costs bytes linear in the text it
 * adds, and in the compact form about the bytes of that text. Checking a change
 * (`ShapeTracker`) keeps the shape of the state only — containers, string lengths — in `Map`s
 * and arrays, so no key a hostile stream sends can reach a prototype, and the state a consumer
 * builds from accepted changes is exactly one that `applyChanges` accepts.
 */

import {
  type Change,
  ConfigurationError,
  ConfigurationErrorCode,
  type Diagnostic,
  DiagnosticReason,
  type PathSegment,
} from '@llmjson/core';
import { describeValue, optionNames, quoteInput } from '@llmjson/core/internal';

/** The wire format's version: the `v` of the start event. */
export const WIRE_FORMAT_VERSION = 2;
/** The versions `fromEventStream` reads (1: every change with its whole path). */
export const WIRE_FORMAT_VERSIONS_READ: readonly number[] = [1, 2];

/** How payloads are framed: Server-Sent Events or one JSON payload per line. */
export type WireFormat = 'sse' | 'ndjson';

/** The Content-Type of each framing. */
export const WIRE_CONTENT_TYPES: Readonly<Record<WireFormat, string>> = {
  sse: 'text/event-stream; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** What the end event reports of the producer's run (a partial stream's `stats`, or counted by `toEventStream`). */
export interface WireStats {
  /** Characters of model text read (0 when the producer did not say). */
  readonly characters: number;
  /** Change lists sent. */
  readonly updates: number;
  /** Changes sent. */
  readonly changes: number;
  /** Diagnostics by reason. */
  readonly diagnostics: Readonly<Partial<Record<DiagnosticReason, number>>>;
}

/** The last event: whether the document is whole and valid, and the producer's figures. */
export interface WireEnd {
  readonly type: 'end';
  /** The whole document was read (never for one cut off or broken). */
  readonly complete: boolean;
  /** Complete, and no `schema` or `violation` diagnostic: the verdict of the producer's checks. */
  readonly valid: boolean;
  readonly stats: WireStats;
  /** Why the producer stopped early (its source failed), when it did. */
  readonly error?: string;
}

/** A change list that passed the checks (changes that failed them are left out and reported). */
export interface WireChanges {
  readonly type: 'changes';
  readonly changes: readonly Change[];
}

/**
 * A diagnostic: `from: 'server'` the producer's own (relayed), `from: 'wire'` found by
 * `fromEventStream` in what arrived (its `line` and `offset` are the event's in the decoded body).
 */
export interface WireDiagnostic {
  readonly type: 'diagnostic';
  readonly from: 'server' | 'wire';
  readonly diagnostic: Diagnostic;
}

/** What `fromEventStream` yields. */
export type WireEvent = WireChanges | WireDiagnostic | WireEnd;

/** Default `maxEventLength`: 16 Mi characters (an 8 MiB string the builder may add whole, escaped). */
export const DEFAULT_MAX_EVENT_LENGTH = 16 * 1024 * 1024;
/** Default `maxValueLength`: 8 Mi characters, the partial builder's own default. */
export const DEFAULT_MAX_VALUE_LENGTH = 8 * 1024 * 1024;
/** Default `maxDepth`: 512 path segments, the partial builder's own default. */
export const DEFAULT_MAX_DEPTH = 512;

/** The options of `toEventStream`. */
export interface ToEventStreamOptions {
  /** `'sse'` (default): Server-Sent Events; `'ndjson'`: one JSON payload per line. */
  readonly format?: WireFormat;
  /**
   * While the source is silent this long, in milliseconds, a keep-alive goes out (an SSE comment
   * line, an empty NDJSON line; readers skip both), so that proxies that close idle connections
   * (often after 30 to 60 s) keep a model that thinks before it answers. Default 15 000; 0 turns it off.
   */
  readonly keepAliveInterval?: number;
  /**
   * At most one change event per this many milliseconds: change lists that arrive sooner after
   * the last event are gathered (and their appends to one string joined) into the next, sent as
   * soon as the interval is over. The first change list after a quiet spell goes out at once.
   * A UI shows at most one update per display frame, and every event costs framing bytes: at
   * 2 000 tokens a second one event per token is 2 000 events of 4 characters. Default 50;
   * 0: one event per change list, as the source yields them.
   */
  readonly throttle?: number;
}

/** Default `throttle` of `toEventStream`, in milliseconds. */
export const DEFAULT_EVENT_THROTTLE = 50;

/** Default `keepAliveInterval`, in milliseconds. */
export const DEFAULT_KEEP_ALIVE_INTERVAL = 15_000;

/** The options of `fromEventStream`. */
export interface FromEventStreamOptions {
  /**
   * `'sse'` or `'ndjson'`; default: from a Response's Content-Type when it names one, else from
   * the body (a first non-blank character `{` or `[` is NDJSON, anything else SSE).
   */
  readonly format?: WireFormat;
  /** Longest event (an SSE event's lines, an NDJSON line), in characters; longer ones are dropped (`too-long`). Default 16 Mi. */
  readonly maxEventLength?: number;
  /** Longest string a change may add or an append may grow, in characters (`too-long`). Default 8 Mi. */
  readonly maxValueLength?: number;
  /** Longest change path, in segments (`too-deep`). Default 512. */
  readonly maxDepth?: number;
  /** Stops reading: the body is cancelled and the iteration throws the signal's reason. */
  readonly signal?: AbortSignal;
}

/** The options of `createPartialStore`. */
export interface PartialStoreOptions {
  /** Called with what a listener threw (the other listeners are still called). Default: `console.error`. */
  readonly onListenerError?: (error: unknown) => void;
}

/** The option names each factory takes, checked by the factories and by docs/guide/options.md's test. */
export const TO_EVENT_STREAM_OPTIONS = /* @__PURE__ */ optionNames<ToEventStreamOptions>()([
  'format',
  'keepAliveInterval',
  'throttle',
]);
export const FROM_EVENT_STREAM_OPTIONS = /* @__PURE__ */ optionNames<FromEventStreamOptions>()([
  'format',
  'maxEventLength',
  'maxValueLength',
  'maxDepth',
  'signal',
]);
export const PARTIAL_STORE_OPTIONS = /* @__PURE__ */ optionNames<PartialStoreOptions>()(['onListenerError']);

/** Every wire factory's list, by factory, for test/docs/options-tables.test.ts. */
export const WIRE_OPTION_NAMES: Readonly<Record<string, readonly string[]>> = {
  toEventStream: TO_EVENT_STREAM_OPTIONS,
  fromEventStream: FROM_EVENT_STREAM_OPTIONS,
  createPartialStore: PARTIAL_STORE_OPTIONS,
};

/** Throws ConfigurationError (OPTION_INVALID) unless `value` is absent or a positive safe integer. */
export function checkLimit(name: string, value: unknown, unit: string): void {
  if (value === undefined || (Number.isSafeInteger(value) && (value as number) > 0)) return;
  throw new ConfigurationError(
    ConfigurationErrorCode.optionInvalid,
    `${name} must be a positive integer (${unit}), got ${describeValue(value)}`,
  );
}

/** A change as the wire carries it: an added container is empty (its members are changes of their own). */
export function wireChange(change: Change): Change {
  if (change.op !== 'add' || typeof change.value !== 'object' || change.value === null) return change;
  return { op: 'add', path: change.path, value: Array.isArray(change.value) ? [] : {} };
}

/**
 * The shape of the state that accepted changes build: `undefined` nothing yet, a `Map` an
 * object (own keys only), an array an array, a number a string of that length, `null` any
 * other scalar.
 */
type Shape = Map<string, Shape> | Shape[] | number | null;

/** Why a change is refused: the diagnostic's reason and its message. */
export interface Refusal {
  readonly reason: DiagnosticReason;
  readonly message: string;
}

const VALID_OPS = new Set(['add', 'append', 'complete']);

/**
 * Checks change after change against the shape of the state the accepted ones build, and
 * records the accepted ones in it. A refused change leaves the shape as it was.
 */
export class ShapeTracker {
  private root: Shape | undefined;

  constructor(
    private readonly maxValueLength: number,
    private readonly maxDepth: number,
  ) {}

  reset(): void {
    this.root = undefined;
  }

  /** Accepts `change` (returns it, typed) or refuses it (returns why). */
  accept(change: unknown): Change | Refusal {
    if (typeof change !== 'object' || change === null || Array.isArray(change)) {
      return unrecognized(`a change is an object with op and path, got ${describeValue(change)}`);
    }
    const { op, path, value } = change as { op?: unknown; path?: unknown; value?: unknown };
    if (typeof op !== 'string' || !VALID_OPS.has(op)) {
      return unrecognized(`a change's op is "add", "append" or "complete", got ${quoted(op)}`);
    }
    if (!Array.isArray(path)) return unrecognized(`a change's path is an array, got ${describeValue(path)}`);
    if (path.length > this.maxDepth) {
      return {
        reason: DiagnosticReason.tooDeep,
        message: `a path of ${path.length} segments (maxDepth ${this.maxDepth})`,
      };
    }
    for (const segment of path) {
      const isIndex = Number.isSafeInteger(segment) && (segment as number) >= 0;
      if (!isIndex && typeof segment !== 'string') {
        return unrecognized(`a path segment is a string or an integer from 0, got ${quoted(segment)}`);
      }
      if (typeof segment === 'string' && segment.length > this.maxValueLength)
        return this.tooLong('a key', segment.length);
    }
    let added: Shape | undefined;
    if (op === 'add') {
      added = shapeOfAdded(value);
      if (added === undefined) {
        return unrecognized(`an add carries null, a boolean, a number, a string, {} or [], got ${quoted(value)}`);
      }
      if (typeof added === 'number' && added > this.maxValueLength) return this.tooLong('a string', added);
    } else if (op === 'append' && typeof value !== 'string') {
      return unrecognized(`an append carries a string, got ${describeValue(value)}`);
    }
    const segments = path as PathSegment[];
    if (segments.length === 0) return this.atRoot(op, value, added, change as Change);
    let parent = this.root;
    const last = segments.length - 1;
    for (let i = 0; i < last; i++) {
      parent = memberShape(parent, segments[i] as PathSegment);
      if (typeof parent !== 'object' || parent === null) return outside(segments, i);
    }
    const segment = segments[last] as PathSegment;
    if (op === 'add') {
      if (parent instanceof Map && typeof segment === 'string') parent.set(segment, added as Shape);
      else if (Array.isArray(parent) && typeof segment === 'number' && segment <= parent.length)
        parent[segment] = added as Shape;
      else return outside(segments, last);
      return change as Change;
    }
    const current = memberShape(parent, segment);
    if (op === 'complete') return current === undefined ? outside(segments, last) : (change as Change);
    if (typeof current !== 'number') return outside(segments, last, 'is not a string');
    const length = current + (value as string).length;
    if (length > this.maxValueLength) return this.tooLong('a string', length);
    if (parent instanceof Map) parent.set(segment as string, length);
    else (parent as Shape[])[segment as number] = length;
    return change as Change;
  }

  private atRoot(op: string, value: unknown, added: Shape | undefined, change: Change): Change | Refusal {
    if (op === 'add') this.root = added;
    else if (op === 'complete') {
      if (this.root === undefined) return unrecognized('a complete of the root before the root was added');
    } else {
      if (typeof this.root !== 'number') return unrecognized('an append to the root, which is not a string');
      const length = this.root + (value as string).length;
      if (length > this.maxValueLength) return this.tooLong('a string', length);
      this.root = length;
    }
    return change;
  }

  private tooLong(what: string, length: number): Refusal {
    return {
      reason: DiagnosticReason.tooLong,
      message: `${what} of ${length} characters (maxValueLength ${this.maxValueLength})`,
    };
  }
}

function unrecognized(message: string): Refusal {
  return { reason: DiagnosticReason.unrecognized, message };
}

/** A value as a message may quote it: JSON when it has a text, else its kind; at most MAX_QUOTED_LENGTH. */
function quoted(value: unknown): string {
  if (typeof value === 'object' && value !== null) return describeValue(value);
  return quoteInput(JSON.stringify(value) ?? describeValue(value));
}

function outside(path: readonly PathSegment[], position: number, why = 'is not in the state'): Refusal {
  const at = path.slice(0, position + 1).map((s) => quoteInput(String(s), 40));
  return unrecognized(
    `path segment ${position} (${JSON.stringify(at.join('/'))}) ${why}: a change may only follow own members that earlier changes added`,
  );
}

/** The shape of an added value, or undefined when a change may not add it. */
function shapeOfAdded(value: unknown): Shape | undefined {
  if (value === null || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : undefined;
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.length === 0 ? [] : undefined;
  if (
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype &&
    Reflect.ownKeys(value).length === 0
  ) {
    return new Map();
  }
  return undefined;
}

function memberShape(parent: Shape | undefined, segment: PathSegment): Shape | undefined {
  if (parent instanceof Map) return typeof segment === 'string' ? parent.get(segment) : undefined;
  if (Array.isArray(parent)) return typeof segment === 'number' ? parent[segment] : undefined;
  return undefined;
}

const REASONS = new Set<string>(Object.values(DiagnosticReason));

/**
 * A diagnostic relayed by a producer, rebuilt from its known fields (strings quoted to at most
 * MAX_QUOTED_LENGTH, or the whole excerpt and message to a few times that), or why it is refused.
 */
export function checkedDiagnostic(value: unknown): Diagnostic | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'a diagnostic is an object';
  const d = value as Record<string, unknown>;
  if (typeof d.reason !== 'string' || !REASONS.has(d.reason)) return `unknown diagnostic reason ${quoted(d.reason)}`;
  if (typeof d.message !== 'string') return 'a diagnostic has a message string';
  const out: Record<string, unknown> = {
    reason: d.reason,
    offset: count(d.offset) ?? 0,
    excerpt: typeof d.excerpt === 'string' ? quoteInput(d.excerpt) : '',
    message: quoteInput(d.message, 4 * 200),
  };
  for (const name of ['line', 'endLine', 'column'] as const) {
    const n = count(d[name]);
    if (n !== undefined) out[name] = n;
  }
  for (const name of ['path', 'rule', 'branch'] as const) {
    if (typeof d[name] === 'string') out[name] = quoteInput(d[name] as string);
  }
  if (Array.isArray(d.errors)) {
    out.errors = d.errors.slice(0, 21).flatMap((e: unknown) => {
      if (typeof e !== 'object' || e === null) return [];
      const r = e as Record<string, unknown>;
      const text = (x: unknown) => (typeof x === 'string' ? quoteInput(x) : '');
      // params are the validator's own data: kept only as JSON scalars under plain names.
      const params: Record<string, unknown> = {};
      if (typeof r.params === 'object' && r.params !== null) {
        for (const [k, v] of Object.entries(r.params).slice(0, 8)) {
          if (/^[A-Za-z]\w{0,40}$/.test(k) && (v === null || ['string', 'number', 'boolean'].includes(typeof v))) {
            params[k] = typeof v === 'string' ? quoteInput(v) : v;
          }
        }
      }
      return [
        {
          path: text(r.path),
          keyword: text(r.keyword),
          message: text(r.message),
          schemaPath: text(r.schemaPath),
          params,
        },
      ];
    });
  }
  return out as unknown as Diagnostic;
}

function count(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/** A producer's end event rebuilt from its known fields, or why it is refused. */
export function checkedEnd(value: Record<string, unknown>): WireEnd | string {
  if (typeof value.complete !== 'boolean' || typeof value.valid !== 'boolean') {
    return 'an end event has boolean complete and valid';
  }
  const stats = typeof value.stats === 'object' && value.stats !== null ? (value.stats as Record<string, unknown>) : {};
  const diagnostics: Partial<Record<DiagnosticReason, number>> = {};
  const counts = stats.diagnostics;
  if (typeof counts === 'object' && counts !== null) {
    for (const reason of REASONS) {
      const n = count((counts as Record<string, unknown>)[reason]);
      if (n !== undefined && Object.hasOwn(counts, reason)) diagnostics[reason as DiagnosticReason] = n;
    }
  }
  const end: WireEnd = {
    type: 'end',
    complete: value.complete,
    valid: value.valid,
    stats: {
      characters: count(stats.characters) ?? 0,
      updates: count(stats.updates) ?? 0,
      changes: count(stats.changes) ?? 0,
      diagnostics,
    },
    ...(typeof value.error === 'string' ? { error: quoteInput(value.error, 4 * 200) } : {}),
  };
  return end;
}
