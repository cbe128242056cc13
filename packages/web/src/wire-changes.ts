/**
 * Change lists in the wire format's compact form (version 2): each change written relative to
 * the one before it, so that a change costs about the bytes of the JSON text it stands for.
 *
 * The reader keeps a cursor, the path of the previous change (the root, `[]`, at the start of
 * the stream; kept across events). A change list is a JSON array whose members are:
 * - a string `"text"`: append `text` to the string at the cursor;
 * - an integer `k`: complete the value `k` levels above the cursor (0: the cursor's own), which
 *   becomes the cursor;
 * - `[k, segment, value]`: add `value` under the path `k` levels above the cursor, at `segment`
 *   (a key or an index); `[k, value]`: add `value` at the path `k` levels above the cursor (the
 *   root, or a value replaced). The added path becomes the cursor;
 * - `{"op":…,"path":[…],"value":…}`: a change with its whole path (version 1's only form), for
 *   what the forms above cannot say (a jump down more than one level); its path becomes the
 *   cursor.
 * So `{"a":"hello","b":[1]}` streamed is `[0,{}],[0,"a","he"],"llo",0,[1,"b",[]],[0,0,1],0,1,1`.
 *
 * Invariants:
 * 1. `ChangeExpander(ChangeEncoder(x))` is `x`, change for change, however the lists are cut
 *    into events (the cursor lives across events), except that the encoder may merge an append
 *    into the append or string add just before it at the same path (the same state results).
 * 2. No amplification: a relative change makes the reader allocate a path (an add, a complete
 *    above the cursor). Within one event, the path segments so allocated are at most
 *    `PATH_SLACK + PATHS_PER_CHARACTER ×` the event's length in characters; the reader refuses a
 *    relative change past that, and the writer, counting a lower bound of the characters it has
 *    written, uses the whole-path form instead before it would get there. So a hostile event of
 *    n characters costs O(n) memory, as version 1 did, however deep its paths.
 * 3. A complete or an append at the cursor shares the cursor's path array (paths are read-only).
 */

import type { Change, PathSegment } from '@llmjson/core';

/** Path segments a reader may allocate per character of an event, beyond `PATH_SLACK`. */
export const PATHS_PER_CHARACTER = 4;
/** Path segments any event may allocate whatever its length. */
export const PATH_SLACK = 256;

/** The encoder: changes in, one event's payload (a JSON array's text) out at a time (`take`). */
export class ChangeEncoder {
  private cursor: readonly PathSegment[] = [];
  private members: unknown[] = [];
  /** The changes of the event being gathered (`gather`), encoded at `take`. */
  private gathered: Change[] = [];
  /** The member an append at the cursor extends: a string member, or an add of a string. */
  private open: { readonly index: number; readonly inArray: boolean } | undefined;
  /**
   * Characters written in this event, a lower bound (its brackets, and a comma counted after
   * every member: one more than the last has, paid for by counting one bracket), and the path
   * segments the reader will allocate (at least as many as it counts).
   */
  private characters = 1;
  private allocated = 0;

  /**
   * `gather`: the event gathers several change lists, so it may be written in fewer bytes for
   * the same state at its end: an append joins the string member before it, and a container
   * added and completed within the event is written whole. Without it (one event per change
   * list), each change is one member, as the source made it.
   */
  constructor(private readonly gather = true) {}

  /** Adds one change to the event being built. `change` carries no container members (`wireChange`). */
  push(change: Change): void {
    if (this.gather) this.gathered.push(change);
    else this.encode(change);
  }

  /** The payload of the event built so far (undefined when it has no change), and a fresh event begins. */
  take(): string | undefined {
    if (this.gather) this.encodeGathered();
    if (this.members.length === 0) return undefined;
    const parts = this.members.map((member) => (member instanceof Raw ? member.text : JSON.stringify(member)));
    this.members = [];
    this.open = undefined;
    this.characters = 1;
    this.allocated = 0;
    return `[${parts.join(',')}]`;
  }

  /** The gathered changes, each container added and completed among them written whole. */
  private encodeGathered(): void {
    const changes = this.gathered;
    this.gathered = [];
    const ends = wholeSpans(changes);
    for (let n = 0; n < changes.length; n++) {
      const change = changes[n] as Change;
      const end = ends.get(n);
      if (end !== undefined && this.writeWhole(change.path, changes, n, end)) {
        n = end;
        continue;
      }
      this.encode(change);
    }
  }

  /**
   * Changes `from` to `to` (an add of a container, what it holds, its complete) as one member:
   * the value they build, whole. False (nothing written) when the value is empty or the reader
   * would allocate too much for it.
   */
  private writeWhole(path: readonly PathSegment[], changes: readonly Change[], from: number, to: number): boolean {
    const common = commonLength(path, this.cursor);
    if (path.length !== common && path.length !== common + 1) return false;
    const value = build(changes, from, to, path.length);
    if (isEmptyContainer(value)) return false;
    const up = this.cursor.length - common;
    const own = path.length === common + 1;
    const text = JSON.stringify(own ? [up, path[common], value] : [up, value]);
    if (!this.allocate(wholeCost(value, path.length), text.length + 1)) return false;
    this.open = undefined;
    this.cursor = path;
    this.write(new Raw(text), text.length + 1);
    return true;
  }

  /** One change as one member, relative to the cursor when a relative form can say it. */
  private encode(change: Change): void {
    const { op, path } = change;
    if (op === 'append') {
      const value = change.value as string;
      if (samePath(path, this.cursor)) {
        if (this.open !== undefined && this.gather) {
          const { index, inArray } = this.open;
          if (inArray) {
            const member = this.members[index] as unknown[];
            member[member.length - 1] = `${member[member.length - 1] as string}${value}`;
          } else this.members[index] = `${this.members[index] as string}${value}`;
          this.characters += value.length;
          return;
        }
        this.open = { index: this.members.length, inArray: false };
        this.write(value, value.length + 3);
        return;
      }
      this.absolute(change);
      return;
    }
    const common = commonLength(path, this.cursor);
    const up = this.cursor.length - common;
    if (op === 'complete') {
      if (path.length === common) {
        this.open = undefined;
        // The complete's path is an ancestor of the cursor (or the cursor): a new array unless 0.
        if (up > 0 && !this.allocate(common, String(up).length + 1)) {
          this.absolute(change);
          return;
        }
        this.cursor = up === 0 ? this.cursor : path;
        this.write(up, String(up).length + 1);
        return;
      }
      this.absolute(change);
      return;
    }
    // add
    const value = change.value;
    if (path.length === common || path.length === common + 1) {
      const own = path.length === common + 1;
      const member = own ? [up, path[common], value] : [up, value];
      const length =
        3 + String(up).length + (own ? segmentLength(path[common] as PathSegment) + 1 : 0) + valueLength(value);
      if (this.allocate(path.length, length)) {
        this.cursor = path;
        this.open = typeof value === 'string' ? { index: this.members.length, inArray: true } : undefined;
        this.write(member, length);
        return;
      }
    }
    this.absolute(change);
  }

  /** A change with its whole path: costs its path in characters, allocates nothing on the reader. */
  private absolute(change: Change): void {
    this.open = undefined;
    this.cursor = change.path;
    const member: Record<string, unknown> = { op: change.op, path: change.path };
    if (change.op !== 'complete') member.value = change.value;
    this.write(member, 20 + change.path.length * 2);
  }

  /** Whether the reader may allocate `segments` more path segments once `more` characters are written. */
  private allocate(segments: number, more = 0): boolean {
    const allowed = PATH_SLACK + PATHS_PER_CHARACTER * (this.characters + more);
    if (this.allocated + segments > allowed) return false;
    this.allocated += segments;
    return true;
  }

  private write(member: unknown, length: number): void {
    this.members.push(member);
    this.characters += length;
  }
}

/** A member already written as JSON text. */
class Raw {
  constructor(readonly text: string) {}
}

/**
 * For each add of a container whose complete comes later in `changes` with only changes under
 * its path in between: the add's index → the complete's index. The outermost such spans are
 * the values an event can write whole.
 */
function wholeSpans(changes: readonly Change[]): Map<number, number> {
  const ends = new Map<number, number>();
  const stack: { readonly index: number; readonly path: readonly PathSegment[] }[] = [];
  for (let n = 0; n < changes.length; n++) {
    const { op, path, value } = changes[n] as Change & { value?: unknown };
    // A change outside the innermost open container's subtree: that one is not whole.
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { index: number; path: readonly PathSegment[] };
      const inside =
        op === 'complete' ? startsWith(path, top.path) : path.length > top.path.length && startsWith(path, top.path);
      if (inside) break;
      stack.pop();
    }
    const top = stack[stack.length - 1];
    if (op === 'complete' && top !== undefined && path.length === top.path.length) {
      ends.set(top.index, n);
      stack.pop();
    } else if (op === 'add' && typeof value === 'object' && value !== null) {
      stack.push({ index: n, path });
    }
  }
  return ends;
}

/** The value changes `from` to `to` build (the first adds it at a path of `depth` segments). */
function build(changes: readonly Change[], from: number, to: number, depth: number): unknown {
  const first = changes[from] as Change & { value: unknown };
  const root = Array.isArray(first.value) ? [] : {};
  for (let n = from + 1; n < to; n++) {
    const change = changes[n] as Change & { value?: unknown };
    if (change.op === 'complete') continue;
    let parent: Record<PathSegment, unknown> = root as Record<PathSegment, unknown>;
    const last = change.path.length - 1;
    for (let i = depth; i < last; i++) parent = parent[change.path[i] as PathSegment] as Record<PathSegment, unknown>;
    const segment = change.path[last] as PathSegment;
    const value =
      change.op === 'append'
        ? `${parent[segment] as string}${change.value as string}`
        : typeof change.value === 'object' && change.value !== null
          ? Array.isArray(change.value)
            ? []
            : {}
          : change.value;
    // An own data member whatever the key (`__proto__` included).
    Object.defineProperty(parent, segment, { value, writable: true, enumerable: true, configurable: true });
  }
  return root;
}

/** Path segments a reader allocates expanding `value` written whole at a path of `depth` segments. */
function wholeCost(value: unknown, depth: number): number {
  let cost = depth;
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) cost += wholeCost(member, depth + 1);
  }
  return cost;
}

function isEmptyContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

function startsWith(path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean {
  if (path.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
  return true;
}

/** Why the expander refused a member (the change it stood for is not applied). */
export class ExpandRefusal {
  constructor(readonly refused: string) {}
}

/** The reader side: compact members in, whole changes (for `ShapeTracker`) out. */
export class ChangeExpander {
  private cursor: readonly PathSegment[] = [];
  private allowed = PATH_SLACK;
  private allocated = 0;

  constructor(private readonly maxDepth: number) {}

  /** A new event of `length` characters begins: its allocation allowance. */
  event(length: number): void {
    this.allowed = PATH_SLACK + PATHS_PER_CHARACTER * length;
    this.allocated = 0;
  }

  /**
   * The changes a member stands for (to check as any change), or why it cannot be read, pushed
   * onto `out`: one, or for a container written whole, its add, what it holds and its complete.
   */
  expand(member: unknown, out: unknown[]): void {
    if (typeof member === 'string') {
      out.push({ op: 'append', path: this.cursor, value: member });
      return;
    }
    if (typeof member === 'number') {
      const path = this.above(member);
      if (typeof path === 'string') out.push(new ExpandRefusal(`a complete ${path}`));
      else {
        this.cursor = path;
        out.push({ op: 'complete', path });
      }
      return;
    }
    if (Array.isArray(member)) {
      this.add(member, out);
      return;
    }
    if (typeof member === 'object' && member !== null) {
      const path = (member as { path?: unknown }).path;
      if (Array.isArray(path) && path.length <= this.maxDepth) this.cursor = path as PathSegment[];
      out.push(member);
      return;
    }
    out.push(new ExpandRefusal(`a change is a string, an integer, an array or an object, got ${String(member)}`));
  }

  private add(member: readonly unknown[], out: unknown[]): void {
    if (member.length !== 2 && member.length !== 3) {
      out.push(
        new ExpandRefusal(`an add is [levels, value] or [levels, segment, value], got an array of ${member.length}`),
      );
      return;
    }
    const own = member.length === 3;
    const segment = member[1];
    if (own && !(typeof segment === 'string' || (Number.isSafeInteger(segment) && (segment as number) >= 0))) {
      out.push(new ExpandRefusal("an add's segment is a key (a string) or an index (an integer from 0)"));
      return;
    }
    const value = member[member.length - 1];
    const whole = typeof value === 'object' && value !== null && Object.keys(value).length > 0;
    let inside = 0;
    if (whole) {
      // What the members of a value written whole cost, checked before anything is taken.
      const levels = member[0];
      const depth =
        Number.isSafeInteger(levels) && (levels as number) >= 0
          ? this.cursor.length - (levels as number) + (own ? 1 : 0)
          : 0;
      inside = memberCost(value, depth, this.maxDepth, this.allowed - this.allocated);
      if (inside < 0) {
        out.push(
          new ExpandRefusal(
            inside === TOO_DEEP
              ? `an add of a value written whole nested deeper than maxDepth (${this.maxDepth})`
              : `an add of a value written whole that makes the event allocate more than ${PATHS_PER_CHARACTER} path segments per character: send it as its changes`,
          ),
        );
        return;
      }
    }
    const base = this.above(member[0], own ? 1 : 0, inside);
    if (typeof base === 'string') {
      out.push(new ExpandRefusal(`an add ${base}`));
      return;
    }
    const path = own ? [...base, segment as PathSegment] : base;
    this.cursor = path;
    if (whole) spread(path, value as object, out);
    else out.push({ op: 'add', path, value });
  }

  /**
   * The path `levels` above the cursor, allocated when it is not the cursor (`extra`: segments
   * the caller adds; `inside`: segments allocated for the members of a value written whole).
   */
  private above(levels: unknown, extra = 0, inside = 0): readonly PathSegment[] | string {
    if (!(Number.isSafeInteger(levels) && (levels as number) >= 0 && (levels as number) <= this.cursor.length)) {
      return `goes ${JSON.stringify(levels) ?? 'no'} levels above a path of ${this.cursor.length} segments`;
    }
    const length = this.cursor.length - (levels as number);
    if (length + extra > this.maxDepth) return `makes a path deeper than maxDepth (${this.maxDepth})`;
    const allocating = (levels === 0 && extra === 0 ? 0 : length + extra) + inside;
    if (this.allocated + allocating > this.allowed) {
      return `makes the event allocate more than ${PATHS_PER_CHARACTER} path segments per character: send it with its whole path`;
    }
    this.allocated += allocating;
    return levels === 0 && extra === 0 ? this.cursor : this.cursor.slice(0, length);
  }
}

const TOO_DEEP = -1;
const TOO_COSTLY = -2;

/**
 * Path segments the members of `value` (at a path of `depth` segments) allocate when spread
 * into changes; TOO_DEEP past `maxDepth`, TOO_COSTLY past `budget` (the walk stops there, so it
 * costs at most what the value's own text did).
 */
function memberCost(value: object, depth: number, maxDepth: number, budget: number): number {
  let cost = 0;
  const stack: [object, number][] = [[value, depth]];
  while (stack.length > 0) {
    const [node, at] = stack.pop() as [object, number];
    for (const member of Object.values(node)) {
      if (at + 1 > maxDepth) return TOO_DEEP;
      cost += at + 1;
      if (cost > budget) return TOO_COSTLY;
      if (typeof member === 'object' && member !== null) stack.push([member, at + 1]);
    }
  }
  return cost;
}

/** A container written whole as its changes, in document order: its add, its members', its complete. */
function spread(path: readonly PathSegment[], value: unknown, out: unknown[]): void {
  if (typeof value !== 'object' || value === null) {
    out.push({ op: 'add', path, value }, { op: 'complete', path });
    return;
  }
  out.push({ op: 'add', path, value: Array.isArray(value) ? [] : {} });
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) spread([...path, i], value[i], out);
  else for (const key of Object.keys(value)) spread([...path, key], (value as Record<string, unknown>)[key], out);
  out.push({ op: 'complete', path });
}

function samePath(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

function commonLength(a: readonly PathSegment[], b: readonly PathSegment[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** A lower bound of a segment's JSON length. */
function segmentLength(segment: PathSegment): number {
  return typeof segment === 'string' ? segment.length + 2 : String(segment).length;
}

/** A lower bound of an added value's JSON length (a container is added empty). */
function valueLength(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'object' && value !== null) return 2;
  return String(value).length;
}
