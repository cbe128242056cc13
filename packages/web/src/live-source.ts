/**
 * `createLiveJson` / `createLiveJsonl`: one live answer held for a UI — a fetch Response, a
 * stream, or a function that starts the request — read to its end into a state that React's
 * `useSyncExternalStore` and a Vue `shallowRef` wrap (`getState` / `subscribe`), with `start`
 * and `abort`. The framework bindings (@llmjson/react, @llmjson/vue) are thin layers over this.
 *
 * Invariants:
 * 1. `getState()` returns the same frozen object until a publish; a publish makes a new one and
 *    then calls every listener once. So a subscriber never sees a state torn between two reads.
 * 2. Throttling never loses the last state: a change schedules one publish (a frame, a timer, or
 *    at once for 0), later changes ride on it, and a status change (`done`, `error`, `aborted`)
 *    publishes at once with everything read so far, cancelling the scheduled one.
 * 3. One run per controller: `start` is idempotent, and a new source is a new controller (the
 *    bindings make one per source or `key`). `abort` stops the run — the function source's
 *    AbortSignal fires, the body is cancelled — and is a no-op once the run settled.
 * 4. Nothing global is touched when the module loads or a controller is made: the frame clock
 *    (`requestAnimationFrame`, or a 16 ms timer where there is none, as under SSR) is looked up
 *    when a publish is scheduled, so server rendering can import and create controllers freely.
 * 5. Every diagnostic — the text decoder's, the wire's, the server's relayed ones, a change the
 *    store refused — lands in `diagnostics` and goes to `onDiagnostic` once, when it arrives
 *    (not throttled).
 */

import {
  type Change,
  ConfigurationError,
  ConfigurationErrorCode,
  type DeepPartial,
  type Diagnostic,
  type JsonSchemaCompiler,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
import { checkChoice, checkOptionNames, describeValue, optionNames } from '@llmjson/core/internal';
import { fromEventStream } from './from-event-stream.js';
import { createJsonlStream } from './jsonl-stream.js';
import { createPartialStore, type PartialStoreState } from './partial-store.js';
import { createPartialStream } from './partial-stream.js';
import type { WireEnd, WireEvent } from './wire-format.js';

/** A body a live source yields: bytes or text chunks. */
export type LiveBody = ReadableStream<Uint8Array | string> | ReadableStream<Uint8Array> | ReadableStream<string>;

/**
 * What a binding reads: a fetch Response, a byte/text stream, or a function that starts the
 * request (called once per start, with the controller's AbortSignal: pass it to `fetch`).
 */
export type LiveSource =
  | Response
  | LiveBody
  | ((signal: AbortSignal) => Response | LiveBody | Promise<Response | LiveBody>);

/** Where a run is: not started, reading, read to its end, failed, stopped by `abort`. */
export type LiveStatus = 'idle' | 'streaming' | 'done' | 'error' | 'aborted';

export interface LiveJsonOptions<S extends SchemaInput = SchemaInput> {
  /**
   * Checked in the browser when the source is model text (prefix check while it streams and
   * validation of the whole document, as `createPartialStream`: `violation` and `schema`
   * diagnostics), and types the value. Not applied to the wire (the server checked it).
   */
  readonly schema?: S;
  /**
   * Compiles a JSON Schema given as `schema` (`compileSchema` from `@llmjson/web/ajv`, or a
   * schema compiled ahead of time needs none); not needed for a Standard Schema (zod, valibot,
   * arktype). Default: none.
   */
  readonly compileJsonSchema?: JsonSchemaCompiler;
  /**
   * `'auto'` (default): a Response whose Content-Type is `text/event-stream` or
   * `application/x-ndjson` is the llmjson wire (`fromEventStream`); anything else, and a bare
   * ReadableStream, is model text, decoded by `createPartialStream`. `'events'`: always the wire.
   * `'text'`: always model text.
   */
  readonly input?: 'auto' | 'events' | 'text';
  /**
   * When subscribers hear of changes: `'frame'` (default) at most once per animation frame
   * (`requestAnimationFrame`; a 16 ms timer where there is none, e.g. SSR/Node), a number of
   * milliseconds = at most once per that many, 0 = after every change list. The last state is
   * always published.
   */
  readonly throttle?: 'frame' | number;
  /** Called with each diagnostic as it arrives (they are in the state's `diagnostics` too). */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

export interface LiveJsonlOptions<S extends SchemaInput = SchemaInput> {
  /** Each line is validated against it (a line that fails is skipped and reported); types the items. */
  readonly schema?: S;
  /** As `LiveJsonOptions.compileJsonSchema`. */
  readonly compileJsonSchema?: JsonSchemaCompiler;
  /** As `LiveJsonOptions.throttle`: `'frame'` (default), milliseconds, or 0. */
  readonly throttle?: 'frame' | number;
  /** Called with each diagnostic as it arrives. */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

/** The option names each controller takes (checked, and listed in docs/guide/options.md). */
export const LIVE_JSON_OPTIONS = /* @__PURE__ */ optionNames<LiveJsonOptions>()([
  'schema',
  'compileJsonSchema',
  'input',
  'throttle',
  'onDiagnostic',
]);
export const LIVE_JSONL_OPTIONS = /* @__PURE__ */ optionNames<LiveJsonlOptions>()([
  'schema',
  'compileJsonSchema',
  'throttle',
  'onDiagnostic',
]);
/** Both lists, by factory, for test/docs/options-tables.test.ts. */
export const LIVE_OPTION_NAMES: Readonly<Record<string, readonly string[]>> = {
  createLiveJson: LIVE_JSON_OPTIONS,
  createLiveJsonl: LIVE_JSONL_OPTIONS,
};

/** What a run has so far: a new frozen object at each publish. */
export interface LiveJsonState<T> {
  /** The value so far (`undefined` before the first change). */
  readonly value: DeepPartial<T> | undefined;
  /** The document is whole. */
  readonly complete: boolean;
  readonly diagnostics: readonly Diagnostic[];
  /** What the source threw or rejected with; `undefined` unless `status` is `'error'`. */
  readonly error: unknown;
  readonly status: LiveStatus;
  /** The server's verdict (the wire's end event) when the source was the wire and sent it. */
  readonly end: WireEnd | undefined;
}

export interface LiveJsonlState<T> {
  /** The values so far, in order: a new array at each publish that shares the items before it. */
  readonly items: readonly T[];
  readonly diagnostics: readonly Diagnostic[];
  readonly error: unknown;
  readonly status: LiveStatus;
}

/** The controller both bindings wrap. */
export interface LiveController<State> {
  /** The published state: the same object until the next publish (safe for `useSyncExternalStore`). */
  getState(): State;
  /** Calls `listener` after each publish; returns the function that stops it. */
  subscribe(listener: () => void): () => void;
  /** Starts the run (idempotent): `'idle'` becomes `'streaming'`. */
  start(): void;
  /**
   * Stops the run: the function source's AbortSignal fires with `reason`, the body is cancelled,
   * and the status becomes `'aborted'` (before `start`, the run never starts). Idempotent; a
   * no-op once the run is `'done'` or `'error'`.
   */
  abort(reason?: unknown): void;
}

export type LiveJson<T> = LiveController<LiveJsonState<T>>;
export type LiveJsonl<T> = LiveController<LiveJsonlState<T>>;

/** The part of a state that a run reads (everything but `status` and `error`). */
interface Reader<Data> {
  /** Reads the body to its end (rejects with the signal's reason once it aborts). */
  read(response: Response | undefined, body: LiveBody, signal: AbortSignal): Promise<void>;
  /** The data to publish now (called only at a publish). */
  data(): Data;
}

/**
 * Creates the controller of one JSON answer. Throws ConfigurationError for an invalid option or
 * schema. The value is typed `DeepPartial` of a Standard Schema's type; `unknown` without one.
 */
export function createLiveJson<S extends SchemaInput = SchemaInput>(
  source: LiveSource,
  options: LiveJsonOptions<S> = {},
): LiveJson<SchemaValue<S>> {
  checkOptionNames('createLiveJson', options, LIVE_JSON_OPTIONS);
  checkChoice('input', options.input, ['auto', 'events', 'text']);
  checkSource('createLiveJson', source);
  const checking = schemaOptions(options);
  const input = options.input ?? 'auto';
  // Compiled now, so a broken schema throws here rather than in a UI's effect (the cache keeps it).
  if (options.schema !== undefined) createPartialStream({ ...checking, emit: 'changes' });
  const store = createPartialStore<SchemaValue<S>>();
  // The change lists read since the last publish, applied as one list when it happens: the store
  // copies each container on the written paths once per apply (the open array of a long answer
  // included), so one apply per frame instead of one per token keeps that copying per frame.
  const pending: Change[] = [];
  let end: WireEnd | undefined;
  let publishing = false;
  const take = (item: unknown) => {
    if (Array.isArray(item)) {
      for (const change of item as Change[]) pending.push(change);
      if (item.length > 0) controller.changed();
      return;
    }
    const event = item as WireEvent;
    if (event.type === 'changes') {
      for (const change of event.changes) pending.push(change);
      if (event.changes.length > 0) controller.changed();
    } else if (event.type === 'diagnostic') store.report(event.diagnostic);
    else if (event.type === 'end') {
      end = event;
      controller.changed();
    }
  };
  const reader: Reader<PartialStoreState<SchemaValue<S>>> = {
    async read(response, body, signal) {
      const wire = input === 'events' || (input === 'auto' && response !== undefined && isWire(response));
      if (wire) {
        const events = fromEventStream((response ?? body) as Response | ReadableStream<Uint8Array>, { signal });
        for await (const event of events) take(event);
        return;
      }
      const partial = createPartialStream({
        ...checking,
        emit: 'changes',
        onDiagnostic: (diagnostic) => store.report(diagnostic),
      });
      const lists = (body as ReadableStream<Uint8Array | string>).pipeThrough(partial, { signal }).getReader();
      const onAbort = () => {
        lists.cancel(signal.reason).catch(() => {});
      };
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        for (;;) {
          const next = await lists.read();
          signal.throwIfAborted();
          if (next.done) return;
          take(next.value);
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    data() {
      if (pending.length > 0) {
        publishing = true;
        try {
          store.apply(pending.splice(0));
        } finally {
          publishing = false;
        }
        tell();
      }
      const state = store.getState();
      return end === undefined || state.end === end ? state : { ...state, end };
    },
  };
  const controller = createController(source, options, reader, (data, status, error) => ({
    value: data.value,
    complete: data.complete,
    diagnostics: data.diagnostics,
    error,
    status,
    end: data.end,
  }));
  let told = 0;
  const tell = () => {
    const { diagnostics } = store.getState();
    for (; told < diagnostics.length; told++) options.onDiagnostic?.(diagnostics[told] as Diagnostic);
  };
  store.subscribe(() => {
    if (publishing) return;
    tell();
    controller.changed();
  });
  return controller.live;
}

/**
 * Creates the controller of one JSONL answer (model text, one JSON value per line, decoded by
 * `createJsonlStream`). Throws ConfigurationError for an invalid option or schema.
 */
export function createLiveJsonl<S extends SchemaInput = SchemaInput>(
  source: LiveSource,
  options: LiveJsonlOptions<S> = {},
): LiveJsonl<SchemaValue<S>> {
  checkOptionNames('createLiveJsonl', options, LIVE_JSONL_OPTIONS);
  checkSource('createLiveJsonl', source);
  const checking = schemaOptions(options);
  if (options.schema !== undefined) createJsonlStream(checking);
  let items: readonly SchemaValue<S>[] = Object.freeze([]);
  let diagnostics: readonly Diagnostic[] = Object.freeze([]);
  const pendingItems: SchemaValue<S>[] = [];
  const pendingDiagnostics: Diagnostic[] = [];
  let change!: () => void;
  const reader: Reader<Pick<LiveJsonlState<SchemaValue<S>>, 'items' | 'diagnostics'>> = {
    async read(_response, body, signal) {
      const lines = createJsonlStream({
        ...checking,
        onDiagnostic(diagnostic) {
          pendingDiagnostics.push(diagnostic);
          options.onDiagnostic?.(diagnostic);
          change();
        },
      });
      const values = (body as ReadableStream<Uint8Array | string>).pipeThrough(lines, { signal }).getReader();
      const onAbort = () => {
        values.cancel(signal.reason).catch(() => {});
      };
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        for (;;) {
          const next = await values.read();
          signal.throwIfAborted();
          if (next.done) return;
          pendingItems.push(next.value as SchemaValue<S>);
          change();
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    data() {
      // A new array only when something arrived: the items before it are the same objects.
      if (pendingItems.length > 0) items = Object.freeze([...items, ...pendingItems.splice(0)]);
      if (pendingDiagnostics.length > 0) diagnostics = Object.freeze([...diagnostics, ...pendingDiagnostics.splice(0)]);
      return { items, diagnostics };
    },
  };
  const controller = createController(source, options, reader, (data, status, error) => ({
    items: data.items,
    diagnostics: data.diagnostics,
    error,
    status,
  }));
  change = controller.changed;
  return controller.live;
}

const FRAME_FALLBACK_MS = 16;

/** The frame clock where there is one (a browser); typed here, as the module compiles without the DOM lib too. */
interface FrameClock {
  readonly requestAnimationFrame?: (callback: (time: number) => void) => number;
  readonly cancelAnimationFrame?: (id: number) => void;
}

/** The schema options the decoders take, without the absent ones (exactOptionalPropertyTypes). */
function schemaOptions<S extends SchemaInput>(options: {
  readonly schema?: S;
  readonly compileJsonSchema?: JsonSchemaCompiler;
}): { schema?: S; compileJsonSchema?: JsonSchemaCompiler } {
  return {
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.compileJsonSchema === undefined ? {} : { compileJsonSchema: options.compileJsonSchema }),
  };
}

function checkSource(factory: string, source: unknown): void {
  if (
    typeof source === 'function' ||
    (typeof Response !== 'undefined' && source instanceof Response) ||
    typeof (source as ReadableStream | null)?.getReader === 'function'
  ) {
    return;
  }
  throw new ConfigurationError(
    ConfigurationErrorCode.optionInvalid,
    `${factory} reads a fetch Response, a ReadableStream or a function (signal) => Response | ReadableStream, got ${describeValue(source)}`,
  );
}

function checkThrottle(throttle: unknown): void {
  if (throttle === undefined || throttle === 'frame') return;
  if (typeof throttle === 'number' && Number.isFinite(throttle) && throttle >= 0) return;
  throw new ConfigurationError(
    ConfigurationErrorCode.optionInvalid,
    `throttle must be 'frame' or a number of milliseconds from 0, got ${describeValue(throttle)}`,
  );
}

/** The Content-Types of the llmjson wire (`WIRE_CONTENT_TYPES`), parameters aside. */
function isWire(response: Response): boolean {
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  return type === 'text/event-stream' || type === 'application/x-ndjson';
}

/** One scheduled publish at a time, by the throttle's clock; `cancel` drops it. */
function createScheduler(throttle: 'frame' | number, flush: () => void) {
  let cancel: (() => void) | undefined;
  return {
    request() {
      if (cancel !== undefined) return;
      if (throttle === 0) {
        flush();
        return;
      }
      // A callback that fires although it was cancelled (a clock that cannot take it back) is ignored.
      const mine = () => {
        if (cancel !== stop) return;
        cancel = undefined;
        flush();
      };
      const frame = throttle === 'frame' ? (globalThis as FrameClock).requestAnimationFrame : undefined;
      let stop: () => void;
      if (typeof frame === 'function') {
        const id = frame(mine);
        stop = () => (globalThis as FrameClock).cancelAnimationFrame?.(id);
      } else {
        const id = setTimeout(mine, throttle === 'frame' ? FRAME_FALLBACK_MS : throttle);
        stop = () => clearTimeout(id);
      }
      cancel = stop;
    },
    cancel() {
      cancel?.();
      cancel = undefined;
    },
  };
}

/** The run, the status and the publishing both controllers share. */
function createController<Data, State extends { readonly status: LiveStatus }>(
  source: LiveSource,
  options: { readonly throttle?: 'frame' | number },
  reader: Reader<Data>,
  compose: (data: Data, status: LiveStatus, error: unknown) => State,
): { live: LiveController<State>; changed: () => void } {
  checkThrottle(options.throttle);
  const listeners = new Set<() => void>();
  const abortController = new AbortController();
  let status: LiveStatus = 'idle';
  let error: unknown;
  let state = Object.freeze(compose(reader.data(), status, error));

  const publish = () => {
    scheduler.cancel();
    state = Object.freeze(compose(reader.data(), status, error));
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (thrown) {
        // One listener's failure must not starve the others (nor stop the run).
        console.error(thrown);
      }
    }
  };
  const scheduler = createScheduler(options.throttle ?? 'frame', publish);
  const settle = (next: LiveStatus, failure?: unknown) => {
    if (status !== 'streaming' && status !== 'idle') return;
    status = next;
    error = failure;
    publish();
  };

  const run = async () => {
    const { signal } = abortController;
    let body: LiveBody | undefined;
    const cancelBody = () => {
      if (body !== undefined && !body.locked) body.cancel(signal.reason).catch(() => {});
    };
    signal.addEventListener('abort', cancelBody, { once: true });
    try {
      const got = typeof source === 'function' ? await source(signal) : source;
      let response: Response | undefined;
      if (typeof Response !== 'undefined' && got instanceof Response) {
        response = got;
        body = got.body ?? undefined;
        if (!got.ok) {
          throw new Error(`the response is HTTP ${got.status} ${got.statusText}`.trimEnd());
        }
        if (body === undefined) throw new Error('the response has no body');
      } else if (typeof (got as ReadableStream | null)?.getReader === 'function') {
        body = got as LiveBody;
      } else {
        throw new TypeError(
          `a live source function must return (or resolve to) a fetch Response or a ReadableStream, got ${describeValue(got)}`,
        );
      }
      signal.throwIfAborted();
      await reader.read(response, body, signal);
      settle('done');
    } catch (failure) {
      if (signal.aborted) return;
      settle('error', failure);
    } finally {
      signal.removeEventListener('abort', cancelBody);
      // An aborted run, a failed one (an HTTP error's body), or one whose reader let go early:
      // the connection is released (cancelling a body read to its end does nothing).
      cancelBody();
    }
  };

  const live: LiveController<State> = {
    getState: () => state,
    subscribe(listener) {
      const entry = () => listener();
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    start() {
      if (status !== 'idle') return;
      status = 'streaming';
      publish();
      void run();
    },
    abort(reason) {
      if (status !== 'idle' && status !== 'streaming') return;
      abortController.abort(reason);
      settle('aborted');
    },
  };
  return {
    live,
    changed: () => {
      if (status === 'streaming') scheduler.request();
    },
  };
}
