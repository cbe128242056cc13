/**
 * JSON Pointer helpers (RFC 6901) shared by the schema code: reading a pointer fragment the way
 * ajv decodes it, escaping a key into one, and walking an object along decoded keys.
 *
 * They live apart from reference-cycles.ts (which re-exports them) so that an engine that only
 * resolves a local `$ref` or names a property in a message does not bundle the reference-cycle
 * analysis and its keyword tables.
 */

/** A JSON Schema object (boolean schemas apply nothing and are never an edge). */
export type SchemaObject = Readonly<Record<string, unknown>>;

export function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `key` as one JSON Pointer reference token: `~` becomes `~0`, `/` becomes `~1`. */
export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A percent-encoded URI fragment (or one part of it) decoded; `undefined` when it is not valid. */
export function decodeFragment(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

/**
 * The property names a JSON pointer fragment (`/$defs/a~1b`, percent-encoded) spells, decoded
 * part by part as ajv decodes them; `undefined` when a part is not valid percent-encoding.
 */
export function pointerKeys(fragment: string): string[] | undefined {
  const keys: string[] = [];
  for (const raw of fragment.slice(1).split('/')) {
    const key = decodeFragment(raw)?.replace(/~1/g, '/').replace(/~0/g, '~');
    if (key === undefined) return undefined;
    keys.push(key);
  }
  return keys;
}

export function walkKeys(node: unknown, keys: readonly string[]): unknown {
  for (const key of keys) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A path of keys and indexes as a JSON Pointer (`['a', 0]` → `/a/0`; `[]` → ``). */
export function pointerOf(path: readonly (string | number)[]): string {
  let pointer = '';
  for (const segment of path) pointer += `/${escapePointer(String(segment))}`;
  return pointer;
}
