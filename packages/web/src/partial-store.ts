/**
 * `createPartialStore`: one partial value held for a UI, fed change lists, read as immutable
 * snapshots — the `subscribe` / `getSnapshot` pair React's `useSyncExternalStore` and a Vue
 * `shallowRef` wrap.
 *
 * Invariants:
 * 1. A snapshot handed out never changes: its containers are frozen, and `apply` copies a
 *    container before writing into it (each container at most once per call).
 * 2. Structural sharing: one `apply` copies only the containers on the paths its changes write;
 *    every other subtree of the new snapshot is the previous snapshot's object (`===`). So a
 *    subtree that completed keeps its identity for the rest of the stream (the builder never
 *    writes into a closed value; the one exception is `coerce`'s final update, which replaces
 *    the repaired paths).
 * 3. One notification per `apply` that changed anything (the value, `complete` or the
 *    diagnostics), after the whole list is applied; none for an empty list.
 * 4. Nothing a change list holds throws or reaches a prototype: a change `applyChanges` would
 *    refuse (a path through what no earlier change added, a hole in an array, an append to what
 *    is not a string, an unknown op) is left out and becomes an `unrecognized` diagnostic;
 *    `__proto__` keys are own data members (`Object.defineProperty`).
 * 5. A listener that throws does not stop the others or the store: what it threw goes to
 *    `onListenerError` (default `console.error`).
 */

import { type Change, type DeepPartial, type Diagnostic, DiagnosticReason, type PathSegment } from '@llmjson/core';
import { checkOptionNames, quoteInput, textOfValue } from '@llmjson/core/internal';
import { PARTIAL_STORE_OPTIONS, type PartialStoreOptions, type WireEnd, type WireEvent } from './wire-format.js';

/** What a store holds at one moment; a new object whenever any of it changes. */
export interface PartialStoreState<T = unknown> {
  /** The value so far (`undefined` before the first change). */
  readonly value: DeepPartial<T> | undefined;
  /** The root closed: the document is whole. */
  readonly complete: boolean;
  /** Diagnostics reported (`report`), relayed (a `fromEventStream` source) or found in the changes. */
  readonly diagnostics: readonly Diagnostic[];
  /** The end event, when the source was an event stream that sent it. */
  readonly end: WireEnd | undefined;
}

/** What `feed` reads: change lists, `{ changes }` items, or `fromEventStream`'s events. */
export type StoreSource =
  | AsyncIterable<readonly Change[] | { readonly changes: readonly Change[] } | WireEvent>
  | ReadableStream<readonly Change[] | { readonly changes: readonly Change[] } | WireEvent>;

export interface PartialStore<T = unknown> {
  /** Applies one change list: one new snapshot, one notification. Never throws for what the list holds. */
  apply(changes: readonly Change[]): void;
  /** The current value (frozen; the same object until something changes it). */
  getSnapshot(): DeepPartial<T> | undefined;
  /** The whole state (value, complete, diagnostics, end), a new object whenever any part changes. */
  getState(): PartialStoreState<T>;
  /** Calls `listener` after each change of the state; returns the function that stops it (idempotent). */
  subscribe(listener: () => void): () => void;
  /** Adds a diagnostic (pass it as a partial stream's `onDiagnostic`). */
  report(diagnostic: Diagnostic): void;
  /** Reads a source to its end (or until `signal` aborts: the source is cancelled and the promise rejects with the reason). */
  feed(source: StoreSource, options?: { readonly signal?: AbortSignal }): Promise<void>;
  /** Back to no value, no diagnostics (one notification). */
  reset(): void;
  readonly complete: boolean;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Writes changes copy-on-write: a container is copied the first time a change writes into it
 * (or into its members) and written in place afterwards; `seal` freezes what was copied and
 * starts a new round. Used by the store and by the JSON Patch conversions.
 */
export class CopyOnWrite {
  private readonly owned = new Set<object>();

  constructor(public root: unknown) {}

  /** Applies one change; returns why it is refused (and changes nothing), or undefined. */
  write(change: unknown): string | undefined {
    if (typeof change !== 'object' || change === null) return 'a change is an object';
    const { op, path, value } = change as { op?: unknown; path?: unknown; value?: unknown };
    if (op !== 'add' && op !== 'append' && op !== 'complete') return `unknown op ${quoteInput(String(op))}`;
    if (!Array.isArray(path)) return 'its path is not an array';
    if (op === 'append' && typeof value !== 'string') return 'an append carries a string';
    const segments = path as readonly unknown[];
    // Checked before anything is copied: a refused change must not cost identity.
    let node = this.root;
    for (let i = 0; i < segments.length; i++) {
      const last = i === segments.length - 1;
      const member = ownMember(node, segments[i]);
      if (!last || op !== 'add') {
        if (member === undefined) return `path segment ${i} is not a member that an earlier change added`;
        if (!last && (typeof member !== 'object' || member === null))
          return `path segment ${i} is not an object or array`;
      } else if (Array.isArray(node)) {
        const index = segments[i];
        if (!(Number.isSafeInteger(index) && (index as number) >= 0 && (index as number) <= node.length)) {
          return `path segment ${i} is not an index of the array (0 to ${node.length})`;
        }
      } else if (!(typeof node === 'object' && node !== null && typeof segments[i] === 'string')) {
        return `path segment ${i} is not a key of an object`;
      }
      node = member;
    }
    if (op === 'complete') return undefined;
    if (op === 'append' && typeof node !== 'string') return 'an append to what is not a string';
    const next = op === 'append' ? `${node as string}${value as string}` : this.freshOwned(value);
    if (segments.length === 0) {
      this.root = next;
      return undefined;
    }
    let parent = this.own(this.root);
    this.root = parent;
    for (let i = 0; i < segments.length - 1; i++) {
      const segment = segments[i] as PathSegment;
      const child = this.own((parent as Record<PathSegment, unknown>)[segment]);
      setMember(parent as object, segment, child);
      parent = child;
    }
    setMember(parent as object, segments[segments.length - 1] as PathSegment, next);
    return undefined;
  }

  /** Freezes what this round copied or created: it may be handed out now. */
  seal(): unknown {
    for (const container of this.owned) Object.freeze(container);
    this.owned.clear();
    return this.root;
  }

  private own(container: unknown): unknown {
    if (this.owned.has(container as object)) return container;
    const copy = Array.isArray(container) ? container.slice() : { ...(container as object) };
    this.owned.add(copy);
    return copy;
  }

  /** A new empty container is this round's own. */
  private freshOwned(value: unknown): unknown {
    const made = fresh(value);
    if (typeof made === 'object' && made !== null) this.owned.add(made);
    return made;
  }
}

function fresh(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  return typeof value === 'object' && value !== null ? {} : value;
}

function ownMember(parent: unknown, segment: unknown): unknown {
  if (typeof parent !== 'object' || parent === null) return undefined;
  if (Array.isArray(parent)) {
    return Number.isSafeInteger(segment) && (segment as number) >= 0 ? parent[segment as number] : undefined;
  }
  return typeof segment === 'string' && Object.hasOwn(parent, segment)
    ? (parent as Record<string, unknown>)[segment]
    : undefined;
}

/** An own data member, whatever the key (`__proto__` included): never a prototype's setter. */
function setMember(parent: object, segment: PathSegment, value: unknown): void {
  Object.defineProperty(parent, segment, { value, writable: true, enumerable: true, configurable: true });
}

/** Creates a store. Throws ConfigurationError for an invalid option. */
export function createPartialStore<T = unknown>(options: PartialStoreOptions = {}): PartialStore<T> {
  checkOptionNames('createPartialStore', options, PARTIAL_STORE_OPTIONS);
  const onListenerError = options.onListenerError ?? ((error: unknown) => console.error(error));
  const listeners = new Set<() => void>();
  const empty: PartialStoreState<T> = Object.freeze({
    value: undefined,
    complete: false,
    diagnostics: Object.freeze([]),
    end: undefined,
  });
  let state = empty;

  const publish = (next: PartialStoreState<T>) => {
    state = Object.freeze(next);
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        try {
          onListenerError(error);
        } catch {}
      }
    }
  };

  const withDiagnostics = (added: readonly Diagnostic[]) =>
    added.length === 0 ? state.diagnostics : Object.freeze([...state.diagnostics, ...added]);

  const store: PartialStore<T> = {
    apply(changes) {
      if (!Array.isArray(changes) || changes.length === 0) return;
      const writer = new CopyOnWrite(state.value);
      const refused: Diagnostic[] = [];
      let complete = state.complete;
      for (let n = 0; n < changes.length; n++) {
        const change = changes[n] as Change;
        const why = writer.write(change);
        if (why !== undefined) {
          refused.push({
            reason: DiagnosticReason.unrecognized,
            offset: 0,
            excerpt: quoteInput(textOfValue(change), 80),
            message: `a change refused by the store: ${why}`,
          });
        } else if (change.op === 'complete' && change.path.length === 0) {
          complete = true;
        } else if (change.op === 'add' && change.path.length === 0) {
          complete = false;
        }
      }
      const value = writer.seal() as DeepPartial<T> | undefined;
      if (value === state.value && complete === state.complete && refused.length === 0) return;
      publish({ ...state, value, complete, diagnostics: withDiagnostics(refused) });
    },
    getSnapshot: () => state.value,
    getState: () => state,
    subscribe(listener) {
      const entry = () => listener();
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    report(diagnostic) {
      publish({ ...state, diagnostics: withDiagnostics([diagnostic]) });
    },
    async feed(source, feedOptions = {}) {
      const { signal } = feedOptions;
      signal?.throwIfAborted();
      const iterator: AsyncIterator<unknown> =
        typeof (source as ReadableStream).getReader === 'function'
          ? readerIterator((source as ReadableStream).getReader())
          : (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
      // An abort settles the wait at once, even while the source is silent; the source is told
      // to stop without waiting for it (a generator runs its return after the pending step).
      let abort: (reason: unknown) => void = () => {};
      const aborted = new Promise<never>((_, reject) => {
        abort = reject;
      });
      aborted.catch(() => {});
      const stop = () => {
        Promise.resolve()
          .then(() => iterator.return?.())
          .catch(() => {});
      };
      const onAbort = () => {
        abort(signal?.reason);
        stop();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      let done = false;
      try {
        for (;;) {
          const result = await (signal === undefined ? iterator.next() : Promise.race([iterator.next(), aborted]));
          if (result.done === true) {
            done = true;
            return;
          }
          take(result.value);
          signal?.throwIfAborted();
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
        if (!done && signal?.aborted !== true) stop();
      }
    },
    reset() {
      publish(empty);
    },
    get complete() {
      return state.complete;
    },
    get diagnostics() {
      return state.diagnostics;
    },
  };

  const take = (item: unknown) => {
    if (Array.isArray(item)) store.apply(item as Change[]);
    else if (typeof item === 'object' && item !== null) {
      const event = item as Partial<WireEvent> & { changes?: unknown };
      if (event.type === 'diagnostic') store.report((event as { diagnostic: Diagnostic }).diagnostic);
      else if (event.type === 'end') publish({ ...state, end: event as WireEnd });
      else if (Array.isArray(event.changes)) store.apply(event.changes as Change[]);
    }
  };
  return store;
}

function readerIterator(reader: ReadableStreamDefaultReader<unknown>): AsyncIterator<unknown> {
  return {
    next: () => reader.read() as Promise<IteratorResult<unknown>>,
    return: async () => {
      await reader.cancel();
      return { done: true, value: undefined };
    },
  };
}
