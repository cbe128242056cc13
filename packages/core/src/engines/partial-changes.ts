/**
 * Change lists, the consumer's side of the partial builder (partial-value.ts): the `Change`
 * type, `applyChanges`, which replays a list onto a consumer's state, and `diffChanges`, which
 * writes the list that turns one complete value into its coerced copy.
 *
 * Contract: a change is plain data, `{ op: 'add', path, value }`, `{ op: 'append', path, value }`
 * or `{ op: 'complete', path }`; applying the builder's changes in order to `undefined`
 * reproduces its snapshot (partial-value.ts, invariant 5), whether they came straight from the
 * builder or crossed a trust boundary.
 *
 * Invariants:
 * 1. `applyChanges` never reaches a prototype: a path follows only own members that earlier
 *    changes added, and a `__proto__` key is set as an own member (`Object.defineProperty`). A
 *    change that the builder could not have made is refused with a TypeError naming it.
 * 2. Containers are added empty and filled by later changes, by the builder and by
 *    `diffChanges` alike.
 * 3. Nothing recurses on the value: `diffChanges` walks an explicit stack, `applyChanges` a path.
 *
 * Why its own file: a consumer (a browser replaying a server's changes, a store, the wire
 * format's reader) needs the change type and `applyChanges`, not the builder, its scanner and
 * its schema checks; and the builder's per-character code does not live beside them. This file
 * imports nothing of the builder, which imports it.
 */

import { quoteInput } from '../diagnostics/diagnostics.js';

/** A path segment of a change: an object key or an array index. */
export type PathSegment = string | number;

/** One change of a partial value (see the contract above): data, so that it can be relayed. */
export type Change =
  | { readonly op: 'add'; readonly path: readonly PathSegment[]; readonly value: unknown }
  | { readonly op: 'append'; readonly path: readonly PathSegment[]; readonly value: string }
  | { readonly op: 'complete'; readonly path: readonly PathSegment[] };

/**
 * Appends to `out` the changes that turn `from` into `to` when both are complete JSON values
 * and `to` is a coerced copy of `from` (copied on write: an unchanged subtree is the same
 * object). Objects and arrays both have and that kept their keys (or length) are walked; any
 * other difference is an `add` of the new value at its path (a container empty), rebuilt
 * member by member (adds and `complete`s, as the builder would have sent them). A loop over an
 * explicit stack: nothing recurses on the value.
 */
export function diffChanges(from: unknown, to: unknown, out: Change[]): void {
  // Work items: compare two values at a path, or close a rebuilt container.
  type Item =
    | { readonly kind: 0; readonly from: unknown; readonly to: unknown; readonly path: readonly PathSegment[] }
    | { readonly kind: 1; readonly path: readonly PathSegment[] };
  const stack: Item[] = [{ kind: 0, from, to, path: [] }];
  while (stack.length !== 0) {
    const item = stack.pop() as Item;
    if (item.kind === 1) {
      out.push({ op: 'complete', path: item.path });
      continue;
    }
    const { from: a, to: b, path } = item;
    if (a === b) continue;
    const children: Item[] = [];
    if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      for (let i = 0; i < b.length; i++) children.push({ kind: 0, from: a[i], to: b[i], path: [...path, i] });
    } else if (isRecord(a) && isRecord(b) && Object.keys(a).every((k) => Object.hasOwn(b, k))) {
      for (const key of Object.keys(b)) {
        const child = b[key];
        children.push(
          Object.hasOwn(a, key)
            ? { kind: 0, from: a[key], to: child, path: [...path, key] }
            : { kind: 0, from: NEW, to: child, path: [...path, key] },
        );
      }
    } else {
      // Replaced (a key removed: the whole object): add it, then its members, then close it.
      // Containers are added empty, as the builder adds them; their members follow.
      out.push({ op: 'add', path, value: Array.isArray(b) ? [] : isRecord(b) ? {} : b });
      if (typeof b === 'object' && b !== null) {
        children.push({ kind: 1, path });
        const entries: [PathSegment, unknown][] = Array.isArray(b)
          ? b.map((v, i) => [i, v])
          : Object.keys(b).map((k) => [k, (b as Record<string, unknown>)[k]]);
        for (const [segment, child] of entries)
          children.push({ kind: 0, from: NEW, to: child, path: [...path, segment] });
        // The closing item goes last: after every member.
        children.push(children.shift() as Item);
      } else {
        out.push({ op: 'complete', path });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Item);
  }
}

/** Stands for a value that was not there: never equal to a value of the document. */
const NEW: unknown = Symbol('new');

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An added value: containers are added empty, so a new one is all a consumer needs. */
function fresh(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  return typeof value === 'object' && value !== null ? {} : value;
}

/**
 * Applies changes to a value in place, the way a UI state store would, and returns the value
 * (the root may be replaced). Containers are added empty and filled by later changes.
 *
 * Change lists may cross a trust boundary (relayed from a server to a browser), so each change
 * is checked against the state it applies to, and one that the builder could not have made is
 * refused with a TypeError naming the offending path segment: a path may only follow own
 * object or array members that earlier changes added (never `__proto__`, `constructor` or
 * `prototype` as inherited, so nothing reaches a prototype), an array index must be an integer
 * from 0 to the array's length (appending), an object key a string, and `append` needs an own
 * string. A key named `__proto__` is set as an own member with `Object.defineProperty`, so a
 * document holding one round-trips. The changes before a refused one stay applied to the
 * containers they reached.
 */
export function applyChanges(value: unknown, changes: readonly Change[]): unknown {
  let root = value;
  for (let n = 0; n < changes.length; n++) {
    const change: unknown = changes[n];
    const op = typeof change === 'object' && change !== null ? (change as Change).op : undefined;
    if (op === 'complete') continue;
    if (op !== 'add' && op !== 'append') refuse(n, op, 'a change is an add, append or complete op');
    const { path, value: added } = change as { readonly path: unknown; readonly value: unknown };
    if (!Array.isArray(path)) refuse(n, op, 'its path is not an array');
    if (op === 'append' && typeof added !== 'string') refuse(n, op, 'an append carries a string');
    if (path.length === 0) {
      if (op === 'add') root = fresh(added);
      else if (typeof root === 'string') root = `${root}${added as string}`;
      else refuse(n, op, 'the root is not a string');
      continue;
    }
    const last = path.length - 1;
    let parent: unknown = root;
    for (let i = 0; i < last; i++) {
      const child = memberOf(parent, path[i]);
      if (typeof child !== 'object' || child === null) {
        refuse(n, op, `${where(path, i)} is not an own object or array member that an earlier change added`);
      }
      parent = child;
    }
    const segment: unknown = path[last];
    let next: unknown;
    if (op === 'append') {
      const current = memberOf(parent, segment);
      if (typeof current !== 'string') refuse(n, op, `${where(path, last)} is not an own string member`);
      next = `${current}${added as string}`;
    } else {
      next = fresh(added);
    }
    if (Array.isArray(parent)) {
      // An add appends (or replaces); an append's index was checked by memberOf.
      if (!(Number.isInteger(segment) && (segment as number) >= 0 && (segment as number) <= parent.length)) {
        refuse(n, op, `${where(path, last)} is not an index of the array (0 to ${parent.length})`);
      }
      parent[segment as number] = next;
    } else if (typeof parent === 'object' && parent !== null && typeof segment === 'string') {
      setKey(parent as Record<string, unknown>, segment, next);
    } else {
      refuse(n, op, `${where(path, last)} is not a key of an object`);
    }
  }
  return root;
}

/** Throws the TypeError for a change that `applyChanges` refuses. */
function refuse(index: number, op: unknown, why: string): never {
  throw new TypeError(`applyChanges: change ${index} (${quoteInput(String(op))}) refused: ${why}`);
}

/** Names a path segment in a message, quoted (a hostile one cannot make the message huge). */
function where(path: readonly unknown[], position: number): string {
  return `path segment ${JSON.stringify(quoteInput(String(path[position])))} (position ${position})`;
}

/** The own member of `parent` that `segment` names (an array index, an object key), or undefined. */
function memberOf(parent: unknown, segment: unknown): unknown {
  if (typeof parent !== 'object' || parent === null) return undefined;
  if (Array.isArray(parent)) {
    return Number.isInteger(segment) && (segment as number) >= 0 ? parent[segment as number] : undefined;
  }
  return typeof segment === 'string' && Object.hasOwn(parent, segment)
    ? (parent as Record<string, unknown>)[segment]
    : undefined;
}

/**
 * Sets `key` on an object as plain data (a `__proto__` key never touches the prototype). The
 * builder keeps its own copy of these lines in its per-event code (partial-value.ts), so that
 * its hot path stays a local call.
 */
function setKey(node: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    node[key] = value;
  }
}
