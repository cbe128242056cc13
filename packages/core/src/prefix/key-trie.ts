/**
 * The property names a schema declares, as one automaton over their characters: the prefix
 * feed (prefix-feed.ts) follows a key through it while the key streams, instead of carrying the
 * key's text from piece to piece and slicing and joining it when the key closes (decision 027,
 * "Key automaton"). A key that leaves the automaton (a name no `properties` declares, an escape,
 * a character outside printable ASCII) is read as text from there on, as before, so the
 * automaton changes how fast a key is read, never what it is.
 *
 * Each state is a node of the trie of the names; `names[state]` is the text that leads to it
 * (a prefix of some name, or a whole one), so a key that closes in any state is that text,
 * already flat and the same string every time (the checker's lookups keyed by it hash it once).
 */

import { isObject } from '../schema/json-pointer.js';

/** Bounds on what is compiled (a hostile schema must not make the table large). */
const MAX_NAMES = 2048;
const MAX_NAME_LENGTH = 64;
const MAX_STATES = 8192;
const MAX_WALK = 20_000; // schema objects visited

export interface KeyTrie {
  /** Column of each ASCII character in `next` (0: no name has it). */
  readonly columns: Uint8Array;
  /** Columns per state. */
  readonly width: number;
  /** `next[state * width + column]`: the state after that character, 0 for none. The root is 1. */
  readonly next: Int32Array;
  /** The text that leads to each state. */
  readonly names: readonly string[];
}

const tries = new WeakMap<object, KeyTrie | null>();

/** The automaton of the property names `schema` declares anywhere, or undefined when it declares none. */
export function keyTrieOf(schema: unknown): KeyTrie | undefined {
  if (!isObject(schema)) return undefined;
  let trie = tries.get(schema);
  if (trie === undefined) {
    trie = build(collectNames(schema));
    tries.set(schema, trie);
  }
  return trie ?? undefined;
}

/** Whether a name can be followed through the automaton: printable ASCII without `"` or `\`. */
function followable(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** The keys of every `properties` object in the schema (sub-schemas, definitions, any nesting). */
function collectNames(schema: object): Set<string> {
  const names = new Set<string>();
  const seen = new Set<object>();
  const todo: unknown[] = [schema];
  while (todo.length !== 0 && seen.size < MAX_WALK && names.size < MAX_NAMES) {
    const node = todo.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object') todo.push(item);
      continue;
    }
    const record = node as Record<string, unknown>;
    const properties = record.properties;
    if (isObject(properties)) {
      for (const name of Object.keys(properties)) if (followable(name) && names.size < MAX_NAMES) names.add(name);
    }
    for (const key of Object.keys(record)) {
      // `enum` and `const` hold data, not schemas; `properties`' own keys are names, its values schemas.
      if (key === 'enum' || key === 'const' || key === 'examples' || key === 'default') continue;
      const value = record[key];
      if (typeof value === 'object' && value !== null) todo.push(value);
    }
  }
  return names;
}

function build(names: Set<string>): KeyTrie | null {
  if (names.size === 0) return null;
  const columns = new Uint8Array(128);
  let width = 1;
  for (const name of names) {
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (columns[c] === 0) columns[c] = width++;
    }
  }
  // States as maps while building; state 0 is "none", 1 the root.
  const edges: Map<number, number>[] = [new Map(), new Map()];
  const texts: string[] = ['', ''];
  for (const name of names) {
    let state = 1;
    for (let i = 0; i < name.length; i++) {
      const column = columns[name.charCodeAt(i)] as number;
      let next = (edges[state] as Map<number, number>).get(column);
      if (next === undefined) {
        if (edges.length >= MAX_STATES) return null;
        next = edges.length;
        edges.push(new Map());
        texts.push(name.slice(0, i + 1));
        (edges[state] as Map<number, number>).set(column, next);
      }
      state = next;
    }
  }
  const next = new Int32Array(edges.length * width);
  for (let state = 1; state < edges.length; state++) {
    for (const [column, to] of edges[state] as Map<number, number>) next[state * width + column] = to;
  }
  // The names as the same strings the schema's `properties` keys are (internalized, hashed once).
  return { columns, width, next, names: texts };
}
