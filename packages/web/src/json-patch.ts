/**
 * Change lists to and from RFC 6902 JSON Patch, for JSON Patch consumers (AG-UI `STATE_DELTA`,
 * fast-json-patch, LangChain's diff stream).
 *
 * Mapping (docs/guide/live-wire.md):
 * - `add` at an object key, at the array's end, or at the root → `add` (containers empty: their
 *   members follow as adds of their own); `add` at an existing array index (coercion's final
 *   update replaces values) → `replace`.
 * - `append` → `replace` of the whole string: RFC 6902 has no string append, so each token
 *   costs the string so far, not the token (quadratic bytes for a string that grows by many
 *   small appends — the price of JSON Patch, measured in the guide).
 * - `complete` → nothing: JSON Patch cannot say a value closed. Consumers of the patches that
 *   need it keep the change lists (or a PartialStore's `complete`).
 * Back: `add` and `replace` become `add`s (a container value is added empty, then member by
 * member, so the result applies with `applyChanges` and a PartialStore); a `replace` of a string
 * by a longer one that starts with it becomes an `append` again; `test` is dropped. `remove`,
 * `move`, `copy`, an insert before the end of an array, and a path that does not resolve have
 * no change equivalent (a partial value only grows): a TypeError that says so.
 *
 * Both take the state the operations apply to (the value before them) and never modify it;
 * they keep what the list itself adds in small maps, so a call costs time linear in its list
 * (and in the strings it replaces), not in the state.
 */

import type { Change, PathSegment } from '@llmjson/core';
import { quoteInput } from '@llmjson/core/internal';

/** One RFC 6902 operation. */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly path: string; readonly from: string };

/** A path as an RFC 6901 JSON Pointer (`~` as `~0`, `/` as `~1`). */
export function toJsonPointer(path: readonly PathSegment[]): string {
  let pointer = '';
  for (const segment of path) pointer += `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return pointer;
}

function own(parent: unknown, segment: PathSegment): unknown {
  if (typeof parent !== 'object' || parent === null) return undefined;
  if (Array.isArray(parent)) return typeof segment === 'number' ? parent[segment] : undefined;
  return typeof segment === 'string' && Object.hasOwn(parent, segment)
    ? (parent as Record<string, unknown>)[segment]
    : undefined;
}

/** Forgets what the maps hold under `pointer` (replaced by a new value there). */
function forgetUnder(map: Map<string, unknown>, pointer: string): void {
  const prefix = `${pointer}/`;
  for (const key of map.keys()) if (key.startsWith(prefix)) map.delete(key);
}

/**
 * The JSON Patch operations that do to `state` what `changes` do. `state` is the value before
 * the list (as `applyChanges` would take it); it is read, never modified. Throws a TypeError
 * for an append to what is not a string.
 */
export function toJsonPatch(changes: readonly Change[], state?: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  // Values this list added, by pointer: a later change reads them instead of `state`.
  const added = new Map<string, unknown>();
  const lengths = new Map<string, number>();
  const lookup = (path: readonly PathSegment[]): unknown => {
    let node = added.has('') ? added.get('') : state;
    let pointer = '';
    for (const segment of path) {
      pointer += toJsonPointer([segment]);
      node = added.has(pointer) ? added.get(pointer) : own(node, segment);
    }
    return node;
  };
  for (const change of changes) {
    if (change.op === 'complete') continue;
    const pointer = toJsonPointer(change.path);
    if (change.op === 'append') {
      const current = lookup(change.path);
      if (typeof current !== 'string') {
        throw new TypeError(
          `toJsonPatch: an append at ${JSON.stringify(quoteInput(pointer))} to what is not a string: pass the state the changes apply to`,
        );
      }
      const whole = `${current}${change.value}`;
      added.set(pointer, whole);
      ops.push({ op: 'replace', path: pointer, value: whole });
      continue;
    }
    const value = Array.isArray(change.value)
      ? []
      : typeof change.value === 'object' && change.value !== null
        ? {}
        : change.value;
    const path = change.path;
    let op: 'add' | 'replace' = 'add';
    if (path.length > 0) {
      const parentPath = path.slice(0, -1);
      const parent = lookup(parentPath);
      const index = path[path.length - 1];
      if (Array.isArray(parent) && typeof index === 'number') {
        const parentPointer = toJsonPointer(parentPath);
        const length = lengths.get(parentPointer) ?? parent.length;
        if (index < length) op = 'replace';
        else lengths.set(parentPointer, index + 1);
      }
    }
    forgetUnder(added, pointer);
    forgetUnder(lengths as Map<string, unknown>, pointer);
    lengths.delete(pointer);
    added.set(pointer, value);
    ops.push({ op, path: pointer, value });
  }
  return ops;
}

/** A JSON Pointer's reference tokens. */
function tokensOf(pointer: unknown): string[] {
  if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) {
    throw new TypeError(
      `fromJsonPatch: a path is a JSON Pointer ("" or starting with "/"), got ${JSON.stringify(quoteInput(String(pointer)))}`,
    );
  }
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The change lists' equivalent of JSON Patch operations applied to `state` (the value before
 * them; read, never modified). Throws a TypeError for an operation that has none.
 */
export function fromJsonPatch(ops: readonly JsonPatchOperation[], state?: unknown): Change[] {
  const changes: Change[] = [];
  const added = new Map<string, unknown>();
  const lengths = new Map<string, number>();
  for (let n = 0; n < ops.length; n++) {
    const operation = ops[n] as { op?: unknown; path?: unknown; value?: unknown };
    const op = operation?.op;
    if (op === 'test') continue;
    if (op !== 'add' && op !== 'replace') {
      refuse(
        n,
        `${JSON.stringify(quoteInput(String(op)))} has no change equivalent: a partial value only grows (add and replace do)`,
      );
    }
    if (!('value' in operation)) refuse(n, `${op as string} carries a value`);
    const tokens = tokensOf(operation.path);
    // Resolve the tokens to path segments, reading what this list added first.
    const path: PathSegment[] = [];
    let node = added.has('') ? added.get('') : state;
    let pointer = '';
    let target: unknown;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i] as string;
      const last = i === tokens.length - 1;
      let segment: PathSegment;
      if (Array.isArray(node)) {
        const length = lengths.get(pointer) ?? node.length;
        if (last && token === '-') segment = length;
        else if (/^(0|[1-9]\d*)$/.test(token) && Number(token) <= length) segment = Number(token);
        else
          refuse(
            n,
            `${JSON.stringify(quoteInput(String(operation.path)))}: ${JSON.stringify(quoteInput(token))} is not an index of the array (0 to ${length})`,
          );
        if (last && op === 'add' && (segment as number) < length) {
          refuse(
            n,
            'an add before the end of an array inserts (shifts the elements after it): a partial value only appends',
          );
        }
      } else if (typeof node === 'object' && node !== null) {
        segment = token;
      } else {
        refuse(
          n,
          `${JSON.stringify(quoteInput(String(operation.path)))} does not resolve: ${JSON.stringify(quoteInput(token))} is under what is not an object or array`,
        );
      }
      path.push(segment as PathSegment);
      pointer += toJsonPointer([segment as PathSegment]);
      const child = added.has(pointer) ? added.get(pointer) : own(node, segment as PathSegment);
      if (!last) {
        if (child === undefined) refuse(n, `${JSON.stringify(quoteInput(String(operation.path)))} does not resolve`);
        node = child;
      } else target = child;
      if (
        last &&
        Array.isArray(node) &&
        segment === (lengths.get(pointer.slice(0, pointer.lastIndexOf('/'))) ?? node.length)
      ) {
        lengths.set(pointer.slice(0, pointer.lastIndexOf('/')), (segment as number) + 1);
      }
    }
    if (tokens.length === 0) target = node;
    if (op === 'replace' && target === undefined)
      refuse(n, `replace of ${JSON.stringify(quoteInput(String(operation.path)))}, which does not exist`);
    const value = operation.value;
    if (
      typeof value === 'string' &&
      typeof target === 'string' &&
      value.length > target.length &&
      value.startsWith(target)
    ) {
      changes.push({ op: 'append', path, value: value.slice(target.length) });
    } else {
      addTree(path, value, changes);
    }
    forgetUnder(added, pointer);
    forgetUnder(lengths as Map<string, unknown>, pointer);
    lengths.delete(pointer);
    added.set(pointer, value);
  }
  return changes;
}

function refuse(n: number, why: string): never {
  throw new TypeError(`fromJsonPatch: operation ${n} refused: ${why}`);
}

/** `value` at `path` as adds: each container empty, then its members, depth first (no recursion). */
function addTree(path: PathSegment[], value: unknown, out: Change[]): void {
  const stack: [PathSegment[], unknown][] = [[path, value]];
  while (stack.length > 0) {
    const [at, v] = stack.pop() as [PathSegment[], unknown];
    if (Array.isArray(v)) {
      out.push({ op: 'add', path: at, value: [] });
      for (let i = v.length - 1; i >= 0; i--) stack.push([[...at, i], v[i]]);
    } else if (typeof v === 'object' && v !== null) {
      out.push({ op: 'add', path: at, value: {} });
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push([[...at, key], (v as Record<string, unknown>)[key]]);
      }
    } else {
      out.push({ op: 'add', path: at, value: v });
    }
  }
}
