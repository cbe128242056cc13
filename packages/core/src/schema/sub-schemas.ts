/**
 * Sub-schemas: the schema that alone applies to a part of a value, for the engines that check a
 * part before the whole is complete (the partial builder's subtree checks, the element stream's
 * elements, coercion's guide, a correction prompt's path).
 *
 * Contract:
 * - `subSchemaAt(schema, path)` / `elementSchemaAt(schema, path)`: the sub-schema at a value's
 *   path, as a schema that means on its own what it means in place (`standaloneAt`), one object
 *   per (document, node) so that a compiler's cache by object compiles it once.
 * - `subSchemaPointer(schema, path)`: where that sub-schema lies in the document, for a compiler
 *   that validates a part of a schema it compiled in place (`CompiledSchema.at`).
 * - References resolve as ajv resolves them (schema-index.ts: nested `$id` bases, draft-04 `id`,
 *   anchors, embedded resources). Where the part depends on the value (a combinator, a
 *   `patternProperties`, `contains`, a dynamic or unresolvable reference), there is no
 *   sub-schema: that part is checked with the whole document.
 *
 * It lives apart from the validator seam (schema-validator.ts), which every engine bundles, so
 * that only the engines that walk sub-schemas carry the reference index.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { quoteInput } from '../diagnostics/diagnostics.js';
import { escapePointer, isObject, type SchemaObject } from './json-pointer.js';
import { REFERENCE_KEYWORDS } from './reference-cycles.js';
import { schemaIndex } from './schema-index.js';
import type { JsonSchema } from './schema-validator.js';

/**
 * Follows `$ref`s from `schema`, found at `path` (property names from `root`): where the chain
 * ends, and its path. References resolve as ajv resolves them (schema-index.ts: nested `$id`
 * bases, anchors, embedded resources); the chain stops at one that cannot be told statically
 * (another document, a dynamic reference).
 */
export function resolveLocalAt(
  root: SchemaObject,
  schema: unknown,
  path: readonly string[],
): [schema: unknown, path: readonly string[]] {
  let node = schema;
  let at = path;
  const index = schemaIndex(root);
  for (let seen = 0; seen <= 16 && isObject(node) && typeof node.$ref === 'string'; seen++) {
    const target = index.resolve(node, node.$ref);
    if (target === undefined) break;
    node = target.node;
    at = target.path;
  }
  return [node, at];
}

/**
 * The schema of the elements of the array at `path` (object keys from the root) inside a
 * document schema: `properties` along the path, then `items`, following `$ref`s as ajv resolves
 * them. The result means on its own what `items` means in the document (see `standaloneAt`).
 * Throws ConfigurationError when the schema does not describe such an array.
 */
export function elementSchemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  let node: unknown = schema;
  let at: readonly string[] = [];
  for (const key of path) {
    [node, at] = resolveLocalAt(schema, node, at);
    const properties = isObject(node) ? node.properties : undefined;
    if (!isObject(properties) || !Object.hasOwn(properties, key)) {
      throw new ConfigurationError(
        ConfigurationErrorCode.schemaInvalid,
        `the schema has no "properties" entry for "${quoteInput(key)}" on the path $.${quoteInput(path.join('.'))}`,
      );
    }
    node = properties[key];
    at = [...at, 'properties', key];
  }
  [node, at] = resolveLocalAt(schema, node, at);
  const items = isObject(node) ? node.items : undefined;
  if (!isObject(items) && typeof items !== 'boolean') {
    throw new ConfigurationError(
      ConfigurationErrorCode.schemaInvalid,
      `the schema has no single "items" schema for the array at $${quoteInput(path.map((k) => `.${k}`).join(''))}`,
    );
  }
  if (typeof items === 'boolean') return items;
  return standaloneAt(schema, items, [...at, 'items']);
}

/**
 * Keywords that, beside a `$ref`, apply too (ajv applies a `$ref`'s siblings in every dialect):
 * a walk cannot take the `$ref`'s target alone as what applies below such a node.
 */
const APPLICATORS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependencies',
  '$dynamicRef',
  '$recursiveRef',
]);

/**
 * `node` (at `at`) with its `$ref` chain followed, when the references alone decide what applies
 * to the parts of the value; undefined when one cannot be followed statically or a keyword
 * beside it applies too.
 */
function followReferences(
  document: SchemaObject,
  node: unknown,
  at: readonly string[],
): [node: unknown, at: readonly string[]] | undefined {
  const index = schemaIndex(document);
  for (let seen = 0; isObject(node) && typeof node.$ref === 'string'; seen++) {
    if (seen > 32) return undefined;
    for (const keyword of Object.keys(node)) if (APPLICATORS.has(keyword)) return undefined;
    const target = index.resolve(node, node.$ref);
    if (target === undefined) return undefined;
    node = target.node;
    at = target.path;
  }
  if (isObject(node) && (node.$dynamicRef !== undefined || node.$recursiveRef !== undefined)) return undefined;
  return [node, at];
}

/** A place of the walk: a schema object as found (before its references are followed), and its keys. */
interface Place {
  readonly node: unknown;
  readonly at: readonly string[];
}

/** The sub-schema found at a place, once its pure `$ref`s are followed, and its JSON pointer. */
interface Final {
  readonly node: JsonSchema;
  readonly at: readonly string[];
  readonly pointer: string;
}

/**
 * What the walk learnt at one schema object: where its references lead (undefined when a part
 * of the value below it depends on the value), the places of its children by key (a declared
 * property `.name`, a prefix index `#n`, the rest `*p` / `*i`: bounded by the schema, whatever
 * the keys of the value), and the sub-schema it is itself.
 */
interface Step {
  readonly resolved: SchemaObject | boolean | undefined;
  readonly at: readonly string[];
  readonly children: Map<string, Place | undefined>;
  final: Final | undefined | null;
}

/** Per document, per schema object: the walk's steps, so that a path costs a lookup per segment. */
const walks = new WeakMap<object, WeakMap<object, Step>>();

function stepOf(document: SchemaObject, node: SchemaObject, at: readonly string[]): Step {
  let perDocument = walks.get(document);
  if (perDocument === undefined) {
    perDocument = new WeakMap();
    walks.set(document, perDocument);
  }
  let step = perDocument.get(node);
  if (step === undefined) {
    const followed = followReferences(document, node, at);
    let resolved: SchemaObject | boolean | undefined;
    const target = followed?.[0];
    if (typeof target === 'boolean') resolved = target;
    else if (
      isObject(target) &&
      target.oneOf === undefined &&
      target.anyOf === undefined &&
      target.allOf === undefined &&
      target.not === undefined &&
      target.if === undefined &&
      target.dependentSchemas === undefined &&
      target.dependencies === undefined &&
      target.unevaluatedProperties === undefined &&
      target.unevaluatedItems === undefined
    ) {
      resolved = target;
    }
    step = { resolved, at: followed?.[1] ?? at, children: new Map(), final: undefined };
    perDocument.set(node, step);
  }
  return step;
}

/** The place of the member `segment` under a step whose schema is an object. */
function childOf(step: Step, node: SchemaObject, segment: string | number): Place | undefined {
  let key: string;
  let keyword: string;
  let name: string | undefined;
  if (typeof segment === 'number') {
    // `contains` also applies to some elements: which ones depends on the value.
    if (node.contains !== undefined) return undefined;
    const prefixKeyword = Array.isArray(node.prefixItems) ? 'prefixItems' : Array.isArray(node.items) ? 'items' : '';
    const prefix = prefixKeyword === '' ? undefined : (node[prefixKeyword] as unknown[]);
    if (prefix !== undefined && segment < prefix.length) {
      key = `#${segment}`;
      keyword = prefixKeyword;
      name = String(segment);
    } else {
      key = '*i';
      keyword = prefix !== undefined && Array.isArray(node.items) ? 'additionalItems' : 'items';
    }
  } else {
    if (node.patternProperties !== undefined) return undefined;
    const properties = isObject(node.properties) ? node.properties : undefined;
    if (properties !== undefined && Object.hasOwn(properties, segment)) {
      key = `.${segment}`;
      keyword = 'properties';
      name = segment;
    } else {
      key = '*p';
      keyword = 'additionalProperties';
    }
  }
  if (step.children.has(key)) return step.children.get(key);
  const holder = node[keyword];
  const child = name === undefined ? holder : (holder as Record<string, unknown>)[name];
  const place =
    child === undefined ? undefined : { node: child, at: [...step.at, keyword, ...(name === undefined ? [] : [name])] };
  step.children.set(key, place);
  return place;
}

/** The sub-schema at `place`: itself, unless it is a `$ref` alone, whose target it then is. */
function finalOf(document: SchemaObject, place: Place): Final | undefined {
  const found = place.node;
  if (typeof found === 'boolean') return { node: found, at: place.at, pointer: pointerOfKeys(place.at) };
  if (!isObject(found)) return undefined;
  const step = stepOf(document, found, place.at);
  if (step.final !== undefined) return step.final ?? undefined;
  let node: unknown = found;
  let at = place.at;
  // The last schema is taken as it is (its `$ref` and the keywords beside it apply together),
  // unless it is a `$ref` alone, whose target is then the sub-schema.
  while (isObject(node) && typeof node.$ref === 'string' && Object.keys(node).every((k) => NOT_APPLYING.has(k))) {
    const followed = followReferences(document, node, at);
    if (followed === undefined || followed[0] === node) break;
    [node, at] = followed;
  }
  const final = typeof node === 'boolean' || isObject(node) ? { node, at, pointer: pointerOfKeys(at) } : undefined;
  step.final = final ?? null;
  return final;
}

function pointerOfKeys(at: readonly string[]): string {
  let pointer = '';
  for (const key of at) pointer += `/${escapePointer(key)}`;
  return pointer;
}

/**
 * The schema object that alone applies to the value at `path` inside a document that `schema`
 * describes, with its keys and JSON pointer from the document; see `subSchemaAt`. Each step is
 * learnt once per document (`walks`): a path costs a lookup per segment.
 */
function subSchemaPlace(schema: SchemaObject, path: readonly (string | number)[]): Final | undefined {
  let place: Place = { node: schema, at: [] };
  for (const segment of path) {
    const found = place.node;
    if (typeof found === 'boolean') return { node: found, at: place.at, pointer: pointerOfKeys(place.at) };
    if (!isObject(found)) return undefined;
    const step = stepOf(schema, found, place.at);
    const resolved = step.resolved;
    if (resolved === undefined) return undefined;
    if (typeof resolved === 'boolean') return { node: resolved, at: step.at, pointer: pointerOfKeys(step.at) };
    const child = childOf(step, resolved, segment);
    if (child === undefined) return undefined;
    place = child;
  }
  return finalOf(schema, place);
}

/** Keywords that apply nothing to a value: a `$ref` with only these beside it is its target. */
const NOT_APPLYING = new Set([
  '$ref',
  '$schema',
  '$comment',
  'title',
  'description',
  'examples',
  'default',
  'definitions',
  '$defs',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/**
 * The sub-schema that applies to the value at `path` (object keys and array indices) inside a
 * document that `schema` describes, following `properties`, `additionalProperties`,
 * `prefixItems`/`items` and `$ref`s (resolved as ajv resolves them); the result means on its
 * own what it means in the document (see `standaloneAt`). `undefined` when the path leads
 * through a combinator (`oneOf`, `anyOf`, `allOf`, `not`, `if`), `patternProperties`,
 * `contains`, a dynamic or unresolvable reference, or anything else whose meaning depends on the
 * value: such subtrees are checked with the whole document.
 */
export function subSchemaAt(schema: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  if (typeof schema === 'boolean') return schema;
  const place = subSchemaPlace(schema, path);
  if (place === undefined) return undefined;
  return typeof place.node === 'boolean' ? place.node : standaloneAt(schema, place.node, place.at);
}

/**
 * Where the sub-schema `subSchemaAt` finds lies in the document, as a JSON pointer (`` for the
 * root, `/properties/a`), for a compiler that validates a part of a schema it compiled in place
 * (`CompiledSchema.at`); undefined when `subSchemaAt` finds none.
 */
export function subSchemaPointer(schema: JsonSchema, path: readonly (string | number)[]): string | undefined {
  if (typeof schema === 'boolean') return '';
  return subSchemaPlace(schema, path)?.pointer;
}

/** The base URI under which `standaloneAt` embeds a document that has no `$id`. */
const EMBEDDED_DOCUMENT_ID = 'llmjson:document';

/**
 * `node`, found at `path` (property names) inside `document`, as a schema that means on its own
 * what it means in place, one object per (document, node) so that compileSchema's cache (by
 * object) compiles it once.
 *
 * When `node` and the document's definitions hold no resource or anchor (`$id`, `id`,
 * `$anchor`…), `node` declares no definitions of its own, and every reference under them names a
 * definition of the document (`#/$defs/…`, `#/definitions/…`), a copy of `node` carrying the
 * document's definitions does: it keeps `oneOf` dispatch at its root. Otherwise (`{"$ref": "#"}`
 * in a recursive schema, an anchor, a nested resource, definitions of its own that would hide
 * the document's) a copy would change what a reference names, so the result is a `$ref` to
 * `node` inside the whole document, embedded as a definition under its own id.
 */
function standaloneAt(document: SchemaObject, node: SchemaObject, path: readonly string[]): JsonSchema {
  if (node === document) return document;
  let perDocument = standaloneSchemas.get(document);
  if (perDocument === undefined) {
    perDocument = new WeakMap();
    standaloneSchemas.set(document, perDocument);
  }
  let standalone = perDocument.get(node);
  if (standalone === undefined) {
    if (copyKeepsMeaning(document, node)) {
      const copy: Record<string, unknown> = { ...node };
      // In the document's dialect: ajv reads a sub-schema's own `$schema` as nothing more.
      delete copy.$schema;
      for (const keyword of ['$schema', '$defs', 'definitions'] as const) {
        if (document[keyword] !== undefined) copy[keyword] = document[keyword];
      }
      standalone = copy;
    } else {
      const idKeyword = schemaIndex(document).idKeyword;
      const ownId = document[idKeyword];
      const id = typeof ownId === 'string' ? ownId.replace(/#\/?$/, '') : EMBEDDED_DOCUMENT_ID;
      const embedded: Record<string, unknown> = { ...document, [idKeyword]: id };
      delete embedded.$schema;
      standalone = {
        ...(document.$schema === undefined ? {} : { $schema: document.$schema }),
        $ref: `${id}#${path.map((key) => `/${encodeURIComponent(escapePointer(key))}`).join('')}`,
        definitions: { document: embedded },
      };
    }
    perDocument.set(node, standalone);
  }
  return standalone;
}

const standaloneSchemas = new WeakMap<object, WeakMap<object, SchemaObject>>();

/** Keys that make a schema a resource or an anchor, which a copy would move. */
const PLACE_KEYWORDS = ['$id', 'id', '$anchor', '$dynamicAnchor', '$recursiveAnchor'];

/** Whether a copy of `node` carrying the document's definitions means what `node` means in place (see `standaloneAt`). */
function copyKeepsMeaning(document: SchemaObject, node: SchemaObject): boolean {
  if (Object.hasOwn(node, '$defs') || Object.hasOwn(node, 'definitions')) return false;
  const todo: unknown[] = [node, document.$defs, document.definitions];
  const seen = new Set<object>();
  while (todo.length !== 0) {
    const value = todo.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) todo.push(item);
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      // A keyword's value is a string (`true` for `$recursiveAnchor`); a property named `id` holds a schema.
      if (PLACE_KEYWORDS.includes(key) && (typeof child === 'string' || child === true)) return false;
      if (
        REFERENCE_KEYWORDS.includes(key) &&
        typeof child === 'string' &&
        !child.startsWith('#/$defs/') &&
        !child.startsWith('#/definitions/')
      ) {
        return false;
      }
      todo.push(child);
    }
  }
  return true;
}
